#include "historymodel.h"

int HistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_calls.size());
}

int HistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : CallColumns::NumColumns;
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    return CallColumns::data(m_calls.at(index.row()), index.column(), role);
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    return CallColumns::headerData(section, orientation, role);
}

void HistoryModel::setResults(const ToolCallList& calls, bool hasMore)
{
    beginResetModel();
    m_calls = calls;
    m_hasMore = hasMore;
    endResetModel();
}

void HistoryModel::clear()
{
    setResults({}, false);
}
