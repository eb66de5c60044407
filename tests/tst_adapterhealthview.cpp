// AdapterHealthView against the OperatorInterface's test double: breaker states and adapter
// statuses arrive through its signals and rows update live; the empty state says how to configure
// adapters; Reset, Force open and Disable / Enable send their commands for the selected adapter,
// Reload configuration sends its own, and answers and refusals show in the dock's status line; the
// timeline shows the selected adapter's transitions; and in the MainWindow selecting an adapter
// filters the call log to its calls (and clearing the filter there clears the selection).
// Offscreen; no backend. With SWITCHBOARD_SCREENSHOT_DIR set, saves what the dock shows there.

#include "fakeoperator.h"

#include "adapterhealthmodel.h"
#include "adapterhealthview.h"
#include "breakertimelinemodel.h"
#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "repositoryview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyleFactory>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

namespace {

constexpr qint64 SecondMs = 1000;

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

BreakerState breaker(const QString& adapter, BreakerPhase phase, int failures = 0)
{
    BreakerState state;
    state.adapter = adapter;
    state.phase = phase;
    state.consecutiveFailures = failures;
    state.failureThreshold = 5;
    state.changedAtMs = now() - 40 * SecondMs;
    if (phase == BreakerPhase::Open)
        state.retryAtMs = now() + 25 * SecondMs;
    return state;
}

AdapterStatus status(const QString& name, AdapterConnection connection = AdapterConnection::Ready)
{
    AdapterStatus status;
    status.name = name;
    status.endpoint = QStringLiteral("https://%1.example.com/mcp").arg(name);
    status.connection = connection;
    status.toolCount = 12;
    status.calls = 4210;
    status.rejectedCalls = 3;
    status.failures = 14;
    status.authenticationFailures = 0;
    status.latencyP50Us = 84000;
    status.latencyP99Us = 1250000;
    status.lastSuccessAtMs = now() - 75 * SecondMs;
    return status;
}

BreakerTransitionRecord transition(
    const QString& adapter, BreakerPhase from, BreakerPhase to, const QString& reason, qint64 callId, qint64 atMs)
{
    BreakerTransitionRecord record;
    record.adapter = adapter;
    record.from = from;
    record.to = to;
    record.reason = reason;
    record.callId = callId;
    record.atMs = atMs;
    return record;
}

ToolCall call(qint64 id, const QString& tool, const ToolRoute& route)
{
    ToolCall c;
    c.id = id;
    c.tool = tool;
    c.route = route;
    c.clientName = QStringLiteral("claude-code");
    c.status = CallStatus::Ok;
    c.durationUs = 1200;
    c.startedAtMs = 1'700'000'000'000 + id;
    c.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}})";
    return c;
}

QList<qint64> visibleCallIds(const QAbstractItemModel& model)
{
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids.append(model.index(row, 0).data(CallIdRole).toLongLong());
    return ids;
}

QString cell(AdapterHealthView& view, const QString& adapter, int column)
{
    return view.model()->indexOfAdapter(adapter, column).data().toString();
}

// Clicks the adapter's row as a person would.
void clickAdapter(AdapterHealthView& view, const QString& adapter)
{
    QTableView* table = view.adapterTable();
    const QModelIndex row = view.proxy()->mapFromSource(view.model()->indexOfAdapter(adapter));
    QVERIFY(row.isValid());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(row).center());
}

