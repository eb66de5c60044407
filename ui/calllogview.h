#pragma once

// CallLogView: the live call log: a filter field, a status filter and a table over
// CallLogFilterProxy, a bar that says when only chosen calls are shown (a repository's calls), and
// beside the filter field the adapter whose calls alone are shown ("adapter: github", clearable). Follows the newest
// call while the person is at the bottom and stays put once they scroll up. Per-insert work is constant (fixed row
// heights, column widths set once), so the view keeps up with the model's batches at thousands of calls per second.
//
// Pause freezes what is shown: the view switches to a snapshot of the log (a second CallLogModel
// sharing the rows' bodies, so at most the live log's memory again) that takes its rows' newer states
// but no new rows, while the live log goes on and a label counts the calls that arrived; Resume goes
// back to the live log at its newest call. Beside the filter: how many of the calls are shown, the
// status filter (several statuses, or "Failures"), and, while a filter is set, "Search history too",
// which asks (historySearchRequested) for older matches that the log shows above its rows, in italics.
// A header click sorts by that column, a second reverses, a third gives the log's own order back.
// A row's context menu (right click, or the Menu key) filters by its client or tool, replays it or
// shows it in History, followed by the actions the window put on the table (the Copy actions); a filter that matches
// nothing says so above the empty table.

#include "callcolumns.h"
#include "historyquery.h"
#include "toolcall.h"

#include <QWidget>

class CallLogFilterProxy;
class CallLogModel;
class QAction;
class QItemSelectionModel;
class QLabel;
class QLineEdit;
class QMenu;
class QModelIndex;
class QTableView;
class QToolButton;
class StatusFilterBox;

class CallLogView : public QWidget
{
    Q_OBJECT
public:
    explicit CallLogView(CallLogModel* model, QWidget* parent = nullptr);

    QLineEdit* filterEdit() const { return m_filterEdit; }
    StatusFilterBox* statusFilter() const { return m_statusFilter; }
    QTableView* tableView() const { return m_table; }
    CallLogFilterProxy* proxy() const { return m_proxy; }
    // The model the view shows: the live log, or while paused its snapshot.
    CallLogModel* shownModel() const;

    // Pause / Resume (checkable; Ctrl+Shift+P or the Pause key), for the toolbar button and menu.
    QAction* pauseAction() const { return m_pauseAction; }
    bool isPaused() const { return m_frozen != nullptr; }
    void setPaused(bool paused);
    // Calls that arrived since the pause.
    qint64 newCallsWhilePaused() const;
    QLabel* pausedLabel() const { return m_pausedLabel; }
    QLabel* shownCountLabel() const { return m_countLabel; }
    QToolButton* historySearchButton() const { return m_historyButton; }
    // "Search history too" (Ctrl+Shift+H), enabled while a text, status or adapter filter is set.
    QAction* historySearchAction() const { return m_historyAction; }
    // A log of calls that no longer arrive (an imported file): no Pause, no history search.
    void setLive(bool live);

    // Older matches of the filter from history (the answer to historySearchRequested); `hasMore`
    // says whether history has more of them.
    void addHistoryMatches(const ToolCallList& calls, bool hasMore);
    // The history search the button would send now: the filter as it is (CallSearch: words,
    // statuses, adapter), for the calls older than the ring of newest calls, continuing below the
    // last page found; every call it brings back passes the filter.
    HistoryQuery historyQuery() const;
    // A call read from history (one asked for by number, beyond the log's limit): shown as a history
    // row and selected, filters that would hide it cleared; false when the log cannot show it (newer
    // than its oldest live row yet not in it, or the history rows are full).
    bool showCallFromHistory(const ToolCall& call);

    // Column widths, order and sorting, for QSettings; restoreHeaderState refuses a state saved for
    // other columns.
    QByteArray saveHeaderState() const;
    bool restoreHeaderState(const QByteArray& state);
    // The columns as they start: their order, widths from sample text, the log's own order.
    void resetColumns();
    // How wide the log must be to show the columns that say what happened (time, status, client
    // and tool) without scrolling sideways, at their present widths and font.
    int essentialColumnsWidth() const;
    // Where the log is narrower than the start of its Tool column (a short screen's log beside the
    // questions, at a large font), the Tool column moves before the Client column: what was called
    // shows without scrolling sideways, who called it after.
    void bringToolColumnWithin(int logWidth);
    // The columns as a table of calls starts (the log, History): their order and widths from sample
    // text, the time column as wide as `timeSample`.
    static void setInitialColumns(QTableView* table, QLatin1String timeSample = QLatin1String("00:00:00.000"));
    // The columns' first order on screen (Reset layout goes back to it).
    static constexpr CallColumns::Columns DefaultColumnOrder[]
        = {CallColumns::TimeColumn, CallColumns::StatusColumn, CallColumns::ClientColumn, CallColumns::ToolColumn,
            CallColumns::RouteColumn, CallColumns::DurationColumn, CallColumns::BackendColumn};

