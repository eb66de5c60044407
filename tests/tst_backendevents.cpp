// BackendEvents: bursts are coalesced into batches, each call once with its newest state.

#include "backendevents.h"

#include <QSignalSpy>
#include <QTest>

class TestBackendEvents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void coalescesStartAndFinish();
    void burstBecomesFewBatches();
    void flushEmitsAtOnce();
};

namespace {
ToolCall call(qint64 id, CallStatus status)
{
    ToolCall c;
    c.id = id;
    c.tool = QStringLiteral("echo");
    c.status = status;
    return c;
}
} // namespace

void TestBackendEvents::coalescesStartAndFinish()
{
    BackendEvents events;
    QSignalSpy batches(&events, &BackendEvents::callsUpdated);
    QSignalSpy started(&events, &BackendEvents::callStarted);
    events.publishCallStarted(call(1, CallStatus::Running));
    events.publishCallStarted(call(2, CallStatus::Running));
    events.publishCallFinished(call(1, CallStatus::Ok));
    QCOMPARE(started.size(), 2); // direct signals are not coalesced
    QVERIFY(batches.wait(5000));
    QCOMPARE(batches.size(), 1);
    const auto batch = batches.first().first().value<ToolCallList>();
    QCOMPARE(batch.size(), 2);
    QCOMPARE(batch.at(0).id, qint64(1));
    QCOMPARE(batch.at(0).status, CallStatus::Ok); // newest state, original position
    QCOMPARE(batch.at(1).status, CallStatus::Running);
}

void TestBackendEvents::burstBecomesFewBatches()
{
    BackendEvents events;
    QSignalSpy batches(&events, &BackendEvents::callsUpdated);
    for (int i = 1; i <= 5000; ++i) {
        events.publishCallStarted(call(i, CallStatus::Running));
        events.publishCallFinished(call(i, CallStatus::Ok));
    }
    QVERIFY(batches.wait(5000));
    QCOMPARE(batches.size(), 1);
    QCOMPARE(batches.first().first().value<ToolCallList>().size(), 5000);
}

void TestBackendEvents::flushEmitsAtOnce()
{
    BackendEvents events;
    QSignalSpy batches(&events, &BackendEvents::callsUpdated);
    events.publishCallFinished(call(1, CallStatus::Error));
    events.flush();
    QCOMPARE(batches.size(), 1);
    events.flush(); // nothing pending: nothing emitted
    QCOMPARE(batches.size(), 1);
}

QTEST_GUILESS_MAIN(TestBackendEvents)
#include "tst_backendevents.moc"
