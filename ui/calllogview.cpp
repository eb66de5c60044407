#include "calllogview.h"

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "callsearch.h"
#include "historyquery.h"
#include "modelroles.h"
#include "statusfilterbox.h"
#include "themeicon.h"

#include <QAction>
#include <QDataStream>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace {

// Bumped when the columns change, so a header state saved for other columns is not restored.
constexpr quint32 HeaderStateVersion = 1;

// How many history matches one "Search history too" asks for.
constexpr int HistoryPage = 200;

} // namespace

CallLogView::CallLogView(CallLogModel* model, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_proxy(new CallLogFilterProxy(this))
    , m_filterEdit(new QLineEdit)
    , m_statusFilter(new StatusFilterBox)
    , m_table(new QTableView)
    , m_followButton(new QToolButton)
    , m_callIdBar(new QWidget)
    , m_callIdLabel(new QLabel)
    , m_emptyLabel(new QLabel)
    , m_adapterChip(new QFrame)
    , m_adapterLabel(new QLabel)
    , m_adapterClear(new QToolButton)
    , m_pauseAction(new QAction(this))
    , m_pauseButton(new QToolButton)
    , m_pausedLabel(new QLabel)
    , m_countLabel(new QLabel)
    , m_historyButton(new QToolButton)
    , m_historyAction(new QAction(this))
{
    m_proxy->setSourceModel(m_model);
    // Connected before the view gets the model: the view and its selection model move the current
    // row in their own rowsAboutToBeRemoved handlers, and this one must see the removal first.
    connect(m_proxy, &QAbstractItemModel::rowsAboutToBeRemoved, this, &CallLogView::onRowsAboutToBeRemoved);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &CallLogView::onRowsRemoved);
    connect(m_proxy, &QAbstractItemModel::dataChanged, this, &CallLogView::onDataChanged);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &CallLogView::onRowsInserted);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &CallLogView::updateCountLabel);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &CallLogView::updateCountLabel);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &CallLogView::updatePausedLabel);
    // The count's "of M" is the log's rows: rows that come and go hidden by a filter change it too,
    // and the proxy says nothing of those.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &CallLogView::updateCountLabel);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &CallLogView::updateCountLabel);
    connect(m_model, &QAbstractItemModel::modelReset, this, &CallLogView::updateCountLabel);
    // While paused, the snapshot takes the newer states of the rows it shows.
    connect(m_model, &QAbstractItemModel::dataChanged, this,
        [this](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
            if (!m_frozen)
                return;
            for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                m_frozen->refreshFrom(*m_model, row);
        });

    m_filterEdit->setObjectName(QStringLiteral("callLogFilter"));
    m_filterEdit->setPlaceholderText(tr("Filter: tool, client, route, status, session, error, arguments…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip(tr("Shows calls that contain every word (case-insensitive); tool:NAME and "
                                "client:NAME ask for that tool or client exactly (quote a name with spaces: "
                                "client:\"Claude Desktop\")"));
    connect(m_filterEdit, &QLineEdit::textChanged, m_proxy, &CallLogFilterProxy::setFilterText);
    connect(m_filterEdit, &QLineEdit::textChanged, this, &CallLogView::onFilterChanged);
    m_filterEdit->installEventFilter(this);

    m_statusFilter->setObjectName(QStringLiteral("callLogStatusFilter"));
    connect(m_statusFilter, &StatusFilterBox::statusesChanged, m_proxy, &CallLogFilterProxy::setStatusesFilter);
    connect(m_statusFilter, &StatusFilterBox::statusesChanged, this, &CallLogView::onFilterChanged);

    m_countLabel->setObjectName(QStringLiteral("shownCountLabel"));
    m_countLabel->setForegroundRole(QPalette::PlaceholderText);
    m_countLabel->setToolTip(
        tr("Calls the filters show, of the calls the log holds: the newest, failures and waiting calls kept "
           "past its limit, and calls found in history"));

    // At real rates the live log covers well under a second: a filter can reach further back.
    m_historyAction->setObjectName(QStringLiteral("searchHistoryAction"));
    m_historyAction->setIcon(ThemeIcon::icon(QStringLiteral("document-open-recent")));
    m_historyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    m_historyAction->setToolTip(tr("Add older calls that match the filter from history, shown in italics (%1)")
                                    .arg(m_historyAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_historyAction, &QAction::triggered, this, [this] {
        if (m_historyAction->isEnabled())
            Q_EMIT historySearchRequested(historyQuery());
    });
    m_historyButton->setObjectName(QStringLiteral("searchHistoryButton"));
    m_historyButton->setDefaultAction(m_historyAction);
    m_historyButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_historyButton->setAutoRaise(true);

    m_pauseAction->setObjectName(QStringLiteral("pauseAction"));
    m_pauseAction->setCheckable(true);
    // P for pause, as Ctrl+Shift+A answers; the Pause key where a keyboard has one.
    m_pauseAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), QKeySequence(Qt::Key_Pause)});
    connect(m_pauseAction, &QAction::toggled, this, &CallLogView::setPaused);
    m_pauseButton->setObjectName(QStringLiteral("pauseButton"));
    m_pauseButton->setDefaultAction(m_pauseAction);
    m_pauseButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_pausedLabel->setObjectName(QStringLiteral("pausedLabel"));
    m_pausedLabel->setTextFormat(Qt::PlainText);
    // The amber of a waiting call: the view is not what is happening now.
    m_pausedLabel->setStyleSheet(QStringLiteral("QLabel { color: #b36b00; font-weight: bold; }"));
    m_pausedLabel->hide();

    m_followButton->setObjectName(QStringLiteral("followButton"));
    m_followButton->setText(tr("Follow newest"));
    m_followButton->setToolTip(tr("Keep the newest call in view; scrolling up stops following"));
    m_followButton->setCheckable(true);
    m_followButton->setChecked(true);
    m_followButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    connect(m_followButton, &QToolButton::clicked, this, &CallLogView::setFollowing);

    m_table->setObjectName(QStringLiteral("callLogTable"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A log: oldest at the top, in the order calls started, until a header click sorts it.
    m_table->setSortingEnabled(false);
    m_table->setShowGrid(false);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
    // Fixed row heights: the view never measures rows, so inserting thousands costs nothing per row.
    QHeaderView* rows = m_table->verticalHeader();
    rows->setVisible(false);
    rows->setSectionResizeMode(QHeaderView::Fixed);
    rows->setDefaultSectionSize(fontMetrics().height() + 6);
    QHeaderView* columns = m_table->horizontalHeader();
    columns->setHighlightSections(false);
    columns->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    columns->setSectionsClickable(true);
    columns->setSectionsMovable(true);
    columns->setSortIndicatorShown(false);
    connect(columns, &QHeaderView::sectionClicked, this, &CallLogView::onHeaderClicked);
    setInitialColumns(m_table);

    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &CallLogView::onCurrentRowChanged);
    QScrollBar* scrollBar = m_table->verticalScrollBar();
    connect(scrollBar, &QScrollBar::rangeChanged, this, &CallLogView::onScrollRangeChanged);
    connect(scrollBar, &QScrollBar::valueChanged, this, &CallLogView::onScrollValueChanged);

    // The adapter filter, set by selecting an adapter in the Adapters dock: it hides every other
    // call, so it shows where the person looks for filters, with a way out.
    auto* chip = static_cast<QFrame*>(m_adapterChip);
    chip->setObjectName(QStringLiteral("adapterFilterChip"));
    chip->setFrameShape(QFrame::StyledPanel);
    m_adapterLabel->setObjectName(QStringLiteral("adapterFilterLabel"));
    m_adapterLabel->setTextFormat(Qt::PlainText);
    m_adapterClear->setObjectName(QStringLiteral("clearAdapterFilterButton"));
    m_adapterClear->setIcon(style()->standardIcon(QStyle::SP_LineEditClearButton));
    m_adapterClear->setAutoRaise(true);
    m_adapterClear->setToolTip(tr("Show the calls of every adapter"));
    connect(m_adapterClear, &QToolButton::clicked, this, &CallLogView::clearAdapterFilter);
    auto* chipLayout = new QHBoxLayout(chip);
    chipLayout->setContentsMargins(6, 0, 0, 0);
    chipLayout->setSpacing(2);
    chipLayout->addWidget(m_adapterLabel);
    chipLayout->addWidget(m_adapterClear);
    chip->hide();

    auto* header = new QHBoxLayout;
    header->addWidget(m_filterEdit, 1);
    header->addWidget(m_adapterChip);
    header->addWidget(m_statusFilter);
    header->addWidget(m_pauseButton);
    header->addWidget(m_followButton);
    auto* status = new QHBoxLayout;
    status->addWidget(m_countLabel);
    status->addWidget(m_historyButton);
    status->addStretch(1);
    status->addWidget(m_pausedLabel);

    // The id filter hides most of the log; this bar says so and ends it, so the person is never left
    // wondering where the other calls went.
    m_callIdBar->setObjectName(QStringLiteral("callIdFilterBar"));
    m_callIdLabel->setObjectName(QStringLiteral("callIdFilterLabel"));
    m_callIdLabel->setTextFormat(Qt::PlainText);
    m_callIdLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* showAll = new QToolButton;
    showAll->setObjectName(QStringLiteral("showAllCallsButton"));
    showAll->setText(tr("Show all calls"));
    showAll->setToolButtonStyle(Qt::ToolButtonTextOnly);
    connect(showAll, &QToolButton::clicked, this, &CallLogView::showAllCalls);
    auto* bar = new QHBoxLayout(m_callIdBar);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_callIdLabel, 1);
    bar->addWidget(showAll);
    m_callIdBar->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addLayout(status);
    layout->addWidget(m_callIdBar);
    m_emptyLabel->setObjectName(QStringLiteral("emptyFilterLabel"));
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setForegroundRole(QPalette::PlaceholderText);
    m_emptyLabel->hide();
    layout->addWidget(m_emptyLabel);
    layout->addWidget(m_table, 1);

    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
        // The Menu key opens it for the current row; a click for the row under the pointer.
        QModelIndex index = m_table->indexAt(position);
        if (!index.isValid())
            index = m_table->currentIndex();
        else
            m_table->setCurrentIndex(index);
        QMenu* menu = contextMenuFor(index);
        if (!menu)
            return;
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_table->viewport()->mapToGlobal(
            m_table->indexAt(position).isValid() ? position : m_table->visualRect(index).center()));
    });

    setPaused(false);
    onFilterChanged();
}

