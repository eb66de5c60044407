#include "dashboardview.h"
#include "tablelook.h"

#include "modelroles.h"
#include "operatorinterface.h"
#include "securityeventmodel.h"
#include "sessionlistmodel.h"
#include "trafficstatsmodel.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QEvent>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace {

// The smallest "round" number (1, 2 or 5 times a power of ten) at or above `value`, so the axis
// reads 0–50 rather than 0–43.7.
double roundCeiling(double value)
{
    if (value <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10 * magnitude;
}

QString formatLatency(qint64 us)
{
    if (us < 0)
        return DashboardView::tr("–");
    if (us < 1'000)
        return DashboardView::tr("%1 µs").arg(us);
    if (us < 10'000'000)
        return DashboardView::tr("%1 ms").arg(QLocale().toString(double(us) / 1000.0, 'f', us < 10'000 ? 2 : 1));
    return DashboardView::tr("%1 s").arg(QLocale().toString(double(us) / 1e6, 'f', 1));
}

QLineSeries* newSeries(const QString& name, const QString& objectName)
{
    auto* series = new QLineSeries;
    series->setName(name);
    series->setObjectName(objectName);
    return series;
}

} // namespace

DashboardView::DashboardView(OperatorInterface* backend, QWidget* parent)
    : QWidget(parent)
    , m_backend(backend)
    , m_traffic(new TrafficStatsModel(this))
    , m_sessions(new SessionListModel(this))
    , m_security(new SecurityEventModel(this))
{
    setObjectName(QStringLiteral("dashboardView"));

    m_scopeBox = new QComboBox;
    m_scopeBox->setObjectName(QStringLiteral("scopeBox"));
    m_scopeBox->setToolTip(tr("Whose traffic the charts and figures show"));
    m_scopeBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_scopeBox->setMinimumContentsLength(16);
    auto* scopeLabel = new QLabel(tr("&Traffic of:"));
    scopeLabel->setBuddy(m_scopeBox);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* top = new QHBoxLayout;
    top->addWidget(scopeLabel);
    top->addWidget(m_scopeBox);
    top->addSpacing(12);
    top->addWidget(m_summary, 1);

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("dashboardTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(createTrafficTab(), tr("Traffic"));
    m_tabs->addTab(createSessionsTab(), QString());
    m_tabs->addTab(createSecurityTab(), QString());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(m_tabs, 1);

    connect(m_backend, &OperatorInterface::callsUpdated, m_traffic, &TrafficStatsModel::addCalls);
    // Stateless clients have no session state: the sessions tab groups their calls by client.
    connect(m_backend, &OperatorInterface::callsUpdated, m_sessions, &SessionListModel::addCalls);
    connect(m_backend, &OperatorInterface::sessionsListed, m_sessions, &SessionListModel::setSessions);
    connect(m_backend, &OperatorInterface::sessionStatesChanged, m_sessions, &SessionListModel::applySessionStates);
    connect(m_backend, &OperatorInterface::securityEventsRecorded, m_security, &SecurityEventModel::addEvents);
    connect(m_backend, &OperatorInterface::commandFailed, this, &DashboardView::onCommandFailed);
    connect(m_traffic, &TrafficStatsModel::seriesNamesChanged, this, &DashboardView::updateScopes);
    connect(m_scopeBox, &QComboBox::currentIndexChanged, this, &DashboardView::onScopeChosen);
    for (QAbstractItemModel* model :
        {static_cast<QAbstractItemModel*>(m_sessions), static_cast<QAbstractItemModel*>(m_security)}) {
        connect(model, &QAbstractItemModel::rowsInserted, this, &DashboardView::updateTabTitles);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &DashboardView::updateTabTitles);
        connect(model, &QAbstractItemModel::modelReset, this, &DashboardView::updateTabTitles);
    }
    connect(m_sessions, &QAbstractItemModel::rowsRemoved, this, &DashboardView::updateButtons);
    connect(m_sessions, &QAbstractItemModel::modelReset, this, &DashboardView::updateButtons);

    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setInterval(RefreshMs);
    connect(m_refreshTimer, &QTimer::timeout, this, &DashboardView::refresh);
    m_refreshTimer->start();

    updateScopes();
    updateTabTitles();
    updateButtons();
    applyPalette();
    refresh();
    // Sessions opened before the window existed.
    m_backend->listSessions();
}

QWidget* DashboardView::createTrafficTab()
{
    m_callsSeries = newSeries(tr("calls/s"), QStringLiteral("callsSeries"));
    m_errorsSeries = newSeries(tr("errors/s"), QStringLiteral("errorsSeries"));
    m_p50Series = newSeries(tr("p50"), QStringLiteral("p50Series"));
    m_p99Series = newSeries(tr("p99"), QStringLiteral("p99Series"));
    m_waitedSeries = newSeries(tr("waited for a person (s)"), QStringLiteral("waitedSeries"));
    m_waitedSeries->setPointsVisible(true); // a wait is often one second's point, which a line alone would not draw
    m_rateChart = createChart(tr("Calls per second"), {m_callsSeries}, m_errorsSeries, &m_rateX, &m_rateY, &m_errorsY);
    // Latency is the time calls ran; time waiting for a person is its own line, in seconds.
    m_latencyChart = createChart(tr("Latency (ms), running time"), {m_p50Series, m_p99Series}, m_waitedSeries,
        &m_latencyX, &m_latencyY, &m_waitedY);
    m_errorsY->setObjectName(QStringLiteral("errorsAxis"));
    m_errorsY->setTitleText(tr("errors/s"));
    m_waitedY->setObjectName(QStringLiteral("waitedAxis"));
    m_waitedY->setTitleText(tr("waited (s)"));

    auto* tab = new QWidget;
    auto* layout = new QHBoxLayout(tab);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(4);
    for (QChart* chart : {m_rateChart, m_latencyChart}) {
        auto* view = new QChartView(chart);
        view->setObjectName(
            chart == m_rateChart ? QStringLiteral("rateChartView") : QStringLiteral("latencyChartView"));
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(240, 140);
        layout->addWidget(view, 1);
    }
    return tab;
}

QChart* DashboardView::createChart(const QString& title, const QList<QLineSeries*>& left, QLineSeries* right,
    QDateTimeAxis** xAxis, QValueAxis** leftAxis, QValueAxis** rightAxis)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    for (QLineSeries* series : left)
        chart->addSeries(series);
    chart->addSeries(right);
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    auto* x = new QDateTimeAxis;
    x->setFormat(QStringLiteral("HH:mm"));
    x->setTickCount(6);
    auto* y = new QValueAxis;
    y->setLabelFormat(QStringLiteral("%g"));
    y->setTickCount(5);
    auto* yRight = new QValueAxis;
    yRight->setLabelFormat(QStringLiteral("%g"));
    yRight->setTickCount(5);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(yRight, Qt::AlignRight);
    for (QLineSeries* series : left) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    right->attachAxis(x);
    right->attachAxis(yRight);
    *xAxis = x;
    *leftAxis = y;
    *rightAxis = yRight;
    return chart;
}

QWidget* DashboardView::createSessionsTab()
{
    m_sessionTable = new QTableView;
    m_sessionTable->setObjectName(QStringLiteral("sessionTable"));
    applyTableLook(m_sessionTable, Qt::ElideRight, QHeaderView::Interactive);
    m_sessionTable->setModel(m_sessions);
    m_sessionTable->horizontalHeader()->setStretchLastSection(true);
    // Widths in characters of the table's font, so that a larger font keeps the columns readable.
    const int sessionChar = m_sessionTable->fontMetrics().averageCharWidth();
    m_sessionTable->setColumnWidth(SessionListModel::ClientColumn, 26 * sessionChar);
    for (int column : {SessionListModel::StartedColumn, SessionListModel::LastActivityColumn})
        m_sessionTable->setColumnWidth(column, 16 * sessionChar);
    m_sessionTable->setColumnWidth(SessionListModel::CallsColumn, 10 * sessionChar);
    m_sessionTable->setColumnWidth(SessionListModel::ProtocolColumn, 14 * sessionChar);
    connect(
        m_sessionTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DashboardView::updateButtons);

    // Delete on the table ends the selected session, as the button does.
    auto* endAction = new QAction(tr("End session"), m_sessionTable);
    endAction->setObjectName(QStringLiteral("endSessionAction"));
    endAction->setShortcut(QKeySequence::Delete);
    endAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(endAction, &QAction::triggered, this, &DashboardView::endCurrentSession);
    m_sessionTable->addAction(endAction);

    // No mnemonic: Alt+E opens the Edit menu; Delete on the table ends the session.
    m_endButton = new QPushButton(tr("End session"));
    m_endButton->setObjectName(QStringLiteral("endSessionButton"));
    connect(m_endButton, &QPushButton::clicked, this, &DashboardView::endCurrentSession);
    m_status = new StatusNote(QStringLiteral("sessionStatus"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_endButton);
    buttons->addWidget(m_status);
    buttons->addStretch(1);

    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_sessionTable, 1);
    layout->addLayout(buttons);
    return tab;
}

QWidget* DashboardView::createSecurityTab()
{
    m_securityTable = new QTableView;
    m_securityTable->setObjectName(QStringLiteral("securityTable"));
    applyTableLook(m_securityTable, Qt::ElideRight, QHeaderView::Interactive);
    m_securityTable->setModel(m_security);
    m_securityTable->horizontalHeader()->setStretchLastSection(true);
    const int securityChar = m_securityTable->fontMetrics().averageCharWidth();
    m_securityTable->setColumnWidth(SecurityEventModel::TimeColumn, 11 * securityChar);
    m_securityTable->setColumnWidth(SecurityEventModel::KindColumn, 17 * securityChar);
    m_securityTable->setColumnWidth(SecurityEventModel::RemoteColumn, 19 * securityChar);

    auto* tab = new QWidget;
    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_securityTable);
    return tab;
}

void DashboardView::refresh()
{
    m_traffic->advance();
    // Hidden (a closed dock, a tab behind another), the charts wait until it is shown again.
    if (!isVisible())
        return;
    const int rows = m_traffic->rowCount();
    QList<QPointF> calls, errors, p50, p99, waited;
    calls.reserve(rows);
    errors.reserve(rows);
    double maxRate = 0;
    double maxErrors = 0;
    double maxLatency = 0;
    double maxWaitedSeconds = 0;
    const auto value = [this](int row, int column) { return m_traffic->index(row, column).data(SortRole).toDouble(); };
    for (int row = 0; row < rows; ++row) {
        const double x = value(row, TrafficStatsModel::TimeColumn);
        const double rate = value(row, TrafficStatsModel::CallsColumn);
        calls.append({x, rate});
        const double rowErrors = value(row, TrafficStatsModel::ErrorsColumn);
        errors.append({x, rowErrors});
        maxRate = std::max(maxRate, rate);
        maxErrors = std::max(maxErrors, rowErrors);
        // Only the seconds in which a call waited for a person: a line of zeros would say nothing.
        if (const double waitedMs = value(row, TrafficStatsModel::WaitedColumn); waitedMs >= 0) {
            waited.append({x, waitedMs / 1000.0});
            maxWaitedSeconds = std::max(maxWaitedSeconds, waitedMs / 1000.0);
        }
        // Seconds without calls have no latency: the line goes from one that had calls to the next.
        const double median = value(row, TrafficStatsModel::P50Column);
        if (median >= 0) {
            const double tail = value(row, TrafficStatsModel::P99Column);
            p50.append({x, median});
            p99.append({x, tail});
            maxLatency = std::max(maxLatency, tail);
        }
    }
    m_callsSeries->replace(calls);
    m_errorsSeries->replace(errors);
    m_p50Series->replace(p50);
    m_p99Series->replace(p99);
    m_waitedSeries->replace(waited);
    if (rows > 0) {
        const QDateTime from = QDateTime::fromMSecsSinceEpoch(qint64(value(0, TrafficStatsModel::TimeColumn)));
        const QDateTime to = QDateTime::fromMSecsSinceEpoch(qint64(value(rows - 1, TrafficStatsModel::TimeColumn)));
        m_rateX->setRange(from, to);
        m_latencyX->setRange(from, to);
    }
    m_rateY->setRange(0, roundCeiling(maxRate));
    m_errorsY->setRange(0, roundCeiling(maxErrors));
    m_latencyY->setRange(0, roundCeiling(maxLatency));
    m_waitedY->setRange(0, roundCeiling(maxWaitedSeconds));

    const TrafficStatsModel::Figures figures = m_traffic->figures(m_traffic->scope(), SummarySeconds);
    m_summary->setText(tr("Last %1 s: %2 calls/s · errors %3% · p50 %4 · p99 %5")
                           .arg(SummarySeconds)
                           .arg(QLocale().toString(figures.callsPerSecond, 'f', 1),
                               QLocale().toString(100.0 * figures.errorRate, 'f', 1), formatLatency(figures.p50Us),
                               formatLatency(figures.p99Us)));
}

void DashboardView::updateScopes()
{
    const QVariant current = m_scopeBox->currentData();
    const QSignalBlocker blocker(m_scopeBox);
    m_scopeBox->clear();
    m_scopeBox->addItem(tr("All calls"), QStringLiteral("overall"));
    const QStringList tools = m_traffic->toolNames();
    for (const QString& tool : tools)
        m_scopeBox->addItem(tr("Tool: %1").arg(tool), QString(QStringLiteral("tool:") + tool));
    const QStringList clients = m_traffic->clientNames();
    for (const QString& client : clients)
        m_scopeBox->addItem(tr("Client: %1").arg(client), QString(QStringLiteral("client:") + client));
    const int index = m_scopeBox->findData(current);
    m_scopeBox->setCurrentIndex(index < 0 ? 0 : index);
    if (index < 0 && current.isValid())
        onScopeChosen();
}

void DashboardView::onScopeChosen()
{
    const QString key = m_scopeBox->currentData().toString();
    TrafficStatsModel::Scope scope;
    if (key.startsWith(QLatin1String("tool:")))
        scope = {TrafficStatsModel::ScopeKind::Tool, key.mid(5)};
    else if (key.startsWith(QLatin1String("client:")))
        scope = {TrafficStatsModel::ScopeKind::Client, key.mid(7)};
    m_traffic->setScope(scope);
    refresh();
}

void DashboardView::showSecurityEvents()
{
    m_tabs->setCurrentIndex(2);
}

bool DashboardView::isShowingSecurityEvents() const
{
    return isVisible() && !visibleRegion().isEmpty() && m_tabs->currentIndex() == 2;
}

void DashboardView::updateTabTitles()
{
    const int stateless = m_sessions->statelessClientCount();
    m_tabs->setTabText(1,
        stateless == 0 ? tr("Sessions (%1)").arg(m_sessions->sessionCount())
                       : tr("Sessions (%1) and stateless clients (%2)").arg(m_sessions->sessionCount()).arg(stateless));
    m_tabs->setTabText(2, tr("Security events (%1)").arg(m_security->total()));
}

void DashboardView::updateButtons()
{
    const QModelIndex current = m_sessionTable->selectionModel()->currentIndex();
    // A stateless client has no session to end: each of its requests ended with its answer.
    const bool stateless = current.isValid() && m_sessions->isStateless(current.row());
    m_endButton->setEnabled(current.isValid() && !stateless);
    m_endButton->setToolTip(stateless
            ? tr("A stateless client (MCP %1) has no session to end: each of its requests ends with its answer")
                  .arg(m_sessions->session(current.row()).protocolVersion)
            : tr("End the selected session (Delete): the server deletes it and cancels its calls; the client's next "
                 "request is refused with 404 and it may start a new session"));
}

void DashboardView::endCurrentSession()
{
    const QModelIndex current = m_sessionTable->selectionModel()->currentIndex();
    if (!current.isValid() || m_sessions->isStateless(current.row()))
        return;
    const SessionState session = m_sessions->session(current.row());
    m_backend->endSession(session.id);
    m_status->showNote(tr("Ended the session of %1 %2; its next request is refused and it may start a new one.")
                           .arg(session.clientName, session.clientVersion));
}

void DashboardView::onCommandFailed(const QString& command, const QString& message)
{
    if (command == QLatin1String("endSession"))
        m_status->showProblem(tr("Could not end the session: %1").arg(message));
}

void DashboardView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

void DashboardView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_rateChart)
        applyPalette();
}

