#include "adapterhealthview.h"
#include "tablelook.h"

#include "adapterhealthmodel.h"
#include "breakertimelinemodel.h"
#include "healthdelegate.h"
#include "modelroles.h"
#include "operatorinterface.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScopeGuard>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace {

// The colours the rest of the window uses for problems.

void configureTable(QTableView* table)
{
    applyTableLook(table, Qt::ElideRight, QHeaderView::Interactive);
}

QLabel* placeholderLabel(const QString& objectName)
{
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setMargin(12);
    return label;
}

QString commandDescription(const QString& command)
{
    if (command == QLatin1String("resetBreaker"))
        return AdapterHealthView::tr("Could not reset the breaker: %1");
    if (command == QLatin1String("forceOpenBreaker"))
        return AdapterHealthView::tr("Could not force the breaker open: %1");
    if (command == QLatin1String("setAdapterEnabled"))
        return AdapterHealthView::tr("Could not change whether the adapter is enabled: %1");
    if (command == QLatin1String("reloadConfiguration"))
        return AdapterHealthView::tr("Could not reload the configuration: %1");
    return {};
}

} // namespace

AdapterHealthView::AdapterHealthView(OperatorInterface* backend, QWidget* parent)
    : QDockWidget(tr("Adapters"), parent)
    , m_backend(backend)
    , m_model(new AdapterHealthModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_timeline(new BreakerTimelineModel(this))
{
    setObjectName(QStringLiteral("adapterHealthView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SortRole);
    m_proxy->setFilterRole(FilterRole);

    m_resetButton = new QPushButton(tr("Reset"));
    m_resetButton->setObjectName(QStringLiteral("resetBreakerButton"));
    connect(m_resetButton, &QPushButton::clicked, this, &AdapterHealthView::resetCurrentBreaker);
    m_forceOpenButton = new QPushButton(tr("Force open"));
    m_forceOpenButton->setObjectName(QStringLiteral("forceOpenBreakerButton"));
    connect(m_forceOpenButton, &QPushButton::clicked, this, &AdapterHealthView::forceOpenCurrentBreaker);
    m_enableButton = new QPushButton(tr("Disable"));
    m_enableButton->setObjectName(QStringLiteral("enableAdapterButton"));
    connect(m_enableButton, &QPushButton::clicked, this, &AdapterHealthView::toggleCurrentAdapterEnabled);
    m_reloadButton = new QPushButton(tr("Reload configuration"));
    m_reloadButton->setObjectName(QStringLiteral("reloadConfigurationButton"));
    m_reloadButton->setToolTip(
        tr("Read the configuration file again; if it is wrong, the configuration in force stays and the reason "
           "shows here"));
    connect(m_reloadButton, &QPushButton::clicked, this, &AdapterHealthView::reloadConfiguration);

    m_summaryLabel = new QLabel;
    m_summaryLabel->setObjectName(QStringLiteral("adapterSummary"));
    m_summaryLabel->setForegroundRole(QPalette::PlaceholderText);

    m_statusLabel = new StatusNote(QStringLiteral("adapterStatus"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_resetButton);
    buttons->addWidget(m_forceOpenButton);
    buttons->addWidget(m_enableButton);
    buttons->addSpacing(12);
    buttons->addWidget(m_summaryLabel, 1);
    buttons->addWidget(m_reloadButton);

    m_emptyLabel = placeholderLabel(QStringLiteral("adapterEmptyState"));
    // Left-aligned, so the example keeps its indentation; the block is centred in the dock.
    m_emptyLabel->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_emptyLabel->setMaximumWidth(m_emptyLabel->fontMetrics().averageCharWidth() * 90);
    m_emptyLabel->setTextFormat(Qt::RichText);
    m_emptyLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_emptyLabel->setText(
        tr("<p><b>No upstream adapters.</b></p>"
           "<p>Add the MCP servers to reach through Switchboard under <code>mcp_endpoints</code> in the "
           "configuration file (<code>~/.config/switchboard/config.yaml</code>, or the one "
           "<code>--config</code> names), then <b>Reload configuration</b>:</p>"
           "<pre>mcp_endpoints:\n"
           "  - name: github\n"
           "    endpoint: https://mcp.example.com/mcp\n"
           "    auth_token: ${GITHUB_MCP_TOKEN}</pre>"
           "<p>Their tools appear to clients as <code>github.TOOL</code>.</p>"));

    // The timeline below the table, wherever the dock is: beside it, in a dock along the bottom, it
    // would take the width the last error needs.
    m_splitter = new QSplitter(Qt::Vertical);
    m_splitter->setObjectName(QStringLiteral("adapterSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setHandleWidth(10);
    m_splitter->addWidget(createTablePane());
    m_splitter->addWidget(createTimelinePane());
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    m_stack = new QStackedWidget;
    m_stack->setObjectName(QStringLiteral("adapterStack"));
    auto* emptyPage = new QWidget;
    auto* emptyLayout = new QHBoxLayout(emptyPage);
    emptyLayout->addStretch(1);
    emptyLayout->addWidget(m_emptyLabel, 4);
    emptyLayout->addStretch(1);
    m_stack->addWidget(emptyPage);
    m_stack->addWidget(m_splitter);

    auto* contents = new QWidget;
    auto* layout = new QVBoxLayout(contents);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_stack, 1);
    setWidget(contents);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &AdapterHealthView::onSelectionChanged);

    // The backend's states and answers arrive here as signals on this thread; nothing waits for them.
    connect(m_backend, &OperatorInterface::breakerStatesChanged, this, [this](const BreakerStateList& states) {
        m_model->applyBreakerStates(states);
        onModelChanged();
    });
    connect(m_backend, &OperatorInterface::adapterStatusesChanged, this, [this](const AdapterStatusList& statuses) {
        m_model->applyAdapterStatuses(statuses);
        onModelChanged();
    });
    connect(m_backend, &OperatorInterface::configurationReloaded, this, &AdapterHealthView::onConfigurationReloaded);
    connect(m_backend, &OperatorInterface::commandFailed, this, &AdapterHealthView::onCommandFailed);
    // The countdown's ticks change the state words, which the summary does not count; a state that
    // arrives changes both.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &AdapterHealthView::updateDetails);

    onModelChanged();
}

QWidget* AdapterHealthView::createTablePane()
{
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("adapterTable"));
    configureTable(m_table);
    m_table->setModel(m_proxy);
    m_table->setItemDelegateForColumn(AdapterHealthModel::StateColumn, new HealthDelegate(m_table));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(AdapterHealthModel::AdapterColumn, Qt::AscendingOrder);
    // The error is the longest text and the one worth the spare width.
    m_table->horizontalHeader()->setSectionResizeMode(AdapterHealthModel::LastErrorColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(m_table->fontMetrics().averageCharWidth() * 6);
    m_table->installEventFilter(this);
    // The buttons' commands on the row under the pointer, for the person whose hand is on the table.
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
        const QModelIndex row = m_table->indexAt(position);
        if (!row.isValid())
            return;
        m_table->setCurrentIndex(row);
        QMenu menu(this);
        menu.setObjectName(QStringLiteral("adapterContextMenu"));
        for (QPushButton* button : {m_resetButton, m_forceOpenButton, m_enableButton}) {
            QAction* action = menu.addAction(button->text(), button, &QPushButton::click);
            action->setEnabled(button->isEnabled());
        }
        menu.exec(m_table->viewport()->mapToGlobal(position));
    });
    m_table->setMinimumHeight(
        m_table->verticalHeader()->defaultSectionSize() * 2 + m_table->horizontalHeader()->sizeHint().height() + 4);
    return m_table;
}

QWidget* AdapterHealthView::createTimelinePane()
{
    m_timelineTitle = new QLabel;
    m_timelineTitle->setObjectName(QStringLiteral("timelineTitle"));
    m_timelineTitle->setTextFormat(Qt::PlainText);
    QFont bold = m_timelineTitle->font();
    bold.setBold(true);
    m_timelineTitle->setFont(bold);

    m_timelineView = new QTableView;
    m_timelineView->setObjectName(QStringLiteral("adapterTimeline"));
    configureTable(m_timelineView);
    m_timelineView->setModel(m_timeline);
    m_timelineView->setItemDelegateForColumn(
        BreakerTimelineModel::TransitionColumn, new HealthDelegate(m_timelineView));
    m_timelineView->horizontalHeader()->setSectionResizeMode(BreakerTimelineModel::ReasonColumn, QHeaderView::Stretch);
    m_timelineView->horizontalHeader()->setStretchLastSection(false);
    const QFontMetrics metrics = m_timelineView->fontMetrics();
    const int padding = 3 * metrics.averageCharWidth();
    const auto width = [&](const QString& sample) { return metrics.horizontalAdvance(sample) + padding; };
    m_timelineView->setColumnWidth(BreakerTimelineModel::TimeColumn, width(QStringLiteral("2026-01-01 00:00")));
    // The dot the delegate paints takes a line's height.
    m_timelineView->setColumnWidth(
        BreakerTimelineModel::TransitionColumn, width(QStringLiteral("half-open → closed")) + metrics.height());
    m_timelineView->setColumnWidth(BreakerTimelineModel::CallColumn, width(QStringLiteral("#000000")));
    m_timelineView->setMinimumHeight(m_timelineView->verticalHeader()->defaultSectionSize() * 3
        + m_timelineView->horizontalHeader()->sizeHint().height() + 4);
    connect(m_timelineView, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
        const qint64 callId = index.data(CallIdRole).toLongLong();
        if (callId > 0)
            Q_EMIT callRequested(callId);
    });

    m_timelinePlaceholder = placeholderLabel(QStringLiteral("timelinePlaceholder"));

    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_timelineTitle);
    layout->addWidget(m_timelineView, 1);
    layout->addWidget(m_timelinePlaceholder, 1);
    return pane;
}

