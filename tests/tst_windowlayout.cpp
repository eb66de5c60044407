// MainWindow's layout (issue 13, item 7): the first size fits the screen; the geometry, docks,
// splitter and call-log columns are saved to QSettings and restored, but not from a layout saved for
// another LayoutVersion; Reset layout goes back to the start. And the live log's window-level wiring:
// "Search history too" goes through the operator interface, and the answer joins the log.

#include "testpaths.h"
#include <QTest>

#include "fakeoperator.h"

#include "callinspector.h"
#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "repositoryview.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QScreen>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>

class TestWindowLayout : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void firstSizeFitsTheScreen();
    void largeFontOnALaptopFitsWithTheOutcomeInView();
    void largeFontOnATallScreenKeepsTheLogsColumnsInView();
    void inspectorBelowIsAChoiceThatIsRemembered();
    void layoutIsRememberedAndVersioned();
    void resetLayoutGoesBackToTheStart();
    void historySearchGoesThroughTheInterface();
    void aQuestionComesForwardFromBehindTheToolsTab();
    void aDocksShortcutBringsItForwardFromBehindATab();
};

namespace {

ToolCall call(qint64 id, const QString& tool, CallStatus status = CallStatus::Ok)
{
    ToolCall c;
    c.id = id;
    c.tool = tool;
    c.route = ToolRoute::builtin();
    c.clientName = QStringLiteral("tester");
    c.status = status;
    c.startedAtMs = 1'700'000'000'000 + id;
    return c;
}

} // namespace

void TestWindowLayout::firstSizeFitsTheScreen()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    const QRect available = window.screen()->availableGeometry();
    QCOMPARE(available.size(), QSize(1366, 768));
    // A desktop panel and a title bar take some 60 pixels of a laptop's 768.
    QVERIFY2(window.minimumSizeHint().height() <= 768 - 60,
        qPrintable(QStringLiteral("minimum height %1").arg(window.minimumSizeHint().height())));
    QVERIFY(window.width() <= available.width());
    QVERIFY(window.height() <= available.height());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Everything still has some room: the log, the inspector and the questions dock side by side.
    QVERIFY(window.callLogView()->width() > 150);
    QVERIFY(window.interactionPanel()->width() > 150);
}

namespace {

// Whether a column of the call log is in view whole, without scrolling sideways.
bool columnInView(const QTableView* table, int column)
{
    const QHeaderView* header = table->horizontalHeader();
    const int at = header->sectionViewportPosition(column);
    return at >= 0 && at + header->sectionSize(column) <= table->viewport()->width();
}

// The desktop font at 14 pt while a test runs.
struct LargeFont
{
    LargeFont()
        : before(QApplication::font())
    {
        QFont large = before;
        large.setPointSize(14);
        QApplication::setFont(large);
    }
    ~LargeFont() { QApplication::setFont(before); }
    const QFont before;
};

} // namespace

void TestWindowLayout::largeFontOnALaptopFitsWithTheOutcomeInView()
{
    // At 14 pt on a 1366x768 laptop the window fits the screen (the docks scroll rather than hold
    // it 871 pixels tall, as they did), with a question too; the log stays beside the inspector at
    // full height (below it, the log would keep three rows), its time and status in view.
    const LargeFont font;
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    QVERIFY(!window.isInspectorBelow());
    QVERIFY2(window.minimumSizeHint().height() <= 768 - MainWindow::ScreenMarginHeight,
        qPrintable(QStringLiteral("minimum height %1").arg(window.minimumSizeHint().height())));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY2(window.height() <= 768, qPrintable(QStringLiteral("height %1").arg(window.height())));
    QTableView* table = window.callLogView()->tableView();
    QTRY_VERIFY(columnInView(table, CallColumns::TimeColumn));
    QVERIFY(columnInView(table, CallColumns::StatusColumn));
    QVERIFY2(window.callLogView()->height() > 300, qPrintable(QString::number(window.callLogView()->height())));

    PendingInteraction question;
    question.id = QStringLiteral("ia-1");
    question.kind = InteractionKind::Approval;
    question.tool = QStringLiteral("notes.write");
    question.clientName = QStringLiteral("claude-code");
    question.waiting = true;
    Q_EMIT backend.interactionPending(question);
    QTRY_VERIFY(window.interactionPanel()->currentWidget());
    QVERIFY2(window.minimumSizeHint().height() <= 768 - MainWindow::ScreenMarginHeight,
        qPrintable(QStringLiteral("minimum height %1").arg(window.minimumSizeHint().height())));
    QVERIFY2(window.minimumSizeHint().width() <= 1366,
        qPrintable(QStringLiteral("minimum width %1").arg(window.minimumSizeHint().width())));
    QTRY_VERIFY2(window.height() <= 768, qPrintable(QStringLiteral("height %1").arg(window.height())));
}

