#pragma once

// HistoryModel: one page of calls found in history. Each answer replaces the previous one whole.

#include "callcolumns.h"
#include "toolcall.h"

#include <QAbstractTableModel>

class HistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const ToolCall& callAt(int row) const { return m_calls.at(row); }
    bool hasMore() const { return m_hasMore; }
    // The id to continue from for the next (older) page.
    qint64 oldestId() const { return m_calls.isEmpty() ? 0 : m_calls.last().id; }

public Q_SLOTS:
    void setResults(const ToolCallList& calls, bool hasMore);
    void clear();

private:
    ToolCallList m_calls; // newest first
    bool m_hasMore = false;
};
