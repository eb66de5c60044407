// CircuitBreaker's state machine on a fake clock, exact to the millisecond: data-driven scripts of
// admissions, outcomes, clock steps and operator commands, the refusals' words, the transitions
// announced, the counters, and half-open's limit under concurrent callers.

#include "adapters/circuitbreaker.h"

#include <QTest>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

namespace {

struct FakeClock
{
    qint64 now = 0;
    CircuitBreaker::Clock clock()
    {
        return CircuitBreaker::Clock{[this] { return now; }, [this] { return 1'700'000'000'000 + now; }};
    }
};

QString phaseLetter(BreakerPhase phase)
{
    switch (phase) {
    case BreakerPhase::Closed:
        return QStringLiteral("C");
    case BreakerPhase::Open:
        return QStringLiteral("O");
    case BreakerPhase::HalfOpen:
        return QStringLiteral("H");
    }
    return QStringLiteral("?");
}

} // namespace

class TestCircuitBreaker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void script_data();
    void script();
    void refusalsSayWhyAndWhen();
    void transitionsAreAnnouncedInOrder();
    void countersCountEveryOutcome();
    void refreshMovesToHalfOpenWithoutACall();
    void halfOpenNeverAdmitsMoreThanItsLimitConcurrently();
    void transitionsFromManyThreadsAreAnnouncedInOrder();
    void aTransitionAListenerCausesFollowsTheOneAnnounced();
};

// Steps, separated by spaces:
//   a+  admit, expecting admission     a-  admit, expecting refusal     ap  admit as a probe
//   s f c x  the outcome of the oldest admitted call still open: success, failure, cancelled,
//            authentication failure
//   t<ms>  the clock moves on          R  reset          O  force open
//   =C =O =H  the phase now             #<n>  consecutive failures now
void TestCircuitBreaker::script_data()
{
    QTest::addColumn<int>("threshold");
    QTest::addColumn<int>("recoveryMs");
    QTest::addColumn<int>("halfOpenMax");
    QTest::addColumn<QString>("steps");

    QTest::newRow("one failure short of the threshold stays closed") << 3 << 1000 << 1 << "a+ f a+ f =C #2 a+";
    QTest::newRow("the threshold opens it, and it refuses") << 3 << 1000 << 1 << "a+ f a+ f a+ f =O #3 a-";
    QTest::newRow("a success resets the count") << 3 << 1000 << 1 << "a+ f a+ f a+ s #0 a+ f a+ f =C a+ f =O";
    QTest::newRow("threshold one") << 1 << 1000 << 1 << "a+ f =O a-";
    QTest::newRow("cancellations and authentication failures never trip it")
        << 1 << 1000 << 1 << "a+ c a+ x a+ x a+ c =C #0 a+";
    QTest::newRow("open one millisecond before the recovery timeout") << 1 << 1000 << 1 << "a+ f =O t999 a- =O";
    QTest::newRow("half-open at the recovery timeout") << 1 << 1000 << 1 << "a+ f t1000 =O ap =H";
    QTest::newRow("half-open one millisecond after it") << 1 << 1000 << 1 << "a+ f t1001 ap =H";
    QTest::newRow("half-open admits exactly its limit") << 1 << 1000 << 2 << "a+ f t1000 ap ap a- a- =H";
    QTest::newRow("a probe's success closes and resets the count")
        << 2 << 1000 << 1 << "a+ f a+ f =O t1000 ap s =C #0 a+ f =C";
    QTest::newRow("a probe's failure opens it again for a whole recovery timeout")
        << 1 << 1000 << 1 << "a+ f t1000 ap t500 f =O a- t999 a- t1 ap =H";
    QTest::newRow("a cancelled probe frees its place") << 1 << 1000 << 1 << "a+ f t1000 ap a- c ap =H";
    QTest::newRow("an authentication failure of a probe frees its place, nothing more")
        << 1 << 1000 << 1 << "a+ f t1000 ap x =H ap";
    QTest::newRow("a slow call failing after the breaker opened does not restart its time")
        << 1 << 1000 << 1 << "a+ a+ f t600 f =O t400 ap";
    QTest::newRow("a slow call succeeding after the breaker opened does not close it")
        << 1 << 1000 << 1 << "a+ a+ f =O s =O a-";
    QTest::newRow("a call admitted before a reset counts for nothing after it")
        << 2 << 1000 << 1 << "a+ a+ f R f #0 =C";
    QTest::newRow("reset closes an open breaker") << 1 << 1000 << 1 << "a+ f =O R =C #0 a+";
    QTest::newRow("reset closes a half-open one and forgets its probes")
        << 1 << 1000 << 1 << "a+ f t1000 ap =H R =C a+ s";
    QTest::newRow("forced open refuses and never turns half-open") << 5 << 1000 << 1 << "O =O a- t100000 a- =O R =C a+";
    QTest::newRow("forcing open an open breaker keeps it open until reset")
        << 1 << 1000 << 1 << "a+ f O t5000 a- =O R a+";
}

