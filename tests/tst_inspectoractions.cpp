#include <QTest>

// The inspector's developer actions in the window, driven as a person would: the Copy buttons and
// menu, Ctrl+Shift+C and Ctrl+Shift+J, the call log row's context menu, copies refused while only a
// preview is shown; the Timeline tab (only for calls that have one); File ▸ Export… of the filtered
// log (previews fetched whole from history) and History's Export…; File ▸ Open NDJSON… in a
// read-only window, and a file with bad lines or none.

#include "callexportjob.h"
#include "callexportwriter.h"
#include "callimportwindow.h"
#include "callinspector.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "curlcommand.h"
#include "fakeoperator.h"
#include "historydialog.h"
#include "jsontestsupport.h"
#include "mainwindow.h"
#include "ndjsoncallreader.h"
#include "replaybar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

ToolCall finishedCall(qint64 id, const QString& message)
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("session-%1").arg(id);
    call.clientName = QStringLiteral("claude-code");
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.request = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", {{"message", message.toStdString()}}}}}}
                                                 .dump());
    call.response = QByteArray::fromStdString(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"structuredContent", {{"message", message.toStdString()}}}}}}
            .dump());
    call.startedAtMs = 1'764'150'000'000 + id;
    call.durationUs = 1500;
    call.status = CallStatus::Ok;
    return call;
}

QByteArray progressTimeline()
{
    return QByteArrayLiteral("[{\"atMs\":12,\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,"
                             "\"progress\":1,\"total\":3,\"message\":\"step 1 of 3\"}},{\"omitted\":40},"
                             "{\"atMs\":1500,\"method\":\"notifications/message\",\"params\":{\"level\":\"debug\","
                             "\"logger\":\"debug.progress\",\"data\":{\"step\":3}}}]");
}

// Closes the next message box that opens (a warning the code under test shows), keeping its text.
void closeNextMessageBox(QString* text)
{
    QTimer::singleShot(0, [text] {
        for (QWidget* widget : QApplication::topLevelWidgets()) {
            if (auto* box = qobject_cast<QMessageBox*>(widget); box && box->isVisible()) {
                *text = box->text();
                box->accept();
                return;
            }
        }
        closeNextMessageBox(text);
    });
}

} // namespace

class TestInspectorActions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init() { QGuiApplication::clipboard()->clear(); }
    void copyButtonsPutJsonOnTheClipboard();
    void shortcutsAndContextMenuCopyTheSelectedCall();
    void previewsAreNotCopied();
    void timelineTabOnlyForCallsWithOne();
    void exportFetchesPreviewsWhole();
    void historyExportsEverySearchPage();
    void openShowsTheFileReadOnly();
    void openSaysWhatIsWrong();
    void openReadsOnAWorkerAndCanBeCancelled();
};

