#include "sessionlistmodel.h"

#include "callcolumns.h"
#include "modelroles.h"

SessionListModel::SessionListModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int SessionListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_sessions.size());
}

int SessionListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SessionState& session = m_sessions.at(index.row());
    if (role == SessionIdRole)
        return session.id;
    if (role == Qt::ToolTipRole)
        return tr("Session %1\n%2 %3, protocol %4")
            .arg(session.id, session.clientName, session.clientVersion, session.protocolVersion);
    if (role == Qt::TextAlignmentRole && index.column() == CallsColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case ClientColumn:
        return session.clientName;
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

int SessionListModel::rowOf(const QString& sessionId) const
{
    for (int row = 0; row < m_sessions.size(); ++row) {
        if (m_sessions.at(row).id == sessionId)
            return row;
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
            const int end = int(m_sessions.size());
            beginInsertRows({}, end, end);
            m_sessions.append(state);
            endInsertRows();
        }
    }
}
