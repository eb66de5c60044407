// The health dashboard's models: traffic buckets with exact figures from a fixed set of calls, the
// bounds (window, series folded into "(other)", samples per second), and the session and security
// event lists, each under QAbstractItemModelTester; and the JSON form of their value types.

#include <QTest>

#include "modelroles.h"
#include "securityeventmodel.h"
#include "sessionlistmodel.h"
#include "trafficstatsmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>

namespace {

constexpr qint64 NowSecond = 1'800'000'000;

// A call that finished `offsetMs` after the start of second `second`, taking `durationMs`.
ToolCall finished(qint64 id, const QString& tool, const QString& client, CallStatus status, qint64 second,
    qint64 offsetMs, qint64 durationMs)
{
    ToolCall call;
    call.id = id;
    call.tool = tool;
    call.clientName = client;
    call.status = status;
    call.durationUs = durationMs * 1000;
    call.startedAtMs = second * 1000 + offsetMs - durationMs;
    return call;
}

double figure(const TrafficStatsModel& model, int row, int column)
{
    return model.index(row, column).data(SortRole).toDouble();
}

} // namespace

class TestDashboardModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bucketsGiveExactFigures();
    void windowMovesAndForgets();
    void seriesAreCappedAndFolded();
    void samplesAreBounded();
    void errorsAreEveryFailedFinish();
    void latencyIsRunningTimeAndWaitingIsItsOwnFigure();
    void sessionListFollowsStates();
    void securityEventsNewestFirstAndBounded();
    void valueTypesRoundTripThroughJson();
};

// A call that waited 21 s for a person and ran 3 ms counts 3 ms of latency: the wait is the
// person's, and counted in, it would make every real latency of the chart read as zero.
void TestDashboardModels::latencyIsRunningTimeAndWaitingIsItsOwnFigure()
{
    qint64 now = (NowSecond + 1) * 1000 + 500;
    TrafficStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setClock([&now] { return now; });
    model.setWindowSeconds(10);
    ToolCall approved
        = finished(1, QStringLiteral("write"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond, 100, 21'003);
    approved.waitedUs = 21'000'000;
    model.addCalls(
        {approved, finished(2, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond, 200, 1),
            finished(3, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond - 1, 200, 2)});
    const int last = 9;
    QCOMPARE(figure(model, last, TrafficStatsModel::P99Column), 3.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::WaitedColumn), 21'000.0);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::WaitedColumn), -1.0); // no one waited that second
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::P99Column), 2.0);
    QCOMPARE(model.figures({}, 10).p99Us, qint64(3'000));
}

void TestDashboardModels::bucketsGiveExactFigures()
{
    // Half a second into the next second: NowSecond is the last whole one, the window's end.
    qint64 now = (NowSecond + 1) * 1000 + 500;
    TrafficStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setClock([&now] { return now; });
    model.setWindowSeconds(60);
    QCOMPARE(model.rowCount(), 60);
    QCOMPARE(model.columnCount(), int(TrafficStatsModel::NumColumns));

    ToolCall running
        = finished(9, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Running, NowSecond, 0, 1);
    running.durationUs = -1;
    ToolCall paused
        = finished(10, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Paused, NowSecond, 0, 1);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.addCalls({
        // The second before now: four echo calls from alpha, one failed and one cancelled.
        finished(1, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond - 1, 100, 1),
        finished(2, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond - 1, 200, 2),
        finished(3, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Error, NowSecond - 1, 300, 3),
        finished(4, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Cancelled, NowSecond - 1, 400, 4),
        // Now: two debug.throw calls from beta, one failed.
        finished(5, QStringLiteral("debug.throw"), QStringLiteral("beta"), CallStatus::Error, NowSecond, 100, 10),
        finished(6, QStringLiteral("debug.throw"), QStringLiteral("beta"), CallStatus::Ok, NowSecond, 200, 30),
        // Not counted: not finished, and older than the window.
        running,
        paused,
        finished(7, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond - 100, 0, 1),
    });
    QCOMPARE(changed.size(), 1);
    // A call published finished twice counts once.
    model.addCalls(
        {finished(1, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond - 1, 100, 1)});

    const int last = 59;
    QCOMPARE(figure(model, last, TrafficStatsModel::TimeColumn), double(NowSecond * 1000));
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::TimeColumn), double((NowSecond - 1) * 1000));
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::CallsColumn), 4.0);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::ErrorsColumn), 1.0);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::ErrorRateColumn), 25.0);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::P50Column), 2.0); // nearest rank 2 of 4
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::P99Column), 4.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::CallsColumn), 2.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::ErrorRateColumn), 50.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::P50Column), 10.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::P99Column), 30.0);
    QCOMPARE(figure(model, 0, TrafficStatsModel::CallsColumn), 0.0);
    QCOMPARE(figure(model, 0, TrafficStatsModel::P50Column), -1.0);
    QCOMPARE(model.index(last, TrafficStatsModel::ErrorRateColumn).data().toString(),
        QLocale().toString(50.0, 'f', 1) + u'%');

    const TrafficStatsModel::Figures overall = model.figures({}, 10);
    QCOMPARE(overall.calls, 6);
    QCOMPARE(overall.errors, 2);
    QCOMPARE(overall.callsPerSecond, 0.6);
    QCOMPARE(overall.errorRate, 2.0 / 6.0);
    QCOMPARE(overall.p50Us, 3'000); // rank 3 of {1, 2, 3, 4, 10, 30} ms
    QCOMPARE(overall.p99Us, 30'000);

    QCOMPARE(model.toolNames(), (QStringList{QStringLiteral("echo"), QStringLiteral("debug.throw")}));
    QCOMPARE(model.clientNames(), (QStringList{QStringLiteral("alpha"), QStringLiteral("beta")}));

    const TrafficStatsModel::Scope echo{TrafficStatsModel::ScopeKind::Tool, QStringLiteral("echo")};
    const TrafficStatsModel::Figures echoFigures = model.figures(echo, 10);
    QCOMPARE(echoFigures.calls, 4);
    QCOMPARE(echoFigures.errors, 1);
    QCOMPARE(echoFigures.p50Us, 2'000);

    changed.clear();
    model.setScope({TrafficStatsModel::ScopeKind::Client, QStringLiteral("beta")});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::CallsColumn), 0.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::CallsColumn), 2.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::ErrorsColumn), 1.0);
    model.setScope(echo);
    QCOMPARE(figure(model, last - 1, TrafficStatsModel::CallsColumn), 4.0);
    QCOMPARE(figure(model, last, TrafficStatsModel::CallsColumn), 0.0);
}

