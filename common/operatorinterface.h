#pragma once

// OperatorInterface: everything the console may ask of a backend and everything it hears back, and
// nothing more. Backend implements it in-process; a console attached to a remote headless backend
// would implement it over the network; the GUI tests drive the window through a test double. The
// window, its dialogs and the models depend on this interface and the value types beside it, never
// on the server.
//
// Every command is asynchronous and never blocks the caller: answers, refusals and state arrive as
// signals on the caller's thread.

#include "backendstates.h"
#include "clienttokeninfo.h"
#include "historyquery.h"
#include "pendinginteraction.h"
#include "permissionentry.h"
#include "renderhint.h"
#include "sessionstates.h"
#include "toolcall.h"
#include "toolinfo.h"

#include <QObject>
#include <QStringList>
#include <QUrl>

class OperatorInterface : public QObject
{
    Q_OBJECT
public:
    explicit OperatorInterface(QObject* parent = nullptr);
    ~OperatorInterface() override;

    // What clients need to connect, for the window to show and copy.
    virtual QUrl serverUrl() const = 0;
    virtual bool requiresToken() const = 0;
    virtual QByteArray token() const = 0;
    // Where secrets entered at the console are kept (the desktop keychain, or the owner-only file).
    virtual QString secretStorage() const = 0;
    // The backend's name for a person (host and port of an attached one); empty for the backend in
    // this process.
    virtual QString backendName() const { return {}; }
    // Whether what the window shows is live: always for the backend in this process; an attached
    // one says so with backendConnectionChanged.
    virtual bool isBackendConnected() const { return true; }

    // Several backends in one window (FleetOperator): the names of those held, in the order they were
    // added; empty for a window on one backend that names none. Rows, questions and states then
    // carry their backend's name (ToolCall::backend and the others), and commands about them go to it.
    virtual QStringList backendNames() const { return {}; }
    // Why the named backend is not live now (lost, not reached yet); empty when it is.
    virtual QString backendProblem(const QString& name) const;
    // File ▸ Attach…: whether more backends can be added at run time, and adding one (its operator
    // API's URL, an operator token, a PEM file of certificates to trust beside the system's or empty);
    // the outcome arrives as backendsChanged and backendConnectionChanged, a refusal as commandFailed
    // "attachBackend". Detaching one stops following it and takes its questions, sessions and grants
    // out of the window (commandFailed "detachBackend" for one that cannot be detached). Either
    // renumbers the calls: a window reloads its log on backendsChanged.
    virtual bool canAttachBackends() const { return false; }
    virtual void attachBackend(const QUrl& url, const QByteArray& token, const QString& caFile);
    virtual void detachBackend(const QString& name);

    // History: the answer comes as historyLoaded with the returned request id. `bodyPreviewBytes`
    // > 0 reads only that much of each request and response.
    virtual quint64 loadRecentCalls(int limit, qsizetype bodyPreviewBytes = 0) = 0;
    virtual quint64 queryHistory(const HistoryQuery& query) = 0;
    // How many stored calls match (its limit aside): the answer comes as historyCounted, -1 when
    // there is no history to read.
    virtual quint64 countHistory(const HistoryQuery& query) = 0;

    // Questions: the pending list arrives as interactionsListed; a refused answer as
    // interactionAnswerFailed.
    virtual void listInteractions() = 0;
    virtual void answerInteraction(const QString& interactionId, const InteractionAnswer& answer) = 0;
    // Connect answers: the secret goes to the backend's secret store and never back; failures come
    // as connectFailed and leave the question open.
    virtual void connectWithApiKey(
        const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey)
        = 0;
    // The sign-in page to open arrives as oauthAuthorizationUrl.
    virtual void startOAuth(const QString& interactionId, const QString& provider, const QStringList& scopes) = 0;
    virtual void cancelOAuth(const QString& interactionId) = 0;

    // Upstream adapters and repositories. A backend without them answers with commandFailed.
    virtual void resetBreaker(const QString& adapter);
    virtual void forceOpenBreaker(const QString& adapter);
    // Disabled, an adapter offers no tools and refuses its calls until enabled again; the choice
    // outlives a configuration reload (not a restart). Its state arrives with adapterStatusesChanged.
    virtual void setAdapterEnabled(const QString& adapter, bool enabled);
    // Reads the configuration file again; the outcome arrives as configurationReloaded.
    virtual void reloadConfiguration();
    virtual void refreshRepository(const QString& path);
    // The repository view: adds a repository under an allowed root to those shown (its state
    // arrives with repositoryStatesChanged, a refusal as commandFailed "addRepository"), stops
    // showing one (repositoryRemoved), and loads one file's diff (fileDiffLoaded).
    virtual void addRepository(const QString& path);
    virtual void removeRepository(const QString& path);
    virtual void loadFileDiff(const QString& repositoryPath, const QString& file);

    // Permissions: every configured rule and every grant (standing and for a session) arrives as
    // grantsListed, and again as grantsChanged whenever a grant is given, revoked or ends with its
    // session. Revoking a grant makes the next call it let through ask again; an unknown id (revoked
    // already, its session ended) comes back as commandFailed "revokeGrant". Configuration rules
    // have no id: they change only in the configuration file.
    virtual void listGrants();
    virtual void revokeGrant(const QString& grantId);

