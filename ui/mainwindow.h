#pragma once

// MainWindow: the operator console: the live call log beside the inspector for the selected call, a
// toolbar to connect a client or open history, and a status bar with where the server listens, its
// sessions, the auth state, rows moved out to history, and what goes wrong in the background
// (history and workspace-state problems, until they recover). The questions dock
// (InteractionPanel) queues what clients ask of the person, and is wired to the backend here. The
// repositories dock (RepositoryView) sits below the log; selecting a git call selects its repository,
// and a repository's "Show calls" filters the log to them. The adapters dock (AdapterHealthView)
// shares the bottom with it as a tab; selecting an adapter shows only its calls in the log, and
// clearing that filter in the log clears the selection. The live log keeps previews of large calls;
// the inspector gets the whole call from history. On an interface that holds several backends
// (FleetOperator), rows, questions, adapters, sessions, permissions and the status bar name theirs,
// and File ▸ Attach… and Detach… add and remove them.

#include "callimportwindow.h" // complete for the ndjsonOpened signal's argument type
#include "toolcall.h"

#include <QMainWindow>
#include <QMargins>
#include <QPointer>

class AdapterHealthView;
class AttachDialog;
class CallExportJob;
class OperatorInterface;
class CallInspector;
class CallLogModel;
class CallLogView;
class ClientTokensDialog;
class ConnectClientDialog;
class CopyButton;
class HistoryDialog;
class InteractionPanel;
class QAction;
class QCloseEvent;
class QLabel;
class QMenu;
class QSettings;
class QSplitter;
class QTimer;
class QToolBar;
class RepositoryView;
class ShortDockArea;
class StatusWarning;
class ToolsView;
struct CallPreview;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(OperatorInterface* backend, int callLogRows, bool noAuth, QWidget* parent = nullptr);
    ~MainWindow() override;

    // The menu bar's menus. Every action the window offers is in one of them, with its shortcut in
    // the menu; an action deliberately without a shortcut says so with the dynamic property
    // WithoutShortcutProperty set to true (tst_menubar checks both).
    enum class Menu { File, Edit, View, Call, Help };
    QMenu* menu(Menu which) const;
    // Adds the action to a menu, and to the window so its shortcut works while the menu bar is hidden
    // (one added to the File menu goes above Quit, which stays last).
    void addMenuAction(Menu which, QAction* action);
    static constexpr const char* WithoutShortcutProperty = "withoutShortcut";

    // The window's geometry, its docks and toolbar, the splitter and the call log's columns, kept in
    // `settings` under "window/"; restoreLayout ignores a layout saved by another LayoutVersion
    // (bumped when docks or columns change) and returns whether it restored one.
    // 2: the Tools and Permissions docks, and the call log's Status column second.
    static constexpr int LayoutVersion = 2;
    // What a desktop's panel and the window's title bar take of the screen's height, at most.
    static constexpr int ScreenMarginHeight = 60;
    // What a window manager's frame (title bar and borders) is taken to need around the window
    // before it is shown; once shown, the window's real frame counts.
    static constexpr QMargins FrameAllowance{4, 40, 4, 4};
    // The room for the window's contents on its screen: the available area (no desktop panels) less
    // the frame.
    QRect roomOnScreen() const;
    // Narrow (a small screen, a large font, high scaling): the docks on the right share the tabs
    // along the bottom, where the questions have the window's width for their answer buttons.
    bool isCompact() const { return m_compact; }
    bool isShort() const { return m_short; }
    // The inspector goes below the log by itself only when the log keeps at least this many rows.
    static constexpr int MinLogRowsAboveInspector = 10;
    // How often, at most, the status bar counts the calls older than the log in History.
    static constexpr int OlderCallsCountIntervalMs = 500;
    void saveLayout(QSettings& settings) const;
    // Restores the layout, then fits it to the screen: a window larger than the screen's room
    // shrinks into it; a layout whose minimum does not fit (another screen, a larger font) gives way
    // to the first layout for this screen (and false is returned).
    bool restoreLayout(QSettings& settings);
    // Back to the size that fits the screen and the docks where they start.
    void resetLayout();
    // The inspector beside the call log, or below it (View ▸ Inspector Below the Log); at first,
    // below when the window is too narrow for both at its font.
    void setInspectorBelow(bool below);
    bool isInspectorBelow() const;

    CallLogModel* callLogModel() const { return m_model; }
    CallLogView* callLogView() const { return m_callLog; }
    CallInspector* inspector() const { return m_inspector; }
    InteractionPanel* interactionPanel() const { return m_interactionPanel; }
    RepositoryView* repositoryView() const { return m_repositoryView; }
    AdapterHealthView* adapterHealthView() const { return m_adapterHealthView; }
    // Created on first use.
    ConnectClientDialog* connectClientDialog() const;
    ClientTokensDialog* clientTokensDialog() const;
    HistoryDialog* historyDialog() const;
    StatusWarning* historyStatus() const { return m_historyStatus; }
    StatusWarning* workspaceStateStatus() const { return m_stateStatus; }
    // An attached backend's connection: a problem while it is lost (what shows is not live).
    StatusWarning* backendStatus() const { return m_backendStatus; }

    // Attempts to get a call from history that history has not written yet, a second apart.
    static constexpr int FullCallAttempts = 5;
    static constexpr int FullCallRetryMs = 1000;

    // The Tools dock: the tools offered now, and a form to call one from the console.
    ToolsView* toolsView() const { return m_toolsView; }

