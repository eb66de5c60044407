// The live log and history as one model, against a real Backend and its real SQLite history: real
// MCP clients (QNetworkAccessManager speaking Streamable HTTP) make more calls than the log holds,
// and the test looks where a person would. "Search history too" finds every call the filter
// matches that left the log (by tool, by client, by status), whatever failures the log keeps past
// its limit; the History dialog finds the same calls with the same words and shows the log's
// columns in the log's order; "N of M shown" counts the log's rows with and without a filter;
// a call asked for by number, and a replayed one, is selected even when it has left the log. The
// window is on the Backend in this process, or attached to it over the operator API
// (tst_logandhistory_attached: windowbackend.h).

#include "callinspector.h"
#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "core/backend.h"
#include "historydialog.h"
#include "historymodel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "replaybar.h"
#include "statusfilterbox.h"
#include "windowbackend.h"

#include <QAction>
#include <QGuiApplication>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

namespace {

constexpr int TimeoutMs = 20'000; // generous: a loaded two-core machine is slow to schedule threads
constexpr int LogRows = 20; // the live log's ring; every test makes more calls than that
const QByteArray token = "sb_logAndHistoryToken_0123456789abcdefghijklmnop";

// One MCP client session over HTTP, as a real client speaks it.
class McpClient
{
public:
    McpClient(QNetworkAccessManager* network, QUrl url, QString name)
        : m_network(network)
        , m_url(std::move(url))
        , m_name(std::move(name))
    {}

    bool initialize()
    {
        const QJsonObject answer
            = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), m_nextId++},
                       {QStringLiteral("method"), QStringLiteral("initialize")},
                       {QStringLiteral("params"),
                           QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                               {QStringLiteral("capabilities"), QJsonObject()},
                               {QStringLiteral("clientInfo"),
                                   QJsonObject{{QStringLiteral("name"), m_name},
                                       {QStringLiteral("version"), QStringLiteral("1.0")}}}}}},
                200);
        if (m_session.isEmpty() || !answer.contains(QLatin1String("result")))
            return false;
        m_protocol = answer[QLatin1String("result")].toObject()[QLatin1String("protocolVersion")].toString().toUtf8();
        post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                 {QStringLiteral("method"), QStringLiteral("notifications/initialized")}},
            202);
        return true;
    }

    // The JSON-RPC answer (its "result", possibly with isError, or its "error"); empty when none came.
    QJsonObject call(const QString& tool, const QJsonObject& arguments)
    {
        const QJsonObject answer
            = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), m_nextId++},
                       {QStringLiteral("method"), QStringLiteral("tools/call")},
                       {QStringLiteral("params"),
                           QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}}}},
                200);
        return answer;
    }

