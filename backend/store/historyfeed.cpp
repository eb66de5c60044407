#include "store/historyfeed.h"

#include "events/backendevents.h"
#include "store/historywriter.h"

HistoryFeed::HistoryFeed(HistoryWriter* writer, BackendEvents* events, QObject* parent)
    : QObject(parent)
    , m_writer(writer)
{
    // Direct connections: the records reach the writer's queue before control returns to the
    // event loop, so no answered call sits in a batch timer when the process is killed.
    const auto record = [writer](const ToolCall& call) { writer->record(call); };
    connect(events, &BackendEvents::callStarted, this, record);
    connect(events, &BackendEvents::callChanged, this, record);
    connect(events, &BackendEvents::callFinished, this, record);
    connect(writer, &HistoryWriter::roomAvailable, this, &HistoryFeed::resumeWaiting, Qt::QueuedConnection);
}

bool HistoryFeed::hasRoom() const
{
    return m_writer->hasRoom();
}

void HistoryFeed::whenRoom(QObject* context, std::function<void()> resume)
{
    m_waiting.append({context, std::move(resume)});
    if (!m_held) {
        m_held = true;
        // One notice per burst of back-pressure, not one per turn of it.
        if (!m_lastNotice.isValid() || m_lastNotice.hasExpired(NoticeIntervalMs)) {
            m_lastNotice.start();
            m_noticeGiven = true;
            Q_EMIT callsHeld();
        }
    }
    // Room may have come back between the caller's check and now.
    if (m_writer->hasRoom() && !m_resuming)
        QMetaObject::invokeMethod(this, &HistoryFeed::resumeWaiting, Qt::QueuedConnection);
}

void HistoryFeed::resumeWaiting()
{
    if (m_resuming)
        return;
    m_resuming = true;
    // Each resume may ask again (appending to m_waiting): take the list first, and put back what
    // could not run when room runs out again.
    QList<Waiter> waiting = std::exchange(m_waiting, {});
    qsizetype next = 0;
    while (next < waiting.size() && m_writer->hasRoom()) {
        Waiter waiter = std::move(waiting[next++]);
        if (waiter.context)
            waiter.resume();
    }
    if (next < waiting.size()) {
        QList<Waiter> rest = waiting.mid(next);
        rest.append(m_waiting);
        m_waiting = std::move(rest);
    }
    m_resuming = false;
    if (m_waiting.isEmpty() && m_held) {
        m_held = false;
        if (std::exchange(m_noticeGiven, false))
            Q_EMIT callsResumed();
    }
}
