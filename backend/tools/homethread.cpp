#include "tools/homethread.h"

#include <QThread>

HomeThread::HomeThread(QObject* target)
    : m_target(target)
    , m_thread(target->thread())
{}

bool HomeThread::post(std::function<void()> work)
{
    // The lock is held while posting, so close() (and the target's destruction after it) cannot
    // happen between the check and the post; Qt discards events still queued for a deleted object.
    const std::lock_guard lock(m_mutex);
    if (!m_target)
        return false;
    return QMetaObject::invokeMethod(m_target, std::move(work), Qt::QueuedConnection);
}

bool HomeThread::isCurrent() const
{
    return QThread::currentThread() == m_thread;
}

void HomeThread::close()
{
    const std::lock_guard lock(m_mutex);
    m_target = nullptr;
}
