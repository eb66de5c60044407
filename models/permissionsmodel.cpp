#include "permissionsmodel.h"

#include "callcolumns.h"
#include "modelroles.h"
#include "toolcall.h"

#include <QFont>

namespace {

// Arguments on one line, as far as a column shows them; the tooltip has them whole.
constexpr qsizetype MaxArgumentChars = 200;

} // namespace

PermissionsModel::PermissionsModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int PermissionsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int PermissionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant PermissionsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PermissionEntry& entry = m_entries.at(index.row());
    const bool rule = !entry.isRevocable();
    if (role == GrantIdRole)
        return entry.id;
    if (role == Qt::ToolTipRole) {
        if (rule)
            return tr("From the configuration (%1). Not revocable here: change the configuration file.")
                .arg(entry.origin);
        if (index.column() == ArgumentsColumn && !entry.anyArguments())
            return QString::fromUtf8(entry.arguments);
        return entry.source == PermissionEntry::Source::Session
            ? tr("Allowed for session %1 of %2 until it ends; Delete revokes it.")
                  .arg(entry.sessionId, entry.clientName)
            : tr("Granted by %1; kept across restarts until revoked (Delete).")
                  .arg(entry.grantedBy.isEmpty() ? tr("an earlier version (who and when not recorded)")
                                                 : entry.grantedBy);
    }
    if (role == Qt::FontRole && rule) {
        QFont font;
        font.setItalic(true); // not a grant: read only here
        return font;
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    // Where a rule or grant is, and on which backend (SortRole gives the place alone).
    if (role == Qt::DisplayRole && index.column() == WhereColumn && m_backendsShown && !entry.backend.isEmpty())
        return QString(data(index, SortRole).toString() + QStringLiteral(" · ") + entry.backend);
    switch (index.column()) {
    case SubjectColumn:
        return entry.subject;
    case PermissionColumn:
        return entry.permission;
    case SourceColumn:
        return permissionSourceLabel(entry.source);
    case ClientColumn:
        return rule ? QString() : entry.everyClient() ? tr("every client") : entry.clientName;
    case ArgumentsColumn:
        if (rule)
            return QString();
        if (entry.anyArguments())
            return tr("any");
        return role == SortRole ? QString::fromUtf8(entry.arguments)
                                : ToolCall::boundedText(QString::fromUtf8(entry.arguments), MaxArgumentChars);
    case GrantedByColumn:
        return entry.grantedBy;
    case GrantedAtColumn:
        return role == SortRole ? QVariant(entry.grantedAtMs)
                                : QVariant(CallColumns::formatTimeOrDate(entry.grantedAtMs));
    case WhereColumn:
        if (rule)
            return entry.origin;
        if (entry.source == PermissionEntry::Source::Session)
            return tr("session %1").arg(entry.sessionId.left(8) + QStringLiteral("…"));
        return entry.id;
    default:
        return {};
    }
}

QVariant PermissionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case SubjectColumn:
        return tr("Tool");
    case PermissionColumn:
        return tr("Permission");
    case SourceColumn:
        return tr("From");
    case ClientColumn:
        return tr("Client");
    case ArgumentsColumn:
        return tr("Arguments");
    case GrantedByColumn:
        return tr("Granted by");
    case GrantedAtColumn:
        return tr("Since");
    case WhereColumn:
        return tr("Rule or grant");
    default:
        return {};
    }
}

int PermissionsModel::rowOf(const QString& grantId) const
{
    if (grantId.isEmpty())
        return -1;
    for (int row = 0; row < m_entries.size(); ++row) {
        if (m_entries.at(row).id == grantId)
            return row;
    }
    return -1;
}

void PermissionsModel::setEntries(const PermissionEntryList& entries)
{
    beginResetModel();
    m_entries = entries;
    endResetModel();
}

void PermissionsModel::setBackendsShown(bool shown)
{
    if (shown == m_backendsShown)
        return;
    m_backendsShown = shown;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, WhereColumn), index(rowCount() - 1, WhereColumn), {Qt::DisplayRole});
}
