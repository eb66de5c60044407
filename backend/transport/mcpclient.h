#pragma once

// McpClient: one connection to an upstream MCP server over Streamable HTTP (QNetworkAccessManager),
// in whichever protocol era the upstream speaks. With Settings::negotiateModern it first probes with
// server/discover (a 2026-07-28 request); an upstream that lists 2026-07-28 among its supportedVersions is spoken to
// statelessly (no initialize, no session: every request carries MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
// x-mcp-header arguments as Mcp-Param-* headers, and the per-request envelope in `_meta`); any other answer that is not
// a failure of the upstream (HTTP 400, 404, 405, a JSON-RPC error, a result without 2026-07-28) falls back to the 2025
// handshake, which then goes on exactly as below.
//
// 2025: initialize and the session id, JSON and SSE responses, tools/list across pages, tools/call
// with the upstream's progress handed on and notifications/cancelled sent when the caller cancels.
// A session the upstream forgot (a restart, an expiry: HTTP 404, HTTP 400 saying the session is not
// valid, or a JSON-RPC error saying so, on a request carrying the id) is initialized again and the
// request sent once more, since it did not run; a request that reached no upstream at all (refused,
// reset before an answer) forgets the session, so the next one starts a new session rather than
// learn from a refusal that the upstream restarted. A dropped SSE response stream is resumed with
// GET and Last-Event-ID after the server's `retry` delay. Requests the upstream sends during a call
// (elicitation/create, sampling/createMessage, ping) go to the call's ServerRequestHandler; while
// one waits for its answer (a person answering), the call's timeout is stopped. Each session with an upstream
// that offers tools.listChanged also listens on its standalone GET stream for what belongs to no
// call (tools/list_changed, pings), unless the upstream answers 405. With negotiateModern, a 2025
// request (initialize included) refused with UnsupportedProtocolVersion naming 2026-07-28 (a newer
// program answers the endpoint now) probes again and goes once more in the era found.
//
// 2026-07-28: results are read by their resultType. input_required (multi round-trip requests)
// hands each input request to the call's ServerRequestHandler, as a 2025 upstream's own request
// would be, and retries the call with the answers and the requestState as sent. A call answered
// with a task (the Tasks extension, declared on every tools/call) is polled with tasks/get at the
// task's pollIntervalMs (within Settings' bounds) until it completes, fails or is cancelled; its
// input_required status is answered with tasks/update; cancelling the call, or its deadline, sends
// tasks/cancel. Cancelling a call that is no task closes its response stream, which is how this
// revision cancels. tools/list is cached for the ttlMs the upstream gives (bounded), and tools whose
// x-mcp-header annotations are invalid are left out of it, as the revision requires of an HTTP
// client. An upstream that offers tools.listChanged is listened to with subscriptions/listen,
// reopened with the same backoff as the 2025 GET stream. UnsupportedProtocolVersion on a request
// renegotiates from its data.supported (once); HeaderMismatch (-32020) is a defect in this client
// and reported as one, except that a tools/call refused over its Mcp-Param-* headers lists the
// tools again and is sent once more, as the revision asks. A request that reached no upstream at
// all makes the next one probe again (the upstream may come back as another program), and so does a
// refusal in the legacy error range (-32000 to -32019), which no 2026 server uses: the request,
// which did not run, is sent once more in whatever era the probe finds.
//
// It sends the adapter's own credential (Settings::bearerToken), never anything of the client that asked.
//
// Lives on one thread (the backend thread); every callback runs there. Nothing blocks: each
// operation answers through its callback exactly once (unless the client is destroyed first, when
// no callback runs). Every response body, SSE event and tool list is bounded by Settings, and so
// are input rounds and task polling.

#include <QObject>
#include <QString>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QNetworkAccessManager;

