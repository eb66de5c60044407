// The health dashboard fed through a test double of the OperatorInterface: the charts' series follow
// the calls and the chosen scope, the sessions table ends a session by click and by the Delete key,
// a refused end shows in the status line, and security events are listed newest first.

#include <QTest>

#include "dashboardview.h"
#include "fakeoperator.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "securitybadge.h"
#include "securityeventmodel.h"
#include "sessionlistmodel.h"
#include "trafficstatsmodel.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QValueAxis>

#include <algorithm>

namespace {

ToolCall finishedNow(qint64 id, const QString& tool, const QString& client, CallStatus status, qint64 durationMs)
{
    ToolCall call;
    call.id = id;
    call.tool = tool;
    call.clientName = client;
    call.status = status;
    call.durationUs = durationMs * 1000;
    call.startedAtMs = QDateTime::currentMSecsSinceEpoch() - durationMs;
    return call;
}

// The sum of a series' y values, and its largest.
double total(const QLineSeries* series)
{
    double sum = 0;
    const QList<QPointF> points = series->points();
    for (const QPointF& point : points)
        sum += point.y();
    return sum;
}

SessionState session(const QString& id, const QString& client)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    return SessionState{id, client, QStringLiteral("1.0"), QStringLiteral("2025-06-18"), now, now, 0, false, QString()};
}

} // namespace

class TestDashboardView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chartsFollowCalls();
    void errorsAndWaitsHaveTheirOwnAxes();
    void endsSessionByClickAndKeyboard();
    void listsSecurityEvents();
    void securityEventsAreBadgedInTheStatusBar();
};

