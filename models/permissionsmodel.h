#pragma once

// PermissionsModel: what lets a tool call run without asking, or stops it, one row each: the
// configuration's rules (not revocable here), "always allow" grants and "allow for this session"
// grants, with their scope and who granted them when. The whole list (grantsListed, grantsChanged)
// replaces the rows.

#include "permissionentry.h"

#include <QAbstractTableModel>

class PermissionsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // A window holding several backends: each row names its backend (the fleet sets it on every state).
    void setBackendsShown(bool shown);
    enum Columns {
        SubjectColumn, // the tool, adapter or sink, or "every other tool"
        PermissionColumn,
        SourceColumn, // Configuration, Always, This session
        ClientColumn,
        ArgumentsColumn,
        GrantedByColumn,
        GrantedAtColumn,
        WhereColumn, // a rule's place in the configuration, a grant's session or id
        NumColumns,
    };

    explicit PermissionsModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    PermissionEntry entry(int row) const { return m_entries.value(row); }
    // The row of the grant with this id, or -1.
    int rowOf(const QString& grantId) const;

    void setEntries(const PermissionEntryList& entries);

private:
    bool m_backendsShown = false;
    PermissionEntryList m_entries;
};