void TestDashboardModels::windowMovesAndForgets()
{
    qint64 now = (NowSecond + 1) * 1000;
    TrafficStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setClock([&now] { return now; });
    model.setWindowSeconds(60);
    model.addCalls({finished(1, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond, 0, 5)});
    QCOMPARE(figure(model, 59, TrafficStatsModel::CallsColumn), 1.0);
    QVERIFY(model.sampleBytes() > 0);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    now += 3'000;
    model.advance();
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.rowCount(), 60);
    QCOMPARE(figure(model, 59, TrafficStatsModel::CallsColumn), 0.0);
    QCOMPARE(figure(model, 56, TrafficStatsModel::CallsColumn), 1.0);
    QCOMPARE(model.figures({}, 10).calls, 1);
    QCOMPARE(model.figures({}, 3).calls, 0);

    // Past the window: forgotten, samples given back.
    now += 60'000;
    model.advance();
    QCOMPARE(model.figures({}, 60).calls, 0);
    QCOMPARE(model.sampleBytes(), 0);
    for (int row = 0; row < model.rowCount(); ++row)
        QCOMPARE(figure(model, row, TrafficStatsModel::CallsColumn), 0.0);

    model.clear();
    QVERIFY(model.toolNames().isEmpty());
}

void TestDashboardModels::seriesAreCappedAndFolded()
{
    qint64 now = (NowSecond + 1) * 1000;
    TrafficStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setClock([&now] { return now; });
    QSignalSpy names(&model, &TrafficStatsModel::seriesNamesChanged);
    ToolCallList calls;
    const int tools = TrafficStatsModel::MaxNamedSeries + 3;
    for (int i = 0; i < tools; ++i) {
        calls.append(finished(i + 1, QStringLiteral("tool%1").arg(i), QStringLiteral("client%1").arg(i), CallStatus::Ok,
            NowSecond, 0, 1));
    }
    model.addCalls(calls);
    QCOMPARE(names.size(), 1);
    const QStringList toolNames = model.toolNames();
    QCOMPARE(toolNames.size(), TrafficStatsModel::MaxNamedSeries + 1);
    QCOMPARE(toolNames.first(), QStringLiteral("tool0"));
    QCOMPARE(toolNames.last(), TrafficStatsModel::otherName());
    QCOMPARE(model.clientNames().size(), TrafficStatsModel::MaxNamedSeries + 1);
    const TrafficStatsModel::Scope other{TrafficStatsModel::ScopeKind::Tool, TrafficStatsModel::otherName()};
    QCOMPARE(model.figures(other, 1).calls, 3);
    QCOMPARE(model.figures({TrafficStatsModel::ScopeKind::Tool, QStringLiteral("tool0")}, 1).calls, 1);
    QCOMPARE(model.figures({TrafficStatsModel::ScopeKind::Tool, QStringLiteral("tool14")}, 1).calls, 0);
    QCOMPARE(model.figures({}, 1).calls, tools);
}

