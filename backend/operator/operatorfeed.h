#pragma once

// OperatorFeed: the backend's state for operators, asked for whole and then followed. It follows
// the event hub's batches on the server thread and keeps the newest state of every adapter,
// breaker, repository and running transfer, the newest calls (as previews), security events and
// notices; questions, sessions and grants are read from their owners whenever the state is asked
// for. Every change goes out once, already serialised and numbered, for every subscriber to share:
// a thousand event streams cost one serialisation per batch.
//
// A subscriber takes state() and then hears changed() with every later sequence number. A change
// may repeat what the state already showed (a question raised in the batch not yet sent): changes
// are applied by key, so a repeat changes nothing.

#include "backendstates.h"
#include "pendinginteraction.h"
#include "permissionentry.h"
#include "sessionstates.h"
#include "toolcall.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>

#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <map>

class BackendEvents;

class OperatorFeed : public QObject
{
    Q_OBJECT
public:
    // Where the state that is not followed comes from; each called on the server thread.
    struct Sources
    {
        std::function<PendingInteractionList()> questions;
        std::function<SessionStateList()> sessions;
        std::function<PermissionEntryList()> grants;
        std::function<nlohmann::json()> server; // name, version, mcpUrl, startedAtMs, instance
    };

    static constexpr int MaxRecentCalls = 200;
    static constexpr int MaxSecurityEvents = 200;
    static constexpr int MaxNotices = 50;
    static constexpr qsizetype PreviewBytes = 2048;

    OperatorFeed(BackendEvents* events, Sources sources, QObject* parent = nullptr);

    // The whole state now, with the sequence number of the last change it includes.
    nlohmann::json state() const;
    quint64 sequence() const { return m_sequence; }
    // The notices kept (newest last), as state() has them.
    QStringList warnings() const;

    // What the event hub does not carry.
    void publishGrants(const PermissionEntryList& grants);
    // Something about history, the workspace state or the configuration the operator should read:
    // `kind` names the OperatorInterface signal it is (historyWriteFailed, historyWriteRecovered,
    // historyCallsLeftOut, historyNotice, workspaceStateProblem, workspaceStateNotice,
    // workspaceStateRecovered, configurationReloaded), `count` goes with the counting ones (-1: none).
    void publishNotice(const QString& kind, const QString& level, const QString& message, qint64 count = -1);
    // historyPruned, told live and not kept in the state.
    void publishHistoryPruned(qint64 total);
    void publishToolsChanged();
    // The repository view stopped showing `path`.
    void publishRepositoryRemoved(const QString& path);

Q_SIGNALS:
    // One change: `event` names it (calls, questions, sessions, adapters, breakers, repositories,
    // repositoryRemoved, transfers, security, grants, tools, notice), `data` is its compact JSON object.
    void changed(quint64 sequence, const QByteArray& event, const QByteArray& data);

private:
    void emitChange(const char* event, const nlohmann::json& data);

    Sources m_sources;
    quint64 m_sequence = 0;
    std::deque<ToolCall> m_recentCalls; // previews, oldest first
    std::map<QString, AdapterStatus> m_adapters;
    std::map<QString, BreakerState> m_breakers;
    std::map<QString, RepositoryState> m_repositories;
    std::map<QString, TransferProgress> m_transfers; // running ones
    std::deque<SecurityEvent> m_securityEvents;
    struct Notice
    {
        qint64 atMs = 0;
        QString kind;
        QString level;
        QString message;
        qint64 count = -1;
        nlohmann::json toJson() const;
    };
    std::deque<Notice> m_notices;
};