bool CallLogView::eventFilter(QObject* watched, QEvent* event)
{
    // Down or Return in the filter field moves to the matches, so filtering and picking a call need
    // no mouse.
    if (watched == m_filterEdit && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_Down || key == Qt::Key_Return || key == Qt::Key_Enter) && m_proxy->rowCount() > 0) {
            // Before the focus moves: a view that gains focus without a current row picks the first.
            if (!m_table->currentIndex().isValid())
                m_table->setCurrentIndex(m_proxy->index(m_proxy->rowCount() - 1, 0));
            m_table->setFocus(Qt::TabFocusReason);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QMenu* CallLogView::contextMenuFor(const QModelIndex& index)
{
    if (!index.isValid())
        return nullptr;
    const ToolCall call = index.data(CallRole).value<ToolCall>();
    if (call.id == 0)
        return nullptr;
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("callContextMenu"));
    const auto filterBy = [this](const QString& text) {
        m_filterEdit->setText(text);
        m_table->setFocus(Qt::OtherFocusReason);
    };
    if (!call.clientName.isEmpty()) {
        QAction* byClient = menu->addAction(tr("Filter by Client \u201c%1\u201d").arg(call.clientName.left(60)));
        byClient->setObjectName(QStringLiteral("filterByClientAction"));
        connect(byClient, &QAction::triggered, this,
            [filterBy, client = call.clientName] { filterBy(CallSearch::clientTerm(client)); });
    }
    QAction* byTool = menu->addAction(tr("Filter by Tool \u201c%1\u201d").arg(call.tool.left(60)));
    byTool->setObjectName(QStringLiteral("filterByToolAction"));
    connect(byTool, &QAction::triggered, this, [filterBy, tool = call.tool] { filterBy(CallSearch::toolTerm(tool)); });
    menu->addSeparator();
    QAction* replay = menu->addAction(tr("Replay"));
    replay->setObjectName(QStringLiteral("replayCallAction"));
    replay->setEnabled(m_live && !call.request.isEmpty()); // nothing from a file is sent again
    connect(replay, &QAction::triggered, this, [this, call] { Q_EMIT replayRequested(call); });
    QAction* history = menu->addAction(tr("Show in History"));
    history->setObjectName(QStringLiteral("showInHistoryAction"));
    history->setEnabled(m_live);
    connect(history, &QAction::triggered, this, [this, id = call.id] { Q_EMIT showInHistoryRequested(id); });
    // What the window put on the table (the inspector's Copy actions, acting on the selected row).
    const QList<QAction*> added = m_table->actions();
    if (!added.isEmpty()) {
        menu->addSeparator();
        menu->addActions(added);
    }
    return menu;
}