void DashboardView::applyPalette()
{
    // The charts follow the window's palette, light or dark, rather than Qt Charts' own theme, and
    // its font a size smaller: a dock is short. A theme resets both, so they are set after it.
    const QPalette colours = palette();
    const bool dark = colours.color(QPalette::Window).lightness() < 128;
    for (QChart* chart : {m_rateChart, m_latencyChart}) {
        chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        chart->setBackgroundBrush(colours.brush(QPalette::Base));
        chart->setTitleBrush(colours.brush(QPalette::WindowText));
        chart->legend()->setLabelColor(colours.color(QPalette::WindowText));
        QFont small = font();
        small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
        chart->setTitleFont(small);
        chart->legend()->setFont(small);
        for (QAbstractAxis* axis : chart->axes()) {
            axis->setLabelsFont(small);
            axis->setTitleFont(small);
            axis->setLabelsColor(colours.color(QPalette::WindowText));
            axis->setGridLineColor(colours.color(QPalette::Mid));
        }
    }
    // Errors in the palette's red family, calls in its highlight; the tail darker than the median.
    m_callsSeries->setColor(colours.color(QPalette::Highlight));
    m_errorsSeries->setColor(dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc0, 0x1c, 0x28));
    m_p50Series->setColor(colours.color(QPalette::Highlight));
    m_p99Series->setColor(dark ? QColor(0xff, 0xb3, 0x47) : QColor(0xb3, 0x5c, 0x00));
    m_waitedSeries->setColor(dark ? QColor(0xc0, 0x9c, 0xff) : QColor(0x6a, 0x3d, 0xb8));
    for (QLineSeries* series : {m_callsSeries, m_errorsSeries, m_p50Series, m_p99Series, m_waitedSeries}) {
        QPen pen = series->pen();
        pen.setWidthF(1.5);
        series->setPen(pen);
    }
    // A right-hand axis in its series' colour, so it reads as that line's scale.
    m_errorsY->setLabelsColor(m_errorsSeries->color());
    m_errorsY->setTitleBrush(m_errorsSeries->color());
    m_waitedY->setLabelsColor(m_waitedSeries->color());
    m_waitedY->setTitleBrush(m_waitedSeries->color());
    m_waitedSeries->setPen([this] {
        QPen pen = m_waitedSeries->pen();
        pen.setStyle(Qt::DashLine);
        return pen;
    }());
}