class McpClient : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        QUrl endpoint; // http(s)://host:port/path of the upstream's MCP endpoint
        QByteArray bearerToken; // sent as Authorization: Bearer; empty sends none
        qint64 requestTimeoutMs = 30'000; // one request, from sending to its final response
        QString clientName = QStringLiteral("switchboard");
        QString clientVersion;
        qint64 maxResponseBytes = 16 * 1024 * 1024; // a JSON body or one SSE event
        int maxToolPages = 100;
        int maxTools = 5'000;
        int maxSseResumes = 5; // resumptions of one dropped stream before giving up
        qint64 defaultSseRetryMs = 1'000; // when the server sent no `retry`
        // Open the GET stream after initialize, for notifications the upstream sends outside calls
        // (when its capabilities promise tools.listChanged; otherwise it has nothing this client
        // acts on to send there). It is reopened after a backoff (the server's `retry`, else defaultSseRetryMs,
        // doubling up to maxListenRetryMs) with Last-Event-ID; a 405 or 404 means none for this session.
        bool listenForNotifications = true;
        qint64 maxListenRetryMs = 30'000;
        // Probe with server/discover and speak 2026-07-28 to an upstream that offers it. Off by
        // default: the 2025 handshake only, as before 2026-07-28 existed, for the tests and tools
        // that speak to Switchboard itself as a 2025 client; adapters and the conformance client
        // turn it on.
        bool negotiateModern = false;
        // A 2026 task is polled at its pollIntervalMs, kept within these (defaultTaskPollMs when it
        // names none).
        qint64 minTaskPollMs = 50;
        qint64 maxTaskPollMs = 5'000;
        qint64 defaultTaskPollMs = 1'000;
        // A 2026 tools/list is reused for its ttlMs, at most this long; toolsListExpired comes no
        // sooner than minToolListRefreshMs (a short ttlMs must not become a poll).
        qint64 maxToolListCacheMs = 10 * 60'000;
        qint64 minToolListRefreshMs = 10'000;
        // input_required rounds of one call (and new input requests of one task) before it fails.
        int maxInputRounds = 8;
        // QNetworkAccessManagers the requests are spread over. Each opens at most six connections
        // to a host and has its own network thread, so one alone caps an adapter at six calls in
        // flight and one core's worth of HTTP parsing.
        int networkManagers = 3;
    };

    // Why an operation failed, as the circuit breaker tells failures apart.
    enum class FailureKind {
        Connection, // refused, reset, DNS, TLS, the stream dropped for good
        Timeout,
        ServerError, // HTTP 5xx
        Authentication, // HTTP 401 or 403
        HttpStatus, // any other unexpected HTTP status (4xx)
        Malformed, // not JSON, not JSON-RPC, no result and no error, too large
        Protocol, // a JSON-RPC error response (the upstream understood and refused)
        Cancelled, // the caller cancelled, or the client was shut down
    };

    struct Failure
    {
        FailureKind kind = FailureKind::Connection;
        int httpStatus = 0; // 0 when there was no HTTP response
        QString message; // for the operator and the calling model; no credential in it
        nlohmann::json rpcError; // Protocol: the JSON-RPC error object
    };

    // A request's outcome: the JSON-RPC result, or why there is none.
    struct Outcome
    {
        nlohmann::json result; // null on failure
        std::optional<Failure> failure;
        bool ok() const { return !failure.has_value(); }
    };

    // Which revision the upstream is spoken to in: not known before the first request, 2025
    // (initialize and a session) or 2026-07-28 (stateless).
    enum class Era { Unknown, Legacy, Modern };

    // initialize's result, or for a 2026 upstream what server/discover said (its serverInfo from the
    // result's _meta, or a top-level one as drafts of the revision had it).
    struct InitializeResult
    {
        QString protocolVersion;
        nlohmann::json serverInfo;
        nlohmann::json capabilities;
        QString instructions;
    };

    struct ToolList
    {
        std::vector<nlohmann::json> tools; // each as the upstream listed it
        bool truncated = false; // more than maxTools or maxToolPages
    };

    // A request the upstream sent on a call's stream (elicitation/create, sampling/createMessage);
    // the handler answers through `reply` once with a JSON-RPC result or an error object
    // ({"code", "message"}), now or later. Without a handler the client answers "method not found".
    // Until the handler answers, the call's timeout does not run (it may be asking a person): the
    // handler bounds its own wait and must answer in the end.
    using Reply = std::function<void(const nlohmann::json& result, const nlohmann::json& error)>;
    using ServerRequestHandler = std::function<void(const QString& method, const nlohmann::json& params, Reply reply)>;

    struct CallOptions
    {
        // Called with each notifications/progress params of the call (progressToken replaced by
        // the client's own); only when set is a progressToken sent upstream.
        std::function<void(const nlohmann::json& params)> progress;
        // notifications/message and other notifications sent on the call's stream.
        std::function<void(const QString& method, const nlohmann::json& params)> notification;
        ServerRequestHandler serverRequest;
        qint64 timeoutMs = 0; // 0: Settings::requestTimeoutMs
    };

    // A call in flight; cancel() aborts it, sends notifications/cancelled upstream, and the
    // completion runs with FailureKind::Cancelled. Does nothing once the call finished.
    class PendingCall
    {
    public:
        virtual ~PendingCall() = default;
        virtual void cancel(const QString& reason) = 0;
    };

    explicit McpClient(Settings settings, QObject* parent = nullptr);
    ~McpClient() override;

    const Settings& settings() const { return m_settings; }

    // Learns the upstream's era (server/discover) and, for a 2025 one, opens a session: initialize,
    // then notifications/initialized. Other operations call it first when there is neither.
    void initialize(std::function<void(const InitializeResult&, const std::optional<Failure>&)> done);
    bool isInitialized() const;
    QString sessionId() const; // empty for a 2026 upstream: it has no sessions
    Era era() const;
    QString protocolVersion() const; // the negotiated revision; empty before

    // Every page of tools/list. From a 2026 upstream the listing is reused while its ttlMs lasts
    // (until the upstream says the tools changed), and tools with an invalid x-mcp-header annotation
    // are left out (with a warning naming them).
    void listTools(std::function<void(const ToolList&, const std::optional<Failure>&)> done);

    // tools/call: the result is the upstream's CallToolResult as it sent it (isError included).
    std::shared_ptr<PendingCall> callTool(
        const QString& name, const nlohmann::json& arguments, CallOptions options, std::function<void(Outcome)> done);

    // Any other request (ping, …). (No default for `options`: GCC cannot use a nested struct's
    // member initializers in a default argument inside the enclosing class.)
    std::shared_ptr<PendingCall> request(
        const QString& method, const nlohmann::json& params, std::function<void(Outcome)> done, CallOptions options);

    // Ends the session (DELETE with the session id, not waited for), closes its GET stream and
    // fails every call in flight with Cancelled. closed() follows.
    void close();
    // Closes the GET stream and opens none again, in this session or a later one: for a client that
    // only finishes the calls it has in flight before it is closed (its adapter was reconfigured
    // or removed).
    void stopListening();
    // Operations (calls, listings, initialize) not finished yet.
    int operationsInFlight() const;

    // Human words for a failure kind ("connection error", "timeout", …).
    static QString failureKindName(FailureKind kind);

    // A value for Mcp-Name or an Mcp-Param-* header: as it is when it is visible ASCII and spaces
    // with no space at either end, else the Base64 sentinel `=?base64?…?=` of its UTF-8 (a tab
    // too, and a value that looks like a sentinel itself). ModernRequest::decodeHeaderValue reads it.
    static QByteArray headerValue(const std::string& value);
    // Why a tool's inputSchema cannot be called over 2026-07-28 HTTP (an x-mcp-header that is not
    // a non-empty RFC 9110 token, on a property that is not string, integer or boolean, not reached
    // through `properties` alone, or named twice ignoring case); nullopt when it can.
    static std::optional<QString> invalidParamHeaders(const nlohmann::json& inputSchema);
    // The Mcp-Param-{Name} headers a call with `arguments` carries for a tool with `inputSchema`:
    // one per x-mcp-header property whose argument is present and not null.
    static std::vector<std::pair<QByteArray, QByteArray>> paramHeaders(
        const nlohmann::json& inputSchema, const nlohmann::json& arguments);

Q_SIGNALS:
    // The upstream sent notifications/tools/list_changed (on a call's stream or the GET stream).
    void toolsListChanged();
    // The session id changed: a new session after initialize or after the upstream expired one;
    // for a 2026 upstream (empty id), the upstream was negotiated with anew (its tools may differ).
    void sessionChanged(const QString& sessionId);
    // The 2026 tools/list in the cache is older than the ttlMs the upstream gave it (only when that
    // was more than 0; at the soonest Settings::minToolListRefreshMs after the listing): listing
    // again fetches it anew.
    void toolsListExpired();
    // After close(): the upstream answered the DELETE that ended the session (or it failed, within
    // 5 s, or there was no session). Destroying the client before would cut the DELETE off.
    void closed();

private:
    class Private;
    Settings m_settings;
    std::unique_ptr<Private> d;
};
