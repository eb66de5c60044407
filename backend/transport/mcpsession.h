#pragma once

// McpSession: one client's MCP session: lifecycle (initialize, version negotiation), the JSON-RPC
// methods (ping, tools/list, tools/call, logging/setLevel), cancellation, and the ToolCall records
// of its calls. Knows nothing of HTTP; replies go to a ResponseChannel.

#include "auth/tokenredactor.h"
#include "interaction/requeststate.h"
#include "protocol/jsonrpc.h"
#include "protocol/loglevel.h"
#include "toolcall.h"
#include "transport/responsechannel.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

class BackendEvents;
class CallTimeline;
class HistoryFeed;
class InteractionBroker;
class OAuthConnects;
struct InteractionAnswer;
struct RegisteredTool;
class ToolCallContext;
struct ToolResult;
class ToolRegistry;
class ToolExecutor;
class ToolRouter;

struct ServerIdentity
{
    QString name = QStringLiteral("switchboard");
    QString title = QStringLiteral("Switchboard");
    QString version;
    QString instructions;

    // The MCP Implementation object: initialize's serverInfo, and a 2026-07-28 result's
    // _meta["io.modelcontextprotocol/serverInfo"].
    nlohmann::json toJson() const;
};

// What every session of one server shares.
struct SessionEnvironment
{
    const ToolRegistry* registry = nullptr;
    const ToolRouter* router = nullptr;
    ToolExecutor* executor = nullptr; // runs every admitted call (required)
    BackendEvents* events = nullptr;
    InteractionBroker* interactions = nullptr; // null: every tool runs at once (no approvals)
    // The requestState of input_required rounds (2026-07-28); null: questions are asked at the console.
    RequestStates* requestStates = nullptr;
    // The OAuth sign-ins of request_connection answered by the client's own user (input_required in
    // URL mode); null: such a connect question is asked at the console.
    OAuthConnects* oauthConnects = nullptr;
    HistoryFeed* history = nullptr; // null: calls never wait for history to catch up
    std::function<qint64()> nextCallId;
    TokenRedactor redactor; // keeps the bearer token out of call records (and so out of every sink)
    ServerIdentity identity;
    int toolsPageSize = 100;
    // A running call silent for this long gets a heartbeat (progress or an event-stream comment).
    int heartbeatIntervalMs = 5'000;
    std::function<qint64()> clock = [] { return QDateTime::currentMSecsSinceEpoch(); }; // ms, for activity times
};

class McpSession : public QObject
{
    Q_OBJECT
public:
    McpSession(QByteArray id, const SessionEnvironment* environment, QObject* parent = nullptr);
    ~McpSession() override;

    const QByteArray& id() const { return m_id; }
    const std::string& negotiatedVersion() const { return m_version; }
    const QString& clientName() const { return m_clientName; }
    const QString& clientVersion() const { return m_clientVersion; }
    bool isInitialized() const { return m_initialized; }
    qint64 lastActivityMs() const { return m_lastActivityMs; }
    // Calls in flight and calls waiting for room in history: a session with either is not idle.
    int inFlightCount() const { return int(m_inFlight.size() + m_heldForHistory.size()); }

    // Handles the initialize request that opens this session. On failure `response` holds the
    // error and the session must be discarded.
    bool initialize(const JsonRpc::Message& request, QByteArray* response);

    // A session for a caller inside this process (the one-shot runner), opened without initialize:
    // its client info, and the invocation metadata that caller verified, which every call of the
    // session carries (CallMetadata::invocation). Clients over HTTP can never set it.
    void setLocalCaller(const QString& clientName, const QString& clientVersion, nlohmann::json invocation);
    // A stateless (2026-07-28) request's session, for that request alone: its version and the client
    // as its envelope names it (`clientInfo` may be null), with no initialize. Its results carry
    // `resultType` and the server's identity in `_meta`, as that revision's results do.
    // `logLevel`: the request's own (a level's name); empty, it gets no log messages.
    void adoptEnvelope(const std::string& version, const nlohmann::json& clientInfo, const std::string& logLevel);
    bool isModern() const;
    // Who sent a stateless request (the identity tasks and requestState are bound to) and what its
    // client can do (its clientCapabilities, e.g. elicitation for input_required).
    void setCaller(const QString& identity, const nlohmann::json& clientCapabilities);
    const QString& identity() const { return m_identity; }
    // Whom this session's waiting connections and sessions count against: a named token's identity,
    // else the declared name.
    QString fairnessKey() const { return m_identity.startsWith(QLatin1String("token:")) ? m_identity : m_clientName; }
    // For a local caller making the console's own calls: every call of the session records
    // `replayOf` (ToolCall::replayOf), and `started` hears each call's id as soon as it has one.
    void setLocalCallHooks(qint64 replayOf, std::function<void(qint64 callId)> started);

