#pragma once

// CallLogModel: the live call log. Fed by the backend's coalesced batches: each batch inserts its new
// calls in one beginInsertRows and updates known ones in place. Bounded by rows and by bytes: a row
// keeps only a preview of the request, response and error (the first PreviewBytes of each, marked as
// cut), and beyond either limit the oldest rows leave. Whole calls stay in history, which the
// inspector asks when a cut call is selected. Oldest at the top, like a log.

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
    qint64 errorChars = 0;
    bool truncated = false; // the row keeps less than the whole request, response, details or error
};

class CallLogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit CallLogModel(int capacity = 10'000, QObject* parent = nullptr);

    // Bytes of request, response and error kept per row; the rest is in history.
    static constexpr qsizetype PreviewBytes = 4 * 1024;
    static constexpr qint64 DefaultByteBudget = qint64(64) * 1024 * 1024;
    static constexpr qint64 MinByteBudget = qint64(1) * 1024 * 1024;

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

Q_SIGNALS:
    void rowsDropped(qint64 totalDropped);

private:
    struct Row
    {
        ToolCall call;
        CallPreview preview;
        qint64 retainedBytes = 0;
    };

    static Row makeRow(const ToolCall& call);
    int rowOf(qint64 id) const;
    void replaceRow(std::size_t row, const ToolCall& call);
    void insertSorted(const ToolCallList& calls);
    void trimToLimits();

    int m_capacity;
    qint64 m_byteBudget = DefaultByteBudget;
    std::deque<Row> m_rows;
    qint64 m_retainedBytes = 0;
    qint64 m_dropped = 0;
};

Q_DECLARE_METATYPE(CallPreview)
