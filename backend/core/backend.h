#pragma once

// Backend: the composition of everything that works without a screen, and the in-process
// implementation of the OperatorInterface the window uses. The MCP server and its sessions run on a
// backend thread with its own event loop, blocking tools on the ToolExecutor's pool; history is
// written on a thread of its own and searched on another. Nothing here blocks the caller's event
// loop after start().

#include "auth/clienttokens.h"
#include "auth/operatortokens.h"
#include "config/switchboardconfig.h"
#include "historyquery.h"
#include "operatorinterface.h"
#include "pendinginteraction.h"
#include "toolcall.h"
#include "tools/workerpool.h"
#include "transport/mcphttpserver.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QThread>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>

class AdapterRegistry;
class QFileSystemWatcher;
class QTimer;
class BackendEvents;
class ConnectionCredentialSource;
class GitStatusCache;
class RepositoryMonitor;
class CallIdSource;
class HistoryStore;
class HistoryWriter;
class McpSession;
class OperatorApi;
class OperatorFeed;
class ResponseChannel;
class SessionHost;
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
    // Who may use the operator API (/operator/v1/ on the same listener); empty: it is not served.
    OperatorTokens operatorTokens;
    int operatorMaxStreams = 64;
    qint64 operatorMaxUnsentStreamBytes = 8 * 1024 * 1024; // an event stream's reader this far behind is cut
    // false: no HTTP server listens, the configuration file is not watched and history is not
    // searched; calls come only through callLocally() (the one-shot runner).
    bool listen = true;
};

// Who makes a call from inside the process (the one-shot runner), and the invocation metadata it
// verified (passed to the tool: git takes credentials from it).
struct LocalCaller
{
    QString clientName;
    QString clientVersion;
    nlohmann::json invocation;
    // Runs on the backend's server thread once the call has been admitted (run, answered from a
    // stored answer, refused or parked) and the workspace state, with any stored answer or one-time
    // approval it took, is saved: a runner holds its admission lock until then.
    std::function<void()> admitted;
};

// How a local call ended.
struct LocalCallOutcome
{
    enum class Kind {
        Answered, // `response` is the JSON-RPC response (a result, a tool error or a protocol error)
        Parked, // it waits for a person at the console; `reason` names the question
        Cancelled, // `reason` says why
    };
    Kind kind = Kind::Answered;
    QByteArray response;
    QString reason;
    // How an answered tools/call ended (ResponseChannel::sendCallResponse); unset for a protocol
    // error or another request's response.
    std::optional<CallStatus> status;
};