void TestWindowLayout::largeFontOnATallScreenKeepsTheLogsColumnsInView()
{
    // At 14 pt on a 1600x1200 screen the log's time, status, client and tool columns, the inspector
    // and the questions dock (as wide as an approval's answer buttons) do not fit side by side:
    // the inspector goes below the log, or (where the log would then be too narrow for those
    // columns) the window turns narrow and the questions go to the tabs along the bottom. Either
    // way those columns show without scrolling sideways, with rows to see and a readable inspector.
    const LargeFont font;
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    QScreen* tall = QGuiApplication::screens().value(1);
    QVERIFY(tall && tall->size() == QSize(1600, 1200));
    window.setScreen(tall);
    window.resetLayout();
    QVERIFY(window.isCompact() || window.isInspectorBelow());
    QCOMPARE(
        window.findChild<QAction*>(QStringLiteral("inspectorBelowAction"))->isChecked(), window.isInspectorBelow());
    window.move(tall->availableGeometry().topLeft());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTableView* table = window.callLogView()->tableView();
    for (const int column :
        {CallColumns::TimeColumn, CallColumns::StatusColumn, CallColumns::ClientColumn, CallColumns::ToolColumn})
        QTRY_VERIFY2(columnInView(table, column),
            qPrintable(QStringLiteral("column %1 at %2, %3 wide; viewport %4 wide, window %5 wide")
                           .arg(column)
                           .arg(table->horizontalHeader()->sectionViewportPosition(column))
                           .arg(table->horizontalHeader()->sectionSize(column))
                           .arg(table->viewport()->width())
                           .arg(window.width())));
    const int rows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
    QVERIFY2(rows >= MainWindow::MinLogRowsAboveInspector,
        qPrintable(QStringLiteral("%1 rows; window %2, log %3, inspector %4, bottom %5")
                       .arg(rows)
                       .arg(window.height())
                       .arg(window.callLogView()->height())
                       .arg(window.inspector()->height())
                       .arg(window.repositoryView()->height())));
    QVERIFY(window.inspector()->height() > 150);
}

void TestWindowLayout::inspectorBelowIsAChoiceThatIsRemembered()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("console.conf"));
    FakeOperator backend;
    {
        MainWindow window(&backend, 100, false);
        QVERIFY(!window.isInspectorBelow()); // the default font fits both side by side
        auto* below = window.findChild<QAction*>(QStringLiteral("inspectorBelowAction"));
        QVERIFY(below && below->isCheckable() && !below->isChecked());
        below->trigger();
        QVERIFY(window.isInspectorBelow());
        QSettings settings(path, QSettings::IniFormat);
        window.saveLayout(settings);
    }
    MainWindow window(&backend, 100, false);
    QSettings settings(path, QSettings::IniFormat);
    QVERIFY(window.restoreLayout(settings));
    QVERIFY(window.isInspectorBelow());
    QVERIFY(window.findChild<QAction*>(QStringLiteral("inspectorBelowAction"))->isChecked());
    window.findChild<QAction*>(QStringLiteral("resetLayoutAction"))->trigger();
    QVERIFY(!window.isInspectorBelow());
}

void TestWindowLayout::layoutIsRememberedAndVersioned()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("console.conf"));
    FakeOperator backend;
    int toolWidth = 0;
    QSize size;
    {
        MainWindow window(&backend, 100, false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize first = window.size();
        window.repositoryView()->toggleViewAction()->trigger(); // hidden
        QTRY_VERIFY(!window.repositoryView()->isVisible());
        // Smaller than at first: a size larger than the screen's room is not restored as such.
        window.resize(first - QSize(30, 20));
        QTRY_COMPARE(window.size(), first - QSize(30, 20));
        size = window.size();
        QHeaderView* header = window.callLogView()->tableView()->horizontalHeader();
        toolWidth = header->sectionSize(CallColumns::ToolColumn) + 40;
        header->resizeSection(CallColumns::ToolColumn, toolWidth);
        window.close();
        QSettings settings(path, QSettings::IniFormat);
        window.saveLayout(settings);
    }
    {
        MainWindow window(&backend, 100, false);
        QSettings settings(path, QSettings::IniFormat);
        QVERIFY(window.restoreLayout(settings));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), size);
        QVERIFY(!window.repositoryView()->isVisible());
        QVERIFY(window.interactionPanel()->isVisible());
        QCOMPARE(
            window.callLogView()->tableView()->horizontalHeader()->sectionSize(CallColumns::ToolColumn), toolWidth);
    }
    {
        // A layout from another version of the window is not restored: its docks may not exist.
        QSettings settings(path, QSettings::IniFormat);
        settings.setValue(QStringLiteral("window/layoutVersion"), MainWindow::LayoutVersion + 1);
        settings.sync();
        MainWindow window(&backend, 100, false);
        QVERIFY(!window.restoreLayout(settings));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.repositoryView()->isVisible());
        QVERIFY(
            window.callLogView()->tableView()->horizontalHeader()->sectionSize(CallColumns::ToolColumn) != toolWidth);
    }
}

