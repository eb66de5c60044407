#include "calllogmodel.h"

#include <algorithm>

CallLogModel::CallLogModel(int capacity, QObject* parent)
    : QAbstractTableModel(parent)
    , m_capacity(qMax(1, capacity))
{
}

int CallLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_calls.size());
}

int CallLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : CallColumns::NumColumns;
}

QVariant CallLogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    return CallColumns::data(m_calls[std::size_t(index.row())], index.column(), role);
}

QVariant CallLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    return CallColumns::headerData(section, orientation, role);
}

const ToolCall& CallLogModel::callAt(int row) const
{
    return m_calls.at(std::size_t(row));
}

int CallLogModel::rowOf(qint64 id) const
{
    // Ids only grow, so the rows are sorted by id.
    const auto it = std::lower_bound(m_calls.begin(), m_calls.end(), id,
                                     [](const ToolCall& call, qint64 value) { return call.id < value; });
    if (it == m_calls.end() || it->id != id)
        return -1;
    return int(it - m_calls.begin());
}

QModelIndex CallLogModel::indexOfCall(qint64 id, int column) const
{
    const int row = rowOf(id);
    return row < 0 ? QModelIndex() : index(row, column);
}

void CallLogModel::applyUpdates(const ToolCallList& calls)
{
    ToolCallList appended;
    ToolCallList others;
    const qint64 lastId = m_calls.empty() ? 0 : m_calls.back().id;
    for (const ToolCall& call : calls) {
        if (call.id > lastId) {
            // A batch lists each call once, in start order: new calls arrive ascending.
            if (!appended.isEmpty() && appended.last().id >= call.id)
                others.append(call);
            else
                appended.append(call);
            continue;
        }
        const int row = rowOf(call.id);
        if (row >= 0) {
            m_calls[std::size_t(row)] = call;
            Q_EMIT dataChanged(index(row, 0), index(row, CallColumns::NumColumns - 1));
        } else {
            others.append(call);
        }
    }
    if (!appended.isEmpty()) {
        const int first = int(m_calls.size());
        beginInsertRows({}, first, first + int(appended.size()) - 1);
        m_calls.insert(m_calls.end(), appended.cbegin(), appended.cend());
        endInsertRows();
    }
    if (!others.isEmpty())
        insertSorted(others);
    trimToCapacity();
}

void CallLogModel::insertSorted(const ToolCallList& calls)
{
    ToolCallList sorted = calls;
    std::sort(sorted.begin(), sorted.end(), [](const ToolCall& l, const ToolCall& r) { return l.id < r.id; });
    // Calls older than everything shown (history loaded at start-up) go in one block at the top,
    // but only as many as the capacity leaves room for: the newest of them.
    const qint64 firstId = m_calls.empty() ? std::numeric_limits<qint64>::max() : m_calls.front().id;
    qsizetype olderCount = 0;
    while (olderCount < sorted.size() && sorted.at(olderCount).id < firstId)
        ++olderCount;
    const qsizetype room = qMax<qsizetype>(0, m_capacity - qsizetype(m_calls.size()));
    const qsizetype take = qMin(olderCount, room);
    if (take > 0) {
        beginInsertRows({}, 0, int(take) - 1);
        m_calls.insert(m_calls.begin(), sorted.cbegin() + (olderCount - take), sorted.cbegin() + olderCount);
        endInsertRows();
    }
    for (qsizetype i = olderCount; i < sorted.size(); ++i) {
        const ToolCall& call = sorted.at(i);
        const auto it = std::lower_bound(m_calls.begin(), m_calls.end(), call.id,
                                         [](const ToolCall& c, qint64 value) { return c.id < value; });
        const int row = int(it - m_calls.begin());
        if (it != m_calls.end() && it->id == call.id) {
            *it = call;
            Q_EMIT dataChanged(index(row, 0), index(row, CallColumns::NumColumns - 1));
            continue;
        }
        beginInsertRows({}, row, row);
        m_calls.insert(it, call);
        endInsertRows();
    }
}

void CallLogModel::trimToCapacity()
{
    const int excess = int(m_calls.size()) - m_capacity;
    if (excess <= 0)
        return;
    beginRemoveRows({}, 0, excess - 1);
    m_calls.erase(m_calls.begin(), m_calls.begin() + excess);
    endRemoveRows();
    m_dropped += excess;
    Q_EMIT rowsDropped(m_dropped);
}

void CallLogModel::clear()
{
    beginResetModel();
    m_calls.clear();
    m_dropped = 0;
    endResetModel();
}
