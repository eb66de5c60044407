#pragma once

// ToolListModel: the tools the backend offers now (the Tools view), one row per tool in the order
// the backend lists them (by name). The whole list (toolsListed) replaces the rows. FilterRole
// holds the name, title, route and description in lower case for a filter proxy.

#include "toolinfo.h"

#include <QAbstractTableModel>

class ToolListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        NameColumn,
        RouteColumn,
        HintsColumn, // the annotations' hints as words ("read-only", "destructive", …)
        DescriptionColumn, // its first line; the whole description in the tooltip
        NumColumns,
    };

    explicit ToolListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    ToolInfo tool(int row) const { return m_tools.value(row); }
    int rowOf(const QString& name) const;

    // The hints a tool's annotations set to true, as words in a fixed order (read-only, destructive,
    // idempotent, open world); hints it leaves out or sets to false are not named.
    static QStringList hintLabels(const ToolInfo& tool);
    // What every hint says, set, unset or left to the default, for a tooltip.
    static QString hintsDescription(const ToolInfo& tool);

public Q_SLOTS:
    void setTools(const ToolInfoList& tools);

private:
    ToolInfoList m_tools;
};