bool AdapterHealthView::eventFilter(QObject* watched, QEvent* event)
{
    // Escape clears the selection, and with it the call log's adapter filter.
    if (watched == m_table && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape && !m_currentName.isEmpty()) {
        clearSelection();
        return true;
    }
    return QDockWidget::eventFilter(watched, event);
}

bool AdapterHealthView::selectAdapter(const QString& name)
{
    const QModelIndex row = m_proxy->mapFromSource(m_model->indexOfAdapter(name));
    if (!row.isValid())
        return false;
    m_table->setCurrentIndex(row);
    m_table->scrollTo(row);
    return true;
}

void AdapterHealthView::clearSelection()
{
    m_table->selectionModel()->clear();
}

void AdapterHealthView::resetCurrentBreaker()
{
    if (!m_currentName.isEmpty())
        m_backend->resetBreaker(m_currentName);
}

void AdapterHealthView::forceOpenCurrentBreaker()
{
    if (!m_currentName.isEmpty())
        m_backend->forceOpenBreaker(m_currentName);
}

void AdapterHealthView::toggleCurrentAdapterEnabled()
{
    const QModelIndex row = m_model->indexOfAdapter(m_currentName);
    if (!row.isValid())
        return;
    const AdapterHealthEntry& entry = m_model->entryAt(row.row());
    if (AdapterHealthModel::isDisabled(entry) && !AdapterHealthModel::isDisabledByOperator(entry))
        return; // the configuration file decides; the button says so
    m_backend->setAdapterEnabled(m_currentName, AdapterHealthModel::isDisabled(entry));
}

