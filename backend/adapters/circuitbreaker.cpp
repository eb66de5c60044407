#include "adapters/circuitbreaker.h"

#include <QDateTime>
#include <QElapsedTimer>

CircuitBreaker::Clock CircuitBreaker::Clock::system()
{
    return Clock{[] {
                     static const QElapsedTimer started = [] {
                         QElapsedTimer timer;
                         timer.start();
                         return timer;
                     }();
                     return started.elapsed();
                 },
        [] { return QDateTime::currentMSecsSinceEpoch(); }};
}

CircuitBreaker::CircuitBreaker(QString adapter, Settings settings, Clock clock)
    : m_adapter(std::move(adapter))
    , m_clock(std::move(clock))
    , m_settings(settings)
{
    m_changedAtWallMs = m_clock.wallMs();
}

CircuitBreaker::Numbered CircuitBreaker::moveTo(BreakerPhase phase, const QString& reason)
{
    Transition transition;
    transition.adapter = m_adapter;
    transition.from = m_phase;
    transition.to = phase;
    transition.reason = reason;
    m_phase = phase;
    ++m_generation; // outcomes of calls admitted before now change nothing
    m_probesInFlight = 0;
    m_changedAtWallMs = m_clock.wallMs();
    if (phase == BreakerPhase::Open) {
        m_openedAtMonotonicMs = m_clock.monotonicMs();
        m_retryAtMonotonicMs = m_openedAtMonotonicMs + m_settings.recoveryTimeout.count();
    } else {
        m_forcedOpen = false;
        m_forcedBy.clear();
        m_retryAtMonotonicMs = 0;
    }
    if (phase == BreakerPhase::Closed)
        m_consecutiveFailures = 0;
    transition.atMs = m_changedAtWallMs;
    transition.state = stateLocked();
    return Numbered{m_nextSequence++, std::move(transition)};
}

void CircuitBreaker::halfOpenWhenDue(qint64 now, std::vector<Numbered>* transitions)
{
    if (m_phase == BreakerPhase::Open && !m_forcedOpen && now >= m_retryAtMonotonicMs)
        transitions->push_back(moveTo(BreakerPhase::HalfOpen, QStringLiteral("recovery timeout passed")));
}

// Transitions are numbered under m_mutex in the order they happen, but announced after it is
// released, so that a listener may ask the breaker: without more, a thread could announce its
// transition before another thread announced an earlier one, and a view would end on the wrong
// phase. Each is announced only once every lower number has been, on the thread that caused it;
// one a listener causes (on the announcing thread, which cannot wait for itself) is announced by
// that thread after the listener returns.
void CircuitBreaker::announce(std::vector<Numbered> transitions)
{
    if (transitions.empty())
        return;
    std::unique_lock lock(m_announceMutex);
    if (m_announcingThread == std::this_thread::get_id()) {
        for (Numbered& numbered : transitions)
            m_causedByListener.push_back(std::move(numbered));
        return;
    }
    std::deque<Numbered> queue(
        std::make_move_iterator(transitions.begin()), std::make_move_iterator(transitions.end()));
    while (!queue.empty()) {
        const Numbered next = std::move(queue.front());
        queue.pop_front();
        m_announcedOne.wait(lock, [&] { return m_announcedUpTo == next.sequence; });
        m_announcingThread = std::this_thread::get_id();
        lock.unlock();
        std::vector<std::function<void(const Transition&)>> listeners;
        {
            std::lock_guard stateLock(m_mutex);
            listeners = m_listeners;
        }
        // Whatever a listener does (throws included), the next number's turn must come.
        struct Done
        {
            std::unique_lock<std::mutex>& lock;
            CircuitBreaker& breaker;
            ~Done()
            {
                lock.lock();
                breaker.m_announcingThread = std::thread::id();
                ++breaker.m_announcedUpTo;
                breaker.m_announcedOne.notify_all();
            }
        } done{lock, *this};
        for (const auto& listener : listeners)
            listener(next.transition);
    }
    // Transitions the listeners caused, in their order (numbered after the ones announced here).
    while (!m_causedByListener.empty()) {
        std::vector<Numbered> caused(
            std::make_move_iterator(m_causedByListener.begin()), std::make_move_iterator(m_causedByListener.end()));
        m_causedByListener.clear();
        lock.unlock();
        announce(std::move(caused));
        lock.lock();
    }
}

CircuitBreaker::Admission CircuitBreaker::admit()
{
    Admission admission;
    std::vector<Numbered> transitions;
    {
        std::lock_guard lock(m_mutex);
        const qint64 now = m_clock.monotonicMs();
        halfOpenWhenDue(now, &transitions);
        admission.generation = m_generation;
        switch (m_phase) {
        case BreakerPhase::Closed:
            admission.admitted = true;
            break;
        case BreakerPhase::HalfOpen:
            if (m_probesInFlight < m_settings.halfOpenMaxCalls) {
                ++m_probesInFlight;
                admission.admitted = true;
                admission.probe = true;
            } else {
                admission.refusal = QStringLiteral("Circuit breaker for adapter %1 is half-open and already trying %2 "
                                                   "call(s); try again shortly.")
                                        .arg(m_adapter, QString::number(m_settings.halfOpenMaxCalls));
            }
            break;
        case BreakerPhase::Open:
            if (m_forcedOpen) {
                admission.refusal = QStringLiteral("Circuit breaker for adapter %1 was opened by the operator; no "
                                                   "call goes upstream until it is reset.")
                                        .arg(m_adapter);
            } else {
                admission.retryInMs = m_retryAtMonotonicMs - now;
                admission.refusal = QStringLiteral("Circuit breaker for adapter %1 is open after %2 consecutive "
                                                   "failure(s) (last: %3); next try in %4 ms.")
                                        .arg(m_adapter, QString::number(m_consecutiveFailures),
                                            m_lastError.isEmpty() ? QStringLiteral("unknown") : m_lastError,
                                            QString::number(admission.retryInMs));
            }
            break;
        }
        if (admission.admitted)
            ++m_counters.admitted;
        else
            ++m_counters.rejected;
    }
    announce(std::move(transitions));
    return admission;
}