private:
    QJsonObject post(const QJsonObject& body, int expectedStatus)
    {
        QNetworkRequest request(m_url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept", "application/json, text/event-stream");
        request.setRawHeader("Authorization", "Bearer " + token);
        if (!m_session.isEmpty())
            request.setRawHeader("Mcp-Session-Id", m_session);
        if (!m_protocol.isEmpty())
            request.setRawHeader("MCP-Protocol-Version", m_protocol);
        std::unique_ptr<QNetworkReply> reply(
            m_network->post(request, QJsonDocument(body).toJson(QJsonDocument::Compact)));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished() && !finished.wait(TimeoutMs))
            return {};
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != expectedStatus)
            return {};
        if (reply->hasRawHeader("Mcp-Session-Id"))
            m_session = reply->rawHeader("Mcp-Session-Id");
        const QByteArray bytes = reply->readAll();
        if (reply->header(QNetworkRequest::ContentTypeHeader)
                .toString()
                .startsWith(QLatin1String("text/event-stream"))) {
            for (const QByteArray& line : bytes.split('\n')) {
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

    QNetworkAccessManager* m_network;
    QUrl m_url;
    QString m_name;
    QByteArray m_session;
    QByteArray m_protocol;
    int m_nextId = 1;
};

void saveScreenshot(QWidget* widget, const char* name)
{
    const QString directory = qEnvironmentVariable("SWITCHBOARD_SCREENSHOT_DIR");
    if (directory.isEmpty())
        return;
    QCoreApplication::processEvents();
    // On a real (or virtual) display, the whole screen as a person sees it; offscreen, the widget.
    const QPixmap shot
        = QGuiApplication::platformName() == QLatin1String("xcb") ? widget->screen()->grabWindow(0) : widget->grab();
    shot.save(directory + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

QList<qint64> shownIds(const CallLogView* view)
{
    QList<qint64> ids;
    const QAbstractItemModel* proxy = view->tableView()->model();
    for (int row = 0; row < proxy->rowCount(); ++row)
        ids << proxy->index(row, 0).data(CallIdRole).toLongLong();
    return ids;
}

} // namespace

class TestLogAndHistory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void countIsTheLogsRowsWithAndWithoutAFilter();
    void historySearchFindsEveryMatchBeyondTheLog_data();
    void historySearchFindsEveryMatchBeyondTheLog();
    void historyDialogFindsTheSameCallsWithTheLogsColumns();
    void callByNumberBeyondTheLogIsSelected();
    void replayedCallIsSelectedWithTheLogAtItsLimit();

private:
    // Calls made by the two clients, recorded by what they are, so each test knows what to expect.
    qint64 newestId() const;
    void makeTraffic();
    // Types `text` into the log's filter and runs "Search history too" until history has no more.
    void searchHistoryToo(const QString& text, const QList<CallStatus>& statuses);

    QTemporaryDir m_stateDir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<WindowBackend> m_windowBackend; // what the window is on
    std::unique_ptr<MainWindow> m_window;
    QNetworkAccessManager m_network;
    std::unique_ptr<McpClient> m_alpha;
    std::unique_ptr<McpClient> m_beta;
    bool m_trafficMade = false;
};

void TestLogAndHistory::initTestCase()
{
    QVERIFY(m_stateDir.isValid());
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = m_stateDir.path();
    options.debugTools = true;
    WindowBackend::prepare(&options);
    m_backend = std::make_unique<Backend>(options);
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    m_windowBackend = std::make_unique<WindowBackend>(m_backend.get());
    m_window = std::make_unique<MainWindow>(m_windowBackend->operatorInterface(), LogRows, false);
    m_window->resize(1366, 768);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_windowBackend->attach());
    m_alpha = std::make_unique<McpClient>(&m_network, m_backend->serverUrl(), QStringLiteral("alpha-agent"));
    m_beta = std::make_unique<McpClient>(&m_network, m_backend->serverUrl(), QStringLiteral("beta-agent"));
    QVERIFY(m_alpha->initialize());
    QVERIFY(m_beta->initialize());
}

void TestLogAndHistory::cleanupTestCase()
{
    m_window.reset();
    m_windowBackend.reset();
    if (m_backend)
        m_backend->stop();
}

qint64 TestLogAndHistory::newestId() const
{
    const CallLogModel* model = m_window->callLogModel();
    return model->rowCount() == 0 ? 0 : model->callAt(model->rowCount() - 1).id;
}

// A failure first (the log keeps it past its limit, far older than the rest), then 30
// debug.progress calls by alpha-agent, 10 unknown-tool calls by beta-agent among them, then 30 echo
// calls by beta-agent: the log's ring ends up holding only echo calls.
void TestLogAndHistory::makeTraffic()
{
    if (m_trafficMade)
        return;
    // An unknown tool: recorded as unknown_tool.
    QVERIFY(!m_beta->call(QStringLiteral("no.such.tool"), {}).isEmpty());
    for (int i = 0; i < 30; ++i) {
        const QJsonObject result = m_alpha->call(
            QStringLiteral("debug.progress"), {{QStringLiteral("steps"), 1}, {QStringLiteral("interval_ms"), 0}});
        QVERIFY2(result.contains(QLatin1String("result"))
                && !result[QLatin1String("result")].toObject().value(QLatin1String("isError")).toBool(),
            QJsonDocument(result).toJson().constData());
        if (i % 3 == 0)
            QVERIFY(!m_beta->call(QStringLiteral("not.a.tool"), {}).isEmpty());
    }
    for (int i = 0; i < 30; ++i) {
        const QJsonObject result
            = m_beta->call(QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("filler %1").arg(i)}});
        QVERIFY(result.contains(QLatin1String("result")));
    }
    // Every call is in the log once the last one is: history has them all by then (the writer
    // takes the same batches first).
    QTRY_VERIFY_WITH_TIMEOUT(m_window->callLogModel()->rowCount() > 0
            && m_window->callLogModel()->callAt(m_window->callLogModel()->rowCount() - 1).request.contains("filler 29"),
        TimeoutMs);
    m_trafficMade = true;
}

