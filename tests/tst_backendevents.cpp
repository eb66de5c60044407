// BackendEvents: bursts are coalesced into batches, each call once with its newest state, and each
// breaker, adapter, repository and transfer once per key with its newest state.

#include "events/backendevents.h"

#include <QSignalSpy>
#include <QTest>

class TestBackendEvents : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void coalescesStartAndFinish();
    void burstBecomesFewBatches();
    void flushEmitsAtOnce();
    void statesAreCoalescedPerKey();
    void eachKindHasItsOwnBatch();
    void questionsAreCoalescedAndNothingIsLost();
    void aRemovedRepositoryIsNotShownAgain();
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

// A breaker that flaps ten thousand times between two batches reaches the window once, as its
// newest state; other adapters keep the place where they first changed.
void TestBackendEvents::statesAreCoalescedPerKey()
{
    BackendEvents events;
    QSignalSpy breakers(&events, &BackendEvents::breakerStatesChanged);
    BreakerState github;
    github.adapter = QStringLiteral("github");
    BreakerState database;
    database.adapter = QStringLiteral("database");
    for (int i = 0; i < 10'000; ++i) {
        github.phase = i % 2 ? BreakerPhase::Open : BreakerPhase::Closed;
        github.consecutiveFailures = i;
        events.publishBreakerState(github);
        if (i == 1)
            events.publishBreakerState(database);
    }
    QVERIFY(breakers.wait(5000));
    QCOMPARE(breakers.size(), 1);
    const auto batch = breakers.first().first().value<BreakerStateList>();
    QCOMPARE(batch.size(), 2);
    QCOMPARE(batch.at(0).adapter, QStringLiteral("github"));
    QCOMPARE(batch.at(0).consecutiveFailures, 9999);
    QCOMPARE(batch.at(0).phase, BreakerPhase::Open);
    QCOMPARE(batch.at(1).adapter, QStringLiteral("database"));
}

void TestBackendEvents::eachKindHasItsOwnBatch()
{
    BackendEvents events;
    QSignalSpy calls(&events, &BackendEvents::callsUpdated);
    QSignalSpy adapters(&events, &BackendEvents::adapterStatusesChanged);
    QSignalSpy repositories(&events, &BackendEvents::repositoryStatesChanged);
    QSignalSpy transfers(&events, &BackendEvents::transfersChanged);
    AdapterStatus status;
    status.name = QStringLiteral("filesystem");
    status.connection = AdapterConnection::Ready;
    events.publishAdapterStatus(status);
    RepositoryState repository;
    repository.path = QStringLiteral("/srv/repo");
    repository.ahead = 1;
    events.publishRepositoryState(repository);
    repository.ahead = 2;
    events.publishRepositoryState(repository);
    TransferProgress transfer;
    transfer.id = QStringLiteral("clone-1");
    for (qint64 objects = 0; objects <= 100; ++objects) {
        transfer.receivedObjects = objects;
        events.publishTransferProgress(transfer);
    }
    events.flush();
    QCOMPARE(calls.size(), 0); // no call changed: no empty batch
    QCOMPARE(adapters.size(), 1);
    QCOMPARE(adapters.first().first().value<AdapterStatusList>().first().connection, AdapterConnection::Ready);
    QCOMPARE(repositories.size(), 1);
    QCOMPARE(repositories.first().first().value<RepositoryStateList>().size(), 1);
    QCOMPARE(repositories.first().first().value<RepositoryStateList>().first().ahead, 2);
    QCOMPARE(transfers.size(), 1);
    QCOMPARE(transfers.first().first().value<TransferProgressList>().first().receivedObjects, qint64(100));
    events.flush();
    QCOMPARE(adapters.size(), 1); // nothing new: nothing sent
}

// A question raised, changed twice and resolved within one batch is one update that still says all
// of it (raised, newest state, outcome); another question keeps its own.
void TestBackendEvents::questionsAreCoalescedAndNothingIsLost()
{
    BackendEvents events;
    QSignalSpy questions(&events, &BackendEvents::questionsUpdated);
    PendingInteraction first;
    first.id = QStringLiteral("ia-1");
    first.waiting = true;
    events.publishQuestionRaised(first);
    PendingInteraction other;
    other.id = QStringLiteral("ia-2");
    events.publishQuestionChanged(other);
    first.waiting = false;
    events.publishQuestionChanged(first);
    first.earlierCallIds << 7;
    events.publishQuestionChanged(first);
    events.publishQuestionResolved(QStringLiteral("ia-1"), InteractionOutcome::Stored);
    events.flush();
    QCOMPARE(questions.size(), 1);
    const auto batch = questions.first().first().value<QuestionUpdateList>();
    QCOMPARE(batch.size(), 2);
    QCOMPARE(batch.at(0).id, QStringLiteral("ia-1"));
    QVERIFY(batch.at(0).raised);
    QVERIFY(batch.at(0).state.has_value());
    QVERIFY(!batch.at(0).state->waiting);
    QCOMPARE(batch.at(0).state->earlierCallIds, QList<qint64>{7});
    QCOMPARE(batch.at(0).resolved, std::optional(InteractionOutcome::Stored));
    QCOMPARE(batch.at(1).id, QStringLiteral("ia-2"));
    QVERIFY(!batch.at(1).raised);
    QVERIFY(!batch.at(1).resolved.has_value());
}

// A read published just before the repository was removed used to go out in the next batch, after
// the removal: listeners (the window, the operator feed) showed the repository again.
void TestBackendEvents::aRemovedRepositoryIsNotShownAgain()
{
    BackendEvents events;
    QSignalSpy states(&events, &BackendEvents::repositoryStatesChanged);
    QSignalSpy removed(&events, &BackendEvents::repositoryRemoved);
    RepositoryState gone;
    gone.path = QStringLiteral("/work/gone");
    RepositoryState kept;
    kept.path = QStringLiteral("/work/kept");
    events.publishRepositoryState(gone);
    events.publishRepositoryState(kept);
    events.publishRepositoryRemoved(gone.path);
    QCOMPARE(removed.size(), 1); // at once
    QCOMPARE(removed.first().at(0).toString(), gone.path);
    events.flush();
    QCOMPARE(states.size(), 1);
    const auto batch = states.first().at(0).value<RepositoryStateList>();
    QCOMPARE(batch.size(), 1);
    QCOMPARE(batch.first().path, kept.path);
}

QTEST_GUILESS_MAIN(TestBackendEvents)
#include "tst_backendevents.moc"