class Backend : public OperatorInterface
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

    QUrl serverUrl() const override { return m_url; }
    // Where the operator API answers (…/operator/v1/); empty when it is not served.
    QUrl operatorUrl() const { return m_operatorUrl; }
    bool requiresToken() const override { return !m_options.server.bearerToken.isEmpty(); }
    QByteArray token() const override { return m_options.server.bearerToken; }
    QString historyPath() const;
    QString stateDirectory() const { return m_options.stateDirectory; }

    // Lives on the backend thread: connect with queued connections.
    BackendEvents* events() const { return m_events; }

    // Asynchronous history reads; the answer comes as historyLoaded with the same request id.
    // `bodyPreviewBytes` as in HistoryQuery: > 0 reads only that much of each request and response.
    quint64 loadRecentCalls(int limit, qsizetype bodyPreviewBytes = 0) override;
    quint64 queryHistory(const HistoryQuery& query) override;
    quint64 countHistory(const HistoryQuery& query) override;

    // The person's side of calls that wait (approvals, client tools). All asynchronous: the pending
    // list arrives as interactionsListed; a refused answer as interactionAnswerFailed.
    void listInteractions() override;
    void answerInteraction(const QString& interactionId, const InteractionAnswer& answer) override;
    // Rules and grants, from the server thread: grantsListed, then grantsChanged as grants change.
    void listGrants() override;
    void revokeGrant(const QString& grantId) override;
    QString workspaceStatePath() const;
    // The operator's adapter overrides (disabled, forced open), shared by every process on the state
    // directory (AdapterOverridesFile).
    QString adapterOverridesPath() const;
    // Connect answers (request_connection and other connect tools). The secret goes to the
    // SecretStore; the client receives only {"connected": true, "provider", "account"}. Failures
    // (no keychain, a declined OAuth sign-in) come as connectFailed and leave the question open so
    // the person can retry or decline.
    void connectWithApiKey(const QString& interactionId, const QString& provider, const QString& account,
        const QByteArray& apiKey) override;
    // Starts an OAuth sign-in (authorization code + PKCE, loopback redirect); the page to open in
    // the browser arrives as oauthAuthorizationUrl.
    void startOAuth(const QString& interactionId, const QString& provider, const QStringList& scopes) override;
    void cancelOAuth(const QString& interactionId) override;
    // Where secrets are kept, for the window to name (the desktop keychain, or the owner-only file
    // the operator chose).
    QString secretStorage() const override;

    // The repository view (git tools): asynchronous; state arrives as repositoryStatesChanged.
    void addRepository(const QString& path) override;
    void removeRepository(const QString& path) override;
    void refreshRepository(const QString& path) override;
    void loadFileDiff(const QString& repositoryPath, const QString& file) override;

    // Client sessions over HTTP, on the server thread: the list arrives as sessionsListed, an
    // unknown session to end as commandFailed "endSession".
    void listSessions() override;
    void endSession(const QString& sessionId) override;

    // Upstream adapters: asynchronous; states arrive as adapterStatusesChanged and
    // breakerStatesChanged, an unknown adapter as commandFailed.
    void resetBreaker(const QString& adapter) override;
    void forceOpenBreaker(const QString& adapter) override;
    void setAdapterEnabled(const QString& adapter, bool enabled) override;
    // Reads the configuration file again and applies what can change while running (the adapters);
    // a file that does not load keeps the previous configuration. Also runs when the file changes.
    void reloadConfiguration() override;

    // Runs one tools/call (or tools/list) request (JSON-RPC text) for a caller inside this process, through the same
    // router, permissions, executor, history and workspace state as a client's call. A call that
    // would wait for a person is parked (its question stays for the console). `notified` gets the
    // call's notifications (progress, log messages) and `done` its end, once; both on this object's
    // thread.
    void callLocally(const QByteArray& request, const LocalCaller& caller,
        std::function<void(const QByteArray& notification)> notified,
        std::function<void(const LocalCallOutcome&)> done);
    // Cancels every local call in flight (the runner was interrupted): each ends as Cancelled.
    void cancelLocalCalls(const QString& reason);

    // The console's own calls, through callLocally as client "Switchboard console"; see
    // OperatorInterface. A call that needs a person waits for them (or is parked, as the
    // configuration has it for that client), as a client's call would.
    quint64 callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf = 0) override;
    // The tools clients see in tools/list now (a read-only adapter's write tools are not offered).
    void listTools() override;

    // Named client tokens (ClientTokens, client-tokens.json in the state directory), read and changed
    // on a thread of their own: a change waits for the file's lock and an fsync, which neither the
    // window's thread nor the server's may. Work before start() too (they need only the directory).
    void listClientTokens() override;
    void issueClientToken(const QString& name) override;
    void revokeClientToken(const QString& name) override;
    // The named tokens, for whatever checks a client's token to share (one cache of the file).
    std::shared_ptr<ClientTokens> clientTokens() const { return m_clientTokens; }

