#include "mainwindow.h"

#include "adapterhealthmodel.h"
#include "adapterhealthview.h"
#include "approvalwidget.h"
#include "attachdialog.h"
#include "callexportdialog.h"
#include "callexportjob.h"
#include "callimportwindow.h"
#include "callinspector.h"
#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "clienttokensdialog.h"
#include "connectclientdialog.h"
#include "copybutton.h"
#include "dashboardview.h"
#include "editresenddialog.h"
#include "historydialog.h"
#include "historyquery.h"
#include "interactionpanel.h"
#include "modelroles.h"
#include "ndjsoncallreader.h"
#include "operatorinterface.h"
#include "permissionsmodel.h"
#include "permissionsview.h"
#include "replaybar.h"
#include "repositorylistmodel.h"
#include "repositoryview.h"
#include "securitybadge.h"
#include "securityeventmodel.h"
#include "sessionlistmodel.h"
#include "shortcutsdialog.h"
#include "statuswarning.h"
#include "themeicon.h"
#include "toollistmodel.h"
#include "toolsview.h"
#include "windowshortcutguard.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <memory>

// What a dock shows when the window would not fit the screen: at least as tall as its contents want
// (as measured now, after styling), up to the most the screen leaves room for; shorter than that,
// its contents scroll.
class ShortDockArea : public QScrollArea
{
public:
    ShortDockArea() { setFrameShape(QFrame::NoFrame); }
    // Takes `contents` to show, scrolling only where its least height does not fit.
    void setContents(QWidget* contents)
    {
        setWidget(contents);
        contents->installEventFilter(this);
        fitContents();
    }
    void setMostHeight(int height)
    {
        m_mostHeight = height;
        updateGeometry();
    }
    QSize minimumSizeHint() const override
    {
        QSize size = QScrollArea::minimumSizeHint();
        if (widget())
            size.setHeight(std::max(size.height(), std::min(widget()->minimumSizeHint().height(), m_mostHeight)));
        return size;
    }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QScrollArea::resizeEvent(event);
        fitContents();
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            fitContents();
        return QScrollArea::eventFilter(watched, event);
    }

private:
    // The contents as large as the view wherever their least size fits it. Not widgetResizable:
    // that sizes contents with wrapped text by their preferred height (heightForWidth), so a dock
    // that had room for its table scrolled it, the table's header out of sight above.
    void fitContents()
    {
        QWidget* contents = widget();
        if (!contents)
            return;
        const QSize least = contents->minimumSizeHint();
        const QSize size(std::max(viewport()->width(), least.width()), std::max(viewport()->height(), least.height()));
        if (contents->size() != size)
            contents->resize(size);
    }

    int m_mostHeight = 0;
};

// The resources live in the static ui library: nothing references their initialiser, so the linker
// would drop it without this call. Q_INIT_RESOURCE must be used outside any namespace.
static void initSwitchboardResources()
{
    Q_INIT_RESOURCE(switchboard);
}

namespace {

QIcon applicationIcon()
{
    // PNG renderings of resources/icons/switchboard.svg: Qt's SVG icon engine is a separate module
    // this project does not otherwise need.
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/switchboard-%1.png").arg(size), QSize(size, size));
    return icon;
}

QFrame* separator()
{
    auto* line = new QFrame;
    line->setFrameShape(QFrame::VLine);
    line->setFrameShadow(QFrame::Sunken);
    return line;
}

// A status bar label that warns.
QString warningStyle()
{
    return QStringLiteral("QLabel { color: #c01c28; font-weight: bold; }");
}

} // namespace

MainWindow::MainWindow(OperatorInterface* backend, int callLogRows, bool noAuth, QWidget* parent)
    : QMainWindow(parent)
    , m_backend(backend)
    // What the server enforces decides what the window says; the flag only names why.
    , m_noAuth(!backend->requiresToken())
    , m_noAuthRequested(noAuth)
    , m_model(new CallLogModel(callLogRows, this))
    , m_callLog(new CallLogView(m_model))
    , m_inspector(new CallInspector)
{
    initSwitchboardResources();
    updateWindowTitle();
    setWindowIcon(applicationIcon());

    m_callLog->setObjectName(QStringLiteral("callLog"));
    m_inspector->setObjectName(QStringLiteral("inspector"));
    auto* splitter = m_splitter = new QSplitter(Qt::Horizontal);
    splitter->setObjectName(QStringLiteral("mainSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_callLog);
    splitter->addWidget(m_inspector);
    splitter->setHandleWidth(10);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    auto* central = new QWidget;
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->addWidget(splitter);
    setCentralWidget(central);

    createMenuBar();
    createToolBar();
    createStatusBar();
    createInteractionPanel();
    createRepositoryView();
    createAdapterHealthView();
    createConsoleCalls();
    // The health dashboard: a tab beside the adapters, behind the repositories.
    auto* health = new QDockWidget(tr("Health"), this);
    health->setObjectName(QStringLiteral("healthDock"));
    auto* dashboard = new DashboardView(m_backend);
    health->setWidget(dashboard);
    // Security events badged in the status bar until the person has looked at them.
    auto* securityBadge = new SecurityBadge(dashboard->securityModel());
    statusBar()->addPermanentWidget(securityBadge);
    connect(securityBadge, &SecurityBadge::showRequested, this, [health, dashboard] {
        health->show();
        health->raise();
        dashboard->showSecurityEvents();
    });
    connect(dashboard->securityModel(), &SecurityEventModel::totalChanged, securityBadge, [securityBadge, dashboard] {
        if (dashboard->isShowingSecurityEvents())
            securityBadge->markSeen();
    });
    connect(dashboard->tabs(), &QTabWidget::currentChanged, securityBadge, [securityBadge, dashboard] {
        if (dashboard->isShowingSecurityEvents())
            securityBadge->markSeen();
    });
    addDockWidget(Qt::BottomDockWidgetArea, health);
    tabifyDockWidget(m_adapterHealthView, health);
    m_repositoryView->raise();
    health->toggleViewAction()->setObjectName(QStringLiteral("healthAction"));
    health->toggleViewAction()->setToolTip(tr("Show or hide traffic, sessions and security events"));
    health->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_4));
    addMenuAction(Menu::View, health->toggleViewAction());
    if (auto* toolBar = findChild<QToolBar*>(QStringLiteral("mainToolBar")))
        toolBar->addAction(health->toggleViewAction());
    // Rules and grants, to review and revoke: a tab beside the health dashboard.
    auto* permissions = new QDockWidget(tr("Permissions"), this);
    permissions->setObjectName(QStringLiteral("permissionsDock"));
    permissions->setWidget(new PermissionsView(m_backend));
    addDockWidget(Qt::BottomDockWidgetArea, permissions);
    tabifyDockWidget(health, permissions);
    m_repositoryView->raise();
    permissions->toggleViewAction()->setObjectName(QStringLiteral("permissionsAction"));
    permissions->toggleViewAction()->setToolTip(tr("Show or hide the permission rules and grants, to revoke one"));
    permissions->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_5));
    addMenuAction(Menu::View, permissions->toggleViewAction());

    createCallActions();
    connect(m_callLog, &CallLogView::currentCallChanged, this, &MainWindow::onCurrentCallChanged);
    connect(m_callLog, &CallLogView::replayRequested, this, &MainWindow::replayCall);
    connect(m_callLog, &CallLogView::showInHistoryRequested, this, [this](qint64 callId) {
        showHistoryDialog();
        m_historyDialog->showFromCall(callId);
    });
    connect(m_inspector, &CallInspector::fullCallRequested, this, [this](qint64 callId) {
        // The rows the log shows: while paused, its snapshot has calls the live log let go.
        const CallLogModel* shown = m_callLog->shownModel();
        const QModelIndex row = shown->indexOfCall(callId);
        if (callId != m_fullCallId || !row.isValid())
            return;
        m_fullCallAttempts = 0;
        m_inspector->setPreviewNote(previewNote(shown->previewAt(row.row()), true));
        requestFullCall();
    });
    m_fullCallRetry = new QTimer(this);
    m_fullCallRetry->setSingleShot(true);
    m_fullCallRetry->setInterval(FullCallRetryMs);
    connect(m_fullCallRetry, &QTimer::timeout, this, &MainWindow::requestFullCall);
    connect(m_model, &CallLogModel::rowsDropped, this, &MainWindow::onRowsDropped);
    // The operator interface answers on this thread: call batches arrive a few dozen times a second.
    connect(m_backend, &OperatorInterface::callsUpdated, m_model, &CallLogModel::applyUpdates);
    connect(m_backend, &OperatorInterface::historyLoaded, this, &MainWindow::onHistoryLoaded);
    connect(m_backend, &OperatorInterface::sessionsChanged, this, &MainWindow::onSessionsChanged);
    // The same problems --headless prints to standard error. Further arguments a signal may gain are
    // dropped by these connections until the slots take them.
    connect(m_backend, &OperatorInterface::historyWriteFailed, this, &MainWindow::onHistoryWriteFailed);
    connect(m_backend, &OperatorInterface::historyWriteRecovered, this, &MainWindow::onHistoryWriteRecovered);
    connect(m_backend, &OperatorInterface::historyNotice, this, &MainWindow::onHistoryNotice);
    connect(m_backend, &OperatorInterface::workspaceStateProblem, this, &MainWindow::onWorkspaceStateProblem);
    connect(m_backend, &OperatorInterface::workspaceStateNotice, this, &MainWindow::onWorkspaceStateNotice);
    connect(m_backend, &OperatorInterface::workspaceStateRecovered, this, &MainWindow::onWorkspaceStateRecovered);
    connect(m_backend, &OperatorInterface::historyCallsLeftOut, this, &MainWindow::onHistoryCallsLeftOut);
    connect(m_backend, &OperatorInterface::historyCounted, this, &MainWindow::onHistoryCounted);
    connect(m_backend, &OperatorInterface::backendConnectionChanged, this, &MainWindow::onBackendConnectionChanged);
    connect(m_backend, &OperatorInterface::backendsChanged, this, &MainWindow::onBackendsChanged);
    if (m_backend->canAttachBackends())
        createAttachActions();
    onBackendsChanged();
    connect(m_backend, &OperatorInterface::historyPruned, this, [this] {
        if (m_model->droppedCount() > 0 && !m_olderCountTimer->isActive())
            m_olderCountTimer->start();
    });
    // Calls from before a restart, so the log does not start empty.
    // Previews only: the rows keep no more, and ten thousand whole calls could be gigabytes.
    m_recentRequest = m_backend->loadRecentCalls(callLogRows, CallLogModel::PreviewBytes);

    // The live log's own actions, after every dock's: Pause in the View menu, "Search history too"
    // in the Edit menu.
    addMenuAction(Menu::View, m_callLog->pauseAction());
    addMenuAction(Menu::Edit, m_callLog->historySearchAction());
    connect(m_callLog, &CallLogView::historySearchRequested, this,
        [this](const HistoryQuery& query) { m_historyMatchesRequest = m_backend->queryHistory(query); });
    auto* resetLayoutAction = new QAction(tr("Reset layout"), this);
    resetLayoutAction->setObjectName(QStringLiteral("resetLayoutAction"));
    resetLayoutAction->setProperty(WithoutShortcutProperty, true); // rare, and not to be hit by chance
    resetLayoutAction->setToolTip(tr("The window's size, docks and columns as they were at first"));
    connect(resetLayoutAction, &QAction::triggered, this, &MainWindow::resetLayout);
    // Log and inspector side by side, or the inspector below the log (chosen for the window's width
    // and font at first; the person's choice is remembered with the splitter).
    m_inspectorBelowAction = new QAction(tr("&Inspector Below the Log"), this);
    m_inspectorBelowAction->setObjectName(QStringLiteral("inspectorBelowAction"));
    m_inspectorBelowAction->setCheckable(true);
    m_inspectorBelowAction->setProperty(WithoutShortcutProperty, true);
    m_inspectorBelowAction->setToolTip(
        tr("Stack the inspector under the call log, so that the log has the window's whole width"));
    connect(m_inspectorBelowAction, &QAction::toggled, this, &MainWindow::setInspectorBelow);
    m_viewMenu->addSeparator();
    addMenuAction(Menu::View, m_inspectorBelowAction);
    addMenuAction(Menu::View, resetLayoutAction);

    // A dock's View action (and its shortcut) brings it forward when it is a tab behind another,
    // rather than closing what the person cannot see: toggled comes before the dock's own handler
    // of triggered, which then finds the action checked and leaves the dock shown.
    for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        QAction* toggle = dock->toggleViewAction();
        connect(toggle, &QAction::toggled, this, [dock, toggle](bool checked) {
            if (checked || !dock->isVisible() || !dock->visibleRegion().isEmpty())
                return;
            const QSignalBlocker quiet(toggle);
            toggle->setChecked(true);
            dock->raise();
        });
    }

    applyDefaultSizes();
    m_defaultState = saveState(LayoutVersion);
}