bool CallLogView::showCall(qint64 callId)
{
    // A call that came after a pause: the person asked for it, so the view catches up.
    if (m_frozen && !m_frozen->indexOfCall(callId).isValid() && m_model->indexOfCall(callId).isValid())
        setPaused(false);
    const QModelIndex source = shownModel()->indexOfCall(callId);
    if (!source.isValid())
        return false;
    QModelIndex row = m_proxy->mapFromSource(source);
    if (!row.isValid()) {
        // The person asked for this call: filters that hide it give way.
        m_filterEdit->clear();
        m_statusFilter->setStatus(std::nullopt);
        showAllCalls();
        if (!m_proxy->adapterFilter().isEmpty())
            clearAdapterFilter();
        row = m_proxy->mapFromSource(source);
        if (!row.isValid())
            return false;
    }
    // Following would scroll the row away with the next call.
    setFollowing(false);
    m_table->setCurrentIndex(row);
    m_table->scrollTo(row, QAbstractItemView::PositionAtCenter);
    return true;
}

int CallLogView::showCalls(const QList<qint64>& callIds, const QString& description)
{
    QSet<qint64> shown;
    qint64 newest = 0;
    for (qint64 id : callIds) {
        if (!m_model->indexOfCall(id).isValid())
            continue; // aged out of the live log
        if (m_frozen && !m_frozen->indexOfCall(id).isValid())
            setPaused(false); // came after the pause
        shown.insert(id);
        newest = qMax(newest, id);
    }
    if (shown.isEmpty()) {
        showAllCalls();
        return 0;
    }
    // The text, status and adapter filters could hide some of them: the person asked for exactly these.
    m_filterEdit->clear();
    m_statusFilter->setStatus(std::nullopt);
    if (!m_proxy->adapterFilter().isEmpty())
        clearAdapterFilter();
    m_proxy->setCallIdFilter(shown);
    m_callIdLabel->setText(shown.size() == 1 ? tr("Showing 1 call: %1").arg(description)
                                             : tr("Showing %1 calls: %2").arg(shown.size()).arg(description));
    m_callIdLabel->setToolTip(m_callIdLabel->text());
    m_callIdBar->show();
    const QModelIndex row = m_proxy->mapFromSource(shownModel()->indexOfCall(newest));
    setFollowing(false);
    m_table->setCurrentIndex(row);
    m_table->scrollTo(row, QAbstractItemView::PositionAtCenter);
    return int(shown.size());
}