private:
    // Emits `signal` (one of the interface's) with `arguments` on this object's thread, queued behind
    // everything told before it. From any thread: the window hears every signal on its own thread,
    // in the order things happened, and none straight from the server thread.
    template<typename... Parameters, typename... Arguments>
    void announce(void (OperatorInterface::*signal)(Parameters...), Arguments... arguments)
    {
        QMetaObject::invokeMethod(
            this, [this, signal, arguments...] { Q_EMIT std::invoke(signal, this, arguments...); },
            Qt::QueuedConnection);
    }
    // callLocally, with what the console's calls add: the call records `replayOf` and `started`
    // hears its id (on this object's thread).
    void runLocally(const QByteArray& request, const LocalCaller& caller, qint64 replayOf,
        std::function<void(qint64 callId)> started, std::function<void(const QByteArray& notification)> notified,
        std::function<void(const LocalCallOutcome&)> done);
    // What a client-token command tells once done: announce()s, called with this object.
    using ClientTokenTell = std::function<void(Backend&)>;
    // Runs `work` on m_clientTokenWork's thread after every client-token command asked before it,
    // then what it returns, unless this object has gone meanwhile.
    void clientTokenWork(std::function<ClientTokenTell(ClientTokens&)> work);
    void registerAdapters();
    void registerSinks(const std::vector<SinkConfig>& configs);
    void registerCommandTools(const std::vector<CommandToolConfig>& configs);
    void watchConfiguration();
    // Server thread: runs `command` on the adapter registry; a refusal becomes commandFailed.
    void adapterCommand(const QString& command, std::function<bool(AdapterRegistry&, QString*)> run);
    void applyQuestionUpdates(const QuestionUpdateList& updates);
    bool registerClientTools(QString* error);
    void registerGitTools();
    // Server thread: the secret is saved, then the question is answered with the connection.
    // `by` names who answered (empty: the person at this console); `done`, when given, hears how it
    // ended, on the server thread.
    void saveSecretAndConnect(const QString& interactionId, const QString& provider, const QString& account,
        const QString& secretKey, const QByteArray& secret, const QString& by = {},
        std::function<void(bool ok, const QString& error)> done = {});
    // Server thread: an API key answers a connect question (saved, then the question answered).
    void connectApiKey(const QString& interactionId, const QString& provider, const QString& account,
        const QByteArray& apiKey, const QString& by = {}, std::function<void(bool ok, const QString& error)> done = {});
    // A tool called from the console (the window's or an operator's), through callLocally as client
    // "Switchboard console" with `clientVersion`: `started` hears its id, `failed` why it never started;
    // both on this object's thread.
    void consoleCall(const QString& tool, const QByteArray& arguments, qint64 replayOf, const QString& clientVersion,
        std::function<void(qint64 callId)> started, std::function<void(const QString& why)> failed);
    // Server thread: the tools clients see in tools/list now.
    ToolInfoList offeredTools() const;
    // Server thread: the state for operators and the operator API over it.
    void startOperatorApi();
    // Reads the configuration file again and applies it; false (saying why) keeps the previous one.
    bool applyConfigurationFile(QString* message);
    BackendOptions m_options;
    QThread m_serverThread;
    QThread m_historyThread; // history searches (and, for now, the workspace state writer)
    QObject* m_serverContext = nullptr; // lives on the server thread; the target of cross-thread calls
    BackendEvents* m_events = nullptr;
    ToolRegistry* m_registry = nullptr;
    McpHttpServer* m_server = nullptr; // null when not listening
    std::unique_ptr<SessionHost> m_ownSessionHost; // when not listening
    SessionHost* m_sessionHost = nullptr; // m_server's or m_ownSessionHost; server thread
    HistoryWriter* m_historyWriter = nullptr; // its own thread
    std::unique_ptr<CallIdSource> m_callIds; // used on the server thread
    HistoryStore* m_history = nullptr; // searches; m_historyThread
    InteractionBroker* m_interactions = nullptr; // server thread
    SecretStore* m_secrets = nullptr; // server thread
    RepositoryMonitor* m_repositories = nullptr; // server thread
    AdapterRegistry* m_adapters = nullptr; // server thread
    QFileSystemWatcher* m_configWatcher = nullptr; // this object's thread
    QTimer* m_configReload = nullptr; // a burst of file events is one reload
    QDateTime m_configModified; // the file's time when last seen, to tell its changes from others'
    std::shared_ptr<ConnectionCredentialSource> m_gitCredentials; // used by git workers
    std::shared_ptr<GitStatusCache> m_gitStatusCache; // used by git workers
    QString m_secretStorage; // m_secrets->description(), readable from the GUI thread
    QHash<QString, OAuthConnector*> m_oauthFlows; // by interaction id; server thread
    OperatorFeed* m_feed = nullptr; // server thread
    OperatorApi* m_operatorApi = nullptr; // server thread; null when not served
    // Where work on other threads (history searches, configuration reloads) tells the server thread
    // it is done, until the server thread's objects go.
    struct ServerOutbox
    {
        std::mutex mutex;
        QObject* context = nullptr;
        // Runs `tell` on the server thread, unless its objects have gone; from any thread.
        void post(std::function<void()> tell)
        {
            const std::lock_guard lock(mutex);
            if (context)
                QMetaObject::invokeMethod(context, std::move(tell));
        }
    };
    std::shared_ptr<ServerOutbox> m_serverOutbox = std::make_shared<ServerOutbox>();
    QUrl m_url;
    QUrl m_operatorUrl;
    // callLocally()'s sessions until their call ends, with where their answer goes; server thread
    QHash<McpSession*, std::shared_ptr<ResponseChannel>> m_localSessions;
    quint64 m_nextRequestId = 1;
    bool m_running = false;
    const std::shared_ptr<ClientTokens> m_clientTokens
        = std::make_shared<ClientTokens>(ClientTokens::defaultPath(m_options.stateDirectory));
    // Client-token commands run one at a time on a thread of their own (a WorkerPool, which
    // ThreadSanitizer can follow). They tell through the outbox, which names this object until it
    // goes: a command still running then tells no one, and one not yet started does nothing. Neither
    // waits for the other: a command may wait seconds for the file's lock.
    struct ClientTokenOutbox
    {
        explicit ClientTokenOutbox(Backend* owner)
            : backend(owner)
        {}
        std::mutex mutex;
        Backend* backend; // null once it is going
    };
    struct ClientTokenWork
    {
        std::shared_ptr<ClientTokenOutbox> outbox;
        WorkerPool pool{1, QByteArrayLiteral("client-tokens")};
        ~ClientTokenWork(); // empties the outbox, then lets the pool go
    };
    // Last, so destroyed first, while everything else is still there.
    ClientTokenWork m_clientTokenWork{std::make_shared<ClientTokenOutbox>(this)};
};