void TestInspectorActions::copyButtonsPutJsonOnTheClipboard()
{
    CallInspector inspector;
    inspector.setServer(QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), true);
    inspector.show();
    const ToolCall call = finishedCall(1, QStringLiteral("it's $HOME"));
    inspector.setCall(call);
    QSignalSpy copied(&inspector, &CallInspector::copied);

    // The Copy button's menu, by keyboard: focus, Space opens it, Return takes the first entry.
    auto* copyButton = inspector.findChild<QPushButton*>(QStringLiteral("copyButton"));
    QVERIFY(copyButton && copyButton->isEnabled() && copyButton->focusPolicy() & Qt::TabFocus);
    QMenu* menu = copyButton->menu();
    QVERIFY(menu);
    QCOMPARE(menu->actions().size(), 3);
    QCOMPARE(menu->actions().at(0), inspector.copyArgumentsAction());
    inspector.copyArgumentsAction()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromUtf8(call.argumentsJson()));
    QCOMPARE_JSON(json::parse(QGuiApplication::clipboard()->text().toStdString()), (json{{"message", "it's $HOME"}}));
    inspector.copyResponseAction()->trigger();
    QCOMPARE_JSON(
        json::parse(QGuiApplication::clipboard()->text().toStdString()), json::parse(call.response.toStdString()));
    QVERIFY(QGuiApplication::clipboard()->text().contains(QLatin1Char('\n'))); // pretty-printed
    inspector.copyRequestAction()->trigger();
    QCOMPARE_JSON(
        json::parse(QGuiApplication::clipboard()->text().toStdString()), json::parse(call.request.toStdString()));

    auto* curlButton = inspector.findChild<QPushButton*>(QStringLiteral("copyCurlButton"));
    QVERIFY(curlButton && curlButton->isEnabled());
    QTest::mouseClick(curlButton, Qt::LeftButton);
    const QString curl = QGuiApplication::clipboard()->text();
    QCOMPARE(curl, CurlCommand::forCall(call, QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), true));
    QVERIFY(curl.contains(QStringLiteral("$SWITCHBOARD_TOKEN")));
    QCOMPARE(copied.size(), 4);
    QVERIFY(inspector.findChild<QLabel*>(QStringLiteral("copiedLabel"))->text().contains(QStringLiteral("curl")));

    // A call with no response has nothing to copy there.
    ToolCall running = call;
    running.id = 2;
    running.response.clear();
    running.status = CallStatus::Running;
    inspector.setCall(running);
    QVERIFY(!inspector.copyResponseAction()->isEnabled());
    QVERIFY(inspector.copyCurlAction()->isEnabled());
}

void TestInspectorActions::shortcutsAndContextMenuCopyTheSelectedCall()
{
    FakeOperator backend;
    backend.tokenValue.clear(); // --no-auth: the script sends no Authorization header
    MainWindow window(&backend, 500, true);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    Q_EMIT backend.callsUpdated({finishedCall(1, QStringLiteral("first")), finishedCall(2, QStringLiteral("second"))});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 2);
    QTableView* table = window.callLogView()->tableView();

    // The row's context menu offers the copy actions of the call it selects, below the log's own.
    QCOMPARE(table->contextMenuPolicy(), Qt::CustomContextMenu);
    std::unique_ptr<QMenu> menu(window.callLogView()->contextMenuFor(table->model()->index(0, 0)));
    QVERIFY(menu);
    for (QAction* action : window.inspector()->copyActions())
        QVERIFY(menu->actions().contains(action));
    const QRect secondRow = table->visualRect(table->model()->index(1, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, secondRow.center());
    QTRY_COMPARE(window.inspector()->call().id, qint64(2));

    table->setFocus();
    QTest::keyClick(table, Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    const QString curl = QGuiApplication::clipboard()->text();
    QVERIFY2(curl.contains(QStringLiteral("\"second\"")), qPrintable(curl));
    QVERIFY(!curl.contains(QStringLiteral("Authorization")));
    QTest::keyClick(table, Qt::Key_J, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE_JSON(json::parse(QGuiApplication::clipboard()->text().toStdString()), (json{{"message", "second"}}));

    // Right-clicking the first row selects it: the menu's actions act on what it shows.
    const QRect firstRow = table->visualRect(table->model()->index(0, 0));
    QTest::mousePress(table->viewport(), Qt::RightButton, {}, firstRow.center());
    QTest::mouseRelease(table->viewport(), Qt::RightButton, {}, firstRow.center());
    QTRY_COMPARE(window.inspector()->call().id, qint64(1));
    window.inspector()->copyArgumentsAction()->trigger();
    QCOMPARE_JSON(json::parse(QGuiApplication::clipboard()->text().toStdString()), (json{{"message", "first"}}));
}

void TestInspectorActions::previewsAreNotCopied()
{
    CallInspector inspector;
    inspector.setServer(QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), true);
    ToolCall preview = finishedCall(1, QStringLiteral("cut"));
    preview.request.chop(10);
    inspector.setCallPreview(preview, QStringLiteral("Showing the first bytes"));
    for (QAction* action : inspector.copyActions())
        QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
    QVERIFY(!inspector.findChild<QPushButton*>(QStringLiteral("copyCurlButton"))->isEnabled());
    inspector.setCall(finishedCall(1, QStringLiteral("cut")));
    for (QAction* action : inspector.copyActions())
        QVERIFY2(action->isEnabled(), qPrintable(action->text()));
}

void TestInspectorActions::timelineTabOnlyForCallsWithOne()
{
    CallInspector inspector;
    auto* tabs = inspector.findChild<QTabWidget*>(QStringLiteral("inspectorTabs"));
    auto* timeline = inspector.findChild<QPlainTextEdit*>(QStringLiteral("timelineText"));
    QVERIFY(tabs && timeline);
    inspector.setCall(finishedCall(1, QStringLiteral("quiet")));
    QVERIFY(!tabs->isTabVisible(tabs->indexOf(timeline)));
    ToolCall talkative = finishedCall(2, QStringLiteral("talkative"));
    talkative.timeline = progressTimeline();
    inspector.setCall(talkative);
    QVERIFY(tabs->isTabVisible(tabs->indexOf(timeline)));
    QCOMPARE(tabs->tabText(tabs->indexOf(timeline)), QStringLiteral("Timeline"));
    const QStringList lines = timeline->toPlainText().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines.at(0), QStringLiteral("  +0.012 s  progress 1/3  step 1 of 3"));
    QVERIFY2(lines.at(1).contains(QStringLiteral("40 more notifications")), qPrintable(lines.at(1)));
    QCOMPARE(lines.at(2), QStringLiteral("  +1.500 s  debug  [debug.progress]  {\"step\":3}"));
    inspector.setCall(finishedCall(3, QStringLiteral("quiet again")));
    QVERIFY(!tabs->isTabVisible(tabs->indexOf(timeline)));
}