public Q_SLOTS:
    // Sends the call again through the backend's router (the inspector's Replay), or opens the
    // arguments to edit first (Edit and resend…); the new call is selected in the log when it starts.
    void replayCall(const ToolCall& call);
    void editAndResendCall(const ToolCall& call);
    void showConnectClientDialog();
    // File ▸ Client tokens…: issue and revoke the tokens that name their clients.
    void showClientTokensDialog();
    void showHistoryDialog();
    // Help ▸ Keyboard Shortcuts: every key the window and its views offer.
    void showKeyboardShortcuts();
    // Selects the call in the call log (a question's "Show call", a replay's "#N"): true when the
    // log shows it now. One that has left the log is asked of history and comes back as a history
    // row, selected (the status bar says so when history does not hold it either).
    bool showCall(qint64 callId);
    // Shows only these calls in the log (a repository's "Show calls") and selects the newest; false
    // when none of them is in the live log any more.
    bool showCalls(const QList<qint64>& callIds);
    // File ▸ Export…: writes the calls the log shows now (its filters applied), whole, to `path`
    // (".har": HAR 1.2, else NDJSON); the job reports when it is done.
    CallExportJob* exportCallLog(const QString& path);
    // File ▸ Open NDJSON…: reads the file on a worker thread (with a progress dialog and Cancel when
    // it takes a while), then shows its calls in a read-only window (ndjsonOpened), or says why it
    // holds none in a message box (ndjsonOpenFailed). Cancelled, it says nothing.
    void openNdjson(const QString& path);

    // What the status bar says about history and the workspace state (Backend's historyWriteFailed,
    // historyWriteRecovered, historyNotice, historyCallsLeftOut, workspaceStateProblem and
    // workspaceStateRecovered; arguments a signal may gain are ignored until a slot takes them).
    void onHistoryWriteFailed(const QString& error);
    void onHistoryWriteRecovered();
    void onHistoryNotice(const QString& message);
    void onHistoryCallsLeftOut(qint64 total);
    void onWorkspaceStateProblem(const QString& message);
    void onWorkspaceStateNotice(const QString& message);
    void onWorkspaceStateRecovered();
    // An attached backend was reached or lost: the status bar says so, the title names the backend,
    // and while it is lost questions cannot be answered (they may have been answered meanwhile).
    void onBackendConnectionChanged(bool connected, const QString& message);
    // "Switchboard", the backend attached to, whether it is lost, and how many questions wait.
    void updateWindowTitle();
    // A backend was added or taken out (a window holding several): the log's Backend column, the
    // questions' backend, the status bar.
    void onBackendsChanged();
    // File ▸ Attach… (a window that can hold several backends): the dialog, open; its OK attaches.
    AttachDialog* showAttachDialog();

protected:
    void showEvent(QShowEvent* event) override;

Q_SIGNALS:
    void ndjsonOpened(CallImportWindow* window);
    void ndjsonOpenFailed(const QString& message);

protected:
    // Quitting with questions pending (calls held on them, or parked ones) asks first.
    void closeEvent(QCloseEvent* event) override;

