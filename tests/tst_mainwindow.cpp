// MainWindow against a real Backend: a real MCP client (QNetworkAccessManager speaking Streamable
// HTTP) makes a call, and the test looks for it where a person would: in the call log, in the
// inspector after clicking the row, in History; and checks the filter, the token handling, the
// Connect dialog, a large call's preview and whole call, and what the status bar says about history
// and workspace-state problems. Each test function makes the calls it needs, so any one runs alone
// (`tst_mainwindow <function>`) or in any order. The window is on the Backend in this process, or
// attached to it over the operator API (tst_mainwindow_attached: windowbackend.h).

#include "callinspector.h"
#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "connectclientdialog.h"
#include "copybutton.h"
#include "core/backend.h"
#include "historydialog.h"
#include "historymodel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "snippetwidget.h"
#include "statuswarning.h"
#include "store/historywriter.h"
#include "windowbackend.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

constexpr int TimeoutMs = 10'000; // generous: a loaded two-core machine is slow to schedule threads
const QByteArray token = "sb_guiTestToken_0123456789abcdefghijklmnopqrstuv";
const QString message = QStringLiteral("hello from the gui test");

QString statusBarText(QStatusBar* bar)
{
    QStringList texts;
    const auto labels = bar->findChildren<QLabel*>();
    for (const QLabel* label : labels)
        texts << label->text() << label->toolTip();
    const auto buttons = bar->findChildren<QPushButton*>();
    for (const QPushButton* button : buttons)
        texts << button->text() << button->toolTip();
    return texts.join(QLatin1Char('\n'));
}

// With SWITCHBOARD_SCREENSHOT_DIR set, saves what the widget shows there (for looking at the UI
// without a display; the test does not depend on it).
void saveScreenshot(QWidget* widget, const char* name)
{
    const QString directory = qEnvironmentVariable("SWITCHBOARD_SCREENSHOT_DIR");
    if (directory.isEmpty())
        return;
    // Layouts settle on posted events; a person sees the window after they ran.
    QCoreApplication::processEvents();
    widget->grab().save(directory + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void callShowsInLogAndInspector();
    void filterHidesNonMatchingRows();
    void statusBarNeverShowsTheToken();
    void copyTokenPutsItOnTheClipboard();
    void connectDialogMasksTheToken();
    void historyFindsTheCall();
    void historyPagesThroughOlderCalls();
    void statusBarReportsHistoryFailures();
    void statusBarSaysWhereDroppedRowsWent();
    void newWindowLoadsRecentCalls();
    void noAuthIsShownInRed();
    void largeCallShowsItsPreviewThenTheWholeCall();
    void statusBarShowsWorkspaceStateAndHistoryProblemsUntilResolved();
    void historyHoldsPreviewsAndShowsTheWholeSelectedCall();
    void callBeyondWhatHistoryKeepsSaysSo();

private:
    // Posts one JSON-RPC message to the MCP endpoint and returns the JSON answer (empty for 202).
    QJsonObject post(const QJsonObject& message, int expectedStatus);
    QModelIndex echoRow() const;
    QModelIndex rowWithRequestContaining(const QByteArray& text) const;
    QJsonObject callEcho(int id, const QString& text);
    // Opens the MCP session the calls go through, once.
    bool ensureSession();
    // Makes the echo call with `message` unless the live log still shows one.
    bool ensureEchoCall();
    int m_nextRequestId = 1000;

    QTemporaryDir m_stateDir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<WindowBackend> m_windowBackend; // what the window is on
    std::unique_ptr<MainWindow> m_window;
    QNetworkAccessManager m_network;
    QByteArray m_sessionId;
    QByteArray m_protocolVersion;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(m_stateDir.isValid());
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = m_stateDir.path();
    WindowBackend::prepare(&options);
    m_backend = std::make_unique<Backend>(options);
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));

    m_windowBackend = std::make_unique<WindowBackend>(m_backend.get());
    m_window = std::make_unique<MainWindow>(m_windowBackend->operatorInterface(), 1000, false);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_windowBackend->attach());
    QCOMPARE(m_window->windowTitle(), m_windowBackend->windowTitle());
    QVERIFY(!m_window->windowIcon().isNull());
}

void TestMainWindow::cleanupTestCase()
{
    m_window.reset();
    m_windowBackend.reset();
    if (m_backend)
        m_backend->stop();
}