void TestInspectorActions::exportFetchesPreviewsWhole()
{
    QTemporaryDir dir;
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    ToolCall large = finishedCall(2, QString(3 * CallLogModel::PreviewBytes, QLatin1Char('y')));
    Q_EMIT backend.callsUpdated(
        {finishedCall(1, QStringLiteral("small")), large, finishedCall(3, QStringLiteral("hidden by the filter"))});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 3);
    window.callLogView()->filterEdit()->setText(QStringLiteral("claude"));
    // Only what the log shows goes out: hide the third call.
    window.callLogView()->showCalls({1, 2}, QStringLiteral("two calls"));

    const QString path = dir.filePath(QStringLiteral("calls.ndjson"));
    backend.queries.clear();
    QPointer<CallExportJob> job = window.exportCallLog(path);
    QVERIFY(job);
    QSignalSpy finished(job.data(), &CallExportJob::finished);
    // The preview's whole call is asked of history, by id.
    QTRY_COMPARE(backend.queries.size(), 1);
    QCOMPARE(backend.queries.first().callId, qint64(2));
    QCOMPARE(backend.queries.first().bodyPreviewBytes, qsizetype(0));
    Q_EMIT backend.historyLoaded(backend.lastRequestId, {large}, false);
    QTRY_COMPARE(finished.size(), 1);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));

    const NdjsonCallReader::Result result = NdjsonCallReader::readFile(path);
    QCOMPARE(result.calls.size(), 2);
    QCOMPARE(result.calls.at(0).id, qint64(1));
    QCOMPARE(result.calls.at(1).request, large.request);
    QCOMPARE(result.calls.at(1).response, large.response);
    QVERIFY(!result.calls.at(1).hasBodyPreviews());

    // HAR by the name: a log with both entries.
    const QString harPath = dir.filePath(QStringLiteral("calls.har"));
    QPointer<CallExportJob> harJob = window.exportCallLog(harPath);
    QSignalSpy harFinished(harJob.data(), &CallExportJob::finished);
    QTRY_VERIFY(backend.queries.size() == 2);
    Q_EMIT backend.historyLoaded(backend.lastRequestId, {large}, false);
    QTRY_COMPARE(harFinished.size(), 1);
    QFile har(harPath);
    QVERIFY(har.open(QIODevice::ReadOnly));
    const json parsed = json::parse(har.readAll().toStdString());
    QCOMPARE(parsed["log"]["entries"].size(), std::size_t(2));
}

