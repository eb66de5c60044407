#include "calllogmodel.h"

#include "modelroles.h"

#include <QFont>

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

bool CallLogModel::keepsPastWindow(CallStatus status)
{
    return isFailureStatus(status) || status == CallStatus::Running || status == CallStatus::Paused;
}

int CallLogModel::keptCapacity() const
{
    return qMax(100, m_capacity / 5);
}

qint64 CallLogModel::keptByteBudget() const
{
    return m_byteBudget / 8;
}

CallLogModel::Origin CallLogModel::originAt(int row) const
{
    return m_rows.at(std::size_t(row)).origin;
}

qint64 CallLogModel::oldestId() const
{
    return m_rows.empty() ? 0 : m_rows.front().call.id;
}

qint64 CallLogModel::oldestLiveId() const
{
    const std::size_t ringStart = std::size_t(m_historyRows + m_keptRows);
    return ringStart < m_rows.size() ? m_rows[ringStart].call.id : 0;
}

void CallLogModel::addRegionBytes(std::size_t row, qint64 bytes)
{
    m_retainedBytes += bytes;
    switch (m_rows[row].origin) {
    case Origin::History:
        m_historyBytes += bytes;
        break;
    case Origin::Kept:
        m_keptBytes += bytes;
        break;
    case Origin::Live:
        break;
    }
}

void CallLogModel::removeOlderRows(const std::vector<std::size_t>& rows)
{
    // From the last run to the first, so the rows before a run keep their numbers; one removal per
    // run of adjacent rows.
    std::size_t end = rows.size();
    while (end > 0) {
        std::size_t begin = end - 1;
        while (begin > 0 && rows[begin - 1] + 1 == rows[begin])
            --begin;
        const std::size_t first = rows[begin];
        const std::size_t last = rows[end - 1];
        beginRemoveRows({}, int(first), int(last));
        for (std::size_t row = first; row <= last; ++row) {
            const Row& leaving = m_rows[row];
            m_retainedBytes -= leaving.retainedBytes;
            if (leaving.origin == Origin::History) {
                m_historyBytes -= leaving.retainedBytes;
                --m_historyRows;
            } else {
                m_keptBytes -= leaving.retainedBytes;
                --m_keptRows;
            }
        }
        m_rows.erase(m_rows.begin() + qsizetype(first), m_rows.begin() + qsizetype(last + 1));
        endRemoveRows();
        end = begin;
    }
}

CallLogModel::Row CallLogModel::makeRow(const ToolCall& call)
{
    Row row;
    row.call = call;
    // A call read from history may come with previews already; its whole sizes come with it.
    row.preview.requestBytes = call.hasBodyPreviews() ? call.wholeRequestBytes : call.request.size();
    row.preview.responseBytes = call.hasBodyPreviews() ? call.wholeResponseBytes : call.response.size();
    row.preview.detailsBytes = call.details.size();
    row.preview.timelineBytes = call.timeline.size();
    row.preview.errorChars = call.error.size();
    // left() of a shorter array shares it; a cut copies only the preview, so the whole body is freed
    // when the batch that carried it goes.
    if (call.request.size() > PreviewBytes)
        row.call.request = call.request.left(PreviewBytes);
    if (call.response.size() > PreviewBytes)
        row.call.response = call.response.left(PreviewBytes);
    if (call.error.size() > PreviewBytes)
        row.call.error = call.error.left(PreviewBytes);
    // Details and a timeline are JSON, which a cut would break: kept whole when small, otherwise
    // left to history (a timeline can hold 64 KiB).
    if (call.details.size() > PreviewBytes)
        row.call.details = QByteArray();
    if (call.timeline.size() > PreviewBytes)
        row.call.timeline = QByteArray();
    row.preview.truncated = call.hasBodyPreviews() || row.call.request.size() != call.request.size()
        || row.call.response.size() != call.response.size() || row.call.error.size() != call.error.size()
        || row.call.details.size() != call.details.size() || row.call.timeline.size() != call.timeline.size();
    const ToolCall& kept = row.call;
    row.retainedBytes = RowOverheadBytes + kept.request.size() + kept.response.size() + kept.details.size()
        + kept.timeline.size() + kept.decision.size() + stringBytes(kept.error) + stringBytes(kept.sessionId)
        + stringBytes(kept.clientName) + stringBytes(kept.clientVersion) + stringBytes(kept.tool)
        + stringBytes(kept.route.owner);
    return row;
}