    // Told when a call of this session starts waiting for a person (the question's id) and when it
    // stops (an empty id): how a 2026-07-28 call becomes a task whose status says what it waits on.
    void setWaitHook(std::function<void(qint64 callId, const QString& interactionId)> hook)
    {
        m_waitHook = std::move(hook);
    }
    // Where this session's calls ask their client's own user (ToolCallContext::askClient); unset,
    // they cannot.
    using ClientQuestionHook = std::function<bool(const QString& method, const nlohmann::json& params,
        std::function<void(const nlohmann::json&, const nlohmann::json&)> reply)>;
    void setClientQuestionHook(ClientQuestionHook hook) { m_clientQuestionHook = std::move(hook); }
    // The calls answering on `from` answer on `to` from now on (a call given a task handle: its
    // result goes to the task, not to the exchange that carried the handle).
    void replaceChannel(const ResponseChannel* from, const std::shared_ptr<ResponseChannel>& to);
    // Adds `entry` (a JSON-RPC notification's shape: method and params) to the timeline of the call
    // with this JSON-RPC id, while it is in flight: what happened to the call besides what was sent
    // on its stream (its task's life: created, handed out, polled, ended).
    void noteOnTimeline(const nlohmann::json& requestId, const nlohmann::json& entry);
    // The call with this JSON-RPC id, while it is in flight; 0 otherwise.
    qint64 callIdOf(const nlohmann::json& requestId) const;

    // Handles one message of a POST. `rawText` is the message's own text when the body was a single
    // message (it saves serialising it again); otherwise empty.
    void handleMessage(
        const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel);

    // The connection carrying `channel` closed: its calls are cancelled, except those waiting for a
    // person, whose questions stay open for the client's retry. Its calls still waiting for history
    // are cancelled too.
    void channelClosed(const ResponseChannel* channel);
    // The session ends (DELETE, eviction): every call in flight and every call waiting for history is
    // cancelled, and the questions its calls wait on are withdrawn.
    void terminate(const QString& reason);
    // The server stops: calls in flight and calls waiting for history are cancelled, but questions
    // stay pending for the restart.
    void shutDown();

    // When a batch holds a tools/call that would wait for a person, answers every request of it
    // with an error before any of it runs, and returns true.
    bool refuseBatchThatWouldPause(
        const std::vector<JsonRpc::Message>& messages, const std::shared_ptr<ResponseChannel>& channel);

    // The standalone GET stream for server-initiated notifications.
    void setNotificationStream(std::shared_ptr<ResponseChannel> stream);
    bool hasNotificationStream() const;
    void clearNotificationStream(const ResponseChannel* stream);
    void sendNotification(const nlohmann::json& notification);

private:
    struct InFlight
    {
        std::shared_ptr<ToolCallContext> context;
        std::shared_ptr<ResponseChannel> channel;
        nlohmann::json requestId;
        ToolCall record;
        QElapsedTimer timer;
        QString interactionId; // set while the call waits for a person
        // Time waiting for a person before the tool ran (an approval, a client tool's question):
        // the pauses that have ended, and the one going on (started while interactionId is set).
        qint64 waitedUs = 0;
        QElapsedTimer waitTimer;
        std::shared_ptr<const RegisteredTool> tool;
        std::shared_ptr<CallTimeline> timeline; // what was sent about the call (shared with its notify hook)
        // A 2026-07-28 retry of an input_required call: the answers and the state, as sent.
        nlohmann::json inputResponses;
        QByteArray requestState;
    };

    enum class QuestionFate {
        Withdraw, // the call was cancelled or its session deleted
        Keep, // the server stops: the question stays pending across the restart
    };

