#include "tools/homethread.h"

#include <QCoreApplication>
#include <QEvent>
#include <QThread>

// Receives the "drain" events on the home thread.
class HomeThread::Mailbox : public QObject
{
public:
    Mailbox(std::weak_ptr<HomeThread> home, QObject* parent)
        : QObject(parent)
        , m_home(std::move(home))
    {}

    bool event(QEvent* event) override
    {
        if (event->type() != QEvent::User)
            return QObject::event(event);
        if (const auto home = m_home.lock())
            home->drain();
        return true;
    }

private:
    std::weak_ptr<HomeThread> m_home;
};

HomeThread::HomeThread(QThread* thread)
    : m_thread(thread)
{}

std::shared_ptr<HomeThread> HomeThread::create(QObject* target)
{
    std::shared_ptr<HomeThread> home(new HomeThread(target->thread()));
    home->m_mailbox = new Mailbox(home, target);
    return home;
}

bool HomeThread::post(std::function<void()> work)
{
    const std::lock_guard lock(m_mutex);
    if (m_closed)
        return false;
    m_work.push_back(std::move(work));
    if (!m_drainPosted) {
        m_drainPosted = true;
        // The event is the home thread's to free once delivered; posting under the lock keeps it
        // from racing close() and the mailbox's destruction after it.
        QCoreApplication::postEvent(m_mailbox, new QEvent(QEvent::User));
    }
    return true;
}

bool HomeThread::isCurrent() const
{
    return QThread::currentThread() == m_thread;
}

void HomeThread::drain()
{
    std::deque<std::function<void()>> work;
    {
        const std::lock_guard lock(m_mutex);
        work.swap(m_work);
        m_drainPosted = false;
    }
    // Each piece may post more (or close this): those wait for the next drain.
    for (auto& piece : work)
        piece();
}

void HomeThread::close()
{
    std::deque<std::function<void()>> dropped;
    {
        const std::lock_guard lock(m_mutex);
        m_closed = true;
        dropped.swap(m_work);
    }
    // Destroyed here, on the home thread, outside the lock: they hold contexts whose destruction
    // may post nothing more (the home is closed) but may take other locks.
}