    // True while the view scrolls along with new calls.
    bool isFollowing() const { return m_following; }

    // Selects the call's row and scrolls to it, clearing the filters when they hide it; false when
    // the call is not (or no longer) in the live log.
    bool showCall(qint64 callId);
    // Shows only these calls (`description` says which, e.g. "the calls that touched switchboard")
    // and selects the newest of them; returns how many are in the live log. Shows every call again
    // and returns 0 when none is.
    int showCalls(const QList<qint64>& callIds, const QString& description);
    // Ends showCalls: every call again.
    void showAllCalls();
    QWidget* callIdFilterBar() const { return m_callIdBar; }
    // Shows only the calls routed to this upstream adapter, and says so beside the filter field; empty
    // shows every adapter's calls again.
    void setAdapterFilter(const QString& adapter);
    QString adapterFilter() const;
    QWidget* adapterFilterChip() const { return m_adapterChip; }
    QLabel* adapterFilterLabel() const { return m_adapterLabel; }
    QToolButton* adapterFilterClearButton() const { return m_adapterClear; }
    // Shown while a filter matches none of the calls.
    QLabel* emptyFilterLabel() const { return m_emptyLabel; }
    // The context menu of the call at `index` (a row of tableView()), owned by the caller; null
    // for no call.
    QMenu* contextMenuFor(const QModelIndex& index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    // The selected call, or its newest state when it changes while selected.
    void currentCallChanged(const ToolCall& call);
    // The adapter filter ended here (its clear button, or a call asked for that it hid), not by
    // setAdapterFilter.
    void adapterFilterCleared();
    // "Search history too": the window runs the query and hands the answer to addHistoryMatches.
    void historySearchRequested(const HistoryQuery& query);
    // A row's context menu: send the call again, or show it among the stored calls.
    void replayRequested(const ToolCall& call);
    void showInHistoryRequested(qint64 callId);

private:
    void onCurrentRowChanged(const QModelIndex& current);
    void onRowsAboutToBeRemoved(const QModelIndex& parent, int first, int last);
    void onRowsRemoved();
    void onRowsInserted(const QModelIndex& parent, int first, int last);
    void onHeaderClicked(int section);
    void applySort(int column, Qt::SortOrder order);
    void onFilterChanged();
    void updateCountLabel();
    void updatePausedLabel();
    void selectCall(qint64 callId);
    void onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight);
    void onScrollRangeChanged(int minimum, int maximum);
    void onScrollValueChanged(int value);
    void setFollowing(bool following);
    void clearAdapterFilter();

    CallLogModel* m_model;
    CallLogFilterProxy* m_proxy;
    QLineEdit* m_filterEdit;
    StatusFilterBox* m_statusFilter;
    QTableView* m_table;
    QToolButton* m_followButton;
    QWidget* m_callIdBar;
    QLabel* m_callIdLabel;
    QLabel* m_emptyLabel;
    QWidget* m_adapterChip;
    QLabel* m_adapterLabel;
    QToolButton* m_adapterClear;
    QAction* m_pauseAction;
    QToolButton* m_pauseButton;
    QLabel* m_pausedLabel;
    QLabel* m_countLabel;
    QToolButton* m_historyButton;
    QAction* m_historyAction;
    // While paused: the snapshot shown, and how many calls the live log had received then.
    CallLogModel* m_frozen = nullptr;
    qint64 m_receivedAtPause = 0;
    bool m_historyHasMore = false;
    bool m_historySearched = false;
    qint64 m_historyCursor = 0; // the oldest call history answered with; the next page goes below it
    bool m_live = true;
    bool m_following = true;
    // Rows above the first visible one that a removal takes away, so the view can stay on the rows
    // the person is reading while old rows age out of the log.
    int m_removedAboveView = 0;
    // Set while the current row is being removed (aged out of the log, or filtered away).
    bool m_currentLeaving = false;
    // The call that was current when its row was removed: a row the model keeps past its window
    // leaves and comes back in the same update, and the selection follows it.
    qint64 m_leavingCallId = 0;
};