void TestCircuitBreaker::script()
{
    QFETCH(int, threshold);
    QFETCH(int, recoveryMs);
    QFETCH(int, halfOpenMax);
    QFETCH(QString, steps);
    FakeClock time;
    CircuitBreaker breaker(QStringLiteral("upstream"),
        CircuitBreaker::Settings{threshold, std::chrono::milliseconds(recoveryMs), halfOpenMax}, time.clock());
    std::deque<CircuitBreaker::Admission> open;
    int index = 0;
    for (const QString& step : steps.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QByteArray where = QStringLiteral("step %1 (\"%2\") of \"%3\"").arg(index++).arg(step, steps).toUtf8();
        const QChar kind = step.at(0);
        if (kind == QLatin1Char('a')) {
            const CircuitBreaker::Admission admission = breaker.admit();
            if (step == QLatin1String("a-")) {
                QVERIFY2(!admission.admitted, where.constData());
                QVERIFY2(!admission.refusal.isEmpty(), where.constData());
            } else {
                QVERIFY2(admission.admitted, where.constData());
                QVERIFY2(admission.probe == (step == QLatin1String("ap")), where.constData());
                open.push_back(admission);
            }
        } else if (QStringLiteral("sfcx").contains(kind) && step.size() == 1) {
            QVERIFY2(!open.empty(), where.constData());
            const CircuitBreaker::Outcome outcome = kind == QLatin1Char('s') ? CircuitBreaker::Outcome::Success
                : kind == QLatin1Char('f')                                   ? CircuitBreaker::Outcome::Failure
                : kind == QLatin1Char('c')                                   ? CircuitBreaker::Outcome::Cancelled
                                           : CircuitBreaker::Outcome::AuthenticationFailure;
            breaker.record(open.front(), outcome, QStringLiteral("HTTP 503"));
            open.pop_front();
        } else if (kind == QLatin1Char('t')) {
            time.now += step.mid(1).toLongLong();
        } else if (step == QLatin1String("R")) {
            breaker.reset();
        } else if (step == QLatin1String("O")) {
            breaker.forceOpen();
        } else if (kind == QLatin1Char('=')) {
            QVERIFY2(phaseLetter(breaker.state().phase) == step.mid(1),
                QByteArray(where + " phase " + phaseLetter(breaker.state().phase).toUtf8()).constData());
        } else if (kind == QLatin1Char('#')) {
            QVERIFY2(breaker.state().consecutiveFailures == step.mid(1).toInt(),
                QByteArray(where + " count " + QByteArray::number(breaker.state().consecutiveFailures)).constData());
        } else {
            QFAIL(QByteArray("unknown step " + where).constData());
        }
    }
}

