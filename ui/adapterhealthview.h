#pragma once

// AdapterHealthView: the "Adapters" dock: every upstream MCP server with its breaker state (coloured),
// failures, traffic, latency and last success and error, live; below it the selected adapter's
// breaker transitions; and the operator's commands: reset or force open its breaker, disable or
// enable it, reload the configuration. Talks to the backend only through the OperatorInterface:
// states arrive as signals, commands go out without waiting, refusals show in the dock's status line.
// Selecting an adapter says so (adapterSelected), which the window uses to filter the call log.

#include "statusnote.h"

#include <QDockWidget>

class AdapterHealthModel;
class BreakerTimelineModel;
class OperatorInterface;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QStackedWidget;
class QTableView;

class AdapterHealthView : public QDockWidget
{
    Q_OBJECT
public:
    explicit AdapterHealthView(OperatorInterface* backend, QWidget* parent = nullptr);

    AdapterHealthModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    BreakerTimelineModel* timelineModel() const { return m_timeline; }
    QTableView* adapterTable() const { return m_table; }
    QTableView* timelineView() const { return m_timelineView; }
    QPushButton* resetButton() const { return m_resetButton; }
    QPushButton* forceOpenButton() const { return m_forceOpenButton; }
    QPushButton* enableButton() const { return m_enableButton; }
    QPushButton* reloadButton() const { return m_reloadButton; }
    QLabel* statusLabel() const { return m_statusLabel; }
    QLabel* summaryLabel() const { return m_summaryLabel; }
    QLabel* emptyStateLabel() const { return m_emptyLabel; }

    // The selected adapter's name, or empty.
    QString currentAdapter() const { return m_currentName; }

public Q_SLOTS:
    // Selects the adapter's row; false when it is not shown.
    bool selectAdapter(const QString& name);
    void clearSelection();
    void resetCurrentBreaker();
    void forceOpenCurrentBreaker();
    // Disables the selected adapter, or enables it when the operator had disabled it.
    void toggleCurrentAdapterEnabled();
    void reloadConfiguration();

Q_SIGNALS:
    // The selection changed: the adapter's name, or empty when nothing is selected.
    void adapterSelected(const QString& name);
    // The person asked to see the call that caused a breaker transition.
    void callRequested(qint64 callId);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* createTablePane();
    QWidget* createTimelinePane();
    void onModelChanged();
    void onSelectionChanged();
    void onConfigurationReloaded(bool ok, const QString& message);
    void onCommandFailed(const QString& command, const QString& message);
    void updateDetails();
    void updateSummary();
    void fitColumns();

    OperatorInterface* m_backend;
    AdapterHealthModel* m_model;
    QSortFilterProxyModel* m_proxy;
    BreakerTimelineModel* m_timeline;

    QPushButton* m_resetButton = nullptr;
    QPushButton* m_forceOpenButton = nullptr;
    QPushButton* m_enableButton = nullptr;
    QPushButton* m_reloadButton = nullptr;
    QLabel* m_summaryLabel = nullptr;
    StatusNote* m_statusLabel = nullptr;
    QStackedWidget* m_stack = nullptr;
    QLabel* m_emptyLabel = nullptr;
    QSplitter* m_splitter = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_timelineTitle = nullptr;
    QLabel* m_timelinePlaceholder = nullptr;
    QTableView* m_timelineView = nullptr;

    QString m_currentName;
    // Set while a reload the person asked for has not been answered.
    bool m_reloading = false;
};