void AdapterHealthView::reloadConfiguration()
{
    m_reloading = true;
    m_statusLabel->showPending(tr("Reloading the configuration…")); // until the backend answers
    m_backend->reloadConfiguration();
}

void AdapterHealthView::onModelChanged()
{
    const bool empty = m_model->count() == 0;
    m_stack->setCurrentIndex(empty ? 0 : 1);
    m_resetButton->setVisible(!empty);
    m_forceOpenButton->setVisible(!empty);
    m_enableButton->setVisible(!empty);
    fitColumns();
    updateSummary();
    updateDetails();
}

void AdapterHealthView::onSelectionChanged()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const QString name = rows.isEmpty() ? QString() : rows.first().data(AdapterNameRole).toString();
    if (name == m_currentName)
        return;
    m_currentName = name;
    updateDetails();
    m_timelineView->scrollToTop();
    Q_EMIT adapterSelected(name);
}

void AdapterHealthView::updateDetails()
{
    // A button that has the focus and is turned off hands it to the next one in the chain, which
    // after Reset or Force open is Disable: a Space or Return meant for nothing would disable the
    // adapter. The focus goes back to the table instead.
    QWidget* focusedBefore = QApplication::focusWidget();
    const auto keepFocusSafe = qScopeGuard([this, focusedBefore] {
        const bool buttonHadIt
            = focusedBefore == m_resetButton || focusedBefore == m_forceOpenButton || focusedBefore == m_enableButton;
        if ((buttonHadIt && !focusedBefore->isEnabled())
            || (QApplication::focusWidget() == m_enableButton && focusedBefore != m_enableButton))
            m_table->setFocus(Qt::OtherFocusReason);
    });
    const QModelIndex row = m_model->indexOfAdapter(m_currentName);
    const AdapterHealthEntry* entry = row.isValid() ? &m_model->entryAt(row.row()) : nullptr;

    // Reset: something to reset (an open breaker, failures counted). Force open: not already open
    // by hand. Neither for a disabled adapter, which refuses every call anyway.
    const bool disabled = entry && AdapterHealthModel::isDisabled(*entry);
    const bool byOperator = entry && AdapterHealthModel::isDisabledByOperator(*entry);
    const std::optional<BreakerState> breaker = entry ? entry->breaker : std::nullopt;
    const bool resettable = breaker
        && (breaker->phase != BreakerPhase::Closed || breaker->consecutiveFailures > 0 || breaker->forcedOpen);
    m_resetButton->setEnabled(entry && !disabled && resettable);
    m_resetButton->setToolTip(entry
            ? tr("Close %1's breaker and forget its failures: calls go through again").arg(m_currentName)
            : tr("Close the selected adapter's breaker and forget its failures"));
    m_forceOpenButton->setEnabled(entry && !disabled && !(breaker && breaker->forcedOpen));
    m_forceOpenButton->setToolTip(entry
            ? tr("Open %1's breaker: its calls fail at once until you reset it").arg(m_currentName)
            : tr("Open the selected adapter's breaker until you reset it"));
    m_enableButton->setText(disabled ? tr("Enable") : tr("Disable"));
    m_enableButton->setEnabled(entry && (!disabled || byOperator));
    if (!entry)
        m_enableButton->setToolTip(tr("Stop offering the selected adapter's tools and refuse its calls"));
    else if (disabled && !byOperator)
        m_enableButton->setToolTip(
            tr("%1 is disabled in the configuration file (enabled: false); change it there and reload")
                .arg(m_currentName));
    else if (disabled)
        m_enableButton->setToolTip(tr("Offer %1's tools again").arg(m_currentName));
    else
        m_enableButton->setToolTip(
            tr("Stop offering %1's tools and refuse its calls, until you enable it (a reload keeps this)")
                .arg(m_currentName));

    const BreakerTransitionList transitions
        = entry && entry->status ? entry->status->transitions : BreakerTransitionList();
    m_timeline->setTransitions(m_currentName, transitions);
    m_timelineTitle->setText(entry ? tr("Breaker transitions of %1").arg(m_currentName) : tr("Breaker transitions"));
    m_timelinePlaceholder->setText(entry ? tr("No transitions yet: the breaker has stayed closed.")
                                         : tr("Select an adapter to see its breaker's transitions."));
    m_timelineView->setVisible(!transitions.isEmpty());
    m_timelinePlaceholder->setVisible(transitions.isEmpty());
}