QJsonObject TestMainWindow::post(const QJsonObject& body, int expectedStatus)
{
    QNetworkRequest request(m_backend->serverUrl());
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    request.setRawHeader("Authorization", "Bearer " + token);
    if (!m_sessionId.isEmpty())
        request.setRawHeader("Mcp-Session-Id", m_sessionId);
    if (!m_protocolVersion.isEmpty())
        request.setRawHeader("MCP-Protocol-Version", m_protocolVersion);
    std::unique_ptr<QNetworkReply> reply(m_network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(TimeoutMs)) {
        qWarning("no answer to %s", QJsonDocument(body).toJson().constData());
        return {};
    }
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray bytes = reply->readAll();
    if (status != expectedStatus) {
        qWarning("HTTP %d: %s", status, bytes.constData());
        return {};
    }
    if (reply->hasRawHeader("Mcp-Session-Id"))
        m_sessionId = reply->rawHeader("Mcp-Session-Id");
    if (bytes.isEmpty())
        return {};
    // A call may be answered as an event stream; the answer is the data line that carries an id.
    if (reply->header(QNetworkRequest::ContentTypeHeader).toString().startsWith(QLatin1String("text/event-stream"))) {
        const QList<QByteArray> lines = bytes.split('\n');
        for (const QByteArray& line : lines) {
            if (!line.startsWith("data:"))
                continue;
            const QJsonObject event = QJsonDocument::fromJson(line.mid(5).trimmed()).object();
            if (event.contains(QLatin1String("id")))
                return event;
        }
        return {};
    }
    return QJsonDocument::fromJson(bytes).object();
}

QModelIndex TestMainWindow::echoRow() const
{
    const QAbstractItemModel* proxy = m_window->callLogView()->tableView()->model();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const QModelIndex index = proxy->index(row, CallColumns::ToolColumn);
        if (index.data(CallRole).value<ToolCall>().request.contains(message.toUtf8()))
            return index;
    }
    return {};
}

bool TestMainWindow::ensureSession()
{
    if (!m_sessionId.isEmpty())
        return true;
    const QJsonObject initialize
        = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), 1},
                   {QStringLiteral("method"), QStringLiteral("initialize")},
                   {QStringLiteral("params"),
                       QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                           {QStringLiteral("capabilities"), QJsonObject()},
                           {QStringLiteral("clientInfo"),
                               QJsonObject{{QStringLiteral("name"), QStringLiteral("gui-test")},
                                   {QStringLiteral("version"), QStringLiteral("0.9")}}}}}},
            200);
    if (!initialize.contains(QLatin1String("result")) || m_sessionId.isEmpty()) {
        qWarning("initialize failed: %s", QJsonDocument(initialize).toJson().constData());
        return false;
    }
    m_protocolVersion
        = initialize[QLatin1String("result")].toObject()[QLatin1String("protocolVersion")].toString().toUtf8();
    post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
             {QStringLiteral("method"), QStringLiteral("notifications/initialized")}},
        202);
    return true;
}

bool TestMainWindow::ensureEchoCall()
{
    if (echoRow().isValid())
        return true;
    if (!ensureSession())
        return false;
    const QJsonObject answer = callEcho(m_nextRequestId++, message);
    if (!answer.contains(QLatin1String("result"))) {
        qWarning("echo failed: %s", QJsonDocument(answer).toJson().constData());
        return false;
    }
    return QTest::qWaitFor([this] { return echoRow().isValid(); }, TimeoutMs);
}

QModelIndex TestMainWindow::rowWithRequestContaining(const QByteArray& text) const
{
    CallLogModel* model = m_window->callLogModel();
    for (int row = model->rowCount() - 1; row >= 0; --row) {
        if (model->callAt(row).request.contains(text))
            return model->index(row, CallColumns::ToolColumn);
    }
    return {};
}