void CallLogModel::replaceRow(std::size_t row, const ToolCall& call)
{
    Row& target = m_rows[row];
    const Origin origin = target.origin;
    addRegionBytes(row, -target.retainedBytes);
    target = makeRow(call);
    target.origin = origin;
    addRegionBytes(row, target.retainedBytes);
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
    const Row& row = m_rows[std::size_t(index.row())];
    switch (role) {
    case OriginRole:
        return int(row.origin);
    case Qt::FontRole:
        if (row.origin == Origin::History) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == CallColumns::TimeColumn && row.origin != Origin::Live) {
            const QString when = CallColumns::data(row.call, index.column(), role).toString();
            return row.origin == Origin::History
                ? tr("%1\nFrom history: older than the live log").arg(when)
                : tr("%1\nKept past the live log's window because it failed or was still waiting").arg(when);
        }
        break;
    }
    return CallColumns::data(row.call, index.column(), role);
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
        m_received += appended.size();
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
    // Above kept or history rows there is no ring to add to: older calls are left to history.
    const qsizetype room
        = m_historyRows + m_keptRows > 0 ? 0 : qMax<qsizetype>(0, m_capacity - qsizetype(m_rows.size()));
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
        m_received += take;
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
        if (row < m_historyRows + m_keptRows)
            continue; // older than the ring: history has it
        Row inserted = makeRow(call);
        m_retainedBytes += inserted.retainedBytes;
        beginInsertRows({}, row, row);
        m_rows.insert(m_rows.begin() + row, std::move(inserted));
        ++m_received;
        endInsertRows();
    }
}

void CallLogModel::trimToLimits()
{
    const qint64 droppedBefore = m_dropped;
    // The ring's oldest rows first: rows beyond the capacity, then as many as the byte budget needs.
    // The newest row always stays (a preview is far below the smallest budget).
    const std::size_t ringStart = std::size_t(m_historyRows + m_keptRows);
    const std::size_t ringRows = m_rows.size() - ringStart;
    std::size_t excess = ringRows > std::size_t(m_capacity) ? ringRows - std::size_t(m_capacity) : 0;
    qint64 ringBytesAfter = m_retainedBytes - m_historyBytes - m_keptBytes;
    for (std::size_t i = 0; i < excess; ++i)
        ringBytesAfter -= m_rows[ringStart + i].retainedBytes;
    while (ringBytesAfter > m_byteBudget && excess + 1 < ringRows)
        ringBytesAfter -= m_rows[ringStart + excess++].retainedBytes;
    if (excess > 0) {
        // Of the rows leaving the ring, failures and waiting calls become kept rows, where they
        // already are: just below the kept ones, in id order. When they lead the leaving rows they
        // stay put; otherwise the leaving rows go in one removal and the kept ones come back in one
        // insertion, two signals however the statuses mix.
        std::size_t leading = 0;
        while (leading < excess && keepsPastWindow(m_rows[ringStart + leading].call.status))
            ++leading;
        std::vector<Row> kept;
        for (std::size_t i = leading; i < excess; ++i) {
            if (keepsPastWindow(m_rows[ringStart + i].call.status))
                kept.push_back(m_rows[ringStart + i]);
        }
        for (std::size_t i = 0; i < leading; ++i) {
            m_rows[ringStart + i].origin = Origin::Kept;
            m_keptBytes += m_rows[ringStart + i].retainedBytes;
        }
        m_keptRows += int(leading);
        const std::size_t removeFrom = ringStart + leading;
        const std::size_t removeCount = excess - leading;
        if (removeCount > 0) {
            qint64 removedBytes = 0;
            for (std::size_t i = 0; i < removeCount; ++i)
                removedBytes += m_rows[removeFrom + i].retainedBytes;
            beginRemoveRows({}, int(removeFrom), int(removeFrom + removeCount) - 1);
            m_rows.erase(m_rows.begin() + qsizetype(removeFrom), m_rows.begin() + qsizetype(removeFrom + removeCount));
            m_retainedBytes -= removedBytes;
            endRemoveRows();
            m_dropped += qint64(removeCount - kept.size());
        }
        if (!kept.empty()) {
            beginInsertRows({}, int(removeFrom), int(removeFrom + kept.size()) - 1);
            for (Row& row : kept) {
                row.origin = Origin::Kept;
                m_retainedBytes += row.retainedBytes;
                m_keptBytes += row.retainedBytes;
            }
            m_rows.insert(m_rows.begin() + qsizetype(removeFrom), std::make_move_iterator(kept.begin()),
                std::make_move_iterator(kept.end()));
            m_keptRows += int(kept.size());
            endInsertRows();
        }
    }
    trimKept();
    if (m_dropped != droppedBefore)
        Q_EMIT rowsDropped(m_dropped);
}