void MainWindow::letDocksScroll()
{
    // Only for a window that would be taller than the screen: elsewhere the docks keep their
    // contents' least heights, as a window does.
    if (m_inspectorArea)
        return;
    for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
        if (dock == m_interactionPanel)
            continue; // a question scrolls inside; its answer buttons stay in view
        auto* area = new ShortDockArea;
        area->setObjectName(dock->objectName() + QStringLiteral("Scroll"));
        area->setContents(dock->widget()); // the dock lets go of it
        dock->setWidget(area);
        (dockWidgetArea(dock) == Qt::RightDockWidgetArea ? m_rightDockAreas : m_bottomDockAreas).append(area);
    }
    // The inspector's fields and tabs hold it some 290 pixels tall at the default font, 380 at 14 pt.
    m_inspectorArea = new ShortDockArea;
    m_inspectorArea->setObjectName(QStringLiteral("inspectorScroll"));
    const int at = m_splitter->indexOf(m_inspector);
    m_inspectorArea->setContents(m_inspector);
    m_inspector->setPlaceholderAtTop(true);
    m_splitter->insertWidget(at, m_inspectorArea);
    // The central layout keeps the splitter's minimum from before (a hidden window's splitter does
    // not say that its minimum changed).
    m_splitter->updateGeometry();
}

void MainWindow::setCompact(bool compact)
{
    m_compact = compact;
    auto* tools = findChild<QDockWidget*>(QStringLiteral("toolsDock"), Qt::FindDirectChildrenOnly);
    const Qt::DockWidgetArea where = compact ? Qt::BottomDockWidgetArea : Qt::RightDockWidgetArea;
    if (dockWidgetArea(m_interactionPanel) == where)
        return;
    for (QDockWidget* dock : {static_cast<QDockWidget*>(m_interactionPanel), tools}) {
        // The scrolling areas follow their dock.
        if (auto* area = dynamic_cast<ShortDockArea*>(dock->widget())) {
            (compact ? m_rightDockAreas : m_bottomDockAreas).removeOne(area);
            (compact ? m_bottomDockAreas : m_rightDockAreas).append(area);
        }
    }
    if (compact) {
        tabifyDockWidget(m_repositoryView, m_interactionPanel);
        tabifyDockWidget(m_interactionPanel, tools);
    } else {
        addDockWidget(Qt::RightDockWidgetArea, m_interactionPanel);
        tabifyDockWidget(m_interactionPanel, tools);
        // The bottom tabs show the Repositories again, as they start, not the tab that came last.
        m_repositoryView->raise();
    }
    m_interactionPanel->raise();
}

void MainWindow::setShort(bool isShort)
{
    m_short = isShort;
    setCorner(Qt::BottomRightCorner, isShort ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea);
    const bool inMenuBar = menuBar()->cornerWidget(Qt::TopRightCorner) == m_toolBar;
    if (isShort == inMenuBar)
        return;
    if (isShort) {
        removeToolBar(m_toolBar);
        // Icons only: beside the menus the names would not fit; each button's tooltip names it.
        m_toolBar->setToolButtonStyle(Qt::ToolButtonIconOnly);
        menuBar()->setCornerWidget(m_toolBar, Qt::TopRightCorner);
    } else {
        menuBar()->setCornerWidget(nullptr, Qt::TopRightCorner);
        m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        addToolBar(Qt::TopToolBarArea, m_toolBar);
    }
    m_toolBar->show();
    menuBar()->updateGeometry();
}

QSize MainWindow::questionsDockNeed(int dockWidth) const
{
    // The tallest approval: the hints' banner, a path flagged, a description to fold, arguments
    // (a plain one needs less, and a window laid out for it grew past the screen when a risky one
    // came: 746 logical pixels on a 720-pixel screen at 1.5x).
    PendingInteraction sample;
    sample.id = QStringLiteral("layout-sample");
    sample.kind = InteractionKind::Approval;
    sample.render = RenderHint::Approval;
    sample.tool = QStringLiteral("write_file");
    sample.clientName = QStringLiteral("claude-code");
    sample.sessionId = QStringLiteral("session");
    sample.callId = 1;
    sample.waiting = true;
    sample.createdAtMs = QDateTime::currentMSecsSinceEpoch();
    sample.deadlineMs = sample.createdAtMs + 600'000; // its countdown shares a row with the answers
    sample.arguments = R"({"path":"/srv/work/../etc/job","content":"sample","mode":"overwrite"})";
    sample.renderSpec = R"({"render":"approval","rule":"permissions.default: ask",)"
                        R"("description":"Writes a file in the workspace, creating parent directories as )"
                        R"(needed; the content replaces what was there, whatever it held before. A description )"
                        R"(longer than the card folds to its first line, with More beside it to open it.",)"
                        R"("annotations":{"destructiveHint":true,"openWorldHint":true},"roots":["/srv/work"]})";
    ApprovalWidget approval(sample);
    approval.ensurePolished();
    // The dock's title and frame and the panel's margins around its contents, and the list above.
    const QWidget* contents = m_interactionPanel->widget();
    const QMargins margins = contents->layout() ? contents->layout()->contentsMargins() : QMargins();
    const int frame
        = m_interactionPanel->style()->pixelMetric(QStyle::PM_DockWidgetFrameWidth, nullptr, m_interactionPanel);
    // As tall as at the dock's width (at its least, where the answers wrap onto the most rows).
    QSize card = approval.minimumSizeHint();
    const int cardWidth = std::max(card.width(), dockWidth - margins.left() - margins.right() - 2 * frame);
    card.setHeight(approval.leastHeightAt(cardWidth));
    const int title = m_interactionPanel->minimumSizeHint().height() - contents->minimumSizeHint().height();
    const QTableView* list = m_interactionPanel->listView();
    const int width = std::max(
        m_interactionPanel->minimumSizeHint().width(), card.width() + margins.left() + margins.right() + 2 * frame);
    const int height = std::max(m_interactionPanel->minimumSizeHint().height(),
        title + margins.top() + margins.bottom() + list->minimumSizeHint().height() + card.height()
            + style()->pixelMetric(QStyle::PM_SplitterWidth));
    return {width, height};
}

QRect MainWindow::roomOnScreen() const
{
    const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1480, 860);
    // Shown with a frame, its own margins, but the allowance at least: the first size and Reset
    // layout's then agree.
    const QRect frame = frameGeometry();
    const QRect inside = geometry();
    QMargins margins = FrameAllowance;
    if (isVisible() && frame != inside) {
        margins.setLeft(std::max(margins.left(), inside.left() - frame.left()));
        margins.setTop(std::max(margins.top(), inside.top() - frame.top()));
        margins.setRight(std::max(margins.right(), frame.right() - inside.right()));
        margins.setBottom(std::max(margins.bottom(), frame.bottom() - inside.bottom()));
    }
    return available.marginsRemoved(margins);
}

void MainWindow::fitFrameToScreen()
{
    const QRect available = screen() ? screen()->availableGeometry() : QRect();
    const QRect frame = frameGeometry();
    if (available.isEmpty() || available.contains(frame) || isMaximized() || isFullScreen())
        return;
    // The frame as the window manager drew it, inside the available area.
    const QRect inside = geometry();
    const QRect room = available.marginsRemoved(QMargins(inside.left() - frame.left(), inside.top() - frame.top(),
        frame.right() - inside.right(), frame.bottom() - inside.bottom()));
    QRect wanted(inside.topLeft(), size().boundedTo(room.size()));
    wanted.moveLeft(std::clamp(wanted.left(), room.left(), std::max(room.left(), room.right() - wanted.width() + 1)));
    wanted.moveTop(std::clamp(wanted.top(), room.top(), std::max(room.top(), room.bottom() - wanted.height() + 1)));
    setGeometry(wanted);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // The window manager gives the window its frame once it is shown: fit that too, once the
    // frame is known (and again after a layout restored from a larger screen).
    if (!event->spontaneous())
        QTimer::singleShot(0, this, &MainWindow::fitFrameToScreen);
}

