#pragma once

// MainWindow: the operator console: the live call log beside the inspector for the selected call, a
// toolbar to connect a client or open history, and a status bar with where the server listens, its
// sessions, the auth state, rows moved out to history and history write failures. The questions
// dock (InteractionPanel) queues what clients ask of the person, and is wired to the backend here.

#include "tools/toolcall.h"

#include <QMainWindow>
#include <QPointer>

class Backend;
class CallInspector;
class CallLogModel;
class CallLogView;
class ConnectClientDialog;
class CopyButton;
class HistoryDialog;
class InteractionPanel;
class QAction;
class QLabel;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(Backend* backend, int callLogRows, bool noAuth, QWidget* parent = nullptr);
    ~MainWindow() override;

    CallLogModel* callLogModel() const { return m_model; }
    CallLogView* callLogView() const { return m_callLog; }
    CallInspector* inspector() const { return m_inspector; }
    InteractionPanel* interactionPanel() const { return m_interactionPanel; }
    // Created on first use.
    ConnectClientDialog* connectClientDialog() const;
    HistoryDialog* historyDialog() const;

public Q_SLOTS:
    void showConnectClientDialog();
    void showHistoryDialog();
    // Selects the call in the call log (a question's "Show call"); false when it has left the log.
    bool showCall(qint64 callId);

private:
    void createToolBar();
    void createStatusBar();
    void createInteractionPanel();
    void onInteractionCountChanged(int count);
    void onHistoryLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void onSessionsChanged(int count);
    void onRowsDropped(qint64 totalDropped);
    void onHistoryWriteFailed(const QString& error);
    void onHistoryWriteRecovered();

    Backend* m_backend;
    bool m_noAuth; // the server accepts calls without a token
    bool m_noAuthRequested; // because the command line said --no-auth
    CallLogModel* m_model;
    CallLogView* m_callLog;
    CallInspector* m_inspector;
    InteractionPanel* m_interactionPanel = nullptr;
    quint64 m_recentRequest = 0;

    QLabel* m_urlLabel = nullptr;
    QLabel* m_sessionsLabel = nullptr;
    QLabel* m_authLabel = nullptr;
    CopyButton* m_copyTokenButton = nullptr;
    QLabel* m_droppedLabel = nullptr;
    QLabel* m_historyWarning = nullptr;
    QAction* m_questionsAction = nullptr;
    QLabel* m_questionsLabel = nullptr;

    QPointer<ConnectClientDialog> m_connectDialog;
    QPointer<HistoryDialog> m_historyDialog;
};