private:
    // The Tools dock, the replay actions, and selecting the console's new calls.
    void createConsoleCalls();
    void selectNewCall(qint64 callId);
    void createMenuBar();
    void createToolBar();
    void createCallActions();
    void applyDefaultSizes();
    // The docks' contents (not the questions': a question scrolls inside and its answers never do)
    // and the inspector scroll rather than hold the window taller than the screen; once set, kept.
    void letDocksScroll();
    // Moves the Questions and Tools docks between the right (false) and the bottom tabs (true).
    void setCompact(bool compact);
    // Short (a screen too low for the log, the docks along the bottom and a question above each
    // other): the docks on the right reach down to the status bar, and the toolbar's buttons go, as
    // icons, to the menu bar's row.
    void setShort(bool isShort);
    // The width and height the Questions dock needs for an approval, whose four answer buttons make
    // the widest question, measured on a sample at the present font: the least width, and the height
    // at `dockWidth` (at the least width when 0).
    QSize questionsDockNeed(int dockWidth = 0) const;
    // Shrinks and moves the window so that its frame is inside the screen's available area.
    void fitFrameToScreen();
    void createStatusBar();
    // File ▸ Attach… and Detach…, for a backend that can hold several (OperatorInterface::canAttachBackends).
    void createAttachActions();
    // The log's Backend column: shown, beside the status, while the window holds several backends.
    void updateBackendColumn();
    void createInteractionPanel();
    void createRepositoryView();
    void createAdapterHealthView();
    void onAdapterSelected(const QString& name);
    void onInteractionCountChanged(int count);
    void onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void onCallFromHistoryLoaded(const ToolCallList& calls);
    void onSessionsChanged(int count);
    // The status bar's word on the clients' token: needed or not (an attached backend says which
    // once it is reached), and where it is.
    void updateAuthStatus();
    void onRowsDropped(qint64 totalDropped);
    // The status bar's "N older calls are in History": counted in history (the stored calls older
    // than the log's oldest live row), a moment after rows leave the log or history prunes its
    // oldest, so that the figure is what History holds, not what the log let go.
    void countOlderCalls();
    void onHistoryCounted(quint64 requestId, qint64 count);
    void onCurrentCallChanged(const ToolCall& call);
    void requestFullCall();
    void onFullCallLoaded(const ToolCallList& calls);
    QString previewNote(const CallPreview& preview, bool loading) const;
    // Whether `stored`, a call read from history, is the state of `live` the log shows.
    static bool historyHasState(const ToolCall& stored, const ToolCall& live, const CallPreview& preview);

    OperatorInterface* m_backend;
    bool m_noAuth; // the server accepts calls without a token
    bool m_noAuthRequested; // because the command line said --no-auth
    CallLogModel* m_model;
    CallLogView* m_callLog;
    CallInspector* m_inspector;
    InteractionPanel* m_interactionPanel = nullptr;
    RepositoryView* m_repositoryView = nullptr;
    AdapterHealthView* m_adapterHealthView = nullptr;
    // The call the log has selected, and the git call whose repository the repository view was
    // last moved to: a selected call's updates move it only until it has found its repository, so
    // the person can pick another repository while the call stays selected.
    qint64 m_selectedCallId = 0;
    qint64 m_repositoryLinkedCallId = 0;
    quint64 m_recentRequest = 0;
    quint64 m_historyMatchesRequest = 0;
    quint64 m_callFromHistoryRequest = 0; // showCall's call beyond the log, asked of history
    qint64 m_callFromHistoryId = 0;
    QSplitter* m_splitter = nullptr;
    QAction* m_inspectorBelowAction = nullptr;
    // What the docks along the bottom and on the right show, scrolling, when the window would not
    // fit the screen otherwise (empty when it does).
    QList<ShortDockArea*> m_bottomDockAreas;
    QList<ShortDockArea*> m_rightDockAreas;
    ShortDockArea* m_inspectorArea = nullptr;
    bool m_compact = false;
    bool m_short = false;
    QToolBar* m_toolBar = nullptr;
    QByteArray m_defaultState; // the docks as the window starts, for resetLayout
    // The whole call behind the inspector's preview: which call, the request for it, the answer.
    qint64 m_fullCallId = 0;
    quint64 m_fullCallRequest = 0;
    int m_fullCallAttempts = 0;
    ToolCall m_fullCall;
    QTimer* m_fullCallRetry = nullptr;

    QLabel* m_urlLabel = nullptr;
    QLabel* m_sessionsLabel = nullptr;
    QLabel* m_authLabel = nullptr;
    CopyButton* m_copyTokenButton = nullptr;
    QLabel* m_droppedLabel = nullptr;
    QTimer* m_olderCountTimer = nullptr; // at most one count of older calls in flight per interval
    quint64 m_olderCountRequest = 0;
    StatusWarning* m_historyStatus = nullptr;
    StatusWarning* m_stateStatus = nullptr;
    StatusWarning* m_backendStatus = nullptr;
    QLabel* m_urlCaption = nullptr;
    int m_questionCount = 0;
    QAction* m_questionsAction = nullptr;
    QLabel* m_questionsLabel = nullptr;
    bool m_quitConfirmed = false; // the person said Quit with questions pending

    QAction* m_detachAction = nullptr;
    int m_backendCount = -1; // the backends held, once the window knows
    QMenu* m_fileMenu = nullptr;
    QMenu* m_editMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_callMenu = nullptr;
    QMenu* m_helpMenu = nullptr;
    QAction* m_quitSeparator = nullptr;

    QPointer<ConnectClientDialog> m_connectDialog;
    QPointer<ClientTokensDialog> m_clientTokensDialog;
    QPointer<HistoryDialog> m_historyDialog;
    ToolsView* m_toolsView = nullptr;
    quint64 m_consoleCallRequest = 0; // the latest replay sent, until its call starts
    qint64 m_callToSelect = 0; // a console call that started but is not in the log yet
};