void MainWindow::applyDefaultSizes()
{
    // The window's minimum measured now: the main window's layout keeps the one from before a dock
    // moved or its contents began to scroll while the window is hidden.
    const auto relayout = [this] {
        if (centralWidget()->layout())
            centralWidget()->layout()->invalidate();
        centralWidget()->updateGeometry();
        for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
            if (dock->layout())
                dock->layout()->invalidate();
            dock->updateGeometry();
        }
        if (layout()) {
            layout()->invalidate();
            layout()->activate();
        }
    };
    // Wide enough for the call log, the inspector and the questions dock side by side, within the
    // room the screen's free area leaves the window inside its frame.
    const QRect room = roomOnScreen();
    const int width = qMin(1480, room.width());
    // On a small screen the log gets the larger share: its status and duration columns should show
    // without scrolling sideways, while an empty inspector or questions dock needs little.
    const bool small = width < 1480;
    // The questions dock as wide as an approval's answer buttons; the log at least as wide as the
    // start of its Tool column (time, status and client before it, and some of the tool); the
    // inspector as wide as its fields.
    const QSize questionsNeed = questionsDockNeed();
    const QHeaderView* columns = m_callLog->tableView()->horizontalHeader();
    const int reach = m_callLog->essentialColumnsWidth() - columns->sectionSize(CallColumns::ToolColumn)
        + 12 * m_callLog->fontMetrics().averageCharWidth();
    const QMargins centralMargins
        = centralWidget()->layout() ? centralWidget()->layout()->contentsMargins() : QMargins();
    const int central = centralMargins.left() + centralMargins.right();
    const int inspectorLeast = m_inspector->minimumSizeHint().width();
    const int handle = m_splitter->handleWidth();
    // The log keeps some rows above the inspector when it goes below.
    const int rowHeight = m_callLog->tableView()->verticalHeader()->defaultSectionSize();
    const int logChrome = m_callLog->minimumSizeHint().height() - m_callLog->tableView()->minimumSizeHint().height();
    const int logRows = logChrome + (MinLogRowsAboveInspector + 2) * rowHeight;
    // Where the three do not fit side by side, nor with the inspector below the log on a tall
    // screen, the questions (and the Tools dock, their tab) go to the tabs along the bottom, with the
    // window's width for their answer buttons.
    setCompact(false); // measured as the docks start
    setShort(false);
    relayout();
    const int aroundCentralAtFirst = minimumSizeHint().height() - centralWidget()->minimumSizeHint().height();
    const bool besideFits = reach + handle + inspectorLeast + central + questionsNeed.width() <= width;
    const bool belowFits
        = std::max(m_callLog->essentialColumnsWidth(), inspectorLeast) + central + questionsNeed.width() <= width
        && room.height() - aroundCentralAtFirst - m_inspector->minimumSizeHint().height() - handle >= logRows;
    bool compact = !besideFits && !belowFits;
    setCompact(compact);
    // The docks' contents scroll when the window, a question in it, would be taller than the room.
    relayout();
    // Along the bottom a question has the window's width (its answers on one row); on the right, the
    // dock's.
    const QSize compactNeed = questionsDockNeed(width);
    int questionGrowth = std::max(
        0, (compact ? compactNeed : questionsNeed).height() - m_interactionPanel->minimumSizeHint().height());
    if (compact || minimumSizeHint().height() + questionGrowth > room.height())
        letDocksScroll();
    if (compact) {
        // The log, the docks along the bottom and a question above each other, each at its least:
        // on a screen lower than that (a 1280x720 one at 1.5x and 12 pt) the questions go back to
        // the right, down to the status bar, and the log scrolls sideways beside them.
        for (ShortDockArea* area : m_bottomDockAreas + m_rightDockAreas)
            area->setMostHeight(0);
        m_inspectorArea->setMostHeight(0);
        // The inspector below the log only where it cannot be beside it (as further down).
        setInspectorBelow(reach + inspectorLeast + handle + central > width);
        relayout();
        // Along the bottom the question has the window's width: its answers on one row.
        const int stacked = minimumSizeHint().height()
            + std::max(0, compactNeed.height() - m_interactionPanel->minimumSizeHint().height());
        if (stacked > room.height()) {
            compact = false;
            setCompact(false);
            setShort(true);
            relayout();
            questionGrowth = std::max(0, questionsNeed.height() - m_interactionPanel->minimumSizeHint().height());
        }
    }
    int questions = compact ? 0 : std::max(small ? width / 4 : 440, questionsNeed.width());
    // With a large font the columns that say what happened (time, status, client, tool) and a
    // readable inspector do not fit side by side; the window may then take more of a tall screen's
    // height, for the inspector to go below the log.
    const int inspector = std::max(45 * m_inspector->fontMetrics().averageCharWidth(), inspectorLeast);
    const bool crowded = m_callLog->essentialColumnsWidth() + inspector + handle > width - questions;
    const bool scrolling = m_inspectorArea != nullptr;
    // Narrow, the questions take height along the bottom: a tall screen gives the log its rows too.
    const int height = qMin(crowded || compact ? 1200 : 860, room.height());
    bool below = false;
    int bottom = small ? height / 4 : 300;
    // Along the bottom the questions start at most a third of the window's height, the log keeps
    // the rest: a risky approval's banner, arguments and answers take the log's room when one comes
    // (the window's least height has room for it, measured above).
    if (compact)
        bottom = std::max(bottom, std::min(compactNeed.height(), height / 3));
    // At an ordinary font none of this is needed, and asking the window for its minimum before it
    // has its size would give the docks along the bottom their share of a smaller window.
    if (crowded || scrolling) {
        // When the docks scroll, first at their least: those on the right never taller than the log
        // and inspector need, so that a question does not make the window taller.
        for (ShortDockArea* area : m_bottomDockAreas + m_rightDockAreas)
            area->setMostHeight(0);
        if (m_inspectorArea)
            m_inspectorArea->setMostHeight(0);
        m_splitter->updateGeometry();
        for (ShortDockArea* area : std::as_const(m_rightDockAreas))
            area->setMostHeight(centralWidget()->minimumSizeHint().height());
        // Crowded, the inspector goes below and the log gets the width; only when the log keeps
        // some rows above the inspector: on a short screen (768 pixels at 14 pt) it would keep
        // three, so it stays beside, full height, with time and status in view. Too narrow for the
        // log's Tool column beside the inspector, it goes below whatever the rows.
        const int aroundCentral = minimumSizeHint().height() - centralWidget()->minimumSizeHint().height();
        const int stackedLog = height - aroundCentral - m_inspector->minimumSizeHint().height() - handle;
        const bool tooNarrow = reach + inspectorLeast + handle + central > width - questions;
        below = tooNarrow || (crowded && stackedLog >= logRows);
        setInspectorBelow(below);
        // The docks along the bottom as tall as their contents want, as far as the screen leaves
        // room (and, below, the log its rows).
        relayout();
        const int spare = std::max(
            0, std::min(room.height(), height) - minimumSizeHint().height() - questionGrowth - (below ? logRows : 0));
        for (ShortDockArea* area : std::as_const(m_bottomDockAreas)) {
            area->setMostHeight(area->minimumSizeHint().height() + spare);
            bottom = std::max(bottom, area->minimumSizeHint().height());
        }
        // The window's minimum as it is now: the one from before the docks could scroll no longer
        // holds.
        relayout();
    } else {
        setInspectorBelow(false);
    }
    resize(width, height);
    if (!compact)
        resizeDocks({m_interactionPanel}, {questions}, Qt::Horizontal);
    resizeDocks({m_repositoryView}, {bottom}, Qt::Vertical);
    const int sides = width - questions;
    if (below) {
        const QToolBar* toolBar = findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        const int tall = height - menuBar()->sizeHint().height() - statusBar()->sizeHint().height() - bottom
            - (toolBar ? toolBar->sizeHint().height() : 0);
        // The log its rows at least (the inspector scrolls, or the splitter keeps its least height).
        const int logShare = std::max(logRows + rowHeight, tall * 3 / 5);
        m_splitter->setSizes({logShare, tall - logShare});
        m_callLog->bringToolColumnWithin(sides - central);
        return;
    }
    // The whole Tool column too, where the inspector keeps its width (and a little slack: the
    // log's own layout takes some pixels beside the table).
    const int wholeTool = m_callLog->essentialColumnsWidth() + 2 * m_callLog->fontMetrics().averageCharWidth();
    int log = std::max(reach, small ? sides * 2 / 3 : sides * 4 / 7);
    if (wholeTool + handle + inspectorLeast + central <= sides)
        log = std::max(log, wholeTool);
    m_splitter->setSizes({log, sides - log});
}

bool MainWindow::isInspectorBelow() const
{
    return m_splitter->orientation() == Qt::Vertical;
}

void MainWindow::setInspectorBelow(bool below)
{
    const Qt::Orientation orientation = below ? Qt::Vertical : Qt::Horizontal;
    if (m_splitter->orientation() != orientation) {
        // The shares carry over: what the log had of the width it has of the height.
        const QList<int> sizes = m_splitter->sizes();
        m_splitter->setOrientation(orientation);
        m_splitter->setSizes(sizes);
    }
    const QSignalBlocker quiet(m_inspectorBelowAction);
    m_inspectorBelowAction->setChecked(below);
}

void MainWindow::saveLayout(QSettings& settings) const
{
    settings.beginGroup(QStringLiteral("window"));
    settings.setValue(QStringLiteral("layoutVersion"), LayoutVersion);
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("state"), saveState(LayoutVersion));
    settings.setValue(QStringLiteral("splitter"), m_splitter->saveState());
    settings.setValue(QStringLiteral("short"), m_short);
    settings.setValue(QStringLiteral("callLogColumns"), m_callLog->saveHeaderState());
    settings.endGroup();
}