void TestDashboardModels::samplesAreBounded()
{
    qint64 now = (NowSecond + 1) * 1000;
    TrafficStatsModel model;
    model.setClock([&now] { return now; });
    ToolCallList calls;
    for (int i = 0; i < 1000; ++i)
        calls.append(finished(
            i + 1, QStringLiteral("echo"), QStringLiteral("alpha"), CallStatus::Ok, NowSecond, 0, 1 + i % 100));
    model.addCalls(calls);
    // One second, one tool, one client: each series keeps at most its cap of latencies.
    QCOMPARE(model.sampleBytes(),
        qint64(TrafficStatsModel::OverallSamplesPerSecond + 2 * TrafficStatsModel::SeriesSamplesPerSecond)
            * qint64(sizeof(quint32)));
    const TrafficStatsModel::Figures figures = model.figures({}, 1);
    QCOMPARE(figures.calls, 1000);
    // A uniform sample of 1..100 ms: the median lies well inside.
    QVERIFY2(figures.p50Us > 20'000 && figures.p50Us < 80'000, qPrintable(QString::number(figures.p50Us)));
}

void TestDashboardModels::errorsAreEveryFailedFinish()
{
    ToolCall call;
    const QList<CallStatus> notErrors{CallStatus::Running, CallStatus::Paused, CallStatus::Ok, CallStatus::Cancelled,
        CallStatus::Declined, CallStatus::Parked};
    const QList<CallStatus> errors{CallStatus::Error, CallStatus::Denied, CallStatus::InvalidArguments,
        CallStatus::UnknownTool, CallStatus::TimedOut, CallStatus::BreakerOpen, CallStatus::UpstreamError,
        CallStatus::ToolError};
    QCOMPARE(notErrors.size() + errors.size(), allCallStatuses().size());
    for (CallStatus status : notErrors) {
        call.status = status;
        QVERIFY2(!TrafficStatsModel::isError(call), qPrintable(callStatusName(status)));
    }
    for (CallStatus status : errors) {
        call.status = status;
        QVERIFY2(TrafficStatsModel::isError(call), qPrintable(callStatusName(status)));
    }

    // In the figures: a denial and a timeout are errors, a declined question is not.
    qint64 now = (NowSecond + 1) * 1000;
    TrafficStatsModel model;
    model.setClock([&now] { return now; });
    model.addCalls({
        finished(1, QStringLiteral("write"), QStringLiteral("a"), CallStatus::Denied, NowSecond, 0, 1),
        finished(2, QStringLiteral("slow"), QStringLiteral("a"), CallStatus::TimedOut, NowSecond, 0, 1),
        finished(3, QStringLiteral("ask"), QStringLiteral("a"), CallStatus::Declined, NowSecond, 0, 1),
        finished(4, QStringLiteral("echo"), QStringLiteral("a"), CallStatus::Ok, NowSecond, 0, 1),
    });
    const TrafficStatsModel::Figures figures = model.figures({}, 1);
    QCOMPARE(figures.calls, 4);
    QCOMPARE(figures.errors, 2);
    QCOMPARE(figures.errorRate, 0.5);
}

