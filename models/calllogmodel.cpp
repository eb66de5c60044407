#include "calllogmodel.h"

#include <algorithm>

namespace {

// What a row costs besides its strings: the Row itself and the deque's bookkeeping.
constexpr qint64 RowOverheadBytes = 256;

qint64 stringBytes(const QString& text)
{
    return qint64(text.size()) * qint64(sizeof(QChar));
}

} // namespace

CallLogModel::CallLogModel(int capacity, QObject* parent)
    : QAbstractTableModel(parent)
    , m_capacity(qMax(1, capacity))
{}

void CallLogModel::setByteBudget(qint64 bytes)
{
    m_byteBudget = qMax(MinByteBudget, bytes);
    trimToLimits();
}

CallLogModel::Row CallLogModel::makeRow(const ToolCall& call)
{
    Row row;
    row.call = call;
    // A call read from history may come with previews already; its whole sizes come with it.
    row.preview.requestBytes = call.hasBodyPreviews() ? call.wholeRequestBytes : call.request.size();
    row.preview.responseBytes = call.hasBodyPreviews() ? call.wholeResponseBytes : call.response.size();
    row.preview.detailsBytes = call.details.size();
    row.preview.errorChars = call.error.size();
    // left() of a shorter array shares it; a cut copies only the preview, so the whole body is freed
    // when the batch that carried it goes.
    if (call.request.size() > PreviewBytes)
        row.call.request = call.request.left(PreviewBytes);
    if (call.response.size() > PreviewBytes)
        row.call.response = call.response.left(PreviewBytes);
    if (call.error.size() > PreviewBytes)
        row.call.error = call.error.left(PreviewBytes);
    // Details are JSON, which a cut would break: kept whole when small, otherwise left to history.
    if (call.details.size() > PreviewBytes)
        row.call.details = QByteArray();
    row.preview.truncated = call.hasBodyPreviews() || row.call.request.size() != call.request.size()
        || row.call.response.size() != call.response.size() || row.call.error.size() != call.error.size()
        || row.call.details.size() != call.details.size();
    const ToolCall& kept = row.call;
    row.retainedBytes = RowOverheadBytes + kept.request.size() + kept.response.size() + kept.details.size()
        + stringBytes(kept.error) + stringBytes(kept.sessionId) + stringBytes(kept.clientName)
        + stringBytes(kept.clientVersion) + stringBytes(kept.tool) + stringBytes(kept.route.owner);
    return row;
}

void CallLogModel::replaceRow(std::size_t row, const ToolCall& call)
{
    Row& target = m_rows[row];
    m_retainedBytes -= target.retainedBytes;
    target = makeRow(call);
    m_retainedBytes += target.retainedBytes;
    Q_EMIT dataChanged(index(int(row), 0), index(int(row), CallColumns::NumColumns - 1));
}

int CallLogModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CallLogModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : CallColumns::NumColumns;
}

QVariant CallLogModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    return CallColumns::data(m_rows[std::size_t(index.row())].call, index.column(), role);
}

QVariant CallLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    return CallColumns::headerData(section, orientation, role);
}

const ToolCall& CallLogModel::callAt(int row) const
{
    return m_rows.at(std::size_t(row)).call;
}

CallPreview CallLogModel::previewAt(int row) const
{
    return m_rows.at(std::size_t(row)).preview;
}

int CallLogModel::rowOf(qint64 id) const
{
    // Ids only grow, so the rows are sorted by id.
    const auto it = std::lower_bound(
        m_rows.begin(), m_rows.end(), id, [](const Row& row, qint64 value) { return row.call.id < value; });
    if (it == m_rows.end() || it->call.id != id)
        return -1;
    return int(it - m_rows.begin());
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
    const qint64 lastId = m_rows.empty() ? 0 : m_rows.back().call.id;
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
        if (row >= 0)
            replaceRow(std::size_t(row), call);
        else
            others.append(call);
    }
    if (!appended.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(appended.size()) - 1);
        for (const ToolCall& call : std::as_const(appended)) {
            m_rows.push_back(makeRow(call));
            m_retainedBytes += m_rows.back().retainedBytes;
        }
        endInsertRows();
    }
    if (!others.isEmpty())
        insertSorted(others);
    trimToLimits();
}

void CallLogModel::insertSorted(const ToolCallList& calls)
{
    ToolCallList sorted = calls;
    std::sort(sorted.begin(), sorted.end(), [](const ToolCall& l, const ToolCall& r) { return l.id < r.id; });
    // Calls older than everything shown (history loaded at start-up) go in one block at the top,
    // but only as many as the capacity leaves room for: the newest of them.
    const qint64 firstId = m_rows.empty() ? std::numeric_limits<qint64>::max() : m_rows.front().call.id;
    qsizetype olderCount = 0;
    while (olderCount < sorted.size() && sorted.at(olderCount).id < firstId)
        ++olderCount;
    const qsizetype room = qMax<qsizetype>(0, m_capacity - qsizetype(m_rows.size()));
    const qsizetype take = qMin(olderCount, room);
    if (take > 0) {
        std::vector<Row> older;
        older.reserve(std::size_t(take));
        for (qsizetype i = olderCount - take; i < olderCount; ++i) {
            older.push_back(makeRow(sorted.at(i)));
            m_retainedBytes += older.back().retainedBytes;
        }
        beginInsertRows({}, 0, int(take) - 1);
        m_rows.insert(m_rows.begin(), std::make_move_iterator(older.begin()), std::make_move_iterator(older.end()));
        endInsertRows();
    }
    for (qsizetype i = olderCount; i < sorted.size(); ++i) {
        const ToolCall& call = sorted.at(i);
        const auto it = std::lower_bound(
            m_rows.begin(), m_rows.end(), call.id, [](const Row& r, qint64 value) { return r.call.id < value; });
        const int row = int(it - m_rows.begin());
        if (it != m_rows.end() && it->call.id == call.id) {
            replaceRow(std::size_t(row), call);
            continue;
        }
        Row inserted = makeRow(call);
        m_retainedBytes += inserted.retainedBytes;
        beginInsertRows({}, row, row);
        m_rows.insert(m_rows.begin() + row, std::move(inserted));
        endInsertRows();
    }
}

void CallLogModel::trimToLimits()
{
    // Oldest first: rows beyond the capacity, then as many as the byte budget needs. The newest
    // row always stays (a preview is far below the smallest budget).
    std::size_t excess = m_rows.size() > std::size_t(m_capacity) ? m_rows.size() - std::size_t(m_capacity) : 0;
    qint64 retainedAfter = m_retainedBytes;
    for (std::size_t i = 0; i < excess; ++i)
        retainedAfter -= m_rows[i].retainedBytes;
    while (retainedAfter > m_byteBudget && excess + 1 < m_rows.size())
        retainedAfter -= m_rows[excess++].retainedBytes;
    if (excess == 0)
        return;
    beginRemoveRows({}, 0, int(excess) - 1);
    m_rows.erase(m_rows.begin(), m_rows.begin() + qsizetype(excess));
    m_retainedBytes = retainedAfter;
    endRemoveRows();
    m_dropped += qint64(excess);
    Q_EMIT rowsDropped(m_dropped);
}

void CallLogModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_retainedBytes = 0;
    m_dropped = 0;
    endResetModel();
}
