#include "sessionlistmodel.h"

#include "callcolumns.h"
#include "callenvelope.h"
#include "modelroles.h"

#include <algorithm>

SessionListModel::SessionListModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int SessionListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_sessions.size() + m_clients.size());
}

int SessionListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const bool stateless = isStateless(index.row());
    const SessionState& session
        = stateless ? m_clients.at(index.row() - m_sessions.size()) : m_sessions.at(index.row());
    if (role == SessionIdRole)
        return session.id;
    if (role == Qt::ToolTipRole) {
        if (!stateless)
            return tr("Session %1\n%2 %3, protocol %4")
                .arg(session.id, session.clientName, session.clientVersion, session.protocolVersion);
        return tr("%1 %2, protocol %3: stateless, with no session (each request stands alone); its calls are "
                  "grouped by the client they name (clientInfo)")
            .arg(session.clientName.isEmpty() ? tr("(unnamed client)") : session.clientName, session.clientVersion,
                session.protocolVersion);
    }
    if (role == Qt::TextAlignmentRole && index.column() == CallsColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case ClientColumn: {
        const QString client = stateless && session.clientName.isEmpty() && role == Qt::DisplayRole
            ? tr("(unnamed client)")
            : session.clientName;
        return m_backendsShown && role == Qt::DisplayRole && !session.backend.isEmpty()
            ? client + QStringLiteral(" · ") + session.backend
            : client;
    }
    case VersionColumn:
        return session.clientVersion;
    case StartedColumn:
        return role == SortRole ? QVariant(session.startedAtMs)
                                : QVariant(CallColumns::formatTimeOrDate(session.startedAtMs));
    case LastActivityColumn:
        return role == SortRole ? QVariant(session.lastActivityMs)
                                : QVariant(CallColumns::formatTimeOrDate(session.lastActivityMs));
    case CallsColumn:
        return session.calls;
    case ProtocolColumn:
        return session.protocolVersion;
    case SessionColumn:
        if (stateless)
            return role == SortRole ? QString() : tr("none (stateless)");
        return role == SortRole ? session.id : session.id.left(8) + QStringLiteral("…");
    default:
        return {};
    }
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ClientColumn:
        return tr("Client");
    case VersionColumn:
        return tr("Version");
    case StartedColumn:
        return tr("Started");
    case LastActivityColumn:
        return tr("Last activity");
    case CallsColumn:
        return tr("Calls");
    case ProtocolColumn:
        return tr("Protocol");
    case SessionColumn:
        return tr("Session");
    default:
        return {};
    }
}

SessionState SessionListModel::session(int row) const
{
    if (row >= 0 && row < m_sessions.size())
        return m_sessions.at(row);
    return m_clients.value(row - m_sessions.size());
}

int SessionListModel::rowOf(const QString& sessionId) const
{
    for (int row = 0; row < m_sessions.size(); ++row) {
        if (m_sessions.at(row).id == sessionId)
            return row;
    }
    return -1;
}

int SessionListModel::rowOfClient(const QString& clientName, const QString& clientVersion) const
{
    for (int at = 0; at < m_clients.size(); ++at) {
        if (m_clients.at(at).clientName == clientName && m_clients.at(at).clientVersion == clientVersion)
            return int(m_sessions.size()) + at;
    }
    return -1;
}

void SessionListModel::setSessions(const SessionStateList& sessions)
{
    beginResetModel();
    m_sessions.clear();
    for (const SessionState& session : sessions) {
        if (!session.ended)
            m_sessions.append(session);
    }
    endResetModel();
}

void SessionListModel::applySessionStates(const SessionStateList& states)
{
    for (const SessionState& state : states) {
        const int row = rowOf(state.id);
        if (state.ended) {
            if (row < 0)
                continue;
            beginRemoveRows({}, row, row);
            m_sessions.removeAt(row);
            endRemoveRows();
        } else if (row >= 0) {
            m_sessions[row] = state;
            Q_EMIT dataChanged(index(row, 0), index(row, NumColumns - 1));
        } else {
            const int end = int(m_sessions.size()); // before the stateless clients' rows
            beginInsertRows({}, end, end);
            m_sessions.append(state);
            endInsertRows();
        }
    }
}

bool SessionListModel::remember(qint64 callId)
{
    if (callId <= m_forgottenUpTo || m_counted.contains(callId))
        return false;
    m_counted.insert(callId);
    m_countedOrder.push_back(callId);
    if (m_countedOrder.size() > size_t(RememberedCalls)) {
        // Ids grow with every call: one forgotten here started long ago and was counted then.
        m_forgottenUpTo = std::max(m_forgottenUpTo, m_countedOrder.front());
        m_counted.remove(m_countedOrder.front());
        m_countedOrder.pop_front();
    }
    return true;
}

void SessionListModel::addCalls(const ToolCallList& calls)
{
    QSet<int> changed; // indexes into m_clients
    for (const ToolCall& call : calls) {
        // A call of a listed session is the session's (its state counts it); the envelope is read
        // only for the rest, and only the first time a call is seen.
        if (rowOf(call.sessionId) >= 0)
            continue;
        const bool known = m_counted.contains(call.id);
        QString version;
        if (!known) {
            version = CallEnvelope::of(call.request).version;
            if (version.isEmpty())
                continue; // a 2025 call of a session not listed (the console's own, a runner's)
        }
        const qint64 endMs = call.durationUs >= 0 ? call.startedAtMs + call.durationUs / 1000 : call.startedAtMs;
        const int row = rowOfClient(call.clientName, call.clientVersion);
        if (row >= 0) {
            const qsizetype at = row - m_sessions.size();
            SessionState& client = m_clients[at];
            if (!known && remember(call.id)) {
                ++client.calls;
                client.protocolVersion = version;
            }
            client.startedAtMs = std::min(client.startedAtMs, call.startedAtMs);
            client.lastActivityMs = std::max(client.lastActivityMs, endMs);
            changed.insert(int(at));
            continue;
        }
        if (known)
            continue; // its client's row was dropped for newer ones
        if (m_clients.size() >= MaxStatelessClients) {
            const qsizetype drop
                = std::min_element(m_clients.cbegin(), m_clients.cend(),
                      [](const SessionState& a, const SessionState& b) { return a.lastActivityMs < b.lastActivityMs; })
                - m_clients.cbegin();
            beginRemoveRows({}, int(m_sessions.size() + drop), int(m_sessions.size() + drop));
            m_clients.removeAt(drop);
            endRemoveRows();
            // The rows after it moved up.
            QSet<int> moved;
            for (const int at : std::as_const(changed)) {
                if (at != drop)
                    moved.insert(at > drop ? at - 1 : at);
            }
            changed = moved;
        }
        SessionState client;
        client.clientName = call.clientName;
        client.clientVersion = call.clientVersion;
        client.protocolVersion = version;
        client.startedAtMs = call.startedAtMs;
        client.lastActivityMs = endMs;
        client.calls = remember(call.id) ? 1 : 0;
        const int end = rowCount();
        beginInsertRows({}, end, end);
        m_clients.append(client);
        endInsertRows();
    }
    if (changed.isEmpty())
        return;
    const auto [first, last] = std::minmax_element(changed.cbegin(), changed.cend());
    Q_EMIT dataChanged(
        index(int(m_sessions.size()) + *first, 0), index(int(m_sessions.size()) + *last, NumColumns - 1));
}

void SessionListModel::setBackendsShown(bool shown)
{
    if (shown == m_backendsShown)
        return;
    m_backendsShown = shown;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, ClientColumn), index(rowCount() - 1, ClientColumn), {Qt::DisplayRole});
}
