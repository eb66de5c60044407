#pragma once

// McpClient: one connection to an upstream MCP server over Streamable HTTP (QNetworkAccessManager):
// initialize and the session id, JSON and SSE responses, tools/list across pages, tools/call with
// the upstream's progress handed on and notifications/cancelled sent when the caller cancels. A
// session the upstream forgot (a restart, an expiry: HTTP 404, HTTP 400 saying the session is not
// valid, or a JSON-RPC error saying so, on a request carrying the id) is initialized again and the
// request sent once more, since it did not run; a request that reached no upstream at all (refused,
// reset before an answer) forgets the session, so the next one starts a new session rather than
// learn from a refusal that the upstream restarted. A dropped SSE response stream is resumed with
// GET and Last-Event-ID after the server's `retry` delay. Requests the upstream sends during a call
// (elicitation/create, sampling/createMessage, ping) go to the call's ServerRequestHandler; while
// one waits for its answer (a person answering), the call's timeout is stopped. Each session with an upstream
// that offers tools.listChanged also listens on its standalone GET stream for what belongs to no
// call (tools/list_changed, pings), unless the upstream answers 405. It sends the adapter's own credential
// (Settings::bearerToken), never anything of the client that asked.
//
// Lives on one thread (the backend thread); every callback runs there. Nothing blocks: each
// operation answers through its callback exactly once (unless the client is destroyed first, when
// no callback runs). Every response body, SSE event and tool list is bounded by Settings.

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

    // Opens a session: initialize, then notifications/initialized. Other operations call it
    // first when there is no session.
    void initialize(std::function<void(const InitializeResult&, const std::optional<Failure>&)> done);
    bool isInitialized() const;
    QString sessionId() const;

    // Every page of tools/list.
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

Q_SIGNALS:
    // The upstream sent notifications/tools/list_changed (on a call's stream or the GET stream).
    void toolsListChanged();
    // The session id changed: a new session after initialize or after the upstream expired one.
    void sessionChanged(const QString& sessionId);
    // After close(): the upstream answered the DELETE that ended the session (or it failed, within
    // 5 s, or there was no session). Destroying the client before would cut the DELETE off.
    void closed();

private:
    class Private;
    Settings m_settings;
    std::unique_ptr<Private> d;
};
