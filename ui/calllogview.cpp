#include "calllogview.h"

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "modelroles.h"
#include "statusfilterbox.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

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
    , m_adapterChip(new QFrame)
    , m_adapterLabel(new QLabel)
    , m_adapterClear(new QToolButton)
{
    m_proxy->setSourceModel(m_model);
    // Connected before the view gets the model: the view and its selection model move the current
    // row in their own rowsAboutToBeRemoved handlers, and this one must see the removal first.
    connect(m_proxy, &QAbstractItemModel::rowsAboutToBeRemoved, this, &CallLogView::onRowsAboutToBeRemoved);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &CallLogView::onRowsRemoved);
    connect(m_proxy, &QAbstractItemModel::dataChanged, this, &CallLogView::onDataChanged);

    m_filterEdit->setObjectName(QStringLiteral("callLogFilter"));
    m_filterEdit->setPlaceholderText(tr("Filter: tool, client, route, status, session…"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip(tr("Shows calls that contain every word (case-insensitive)"));
    connect(m_filterEdit, &QLineEdit::textChanged, m_proxy, &CallLogFilterProxy::setFilterText);
    m_filterEdit->installEventFilter(this);

    m_statusFilter->setObjectName(QStringLiteral("callLogStatusFilter"));
    connect(m_statusFilter, &StatusFilterBox::statusFilterChanged, m_proxy, &CallLogFilterProxy::setStatusFilter);

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
    m_table->setSortingEnabled(false); // a log: oldest at the top, in the order calls started
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
    columns->setStretchLastSection(false);
    setInitialColumnWidths();

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
    header->addWidget(m_followButton);

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
    layout->addWidget(m_callIdBar);
    layout->addWidget(m_table, 1);
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

bool CallLogView::showCall(qint64 callId)
{
    const QModelIndex source = m_model->indexOfCall(callId);
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
    const QModelIndex row = m_proxy->mapFromSource(m_model->indexOfCall(newest));
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

void CallLogView::setInitialColumnWidths()
{
    // Widths from sample text, set once: resizeColumnsToContents would measure every row on every
    // batch.
    const QFontMetrics metrics = fontMetrics();
    const int padding = 3 * metrics.averageCharWidth();
    const auto width = [&](const char* sample) { return metrics.horizontalAdvance(QLatin1String(sample)) + padding; };
    QHeaderView* columns = m_table->horizontalHeader();
    columns->setMinimumSectionSize(width("Time"));
    columns->resizeSection(CallColumns::TimeColumn, width("00:00:00.000"));
    columns->resizeSection(CallColumns::ClientColumn, width("claude-code 1.0.100"));
    columns->resizeSection(CallColumns::ToolColumn, width("mcp__github__create_issue"));
    columns->resizeSection(CallColumns::RouteColumn, width("adapter:github"));
    // The longest status in words, after its icon and the spacing the style puts around it.
    columns->resizeSection(CallColumns::StatusColumn,
        width("Invalid arguments") + m_table->iconSize().width() + 3 * metrics.averageCharWidth());
    columns->resizeSection(CallColumns::DurationColumn, width("999.9 ms"));
    // The tool name is the column worth the spare width.
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setSectionResizeMode(CallColumns::ToolColumn, QHeaderView::Stretch);
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
    if (current.isValid() && current.row() >= first && current.row() <= last)
        m_currentLeaving = true;
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
}

void CallLogView::onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight)
{
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.row() >= topLeft.row() && current.row() <= bottomRight.row())
        Q_EMIT currentCallChanged(current.data(CallRole).value<ToolCall>());
}