void CallLogView::showAllCalls()
{
    m_proxy->setCallIdFilter({});
    m_callIdBar->hide();
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid())
        m_table->scrollTo(current, QAbstractItemView::PositionAtCenter);
}

void CallLogView::setAdapterFilter(const QString& adapter)
{
    m_proxy->setAdapterFilter(adapter);
    m_adapterLabel->setText(tr("adapter: %1").arg(adapter));
    m_adapterChip->setToolTip(tr("Only the calls routed to the adapter %1 are shown").arg(adapter));
    m_adapterChip->setVisible(!adapter.isEmpty());
    onFilterChanged();
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid())
        m_table->scrollTo(current, QAbstractItemView::PositionAtCenter);
}

QString CallLogView::adapterFilter() const
{
    return m_proxy->adapterFilter();
}

void CallLogView::clearAdapterFilter()
{
    setAdapterFilter(QString());
    Q_EMIT adapterFilterCleared();
}

void CallLogView::setInitialColumns(QTableView* table, QLatin1String timeSample)
{
    // The outcome right after the time: a narrow log (a laptop, a large font, a wide inspector)
    // still shows how every call ended, where the log's last columns would be cut off.
    QHeaderView* columns = table->horizontalHeader();
    for (int visual = 0; visual < int(std::size(DefaultColumnOrder)); ++visual)
        columns->moveSection(columns->visualIndex(DefaultColumnOrder[visual]), visual);
    // Widths from sample text, set once: resizeColumnsToContents would measure every row on every
    // batch.
    const QFontMetrics metrics = table->fontMetrics();
    const int padding = 3 * metrics.averageCharWidth();
    const auto width = [&](QLatin1String sample) { return metrics.horizontalAdvance(sample) + padding; };
    columns->setMinimumSectionSize(width(QLatin1String("Time")));
    columns->resizeSection(CallColumns::TimeColumn, width(timeSample));
    columns->resizeSection(CallColumns::ClientColumn, width(QLatin1String("claude-code 1.0.100")));
    columns->resizeSection(CallColumns::ToolColumn, width(QLatin1String("mcp__github__create_issue")));
    columns->resizeSection(CallColumns::RouteColumn, width(QLatin1String("adapter:github")));
    // The longest status in words, after its icon and the spacing the style puts around it.
    columns->resizeSection(CallColumns::StatusColumn,
        width(QLatin1String("Invalid arguments")) + table->iconSize().width() + 3 * metrics.averageCharWidth());
    // Room for a call that waited for a person: "waited 21.00 s, ran 3.00 ms".
    columns->resizeSection(CallColumns::DurationColumn, width(QLatin1String("waited 99.99 s, ran 999.9 ms")));
    // The backend's column only where a window holds several (MainWindow shows it then).
    columns->resizeSection(CallColumns::BackendColumn, width(QLatin1String("build-host.example:8765")));
    columns->setSectionHidden(CallColumns::BackendColumn, true);
    // Every column the person can resize (and the widths are remembered); the last one takes what
    // is left, and a narrow window scrolls sideways rather than cutting the tool names short.
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setStretchLastSection(true);
}