void TestDashboardView::chartsFollowCalls()
{
    FakeOperator backend;
    DashboardView view(&backend);
    // The charts end at the last whole second; a clock a second ahead shows this one.
    view.trafficModel()->setClock([] { return QDateTime::currentMSecsSinceEpoch() + 1000; });
    view.resize(1000, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(backend.sessionLists, 1);

    Q_EMIT backend.callsUpdated({
        finishedNow(1, QStringLiteral("echo"), QStringLiteral("curl"), CallStatus::Ok, 2),
        finishedNow(2, QStringLiteral("echo"), QStringLiteral("curl"), CallStatus::Ok, 4),
        finishedNow(3, QStringLiteral("debug.throw"), QStringLiteral("curl"), CallStatus::Error, 8),
        finishedNow(4, QStringLiteral("echo"), QStringLiteral("inspector"), CallStatus::Ok, 6),
    });
    view.refresh();
    QCOMPARE(view.callsSeries()->count(), view.trafficModel()->rowCount());
    // The calls may straddle a second boundary; the sums do not care.
    QCOMPARE(total(view.callsSeries()), 4.0);
    QCOMPARE(total(view.errorsSeries()), 1.0);
    QVERIFY(view.p50Series()->count() >= 1);
    QVERIFY(view.summaryLabel()->text().contains(QStringLiteral("calls/s")));

    // The scope box offers each tool and client; choosing one narrows the charts.
    QComboBox* scopes = view.scopeBox();
    const int echo = scopes->findData(QStringLiteral("tool:echo"));
    const int thrower = scopes->findData(QStringLiteral("tool:debug.throw"));
    const int inspector = scopes->findData(QStringLiteral("client:inspector"));
    QVERIFY(echo > 0 && thrower > 0 && inspector > 0);
    scopes->setFocus();
    scopes->setCurrentIndex(thrower);
    QCOMPARE(total(view.callsSeries()), 1.0);
    QCOMPARE(total(view.errorsSeries()), 1.0);
    QCOMPARE(view.p99Series()->count(), 1);
    QCOMPARE(view.p99Series()->at(0).y(), 8.0);
    scopes->setCurrentIndex(inspector);
    QCOMPARE(total(view.callsSeries()), 1.0);
    QCOMPARE(total(view.errorsSeries()), 0.0);
    scopes->setCurrentIndex(echo);
    QCOMPARE(total(view.callsSeries()), 3.0);
    // By keyboard: Home goes back to all calls.
    QTest::keyClick(scopes, Qt::Key_Home);
    QCOMPARE(scopes->currentIndex(), 0);
    QCOMPARE(total(view.callsSeries()), 4.0);

    // A new tool keeps the chosen scope.
    scopes->setCurrentIndex(echo);
    Q_EMIT backend.callsUpdated(
        {finishedNow(5, QStringLiteral("git_status"), QStringLiteral("curl"), CallStatus::Ok, 1)});
    QVERIFY(scopes->findData(QStringLiteral("tool:git_status")) > 0);
    QCOMPARE(scopes->currentData().toString(), QStringLiteral("tool:echo"));
}

// A few errors among many calls, and a person's 21 s wait beside 3 ms latencies: each on a scale of
// its own at the right, so neither reads as zero against the other.
void TestDashboardView::errorsAndWaitsHaveTheirOwnAxes()
{
    FakeOperator backend;
    DashboardView view(&backend);
    view.trafficModel()->setClock([] { return QDateTime::currentMSecsSinceEpoch() + 1000; });
    view.resize(1000, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    ToolCallList calls;
    for (qint64 id = 1; id <= 500; ++id)
        calls.append(finishedNow(id, QStringLiteral("echo"), QStringLiteral("curl"), CallStatus::Ok, 3));
    calls.append(finishedNow(501, QStringLiteral("debug.throw"), QStringLiteral("curl"), CallStatus::ToolError, 3));
    ToolCall approved = finishedNow(502, QStringLiteral("write"), QStringLiteral("curl"), CallStatus::Ok, 21'003);
    approved.startedAtMs = QDateTime::currentMSecsSinceEpoch() - 21'003;
    approved.waitedUs = 21'000'000;
    calls.append(approved);
    Q_EMIT backend.callsUpdated(calls);
    view.refresh();

    const auto axisOf = [](QLineSeries* series, Qt::Orientation orientation) -> QValueAxis* {
        const QList<QAbstractAxis*> axes = series->attachedAxes();
        for (QAbstractAxis* axis : axes) {
            if (axis->orientation() == orientation)
                return qobject_cast<QValueAxis*>(axis);
        }
        return nullptr;
    };
    QValueAxis* callsAxis = axisOf(view.callsSeries(), Qt::Vertical);
    QValueAxis* errorsAxis = axisOf(view.errorsSeries(), Qt::Vertical);
    QVERIFY(callsAxis && errorsAxis);
    QVERIFY(callsAxis != errorsAxis);
    QVERIFY(errorsAxis->alignment() == Qt::AlignRight);
    QVERIFY2(callsAxis->max() >= 500, qPrintable(QString::number(callsAxis->max())));
    QCOMPARE(errorsAxis->max(), 1.0); // one error a second fills its own scale

    // The latency is the running time (3 ms); the wait is its own line, in seconds, on its own axis.
    QValueAxis* latencyAxis = axisOf(view.p99Series(), Qt::Vertical);
    QValueAxis* waitedAxis = axisOf(view.waitedSeries(), Qt::Vertical);
    QVERIFY(latencyAxis && waitedAxis && latencyAxis != waitedAxis);
    QCOMPARE(latencyAxis->max(), 5.0);
    double longest = 0;
    for (const QPointF& point : view.waitedSeries()->points())
        longest = std::max(longest, point.y());
    QCOMPARE(longest, 21.0);
    QCOMPARE(waitedAxis->max(), 50.0);
}

void TestDashboardView::endsSessionByClickAndKeyboard()
{
    FakeOperator backend;
    DashboardView view(&backend);
    view.resize(1000, 320);
    view.show();
    QApplication::setActiveWindow(&view);
    QVERIFY(QTest::qWaitForWindowActive(&view));
    view.tabs()->setCurrentIndex(1);

    Q_EMIT backend.sessionsListed({session(QStringLiteral("s-one"), QStringLiteral("claude-code")),
        session(QStringLiteral("s-two"), QStringLiteral("inspector"))});
    QTableView* table = view.sessionTable();
    QCOMPARE(table->model()->rowCount(), 2);
    QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Sessions (2)"));
    QVERIFY(!view.endSessionButton()->isEnabled());

    // By click: select the second row, press the button.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(table->model()->index(1, 0)).center());
    QVERIFY(view.endSessionButton()->isEnabled());
    QTest::mouseClick(view.endSessionButton(), Qt::LeftButton);
    QCOMPARE(backend.sessionEnds, QStringList{QStringLiteral("s-two")});
    QVERIFY(view.statusLabel()->text().contains(QStringLiteral("inspector")));

    // The backend says it ended: the row goes.
    SessionState ended = session(QStringLiteral("s-two"), QStringLiteral("inspector"));
    ended.ended = true;
    Q_EMIT backend.sessionStatesChanged({ended});
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Sessions (1)"));

    // By keyboard: focus the table, move to the row, Delete.
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    QTest::keyClick(table, Qt::Key_Home);
    QCOMPARE(table->currentIndex().row(), 0);
    QTest::keyClick(table, Qt::Key_Delete);
    QCOMPARE(backend.sessionEnds, (QStringList{QStringLiteral("s-two"), QStringLiteral("s-one")}));

    // A refusal shows in the status line.
    Q_EMIT backend.commandFailed(QStringLiteral("endSession"), QStringLiteral("There is no session s-one"));
    QVERIFY(view.statusLabel()->text().contains(QStringLiteral("There is no session s-one")));
    // Another view's command is not this view's business.
    Q_EMIT backend.commandFailed(QStringLiteral("resetBreaker"), QStringLiteral("adapter problem"));
    QVERIFY(!view.statusLabel()->text().contains(QStringLiteral("adapter problem")));

    // The button has no mnemonic (Alt+E opens the window's Edit menu); Delete on the table ends the
    // current row's session once a row is current again.
    QVERIFY(!view.endSessionButton()->text().contains(QLatin1Char('&')));
    Q_EMIT backend.sessionStatesChanged({session(QStringLiteral("s-three"), QStringLiteral("curl"))});
    table->setFocus();
    QTest::keyClick(table, Qt::Key_End, Qt::ControlModifier);
    QCOMPARE(table->currentIndex().row(), 1);
    QTest::keyClick(table, Qt::Key_Delete);
    QTRY_COMPARE_WITH_TIMEOUT(backend.sessionEnds.last(), QStringLiteral("s-three"), 10'000);
}

void TestDashboardView::listsSecurityEvents()
{
    FakeOperator backend;
    DashboardView view(&backend);
    view.resize(1000, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Q_EMIT backend.securityEventsRecorded({
        {now - 2000, SecurityEventKind::MissingToken, QStringLiteral("127.0.0.1"),
            QStringLiteral("/mcp: no bearer token")},
        {now - 1000, SecurityEventKind::BadOrigin, QStringLiteral("127.0.0.1"),
            QStringLiteral("/mcp: Origin \"http://evil.example\" is not allowed")},
    });
    Q_EMIT backend.securityEventsRecorded(
        {{now, SecurityEventKind::BadHost, QStringLiteral("::1"), QStringLiteral("/mcp: Host \"x.example\"")}});
    QCOMPARE(view.tabs()->tabText(2), QStringLiteral("Security events (3)"));
    QTableView* table = view.securityTable();
    const QAbstractItemModel* model = table->model();
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->index(0, SecurityEventModel::KindColumn).data().toString(), QStringLiteral("Host refused"));
    QCOMPARE(model->index(0, SecurityEventModel::RemoteColumn).data().toString(), QStringLiteral("::1"));
    QCOMPARE(model->index(1, SecurityEventModel::KindColumn).data().toString(), QStringLiteral("Origin refused"));
    QVERIFY(
        model->index(1, SecurityEventModel::DetailColumn).data().toString().contains(QStringLiteral("evil.example")));
    QCOMPARE(model->index(2, SecurityEventModel::KindColumn).data().toString(), QStringLiteral("No token"));
}

// A refused request is badged in the main window's status bar (the Health dock is usually a tab
// behind others); the badge counts until the person looks, and clicking it shows the events.
void TestDashboardView::securityEventsAreBadgedInTheStatusBar()
{
    FakeOperator backend;
    MainWindow window(&backend, 100, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* badge = window.findChild<SecurityBadge*>(QStringLiteral("securityBadge"));
    QVERIFY(badge);
    QVERIFY(!badge->isVisible());
    auto* dashboard = window.findChild<DashboardView*>();
    QVERIFY(dashboard);
    QVERIFY(!dashboard->isShowingSecurityEvents());

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Q_EMIT backend.securityEventsRecorded(
        {{now, SecurityEventKind::MissingToken, QStringLiteral("127.0.0.1"), QStringLiteral("/mcp: no bearer token")},
            {now, SecurityEventKind::BadOrigin, QStringLiteral("127.0.0.1"), QStringLiteral("/mcp: Origin")}});
    QVERIFY(badge->isVisible());
    QCOMPARE(badge->text(), QStringLiteral("2 security events"));
    QVERIFY(badge->toolTip().contains(QStringLiteral("Origin refused")));
    QVERIFY(window.statusBar()->isAncestorOf(badge));

    QTest::mouseClick(badge, Qt::LeftButton);
    QTRY_VERIFY(dashboard->isShowingSecurityEvents());
    QVERIFY(!badge->isVisible());
    // Seen as they come while the tab is shown: no badge.
    Q_EMIT backend.securityEventsRecorded(
        {{now, SecurityEventKind::BadHost, QStringLiteral("::1"), QStringLiteral("/mcp: Host")}});
    QVERIFY(!badge->isVisible());
    // Elsewhere again, the next one is badged.
    dashboard->tabs()->setCurrentIndex(0);
    Q_EMIT backend.securityEventsRecorded(
        {{now, SecurityEventKind::BadHost, QStringLiteral("::1"), QStringLiteral("/mcp: Host")}});
    QVERIFY(badge->isVisible());
    QCOMPARE(badge->text(), QStringLiteral("1 security event"));
}

QTEST_MAIN(TestDashboardView)
#include "tst_dashboardview.moc"
