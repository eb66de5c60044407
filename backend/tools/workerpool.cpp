#include "tools/workerpool.h"

#include <QtGlobal>

#include <chrono>

#ifdef Q_OS_LINUX
#include <pthread.h>
#endif

WorkerPool::WorkerPool(int maxThreads, QByteArray threadName)
    : m_maxThreads(qMax(1, maxThreads))
    , m_threadName(std::move(threadName))
{}

WorkerPool::~WorkerPool()
{
    shutDown(0);
}

void WorkerPool::start(std::function<void()> job)
{
    bool spawn = false;
    {
        const std::lock_guard lock(m_state->mutex);
        if (m_state->stopping)
            return;
        m_state->jobs.push_back(std::move(job));
        if (m_state->idle < int(m_state->jobs.size()) && m_state->threads < m_maxThreads) {
            ++m_state->threads;
            spawn = true;
        }
    }
    if (spawn)
        m_threads.emplace_back(&WorkerPool::run, m_state, m_threadName);
    else
        m_state->work.notify_one();
}

void WorkerPool::run(const std::shared_ptr<State>& state, const QByteArray& name)
{
#ifdef Q_OS_LINUX
    pthread_setname_np(pthread_self(), name.left(15).constData()); // as top and perf show it
#else
    Q_UNUSED(name);
#endif
    std::unique_lock lock(state->mutex);
    for (;;) {
        ++state->idle;
        state->work.wait(lock, [&] { return state->stopping || !state->jobs.empty(); });
        --state->idle;
        if (state->jobs.empty()) { // stopping, nothing left
            --state->threads;
            return;
        }
        std::function<void()> job = std::move(state->jobs.front());
        state->jobs.pop_front();
        ++state->active;
        lock.unlock();
        job();
        job = nullptr; // what the job holds is let go outside the lock
        lock.lock();
        --state->active;
        state->ended.notify_all();
    }
}

bool WorkerPool::shutDown(qint64 graceMs)
{
    if (m_shutDown)
        return true;
    m_shutDown = true;
    bool allEnded = false;
    {
        std::unique_lock lock(m_state->mutex);
        m_state->stopping = true;
        m_state->work.notify_all();
        allEnded = m_state->ended.wait_for(lock, std::chrono::milliseconds(qMax<qint64>(0, graceMs)),
            [&] { return m_state->active == 0 && m_state->jobs.empty(); });
    }
    for (std::thread& thread : m_threads) {
        if (allEnded)
            thread.join();
        else
            thread.detach();
    }
    m_threads.clear();
    return allEnded;
}

int WorkerPool::activeCount() const
{
    const std::lock_guard lock(m_state->mutex);
    return m_state->active;
}

int WorkerPool::threadCount() const
{
    const std::lock_guard lock(m_state->mutex);
    return m_state->threads;
}