// A gateway's worth of adapters in every state, for the screenshots and the MainWindow test.
void publishSampleStates(FakeOperator& backend)
{
    const qint64 t = now();
    AdapterStatus github = status(QStringLiteral("github"));
    github.transitions = {
        transition(QStringLiteral("github"), BreakerPhase::Closed, BreakerPhase::Open,
            QStringLiteral("5 consecutive failures (timeout after 30 s)"), 1187, t - 600 * SecondMs),
        transition(QStringLiteral("github"), BreakerPhase::Open, BreakerPhase::HalfOpen,
            QStringLiteral("recovery timeout elapsed"), 0, t - 570 * SecondMs),
        transition(QStringLiteral("github"), BreakerPhase::HalfOpen, BreakerPhase::Closed,
            QStringLiteral("trial call succeeded"), 1203, t - 569 * SecondMs),
    };
    AdapterStatus jira = status(QStringLiteral("jira"), AdapterConnection::Failing);
    jira.calls = 312;
    jira.rejectedCalls = 41;
    jira.failures = 27;
    jira.authenticationFailures = 6;
    jira.lastError = QStringLiteral("HTTP 503 Service Unavailable from https://jira.example.com/mcp");
    jira.lastErrorAtMs = t - 4 * SecondMs;
    jira.transitions = {transition(QStringLiteral("jira"), BreakerPhase::Closed, BreakerPhase::Open,
        QStringLiteral("5 consecutive failures"), 1290, t - 5 * SecondMs)};
    AdapterStatus filesystem = status(QStringLiteral("filesystem"));
    filesystem.readOnly = true;
    filesystem.calls = 18034;
    filesystem.latencyP50Us = 900;
    filesystem.latencyP99Us = 7400;
    AdapterStatus slack = status(QStringLiteral("slack"), AdapterConnection::Disabled);
    slack.disabledByOperator = true;
    slack.calls = 77;
    slack.lastSuccessAtMs = t - 3 * 3600 * SecondMs;
    AdapterStatus search = status(QStringLiteral("search"), AdapterConnection::Connecting);
    search.calls = 0;
    search.rejectedCalls = 0;
    search.latencyP50Us = 0;
    search.latencyP99Us = 0;
    search.lastSuccessAtMs = 0;
    AdapterStatus linear = status(QStringLiteral("linear"));
    linear.calls = 950;
    linear.lastError = QStringLiteral("tool linear.create_issue: upstream returned a malformed result");
    linear.lastErrorAtMs = t - 30 * SecondMs;
    BreakerState forced = breaker(QStringLiteral("linear"), BreakerPhase::Open);
    forced.forcedOpen = true;
    forced.retryAtMs = 0;
    BreakerState sentry = breaker(QStringLiteral("sentry"), BreakerPhase::HalfOpen, 5);
    AdapterStatus sentryStatus = status(QStringLiteral("sentry"));
    sentryStatus.latencyP99Us = 4800000;

    Q_EMIT backend.adapterStatusesChanged({github, jira, filesystem, slack, search, linear, sentryStatus});
    Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("github"), BreakerPhase::Closed),
        breaker(QStringLiteral("jira"), BreakerPhase::Open, 5),
        breaker(QStringLiteral("filesystem"), BreakerPhase::Closed),
        breaker(QStringLiteral("slack"), BreakerPhase::Closed), breaker(QStringLiteral("search"), BreakerPhase::Closed),
        forced, sentry});
}