void TestInspectorActions::historyExportsEverySearchPage()
{
    QTemporaryDir dir;
    FakeOperator backend;
    HistoryDialog dialog(&backend);
    QVERIFY(dialog.exportButton());
    QVERIFY(dialog.inspector()->copyCurlAction());
    const QString path = dir.filePath(QStringLiteral("history.ndjson"));
    backend.queries.clear();
    QPointer<CallExportJob> job = dialog.exportResults(path);
    QSignalSpy finished(job.data(), &CallExportJob::finished);
    QTRY_COMPARE(backend.queries.size(), 1);
    QCOMPARE(backend.queries.last().bodyPreviewBytes, qsizetype(0)); // whole bodies
    QCOMPARE(backend.queries.last().beforeId, qint64(0));
    Q_EMIT backend.historyLoaded(backend.lastRequestId,
        {finishedCall(9, QStringLiteral("nine")), finishedCall(8, QStringLiteral("eight"))}, true);
    QTRY_COMPARE(backend.queries.size(), 2);
    QCOMPARE(backend.queries.last().beforeId, qint64(8)); // the next page, older than the last one
    Q_EMIT backend.historyLoaded(backend.lastRequestId, {finishedCall(5, QStringLiteral("five"))}, false);
    QTRY_COMPARE(finished.size(), 1);
    QVERIFY(finished.first().at(0).toBool());
    const NdjsonCallReader::Result result = NdjsonCallReader::readFile(path);
    QCOMPARE(result.calls.size(), 3);
    QCOMPARE(result.calls.at(2).id, qint64(5));
    QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("historySummary"))->text().contains(QStringLiteral("3 calls")));
}

void TestInspectorActions::openShowsTheFileReadOnly()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("calls.ndjson"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    ToolCall large = finishedCall(2, QString(3 * CallLogModel::PreviewBytes, QLatin1Char('z')));
    large.timeline = progressTimeline();
    file.write(CallExportWriter::ndjsonLine(finishedCall(1, QStringLiteral("one"))));
    file.write("this line is broken\n");
    file.write(CallExportWriter::ndjsonLine(large));
    file.close();

    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    QSignalSpy openedSpy(&window, &MainWindow::ndjsonOpened);
    window.openNdjson(path); // read on a worker: the window goes on meanwhile
    QVERIFY(openedSpy.wait());
    QPointer<CallImportWindow> opened = openedSpy.first().at(0).value<CallImportWindow*>();
    QVERIFY(opened);
    QVERIFY(opened->isVisible());
    QVERIFY(opened->windowTitle().contains(QStringLiteral("read-only")));
    QCOMPARE(opened->model()->rowCount(), 2);
    const QString summary = opened->summaryLabel()->text();
    QVERIFY2(
        summary.contains(QStringLiteral("2 calls")) && summary.contains(QStringLiteral("line 2")), qPrintable(summary));
    // The whole call from the file, though the row keeps a preview; copying works, nothing is sent.
    QVERIFY(opened->callLogView()->showCall(2));
    QTRY_COMPARE(opened->inspector()->call().id, qint64(2));
    QCOMPARE(opened->inspector()->call().request, large.request);
    QVERIFY(!opened->inspector()->isPreview());
    opened->inspector()->copyRequestAction()->trigger();
    QCOMPARE_JSON(
        json::parse(QGuiApplication::clipboard()->text().toStdString()), json::parse(large.request.toStdString()));
    QVERIFY(backend.queries.isEmpty());
    QVERIFY(!opened->inspector()->replayBar()->isVisibleTo(opened));
    auto* tabs = opened->inspector()->findChild<QTabWidget*>(QStringLiteral("inspectorTabs"));
    QVERIFY(tabs->isTabVisible(
        tabs->indexOf(opened->inspector()->findChild<QPlainTextEdit*>(QStringLiteral("timelineText")))));
    // Sized within the screen, and closed by Ctrl+W (then, opened again, by Escape).
    const QSize screen = window.screen()->availableGeometry().size();
    QVERIFY2(opened->width() <= screen.width() && opened->height() <= screen.height(),
        qPrintable(QStringLiteral("%1x%2 on %3x%4")
                       .arg(opened->width())
                       .arg(opened->height())
                       .arg(screen.width())
                       .arg(screen.height())));
    QApplication::setActiveWindow(opened);
    QTRY_VERIFY(opened->isActiveWindow());
    opened->callLogView()->filterEdit()->setFocus();
    QTest::keyClick(opened->callLogView()->filterEdit(), Qt::Key_W, Qt::ControlModifier);
    QTRY_VERIFY(!opened); // deleted on close

    QSignalSpy again(&window, &MainWindow::ndjsonOpened);
    window.openNdjson(path);
    QVERIFY(again.wait());
    QPointer<CallImportWindow> reopened = again.first().at(0).value<CallImportWindow*>();
    QVERIFY(reopened);
    QApplication::setActiveWindow(reopened);
    QTRY_VERIFY(reopened->isActiveWindow());
    QTest::keyClick(reopened->callLogView()->tableView(), Qt::Key_Escape);
    QTRY_VERIFY(!reopened);
}

