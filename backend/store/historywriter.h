#pragma once

// HistoryWriter: keeps every call in history at the server's full sustained rate.
//
// The server thread hands over each call's record as the call starts, changes and ends (record():
// a lock and an append, never a wait, never a drop). A thread of normal priority (nothing that
// must not be lost waits on a thread that can starve) writes whatever has gathered, at most
// BatchWindowMs after it arrived, in transactions of up to MaxCallsPerTransaction calls through one
// prepared statement; records of the same call still waiting are merged, so a quick call costs
// one row write. With WAL and synchronous=NORMAL a committed transaction survives kill -9, so every
// call answered more than ~100 ms before a kill is in history.
//
// The queue is bounded by count and bytes: past the bound hasRoom() turns false, and the server
// holds new calls until the writer has caught up (HistoryFeed) — back-pressure, not loss. Only a
// failing disk leaves calls out: the writer keeps up to a bound of unwritten calls in memory and
// retries; calls beyond it are left out, counted exactly, the count kept in the database and
// reported through callsLeftOutChanged.

#include "store/historydatabase.h"
#include "toolcall.h"

#include <QHash>
#include <QObject>
#include <QSet>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

class HistoryDatabase;

struct HistoryWriterLimits
{
    qsizetype maxQueuedCalls = 50'000; // queued or being written; beyond: no room for new calls
    qint64 maxQueuedBytes = 64LL << 20;
    qsizetype maxRetainedCalls = 200'000; // kept in memory while the disk fails
    qint64 maxRetainedBytes = 256LL << 20;
    int maxCallsPerTransaction = 2'000;
    int batchWindowMs = 10;
    int retryIntervalMs = 5'000;
};

class HistoryWriter : public QObject
{
    Q_OBJECT
public:
    // Writes to the SQLite history at `databasePath`.
    HistoryWriter(QString databasePath, qint64 maxCalls, HistoryWriterLimits limits = {}, QObject* parent = nullptr);
    // Writes to the database `factory` makes (on the writer thread).
    HistoryWriter(
        HistoryDatabaseFactory factory, qint64 maxCalls, HistoryWriterLimits limits = {}, QObject* parent = nullptr);
    ~HistoryWriter() override;

    // Starts the writer thread, which opens (creating if needed) the database. Blocks until it has.
    bool start(QString* error);
    // Writes everything recorded so far (once more trying a failing disk), then ends the thread.
    void stop();

    // Any thread. Hands over a call's newest state; replaces its earlier state if not yet written.
    // What history keeps of it is bounded (keptPart).
    void record(const ToolCall& call);
    // Any thread. A breaker transition, written beside the calls soon after; at most
    // MaxQueuedTransitions wait (a breaker flapping faster than the disk writes loses the oldest,
    // counted in a warning).
    void recordTransition(const BreakerTransitionRecord& transition);
    static constexpr qsizetype MaxQueuedTransitions = 1'000;
    // False while the queue is over its bound; true again once it is back under half of it.
    bool hasRoom() const { return m_hasRoom.load(std::memory_order_relaxed); }

    // Reserves `count` call ids in the database ([*first, *first + count)), on the writer thread
    // between two transactions; waits for it. After start().
    bool reserveCallIds(qint64 count, qint64* first, QString* error);
    // The same without waiting: `done` runs on the writer thread with the outcome.
    void reserveCallIdsLater(qint64 count, std::function<void(bool ok, qint64 first, const QString& error)> done);
    // Calls left out of history because the disk failed: the database's persisted count plus
    // those left out since that could not be written yet.
    qint64 callsLeftOut() const { return m_callsLeftOut.load(); }
    qsizetype queuedCalls() const;

    // Runs `work` on the writer thread, between two transactions, and waits for it (tests use it
    // to cap the database's size, or to hold the writer as a saturated disk would).
    // False (and `work` never runs) when the writer is not running.
    bool runOnWriterThread(const std::function<void(HistoryDatabase&)>& work);

    // History keeps at most this much of each of a call's request, response and details (its
    // timeline is bounded where it is made, CallTimeline): a call is at most about 1 MiB in history,
    // whatever it carried.
    static constexpr qsizetype MaxStoredBodyBytes = 256 * 1024;
    // What history keeps of `call`: a request or response past MaxStoredBodyBytes cut to its start (at
    // a character boundary), details past it with each long string cut to its start (or, when that
    // is not enough, replaced by an object saying so with the start of their text). A call that
    // lost anything says so as a preview does: wholeRequestBytes and wholeResponseBytes hold its
    // whole request's and response's sizes.
    static ToolCall keptPart(const ToolCall& call);
    // Any thread, before start(): the most bytes the stored calls may hold together; the oldest go
    // beyond it (HistoryDatabase::setMaxBytes).
    void setMaxBytes(qint64 maxBytes) { m_maxBytes = maxBytes; }

    static constexpr int BatchWindowMs = HistoryWriterLimits().batchWindowMs;
    static constexpr int MaxCallsPerTransaction = HistoryWriterLimits().maxCallsPerTransaction;

Q_SIGNALS:
    // Emitted from the writer thread; connect with queued connections.
    void writeFailed(const QString& error);
    void writeRecovered();
    void callsLeftOutChanged(qint64 total);
    // The oldest calls went beyond the bounds (maxCalls, maxBytes): `total` over the writer's life.
    void callsPruned(qint64 total);
    void roomAvailable();

private:
    using Clock = std::chrono::steady_clock;

    void run(HistoryDatabase& store);
    bool post(std::function<void(HistoryDatabase&)> task);
    void writeTaken(HistoryDatabase& store, ToolCallList taken);
    void retain(ToolCallList calls);
    void retryRetained(HistoryDatabase& store);
    void release(qsizetype calls, qint64 bytes);
    void addLeftOut(qint64 calls);
    static qint64 sizeOf(const ToolCall& call);

    HistoryDatabaseFactory m_factory;
    qint64 m_maxCalls;
    qint64 m_prunedSeen = 0; // the database's callsPruned() last told (writer thread)
    qint64 m_maxBytes = 0; // 0: the database's default
    HistoryWriterLimits m_limits;
    std::thread m_thread;

    // Shared with the threads that record, under m_mutex.
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    ToolCallList m_queue;
    QHash<qint64, qsizetype> m_queueIndex; // call id → index in m_queue
    qsizetype m_pendingCalls = 0; // queued or being written
    qint64 m_pendingBytes = 0;
    bool m_stopping = false;
    bool m_running = false; // the thread takes tasks
    std::vector<std::function<void(HistoryDatabase&)>> m_tasks;
    BreakerTransitionList m_transitions; // waiting for the writer
    qint64 m_transitionsDropped = 0;
    std::atomic<bool> m_hasRoom = true;
    std::atomic<qint64> m_callsLeftOut = 0;

    // Writer thread only: what a failing disk has not taken yet.
    bool m_failing = false;
    Clock::time_point m_nextRetry;
    ToolCallList m_retained;
    QHash<qint64, qsizetype> m_retainedIndex;
    qint64 m_retainedBytes = 0;
    QSet<qint64> m_leftOutRunning; // calls whose unfinished record was left out; bounded by calls in flight
    qint64 m_leftOutUnsaved = 0; // not yet added to the database's count
};
