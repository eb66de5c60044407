#pragma once

// HomeThread: posts work to the thread that owns calls and sockets (the backend thread), from any
// thread, for as long as its target object lives. Workers of the ToolExecutor hand progress, log
// messages and results back through it. Once closed (the target is being destroyed), posts are
// refused, so a worker that outlives the server cannot touch it.
//
// The work waits in a queue of its own under a std::mutex, and only an empty QEvent crosses to the
// home thread to say "drain": nothing a worker allocated is freed by Qt's reference counts, whose
// atomics ThreadSanitizer cannot see in Debian's Qt (a functor posted with invokeMethod is freed
// by whichever thread lets go of it last, which TSan reports as a race).

#include <QObject>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

class QThread;

class HomeThread : public std::enable_shared_from_this<HomeThread>
{
public:
    // Made on the target's thread; `target` owns the object the drain events go to.
    static std::shared_ptr<HomeThread> create(QObject* target);

    // Queues `work` to run on the target's thread. False once closed.
    bool post(std::function<void()> work);
    bool isCurrent() const;
    // Called on the home thread before the target goes: later posts are refused, and work that has
    // not run yet is dropped.
    void close();

private:
    class Mailbox;
    explicit HomeThread(QThread* thread);
    void drain();

    QThread* const m_thread;
    Mailbox* m_mailbox = nullptr; // a child of the target; lives on the home thread
    mutable std::mutex m_mutex;
    std::deque<std::function<void()>> m_work; // guarded by m_mutex
    bool m_drainPosted = false; // guarded by m_mutex
    bool m_closed = false; // guarded by m_mutex
};