void TestCircuitBreaker::refusalsSayWhyAndWhen()
{
    FakeClock time;
    CircuitBreaker breaker(
        QStringLiteral("data%1base"), CircuitBreaker::Settings{2, std::chrono::milliseconds(30'000), 1}, time.clock());
    for (int i = 0; i < 2; ++i)
        breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("connection refused"));
    time.now += 12'345;
    CircuitBreaker::Admission refused = breaker.admit();
    QVERIFY(!refused.admitted);
    QCOMPARE(refused.retryInMs, qint64(17'655));
    QCOMPARE(refused.refusal,
        QStringLiteral("Circuit breaker for adapter data%1base is open after 2 consecutive failure(s) (last: "
                       "connection refused); next try in 17655 ms."));
    const BreakerState state = breaker.state();
    QCOMPARE(state.retryAtMs, state.changedAtMs + 30'000);
    QCOMPARE(state.lastError, QStringLiteral("connection refused"));

    time.now += 17'655;
    QVERIFY(breaker.admit().probe);
    refused = breaker.admit();
    QVERIFY(refused.refusal.contains(QLatin1String("half-open")));
    QCOMPARE(refused.retryInMs, qint64(0));

    breaker.forceOpen();
    refused = breaker.admit();
    QVERIFY(refused.refusal.contains(QLatin1String("opened by the operator")));
    QVERIFY(breaker.state().forcedOpen);
    QCOMPARE(breaker.state().retryAtMs, qint64(0));
}

void TestCircuitBreaker::transitionsAreAnnouncedInOrder()
{
    FakeClock time;
    CircuitBreaker breaker(
        QStringLiteral("fs"), CircuitBreaker::Settings{1, std::chrono::milliseconds(1000), 1}, time.clock());
    std::vector<CircuitBreaker::Transition> seen;
    breaker.addListener([&](const CircuitBreaker::Transition& transition) {
        // Called with no lock held: the breaker can be asked from here.
        QCOMPARE(breaker.state().phase, transition.to);
        seen.push_back(transition);
    });
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("timeout"));
    time.now += 1000;
    const CircuitBreaker::Admission probe = breaker.admit();
    breaker.record(probe, CircuitBreaker::Outcome::Success);
    breaker.forceOpen();
    breaker.reset();
    QCOMPARE(seen.size(), std::size_t(5));
    const std::pair<BreakerPhase, BreakerPhase> expected[] = {{BreakerPhase::Closed, BreakerPhase::Open},
        {BreakerPhase::Open, BreakerPhase::HalfOpen}, {BreakerPhase::HalfOpen, BreakerPhase::Closed},
        {BreakerPhase::Closed, BreakerPhase::Open}, {BreakerPhase::Open, BreakerPhase::Closed}};
    for (std::size_t i = 0; i < seen.size(); ++i) {
        QCOMPARE(seen[i].adapter, QStringLiteral("fs"));
        QCOMPARE(seen[i].from, expected[i].first);
        QCOMPARE(seen[i].to, expected[i].second);
        QCOMPARE(seen[i].state.phase, expected[i].second);
        QVERIFY(!seen[i].reason.isEmpty());
    }
    QCOMPARE(seen[0].reason, QStringLiteral("1 consecutive failure(s), the last: timeout"));
    QCOMPARE(seen[0].atMs, 1'700'000'000'000);
    QCOMPARE(seen[1].atMs, 1'700'000'001'000);
    QVERIFY(seen[3].state.forcedOpen);
    QVERIFY(!seen[4].state.forcedOpen);
}

void TestCircuitBreaker::countersCountEveryOutcome()
{
    FakeClock time;
    CircuitBreaker breaker(
        QStringLiteral("db"), CircuitBreaker::Settings{3, std::chrono::milliseconds(1000), 1}, time.clock());
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Success);
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::AuthenticationFailure);
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::AuthenticationFailure);
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Cancelled);
    for (int i = 0; i < 3; ++i)
        breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("HTTP 500"));
    breaker.admit();
    breaker.admit();
    const CircuitBreaker::Counters counters = breaker.counters();
    QCOMPARE(counters.admitted, quint64(7));
    QCOMPARE(counters.rejected, quint64(2));
    QCOMPARE(counters.successes, quint64(1));
    QCOMPARE(counters.authenticationFailures, quint64(2));
    QCOMPARE(counters.cancelled, quint64(1));
    QCOMPARE(counters.failures, quint64(3));
    // A refused call's outcome is not an outcome.
    CircuitBreaker::Admission refused = breaker.admit();
    breaker.record(refused, CircuitBreaker::Outcome::Failure, QStringLiteral("ignored"));
    QCOMPARE(breaker.counters().failures, quint64(3));
}

void TestCircuitBreaker::refreshMovesToHalfOpenWithoutACall()
{
    FakeClock time;
    CircuitBreaker breaker(
        QStringLiteral("fs"), CircuitBreaker::Settings{1, std::chrono::milliseconds(1000), 1}, time.clock());
    QCOMPARE(breaker.refresh(), qint64(0)); // closed: nothing to wait for
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("reset by peer"));
    time.now += 250;
    QCOMPARE(breaker.refresh(), qint64(750));
    QCOMPARE(breaker.state().phase, BreakerPhase::Open);
    time.now += 750;
    QCOMPARE(breaker.refresh(), qint64(0));
    QCOMPARE(breaker.state().phase, BreakerPhase::HalfOpen);
}