void TestLogAndHistory::searchHistoryToo(const QString& text, const QList<CallStatus>& statuses)
{
    CallLogView* view = m_window->callLogView();
    view->filterEdit()->clear();
    view->statusFilter()->setStatuses(statuses);
    QTest::keyClicks(view->filterEdit(), text);
    QAction* search = view->historySearchAction();
    QVERIFY(search->isEnabled());
    // Page after page, as the person would press it, until history says there is no more.
    for (int page = 0; page < 20 && search->isEnabled(); ++page) {
        const int before = m_window->callLogModel()->historyCount();
        const QString label = search->text();
        search->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            search->text() != label || m_window->callLogModel()->historyCount() != before, TimeoutMs);
    }
    QCOMPARE(search->text(), QStringLiteral("No more in history"));
}

void TestLogAndHistory::countIsTheLogsRowsWithAndWithoutAFilter()
{
    CallLogView* view = m_window->callLogView();
    CallLogModel* model = m_window->callLogModel();
    QLabel* count = view->shownCountLabel();
    // A filter that hides every call, set before the calls come: the rows it hides still count.
    QTest::keyClicks(view->filterEdit(), QStringLiteral("nothing-matches-this"));
    const int before = model->rowCount();
    for (int i = 0; i < 3; ++i)
        QVERIFY(
            !m_beta->call(QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("counted %1").arg(i)}})
                 .isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), qMin(before + 3, LogRows), TimeoutMs);
    QCOMPARE(view->tableView()->model()->rowCount(), 0);
    QCOMPARE(count->text(), QStringLiteral("0 of %1 shown").arg(model->rowCount()));
    // No filter: every row the log holds is shown, and counted.
    view->filterEdit()->clear();
    QCOMPARE(count->text(), QStringLiteral("%1 of %1 shown").arg(model->rowCount()));
    makeTraffic();
    QCOMPARE(view->tableView()->model()->rowCount(), model->rowCount());
    QCOMPARE(count->text(), QStringLiteral("%1 of %1 shown").arg(QLocale().toString(model->rowCount())));
    // At its limit, with failures kept past it.
    QVERIFY(model->keptCount() > 0);
    QCOMPARE(model->rowCount(), LogRows + model->keptCount());
}

void TestLogAndHistory::historySearchFindsEveryMatchBeyondTheLog_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<CallStatus>>("statuses");
    QTest::addColumn<QString>("tool"); // what every match is
    QTest::addColumn<QString>("client");
    QTest::addColumn<int>("matches"); // in the log and in history together

    QTest::newRow("by tool") << QStringLiteral("debug.progress") << QList<CallStatus>()
                             << QStringLiteral("debug.progress") << QStringLiteral("alpha-agent") << 30;
    QTest::newRow("by client") << QStringLiteral("alpha-agent") << QList<CallStatus>()
                               << QStringLiteral("debug.progress") << QStringLiteral("alpha-agent") << 30;
    QTest::newRow("by client and tool, any case")
        << QStringLiteral("ALPHA progress") << QList<CallStatus>() << QStringLiteral("debug.progress")
        << QStringLiteral("alpha-agent") << 30;
    QTest::newRow("by status") << QStringLiteral("alpha") << QList<CallStatus>{CallStatus::Ok}
                               << QStringLiteral("debug.progress") << QStringLiteral("alpha-agent") << 30;
    QTest::newRow("by several statuses") << QStringLiteral("progress")
                                         << QList<CallStatus>{CallStatus::Ok, CallStatus::Denied}
                                         << QStringLiteral("debug.progress") << QStringLiteral("alpha-agent") << 30;
    QTest::newRow("failures by status") << QString() << QList<CallStatus>{CallStatus::UnknownTool} << QString()
                                        << QStringLiteral("beta-agent") << 11;
    QTest::newRow("by status word") << QStringLiteral("unknown_tool") << QList<CallStatus>() << QString()
                                    << QStringLiteral("beta-agent") << 11;
}

