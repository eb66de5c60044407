#include "backendevents.h"

#include <QTimerEvent>

BackendEvents::BackendEvents(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ToolCall>();
    qRegisterMetaType<ToolCallList>();
}

void BackendEvents::publishCallStarted(const ToolCall& call)
{
    Q_EMIT callStarted(call);
    queue(call);
}

void BackendEvents::publishCallFinished(const ToolCall& call)
{
    Q_EMIT callFinished(call);
    queue(call);
}

void BackendEvents::publishCallChanged(const ToolCall& call)
{
    Q_EMIT callChanged(call);
    queue(call);
}

void BackendEvents::queue(const ToolCall& call)
{
    const auto it = m_pendingIndex.constFind(call.id);
    if (it != m_pendingIndex.constEnd()) {
        m_pending[*it] = call;
    } else {
        m_pendingIndex.insert(call.id, m_pending.size());
        m_pending.append(call);
    }
    if (!m_batchTimer.isActive())
        m_batchTimer.start(BatchIntervalMs, Qt::PreciseTimer, this);
}

void BackendEvents::flush()
{
    m_batchTimer.stop();
    if (m_pending.isEmpty())
        return;
    ToolCallList batch;
    batch.swap(m_pending);
    m_pendingIndex.clear();
    Q_EMIT callsUpdated(batch);
}

void BackendEvents::timerEvent(QTimerEvent* event)
{
    if (event->timerId() == m_batchTimer.timerId())
        flush();
    else
        QObject::timerEvent(event);
}
