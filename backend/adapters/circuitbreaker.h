#pragma once

// CircuitBreaker: one upstream adapter's breaker. Closed, it lets calls through and counts
// consecutive failures; at `failureThreshold` it opens and refuses every call at once (saying when
// the next try is) until `recoveryTimeout` has passed; then it is half-open and admits exactly
// `halfOpenMaxCalls` calls at a time as probes: a probe's success closes it, a probe's failure
// opens it again. The operator can reset it (closed) or force it open (until reset).
//
// A call asks admit() before anything is sent upstream and reports its outcome with the Admission
// it got: an outcome of a call admitted before the latest transition (a slow call that finishes
// after the breaker opened, or after a reset) changes nothing but the counters. Failures are what
// says the upstream is unwell: connection errors, timeouts, HTTP 5xx, malformed responses. A tool
// result with isError is a success here (the upstream answered); a cancelled call counts for
// nothing; an authentication failure is counted apart and never trips the breaker.
//
// Time comes from a Clock, so tests are exact to the millisecond. Thread-safe; listeners are
// called with no lock held, on the thread that caused the transition, and in transition order also
// when two threads cause transitions at once: a thread whose transition follows one another thread
// is still announcing waits for it (so a listener must not wait for another thread that changes
// this breaker). A transition a listener causes is announced after the one being announced, once
// the listener returns.

#include "backendstates.h"

#include <QString>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

class CircuitBreaker
{
public:
    struct Settings
    {
        int failureThreshold = 5;
        std::chrono::milliseconds recoveryTimeout{30'000};
        int halfOpenMaxCalls = 1;
    };

    struct Clock
    {
        std::function<qint64()> monotonicMs; // for timing
        std::function<qint64()> wallMs; // ms since the Unix epoch, for what is shown
        static Clock system();
    };

    enum class Outcome {
        Success, // including a tool result with isError
        Failure, // connection error, timeout, HTTP 5xx, malformed response
        Cancelled, // by the client, the session or shutdown: says nothing of the upstream
        AuthenticationFailure, // counted apart; says nothing of the upstream's health
    };

    struct Admission
    {
        bool admitted = false;
        bool probe = false; // a half-open trial call
        quint64 generation = 0; // the breaker's state when admitted
        qint64 retryInMs = 0; // refused while open: how long until a trial call may go
        QString refusal; // refused: why, in words for the caller
    };

    struct Transition
    {
        QString adapter;
        BreakerPhase from = BreakerPhase::Closed;
        BreakerPhase to = BreakerPhase::Closed;
        QString reason;
        qint64 atMs = 0; // wall clock
        BreakerState state; // after the transition
    };

    struct Counters
    {
        quint64 admitted = 0;
        quint64 rejected = 0;
        quint64 successes = 0;
        quint64 failures = 0;
        quint64 cancelled = 0;
        quint64 authenticationFailures = 0;
    };

    CircuitBreaker(QString adapter, Settings settings, Clock clock = Clock::system());

    // Checked before a call: admitted (maybe as a probe), or refused with the reason and, while
    // open, the time until the next try. Moves an open breaker whose time has come to half-open.
    Admission admit();
    // The outcome of a call admit() let through.
    void record(const Admission& admission, Outcome outcome, const QString& error = {});

    // The operator's commands.
    void reset(const QString& why = QStringLiteral("reset by the operator"));
    // `by` names the operator who forced it (shown with the state; empty when not known).
    void forceOpen(const QString& why = QStringLiteral("opened by the operator"), const QString& by = {});
    // Before any call: open and forced so since `sinceWallMs` by `by`, as the operator left it before
    // a restart (AdapterOverridesFile). No transition: the one that opened it was announced (and kept
    // in history) when the operator forced it, and every process starting it would repeat it.
    void restoreForcedOpen(qint64 sinceWallMs, const QString& by = {});

    // Moves an open breaker whose recovery time has passed to half-open (so a view can show it
    // without waiting for a call); returns when that will be for an open one, else 0.
    qint64 refresh();

    BreakerState state() const;
    Counters counters() const;
    Settings settings() const;
    void setSettings(const Settings& settings); // a reloaded configuration: keeps the phase

    void addListener(std::function<void(const Transition&)> listener);

private:
    // A transition and its place in the order they happened, which is the order they are announced.
    struct Numbered
    {
        quint64 sequence = 0;
        Transition transition;
    };

    // m_mutex held; returns the transition to announce, numbered.
    Numbered moveTo(BreakerPhase phase, const QString& reason);
    // m_mutex held: an open breaker (not forced) whose recovery time has come turns half-open.
    void halfOpenWhenDue(qint64 now, std::vector<Numbered>* transitions);
    // Calls the listeners for each transition once every earlier one has been announced.
    void announce(std::vector<Numbered> transitions);
    BreakerState stateLocked() const;

    const QString m_adapter;
    const Clock m_clock;
    mutable std::mutex m_mutex;
    Settings m_settings;
    BreakerPhase m_phase = BreakerPhase::Closed;
    bool m_forcedOpen = false;
    QString m_forcedBy;
    int m_consecutiveFailures = 0;
    int m_probesInFlight = 0;
    quint64 m_generation = 0;
    qint64 m_openedAtMonotonicMs = 0;
    qint64 m_retryAtMonotonicMs = 0;
    qint64 m_changedAtWallMs = 0;
    QString m_lastError;
    Counters m_counters;
    std::vector<std::function<void(const Transition&)>> m_listeners;
    quint64 m_nextSequence = 0; // m_mutex: the number the next transition gets

    // The announcing side, under m_announceMutex (never held while a listener runs).
    std::mutex m_announceMutex;
    std::condition_variable m_announcedOne;
    quint64 m_announcedUpTo = 0; // transitions numbered below it have been announced
    std::thread::id m_announcingThread; // the thread running listeners now, if any
    std::deque<Numbered> m_causedByListener; // transitions a listener caused, announced after it returns
};
