#include "events/backendevents.h"

#include <QTimerEvent>

BackendEvents::BackendEvents(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ToolCall>();
    qRegisterMetaType<ToolCallList>();
    qRegisterMetaType<QuestionUpdateList>();
    qRegisterMetaType<BreakerStateList>();
    qRegisterMetaType<AdapterStatusList>();
    qRegisterMetaType<RepositoryStateList>();
    qRegisterMetaType<TransferProgressList>();
    qRegisterMetaType<SessionStateList>();
    qRegisterMetaType<SecurityEventList>();
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
    m_calls.put(call.id, call);
    armBatch();
}

QuestionUpdate& BackendEvents::questionUpdate(const QString& id)
{
    if (const auto it = m_questions.index.constFind(id); it != m_questions.index.constEnd())
        return m_questions.items[*it];
    QuestionUpdate update;
    update.id = id;
    m_questions.put(id, update);
    return m_questions.items.last();
}

void BackendEvents::publishQuestionRaised(const PendingInteraction& question)
{
    QuestionUpdate& update = questionUpdate(question.id);
    update.raised = true;
    update.state = question;
    armBatch();
}

void BackendEvents::publishQuestionChanged(const PendingInteraction& question)
{
    questionUpdate(question.id).state = question;
    armBatch();
}

void BackendEvents::publishQuestionResolved(const QString& id, InteractionOutcome outcome)
{
    questionUpdate(id).resolved = outcome;
    armBatch();
}

void BackendEvents::publishBreakerState(const BreakerState& state)
{
    m_breakers.put(state.key(), state);
    armBatch();
}

void BackendEvents::publishAdapterStatus(const AdapterStatus& status)
{
    m_adapters.put(status.key(), status);
    armBatch();
}

void BackendEvents::publishRepositoryState(const RepositoryState& state)
{
    m_repositories.put(state.key(), state);
    armBatch();
}

void BackendEvents::publishRepositoryRemoved(const QString& path)
{
    m_repositories.remove(path);
    Q_EMIT repositoryRemoved(path);
}

void BackendEvents::publishTransferProgress(const TransferProgress& progress)
{
    m_transfers.put(progress.key(), progress);
    armBatch();
}

void BackendEvents::publishSessionState(const SessionState& state)
{
    m_sessions.put(state.key(), state);
    armBatch();
}

void BackendEvents::publishSecurityEvent(const SecurityEvent& event)
{
    if (m_securityEvents.size() >= MaxSecurityEventsPerBatch)
        m_securityEvents.removeFirst();
    m_securityEvents.append(event);
    armBatch();
}

void BackendEvents::armBatch()
{
    if (!m_batchTimer.isActive())
        m_batchTimer.start(BatchIntervalMs, Qt::PreciseTimer, this);
}

void BackendEvents::flush()
{
    m_batchTimer.stop();
    // Each list is taken before its signal goes out: a listener on this thread may publish again.
    if (!m_calls.isEmpty())
        Q_EMIT callsUpdated(m_calls.take());
    if (!m_questions.isEmpty())
        Q_EMIT questionsUpdated(m_questions.take());
    if (!m_breakers.isEmpty())
        Q_EMIT breakerStatesChanged(m_breakers.take());
    if (!m_adapters.isEmpty())
        Q_EMIT adapterStatusesChanged(m_adapters.take());
    if (!m_repositories.isEmpty())
        Q_EMIT repositoryStatesChanged(m_repositories.take());
    if (!m_transfers.isEmpty())
        Q_EMIT transfersChanged(m_transfers.take());
    if (!m_sessions.isEmpty())
        Q_EMIT sessionStatesChanged(m_sessions.take());
    if (!m_securityEvents.isEmpty())
        Q_EMIT securityEventsRecorded(std::exchange(m_securityEvents, {}));
}

void BackendEvents::timerEvent(QTimerEvent* event)
{
    if (event->timerId() == m_batchTimer.timerId())
        flush();
    else
        QObject::timerEvent(event);
}