void TestLogAndHistory::historySearchFindsEveryMatchBeyondTheLog()
{
    QFETCH(QString, text);
    QFETCH(QList<CallStatus>, statuses);
    QFETCH(QString, tool);
    QFETCH(QString, client);
    QFETCH(int, matches);
    makeTraffic();
    CallLogView* view = m_window->callLogView();
    CallLogModel* model = m_window->callLogModel();
    // More matches than the log holds, most of them gone from it.
    QVERIFY(matches > 0);

    searchHistoryToo(text, statuses);
    const QList<qint64> ids = shownIds(view);
    QCOMPARE(ids.size(), matches);
    QCOMPARE(QSet<qint64>(ids.begin(), ids.end()).size(), matches);
    QVERIFY(std::is_sorted(ids.begin(), ids.end()));
    const QAbstractItemModel* shown = view->tableView()->model();
    for (int row = 0; row < shown->rowCount(); ++row) {
        const ToolCall call = shown->index(row, 0).data(CallRole).value<ToolCall>();
        if (!tool.isEmpty())
            QCOMPARE(call.tool, tool);
        QCOMPARE(call.clientName, client);
        if (!statuses.isEmpty())
            QVERIFY(statuses.contains(call.status));
    }
    // The failures were all kept in the log: nothing came from history for them.
    const QString fromHistory
        = model->historyCount() == 0 ? QString() : QStringLiteral(" · %1 from history").arg(model->historyCount());
    QCOMPARE(view->shownCountLabel()->text(),
        QStringLiteral("%1 of %2 shown").arg(matches).arg(model->rowCount()) + fromHistory);
    if (QByteArray(QTest::currentDataTag()) == "by tool")
        saveScreenshot(m_window.get(), "onemodel-log-history-search");
    view->filterEdit()->clear();
    view->statusFilter()->setStatuses({});
    QCOMPARE(model->historyCount(), 0);
}

