#pragma once

// runBlocking: runs `work` on the thread of `context` and waits for it, as
// Qt::BlockingQueuedConnection does, but in a way ThreadSanitizer can follow. Qt's blocking call
// hands the work over and back through a semaphore inside libQt6Core, which Debian does not build
// with TSan, so everything one thread wrote would be reported as a race when the other reads it.
// Here the hand-over goes through std::mutex and std::condition_variable, which TSan sees: the
// call is posted while this thread holds `posting`, and the work starts by taking it.

#include <QMetaObject>
#include <QObject>
#include <QThread>

#include <condition_variable>
#include <mutex>

template<typename Work>
void runBlocking(QObject* context, Work&& work)
{
    if (context->thread() == QThread::currentThread())
        qFatal("runBlocking: the context lives on this thread, so the call would wait forever");
    static std::mutex posting;
    std::mutex doneMutex;
    std::condition_variable doneChanged;
    bool done = false;
    {
        const std::lock_guard postingLock(posting);
        QMetaObject::invokeMethod(
            context,
            [&] {
                // Not a capture: the posting thread wrote the captures before it let go of this.
                {
                    const std::lock_guard posted(posting);
                }
                work();
                const std::lock_guard doneLock(doneMutex);
                done = true;
                doneChanged.notify_one();
            },
            Qt::QueuedConnection);
    }
    std::unique_lock doneLock(doneMutex);
    doneChanged.wait(doneLock, [&] { return done; });
}
