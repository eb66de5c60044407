#pragma once

// ToolExecutor: runs admitted tool calls as their tools declare (ExecutionPolicy). Backend-thread
// tools run at once; blocking tools run on the executor's own worker pool (never Qt's global one),
// one at a time per serialization key and at most `groupLimit` per group, with a cancellation token,
// progress and log hand-back through the context, and a deadline. Every call that has not finished
// when run() returns is watched for its deadline: past it, the call ends with a tool error and its
// work is cancelled; whatever that work hands back later is dropped.
//
// Lives on the backend thread; run() and the accessors are called there.

#include "tools/toolcallcontext.h"

#include <QBasicTimer>
#include <QMap>
#include <QObject>

#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

class HomeThread;
class WorkerPool;
struct RegisteredTool;

class ToolExecutor : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int workerThreads = 16; // blocking calls that run at once; more wait in the queue
        qint64 defaultDeadlineMs = 10 * 60 * 1000; // for tools that declare none
        int maxQueuedCalls = 1'000; // blocking calls waiting for a worker, a key or a group slot
        qint64 shutdownGraceMs = 5'000; // how long shutdown waits for workers that ignore cancellation
        QMap<QString, qint64> toolDeadlinesMs; // the operator's deadline per tool name, over the tool's own
    };

    explicit ToolExecutor(Settings settings, QObject* parent = nullptr);
    ~ToolExecutor() override;

    // Where contexts post their hooks' work: this executor's thread, for as long as it lives.
    const std::shared_ptr<HomeThread>& home() const { return m_home; }
    const Settings& settings() const { return m_settings; }

    // Runs a call whose arguments were validated and which was admitted. Sets its deadline.
    void run(const std::shared_ptr<const RegisteredTool>& tool, const std::shared_ptr<ToolCallContext>& context);

    // Cancels every call still running or queued, then waits up to shutdownGraceMs for the workers.
    // Idempotent; the destructor calls it.
    void shutDown();

    int runningBlockingCount() const { return m_runningBlocking; }
    int queuedCount() const { return int(m_queue.size()); }
    int watchedCount() const { return int(m_watched.size()); }

    // The tool error for a call that ran out of time.
    static QString deadlineMessage(const QString& tool, qint64 deadlineMs);
    // The tool error for an exception the tool's code threw, whatever it threw.
    static ToolResult failureResult(const QString& tool, std::exception_ptr thrown);

Q_SIGNALS:
    // A worker finished (for tests and the operator's view of the pool).
    void blockingWorkEnded(qint64 callId);

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    struct Job
    {
        quint64 serial = 0;
        std::shared_ptr<const RegisteredTool> tool;
        std::shared_ptr<ToolCallContext> context;
        QString key;
        QString group;
        int groupLimit = 0;
    };
    struct Watched
    {
        std::weak_ptr<ToolCallContext> context;
        ToolCallContext::Clock::time_point deadline;
        qint64 deadlineMs = 0;
        QString tool;
    };

    void watch(quint64 serial, const std::shared_ptr<ToolCallContext>& context, qint64 deadlineMs);
    void unwatch(quint64 serial);
    // The call's deadline was paused (it waits for a person) or moved on: it is watched anew.
    void rewatch(quint64 serial);
    void runBlocking(Job job);
    bool canStart(const Job& job) const;
    void start(Job job);
    void workEnded(const QString& key, const QString& group, qint64 callId);
    void startWaitingJobs();
    void armDeadlineTimer();
    void expireDue();

    Settings m_settings;
    std::shared_ptr<HomeThread> m_home;
    std::unique_ptr<WorkerPool> m_pool;
    quint64 m_nextSerial = 1;
    std::unordered_map<quint64, Watched> m_watched; // calls not finished when run() returned
    std::set<std::pair<ToolCallContext::Clock::time_point, quint64>> m_deadlines;
    std::deque<Job> m_queue; // blocking calls waiting for a worker, their key or their group
    std::set<QString> m_busyKeys;
    std::map<QString, int> m_groupRunning;
    std::map<quint64, std::weak_ptr<ToolCallContext>> m_runningContexts; // blocking work on a worker
    int m_runningBlocking = 0;
    QBasicTimer m_deadlineTimer;
    bool m_shutDown = false;
};