void CallLogView::setFollowing(bool following)
{
    m_following = following;
    m_followButton->setChecked(following);
    if (following)
        m_table->verticalScrollBar()->setValue(m_table->verticalScrollBar()->maximum());
}

void CallLogView::onScrollRangeChanged(int /*minimum*/, int maximum)
{
    if (m_following)
        m_table->verticalScrollBar()->setValue(maximum);
}

void CallLogView::onScrollValueChanged(int value)
{
    const bool atBottom = value >= m_table->verticalScrollBar()->maximum();
    if (atBottom != m_following) {
        m_following = atBottom;
        m_followButton->setChecked(atBottom);
    }
}

void CallLogView::onCurrentRowChanged(const QModelIndex& current)
{
    // While the current row is removed, the view moves the current index to a neighbour; that is
    // not the person's choice, so the inspector keeps the call it shows.
    if (m_currentLeaving || !current.isValid())
        return;
    Q_EMIT currentCallChanged(current.data(CallRole).value<ToolCall>());
}

void CallLogView::onRowsAboutToBeRemoved(const QModelIndex& /*parent*/, int first, int last)
{
    const QItemSelectionModel* selection = m_table->selectionModel();
    const QModelIndex current = selection ? selection->currentIndex() : QModelIndex();
    if (current.isValid() && current.row() >= first && current.row() <= last) {
        m_currentLeaving = true;
        m_leavingCallId = current.data(CallIdRole).toLongLong();
    }
    if (!m_following) {
        // Per-item scrolling: the scroll value is the first visible row.
        const int top = m_table->verticalScrollBar()->value();
        m_removedAboveView += qMax(0, qMin(last + 1, top) - first);
    }
}