// Many callers at once on a half-open breaker: never more probes in flight than its limit.
void TestCircuitBreaker::halfOpenNeverAdmitsMoreThanItsLimitConcurrently()
{
    std::atomic<qint64> now{0};
    CircuitBreaker breaker(QStringLiteral("busy"), CircuitBreaker::Settings{1, std::chrono::milliseconds(10), 3},
        CircuitBreaker::Clock{[&] { return now.load(); }, [&] { return now.load(); }});
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("down"));
    now = 10;
    std::atomic<int> inFlight{0};
    std::atomic<int> most{0};
    std::atomic<int> probes{0};
    std::vector<std::thread> callers;
    std::atomic<bool> go{false};
    for (int t = 0; t < 8; ++t) {
        callers.emplace_back([&] {
            while (!go)
                std::this_thread::yield();
            for (int i = 0; i < 100; ++i) {
                const CircuitBreaker::Admission admission = breaker.admit();
                if (!admission.admitted || !admission.probe)
                    continue;
                ++probes;
                const int current = ++inFlight;
                for (int seen = most; current > seen && !most.compare_exchange_weak(seen, current);) {}
                // Held a moment, so other callers try while it is in flight.
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                --inFlight;
                // Cancelled: the place is free again and the breaker stays half-open, so the limit is
                // tested over many rounds.
                breaker.record(admission, CircuitBreaker::Outcome::Cancelled);
            }
        });
    }
    go = true;
    for (std::thread& caller : callers)
        caller.join();
    QVERIFY2(probes > 3, qPrintable(QString::number(probes.load()))); // places were taken again
    QCOMPARE(breaker.state().phase, BreakerPhase::HalfOpen);
    QVERIFY2(most <= 3, qPrintable(QString::number(most.load())));
}

// Threads forcing open and resetting at once: every transition is announced, and in the order they
// happened (each one starts where the one announced before it ended), so the last state a listener
// saw is the breaker's. The listener takes a moment, as a real one (a signal, a record) does, which is
// when another thread's later transition could overtake it.
void TestCircuitBreaker::transitionsFromManyThreadsAreAnnouncedInOrder()
{
    CircuitBreaker breaker(QStringLiteral("busy"), CircuitBreaker::Settings{1, std::chrono::milliseconds(1000), 1});
    std::mutex seenMutex;
    std::vector<CircuitBreaker::Transition> seen;
    breaker.addListener([&](const CircuitBreaker::Transition& transition) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        const std::lock_guard lock(seenMutex);
        seen.push_back(transition);
    });
    constexpr int threads = 4;
    constexpr int rounds = 100;
    std::atomic<bool> go{false};
    std::vector<std::thread> callers;
    for (int t = 0; t < threads; ++t) {
        callers.emplace_back([&, t] {
            while (!go)
                std::this_thread::yield();
            for (int i = 0; i < rounds; ++i) {
                if ((i + t) % 2 == 0)
                    breaker.forceOpen();
                else
                    breaker.reset();
            }
        });
    }
    go = true;
    for (std::thread& caller : callers)
        caller.join();
    QCOMPARE(seen.size(), std::size_t(threads * rounds));
    QCOMPARE(seen.front().from, BreakerPhase::Closed);
    for (std::size_t i = 1; i < seen.size(); ++i) {
        QVERIFY2(seen[i].from == seen[i - 1].to,
            qPrintable(QStringLiteral("transition %1 starts at %2, but the one announced before it ended at %3")
                           .arg(i)
                           .arg(breakerPhaseName(seen[i].from), breakerPhaseName(seen[i - 1].to))));
    }
    QCOMPARE(seen.back().state.phase, breaker.state().phase);
}

// A listener that changes the breaker (an operator command run from a transition's handler) on the
// thread that announces: its transition comes after the one being announced, not inside it.
void TestCircuitBreaker::aTransitionAListenerCausesFollowsTheOneAnnounced()
{
    FakeClock time;
    CircuitBreaker breaker(
        QStringLiteral("fs"), CircuitBreaker::Settings{1, std::chrono::milliseconds(1000), 1}, time.clock());
    std::vector<std::pair<BreakerPhase, BreakerPhase>> seen;
    breaker.addListener([&](const CircuitBreaker::Transition& transition) {
        seen.emplace_back(transition.from, transition.to);
        if (transition.to == BreakerPhase::Open && !transition.state.forcedOpen)
            breaker.reset(QStringLiteral("reset from the listener"));
    });
    breaker.record(breaker.admit(), CircuitBreaker::Outcome::Failure, QStringLiteral("down"));
    const std::vector<std::pair<BreakerPhase, BreakerPhase>> expected{
        {BreakerPhase::Closed, BreakerPhase::Open}, {BreakerPhase::Open, BreakerPhase::Closed}};
    QCOMPARE(seen, expected);
    QCOMPARE(breaker.state().phase, BreakerPhase::Closed);
}

QTEST_GUILESS_MAIN(TestCircuitBreaker)
#include "tst_circuitbreaker.moc"