void TestInspectorActions::openSaysWhatIsWrong()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.ndjson"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{}\nnot json\n");
    file.close();
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    QSignalSpy opened(&window, &MainWindow::ndjsonOpened);
    QSignalSpy failed(&window, &MainWindow::ndjsonOpenFailed);
    QString text;
    closeNextMessageBox(&text);
    window.openNdjson(path);
    QTRY_VERIFY(!text.isEmpty());
    QVERIFY2(text.contains(QStringLiteral("line 1")) && text.contains(QStringLiteral("line 2")), qPrintable(text));
    QCOMPARE(failed.size(), 1);
    text.clear();
    closeNextMessageBox(&text);
    window.openNdjson(dir.filePath(QStringLiteral("missing.ndjson")));
    QTRY_VERIFY(!text.isEmpty());
    QVERIFY2(text.contains(QStringLiteral("missing.ndjson")), qPrintable(text));
    QCOMPARE(failed.size(), 2);
    QVERIFY(opened.isEmpty());
}

void TestInspectorActions::openReadsOnAWorkerAndCanBeCancelled()
{
    // A large file: the window keeps answering while it is read, and Cancel stops the reading.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("large.ndjson"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray line = CallExportWriter::ndjsonLine(finishedCall(1, QString(64 * 1024, QLatin1Char('z'))));
    while (file.size() < 200 * 1024 * 1024)
        file.write(line);
    file.close();

    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    QSignalSpy opened(&window, &MainWindow::ndjsonOpened);
    QSignalSpy failed(&window, &MainWindow::ndjsonOpenFailed);
    window.openNdjson(path);
    // The event loop runs while the worker reads: a timer fires, and the progress dialog is there.
    bool ticked = false;
    QTimer::singleShot(0, &window, [&ticked] { ticked = true; });
    QTRY_VERIFY(ticked);
    auto* progress = window.findChild<QProgressDialog*>(QStringLiteral("openNdjsonProgress"));
    QVERIFY(progress);
    // As the person does: the dialog's Cancel button (QProgressDialog::cancel() alone says nothing).
    auto* cancel = progress->findChild<QPushButton*>();
    QVERIFY(cancel);
    cancel->click();
    QTRY_VERIFY(!window.findChild<QProgressDialog*>(QStringLiteral("openNdjsonProgress")));
    QVERIFY(opened.isEmpty());
    QVERIFY(failed.isEmpty()); // cancelled: nothing to say but the status bar's line
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("cancelled")));
}

QTEST_MAIN(TestInspectorActions)
#include "tst_inspectoractions.moc"