bool MainWindow::restoreLayout(QSettings& settings)
{
    settings.beginGroup(QStringLiteral("window"));
    const bool current = settings.value(QStringLiteral("layoutVersion")).toInt() == LayoutVersion;
    bool restored = false;
    if (current) {
        // Each part on its own: a part that does not fit this build keeps its default. The toolbar
        // in its own row first: restoreState places every toolbar it finds, even one in the menu bar.
        setShort(false);
        restored = restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
        restored = restoreState(settings.value(QStringLiteral("state")).toByteArray(), LayoutVersion) && restored;
        setShort(settings.value(QStringLiteral("short")).toBool());
        restored = m_splitter->restoreState(settings.value(QStringLiteral("splitter")).toByteArray()) && restored;
        setInspectorBelow(m_splitter->orientation() == Qt::Vertical); // the splitter's state holds it
        restored
            = m_callLog->restoreHeaderState(settings.value(QStringLiteral("callLogColumns")).toByteArray()) && restored;
        // The backend's column shows for the backends held now, not those of the saved layout.
        updateBackendColumn();
    }
    settings.endGroup();
    if (!restored)
        return false;
    // Saved on a larger screen or at a smaller font, the layout may not fit this screen: a window
    // too large shrinks to the room; one whose minimum does not fit starts over, laid out for it.
    const QRect room = roomOnScreen();
    if (layout())
        layout()->activate();
    const QSize least = minimumSizeHint();
    if (least.width() > room.width() || least.height() > room.height()) {
        resetLayout();
        return false;
    }
    if (!room.contains(geometry())) {
        QRect fitted(geometry().topLeft(), size().boundedTo(room.size()));
        fitted.moveLeft(std::clamp(fitted.left(), room.left(), room.right() - fitted.width() + 1));
        fitted.moveTop(std::clamp(fitted.top(), room.top(), room.bottom() - fitted.height() + 1));
        setGeometry(fitted);
    }
    return true;
}

void MainWindow::resetLayout()
{
    setShort(false); // as the default state was saved
    restoreState(m_defaultState, LayoutVersion);
    m_callLog->resetColumns();
    updateBackendColumn();
    applyDefaultSizes();
}

MainWindow::~MainWindow() = default;

void MainWindow::closeEvent(QCloseEvent* event)
{
    const int pending = m_interactionPanel->count();
    if (pending == 0 || m_quitConfirmed) {
        QMainWindow::closeEvent(event);
        return;
    }
    event->ignore();
    if (findChild<QMessageBox*>(QStringLiteral("quitConfirmation")))
        return; // already asking
    const int held = m_interactionPanel->waitingCount();
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Quit Switchboard?"),
        held > 0
            ? tr("%1 waiting for an answer, %2 pending. Quit anyway?")
                  .arg(held == 1 ? tr("1 call is") : tr("%1 calls are").arg(held), InteractionPanel::countText(pending))
            : tr("%1 pending. Quit anyway?").arg(InteractionPanel::countText(pending)),
        QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("quitConfirmation"));
    box->setInformativeText(held > 0 ? tr("The waiting calls end with a tool error saying Switchboard stopped. The "
                                          "questions stay pending and are asked again at the next start; an answer "
                                          "given then goes to the client's next identical call.")
                                     : tr("The questions stay pending and are asked again at the next start."));
    QPushButton* quit = box->addButton(tr("&Quit"), QMessageBox::DestructiveRole);
    quit->setObjectName(QStringLiteral("confirmQuitButton"));
    QPushButton* cancel = box->addButton(QMessageBox::Cancel);
    // A stray Return keeps the window: Cancel is the default.
    box->setDefaultButton(cancel);
    box->setEscapeButton(cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, quit] {
        if (box->clickedButton() != quit)
            return;
        m_quitConfirmed = true;
        // After the box has gone: closing from inside its own signal would close it twice.
        QMetaObject::invokeMethod(this, &QWidget::close, Qt::QueuedConnection);
    });
    box->open();
}

ConnectClientDialog* MainWindow::connectClientDialog() const
{
    return m_connectDialog;
}

ClientTokensDialog* MainWindow::clientTokensDialog() const
{
    return m_clientTokensDialog;
}

HistoryDialog* MainWindow::historyDialog() const
{
    return m_historyDialog;
}

QMenu* MainWindow::menu(Menu which) const
{
    switch (which) {
    case Menu::File:
        return m_fileMenu;
    case Menu::Edit:
        return m_editMenu;
    case Menu::View:
        return m_viewMenu;
    case Menu::Call:
        return m_callMenu;
    case Menu::Help:
        return m_helpMenu;
    }
    return nullptr;
}

void MainWindow::addMenuAction(Menu which, QAction* action)
{
    QMenu* target = menu(which);
    if (which == Menu::File && m_quitSeparator)
        target->insertAction(m_quitSeparator, action);
    else
        target->addAction(action);
    addAction(action);
}

void MainWindow::createMenuBar()
{
    // Mnemonics: the questions dock answers with Alt+A, S, W, D, R and H while a question has the
    // focus, so the menus take F, E, V, C and P ("Hel&p", not "&Help"), letters no answer uses.
    // Shortcuts: Ctrl+2 to Ctrl+4 toggle the Repositories, Adapters and Health docks (further docks
    // take the next digits; the Questions dock is always there, and Ctrl+Shift+A brings it forward);
    // Ctrl+Shift+P pauses the log.
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    m_fileMenu->setObjectName(QStringLiteral("fileMenu"));
    m_editMenu = menuBar()->addMenu(tr("&Edit"));
    m_editMenu->setObjectName(QStringLiteral("editMenu"));
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    m_callMenu = menuBar()->addMenu(tr("&Call"));
    m_callMenu->setObjectName(QStringLiteral("callMenu"));
    m_helpMenu = menuBar()->addMenu(tr("Hel&p"));
    m_helpMenu->setObjectName(QStringLiteral("helpMenu"));
    // The window's Ctrl and Alt keys work whichever field has the focus (Ctrl+E in the filter exports).
    new WindowShortcutGuard(this);

    auto* shortcuts = new QAction(tr("&Keyboard Shortcuts"), this);
    shortcuts->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    shortcuts->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Slash), QKeySequence(Qt::Key_F1)});
    connect(shortcuts, &QAction::triggered, this, &MainWindow::showKeyboardShortcuts);
    addMenuAction(Menu::Help, shortcuts);

    auto* about = new QAction(ThemeIcon::icon(QStringLiteral("help-about")), tr("About Switchboard"), this);
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
    about->setProperty(WithoutShortcutProperty, true); // read once; no need to reach it fast
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Switchboard"),
            tr("<p><b>Switchboard</b> %1</p><p>An operator console for Model Context Protocol tool traffic: "
               "every tool call, the questions clients ask a person, the upstream adapters' health and the "
               "repositories the git tools work on.</p>")
                .arg(QCoreApplication::applicationVersion().toHtmlEscaped()));
    });
    addMenuAction(Menu::Help, about);
    auto* aboutQt = new QAction(tr("About Qt"), this);
    aboutQt->setObjectName(QStringLiteral("aboutQtAction"));
    aboutQt->setMenuRole(QAction::AboutQtRole);
    aboutQt->setProperty(WithoutShortcutProperty, true);
    connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
    addMenuAction(Menu::Help, aboutQt);
}

