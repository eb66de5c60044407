#include "securityeventmodel.h"

#include "callcolumns.h"
#include "modelroles.h"

#include <algorithm>

QString SecurityEventModel::kindLabel(SecurityEventKind kind)
{
    switch (kind) {
    case SecurityEventKind::MissingToken:
        return tr("No token");
    case SecurityEventKind::WrongToken:
        return tr("Wrong token");
    case SecurityEventKind::BadOrigin:
        return tr("Origin refused");
    case SecurityEventKind::BadHost:
        return tr("Host refused");
    }
    return {};
}

SecurityEventModel::SecurityEventModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int SecurityEventModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_events.size());
}

int SecurityEventModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant SecurityEventModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SecurityEvent& event = m_events.at(index.row());
    if (role == Qt::ToolTipRole && index.column() == DetailColumn)
        return event.detail;
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case TimeColumn:
        return role == SortRole ? QVariant(event.atMs)
                                : QVariant(CallColumns::formatLocalTime(event.atMs, QStringLiteral("HH:mm:ss")));
    case KindColumn:
        return kindLabel(event.kind);
    case RemoteColumn:
        return event.remoteAddress;
    case DetailColumn:
        return event.detail;
    default:
        return {};
    }
}

QVariant SecurityEventModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case KindColumn:
        return tr("Refused");
    case RemoteColumn:
        return tr("From");
    case DetailColumn:
        return tr("Detail");
    default:
        return {};
    }
}

void SecurityEventModel::addEvents(const SecurityEventList& events)
{
    if (events.isEmpty())
        return;
    m_total += events.size();
    // Only the newest MaxEvents of the batch can be shown.
    const qsizetype take = std::min<qsizetype>(events.size(), MaxEvents);
    beginInsertRows({}, 0, int(take) - 1);
    SecurityEventList newest;
    newest.reserve(take + m_events.size());
    for (qsizetype i = events.size() - 1; i >= events.size() - take; --i)
        newest.append(events.at(i));
    newest += m_events;
    m_events = std::move(newest);
    endInsertRows();
    if (m_events.size() > MaxEvents) {
        beginRemoveRows({}, MaxEvents, int(m_events.size()) - 1);
        m_events.resize(MaxEvents);
        endRemoveRows();
    }
    Q_EMIT totalChanged(m_total);
}

void SecurityEventModel::clear()
{
    beginResetModel();
    m_events.clear();
    m_total = 0;
    endResetModel();
    Q_EMIT totalChanged(0);
}