    // The server stops: the call ends with a tool error saying so (its question stays pending).
    void endAtShutdown(const std::string& key);
    void reply(const std::shared_ptr<ResponseChannel>& channel, const nlohmann::json& response);
    nlohmann::json handleToolsList(const JsonRpc::Message& message);
    void handleToolsCall(
        const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel);
    void holdForHistory(
        const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel);
    void resumeHeldCalls();
    void askForRoom();
    // Ends the calls waiting for history (those of `channel`, or all when it is null): they never
    // ran, and each is recorded as cancelled with `reason` and its response skipped, as a call in
    // flight that is cancelled would be.
    void cancelHeldCalls(const QString& reason, const ResponseChannel* channel = nullptr);
    struct HeldCall;
    void cancelHeldCall(const HeldCall& held, const QString& reason);
    // Sets the record's duration and the part of it spent waiting for a person (before the tool
    // ran, and while the running tool waited on one), as the call ends.
    static void recordTimes(InFlight& entry);
    // Sends a finished call's response `bytes` and publishes its record (status already set).
    void sendFinalResponse(InFlight& entry, const QByteArray& bytes);
    ToolCall newRecord(
        const JsonRpc::Message& message, const QByteArray& rawText, const QString& tool, const ToolRoute& route);
    // The details the call's tool attached, as the record keeps them (compact JSON, redacted).
    QByteArray detailsOf(const ToolCallContext& context) const;
    QByteArray timelineOf(const InFlight& entry) const;
    // `status` says why the call was refused (UnknownTool, InvalidArguments, or Error for a malformed request).
    // A result as this session's revision shapes it (2026-07-28: resultType, the server in _meta).
    nlohmann::json resultOfThisEra(nlohmann::json result) const;
    void rejectCall(const JsonRpc::Message& message, ToolCall record, CallStatus status, int code, const QString& text,
        const std::shared_ptr<ResponseChannel>& channel, nlohmann::json data = nullptr);
    void completeCall(const std::string& key, ToolResult result);
    // Ends a call with this response (a result that is not a CallToolResult, or a JSON-RPC error).
    void endCall(const std::string& key, const nlohmann::json& response, CallStatus status, const QString& note);
    // A client tool answered by the client's own user, for a client that can be asked (elicitation):
    // asks (input_required), answers from a retry's inputResponses, or refuses a bad requestState.
    // False when the question goes to the console instead.
    bool runInputRound(const std::string& key);
    // Ends the call with input_required: `request` (an elicitation/create's params) under
    // `inputKey`, and a requestState for the retry, noted on the timeline; false, with nothing sent,
    // when no state can be given (too many answered states remembered). `onIssued` runs once the
    // state is given, before the answer goes out.
    bool askThroughInputRequired(const std::string& key, const QString& tool, const QByteArray& argumentsDigest,
        int round, const char* inputKey, const nlohmann::json& request, const QString& note,
        const std::function<void()>& onIssued = {});
    // The retry's requestState, verified for this call: its claims; or, when it is refused, the call
    // ends with -32602 and the reason (and its timeline says so), and nullopt.
    std::optional<RequestStates::Claims> checkedRequestState(
        const std::string& key, const QString& tool, const QByteArray& argumentsDigest);
    // runInputRound for a connect question: an OAuth sign-in the client's user runs (URL mode).
    bool runConnectRound(const std::string& key);
    // A retry's sign-in (filed under `flowCall`) ended or was waited for long enough: the call ends
    // with the connect result, or with another round of the same URL. `consume` spends the state.
    void settleConnectRound(const std::string& key, qint64 flowCall, int round, const std::function<void()>& consume);
    void cancelCall(const std::string& key, const QString& reason, QuestionFate fate = QuestionFate::Withdraw);
    void admitCall(const std::string& key);
    void resumeCall(const std::string& key, const InteractionAnswer& answer, const QByteArray& decision);
    void timeOutCall(const std::string& key);
    void leaveWaiting(const std::string& key, const QString& why);
    QString stopWaiting(InFlight& entry);
    void tickWaitingCalls();
    // The timelines of calls still in flight that changed since the last time, published with their
    // calls (a few times a second at most), so the inspector shows a call's progress as it runs.
    void publishChangedTimelines();
    void beatRunningCalls();
    // Starts the heartbeat when a call is still running after its tool was started.
    void watchRunning(const std::string& key);
    void execute(const std::string& key);
    void handleNotification(const JsonRpc::Message& message);
    void touch();
    // JSON text, and `record`'s response and error, without the invocation metadata's values.
    QByteArray withoutInvocation(QByteArray jsonText) const;
    void withholdInvocation(ToolCall& record) const;

    QByteArray m_id;
    const SessionEnvironment* m_environment;
    std::string m_version;
    QString m_clientName;
    QString m_clientVersion;
    nlohmann::json m_invocation; // setLocalCaller's; null for clients over HTTP
    // Its string values, each redacted from what a call's record keeps of the tool's output (a
    // command that prints its envelope back): the invocation never reaches history.
    std::vector<TokenRedactor> m_invocationValues;
    qint64 m_replayOf = 0; // setLocalCallHooks's
    std::function<void(qint64)> m_callStarted;
    std::function<void(qint64, const QString&)> m_waitHook;
    ClientQuestionHook m_clientQuestionHook;
    bool m_initialized = false;
    LogLevel m_logLevel = LogLevel::Info;
    bool m_logsWanted = true; // a 2026-07-28 request without a log level wants none
    QString m_identity; // setCaller's
    nlohmann::json m_clientCapabilities = nlohmann::json::object();
    qint64 m_lastActivityMs = 0;
    std::unordered_map<std::string, InFlight> m_inFlight; // key: the request id as JSON text
    struct HeldCall
    {
        nlohmann::json document; // the tools/call request
        QByteArray rawText;
        std::shared_ptr<ResponseChannel> channel;
        qint64 arrivedAtMs = 0; // wall clock, for the record of a call that ends before it starts
        QElapsedTimer waited;
    };
    std::deque<HeldCall> m_heldForHistory; // tools/call requests waiting for room in history, oldest first
    bool m_roomAsked = false; // the history feed will call resumeHeldCalls once it has room
    std::shared_ptr<ResponseChannel> m_notificationStream;
    QTimer m_waitTicker; // progress for calls that wait for a person
    QTimer m_heartbeat; // keeps the connections of long-running calls alive
    int m_waitingCount = 0;
    std::unordered_set<std::string> m_timelineChanged; // keys of calls in flight
    QTimer m_timelinePublisher;
};