void MainWindow::showKeyboardShortcuts()
{
    QList<QPair<QString, QList<QAction*>>> sections;
    QSet<QAction*> inMenus;
    for (Menu which : {Menu::File, Menu::Edit, Menu::View, Menu::Call, Menu::Help}) {
        QMenu* source = menu(which);
        QList<QAction*> actions;
        const QList<QAction*> all = source->actions();
        for (QAction* action : all) {
            if (action->isSeparator())
                continue;
            actions << action;
            inMenus.insert(action);
        }
        sections.append({source->title().remove(QLatin1Char('&')), actions});
    }
    // Keys that work inside a view (the log, the inspector, a table), once each.
    QList<QAction*> inViews;
    QSet<QString> seen;
    const QList<QAction*> children = findChildren<QAction*>();
    for (QAction* action : children) {
        if (inMenus.contains(action) || action->shortcuts().isEmpty() || action->isSeparator())
            continue;
        const QString key = action->text() + action->shortcut().toString();
        if (seen.contains(key))
            continue;
        seen.insert(key);
        inViews << action;
    }
    sections.append({tr("In the views"), inViews});
    auto* dialog = new ShortcutsDialog(sections, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::createToolBar()
{
    QToolBar* toolBar = m_toolBar = addToolBar(tr("Main"));
    toolBar->setObjectName(QStringLiteral("mainToolBar"));
    toolBar->setMovable(false);
    toolBar->setFloatable(false);
    toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    QAction* connectAction
        = toolBar->addAction(ThemeIcon::icon(QStringLiteral("insert-link")), tr("Connect a client…"));
    connectAction->setObjectName(QStringLiteral("connectClientAction"));
    connectAction->setToolTip(tr("Commands and settings to point Claude Code, MCP Inspector or another client here"));
    connectAction->setProperty(WithoutShortcutProperty, true); // set up once per client
    connect(connectAction, &QAction::triggered, this, &MainWindow::showConnectClientDialog);
    addMenuAction(Menu::File, connectAction);

    // Beside the shared token's snippets, in the menu only: issued once per client, rarely.
    auto* clientTokensAction = new QAction(tr("Client tokens…"), this);
    clientTokensAction->setObjectName(QStringLiteral("clientTokensAction"));
    clientTokensAction->setToolTip(tr("Issue and revoke named tokens, each the identity of one client"));
    clientTokensAction->setProperty(WithoutShortcutProperty, true);
    connect(clientTokensAction, &QAction::triggered, this, &MainWindow::showClientTokensDialog);
    addMenuAction(Menu::File, clientTokensAction);

    QAction* historyAction
        = toolBar->addAction(ThemeIcon::icon(QStringLiteral("document-open-recent")), tr("History…"));
    historyAction->setObjectName(QStringLiteral("historyAction"));
    historyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    historyAction->setToolTip(tr("Search every stored call, including those older than the live log (%1)")
                                  .arg(historyAction->shortcut().toString(QKeySequence::NativeText)));
    connect(historyAction, &QAction::triggered, this, &MainWindow::showHistoryDialog);
    addMenuAction(Menu::File, historyAction);

    auto* findAction = new QAction(ThemeIcon::icon(QStringLiteral("edit-find")), tr("Filter calls"), this);
    findAction->setObjectName(QStringLiteral("filterAction"));
    findAction->setShortcut(QKeySequence::Find);
    connect(findAction, &QAction::triggered, this, [this] {
        m_callLog->filterEdit()->setFocus(Qt::ShortcutFocusReason);
        m_callLog->filterEdit()->selectAll();
    });
    addMenuAction(Menu::Edit, findAction);

    // Last in the File menu: addMenuAction puts what comes later above it.
    auto* quitAction = new QAction(ThemeIcon::icon(QStringLiteral("application-exit")), tr("&Quit"), this);
    quitAction->setObjectName(QStringLiteral("quitAction"));
    // Not QKeySequence::Quit: some platform themes bind nothing to it.
    quitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quitAction->setMenuRole(QAction::QuitRole);
    connect(quitAction, &QAction::triggered, this, &QWidget::close);
    addMenuAction(Menu::File, quitAction);
    m_quitSeparator = m_fileMenu->insertSeparator(quitAction);
}

void MainWindow::createStatusBar()
{
    QStatusBar* bar = statusBar();

    // An attached window shows where its backend listens, as the backend's own window would.
    auto* caption = m_urlCaption = new QLabel(
        m_backend->backendName().isEmpty() ? tr("Listening on") : tr("%1 listens on").arg(m_backend->backendName()));
    m_urlLabel = new QLabel(m_backend->serverUrl().toString());
    m_urlLabel->setObjectName(QStringLiteral("serverUrlLabel"));
    m_urlLabel->setTextFormat(Qt::PlainText);
    m_urlLabel->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_urlLabel->setToolTip(tr("The MCP endpoint clients connect to (select to copy)"));
    // On a narrow window these give way (clipped; the URL is in Connect a client too), so that the
    // status bar's minimum never holds the window wider than the screen.
    for (QLabel* label : {caption, m_urlLabel})
        label->setMinimumWidth(label->fontMetrics().averageCharWidth() * 4);
    bar->addWidget(caption);
    bar->addWidget(m_urlLabel);

    m_sessionsLabel = new QLabel;
    m_sessionsLabel->setObjectName(QStringLiteral("sessionsLabel"));
    m_sessionsLabel->setToolTip(tr("Open MCP sessions"));
    bar->addWidget(separator());
    bar->addWidget(m_sessionsLabel);
    onSessionsChanged(0);

    m_historyStatus = new StatusWarning(tr("History"));
    m_historyStatus->setObjectName(QStringLiteral("historyWarningLabel"));
    bar->addPermanentWidget(m_historyStatus);
    m_stateStatus = new StatusWarning(tr("Workspace state"));
    m_stateStatus->setObjectName(QStringLiteral("workspaceStateWarningLabel"));
    bar->addPermanentWidget(m_stateStatus);
    m_backendStatus = new StatusWarning(tr("Attached backend"));
    m_backendStatus->setObjectName(QStringLiteral("backendWarningLabel"));
    bar->addPermanentWidget(m_backendStatus);

    m_droppedLabel = new QLabel;
    m_droppedLabel->setObjectName(QStringLiteral("droppedLabel"));
    connect(m_droppedLabel, &QLabel::linkActivated, this, &MainWindow::showHistoryDialog);
    m_droppedLabel->hide();
    bar->addPermanentWidget(m_droppedLabel);
    // Not restarted while running: under a steady stream rows leave the log all the time, and the
    // count still comes every interval.
    m_olderCountTimer = new QTimer(this);
    m_olderCountTimer->setSingleShot(true);
    m_olderCountTimer->setInterval(OlderCallsCountIntervalMs);
    connect(m_olderCountTimer, &QTimer::timeout, this, &MainWindow::countOlderCalls);

    // The token itself never appears here: only whether one is needed, and a way to copy it.
    bar->addPermanentWidget(separator());
    m_authLabel = new QLabel;
    m_authLabel->setObjectName(QStringLiteral("authLabel"));
    bar->addPermanentWidget(m_authLabel);
    if (!m_noAuth && m_backend->backendName().isEmpty()) {
        m_copyTokenButton = new CopyButton(tr("Copy token"));
        m_copyTokenButton->setObjectName(QStringLiteral("copyTokenButton"));
        m_copyTokenButton->setToolTip(tr("Put the bearer token on the clipboard"));
        m_copyTokenButton->setCopyText(QString::fromLatin1(m_backend->token()));
        bar->addPermanentWidget(m_copyTokenButton);
    }
    updateAuthStatus();
    // An attached backend says whether its clients need a token only once it is reached.
    connect(m_backend, &OperatorInterface::backendConnectionChanged, this, [this](bool connected) {
        if (connected)
            updateAuthStatus();
    });
}

void MainWindow::updateAuthStatus()
{
    m_noAuth = !m_backend->requiresToken();
    if (m_noAuth) {
        m_authLabel->setText(tr("No authentication (--no-auth)"));
        m_authLabel->setStyleSheet(warningStyle());
        m_authLabel->setToolTip(m_noAuthRequested
                ? tr("Started with --no-auth: any program on this machine can call tools "
                     "without a token")
                : tr("The server has no token: any program on this machine can call tools"));
        return;
    }
    m_authLabel->setText(tr("Token required"));
    m_authLabel->setStyleSheet(QString());
    if (!m_backend->backendName().isEmpty()) {
        // The clients' token stays on the backend's machine: only that it is needed is shown.
        m_authLabel->setToolTip(tr("Clients must send the token kept on the machine %1 runs on (its state "
                                   "directory's \"token\" file, or SWITCHBOARD_TOKEN there)")
                                    .arg(m_backend->backendName()));
    } else {
        m_authLabel->setToolTip(tr("Clients must send the header \"Authorization: Bearer <token>\""));
    }
}

void MainWindow::createInteractionPanel()
{
    m_interactionPanel = new InteractionPanel(this);
    addDockWidget(Qt::RightDockWidgetArea, m_interactionPanel);

    // The badge: a toolbar button that brings the questions forward, and a status bar note while
    // any wait.
    m_questionsAction = new QAction(ThemeIcon::icon(QStringLiteral("dialog-question")), QString(), this);
    m_questionsAction->setObjectName(QStringLiteral("questionsAction"));
    m_questionsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A)); // A for answer
    m_questionsAction->setToolTip(tr("Show the questions clients are waiting for you to answer (%1)")
                                      .arg(m_questionsAction->shortcut().toString(QKeySequence::NativeText)));
    connect(m_questionsAction, &QAction::triggered, this, [this] { m_interactionPanel->goToQuestions(); });
    if (auto* toolBar = findChild<QToolBar*>(QStringLiteral("mainToolBar")))
        toolBar->addAction(m_questionsAction);
    // Not in the View menu: the questions dock cannot be closed, so no question is ever hidden.
    addMenuAction(Menu::Call, m_questionsAction);
    m_questionsLabel = new QLabel;
    m_questionsLabel->setObjectName(QStringLiteral("questionsLabel"));
    m_questionsLabel->setToolTip(m_questionsAction->toolTip());
    connect(m_questionsLabel, &QLabel::linkActivated, m_questionsAction, &QAction::trigger);
    statusBar()->addPermanentWidget(m_questionsLabel);
    connect(m_interactionPanel, &InteractionPanel::countChanged, this, &MainWindow::onInteractionCountChanged);
    onInteractionCountChanged(0);

    connect(m_interactionPanel, &InteractionPanel::showCallRequested, this, &MainWindow::showCall);
    connect(m_interactionPanel, &InteractionPanel::interactionResolved, this,
        [this](const PendingInteraction& interaction, InteractionOutcome outcome) {
            const QString tool = interaction.toolTitle.isEmpty() ? interaction.tool : interaction.toolTitle;
            if (outcome == InteractionOutcome::Stored)
                statusBar()->showMessage(
                    tr("No call was waiting: the answer to %1 goes to the client's retry").arg(tool), 8000);
            else if (outcome == InteractionOutcome::Timeout)
                statusBar()->showMessage(tr("No one answered %1 in time; the client was told").arg(tool), 8000);
            else if (outcome == InteractionOutcome::Cancelled)
                statusBar()->showMessage(tr("The client withdrew %1").arg(tool), 8000);
        });

    // Backend to panel: questions arrive, change and leave; refusals and sign-in pages. Panel to
    // backend: the person's answers. The API key goes from the connect widget to
    // connectWithApiKey and nowhere else.
    connect(m_backend, &OperatorInterface::interactionPending, m_interactionPanel, &InteractionPanel::addInteraction);
    connect(
        m_backend, &OperatorInterface::interactionChanged, m_interactionPanel, &InteractionPanel::updateInteraction);
    connect(
        m_backend, &OperatorInterface::interactionResolved, m_interactionPanel, &InteractionPanel::resolveInteraction);
    connect(m_backend, &OperatorInterface::interactionsListed, m_interactionPanel, &InteractionPanel::setInteractions);
    connect(m_backend, &OperatorInterface::interactionAnswerFailed, m_interactionPanel,
        &InteractionPanel::showAnswerFailed);
    connect(m_backend, &OperatorInterface::connectFailed, m_interactionPanel, &InteractionPanel::showConnectFailed);
    connect(m_backend, &OperatorInterface::oauthAuthorizationUrl, m_interactionPanel,
        &InteractionPanel::showAuthorizationUrl);
    connect(m_interactionPanel, &InteractionPanel::answerRequested, m_backend, &OperatorInterface::answerInteraction);
    connect(m_interactionPanel, &InteractionPanel::apiKeyEntered, m_backend, &OperatorInterface::connectWithApiKey);
    connect(m_interactionPanel, &InteractionPanel::oauthRequested, m_backend, &OperatorInterface::startOAuth);
    connect(m_interactionPanel, &InteractionPanel::oauthCancelled, m_backend, &OperatorInterface::cancelOAuth);
    m_interactionPanel->setSecretStorage(m_backend->secretStorage());
    // Questions from before a restart (and any that arrived before the window existed).
    m_backend->listInteractions();
}

void MainWindow::createRepositoryView()
{
    m_repositoryView = new RepositoryView(m_backend, this);
    // Along the bottom, across the whole window: a diff needs the width, and the questions dock
    // stays in view above it instead of sharing a tab with it, so no question hides behind a diff.
    addDockWidget(Qt::BottomDockWidgetArea, m_repositoryView);

    QAction* toggle = m_repositoryView->toggleViewAction();
    toggle->setObjectName(QStringLiteral("repositoriesAction"));
    toggle->setToolTip(tr("Show or hide the repositories the git tools work on"));
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    addMenuAction(Menu::View, toggle);
    if (auto* toolBar = findChild<QToolBar*>(QStringLiteral("mainToolBar")))
        toolBar->addAction(toggle);

    connect(m_repositoryView, &RepositoryView::callsRequested, this, &MainWindow::showCalls);
}

