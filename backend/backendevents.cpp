#include "backendevents.h"

#include <QTimerEvent>

BackendEvents::BackendEvents(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ToolCall>();
    qRegisterMetaType<ToolCallList>();
}

// Every record leaves the backend with its name and error bounded (ToolCall::MaxToolChars,
// MaxErrorChars): this is the one door to the call log, history and the terminal.
void BackendEvents::publishCallStarted(const ToolCall& call)
{
    const ToolCall bounded = call.withBoundedText();
    Q_EMIT callStarted(bounded);
    queue(bounded);
}

void BackendEvents::publishCallFinished(const ToolCall& call)
{
    const ToolCall bounded = call.withBoundedText();
    Q_EMIT callFinished(bounded);
    queue(bounded);
}

void BackendEvents::publishCallChanged(const ToolCall& call)
{
    const ToolCall bounded = call.withBoundedText();
    Q_EMIT callChanged(bounded);
    queue(bounded);
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
