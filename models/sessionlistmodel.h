#pragma once

// SessionListModel: the clients of the MCP server: the sessions open on it, one row per session,
// oldest first, then the stateless (2026-07-28) clients, one row per client. The whole list of
// sessions (sessionsListed) replaces their rows; each later state changes its row, adds one for a
// new session, or removes the row of one that ended. A stateless client has no session (each request
// stands alone, in a session of its own that ends with its answer, which the server does not list):
// its calls (addCalls) are grouped by the client they name (clientInfo name and version), with the
// revision they named, so it is neither lost nor shown as one "session" per request.

#include "sessionstates.h"
#include "toolcall.h"

#include <QAbstractTableModel>
#include <QSet>

#include <deque>

class SessionListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // A window holding several backends: each row names its backend (the fleet sets it on every state).
    void setBackendsShown(bool shown);
    enum Columns {
        ClientColumn,
        VersionColumn,
        StartedColumn,
        LastActivityColumn,
        CallsColumn,
        ProtocolColumn,
        SessionColumn, // the start of the session id (the whole id in the tooltip); none for a stateless client
        NumColumns,
    };

    explicit SessionListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The most stateless clients listed: their names are whatever a client declares, so a client
    // sending a new name with every request must not grow the list without end. The least recently
    // active goes first.
    static constexpr int MaxStatelessClients = 200;
    // Calls remembered as counted (a call arrives again each time it changes).
    static constexpr int RememberedCalls = 10'000;

    // A stateless client's row: no session id; protocolVersion is the revision its latest call named,
    // startedAtMs its first call, lastActivityMs its latest call's start or end, calls its calls.
    SessionState session(int row) const;
    bool isStateless(int row) const { return row >= m_sessions.size() && row < rowCount(); }
    int sessionCount() const { return int(m_sessions.size()); }
    int statelessClientCount() const { return int(m_clients.size()); }
    int rowOf(const QString& sessionId) const;
    // The row of the stateless client with this name and version, or -1.
    int rowOfClient(const QString& clientName, const QString& clientVersion) const;

public Q_SLOTS:
    void setSessions(const SessionStateList& sessions);
    void applySessionStates(const SessionStateList& states);
    // Calls as the live log receives them: those of stateless requests count for their client's row.
    void addCalls(const ToolCallList& calls);

private:
    bool m_backendsShown = false;
    bool remember(qint64 callId);

    SessionStateList m_sessions;
    SessionStateList m_clients; // after the sessions' rows, in the order the clients first called
    QSet<qint64> m_counted;
    std::deque<qint64> m_countedOrder;
    qint64 m_forgottenUpTo = 0; // every call id up to this one was counted, or was not stateless
};