void CallLogModel::trimKept()
{
    // The oldest kept rows leave first; history matches between them stay.
    std::size_t excess = m_keptRows > keptCapacity() ? std::size_t(m_keptRows - keptCapacity()) : 0;
    const std::size_t olderRows = std::size_t(m_historyRows + m_keptRows);
    std::vector<std::size_t> kept;
    kept.reserve(std::size_t(m_keptRows));
    for (std::size_t row = 0; row < olderRows; ++row) {
        if (m_rows[row].origin == Origin::Kept)
            kept.push_back(row);
    }
    qint64 keptAfter = m_keptBytes;
    for (std::size_t i = 0; i < excess; ++i)
        keptAfter -= m_rows[kept[i]].retainedBytes;
    while (keptAfter > keptByteBudget() && excess < kept.size())
        keptAfter -= m_rows[kept[excess++]].retainedBytes;
    if (excess == 0)
        return;
    kept.resize(excess);
    removeOlderRows(kept);
    m_dropped += qint64(excess);
}

int CallLogModel::addHistoryMatches(const ToolCallList& calls)
{
    // Whatever the live ring does not cover: below its oldest row, among the kept rows, in id order.
    const qint64 liveId = oldestLiveId();
    const qint64 limitId = liveId == 0 ? std::numeric_limits<qint64>::max() : liveId;
    ToolCallList older;
    for (const ToolCall& call : calls) {
        if (call.id < limitId && rowOf(call.id) < 0)
            older.append(call);
    }
    std::sort(older.begin(), older.end(), [](const ToolCall& l, const ToolCall& r) { return l.id < r.id; });
    older.erase(
        std::unique(older.begin(), older.end(), [](const ToolCall& l, const ToolCall& r) { return l.id == r.id; }),
        older.end());
    // The newest of them, as many as there is room for.
    const qsizetype take = qMin<qsizetype>(older.size(), qMax(0, HistoryCapacity - m_historyRows));
    for (qsizetype i = older.size() - take; i < older.size(); ++i) {
        const ToolCall& call = older.at(i);
        const auto end = m_rows.begin() + (m_historyRows + m_keptRows);
        const auto it = std::lower_bound(
            m_rows.begin(), end, call.id, [](const Row& r, qint64 value) { return r.call.id < value; });
        const int row = int(it - m_rows.begin());
        Row inserted = makeRow(call);
        inserted.origin = Origin::History;
        beginInsertRows({}, row, row);
        m_historyBytes += inserted.retainedBytes;
        m_retainedBytes += inserted.retainedBytes;
        m_rows.insert(m_rows.begin() + row, std::move(inserted));
        ++m_historyRows;
        endInsertRows();
    }
    return int(take);
}

void CallLogModel::clearHistoryMatches()
{
    if (m_historyRows == 0)
        return;
    std::vector<std::size_t> rows;
    rows.reserve(std::size_t(m_historyRows));
    for (std::size_t row = 0; row < std::size_t(m_historyRows + m_keptRows); ++row) {
        if (m_rows[row].origin == Origin::History)
            rows.push_back(row);
    }
    removeOlderRows(rows);
}

void CallLogModel::snapshotFrom(const CallLogModel& other)
{
    beginResetModel();
    m_rows = other.m_rows;
    m_retainedBytes = other.m_retainedBytes;
    m_historyRows = other.m_historyRows;
    m_keptRows = other.m_keptRows;
    m_historyBytes = other.m_historyBytes;
    m_keptBytes = other.m_keptBytes;
    m_received = other.m_received;
    m_dropped = other.m_dropped;
    endResetModel();
}

void CallLogModel::refreshFrom(const CallLogModel& other, int otherRow)
{
    const Row& source = other.m_rows.at(std::size_t(otherRow));
    const int row = rowOf(source.call.id);
    if (row < 0)
        return;
    Row& target = m_rows[std::size_t(row)];
    const Origin origin = target.origin;
    addRegionBytes(std::size_t(row), source.retainedBytes - target.retainedBytes);
    target = source;
    target.origin = origin;
    Q_EMIT dataChanged(index(row, 0), index(row, CallColumns::NumColumns - 1));
}

void CallLogModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_retainedBytes = 0;
    m_dropped = 0;
    m_received = 0;
    m_historyRows = 0;
    m_keptRows = 0;
    m_historyBytes = 0;
    m_keptBytes = 0;
    endResetModel();
}