void TestMainWindow::callShowsInLogAndInspector()
{
    QVERIFY(ensureSession());
    auto* sessions = m_window->findChild<QLabel*>(QStringLiteral("sessionsLabel"));
    QVERIFY(sessions);
    QTRY_COMPARE_WITH_TIMEOUT(sessions->text(), QStringLiteral("1 session"), TimeoutMs);

    const QJsonObject answer = callEcho(m_nextRequestId++, message);
    QVERIFY2(answer.contains(QLatin1String("result")), QJsonDocument(answer).toJson().constData());

    // The row appears in the live log…
    QTRY_VERIFY_WITH_TIMEOUT(echoRow().isValid(), TimeoutMs);
    const QModelIndex row = echoRow();
    QCOMPARE(row.data().toString(), QStringLiteral("echo"));
    QCOMPARE(row.siblingAtColumn(CallColumns::ClientColumn).data().toString(), QStringLiteral("gui-test 0.9"));

    // …and clicking it shows it in the inspector.
    QTableView* table = m_window->callLogView()->tableView();
    table->scrollTo(row);
    const QPoint centre = table->visualRect(row).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, centre);
    QCOMPARE(table->currentIndex().row(), row.row());

    CallInspector* inspector = m_window->inspector();
    QVERIFY(inspector->hasCall());
    auto* status = inspector->findChild<QLabel*>(QStringLiteral("statusLabel"));
    auto* tool = inspector->findChild<QLabel*>(QStringLiteral("toolLabel"));
    auto* response = inspector->findChild<QPlainTextEdit*>(QStringLiteral("responseText"));
    auto* arguments = inspector->findChild<QPlainTextEdit*>(QStringLiteral("argumentsText"));
    QVERIFY(status && tool && response && arguments);
    QCOMPARE(tool->text(), QStringLiteral("echo"));
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QStringLiteral("OK"), TimeoutMs);
    QVERIFY2(response->toPlainText().contains(message), qPrintable(response->toPlainText()));
    QVERIFY(arguments->toPlainText().contains(QStringLiteral("\"message\": \"hello from the gui test\"")));
    saveScreenshot(m_window.get(), "ui-main");
}

void TestMainWindow::filterHidesNonMatchingRows()
{
    QVERIFY(ensureEchoCall());
    QLineEdit* filter = m_window->callLogView()->filterEdit();
    filter->setFocus();
    QTest::keyClicks(filter, QStringLiteral("nosuchword"));
    QCOMPARE(filter->text(), QStringLiteral("nosuchword"));
    QTRY_VERIFY_WITH_TIMEOUT(!echoRow().isValid(), TimeoutMs);
    QCOMPARE(m_window->callLogView()->tableView()->model()->rowCount(), 0);

    filter->clear();
    QTRY_VERIFY_WITH_TIMEOUT(echoRow().isValid(), TimeoutMs);
    QTest::keyClicks(filter, QStringLiteral("ECHO gui-test"));
    QVERIFY(echoRow().isValid());
    filter->clear();
}

void TestMainWindow::statusBarNeverShowsTheToken()
{
    const QString text = statusBarText(m_window->statusBar());
    QVERIFY(!text.contains(QLatin1String(token)));
    QVERIFY(text.contains(QStringLiteral("Token required")));
    QVERIFY(text.contains(m_backend->serverUrl().toString()));
}

void TestMainWindow::copyTokenPutsItOnTheClipboard()
{
    QGuiApplication::clipboard()->clear();
    auto* button = m_window->findChild<CopyButton*>(QStringLiteral("copyTokenButton"));
    if (WindowBackend::attached()) {
        // The clients' token stays on the backend's machine: the attached window says where it is.
        QVERIFY(!button);
        auto* auth = m_window->findChild<QLabel*>(QStringLiteral("authLabel"));
        QVERIFY(auth);
        QCOMPARE(auth->text(), QStringLiteral("Token required"));
        QVERIFY2(
            auth->toolTip().contains(m_windowBackend->operatorInterface()->backendName()), qPrintable(auth->toolTip()));
        return;
    }
    QVERIFY(button);
    QVERIFY(button->isVisible());
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromLatin1(token));
}

void TestMainWindow::connectDialogMasksTheToken()
{
    auto* action = m_window->findChild<QAction*>(QStringLiteral("connectClientAction"));
    QVERIFY(action);
    action->trigger();
    ConnectClientDialog* dialog = m_window->connectClientDialog();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));

    const auto snippets = dialog->findChildren<SnippetWidget*>();
    QVERIFY(!snippets.isEmpty());
    for (const SnippetWidget* snippet : snippets)
        QVERIFY2(!snippet->displayText().contains(QLatin1String(token)), qPrintable(snippet->displayText()));
    const auto edits = dialog->findChildren<QPlainTextEdit*>();
    for (const QPlainTextEdit* edit : edits)
        QVERIFY(!edit->toPlainText().contains(QLatin1String(token)));

    auto* claude = dialog->findChild<SnippetWidget*>(QStringLiteral("claudeCodeSnippet"));
    QVERIFY(claude);
    QVERIFY(claude->displayText().contains(m_backend->serverUrl().toString()));
    saveScreenshot(dialog, "ui-connect");
    QTest::mouseClick(claude->copyButton(), Qt::LeftButton);
    // Attached, the window has no token: the command reads it from the environment, and the dialog
    // says where it is kept (never that the server needs none).
    const QString bearer = WindowBackend::attached() ? ConnectClientDialog::tokenPlaceholder() : QLatin1String(token);
    QCOMPARE(QGuiApplication::clipboard()->text(),
        QStringLiteral("claude mcp add --transport http switchboard ") + m_backend->serverUrl().toString()
            + QStringLiteral(" --header \"Authorization: Bearer ") + bearer + QLatin1Char('"'));
    QVERIFY(!dialog->findChild<QLabel*>(QStringLiteral("noAuthWarning")));
    if (WindowBackend::attached()) {
        auto* kept = dialog->findChild<QLabel*>(QStringLiteral("tokenKeptNote"));
        QVERIFY(kept);
        QVERIFY2(kept->text().contains(m_windowBackend->operatorInterface()->backendName()), qPrintable(kept->text()));
    }
    dialog->close();
}