void saveScreenshot(QWidget* widget, const char* name)
{
    const QString directory = qEnvironmentVariable("SWITCHBOARD_SCREENSHOT_DIR");
    if (directory.isEmpty())
        return;
    QCoreApplication::processEvents();
    widget->grab().save(directory + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

} // namespace

class TestAdapterHealthView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyStateSaysHowToConfigure()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        view.resize(900, 360);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.windowTitle(), QStringLiteral("Adapters"));
        QVERIFY(view.emptyStateLabel()->isVisible());
        QVERIFY(view.emptyStateLabel()->text().contains(QStringLiteral("mcp_endpoints")));
        QVERIFY(view.emptyStateLabel()->text().contains(QStringLiteral("endpoint:")));
        QVERIFY(!view.adapterTable()->isVisible());
        QVERIFY(!view.resetButton()->isVisible());
        QVERIFY(view.reloadButton()->isVisible());
        QVERIFY(view.reloadButton()->isEnabled());
        saveScreenshot(&view, "adapters-empty");

        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github"))});
        QVERIFY(!view.emptyStateLabel()->isVisible());
        QVERIFY(view.adapterTable()->isVisible());
        QVERIFY(view.resetButton()->isVisible());
    }

    void statesArriveLiveAndMergeByName()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester timelineTester(
            view.timelineModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("github"), BreakerPhase::Closed)});
        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github")), status(QStringLiteral("jira"))});
        QCOMPARE(view.proxy()->rowCount(), 2);
        QCOMPARE(cell(view, QStringLiteral("github"), AdapterHealthModel::StateColumn), QStringLiteral("closed"));
        QCOMPARE(cell(view, QStringLiteral("jira"), AdapterHealthModel::StateColumn), QStringLiteral("ready"));
        QCOMPARE(view.summaryLabel()->text(), QStringLiteral("2 adapters"));

        // A batch with only jira's breaker: jira's row changes, github's stays.
        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("jira"), BreakerPhase::Open, 5)});
        QCOMPARE(view.proxy()->rowCount(), 2);
        QVERIFY(cell(view, QStringLiteral("jira"), AdapterHealthModel::StateColumn)
                    .startsWith(QStringLiteral("open — retry in ")));
        QCOMPARE(cell(view, QStringLiteral("jira"), AdapterHealthModel::FailuresColumn), QStringLiteral("5 / 5"));
        QCOMPARE(cell(view, QStringLiteral("github"), AdapterHealthModel::StateColumn), QStringLiteral("closed"));
        QVERIFY(view.model()->isCountdownRunning());
        QCOMPARE(view.summaryLabel()->text(), QStringLiteral("2 adapters · 1 open"));
        // The tab says so too, for when it is behind the repositories.
        QCOMPARE(view.windowTitle(), QStringLiteral("Adapters (1 open)"));
        QCOMPARE(view.adapterTable()
                     ->model()
                     ->index(view.proxy()->mapFromSource(view.model()->indexOfAdapter(QStringLiteral("jira"))).row(),
                         AdapterHealthModel::StateColumn)
                     .data(HealthRole)
                     .toInt(),
            int(AdapterHealth::Failing));

        // The countdown ticks in the table.
        const QString before = cell(view, QStringLiteral("jira"), AdapterHealthModel::StateColumn);
        QTRY_VERIFY_WITH_TIMEOUT(cell(view, QStringLiteral("jira"), AdapterHealthModel::StateColumn) != before, 3000);

        AdapterStatus more = status(QStringLiteral("github"));
        more.calls = 5000;
        Q_EMIT backend.adapterStatusesChanged({more});
        QCOMPARE(cell(view, QStringLiteral("github"), AdapterHealthModel::CallsColumn), QLocale().toString(5000));
        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("jira"), BreakerPhase::Closed)});
        QVERIFY(!view.model()->isCountdownRunning());
        QCOMPARE(view.windowTitle(), QStringLiteral("Adapters"));
    }

    void buttonsSendCommandsForTheSelectedAdapter()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        view.resize(1000, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy selected(&view, &AdapterHealthView::adapterSelected);
        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github")), status(QStringLiteral("jira"))});
        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("github"), BreakerPhase::Closed),
            breaker(QStringLiteral("jira"), BreakerPhase::Open, 5)});

        // Nothing selected: only Reload.
        QVERIFY(!view.resetButton()->isEnabled());
        QVERIFY(!view.forceOpenButton()->isEnabled());
        QVERIFY(!view.enableButton()->isEnabled());
        QVERIFY(view.reloadButton()->isEnabled());

        clickAdapter(view, QStringLiteral("jira"));
        QCOMPARE(view.currentAdapter(), QStringLiteral("jira"));
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.last().at(0).toString(), QStringLiteral("jira"));
        QVERIFY(view.resetButton()->isEnabled());
        QVERIFY(view.forceOpenButton()->isEnabled());
        QCOMPARE(view.enableButton()->text(), QStringLiteral("Disable"));

        QTest::mouseClick(view.resetButton(), Qt::LeftButton);
        QCOMPARE(backend.breakerResets, QStringList{QStringLiteral("jira")});
        QTest::mouseClick(view.forceOpenButton(), Qt::LeftButton);
        QCOMPARE(backend.breakerForceOpens, QStringList{QStringLiteral("jira")});
        QTest::mouseClick(view.enableButton(), Qt::LeftButton);
        QCOMPARE(backend.adapterEnables, (QList<QPair<QString, bool>>{{QStringLiteral("jira"), false}}));

        // A closed breaker with no failures has nothing to reset; it can still be forced open.
        clickAdapter(view, QStringLiteral("github"));
        QCOMPARE(selected.last().at(0).toString(), QStringLiteral("github"));
        QVERIFY(!view.resetButton()->isEnabled());
        QTest::mouseClick(view.forceOpenButton(), Qt::LeftButton);
        QCOMPARE(backend.breakerForceOpens, (QStringList{QStringLiteral("jira"), QStringLiteral("github")}));

        // Forced open: Reset undoes it; forcing again is pointless.
        BreakerState forced = breaker(QStringLiteral("github"), BreakerPhase::Open);
        forced.forcedOpen = true;
        forced.retryAtMs = 0;
        Q_EMIT backend.breakerStatesChanged({forced});
        QCOMPARE(cell(view, QStringLiteral("github"), AdapterHealthModel::StateColumn), QStringLiteral("forced open"));
        QVERIFY(view.resetButton()->isEnabled());
        QVERIFY(!view.forceOpenButton()->isEnabled());
        QTest::mouseClick(view.resetButton(), Qt::LeftButton);
        QCOMPARE(backend.breakerResets, (QStringList{QStringLiteral("jira"), QStringLiteral("github")}));

        // The same commands from the row's context menu.
        QTableView* table = view.adapterTable();
        const QModelIndex jiraRow = view.proxy()->mapFromSource(view.model()->indexOfAdapter(QStringLiteral("jira")));
        QStringList menuTexts;
        QTimer::singleShot(0, this, [&menuTexts] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            QVERIFY(menu);
            const auto actions = menu->actions();
            for (QAction* action : actions)
                menuTexts << action->text() + (action->isEnabled() ? QString() : QStringLiteral(" (off)"));
            actions.at(0)->trigger(); // Reset
            menu->close();
        });
        Q_EMIT table->customContextMenuRequested(table->visualRect(jiraRow).center());
        QCOMPARE(view.currentAdapter(), QStringLiteral("jira"));
        QCOMPARE(
            menuTexts, (QStringList{QStringLiteral("Reset"), QStringLiteral("Force open"), QStringLiteral("Disable")}));
        QCOMPARE(backend.breakerResets.last(), QStringLiteral("jira"));
        clickAdapter(view, QStringLiteral("github"));

        // Escape clears the selection, and the buttons follow.
        view.adapterTable()->setFocus();
        QTest::keyClick(view.adapterTable(), Qt::Key_Escape);
        QCOMPARE(view.currentAdapter(), QString());
        QCOMPARE(selected.last().at(0).toString(), QString());
        QVERIFY(!view.resetButton()->isEnabled());
        QVERIFY(!view.enableButton()->isEnabled());
    }

    // A button turned off while it has the focus (Force open once forced, Reset once closed) hands
    // the focus on; it went to Disable, where the next Space disabled the adapter. It goes to the table.
    void focusIsNeverLeftOnDisable()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        view.resize(1000, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QApplication::setActiveWindow(&view);
        QTRY_VERIFY(view.isActiveWindow());
        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("jira"))});
        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("jira"), BreakerPhase::Open, 5)});
        QVERIFY(view.selectAdapter(QStringLiteral("jira")));

        view.forceOpenButton()->setFocus();
        QTRY_VERIFY(view.forceOpenButton()->hasFocus());
        QTest::keyClick(view.forceOpenButton(), Qt::Key_Space);
        QCOMPARE(backend.breakerForceOpens, QStringList{QStringLiteral("jira")});
        BreakerState forced = breaker(QStringLiteral("jira"), BreakerPhase::Open);
        forced.forcedOpen = true;
        forced.retryAtMs = 0;
        Q_EMIT backend.breakerStatesChanged({forced});
        QVERIFY(!view.forceOpenButton()->isEnabled());
        QVERIFY(!view.enableButton()->hasFocus());
        QVERIFY(view.adapterTable()->hasFocus());
        // A Space now disables nothing.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(backend.adapterEnables.isEmpty());

        view.resetButton()->setFocus();
        QTest::keyClick(view.resetButton(), Qt::Key_Space);
        QCOMPARE(backend.breakerResets, QStringList{QStringLiteral("jira")});
        Q_EMIT backend.breakerStatesChanged({breaker(QStringLiteral("jira"), BreakerPhase::Closed)});
        QVERIFY(!view.resetButton()->isEnabled());
        QVERIFY(view.adapterTable()->hasFocus());
        QVERIFY(backend.adapterEnables.isEmpty());
    }

    void disableAndEnableToggle()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github"))});
        QVERIFY(view.selectAdapter(QStringLiteral("github")));
        QCOMPARE(view.enableButton()->text(), QStringLiteral("Disable"));
        view.enableButton()->click();
        QCOMPARE(backend.adapterEnables.last(), qMakePair(QStringLiteral("github"), false));

        // The backend answers with the new status: the same button now enables it.
        AdapterStatus disabled = status(QStringLiteral("github"), AdapterConnection::Disabled);
        disabled.disabledByOperator = true;
        Q_EMIT backend.adapterStatusesChanged({disabled});
        QCOMPARE(cell(view, QStringLiteral("github"), AdapterHealthModel::StateColumn),
            QStringLiteral("disabled by operator"));
        QCOMPARE(view.enableButton()->text(), QStringLiteral("Enable"));
        QVERIFY(view.enableButton()->isEnabled());
        // A disabled adapter refuses every call: its breaker is not the operator's concern meanwhile.
        QVERIFY(!view.forceOpenButton()->isEnabled());
        view.enableButton()->click();
        QCOMPARE(backend.adapterEnables.last(), qMakePair(QStringLiteral("github"), true));

        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github"))});
        QCOMPARE(view.enableButton()->text(), QStringLiteral("Disable"));

        // Disabled in the configuration file: only the file can enable it, and the button says so.
        Q_EMIT backend.adapterStatusesChanged({status(QStringLiteral("github"), AdapterConnection::Disabled)});
        QCOMPARE(view.enableButton()->text(), QStringLiteral("Enable"));
        QVERIFY(!view.enableButton()->isEnabled());
        QVERIFY(view.enableButton()->toolTip().contains(QStringLiteral("enabled: false")));
        QCOMPARE(backend.adapterEnables.size(), 2);
    }

    void reloadAndRefusalsShowInTheStatusLine()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        view.reloadButton()->click();
        QCOMPARE(backend.configurationReloads, 1);
        QVERIFY(!view.statusLabel()->isHidden());
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("Reloading")));

        Q_EMIT backend.configurationReloaded(
            false, QStringLiteral("config.yaml:14: mcp_endpoints[1].endpoint: not an http(s) URL"));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("config.yaml:14")));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("previous one stays in force")));
        QVERIFY(view.statusLabel()->styleSheet().contains(QStringLiteral("#c01c28")));

        view.reloadButton()->click();
        QCOMPARE(backend.configurationReloads, 2);
        Q_EMIT backend.configurationReloaded(true, QString());
        QCOMPARE(view.statusLabel()->text(), QStringLiteral("Configuration reloaded."));
        QVERIFY(view.statusLabel()->styleSheet().isEmpty());

        // A reload nobody here asked for (the file changed) is said as such.
        Q_EMIT backend.configurationReloaded(true, QString());
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("file changed")));

        Q_EMIT backend.commandFailed(QStringLiteral("resetBreaker"), QStringLiteral("no adapter \"ghost\""));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("Could not reset the breaker")));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("ghost")));
        Q_EMIT backend.commandFailed(QStringLiteral("setAdapterEnabled"), QStringLiteral("refused"));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("enabled: refused")));
        // Other views' commands are not this one's.
        Q_EMIT backend.commandFailed(QStringLiteral("addRepository"), QStringLiteral("outside every root"));
        QVERIFY(!view.statusLabel()->text().contains(QStringLiteral("outside every root")));
    }

    void timelineShowsTheSelectedAdaptersTransitions()
    {
        FakeOperator backend;
        AdapterHealthView view(&backend);
        QSignalSpy callRequests(&view, &AdapterHealthView::callRequested);
        publishSampleStates(backend);
        QCOMPARE(view.timelineModel()->rowCount(), 0);

        QVERIFY(view.selectAdapter(QStringLiteral("github")));
        QCOMPARE(view.timelineModel()->rowCount(), 3);
        QCOMPARE(view.timelineModel()->index(0, BreakerTimelineModel::TransitionColumn).data().toString(),
            QStringLiteral("half-open → closed"));
        QCOMPARE(view.timelineModel()->index(2, BreakerTimelineModel::CallColumn).data().toString(),
            QStringLiteral("#1187"));
        QVERIFY(view.timelineView()->isVisibleTo(&view));

        // Activating a transition's row shows the call that caused it; one no call caused does nothing.
        Q_EMIT view.timelineView()->activated(view.timelineModel()->index(2, BreakerTimelineModel::ReasonColumn));
        QCOMPARE(callRequests.size(), 1);
        QCOMPARE(callRequests.at(0).at(0).toLongLong(), 1187);
        Q_EMIT view.timelineView()->activated(view.timelineModel()->index(1, BreakerTimelineModel::ReasonColumn));
        QCOMPARE(callRequests.size(), 1);

        // A new transition arrives live.
        AdapterStatus github
            = view.model()->entryAt(view.model()->indexOfAdapter(QStringLiteral("github")).row()).status.value();
        github.transitions.append(transition(QStringLiteral("github"), BreakerPhase::Closed, BreakerPhase::Open,
            QStringLiteral("forced open by the operator"), 0, now()));
        Q_EMIT backend.adapterStatusesChanged({github});
        QCOMPARE(view.timelineModel()->rowCount(), 4);
        QCOMPARE(view.timelineModel()->transitionAt(0).reason, QStringLiteral("forced open by the operator"));

        // An adapter with none says so instead of an empty table.
        QVERIFY(view.selectAdapter(QStringLiteral("search")));
        QCOMPARE(view.timelineModel()->rowCount(), 0);
        QVERIFY(!view.timelineView()->isVisibleTo(&view));
    }

    void selectingAnAdapterFiltersTheCallLog()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        AdapterHealthView* view = window.adapterHealthView();
        QVERIFY(view);
        QCOMPARE(window.dockWidgetArea(view), Qt::BottomDockWidgetArea);
        // A tab beside the repositories, which stay in front.
        QVERIFY(window.tabifiedDockWidgets(window.repositoryView()).contains(view));
        QVERIFY(window.repositoryView()->isVisible());
        auto* toggle = window.findChild<QAction*>(QStringLiteral("adaptersAction"));
        QVERIFY(toggle);
        QVERIFY(window.findChild<QToolBar*>(QStringLiteral("mainToolBar"))->actions().contains(toggle));
        view->show();
        view->raise();

        Q_EMIT backend.callsUpdated(
            {call(1, QStringLiteral("github.search"), ToolRoute::adapter(QStringLiteral("github"))),
                call(2, QStringLiteral("echo"), ToolRoute::builtin()),
                call(3, QStringLiteral("jira.create_issue"), ToolRoute::adapter(QStringLiteral("jira"))),
                call(4, QStringLiteral("github.get_file"), ToolRoute::adapter(QStringLiteral("github"))),
                call(5, QStringLiteral("git_status"), ToolRoute::git())});
        publishSampleStates(backend);
        CallLogView* log = window.callLogView();
        QCOMPARE(log->proxy()->rowCount(), 5);
        QVERIFY(!log->adapterFilterChip()->isVisible());

        clickAdapter(*view, QStringLiteral("github"));
        QCOMPARE(visibleCallIds(*log->proxy()), (QList<qint64>{1, 4}));
        QVERIFY(log->adapterFilterChip()->isVisible());
        QCOMPARE(log->adapterFilterLabel()->text(), QStringLiteral("adapter: github"));
        // New calls are filtered as they arrive.
        Q_EMIT backend.callsUpdated(
            {call(6, QStringLiteral("github.search"), ToolRoute::adapter(QStringLiteral("github"))),
                call(7, QStringLiteral("echo"), ToolRoute::builtin())});
        QCOMPARE(visibleCallIds(*log->proxy()), (QList<qint64>{1, 4, 6}));
        saveScreenshot(&window, "adapters-window");

        clickAdapter(*view, QStringLiteral("jira"));
        QCOMPARE(visibleCallIds(*log->proxy()), QList<qint64>{3});
        QCOMPARE(log->adapterFilterLabel()->text(), QStringLiteral("adapter: jira"));

        // Clearing the selection shows every call again.
        view->clearSelection();
        QCOMPARE(log->proxy()->rowCount(), 7);
        QVERIFY(!log->adapterFilterChip()->isVisible());

        // Clearing the filter in the log clears the selection that set it.
        clickAdapter(*view, QStringLiteral("github"));
        QCOMPARE(log->proxy()->rowCount(), 3);
        QTest::mouseClick(log->adapterFilterClearButton(), Qt::LeftButton);
        QCOMPARE(log->proxy()->rowCount(), 7);
        QVERIFY(!log->adapterFilterChip()->isVisible());
        QCOMPARE(view->currentAdapter(), QString());

        // Asking for a call the filter hides (a question's "Show call") lifts the filter.
        clickAdapter(*view, QStringLiteral("github"));
        QVERIFY(window.showCall(3));
        QCOMPARE(log->adapterFilter(), QString());
        QCOMPARE(view->currentAdapter(), QString());

        // A transition's call, from the timeline, is selected in the log.
        clickAdapter(*view, QStringLiteral("jira"));
        Q_EMIT view->callRequested(3);
        QCOMPARE(log->tableView()->currentIndex().data(CallIdRole).toLongLong(), 3);
    }

    void screenshots()
    {
        if (qEnvironmentVariableIsEmpty("SWITCHBOARD_SCREENSHOT_DIR"))
            QSKIP("SWITCHBOARD_SCREENSHOT_DIR is not set");
        FakeOperator backend;
        AdapterHealthView view(&backend);
        view.resize(1460, 330);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        publishSampleStates(backend);
        view.selectAdapter(QStringLiteral("github"));
        saveScreenshot(&view, "adapters-light");
        auto* splitter = view.findChild<QSplitter*>(QStringLiteral("adapterSplitter"));
        QVERIFY(splitter);
        const Qt::Orientation orientation = splitter->orientation();
        splitter->setOrientation(orientation == Qt::Vertical ? Qt::Horizontal : Qt::Vertical);
        saveScreenshot(&view, "adapters-light-other-orientation");
        splitter->setOrientation(orientation);

        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
        dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
        dark.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
        dark.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
        dark.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
        dark.setColor(QPalette::HighlightedText, Qt::white);
        dark.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
        view.setPalette(dark);
        view.selectAdapter(QStringLiteral("jira"));
        saveScreenshot(&view, "adapters-dark");
    }
};

QTEST_MAIN(TestAdapterHealthView)
#include "tst_adapterhealthview.moc"