void TestLogAndHistory::historyDialogFindsTheSameCallsWithTheLogsColumns()
{
    makeTraffic();
    m_window->showHistoryDialog();
    HistoryDialog* dialog = m_window->historyDialog();
    QVERIFY(dialog);
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    QVERIFY(search);
    search->clear();
    QTest::keyClicks(search, QStringLiteral("alpha-agent debug.progress"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching(), TimeoutMs);
    // The words match as the log's filter matches them: every word, in any field.
    QCOMPARE(dialog->model()->rowCount(), 30);
    for (int row = 0; row < dialog->model()->rowCount(); ++row)
        QCOMPARE(dialog->model()->callAt(row).tool, QStringLiteral("debug.progress"));

    // The log's columns, in the log's order.
    const QHeaderView* log = m_window->callLogView()->tableView()->horizontalHeader();
    const QHeaderView* history = dialog->tableView()->horizontalHeader();
    m_window->callLogView()->resetColumns();
    QCOMPARE(history->count(), log->count());
    for (int visual = 0; visual < log->count(); ++visual) {
        QCOMPARE(history->logicalIndex(visual), log->logicalIndex(visual));
        QCOMPARE(dialog->tableView()->model()->headerData(history->logicalIndex(visual), Qt::Horizontal),
            m_window->callLogView()->tableView()->model()->headerData(log->logicalIndex(visual), Qt::Horizontal));
    }
    saveScreenshot(dialog, "onemodel-history-dialog");
    dialog->close();
}

void TestLogAndHistory::callByNumberBeyondTheLogIsSelected()
{
    makeTraffic();
    CallLogModel* model = m_window->callLogModel();
    CallLogView* view = m_window->callLogView();
    // The first debug.progress call: long gone from the ring.
    HistoryDialog* dialog = (m_window->showHistoryDialog(), m_window->historyDialog());
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    search->clear();
    QTest::keyClicks(search, QStringLiteral("debug.progress"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching() && dialog->model()->rowCount() == 30, TimeoutMs);
    const qint64 gone = dialog->model()->callAt(29).id;
    dialog->close();
    QVERIFY(!model->indexOfCall(gone).isValid());

    // With a filter that would hide it set: it gives way.
    QTest::keyClicks(view->filterEdit(), QStringLiteral("echo"));
    QCOMPARE(m_window->showCall(gone), false); // not at once: history answers
    QTRY_COMPARE_WITH_TIMEOUT(view->tableView()->currentIndex().data(CallIdRole).toLongLong(), gone, TimeoutMs);
    QCOMPARE(view->tableView()->currentIndex().data(OriginRole).toInt(), int(CallLogModel::Origin::History));
    QCOMPARE(m_window->inspector()->call().id, gone);
    QCOMPARE(m_window->inspector()->call().tool, QStringLiteral("debug.progress"));
    QVERIFY(view->filterEdit()->text().isEmpty());
    // The count says it.
    QCOMPARE(view->shownCountLabel()->text(),
        QStringLiteral("%1 of %1 shown · 1 from history").arg(QLocale().toString(model->rowCount())));

    // A call neither the log nor history holds: the status bar says so, nothing is selected anew.
    QCOMPARE(m_window->showCall(newestId() + 1'000'000), false);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->statusBar()->currentMessage().contains(QStringLiteral("neither")), TimeoutMs);
    QCOMPARE(view->tableView()->currentIndex().data(CallIdRole).toLongLong(), gone);
}

void TestLogAndHistory::replayedCallIsSelectedWithTheLogAtItsLimit()
{
    makeTraffic();
    CallLogModel* model = m_window->callLogModel();
    CallLogView* view = m_window->callLogView();
    QCOMPARE(model->rowCount() - model->keptCount() - model->historyCount(), LogRows);
    // Replay a call from beyond the log's limit, shown from history: the new call is selected.
    const qint64 before = newestId();
    HistoryDialog* dialog = (m_window->showHistoryDialog(), m_window->historyDialog());
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    search->clear();
    QTest::keyClicks(search, QStringLiteral("debug.progress"));
    QTest::keyClick(search, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isSearching() && dialog->model()->rowCount() == 30, TimeoutMs);
    const qint64 original = dialog->model()->callAt(15).id;
    dialog->close();
    m_window->showCall(original);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->inspector()->call().id, original, TimeoutMs);
    QPushButton* replay = m_window->inspector()->replayBar()->replayButton();
    QTRY_VERIFY_WITH_TIMEOUT(replay->isEnabled(), TimeoutMs);
    replay->click();
    QTRY_VERIFY_WITH_TIMEOUT(m_window->inspector()->call().id > before, TimeoutMs);
    const ToolCall replayed = m_window->inspector()->call();
    QCOMPARE(replayed.replayOf, original);
    QCOMPARE(view->tableView()->currentIndex().data(CallIdRole).toLongLong(), replayed.id);

    // Its "replay of #N" goes back to the original, beyond the limit again after more calls.
    for (int i = 0; i < LogRows + 5; ++i)
        QVERIFY(!m_beta->call(QStringLiteral("echo"), {{QStringLiteral("message"), QStringLiteral("more %1").arg(i)}})
                     .isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!model->indexOfCall(replayed.id).isValid(), TimeoutMs);
    m_window->showCall(replayed.id);
    QTRY_COMPARE_WITH_TIMEOUT(view->tableView()->currentIndex().data(CallIdRole).toLongLong(), replayed.id, TimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->inspector()->call().id, replayed.id, TimeoutMs);
    Q_EMIT m_window->inspector()->replayBar()->showCallRequested(original);
    QTRY_COMPARE_WITH_TIMEOUT(view->tableView()->currentIndex().data(CallIdRole).toLongLong(), original, TimeoutMs);
}

QTEST_MAIN(TestLogAndHistory)
#include "tst_logandhistory.moc"
