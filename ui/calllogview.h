#pragma once

// CallLogView: the live call log: a filter field, a status filter and a table over
// CallLogFilterProxy, a bar that says when only chosen calls are shown (a repository's calls), and
// beside the filter field the adapter whose calls alone are shown ("adapter: github", clearable). Follows the newest
// call while the person is at the bottom and stays put once they scroll up. Per-insert work is constant (fixed row
// heights, column widths set once), so the view keeps up with the model's batches at thousands of calls per second.

#include "toolcall.h"

#include <QWidget>

class CallLogFilterProxy;
class CallLogModel;
class QItemSelectionModel;
class QLabel;
class QLineEdit;
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

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    // The selected call, or its newest state when it changes while selected.
    void currentCallChanged(const ToolCall& call);
    // The adapter filter ended here (its clear button, or a call asked for that it hid), not by
    // setAdapterFilter.
    void adapterFilterCleared();

private:
    void onCurrentRowChanged(const QModelIndex& current);
    void onRowsAboutToBeRemoved(const QModelIndex& parent, int first, int last);
    void onRowsRemoved();
    void onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight);
    void onScrollRangeChanged(int minimum, int maximum);
    void onScrollValueChanged(int value);
    void setFollowing(bool following);
    void setInitialColumnWidths();
    void clearAdapterFilter();

    CallLogModel* m_model;
    CallLogFilterProxy* m_proxy;
    QLineEdit* m_filterEdit;
    StatusFilterBox* m_statusFilter;
    QTableView* m_table;
    QToolButton* m_followButton;
    QWidget* m_callIdBar;
    QLabel* m_callIdLabel;
    QWidget* m_adapterChip;
    QLabel* m_adapterLabel;
    QToolButton* m_adapterClear;
    bool m_following = true;
    // Rows above the first visible one that a removal takes away, so the view can stay on the rows
    // the person is reading while old rows age out of the log.
    int m_removedAboveView = 0;
    // Set while the current row is being removed (aged out of the log, or filtered away).
    bool m_currentLeaving = false;
};