void CallLogView::onRowsRemoved()
{
    if (m_removedAboveView > 0) {
        QScrollBar* scrollBar = m_table->verticalScrollBar();
        scrollBar->setValue(scrollBar->value() - m_removedAboveView);
        m_removedAboveView = 0;
    }
    if (m_currentLeaving) {
        m_currentLeaving = false;
        m_table->selectionModel()->clear();
    }
    updateCountLabel();
}

void CallLogView::onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight)
{
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.row() >= topLeft.row() && current.row() <= bottomRight.row())
        Q_EMIT currentCallChanged(current.data(CallRole).value<ToolCall>());
}

CallLogModel* CallLogView::shownModel() const
{
    return m_frozen ? m_frozen : m_model;
}

void CallLogView::onRowsInserted(const QModelIndex& /*parent*/, int first, int last)
{
    if (!m_following) {
        // Rows that arrive above what the person reads (a row kept past the live window, a history
        // match, a sorted position) push it down; the view moves with it.
        QScrollBar* scrollBar = m_table->verticalScrollBar();
        const int top = scrollBar->value();
        if (first <= top) {
            scrollBar->setRange(0, qMax(scrollBar->maximum(), m_proxy->rowCount() - 1));
            scrollBar->setValue(top + last - first + 1);
        }
    }
    if (m_leavingCallId != 0) {
        // The current row left and came back as a kept row in the same update.
        const qint64 id = m_leavingCallId;
        m_leavingCallId = 0;
        for (int row = first; row <= last; ++row) {
            if (m_proxy->index(row, 0).data(CallIdRole).toLongLong() == id) {
                selectCall(id);
                break;
            }
        }
    }
    updateCountLabel();
}

