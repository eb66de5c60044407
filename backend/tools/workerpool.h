#pragma once

// WorkerPool: the ToolExecutor's own threads for blocking tool work. Threads start as work needs
// them, up to a maximum, and wait for more when idle. Built on the standard library's thread, mutex
// and condition variable rather than QThreadPool: Debian's Qt is not built for ThreadSanitizer,
// which then cannot see QThreadPool hand a job to a waiting thread and reports the job's own data
// as raced. The executor decides how many jobs run at once; the pool only runs them.

#include <QByteArray>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

class WorkerPool
{
public:
    WorkerPool(int maxThreads, QByteArray threadName);
    ~WorkerPool(); // shutDown(0)

    // Runs `job` on a thread of the pool: an idle one, a new one while fewer than the maximum run,
    // or the next to become free.
    void start(std::function<void()> job);
    // No new jobs; waits up to `graceMs` for the running ones to end, then lets the threads go.
    // Threads still in a job (one that ignores cancellation) are detached and end with it; they
    // hold only the pool's shared state. True when every job had ended.
    bool shutDown(qint64 graceMs);
    int activeCount() const;
    int threadCount() const;

private:
    struct State
    {
        mutable std::mutex mutex;
        std::condition_variable work; // a job came, or the pool stops
        std::condition_variable ended; // a job ended
        std::deque<std::function<void()>> jobs;
        int threads = 0;
        int idle = 0;
        int active = 0;
        bool stopping = false;
    };
    static void run(const std::shared_ptr<State>& state, const QByteArray& name);

    const int m_maxThreads;
    const QByteArray m_threadName;
    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::vector<std::thread> m_threads;
    bool m_shutDown = false;
};