void AdapterHealthView::updateSummary()
{
    int open = 0;
    int disabled = 0;
    int failing = 0;
    for (int row = 0; row < m_model->count(); ++row) {
        const AdapterHealthEntry& entry = m_model->entryAt(row);
        switch (AdapterHealthModel::health(entry)) {
        case AdapterHealth::Off:
            ++disabled;
            break;
        case AdapterHealth::Operator:
            ++open;
            break;
        case AdapterHealth::Failing:
            if (entry.breaker && entry.breaker->phase == BreakerPhase::Open)
                ++open;
            else
                ++failing;
            break;
        default:
            break;
        }
    }
    const int count = m_model->count();
    QStringList parts;
    if (count > 0)
        parts << (count == 1 ? tr("1 adapter") : tr("%1 adapters").arg(count));
    if (open > 0)
        parts << tr("%1 open").arg(open);
    if (failing > 0)
        parts << tr("%1 failing").arg(failing);
    if (disabled > 0)
        parts << tr("%1 disabled").arg(disabled);
    m_summaryLabel->setText(parts.join(QStringLiteral(" · ")));
    // In the tab's title too: behind the repositories' tab, an open breaker still shows.
    setWindowTitle(open > 0 ? tr("Adapters (%1 open)").arg(open) : tr("Adapters"));
}

void AdapterHealthView::fitColumns()
{
    // Fitted after each batch (rows arrive one by one, which a header's ResizeToContents does not
    // follow); the state column is at least as wide as a countdown, so the ticking text does not
    // get cut, and a long name is cut rather than pushing the numbers out of sight.
    const QFontMetrics metrics = m_table->fontMetrics();
    const int charWidth = metrics.averageCharWidth();
    for (int column = 0; column < AdapterHealthModel::LastErrorColumn; ++column)
        m_table->resizeColumnToContents(column);
    if (m_table->columnWidth(AdapterHealthModel::AdapterColumn) > 28 * charWidth)
        m_table->setColumnWidth(AdapterHealthModel::AdapterColumn, 28 * charWidth);
    const int stateWidth = metrics.horizontalAdvance(tr("open — retry in 59 s")) + metrics.height() + 3 * charWidth;
    if (m_table->columnWidth(AdapterHealthModel::StateColumn) < stateWidth)
        m_table->setColumnWidth(AdapterHealthModel::StateColumn, stateWidth);
}

void AdapterHealthView::onConfigurationReloaded(bool ok, const QString& message)
{
    // Also when the file changed on disk and nobody here asked.
    const QString done
        = m_reloading ? tr("Configuration reloaded.") : tr("The configuration file changed and was read again.");
    m_reloading = false;
    if (ok)
        m_statusLabel->showNote(message.isEmpty() ? done : done + QLatin1Char(' ') + message);
    else
        m_statusLabel->showProblem(
            tr("The configuration was not reloaded; the previous one stays in force: %1").arg(message));
}

void AdapterHealthView::onCommandFailed(const QString& command, const QString& message)
{
    const QString description = commandDescription(command);
    if (description.isEmpty())
        return; // another view's command
    if (command == QLatin1String("reloadConfiguration"))
        m_reloading = false;
    m_statusLabel->showProblem(description.arg(message));
}