void TestWindowLayout::resetLayoutGoesBackToTheStart()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QSize first = window.size();
    window.repositoryView()->toggleViewAction()->trigger();
    QTRY_VERIFY(!window.repositoryView()->isVisible());
    window.resize(500, 400);
    auto* reset = window.findChild<QAction*>(QStringLiteral("resetLayoutAction"));
    QVERIFY(reset);
    reset->trigger();
    QTRY_VERIFY(window.repositoryView()->isVisible());
    QTRY_COMPARE(window.size(), first);
}

void TestWindowLayout::historySearchGoesThroughTheInterface()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Q_EMIT backend.callsUpdated({call(500, QStringLiteral("git_status")), call(501, QStringLiteral("echo"))});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 2);
    QTest::keyClicks(window.callLogView()->filterEdit(), QStringLiteral("git"));
    const qsizetype queriesBefore = backend.queries.size();
    window.callLogView()->historySearchAction()->trigger();
    QCOMPARE(backend.queries.size(), queriesBefore + 1);
    QCOMPARE(backend.queries.last().search.words, QStringList{QStringLiteral("git")});
    QCOMPARE(backend.queries.last().beforeId, qint64(500));
    Q_EMIT backend.historyLoaded(
        backend.lastRequestId, {call(12, QStringLiteral("git_log")), call(11, QStringLiteral("git_status"))}, false);
    QCOMPARE(window.callLogModel()->historyCount(), 2);
    QCOMPARE(window.callLogView()->proxy()->rowCount(), 3);
    QCOMPARE(window.callLogView()->proxy()->index(0, 0).data(CallIdRole).toLongLong(), qint64(11));
    // Selecting a history row shows it in the inspector like any other call.
    window.callLogView()->tableView()->setCurrentIndex(window.callLogView()->proxy()->index(0, 0));
    QCOMPARE(
        window.callLogView()->tableView()->currentIndex().data(OriginRole).toInt(), int(CallLogModel::Origin::History));
}

// The Tools dock shares a tab with the questions: a question arriving while Tools is in front comes
// forward, unless the person is typing in the Tools view.
void TestWindowLayout::aQuestionComesForwardFromBehindTheToolsTab()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* tools = window.findChild<QDockWidget*>(QStringLiteral("toolsDock"));
    QVERIFY(tools);
    tools->raise();
    QTRY_VERIFY(window.interactionPanel()->visibleRegion().isEmpty());

    PendingInteraction question;
    question.id = QStringLiteral("ia-1");
    question.tool = QStringLiteral("git_push");
    question.clientName = QStringLiteral("tester");
    question.waiting = true;
    Q_EMIT backend.interactionPending(question);
    QTRY_VERIFY(!window.interactionPanel()->visibleRegion().isEmpty());

    // (A dock behind another's tab stays isVisible(); only its visible region is empty.)
    // Typing in the Tools view: the next question waits behind its tab (the tab and badge count it).
    tools->raise();
    QTRY_VERIFY(!tools->visibleRegion().isEmpty() && window.interactionPanel()->visibleRegion().isEmpty());
    auto* filter = tools->findChild<QLineEdit*>();
    QVERIFY(filter);
    filter->setFocus(Qt::OtherFocusReason);
    QTest::keyClicks(filter, QStringLiteral("git"));
    QTRY_VERIFY(filter->hasFocus());
    question.id = QStringLiteral("ia-2");
    Q_EMIT backend.interactionPending(question);
    QTRY_COMPARE(window.interactionPanel()->count(), 2);
    QVERIFY(window.interactionPanel()->visibleRegion().isEmpty());
}

void TestWindowLayout::aDocksShortcutBringsItForwardFromBehindATab()
{
    // The Permissions dock starts as a tab behind Repositories: Ctrl+5 shows it (it used to close
    // it, since a tab behind another counts as visible), and a second Ctrl+5 closes it.
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* permissions = window.findChild<QDockWidget*>(QStringLiteral("permissionsDock"));
    QVERIFY(permissions);
    QVERIFY(permissions->isVisible());
    QTRY_VERIFY(permissions->visibleRegion().isEmpty()); // behind the Repositories tab
    QAction* toggle = permissions->toggleViewAction();
    QCOMPARE(toggle->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_5));
    toggle->trigger();
    QVERIFY(toggle->isChecked());
    QVERIFY(permissions->isVisible());
    QTRY_VERIFY(!permissions->visibleRegion().isEmpty());
    toggle->trigger();
    QVERIFY(!toggle->isChecked());
    QTRY_VERIFY(!permissions->isVisible());
    toggle->trigger();
    QTRY_VERIFY(permissions->isVisible());
    QTRY_VERIFY(!permissions->visibleRegion().isEmpty());
}

// The window is laid out on the screen the issue names as the smallest to work on: 1366x768 (the
// offscreen platform's own screen is 800x800); a second screen, 1600x1200, has height to spare.
int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM",
        QByteArray("offscreen:configfile=") + TestPaths::sourceDir().toUtf8() + "/screens/laptop-and-tall.json");
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    TestWindowLayout test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_windowlayout.moc"