void CircuitBreaker::record(const Admission& admission, Outcome outcome, const QString& error)
{
    if (!admission.admitted)
        return;
    std::vector<Numbered> transitions;
    {
        std::lock_guard lock(m_mutex);
        switch (outcome) {
        case Outcome::Success:
            ++m_counters.successes;
            break;
        case Outcome::Failure:
            ++m_counters.failures;
            m_lastError = error;
            break;
        case Outcome::Cancelled:
            ++m_counters.cancelled;
            break;
        case Outcome::AuthenticationFailure:
            ++m_counters.authenticationFailures;
            break;
        }
        // Admitted before the latest transition: its state is gone; it only counted above.
        if (admission.generation == m_generation) {
            if (admission.probe && m_probesInFlight > 0)
                --m_probesInFlight;
            if (outcome == Outcome::Success) {
                if (m_phase == BreakerPhase::HalfOpen)
                    transitions.push_back(moveTo(BreakerPhase::Closed, QStringLiteral("a trial call succeeded")));
                else
                    m_consecutiveFailures = 0;
            } else if (outcome == Outcome::Failure) {
                ++m_consecutiveFailures;
                if (m_phase == BreakerPhase::HalfOpen)
                    transitions.push_back(
                        moveTo(BreakerPhase::Open, QStringLiteral("a trial call failed: %1").arg(error)));
                else if (m_phase == BreakerPhase::Closed && m_consecutiveFailures >= m_settings.failureThreshold)
                    transitions.push_back(moveTo(BreakerPhase::Open,
                        QStringLiteral("%1 consecutive failure(s), the last: %2")
                            .arg(QString::number(m_consecutiveFailures), error)));
            }
        }
    }
    announce(std::move(transitions));
}

void CircuitBreaker::reset(const QString& why)
{
    std::vector<Numbered> transitions;
    {
        std::lock_guard lock(m_mutex);
        transitions.push_back(moveTo(BreakerPhase::Closed, why));
    }
    announce(std::move(transitions));
}

void CircuitBreaker::forceOpen(const QString& why, const QString& by)
{
    std::vector<Numbered> transitions;
    {
        std::lock_guard lock(m_mutex);
        m_forcedOpen = true; // before the move: the state it announces says so
        m_forcedBy = by;
        transitions.push_back(moveTo(BreakerPhase::Open, why));
    }
    announce(std::move(transitions));
}

void CircuitBreaker::restoreForcedOpen(qint64 sinceWallMs, const QString& by)
{
    std::lock_guard lock(m_mutex);
    m_forcedOpen = true;
    m_forcedBy = by;
    m_phase = BreakerPhase::Open;
    ++m_generation;
    m_probesInFlight = 0;
    m_openedAtMonotonicMs = m_clock.monotonicMs();
    m_retryAtMonotonicMs = 0; // forced: no trial calls until reset
    if (sinceWallMs > 0)
        m_changedAtWallMs = sinceWallMs;
}

qint64 CircuitBreaker::refresh()
{
    std::vector<Numbered> transitions;
    qint64 retryIn = 0;
    {
        std::lock_guard lock(m_mutex);
        const qint64 now = m_clock.monotonicMs();
        halfOpenWhenDue(now, &transitions);
        if (m_phase == BreakerPhase::Open && !m_forcedOpen)
            retryIn = m_retryAtMonotonicMs - now;
    }
    announce(std::move(transitions));
    return retryIn;
}

BreakerState CircuitBreaker::stateLocked() const
{
    BreakerState state;
    state.adapter = m_adapter;
    state.phase = m_phase;
    state.consecutiveFailures = m_consecutiveFailures;
    state.failureThreshold = m_settings.failureThreshold;
    state.changedAtMs = m_changedAtWallMs;
    state.forcedOpen = m_forcedOpen;
    state.forcedBy = m_forcedOpen ? m_forcedBy : QString();
    state.lastError = m_lastError;
    if (m_phase == BreakerPhase::Open && !m_forcedOpen)
        state.retryAtMs = m_changedAtWallMs + (m_retryAtMonotonicMs - m_openedAtMonotonicMs);
    return state;
}

BreakerState CircuitBreaker::state() const
{
    std::lock_guard lock(m_mutex);
    return stateLocked();
}

CircuitBreaker::Counters CircuitBreaker::counters() const
{
    std::lock_guard lock(m_mutex);
    return m_counters;
}

CircuitBreaker::Settings CircuitBreaker::settings() const
{
    std::lock_guard lock(m_mutex);
    return m_settings;
}

void CircuitBreaker::setSettings(const Settings& settings)
{
    std::lock_guard lock(m_mutex);
    m_settings = settings;
}

void CircuitBreaker::addListener(std::function<void(const Transition&)> listener)
{
    std::lock_guard lock(m_mutex);
    m_listeners.push_back(std::move(listener));
}