void MainWindow::createAdapterHealthView()
{
    m_adapterHealthView = new AdapterHealthView(m_backend, this);
    // A tab beside the repositories: both want the window's width, and the questions dock keeps its
    // place above them. The repositories stay in front; the tab's title says when a breaker is open.
    addDockWidget(Qt::BottomDockWidgetArea, m_adapterHealthView);
    tabifyDockWidget(m_repositoryView, m_adapterHealthView);
    m_repositoryView->raise();

    QAction* toggle = m_adapterHealthView->toggleViewAction();
    toggle->setObjectName(QStringLiteral("adaptersAction"));
    toggle->setToolTip(tr("Show or hide the upstream adapters' health"));
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    addMenuAction(Menu::View, toggle);

    // The adapters dock shows how the reload went, so the action brings it forward.
    auto* reload = new QAction(ThemeIcon::icon(QStringLiteral("view-refresh")), tr("Reload configuration"), this);
    reload->setObjectName(QStringLiteral("reloadConfigurationAction"));
    reload->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    reload->setToolTip(
        tr("Read the configuration file again (%1)").arg(reload->shortcut().toString(QKeySequence::NativeText)));
    connect(reload, &QAction::triggered, this, [this] {
        m_adapterHealthView->show();
        m_adapterHealthView->raise();
        m_adapterHealthView->reloadConfiguration();
    });
    addMenuAction(Menu::File, reload);
    if (auto* toolBar = findChild<QToolBar*>(QStringLiteral("mainToolBar")))
        toolBar->addAction(toggle);

    connect(m_adapterHealthView, &AdapterHealthView::adapterSelected, this, &MainWindow::onAdapterSelected);
    connect(m_adapterHealthView, &AdapterHealthView::callRequested, this, &MainWindow::showCall);
    // Clearing the filter in the log ends the selection that set it, so the two never disagree.
    connect(m_callLog, &CallLogView::adapterFilterCleared, m_adapterHealthView, &AdapterHealthView::clearSelection);
}

void MainWindow::onAdapterSelected(const QString& name)
{
    m_callLog->setAdapterFilter(name);
}

void MainWindow::updateWindowTitle()
{
    QString title = tr("Switchboard");
    if (const QString name = m_backend->backendName(); !name.isEmpty())
        title = m_backend->isBackendConnected() ? tr("Switchboard — %1").arg(name)
                                                : tr("Switchboard — %1 (disconnected)").arg(name);
    if (m_questionCount > 0)
        title += QStringLiteral(" — ") + InteractionPanel::countText(m_questionCount);
    setWindowTitle(title);
}

void MainWindow::onBackendConnectionChanged(bool connected, const QString& message)
{
    const QStringList names = m_backend->backendNames();
    if (connected) {
        m_backendStatus->showRecovered(message);
        m_urlLabel->setText(m_backend->serverUrl().toString());
        m_interactionPanel->setSecretStorage(m_backend->secretStorage());
    } else if (names.size() > 1) {
        // Which of the backends is not live: the others' rows and questions are.
        QStringList lost;
        for (const QString& name : names) {
            if (!m_backend->backendProblem(name).isEmpty())
                lost.append(name);
        }
        m_backendStatus->showProblem(tr("Disconnected: %1").arg(lost.join(QStringLiteral(", "))), message);
    } else {
        m_backendStatus->showProblem(tr("Disconnected: not live"), message);
    }
    // Answers to questions that may be gone wait until the backend says which are still open; in a
    // window of several backends only that backend's questions wait.
    if (names.size() > 1) {
        m_interactionPanel->setEnabled(true);
        for (const QString& name : names)
            m_interactionPanel->setBackendAnswerable(name, m_backend->backendProblem(name).isEmpty());
    } else {
        m_interactionPanel->setEnabled(connected);
    }
    updateWindowTitle();
}

void MainWindow::onBackendsChanged()
{
    const QStringList names = m_backend->backendNames();
    const bool several = names.size() > 1;
    // A backend added or taken out renumbers the calls (FleetOperator): the log starts again from the
    // recent calls of the backends held now.
    if (m_backendCount >= 0 && names.size() != m_backendCount) {
        m_model->clear();
        m_recentRequest = m_backend->loadRecentCalls(m_model->capacity(), CallLogModel::PreviewBytes);
    }
    m_backendCount = int(names.size());
    // Rows, questions and the status bar name their backend only where there is more than one.
    updateBackendColumn();
    m_interactionPanel->setBackendsShown(several);
    m_adapterHealthView->model()->setBackendsShown(several);
    if (auto* dashboard = findChild<DashboardView*>())
        dashboard->sessionModel()->setBackendsShown(several);
    if (auto* permissions = findChild<PermissionsView*>())
        permissions->model()->setBackendsShown(several);
    if (several)
        m_urlCaption->setText(tr("%1 listens on").arg(names.first()));
    else
        m_urlCaption->setText(m_backend->backendName().isEmpty() ? tr("Listening on")
                                                                 : tr("%1 listens on").arg(m_backend->backendName()));
    m_urlLabel->setText(m_backend->serverUrl().toString());
    if (m_detachAction)
        m_detachAction->setEnabled(!names.isEmpty());
    // One more backend is not live until it is reached: the status bar and its questions say so now.
    if (several)
        onBackendConnectionChanged(m_backend->isBackendConnected(),
            m_backend->isBackendConnected() ? tr("Following %1").arg(names.join(QStringLiteral(", ")))
                                            : m_backend->backendProblem({}));
}

void MainWindow::updateBackendColumn()
{
    const bool several = m_backend->backendNames().size() > 1;
    QHeaderView* columns = m_callLog->tableView()->horizontalHeader();
    if (several && columns->isSectionHidden(CallColumns::BackendColumn)) {
        // Beside the status, where it is read with every row (hidden, it waits last).
        columns->moveSection(
            columns->visualIndex(CallColumns::BackendColumn), columns->visualIndex(CallColumns::StatusColumn) + 1);
    }
    columns->setSectionHidden(CallColumns::BackendColumn, !several);
}

