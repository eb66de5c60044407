#pragma once

// Backend: the composition of everything that works without a screen, and the one narrow API the
// models and widgets use. The MCP server and its sessions run on a backend thread with its own
// event loop; history is written on a thread of its own and searched on another. Nothing here blocks the caller's event
// loop after start().

#include "config/switchboardconfig.h"
#include "interaction/pendinginteraction.h"
#include "mcp/mcphttpserver.h"
#include "store/historyquery.h"
#include "tools/toolcall.h"

#include <QHash>
#include <QObject>
#include <QThread>
#include <QUrl>

class BackendEvents;
class HistoryStore;
class HistoryWriter;
class InteractionBroker;
class OAuthConnector;
class SecretStore;
class ToolRegistry;

struct BackendOptions
{
    McpServerOptions server;
    QString stateDirectory;
    qint64 historyMaxCalls = 500'000;
    SwitchboardConfig config; // interaction, permissions, client tools
    QString configPath; // named in messages about permission rules
    // Offers the debug.* test tools (a tool that blocks, one that reports progress, one that ignores
    // cancellation, one that throws): --debug-tools, for trying clients and the executor by hand.
    bool debugTools = false;
};

class Backend : public QObject
{
    Q_OBJECT
public:
    explicit Backend(BackendOptions options, QObject* parent = nullptr);
    ~Backend() override;

    // Opens history, builds the tools and starts listening. Blocks until the server listens (or
    // fails to); call once at start-up.
    bool start(QString* error);
    // Cancels what is in flight, closes connections, writes pending history. Idempotent.
    void stop();

    QUrl serverUrl() const { return m_url; }
    bool requiresToken() const { return !m_options.server.bearerToken.isEmpty(); }
    QByteArray token() const { return m_options.server.bearerToken; }
    QString historyPath() const;
    QString stateDirectory() const { return m_options.stateDirectory; }

    // Lives on the backend thread: connect with queued connections.
    BackendEvents* events() const { return m_events; }

    // Asynchronous history reads; the answer comes as historyLoaded with the same request id.
    // `bodyPreviewBytes` as in HistoryQuery: > 0 reads only that much of each request and response.
    quint64 loadRecentCalls(int limit, qsizetype bodyPreviewBytes = 0);
    quint64 queryHistory(const HistoryQuery& query);

    // The person's side of calls that wait (approvals, client tools). All asynchronous: the pending
    // list arrives as interactionsListed; a refused answer as interactionAnswerFailed.
    void listInteractions();
    void answerInteraction(const QString& interactionId, const InteractionAnswer& answer);
    QString workspaceStatePath() const;
    // Connect answers (request_connection and other connect tools). The secret goes to the
    // SecretStore; the client receives only {"connected": true, "provider", "account"}. Failures
    // (no keychain, a declined OAuth sign-in) come as connectFailed and leave the question open so
    // the person can retry or decline.
    void connectWithApiKey(
        const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey);
    // Starts an OAuth sign-in (authorization code + PKCE, loopback redirect); the page to open in
    // the browser arrives as oauthAuthorizationUrl.
    void startOAuth(const QString& interactionId, const QString& provider, const QStringList& scopes);
    void cancelOAuth(const QString& interactionId);
    // Where secrets are kept, for the window to name (the desktop keychain, or the owner-only file
    // the operator chose).
    QString secretStorage() const;

Q_SIGNALS:
    void historyLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    // History could not be written (the disk failed); unwritten calls are kept and retried.
    void historyWriteFailed(const QString& error);
    void historyWriteRecovered();
    // The exact number of calls left out of history because the disk failed, over the history
    // database's life (kept in it across restarts). Emitted when it grows, and after start() when
    // it is not zero.
    void historyCallsLeftOut(qint64 total);
    // Something about history the operator should read (calls waiting for history to catch up, calls
    // left out by an earlier run).
    void historyNotice(const QString& message);

    void sessionsChanged(int count);

    void interactionsListed(const PendingInteractionList& interactions);
    void interactionPending(const PendingInteraction& interaction);
    void interactionChanged(const PendingInteraction& interaction);
    // outcome: answered, stored (no call was waiting; kept for the retry), cancelled, timeout
    void interactionResolved(const QString& interactionId, const QString& outcome);
    void interactionAnswerFailed(const QString& interactionId, const QString& error);
    void oauthAuthorizationUrl(const QString& interactionId, const QUrl& url);
    void connectFailed(const QString& interactionId, const QString& message);
    // The workspace state (pending questions, stored answers) could not be written (writes are
    // retried), or could not be read and could not be moved aside either (nothing is saved).
    void workspaceStateProblem(const QString& message);
    // At start: the workspace state could not be read and was set aside under a name of its own;
    // the console starts clean and saves its state as usual.
    void workspaceStateNotice(const QString& message);
    // After a failed write: the workspace state is on disk again.
    void workspaceStateRecovered();

private:
    bool registerClientTools(QString* error);
    // Server thread: the secret is saved, then the question is answered with the connection.
    void saveSecretAndConnect(const QString& interactionId, const QString& provider, const QString& account,
        const QString& secretKey, const QByteArray& secret);
    BackendOptions m_options;
    QThread m_serverThread;
    QThread m_historyThread; // history searches (and, for now, the workspace state writer)
    QObject* m_serverContext = nullptr; // lives on the server thread; the target of cross-thread calls
    BackendEvents* m_events = nullptr;
    ToolRegistry* m_registry = nullptr;
    McpHttpServer* m_server = nullptr;
    HistoryWriter* m_historyWriter = nullptr; // its own thread
    HistoryStore* m_history = nullptr; // searches; m_historyThread
    InteractionBroker* m_interactions = nullptr; // server thread
    SecretStore* m_secrets = nullptr; // server thread
    QString m_secretStorage; // m_secrets->description(), readable from the GUI thread
    QHash<QString, OAuthConnector*> m_oauthFlows; // by interaction id; server thread
    QUrl m_url;
    quint64 m_nextRequestId = 1;
    bool m_running = false;
};