void TestMainWindow::historyFindsTheCall()
{
    // Once the call is in the log, it has been handed to the history thread ahead of the search.
    QVERIFY(ensureEchoCall());
    auto* action = m_window->findChild<QAction*>(QStringLiteral("historyAction"));
    QVERIFY(action);
    action->trigger();
    HistoryDialog* dialog = m_window->historyDialog();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));

    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    auto* searchButton = dialog->findChild<QPushButton*>(QStringLiteral("historySearchButton"));
    QVERIFY(search && searchButton);

    QTest::keyClicks(search, QStringLiteral("nosuchword"));
    QTest::mouseClick(searchButton, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    QCOMPARE(dialog->model()->rowCount(), 0);

    search->clear();
    QTest::keyClicks(search, QStringLiteral("echo"));
    QTest::mouseClick(searchButton, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    QVERIFY(dialog->model()->rowCount() >= 1);

    QTableView* table = dialog->tableView();
    const QModelIndex first = table->model()->index(0, CallColumns::ToolColumn);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, table->visualRect(first).center());
    QVERIFY(dialog->inspector()->hasCall());
    QCOMPARE(dialog->inspector()->call().tool, QStringLiteral("echo"));
    auto* response = dialog->inspector()->findChild<QPlainTextEdit*>(QStringLiteral("responseText"));
    QVERIFY(response->toPlainText().contains(message));
    saveScreenshot(dialog, "ui-history");
    dialog->close();
}

QJsonObject TestMainWindow::callEcho(int id, const QString& text)
{
    return post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                    {QStringLiteral("method"), QStringLiteral("tools/call")},
                    {QStringLiteral("params"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("echo")},
                            {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("message"), text}}}}}},
        200);
}