void MainWindow::createAttachActions()
{
    auto* attach = new QAction(tr("Attach…"), this);
    attach->setObjectName(QStringLiteral("attachAction"));
    attach->setToolTip(tr("Follow one more Switchboard in this window, through its operator API"));
    attach->setProperty(WithoutShortcutProperty, true); // once per backend
    connect(attach, &QAction::triggered, this, &MainWindow::showAttachDialog);
    addMenuAction(Menu::File, attach);
    m_detachAction = new QAction(tr("Detach…"), this);
    m_detachAction->setObjectName(QStringLiteral("detachAction"));
    m_detachAction->setToolTip(tr("Stop following an attached Switchboard"));
    m_detachAction->setProperty(WithoutShortcutProperty, true);
    connect(m_detachAction, &QAction::triggered, this, [this] {
        bool chosen = false;
        const QString name = QInputDialog::getItem(
            this, tr("Detach"), tr("Stop following:"), m_backend->backendNames(), 0, false, &chosen);
        if (chosen && !name.isEmpty())
            m_backend->detachBackend(name);
    });
    addMenuAction(Menu::File, m_detachAction);
    connect(m_backend, &OperatorInterface::commandFailed, this, [this](const QString& command, const QString& message) {
        if (command != QLatin1String("attachBackend") && command != QLatin1String("detachBackend"))
            return;
        // Not modal on the event loop: the window keeps following its backends meanwhile.
        auto* box = new QMessageBox(QMessageBox::Warning,
            command == QLatin1String("attachBackend") ? tr("Attach") : tr("Detach"), message, QMessageBox::Close, this);
        box->setObjectName(QStringLiteral("attachFailedMessage"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

AttachDialog* MainWindow::showAttachDialog()
{
    auto* dialog = new AttachDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
        [this, dialog] { m_backend->attachBackend(dialog->url(), dialog->token(), dialog->caFile()); });
    dialog->open();
    return dialog;
}

void MainWindow::onInteractionCountChanged(int count)
{
    m_questionsAction->setText(count == 0 ? tr("Questions") : tr("Questions (%1)").arg(count));
    // The taskbar and the window switcher show the count too.
    m_questionCount = count;
    updateWindowTitle();
    // The amber of a paused call, as a link that brings the questions forward.
    const QString link = QStringLiteral("<a href=\"questions\" style=\"color: #b36b00; font-weight: bold;\">%1</a>");
    m_questionsLabel->setText(link.arg(count == 1 ? tr("1 question waiting") : tr("%1 questions waiting").arg(count)));
    m_questionsLabel->setVisible(count > 0);
}

bool MainWindow::showCall(qint64 callId)
{
    if (m_callLog->showCall(callId)) {
        m_callFromHistoryRequest = 0;
        m_callLog->tableView()->setFocus(Qt::OtherFocusReason);
        return true;
    }
    // Beyond the log's limit: history has it, and the log shows it as a history row.
    HistoryQuery query;
    query.callId = callId;
    query.limit = 1;
    query.bodyPreviewBytes = CallLogModel::PreviewBytes;
    m_callFromHistoryId = callId;
    m_callFromHistoryRequest = m_backend->queryHistory(query);
    statusBar()->showMessage(tr("Call #%1 has left the live log; getting it from History…").arg(callId), 8000);
    return false;
}

void MainWindow::onCallFromHistoryLoaded(const ToolCallList& calls)
{
    m_callFromHistoryRequest = 0;
    const qint64 id = m_callFromHistoryId;
    if (calls.isEmpty() || calls.first().id != id) {
        statusBar()->showMessage(tr("Call #%1 is in neither the live log nor History").arg(id), 8000);
        return;
    }
    if (!m_callLog->showCallFromHistory(calls.first())) {
        statusBar()->showMessage(tr("Call #%1 cannot be shown in the log; History has it").arg(id), 8000);
        return;
    }
    statusBar()->showMessage(tr("Call #%1, from History").arg(id), 4000);
    m_callLog->tableView()->setFocus(Qt::OtherFocusReason);
}

bool MainWindow::showCalls(const QList<qint64>& callIds)
{
    const QString repository = m_repositoryView->currentRepository();
    const QString description = repository.isEmpty()
        ? tr("the chosen calls")
        : tr("the calls that touched %1").arg(RepositoryListModel::repositoryName(repository));
    if (m_callLog->showCalls(callIds, description) > 0) {
        m_callLog->tableView()->setFocus(Qt::OtherFocusReason);
        return true;
    }
    statusBar()->showMessage(tr("None of %1 is in the live log any more; History has them").arg(description), 8000);
    return false;
}

void MainWindow::showConnectClientDialog()
{
    if (!m_connectDialog)
        m_connectDialog = new ConnectClientDialog(m_backend->serverUrl(), m_noAuth ? QByteArray() : m_backend->token(),
            m_noAuth ? QString() : m_backend->backendName(), this);
    m_connectDialog->show();
    m_connectDialog->raise();
    m_connectDialog->activateWindow();
}

void MainWindow::showClientTokensDialog()
{
    if (!m_clientTokensDialog)
        m_clientTokensDialog = new ClientTokensDialog(m_backend, this);
    m_clientTokensDialog->show();
    m_clientTokensDialog->raise();
    m_clientTokensDialog->activateWindow();
}

void MainWindow::showHistoryDialog()
{
    if (!m_historyDialog)
        m_historyDialog = new HistoryDialog(m_backend, this);
    else
        m_historyDialog->search(); // reopening shows what was written since
    // History names each call's backend as the log does, in a window of several.
    m_historyDialog->tableView()->horizontalHeader()->setSectionHidden(
        CallColumns::BackendColumn, m_backend->backendNames().size() < 2);
    m_historyDialog->show();
    m_historyDialog->raise();
    m_historyDialog->activateWindow();
}

void MainWindow::onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore)
{
    if (requestId != 0 && requestId == m_fullCallRequest) {
        onFullCallLoaded(calls);
        return;
    }
    if (requestId != 0 && requestId == m_callFromHistoryRequest) {
        onCallFromHistoryLoaded(calls);
        return;
    }
    if (requestId != 0 && requestId == m_historyMatchesRequest) {
        m_historyMatchesRequest = 0;
        m_callLog->addHistoryMatches(calls, hasMore);
        return;
    }
    if (requestId != m_recentRequest)
        return;
    m_recentRequest = 0;
    // Live batches may have arrived first and carry a newer state of the same calls: keep those.
    ToolCallList unknown;
    unknown.reserve(calls.size());
    for (const ToolCall& call : calls) {
        if (!m_model->indexOfCall(call.id).isValid())
            unknown.append(call);
    }
    m_model->applyUpdates(unknown);
}

void MainWindow::onSessionsChanged(int count)
{
    m_sessionsLabel->setText(count == 1 ? tr("1 session") : tr("%1 sessions").arg(count));
}

void MainWindow::onRowsDropped(qint64 totalDropped)
{
    Q_UNUSED(totalDropped);
    if (!m_olderCountTimer->isActive())
        m_olderCountTimer->start();
}

void MainWindow::countOlderCalls()
{
    HistoryQuery older;
    older.beforeId = m_model->oldestLiveId();
    if (older.beforeId <= 0)
        return;
    m_olderCountRequest = m_backend->countHistory(older);
}

void MainWindow::onHistoryCounted(quint64 requestId, qint64 count)
{
    if (requestId != m_olderCountRequest)
        return;
    m_olderCountRequest = 0;
    const qint64 dropped = m_model->droppedCount();
    if (count > 0) {
        m_droppedLabel->setText(count == 1 ? tr("<a href=\"history\">1 older call is in History</a>")
                                           : tr("<a href=\"history\">%1 older calls are in History</a>").arg(count));
    } else {
        // Pruned away, never written (no history, a failed disk) or not yet: the log says what it let
        // go, and History still opens.
        m_droppedLabel->setText(tr("<a href=\"history\">%1 older calls left the log</a>").arg(dropped));
    }
    // Here rather than at construction: the byte budget is set after the window is made.
    m_droppedLabel->setToolTip(
        tr("The live log keeps the newest %1 calls within %2 and has let %3 go; History holds %4 calls older "
           "than the log's oldest (it keeps the newest within its own bounds). Open History to see them")
            .arg(m_model->capacity())
            .arg(QLocale().formattedDataSize(m_model->byteBudget(), 0, QLocale::DataSizeTraditionalFormat))
            .arg(dropped)
            .arg(std::max<qint64>(count, 0)));
    m_droppedLabel->show();
}

void MainWindow::onHistoryWriteFailed(const QString& error)
{
    m_historyStatus->showProblem(tr("History is not being saved"), tr("Writing history failed: %1").arg(error));
}

void MainWindow::onHistoryWriteRecovered()
{
    m_historyStatus->showRecovered(tr("History is being saved again"));
}

void MainWindow::onHistoryNotice(const QString& message)
{
    m_historyStatus->showNotice(tr("History"), message);
}

void MainWindow::onHistoryCallsLeftOut(qint64 total)
{
    m_historyStatus->showNotice(
        total == 1 ? tr("1 call left out of history") : tr("%1 calls left out of history").arg(total),
        tr("%1 calls could not be written to history because the disk failed; history keeps this count.").arg(total));
}

void MainWindow::onWorkspaceStateProblem(const QString& message)
{
    m_stateStatus->showProblem(tr("Questions and answers are not saved"), tr("Workspace state: %1").arg(message));
}

void MainWindow::onWorkspaceStateNotice(const QString& message)
{
    m_stateStatus->showNotice(tr("Earlier workspace state set aside"), tr("Workspace state: %1").arg(message));
}

void MainWindow::onWorkspaceStateRecovered()
{
    m_stateStatus->showRecovered(tr("Questions and answers are saved again"));
}

bool MainWindow::historyHasState(const ToolCall& stored, const ToolCall& live, const CallPreview& preview)
{
    if (stored.id != live.id || stored.status != live.status || stored.durationUs != live.durationUs)
        return false;
    // A call history keeps only the start of (HistoryWriter::keptPart) says how large it was.
    if (stored.hasBodyPreviews())
        return stored.wholeRequestBytes == preview.requestBytes && stored.wholeResponseBytes == preview.responseBytes;
    return stored.request.size() == preview.requestBytes && stored.response.size() == preview.responseBytes
        && stored.details.size() == preview.detailsBytes && stored.timeline.size() == preview.timelineBytes;
}

QString MainWindow::previewNote(const CallPreview& preview, bool loading) const
{
    const QString shown
        = CallInspector::previewNote(CallLogModel::PreviewBytes, preview.requestBytes, preview.responseBytes, loading);
    if (loading)
        return shown;
    return shown + QLatin1Char(' ') + tr("History does not have this state of the call yet.")
        + QStringLiteral(" <a href=\"load\">") + tr("Load it again") + QStringLiteral("</a>");
}

void MainWindow::onCurrentCallChanged(const ToolCall& call)
{
    // The signal also brings the selected call's updates; only a new selection, or a git call that
    // has not found its repository yet, moves the repository view.
    if (call.id != m_selectedCallId) {
        m_selectedCallId = call.id;
        m_repositoryLinkedCallId = 0;
        m_repositoryView->forgetPendingCall();
    }
    if (call.route.kind == RouteKind::Git && m_repositoryLinkedCallId != call.id
        && m_repositoryView->showRepositoryForCall(call))
        m_repositoryLinkedCallId = call.id;

    const CallLogModel* shown = m_callLog->shownModel();
    const QModelIndex row = shown->indexOfCall(call.id);
    const CallPreview preview = row.isValid() ? shown->previewAt(row.row()) : CallPreview();
    if (!preview.truncated) {
        m_fullCallId = 0;
        m_fullCall = ToolCall();
        m_fullCallRetry->stop();
        m_inspector->setCall(call);
        return;
    }
    // The whole call from history is current while history has the state the log shows.
    if (historyHasState(m_fullCall, call, preview)) {
        m_inspector->setCall(m_fullCall);
        return;
    }
    m_fullCallId = call.id;
    m_fullCallAttempts = 0;
    m_inspector->setCallPreview(call, previewNote(preview, true));
    requestFullCall();
}

void MainWindow::requestFullCall()
{
    m_fullCallRetry->stop();
    if (m_fullCallId == 0)
        return;
    ++m_fullCallAttempts;
    HistoryQuery query;
    query.callId = m_fullCallId;
    query.limit = 1;
    m_fullCallRequest = m_backend->queryHistory(query);
}

void MainWindow::onFullCallLoaded(const ToolCallList& calls)
{
    m_fullCallRequest = 0;
    if (m_fullCallId == 0 || !m_inspector->hasCall() || m_inspector->call().id != m_fullCallId)
        return; // the selection moved on
    const CallLogModel* shown = m_callLog->shownModel();
    const QModelIndex row = shown->indexOfCall(m_fullCallId);
    if (!row.isValid()) {
        // Left the live log meanwhile: whatever history has is the best there is.
        if (!calls.isEmpty() && calls.first().id == m_fullCallId) {
            m_fullCall = calls.first();
            m_inspector->setCall(m_fullCall);
        }
        return;
    }
    const ToolCall& live = shown->callAt(row.row());
    const CallPreview preview = shown->previewAt(row.row());
    for (const ToolCall& call : calls) {
        if (call.id == m_fullCallId && historyHasState(call, live, preview)) {
            m_fullCall = call;
            m_inspector->setCall(call);
            return;
        }
    }
    // History writes in batches: a call that just finished may not be there yet.
    if (m_fullCallAttempts < FullCallAttempts)
        m_fullCallRetry->start();
    else
        m_inspector->setPreviewNote(previewNote(preview, false));
}

void MainWindow::createCallActions()
{
    // The inspector's copy actions act on the selected call: in the Call menu, and on the log's
    // rows (a right click selects the row first, so the inspector shows the call they act on).
    m_inspector->setServer(m_backend->serverUrl(), m_backend->requiresToken());
    connect(m_inspector, &CallInspector::copied, this,
        [this](const QString& what) { statusBar()->showMessage(tr("Copied %1 to the clipboard").arg(what), 4000); });
    QTableView* table = m_callLog->tableView();
    table->addActions(m_inspector->copyActions()); // on the row's context menu, below the log's own
    for (QAction* action : m_inspector->copyActions()) {
        if (action->shortcut().isEmpty())
            action->setProperty(WithoutShortcutProperty, true); // in the menu and on the row; four would be too many
        addMenuAction(Menu::Call, action);
    }

    auto* exportAction = new QAction(ThemeIcon::icon(QStringLiteral("document-save-as")), tr("&Export…"), this);
    exportAction->setObjectName(QStringLiteral("exportAction"));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setToolTip(tr("Save the calls the log shows, whole, as NDJSON or as HAR (%1)")
                                 .arg(exportAction->shortcut().toString(QKeySequence::NativeText)));
    connect(exportAction, &QAction::triggered, this, [this] {
        const QString path = CallExportDialog::askFileName(this, tr("Export the call log"), QStringLiteral("calls"));
        if (!path.isEmpty())
            exportCallLog(path);
    });
    addMenuAction(Menu::File, exportAction);

    auto* openAction = new QAction(ThemeIcon::icon(QStringLiteral("document-open")), tr("&Open NDJSON…"), this);
    openAction->setObjectName(QStringLiteral("openNdjsonAction"));
    openAction->setShortcut(QKeySequence::Open);
    openAction->setToolTip(tr("Show the calls of an exported NDJSON file in a read-only window (%1)")
                               .arg(openAction->shortcut().toString(QKeySequence::NativeText)));
    connect(openAction, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open calls"), QString(), tr("NDJSON, one call per line (*.ndjson *.jsonl);;All files (*)"));
        if (!path.isEmpty())
            openNdjson(path);
    });
    addMenuAction(Menu::File, openAction);
}

CallExportJob* MainWindow::exportCallLog(const QString& path)
{
    // What the person sees, in the order they see it; a row that keeps only a preview is read whole
    // from history by the job.
    QSortFilterProxyModel* proxy = m_callLog->proxy();
    auto* source = qobject_cast<CallLogModel*>(proxy->sourceModel());
    ToolCallList calls;
    calls.reserve(proxy->rowCount());
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const QModelIndex index = proxy->mapToSource(proxy->index(row, 0));
        if (!source) {
            calls.append(index.data(CallRole).value<ToolCall>());
            continue;
        }
        ToolCall call = source->callAt(index.row());
        const CallPreview preview = source->previewAt(index.row());
        if (preview.truncated && !call.hasBodyPreviews()) {
            call.wholeRequestBytes = preview.requestBytes;
            call.wholeResponseBytes = preview.responseBytes;
        }
        calls.append(call);
    }
    auto* job
        = new CallExportJob(m_backend, path, CallExportWriter::formatForFileName(path), m_backend->serverUrl(), this);
    CallExportDialog::watch(this, job);
    connect(job, &CallExportJob::finished, this, [this](bool ok, const QString& message) {
        if (ok)
            statusBar()->showMessage(message, 8000);
    });
    job->startWithCalls(calls);
    return job;
}

void MainWindow::openNdjson(const QString& path)
{
    // Up to 256 MiB of JSON takes seconds to parse: on a worker, so the window (and the questions in
    // it) keep answering meanwhile; the dialog shows only when it takes a while.
    auto control = std::make_shared<NdjsonCallReader::Control>();
    auto* watcher = new QFutureWatcher<NdjsonCallReader::Result>(this);
    // The window closing while a file is read stops the reading with it.
    connect(watcher, &QObject::destroyed, [control] { control->stop = true; });
    const QFileInfo file(path);
    const qint64 size = file.size();
    auto* progress = new QProgressDialog(
        tr("Reading %1…").arg(QDir::toNativeSeparators(file.fileName())), tr("Cancel"), 0, 1000, this);
    progress->setObjectName(QStringLiteral("openNdjsonProgress"));
    progress->setWindowTitle(tr("Open calls"));
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setMinimumDuration(400);
    progress->setValue(0);
    auto* ticker = new QTimer(progress);
    connect(ticker, &QTimer::timeout, progress, [progress, control, size] {
        if (size > 0)
            progress->setValue(int(std::min<qint64>(999, control->bytesRead.load() * 1000 / size)));
    });
    ticker->start(100);
    connect(progress, &QProgressDialog::canceled, progress, [control] { control->stop = true; });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, progress, path] {
        const NdjsonCallReader::Result result = watcher->result();
        watcher->deleteLater();
        progress->deleteLater();
        if (result.cancelled) {
            statusBar()->showMessage(tr("Opening %1 was cancelled.").arg(QDir::toNativeSeparators(path)), 8000);
            return;
        }
        const QString summary = NdjsonCallReader::summary(result);
        if (result.calls.isEmpty()) {
            const QString message = result.fatal.isEmpty()
                ? tr("%1 holds no calls: %2").arg(QDir::toNativeSeparators(path), summary)
                : summary;
            Q_EMIT ndjsonOpenFailed(message);
            QMessageBox::warning(this, tr("Open calls"), message);
            return;
        }
        auto* window = new CallImportWindow(
            path, result.calls, summary, m_backend->serverUrl(), m_backend->requiresToken(), this);
        window->show();
        Q_EMIT ndjsonOpened(window);
    });
    watcher->setFuture(QtConcurrent::run([path, control] { return NdjsonCallReader::readFile(path, control.get()); }));
}

