#pragma once

// DashboardView: health at a glance. Traffic over the last minutes as charts (calls and errors per
// second, p50 and p99 latency), overall or for one tool or client, with the last ten seconds' figures
// in words; the client sessions open on the server, any of which the operator can end, and the
// stateless (2026-07-28) clients, grouped by the client they name; and the requests refused at the door (token, Origin,
// Host), newest first. Fed only by the OperatorInterface's events (calls, session states, security events); ending a
// session is a command sent without waiting, a refusal shows in its status line. A plain widget: the window puts it in
// a dock.

#include "statusnote.h"

#include <QWidget>

class OperatorInterface;
class QChart;
class QChartView;
class QComboBox;
class QDateTimeAxis;
class QLabel;
class QLineSeries;
class QPushButton;
class QTabWidget;
class QTableView;
class QTimer;
class QValueAxis;
class SecurityEventModel;
class SessionListModel;
class TrafficStatsModel;

class DashboardView : public QWidget
{
    Q_OBJECT
public:
    // The figures in words cover this many seconds.
    static constexpr int SummarySeconds = 10;
    static constexpr int RefreshMs = 1000;

    explicit DashboardView(OperatorInterface* backend, QWidget* parent = nullptr);

    TrafficStatsModel* trafficModel() const { return m_traffic; }
    SessionListModel* sessionModel() const { return m_sessions; }
    SecurityEventModel* securityModel() const { return m_security; }
    QComboBox* scopeBox() const { return m_scopeBox; }
    QLabel* summaryLabel() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    // Brings the Security events tab forward.
    void showSecurityEvents();
    // Whether the Security events tab is the one shown (and the view is on screen).
    bool isShowingSecurityEvents() const;
    QTableView* sessionTable() const { return m_sessionTable; }
    QTableView* securityTable() const { return m_securityTable; }
    QPushButton* endSessionButton() const { return m_endButton; }
    StatusNote* statusLabel() const { return m_status; }
    QLineSeries* callsSeries() const { return m_callsSeries; }
    QLineSeries* errorsSeries() const { return m_errorsSeries; }
    QLineSeries* p50Series() const { return m_p50Series; }
    QLineSeries* p99Series() const { return m_p99Series; }
    QLineSeries* waitedSeries() const { return m_waitedSeries; }

public Q_SLOTS:
    // Moves the window to now and redraws the charts and figures (the timer does it every second).
    void refresh();
    // Ends the session selected in the table.
    void endCurrentSession();

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    QWidget* createTrafficTab();
    QWidget* createSessionsTab();
    QWidget* createSecurityTab();
    // A chart of `left` on an axis at the left and `right` on an axis of its own at the right.
    QChart* createChart(const QString& title, const QList<QLineSeries*>& left, QLineSeries* right,
        QDateTimeAxis** xAxis, QValueAxis** leftAxis, QValueAxis** rightAxis);
    void updateScopes();
    void onScopeChosen();
    void updateTabTitles();
    void updateButtons();
    void applyPalette();
    void onCommandFailed(const QString& command, const QString& message);

    OperatorInterface* m_backend;
    TrafficStatsModel* m_traffic;
    SessionListModel* m_sessions;
    SecurityEventModel* m_security;

    QComboBox* m_scopeBox = nullptr;
    QLabel* m_summary = nullptr;
    QTabWidget* m_tabs = nullptr;
    QChart* m_rateChart = nullptr;
    QChart* m_latencyChart = nullptr;
    QLineSeries* m_callsSeries = nullptr;
    QLineSeries* m_errorsSeries = nullptr;
    QLineSeries* m_p50Series = nullptr;
    QLineSeries* m_p99Series = nullptr;
    QLineSeries* m_waitedSeries = nullptr;
    QDateTimeAxis* m_rateX = nullptr;
    QValueAxis* m_rateY = nullptr;
    QValueAxis* m_errorsY = nullptr; // errors on their own scale: a few among thousands of calls stay visible
    QDateTimeAxis* m_latencyX = nullptr;
    QValueAxis* m_latencyY = nullptr;
    QValueAxis* m_waitedY = nullptr; // seconds waited for a person, apart from the latencies in ms
    QTableView* m_sessionTable = nullptr;
    QPushButton* m_endButton = nullptr;
    StatusNote* m_status = nullptr;
    QTableView* m_securityTable = nullptr;
    QTimer* m_refreshTimer = nullptr;
};
