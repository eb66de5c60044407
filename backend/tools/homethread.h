#pragma once

// HomeThread: posts work to the thread that owns calls and sockets (the backend thread), from any
// thread, for as long as its target object lives. Workers of the ToolExecutor hand progress, log
// messages and results back through it. Once closed (the target is being destroyed), posts are
// refused, so a worker that outlives the server cannot touch it.

#include <QObject>
#include <QPointer>

#include <functional>
#include <mutex>

class QThread;

class HomeThread
{
public:
    explicit HomeThread(QObject* target);

    // Queues `work` to run on the target's thread, in the target's context. False once closed.
    bool post(std::function<void()> work);
    bool isCurrent() const;
    // Called on the home thread before the target goes: later posts are refused, and posted work
    // that has not run yet is discarded with the target.
    void close();

private:
    mutable std::mutex m_mutex;
    QObject* m_target; // guarded by m_mutex
    QThread* const m_thread;
};