void MainWindow::createConsoleCalls()
{
    // The Tools dock: a tab beside the questions, which it shares the height of the window with.
    auto* dock = new QDockWidget(tr("Tools"), this);
    dock->setObjectName(QStringLiteral("toolsDock"));
    m_toolsView = new ToolsView(m_backend);
    m_toolsView->setObjectName(QStringLiteral("toolsView"));
    dock->setWidget(m_toolsView);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    tabifyDockWidget(m_interactionPanel, dock);
    m_interactionPanel->raise();
    // A question that arrives while the Tools tab is in front would wait unseen behind it: the
    // questions come forward, unless the person is working in the Tools view (its tab title and the
    // toolbar's badge carry the count then).
    connect(m_interactionPanel, &InteractionPanel::countChanged, this,
        [this, shown = m_interactionPanel->count()](int count) mutable {
            const bool more = count > shown;
            shown = count;
            // A dock behind another's tab stays "visible"; only its visible region says it is not seen.
            if (!more || !m_interactionPanel->visibleRegion().isEmpty())
                return;
            // Nor when the person works in a dock that shares its tabs (the Tools view; when narrow,
            // the docks along the bottom too): raising would hide what has the focus.
            const QWidget* focus = QApplication::focusWidget();
            for (QDockWidget* tab : tabifiedDockWidgets(m_interactionPanel)) {
                if (focus && tab->isAncestorOf(focus))
                    return;
            }
            m_interactionPanel->raise();
        });
    QAction* toggle = dock->toggleViewAction();
    toggle->setObjectName(QStringLiteral("toolsDockAction"));
    toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    toggle->setToolTip(tr("Show or hide the tools Switchboard offers, and call one (%1)")
                           .arg(toggle->shortcut().toString(QKeySequence::NativeText)));
    addMenuAction(Menu::View, toggle);
    connect(m_toolsView, &ToolsView::callStarted, this, &MainWindow::selectNewCall);

    ReplayBar* bar = m_inspector->replayBar();
    connect(bar, &ReplayBar::replayRequested, this, &MainWindow::replayCall);
    connect(bar, &ReplayBar::editAndResendRequested, this, &MainWindow::editAndResendCall);
    connect(bar, &ReplayBar::showCallRequested, this, &MainWindow::showCall);
    connect(m_inspector, &CallInspector::showCallRequested, this, &MainWindow::showCall);
    auto* replay = new QAction(tr("&Replay"), this);
    replay->setObjectName(QStringLiteral("replayAction"));
    replay->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    replay->setToolTip(tr("Call the selected call's tool again with the same arguments (%1)")
                           .arg(replay->shortcut().toString(QKeySequence::NativeText)));
    connect(replay, &QAction::triggered, bar->replayButton(), &QPushButton::click);
    auto* edit = new QAction(tr("Edit and re&send…"), this);
    edit->setObjectName(QStringLiteral("editResendAction"));
    edit->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    edit->setToolTip(tr("Edit the selected call's arguments and call its tool again (%1)")
                         .arg(edit->shortcut().toString(QKeySequence::NativeText)));
    connect(edit, &QAction::triggered, bar->editButton(), &QPushButton::click);
    // Offered while the inspector's buttons are: a whole tools/call request is shown.
    for (auto* action : {replay, edit}) {
        QPushButton* button = action == replay ? bar->replayButton() : bar->editButton();
        connect(m_callMenu, &QMenu::aboutToShow, action, [action, button] { action->setEnabled(button->isEnabled()); });
        connect(m_callMenu, &QMenu::aboutToHide, action, [action] { action->setEnabled(true); });
        addMenuAction(Menu::Call, action);
    }

    connect(m_backend, &OperatorInterface::toolCallStarted, this, [this](quint64 requestId, qint64 callId) {
        if (requestId != 0 && requestId == m_consoleCallRequest) {
            m_consoleCallRequest = 0;
            selectNewCall(callId);
        }
    });
    connect(m_backend, &OperatorInterface::commandFailed, this, [this](const QString& command, const QString& message) {
        if (command == QStringLiteral("callTool"))
            statusBar()->showMessage(message, 8000);
    });
    // A call that started shows in the log with the next batch of calls.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_callToSelect != 0 && m_model->indexOfCall(m_callToSelect).isValid())
            selectNewCall(m_callToSelect);
    });
}

void MainWindow::selectNewCall(qint64 callId)
{
    // Under load a new call can have left the ring before the window heard it started: history has
    // it then (showCall asks).
    const qint64 oldestLive = m_model->oldestLiveId();
    if (!m_model->indexOfCall(callId).isValid() && (oldestLive == 0 || callId > oldestLive)) {
        m_callToSelect = callId;
        return;
    }
    m_callToSelect = 0;
    showCall(callId);
}

void MainWindow::replayCall(const ToolCall& call)
{
    const QString tool = ReplayBar::toolOfRequest(call.request);
    if (tool.isEmpty())
        return;
    m_consoleCallRequest = m_backend->callTool(tool, ToolCall::argumentsFromRequest(call.request), call.id);
    statusBar()->showMessage(tr("Replaying #%1 (%2)…").arg(call.id).arg(tool), 4000);
}

void MainWindow::editAndResendCall(const ToolCall& call)
{
    const QString tool = ReplayBar::toolOfRequest(call.request);
    if (tool.isEmpty())
        return;
    // The form comes from the tool's schema as it is offered now (none when it is gone).
    const ToolListModel* tools = m_toolsView->model();
    const int row = tools->rowOf(tool);
    auto* dialog = new EditResendDialog(tool, call.id, ToolCall::argumentsFromRequest(call.request),
        row >= 0 ? tools->tool(row).inputSchema : QByteArray(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_consoleCallRequest = m_backend->callTool(dialog->tool(), dialog->arguments(), dialog->originalCallId());
        statusBar()->showMessage(tr("Resending #%1 (%2)…").arg(dialog->originalCallId()).arg(dialog->tool()), 4000);
    });
    dialog->open();
}