void TestDashboardModels::sessionListFollowsStates()
{
    SessionListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const SessionState a{QStringLiteral("aaaaaaaaaaaa"), QStringLiteral("claude-code"), QStringLiteral("2.0"),
        QStringLiteral("2025-06-18"), 1000, 2000, 3, false, {}};
    const SessionState b{QStringLiteral("bbbbbbbbbbbb"), QStringLiteral("inspector"), QStringLiteral("0.9"),
        QStringLiteral("2025-03-26"), 1500, 1500, 0, false, {}};
    SessionState gone = b;
    gone.id = QStringLiteral("gone");
    gone.ended = true;
    model.setSessions({a, b, gone});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, SessionListModel::ClientColumn).data().toString(), QStringLiteral("claude-code"));
    QCOMPARE(model.index(0, SessionListModel::CallsColumn).data().toLongLong(), 3);
    QCOMPARE(model.index(1, 0).data(SessionIdRole).toString(), b.id);
    QCOMPARE(model.index(1, SessionListModel::SessionColumn).data().toString(), QStringLiteral("bbbbbbbb…"));

    SessionState busier = b;
    busier.calls = 7;
    busier.lastActivityMs = 9000;
    const SessionState c{QStringLiteral("cccc"), QStringLiteral("curl"), QStringLiteral("8"),
        QStringLiteral("2025-06-18"), 3000, 3000, 0, false, {}};
    SessionState aEnded = a;
    aEnded.ended = true;
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.applySessionStates({busier, c, aEnded, gone});
    QCOMPARE(removed.size(), 1);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.session(0), busier);
    QCOMPARE(model.session(1), c);
    QCOMPARE(model.rowOf(c.id), 1);
    QCOMPARE(model.rowOf(a.id), -1);
    QCOMPARE(model.index(0, SessionListModel::LastActivityColumn).data(SortRole).toLongLong(), 9000);
}

void TestDashboardModels::securityEventsNewestFirstAndBounded()
{
    SecurityEventModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy totals(&model, &SecurityEventModel::totalChanged);
    SecurityEventList events;
    for (int i = 0; i < 3; ++i) {
        events.append(
            {1000 + i, SecurityEventKind(i % 4), QStringLiteral("127.0.0.1"), QStringLiteral("/mcp: event %1").arg(i)});
    }
    model.addEvents(events);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.eventAt(0).detail, QStringLiteral("/mcp: event 2"));
    QCOMPARE(model.eventAt(2).detail, QStringLiteral("/mcp: event 0"));
    QCOMPARE(model.index(0, SecurityEventModel::KindColumn).data().toString(),
        SecurityEventModel::kindLabel(SecurityEventKind::BadOrigin));
    QCOMPARE(model.index(0, SecurityEventModel::RemoteColumn).data().toString(), QStringLiteral("127.0.0.1"));
    QCOMPARE(totals.size(), 1);

    SecurityEventList flood;
    for (int i = 0; i < 600; ++i)
        flood.append(
            {5000 + i, SecurityEventKind::WrongToken, QStringLiteral("10.0.0.9"), QStringLiteral("/mcp: %1").arg(i)});
    model.addEvents(flood);
    QCOMPARE(model.rowCount(), SecurityEventModel::MaxEvents);
    QCOMPARE(model.total(), 603);
    QCOMPARE(model.eventAt(0).atMs, 5599);
    QCOMPARE(model.eventAt(SecurityEventModel::MaxEvents - 1).atMs, 5100);
    model.addEvents({{9000, SecurityEventKind::BadHost, QStringLiteral("::1"), QStringLiteral("/mcp: host")}});
    QCOMPARE(model.rowCount(), SecurityEventModel::MaxEvents);
    QCOMPARE(model.eventAt(0).atMs, 9000);
    QCOMPARE(model.eventAt(SecurityEventModel::MaxEvents - 1).atMs, 5101);
}

void TestDashboardModels::valueTypesRoundTripThroughJson()
{
    const SessionState session{QStringLiteral("id"), QStringLiteral("c"), QStringLiteral("1"),
        QStringLiteral("2025-06-18"), 1, 2, 3, true, {}};
    QString problem;
    QCOMPARE(SessionState::fromJson(session.toJson(), &problem), session);
    nlohmann::json extra = session.toJson();
    extra["token"] = "x";
    QVERIFY(!SessionState::fromJson(extra, &problem));
    QVERIFY(problem.contains(QStringLiteral("token")));

    const SecurityEvent event{7, SecurityEventKind::BadHost, QStringLiteral("127.0.0.1"), QStringLiteral("/mcp: d")};
    QCOMPARE(SecurityEvent::fromJson(event.toJson(), &problem), event);
    QCOMPARE(event.toJson()["kind"].get<std::string>(), std::string("bad_host"));
    nlohmann::json unknownKind = event.toJson();
    unknownKind["kind"] = "bad_luck";
    QVERIFY(!SecurityEvent::fromJson(unknownKind, &problem));
    QVERIFY(problem.contains(QStringLiteral("bad_luck")));
}

QTEST_GUILESS_MAIN(TestDashboardModels)
#include "tst_dashboardmodels.moc"