void CallLogView::selectCall(qint64 callId)
{
    const QModelIndex row = m_proxy->mapFromSource(shownModel()->indexOfCall(callId));
    if (row.isValid())
        m_table->selectionModel()->setCurrentIndex(
            row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void CallLogView::setPaused(bool paused)
{
    if (paused != isPaused()) {
        const QModelIndex current = m_table->currentIndex();
        const qint64 currentId = current.isValid() ? current.data(CallIdRole).toLongLong() : 0;
        const QModelIndex top = m_table->indexAt(QPoint(0, 0));
        const qint64 topId = top.isValid() ? top.data(CallIdRole).toLongLong() : 0;
        const bool wasFollowing = m_following;
        if (paused) {
            // Rows neither arrive nor move while paused: no re-sorting or re-filtering on updates.
            m_frozen = new CallLogModel(m_model->capacity(), this);
            m_frozen->setObjectName(QStringLiteral("pausedCallLog"));
            m_frozen->snapshotFrom(*m_model);
            m_receivedAtPause = m_model->receivedCount();
            m_proxy->setDynamicSortFilter(false);
            m_proxy->setSourceModel(m_frozen);
        } else {
            m_proxy->setSourceModel(m_model);
            m_proxy->setDynamicSortFilter(true);
            delete m_frozen;
            m_frozen = nullptr;
        }
        if (currentId != 0)
            selectCall(currentId);
        if (paused && !wasFollowing && topId != 0) {
            const QModelIndex row = m_proxy->mapFromSource(shownModel()->indexOfCall(topId));
            if (row.isValid())
                m_table->scrollTo(row, QAbstractItemView::PositionAtTop);
        }
        // Resume catches up: back at the newest call. A paused view that was following stays at
        // the snapshot's newest row, which no longer moves.
        setFollowing(paused ? wasFollowing : true);
    }
    const QSignalBlocker blocker(m_pauseAction);
    m_pauseAction->setChecked(paused);
    m_pauseAction->setText(paused ? tr("Resume") : tr("Pause"));
    m_pauseAction->setIcon(
        ThemeIcon::icon(paused ? QStringLiteral("media-playback-start") : QStringLiteral("media-playback-pause")));
    m_pauseAction->setToolTip((paused ? tr("Show the live log again, at its newest call (%1)")
                                      : tr("Freeze the rows shown; new calls are counted and shown on resume (%1)"))
                                  .arg(m_pauseAction->shortcut().toString(QKeySequence::NativeText)));
    m_pausedLabel->setVisible(paused);
    updatePausedLabel();
    updateCountLabel();
}

qint64 CallLogView::newCallsWhilePaused() const
{
    return m_frozen ? m_model->receivedCount() - m_receivedAtPause : 0;
}

void CallLogView::updatePausedLabel()
{
    if (!m_frozen)
        return;
    const qint64 count = newCallsWhilePaused();
    const QString text
        = count == 1 ? tr("Paused — 1 new call") : tr("Paused — %1 new calls").arg(QLocale().toString(count));
    if (m_pausedLabel->text() != text)
        m_pausedLabel->setText(text);
}

void CallLogView::updateCountLabel()
{
    const int shown = m_proxy->rowCount();
    const CallLogModel* model = shownModel();
    QString text = tr("%1 of %2 shown").arg(QLocale().toString(shown), QLocale().toString(model->rowCount()));
    if (model->historyCount() > 0)
        text += QStringLiteral(" · ") + tr("%1 from history").arg(QLocale().toString(model->historyCount()));
    if (m_countLabel->text() != text)
        m_countLabel->setText(text);
    // An empty table under a filter reads as "nothing happened": say that the filter hid the calls.
    const bool noneMatch = shown == 0 && model->rowCount() > 0 && m_proxy->isFiltering();
    if (noneMatch) {
        const QString filter = m_filterEdit->text().trimmed();
        m_emptyLabel->setText(
            (filter.isEmpty()
                    ? tr("None of the %1 calls matches the filter.").arg(QLocale().toString(model->rowCount()))
                    : tr("None of the %1 calls matches \u201c%2\u201d.")
                          .arg(QLocale().toString(model->rowCount()), filter.left(80)))
            + QLatin1Char(' ')
            + (m_live ? tr("Clear the filter to see every call, or search history too for older ones.")
                      : tr("Clear the filter to see every call.")));
    }
    m_emptyLabel->setVisible(noneMatch);
}

void CallLogView::onFilterChanged()
{
    // History matches answer the filter they were found for.
    m_model->clearHistoryMatches();
    if (m_frozen)
        m_frozen->clearHistoryMatches();
    m_historySearched = false;
    m_historyHasMore = false;
    m_historyCursor = 0;
    const bool filtering = m_live && m_proxy->isFiltering();
    m_historyAction->setText(tr("Search history too"));
    m_historyAction->setEnabled(filtering);
    m_historyButton->setVisible(filtering);
    updateCountLabel();
}

HistoryQuery CallLogView::historyQuery() const
{
    HistoryQuery query;
    // The filter itself: history answers with exactly the calls it shows.
    query.search = m_proxy->search();
    // The calls the ring of newest calls does not cover, continuing below the last page found.
    query.beforeId = m_historyCursor != 0 ? m_historyCursor : m_model->oldestLiveId();
    query.limit = HistoryPage;
    query.bodyPreviewBytes = CallLogModel::PreviewBytes;
    return query;
}

void CallLogView::addHistoryMatches(const ToolCallList& calls, bool hasMore)
{
    m_model->addHistoryMatches(calls);
    if (m_frozen)
        m_frozen->addHistoryMatches(calls);
    // History answers newest first; the next page starts below the oldest of this one, whether or
    // not the log showed it already (a kept row).
    for (const ToolCall& call : calls) {
        if (m_historyCursor == 0 || call.id < m_historyCursor)
            m_historyCursor = call.id;
    }
    m_historySearched = true;
    m_historyHasMore = hasMore && m_model->historyCount() < CallLogModel::HistoryCapacity;
    m_historyAction->setText(m_historyHasMore ? tr("More from history") : tr("No more in history"));
    m_historyAction->setEnabled(m_historyHasMore);
    updateCountLabel();
}

bool CallLogView::showCallFromHistory(const ToolCall& call)
{
    if (showCall(call.id))
        return true;
    // Filters that would hide it give way first: changing them clears the history rows.
    if (!m_proxy->search().isEmpty() && !m_proxy->search().matches(call)) {
        m_filterEdit->clear();
        m_statusFilter->setStatus(std::nullopt);
        if (!m_proxy->adapterFilter().isEmpty())
            clearAdapterFilter();
    }
    if (!m_proxy->callIdFilter().isEmpty() && !m_proxy->callIdFilter().contains(call.id))
        showAllCalls();
    if (m_frozen)
        m_frozen->addHistoryMatches({call});
    m_model->addHistoryMatches({call});
    updateCountLabel();
    return showCall(call.id);
}

void CallLogView::onHeaderClicked(int section)
{
    // Ascending, descending, then the log's own order again.
    if (m_proxy->sortColumn() != section)
        applySort(section, Qt::AscendingOrder);
    else if (m_proxy->sortOrder() == Qt::AscendingOrder)
        applySort(section, Qt::DescendingOrder);
    else
        applySort(-1, Qt::AscendingOrder);
}

void CallLogView::applySort(int column, Qt::SortOrder order)
{
    QHeaderView* columns = m_table->horizontalHeader();
    m_proxy->sort(column, order);
    columns->setSortIndicatorShown(column >= 0);
    if (column >= 0)
        columns->setSortIndicator(column, order);
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && !m_following)
        m_table->scrollTo(current, QAbstractItemView::PositionAtCenter);
}

QByteArray CallLogView::saveHeaderState() const
{
    QByteArray state;
    QDataStream stream(&state, QIODevice::WriteOnly);
    stream << HeaderStateVersion << qint32(CallColumns::NumColumns) << m_table->horizontalHeader()->saveState()
           << qint32(m_proxy->sortColumn()) << qint32(m_proxy->sortOrder());
    return state;
}

bool CallLogView::restoreHeaderState(const QByteArray& state)
{
    QDataStream stream(state);
    quint32 version = 0;
    qint32 columnCount = 0;
    QByteArray header;
    qint32 sortColumn = -1;
    qint32 sortOrder = 0;
    stream >> version >> columnCount >> header >> sortColumn >> sortOrder;
    if (stream.status() != QDataStream::Ok || version != HeaderStateVersion || columnCount != CallColumns::NumColumns
        || sortColumn < -1 || sortColumn >= CallColumns::NumColumns)
        return false;
    if (!m_table->horizontalHeader()->restoreState(header))
        return false;
    applySort(sortColumn, sortOrder == Qt::DescendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder);
    return true;
}

void CallLogView::setLive(bool live)
{
    m_live = live;
    setPaused(false);
    m_pauseAction->setEnabled(live);
    m_pauseButton->setVisible(live);
    onFilterChanged();
}

int CallLogView::essentialColumnsWidth() const
{
    const QHeaderView* columns = m_table->horizontalHeader();
    int width = 0;
    for (const int column :
        {CallColumns::TimeColumn, CallColumns::StatusColumn, CallColumns::ClientColumn, CallColumns::ToolColumn})
        width += columns->isSectionHidden(column) ? 0 : columns->sectionSize(column);
    const QMargins margins = contentsMargins() + (layout() ? layout()->contentsMargins() : QMargins());
    return width + 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width() + margins.left()
        + margins.right();
}

void CallLogView::bringToolColumnWithin(int logWidth)
{
    QHeaderView* columns = m_table->horizontalHeader();
    const int toolAt = essentialColumnsWidth() - columns->sectionSize(CallColumns::ToolColumn);
    const int client = columns->visualIndex(CallColumns::ClientColumn);
    const int tool = columns->visualIndex(CallColumns::ToolColumn);
    if (toolAt + 6 * fontMetrics().averageCharWidth() > logWidth && tool > client)
        columns->moveSection(tool, client);
}

void CallLogView::resetColumns()
{
    setInitialColumns(m_table);
    applySort(-1, Qt::AscendingOrder);
}
