#pragma once

// CallLogModel: the live call log. Fed by the backend's coalesced batches: each batch inserts its new
// calls in one beginInsertRows and updates known ones in place. Bounded by rows and by bytes: a row
// keeps only a preview of the request, response and error (the first PreviewBytes of each, marked as
// cut), and beyond either limit the oldest rows leave. Whole calls stay in history, which the
// inspector asks when a cut call is selected. Oldest at the top, like a log.
//
// At real rates the capacity covers well under a second, so a failed call or one still waiting would
// scroll out before anyone saw it: those the ring lets go stay as "kept" rows above it, a side set
// bounded by its own count and bytes (oldest kept rows leave first). Among those, calls found in
// history (addHistoryMatches: a filter's matches, a call asked for by number) can be shown, older
// than every live row and marked as such. Rows are always in id order:
// [kept rows and history matches, interleaved by id][the ring of the newest calls].

#include "callcolumns.h"
#include "toolcall.h"

#include <QAbstractTableModel>

#include <deque>

// What a row knows about the whole call it previews.
struct CallPreview
{
    qint64 requestBytes = 0; // sizes of the whole call's bodies
    qint64 responseBytes = 0;
    qint64 detailsBytes = 0;
    qint64 timelineBytes = 0;
    qint64 errorChars = 0;
    bool truncated = false; // the row keeps less than the whole request, response, details, timeline or error
};

class CallLogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // Where a row came from (OriginRole).
    enum class Origin { Live, Kept, History };

    explicit CallLogModel(int capacity = 10'000, QObject* parent = nullptr);

    // Bytes of request, response and error kept per row; the rest is in history.
    static constexpr qsizetype PreviewBytes = 4 * 1024;
    static constexpr qint64 DefaultByteBudget = qint64(64) * 1024 * 1024;
    static constexpr qint64 MinByteBudget = qint64(1) * 1024 * 1024;
    // The history matches shown at most (a few pages of a history search).
    static constexpr int HistoryCapacity = 1'000;

    // Calls worth keeping past the ring: failures, and calls still running or waiting for a person.
    static bool keepsPastWindow(CallStatus status);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int capacity() const { return m_capacity; }
    qint64 byteBudget() const { return m_byteBudget; }
    // Oldest rows leave until the rows retain at most `bytes` (at least MinByteBudget).
    void setByteBudget(qint64 bytes);
    // What the rows hold in memory: their strings and bodies plus a fixed cost per row.
    qint64 retainedBytes() const { return m_retainedBytes; }
    // The kept rows' bounds: a fifth of the capacity (at least 100) and an eighth of the byte budget.
    int keptCapacity() const;
    qint64 keptByteBudget() const;
    int keptCount() const { return m_keptRows; }
    qint64 keptBytes() const { return m_keptBytes; }
    int historyCount() const { return m_historyRows; }
    Origin originAt(int row) const;
    // The oldest row's id (0 when empty).
    qint64 oldestId() const;
    // The oldest row of the ring of newest calls (0 when it is empty): history holds every call
    // before it that the log may not show, so a history search starts there.
    qint64 oldestLiveId() const;
    // Calls that arrived as new rows since the model was created or cleared (not updates).
    qint64 receivedCount() const { return m_received; }

    // The row's call; its bodies are previews when previewAt(row).truncated.
    const ToolCall& callAt(int row) const;
    CallPreview previewAt(int row) const;
    // The row of the call with this id, or an invalid index when it is not (or no longer) shown.
    QModelIndex indexOfCall(qint64 id, int column = 0) const;
    // How many rows left because of the capacity or the byte budget since the model was created or
    // cleared.
    qint64 droppedCount() const { return m_dropped; }

public Q_SLOTS:
    // Live calls (and calls loaded from history): unknown calls are inserted in id order, known
    // ones updated.
    void applyUpdates(const ToolCallList& calls);
    void clear();
    // Calls a history search found: those older than the ring's oldest row and not shown yet go
    // among the older rows in id order, as history rows (at most HistoryCapacity in all, the newest
    // of them when there is not room for all); returns how many were added.
    int addHistoryMatches(const ToolCallList& calls);
    void clearHistoryMatches();
    // A paused view's copy: the other model's rows as they are now (their bodies are shared, not
    // copied). Nothing trims a snapshot; refreshFrom brings a row's newer state without adding rows.
    void snapshotFrom(const CallLogModel& other);
    void refreshFrom(const CallLogModel& other, int otherRow);

Q_SIGNALS:
    void rowsDropped(qint64 totalDropped);

private:
    struct Row
    {
        ToolCall call;
        CallPreview preview;
        qint64 retainedBytes = 0;
        Origin origin = Origin::Live;
    };

    static Row makeRow(const ToolCall& call);
    int rowOf(qint64 id) const;
    void replaceRow(std::size_t row, const ToolCall& call);
    void insertSorted(const ToolCallList& calls);
    void trimToLimits();
    void trimKept();
    void addRegionBytes(std::size_t row, qint64 bytes);
    // Removes these rows (kept or history rows, ascending) with one signal per run of adjacent ones.
    void removeOlderRows(const std::vector<std::size_t>& rows);

    int m_capacity;
    qint64 m_byteBudget = DefaultByteBudget;
    std::deque<Row> m_rows;
    qint64 m_retainedBytes = 0;
    qint64 m_dropped = 0;
    qint64 m_received = 0;
    // Rows [0, m_historyRows + m_keptRows) are the older ones, history and kept rows by id.
    int m_historyRows = 0;
    int m_keptRows = 0;
    qint64 m_historyBytes = 0;
    qint64 m_keptBytes = 0;
};

Q_DECLARE_METATYPE(CallPreview)
