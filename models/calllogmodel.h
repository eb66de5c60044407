#pragma once

// CallLogModel: the live call log. Fed by the backend's coalesced batches: each batch inserts its new
// calls in one beginInsertRows and updates known ones in place. Bounded: beyond its capacity the
// oldest rows leave (they stay in history). Oldest at the top, like a log.

#include "callcolumns.h"
#include "tools/toolcall.h"

#include <QAbstractTableModel>
#include <QHash>

#include <deque>

class CallLogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit CallLogModel(int capacity = 10'000, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int capacity() const { return m_capacity; }
    const ToolCall& callAt(int row) const;
    // The row of the call with this id, or an invalid index when it is not (or no longer) shown.
    QModelIndex indexOfCall(qint64 id, int column = 0) const;
    // How many rows left because of the capacity since the model was created or cleared.
    qint64 droppedCount() const { return m_dropped; }

public Q_SLOTS:
    // Live calls (and calls loaded from history): unknown calls are inserted in id order, known
    // ones updated.
    void applyUpdates(const ToolCallList& calls);
    void clear();

Q_SIGNALS:
    void rowsDropped(qint64 totalDropped);

private:
    int rowOf(qint64 id) const;
    void insertSorted(const ToolCallList& calls);
    void trimToCapacity();

    int m_capacity;
    std::deque<ToolCall> m_calls;
    qint64 m_dropped = 0;
};