void TestMainWindow::historyPagesThroughOlderCalls()
{
    QVERIFY(ensureSession());
    const int extra = 5;
    for (int i = 0; i < HistoryDialog::PageSize + extra; ++i)
        QVERIFY(callEcho(100 + i, QStringLiteral("paging test %1").arg(i)).contains(QLatin1String("result")));
    // History is written from the same batches the log shows: once the last call is in the log, it
    // has been handed to the history thread ahead of any query sent after this point.
    QTRY_VERIFY_WITH_TIMEOUT(rowWithRequestContaining("\"paging test 204\"").isValid(), TimeoutMs);

    m_window->showHistoryDialog();
    HistoryDialog* dialog = m_window->historyDialog();
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    auto* older = dialog->findChild<QPushButton*>(QStringLiteral("historyOlderButton"));
    auto* newest = dialog->findChild<QPushButton*>(QStringLiteral("historyNewestButton"));
    auto* summary = dialog->findChild<QLabel*>(QStringLiteral("historySummary"));
    QVERIFY(search && older && newest && summary);
    search->clear();
    QTest::keyClicks(search, QStringLiteral("paging test"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    QCOMPARE(dialog->model()->rowCount(), HistoryDialog::PageSize);
    QVERIFY(dialog->model()->hasMore());
    QVERIFY(older->isEnabled());
    QCOMPARE(dialog->model()->callAt(0).request.contains("paging test 204"), true);

    QTest::mouseClick(older, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    QCOMPARE(dialog->model()->rowCount(), extra);
    QVERIFY(!dialog->model()->hasMore());
    QVERIFY(!older->isEnabled());
    QVERIFY2(summary->text().startsWith(QStringLiteral("Calls 201–205")), qPrintable(summary->text()));
    QVERIFY(dialog->model()->callAt(extra - 1).request.contains("\"paging test 0\""));

    // An answer to a request the dialog did not send (or no longer waits for) changes nothing.
    Q_EMIT m_windowBackend->operatorInterface()->historyLoaded(987'654, ToolCallList(), false);
    QCOMPARE(dialog->model()->rowCount(), extra);

    QTest::mouseClick(newest, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    QCOMPARE(dialog->model()->rowCount(), HistoryDialog::PageSize);
    dialog->close();
}

void TestMainWindow::statusBarReportsHistoryFailures()
{
    auto* warning = m_window->findChild<StatusWarning*>(QStringLiteral("historyWarningLabel"));
    QVERIFY(warning);
    Q_EMIT m_backend->historyWriteFailed(QStringLiteral("database or disk is full"));
    QTRY_VERIFY_WITH_TIMEOUT(warning->isVisible(), TimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(warning->state(), StatusWarning::State::Problem, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(warning->toolTip().contains(QStringLiteral("disk is full")), TimeoutMs);
    Q_EMIT m_backend->historyWriteRecovered();
    QTRY_COMPARE_WITH_TIMEOUT(warning->state(), StatusWarning::State::Recovered, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!warning->toolTip().contains(QStringLiteral("disk is full")), TimeoutMs);
}

void TestMainWindow::statusBarSaysWhereDroppedRowsWent()
{
    auto* dropped = m_window->findChild<QLabel*>(QStringLiteral("droppedLabel"));
    QVERIFY(dropped);
    // Calls beyond the log's capacity leave it, and the status bar says where they went. The
    // synthetic calls come after every call the log has (or has had).
    CallLogModel* model = m_window->callLogModel();
    ToolCallList calls;
    const qint64 droppedBefore = model->droppedCount();
    const qint64 firstId = (model->rowCount() > 0 ? model->callAt(model->rowCount() - 1).id : 0) + 1'000'000;
    // One more than fits, even when the log starts empty (this test run alone).
    for (int i = 0; i < model->capacity() + 1; ++i) {
        ToolCall call;
        call.id = firstId + i;
        call.tool = QStringLiteral("synthetic");
        call.status = CallStatus::Ok;
        calls.append(call);
    }
    const int before = model->rowCount();
    model->applyUpdates(calls);
    QCOMPARE(model->rowCount(), model->capacity());
    // The figure is what history holds older than the log (asked of the real history: the calls
    // this test run stored), not the rows the log let go (the synthetic ones are in no history).
    HistoryQuery older;
    older.beforeId = model->oldestLiveId();
    QSignalSpy counted(m_backend.get(), &OperatorInterface::historyCounted);
    const quint64 request = m_backend->countHistory(older);
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(counted.begin(), counted.end(),
                                 [&](const QList<QVariant>& answer) { return answer.at(0).toULongLong() == request; }),
        TimeoutMs);
    qint64 stored = -1;
    for (const QList<QVariant>& answer : std::as_const(counted)) {
        if (answer.at(0).toULongLong() == request)
            stored = answer.at(1).toLongLong();
    }
    QVERIFY(stored >= 0);
    const QString expected = stored == 1 ? QStringLiteral("<a href=\"history\">1 older call is in History</a>")
        : stored > 1
        ? QStringLiteral("<a href=\"history\">%1 older calls are in History</a>").arg(stored)
        : QStringLiteral("<a href=\"history\">%1 older calls left the log</a>").arg(droppedBefore + before + 1);
    QTRY_COMPARE_WITH_TIMEOUT(dropped->text(), expected, TimeoutMs);
    QVERIFY(dropped->isVisible());
    QVERIFY(!dropped->text().contains(QLatin1String(token)));
    // The synthetic ids are beyond the server's: leave the log as a new window starts, so later
    // calls land in it whatever test runs next.
    model->clear();
}

void TestMainWindow::newWindowLoadsRecentCalls()
{
    QVERIFY(ensureEchoCall());
    // A second window stands in for a restart: it starts with the calls history holds.
    WindowBackend second(m_backend.get());
    MainWindow window(second.operatorInterface(), 1000, false);
    QVERIFY(second.attach());
    // (An attached window hears the backend's newest calls with its state, and history after.)
    const auto found = [&] {
        for (int row = 0; row < window.callLogModel()->rowCount(); ++row) {
            if (window.callLogModel()->callAt(row).request.contains(message.toUtf8()))
                return true;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(found(), TimeoutMs);
}

void TestMainWindow::noAuthIsShownInRed()
{
    QTemporaryDir stateDir;
    BackendOptions options;
    options.server.port = 0;
    options.stateDirectory = stateDir.path();
    WindowBackend::prepare(&options);
    Backend backend(options);
    QString error;
    QVERIFY2(backend.start(&error), qPrintable(error));
    {
        WindowBackend windowBackend(&backend);
        MainWindow window(windowBackend.operatorInterface(), 100, true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(windowBackend.attach());
        auto* auth = window.findChild<QLabel*>(QStringLiteral("authLabel"));
        QVERIFY(auth);
        QCOMPARE(auth->text(), QStringLiteral("No authentication (--no-auth)"));
        QVERIFY(auth->styleSheet().contains(QStringLiteral("color")));
        QVERIFY(!window.findChild<CopyButton*>(QStringLiteral("copyTokenButton")));

        window.showConnectClientDialog();
        auto* claude = window.connectClientDialog()->findChild<SnippetWidget*>(QStringLiteral("claudeCodeSnippet"));
        QVERIFY(claude);
        QVERIFY(!claude->copyText().contains(QStringLiteral("Authorization")));
    }
    backend.stop();
}

void TestMainWindow::largeCallShowsItsPreviewThenTheWholeCall()
{
    QVERIFY(ensureSession());
    // A 100 KB message: far more than a row of the live log keeps, and within what history keeps of
    // a call (HistoryWriter::MaxStoredBodyBytes of its request and response, which echoes it twice).
    QString large;
    for (int i = 0; large.size() < 100'000; ++i)
        large += QStringLiteral("large-%1 ").arg(i);
    QVERIFY(callEcho(m_nextRequestId++, large).contains(QLatin1String("result")));
    const QByteArray tail = large.right(40).toUtf8();
    QModelIndex row;
    QTRY_VERIFY_WITH_TIMEOUT((row = rowWithRequestContaining("large-0 large-1 ")).isValid(), TimeoutMs);
    CallLogModel* model = m_window->callLogModel();
    QTRY_COMPARE_WITH_TIMEOUT(model->callAt(row.row()).status, CallStatus::Ok, TimeoutMs);
    // The row keeps a preview only.
    QVERIFY(model->previewAt(row.row()).truncated);
    QCOMPARE(model->callAt(row.row()).request.size(), WindowBackend::livePreviewBytes());
    QVERIFY(!model->callAt(row.row()).request.contains(tail));
    QVERIFY(model->previewAt(row.row()).requestBytes > 100'000);

    // Selecting it shows the preview with a note at once, then the whole call from history.
    m_window->callLogView()->filterEdit()->clear();
    QVERIFY(m_window->showCall(model->callAt(row.row()).id));
    CallInspector* inspector = m_window->inspector();
    QVERIFY(inspector->hasCall());
    auto* note = inspector->findChild<QLabel*>(QStringLiteral("previewNote"));
    QVERIFY(note);
    if (inspector->isPreview()) {
        // (The answer from history may already be here on a fast machine.)
        QVERIFY(note->isVisible());
        QVERIFY2(note->text().contains(QStringLiteral("Loading the whole call")), qPrintable(note->text()));
    }
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isPreview(), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isRendering(), TimeoutMs * 3);
    QVERIFY(!note->isVisible());
    QCOMPARE(inspector->call().request.size(), model->previewAt(row.row()).requestBytes);
    QCOMPARE(inspector->call().response.size(), model->previewAt(row.row()).responseBytes);
    auto* arguments = inspector->findChild<QPlainTextEdit*>(QStringLiteral("argumentsText"));
    QString shown = arguments->toPlainText();
    shown.remove(QLatin1Char('\n')); // long lines are broken for display
    QVERIFY(shown.contains(QString::fromUtf8(tail)));
    saveScreenshot(m_window.get(), "ui-large-call");
}

// A call larger than history keeps (HistoryWriter::keptPart): the log's preview, then what history
// holds, said to be the start of the call (not "not in history yet", not the whole call), with its
// whole sizes and no copy of JSON that is not the call.
void TestMainWindow::callBeyondWhatHistoryKeepsSaysSo()
{
    QVERIFY(ensureSession());
    QString large = QStringLiteral("kept-in-part ");
    for (int i = 0; large.size() < 600'000; ++i)
        large += QStringLiteral("part-%1 ").arg(i);
    QVERIFY(callEcho(m_nextRequestId++, large).contains(QLatin1String("result")));
    QModelIndex row;
    QTRY_VERIFY_WITH_TIMEOUT((row = rowWithRequestContaining("kept-in-part")).isValid(), TimeoutMs);
    CallLogModel* model = m_window->callLogModel();
    QTRY_COMPARE_WITH_TIMEOUT(model->callAt(row.row()).status, CallStatus::Ok, TimeoutMs);
    const CallPreview preview = model->previewAt(row.row());
    QVERIFY(preview.requestBytes > HistoryWriter::MaxStoredBodyBytes);

    m_window->callLogView()->filterEdit()->clear();
    QVERIFY(m_window->showCall(model->callAt(row.row()).id));
    CallInspector* inspector = m_window->inspector();
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isPreview(), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isRendering(), TimeoutMs * 3);
    QCOMPARE(inspector->call().request.size(), HistoryWriter::MaxStoredBodyBytes);
    QCOMPARE(inspector->call().wholeRequestBytes, preview.requestBytes);
    QCOMPARE(inspector->call().wholeResponseBytes, preview.responseBytes);
    auto* note = inspector->findChild<QLabel*>(QStringLiteral("previewNote"));
    QVERIFY(note && note->isVisible());
    QVERIFY2(
        note->text().contains(QStringLiteral("History keeps only the start of this call")), qPrintable(note->text()));
    QVERIFY(!inspector->copyRequestAction()->isEnabled());
    // The arguments pane shows what is kept of them, not "No arguments".
    auto* arguments = inspector->findChild<QPlainTextEdit*>(QStringLiteral("argumentsText"));
    QVERIFY(arguments->toPlainText().contains(QStringLiteral("kept-in-part")));
}

void TestMainWindow::historyHoldsPreviewsAndShowsTheWholeSelectedCall()
{
    QVERIFY(ensureSession());
    // A 100 KB call with a word of its own to search for.
    QString large = QStringLiteral("previewed-in-history ");
    for (int i = 0; large.size() < 100'000; ++i)
        large += QStringLiteral("big-%1 ").arg(i);
    QVERIFY(callEcho(m_nextRequestId++, large).contains(QLatin1String("result")));
    const QByteArray tail = large.right(40).toUtf8();
    QModelIndex live;
    QTRY_VERIFY_WITH_TIMEOUT((live = rowWithRequestContaining("previewed-in-history")).isValid(), TimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->callLogModel()->callAt(live.row()).status, CallStatus::Ok, TimeoutMs);

    // The History dialog's page holds the preview; selecting the call brings the whole of it.
    m_window->showHistoryDialog();
    HistoryDialog* dialog = m_window->historyDialog();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    search->setText(QStringLiteral("previewed-in-history"));
    // Searched again until the history thread has written the call (within milliseconds, but the
    // machine may be loaded).
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
        if (dialog->isSearching())
            return false;
        if (dialog->model()->rowCount() == 1)
            return true;
        dialog->search();
        return false;
    }()),
        TimeoutMs);
    const ToolCall page = dialog->model()->callAt(0);
    QVERIFY(page.hasBodyPreviews());
    QCOMPARE(page.request.size(), CallLogModel::PreviewBytes);
    QVERIFY(page.wholeRequestBytes > 100'000);
    QTableView* table = dialog->tableView();
    table->setCurrentIndex(table->model()->index(0, CallColumns::ToolColumn));
    CallInspector* inspector = dialog->inspector();
    QVERIFY(inspector->hasCall());
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isPreview(), TimeoutMs);
    QCOMPARE(inspector->call().request.size(), page.wholeRequestBytes);
    QVERIFY(inspector->call().request.contains(tail));
    QTRY_VERIFY_WITH_TIMEOUT(!inspector->isRendering(), TimeoutMs * 3);
    dialog->close();

    // A new window (a restart) reads previews of its recent calls from history, with their sizes.
    WindowBackend second(m_backend.get());
    MainWindow window(second.operatorInterface(), 1000, false);
    QVERIFY(second.attach());
    QModelIndex row;
    const auto findRow = [&] {
        for (int r = 0; r < window.callLogModel()->rowCount(); ++r) {
            if (window.callLogModel()->callAt(r).request.contains("previewed-in-history"))
                return window.callLogModel()->index(r, 0);
        }
        return QModelIndex();
    };
    QTRY_VERIFY_WITH_TIMEOUT((row = findRow()).isValid(), TimeoutMs);
    const CallPreview preview = window.callLogModel()->previewAt(row.row());
    QVERIFY(preview.truncated);
    QCOMPARE(preview.requestBytes, page.wholeRequestBytes);
    QCOMPARE(window.callLogModel()->callAt(row.row()).request.size(), WindowBackend::livePreviewBytes());
}

void TestMainWindow::statusBarShowsWorkspaceStateAndHistoryProblemsUntilResolved()
{
    auto* state = m_window->findChild<StatusWarning*>(QStringLiteral("workspaceStateWarningLabel"));
    auto* history = m_window->findChild<StatusWarning*>(QStringLiteral("historyWarningLabel"));
    QVERIFY(state && history);
    QCOMPARE(state, m_window->workspaceStateStatus());
    QCOMPARE(history, m_window->historyStatus());

    // A workspace-state problem (the signal --headless prints) stays in the window.
    const QString problem = QStringLiteral("pending questions and stored answers could not be saved: disk full");
    Q_EMIT m_backend->workspaceStateProblem(problem);
    QTRY_VERIFY_WITH_TIMEOUT(state->isVisible(), TimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(state->state(), StatusWarning::State::Problem, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->text().contains(QStringLiteral("not saved")), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->toolTip().contains(problem), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->events().last().contains(problem), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(statusBarText(m_window->statusBar()).contains(problem), TimeoutMs);
    // Clicking shows the detail; a problem stays until it is resolved.
    QTest::mouseClick(state, Qt::LeftButton);
    auto* details = m_window->findChild<QWidget*>(QStringLiteral("statusWarningDetails"));
    QTRY_VERIFY_WITH_TIMEOUT(details, TimeoutMs);
    QTRY_VERIFY(details->isVisible());
    details->close();
    QTRY_COMPARE_WITH_TIMEOUT(state->state(), StatusWarning::State::Problem, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->isVisible(), TimeoutMs);
    Q_EMIT m_backend->workspaceStateRecovered();
    QTRY_COMPARE_WITH_TIMEOUT(state->state(), StatusWarning::State::Recovered, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->text().contains(QStringLiteral("saved again")), TimeoutMs);
    // A state file set aside at start is something to read, not a failure: amber, never "not saved".
    const QString setAside = QStringLiteral(
        "the workspace state /s/workspace.json could not be read (it is not JSON); it was kept as "
        "/s/workspace.json.unreadable-20261124T090000Z and Switchboard starts without pending questions");
    Q_EMIT m_backend->workspaceStateNotice(setAside);
    QTRY_COMPARE_WITH_TIMEOUT(state->state(), StatusWarning::State::Notice, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(state->isVisible(), TimeoutMs);
    QVERIFY2(!state->text().contains(QStringLiteral("not saved")), qPrintable(state->text()));
    QTRY_VERIFY_WITH_TIMEOUT(state->toolTip().contains(setAside), TimeoutMs);
    state->showDetails();
    QTRY_COMPARE_WITH_TIMEOUT(state->state(), StatusWarning::State::Idle, TimeoutMs);

    // A history notice (calls left out of history) stays until the person has read it.
    const QString notice = QStringLiteral("history caught up; 12 calls were left out of it");
    Q_EMIT m_backend->historyNotice(notice);
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Notice, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->isVisible(), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->toolTip().contains(notice), TimeoutMs);
    // A failure outranks the notice; the notice stays in the events.
    Q_EMIT m_backend->historyWriteFailed(QStringLiteral("disk I/O error"));
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Problem, TimeoutMs);
    Q_EMIT m_backend->historyNotice(notice);
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Problem, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->events().join(QLatin1Char('\n')).contains(notice), TimeoutMs);
    Q_EMIT m_backend->historyWriteRecovered();
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Recovered, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->isVisible(), TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->text().contains(QStringLiteral("saved again")), TimeoutMs);
    Q_EMIT m_backend->historyNotice(notice);
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Notice, TimeoutMs);
    saveScreenshot(m_window.get(), "ui-status");
    history->showDetails();
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Idle, TimeoutMs);
    // The exact count of calls left out of history shows until read.
    Q_EMIT m_backend->historyCallsLeftOut(12);
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Notice, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(history->text().contains(QStringLiteral("12 calls left out of history")), TimeoutMs);
    history->showDetails();
    QTRY_COMPARE_WITH_TIMEOUT(history->state(), StatusWarning::State::Idle, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!history->isVisible(), TimeoutMs);
    // The details are window-modal: close them so later tests can click the window.
    const auto boxes = m_window->findChildren<QWidget*>(QStringLiteral("statusWarningDetails"));
    for (QWidget* box : boxes)
        box->close();
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