    // Client sessions: the open ones arrive as sessionsListed, later changes as sessionStatesChanged.
    // Ending one deletes it on the server (its calls in flight are cancelled); the client's next
    // request with that session id is answered 404, as the MCP spec has it, and it may initialize
    // again. An unknown session comes back as commandFailed "endSession".
    virtual void listSessions();
    virtual void endSession(const QString& sessionId);

    // The console's own calls (replay, edit and resend, the Tools view): `tool` with `arguments`
    // (JSON text, normally an object) through the same router, permissions, argument validation,
    // executor and history as a client's call, recorded as client consoleClientName() and
    // ToolCall::replayOf set to `replayOf` (0 when it replays nothing). Returns a request id: the
    // new call's id arrives as toolCallStarted, a call that could not start as commandFailed
    // "callTool". A call that needs a person waits in the Questions dock like any other.
    virtual quint64 callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf = 0);
    // The tools offered now arrive as toolsListed; toolsChanged says when to ask again.
    virtual void listTools();
    static QString consoleClientName();

    // Named client tokens, each its client's identity (the shared token() keeps working beside them):
    // the live ones arrive as clientTokensListed, and again after every issue and revoke. A new
    // token arrives once as clientTokenIssued, its only showing; a revoked one as clientTokenRevoked
    // (its client's next request is refused). Refusals (a name taken or not allowed, no such token,
    // a token file that cannot be used) come as commandFailed "issueClientToken" or
    // "revokeClientToken". A backend without them answers with commandFailed.
    virtual void listClientTokens();
    virtual void issueClientToken(const QString& name);
    virtual void revokeClientToken(const QString& name);

Q_SIGNALS:
    // Calls: the newest state of every call that started or changed since the previous batch, a few
    // dozen batches a second at most.
    void callsUpdated(const ToolCallList& calls);
    void sessionsChanged(int count);

    void historyLoaded(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void historyCounted(quint64 requestId, qint64 count);
    // The oldest stored calls went (beyond the history's bounds): `total` over the writer's life.
    void historyPruned(qint64 total);
    // History could not be written (the disk failed); unwritten calls are kept and retried.
    void historyWriteFailed(const QString& error);
    void historyWriteRecovered();
    // The exact number of calls left out of history because the disk failed, over its life.
    void historyCallsLeftOut(qint64 total);
    // Something about history the operator should read.
    void historyNotice(const QString& message);

    void interactionsListed(const PendingInteractionList& interactions);
    void interactionPending(const PendingInteraction& interaction);
    void interactionChanged(const PendingInteraction& interaction);
    void interactionResolved(const QString& interactionId, InteractionOutcome outcome);
    void interactionAnswerFailed(const QString& interactionId, const QString& error);
    void oauthAuthorizationUrl(const QString& interactionId, const QUrl& url);
    void connectFailed(const QString& interactionId, const QString& message);

    // The workspace state could not be written (retried), or could not be read and not be moved
    // aside either (nothing is saved).
    void workspaceStateProblem(const QString& message);
    // At start: an unreadable workspace state was set aside; the console starts clean.
    void workspaceStateNotice(const QString& message);
    void workspaceStateRecovered();

    // Newest states, each coalesced per key (adapter, path, transfer id).
    void breakerStatesChanged(const BreakerStateList& states);
    void adapterStatusesChanged(const AdapterStatusList& statuses);
    void repositoryStatesChanged(const RepositoryStateList& states);
    void transfersChanged(const TransferProgressList& transfers);
    void repositoryRemoved(const QString& path);
    void fileDiffLoaded(const FileDiff& diff);

    // Every open client session (the answer to listSessions), then the newest state of each session
    // that opened, changed or ended since the previous batch (an ended one has `ended` set).
    void sessionsListed(const SessionStateList& sessions);
    void sessionStatesChanged(const SessionStateList& sessions);
    // Requests refused at the server's door (token, Origin, Host) since the previous batch, oldest
    // first; a flood is cut to the newest few hundred per batch.
    void securityEventsRecorded(const SecurityEventList& events);

    void grantsListed(const PermissionEntryList& entries);
    void grantsChanged(const PermissionEntryList& entries);

    // The configuration was read again (the file changed or reloadConfiguration was asked): `ok`
    // false keeps the previous configuration in force and `message` says why (file, line, key).
    void configurationReloaded(bool ok, const QString& message);

    // callTool's call has started as call `callId` (it shows in the log with that id).
    void toolCallStarted(quint64 requestId, qint64 callId);
    void toolsListed(const ToolInfoList& tools);
    // The tools offered changed (configuration reloaded, an adapter connected or went away).
    void toolsChanged();

    // The named client tokens, oldest first; `problem` says why none of them is accepted now (their
    // file cannot be used), empty when they are.
    void clientTokensListed(const ClientTokenInfoList& tokens, const QString& problem);
    void clientTokenIssued(const QString& name, const QByteArray& token);
    void clientTokenRevoked(const QString& name);

    // An attached backend was reached (its whole state follows as the signals above: questions listed,
    // sessions listed, the states of adapters, breakers, repositories and transfers, grants listed,
    // the recent calls) or lost (`message` says why; what the window shows is as of then, not live).
    void backendConnectionChanged(bool connected, const QString& message);
    // A backend was added to the window or taken out of it (backendNames() changed).
    void backendsChanged();

    // A command this backend could not carry out (`command` is its name, e.g. "resetBreaker").
    void commandFailed(const QString& command, const QString& message);
};
