#pragma once

// BackendEvents: the event hub. What happens in the backend, published as value types from common/:
// calls, questions, and the states of upstream breakers, adapters, repositories and transfers.
// Lives on the backend thread.
//
// callStarted/callChanged/callFinished fire at once, for listeners on the backend thread (history
// takes every record from them, so a kill cannot catch an answered call in a batch timer).
// Listeners on other threads (models, the headless log) connect to callsUpdated instead: bursts are
// coalesced into one batch a few dozen times a second, each call appearing once with its newest state, so
// thousands of calls per second cost a few dozen queued events, not thousands. States are coalesced
// the same way, per key (an adapter's name, a repository's path, a transfer's id): each batch holds
// the newest state of every key that changed, in the order the keys first changed.

#include "backendstates.h"
#include "pendinginteraction.h"
#include "sessionstates.h"
#include "toolcall.h"

#include <QBasicTimer>
#include <QHash>
#include <QObject>

#include <utility>

class BackendEvents : public QObject
{
    Q_OBJECT
public:
    explicit BackendEvents(QObject* parent = nullptr);

    void publishCallStarted(const ToolCall& call);
    void publishCallFinished(const ToolCall& call);
    // A call changed without finishing (it paused, or resumed after a person answered).
    void publishCallChanged(const ToolCall& call);

    // A question for the person: raised, changed (a call attached or left), resolved.
    void publishQuestionRaised(const PendingInteraction& question);
    void publishQuestionChanged(const PendingInteraction& question);
    void publishQuestionResolved(const QString& id, InteractionOutcome outcome);

    void publishBreakerState(const BreakerState& state);
    void publishAdapterStatus(const AdapterStatus& status);
    void publishRepositoryState(const RepositoryState& state);
    // The repository view stopped showing `path`: told at once, and a state of it still waiting for
    // the next batch is dropped, so that no listener shows it again after hearing it went.
    void publishRepositoryRemoved(const QString& path);
    void publishTransferProgress(const TransferProgress& progress);
    // A client session opened, was used or ended (coalesced per session id).
    void publishSessionState(const SessionState& state);
    // A request refused at the door. A batch keeps the newest MaxSecurityEventsPerBatch: a client
    // hammering the server with bad tokens costs bounded memory and a bounded batch.
    void publishSecurityEvent(const SecurityEvent& event);

    // Emits the pending batch now (shutdown, tests).
    void flush();

    static constexpr int BatchIntervalMs = 40;
    static constexpr int MaxSecurityEventsPerBatch = 500;

Q_SIGNALS:
    void callStarted(const ToolCall& call);
    void callFinished(const ToolCall& call);
    void callChanged(const ToolCall& call);
    // The newest state of every call that started or changed since the previous batch, in the order
    // the calls started.
    void callsUpdated(const ToolCallList& calls);
    // Every question that was raised, changed or resolved since the previous batch, once each, in
    // the order they first appeared in it.
    void questionsUpdated(const QuestionUpdateList& questions);
    void breakerStatesChanged(const BreakerStateList& states);
    void adapterStatusesChanged(const AdapterStatusList& statuses);
    void repositoryStatesChanged(const RepositoryStateList& states);
    void repositoryRemoved(const QString& path);
    void transfersChanged(const TransferProgressList& transfers);
    void sessionStatesChanged(const SessionStateList& sessions);
    void securityEventsRecorded(const SecurityEventList& events);

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    // The newest value per key since the last batch, in the order the keys first appeared.
    template<typename T, typename Key>
    struct Coalesced
    {
        QList<T> items;
        QHash<Key, qsizetype> index;
        void put(const Key& key, const T& value)
        {
            const auto it = index.constFind(key);
            if (it != index.constEnd()) {
                items[*it] = value;
            } else {
                index.insert(key, items.size());
                items.append(value);
            }
        }
        QList<T> take()
        {
            index.clear();
            return std::exchange(items, {});
        }
        bool isEmpty() const { return items.isEmpty(); }
        void remove(const Key& key)
        {
            const auto it = index.constFind(key);
            if (it == index.constEnd())
                return;
            items.removeAt(*it);
            index.clear();
            for (qsizetype i = 0; i < items.size(); ++i)
                index.insert(items.at(i).key(), i);
        }
    };

    void queue(const ToolCall& call);
    void armBatch();

    QuestionUpdate& questionUpdate(const QString& id);

    Coalesced<ToolCall, qint64> m_calls;
    Coalesced<QuestionUpdate, QString> m_questions;
    Coalesced<BreakerState, QString> m_breakers;
    Coalesced<AdapterStatus, QString> m_adapters;
    Coalesced<RepositoryState, QString> m_repositories;
    Coalesced<TransferProgress, QString> m_transfers;
    Coalesced<SessionState, QString> m_sessions;
    SecurityEventList m_securityEvents; // oldest first, at most MaxSecurityEventsPerBatch
    QBasicTimer m_batchTimer;
};
