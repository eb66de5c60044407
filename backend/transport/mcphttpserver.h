#pragma once

// McpHttpServer: the MCP Streamable HTTP transport on Qt HttpServer. One endpoint, /mcp:
// POST carries JSON-RPC messages (answered as JSON, or as an event stream when a call sends
// notifications before its result), GET opens the session's notification stream, DELETE ends a
// session. Guards the endpoint: Host and Origin against DNS rebinding, the bearer token, content
// negotiation, body limits, session rules and protocol versions. Lives on the backend thread.

#include "sessionstates.h"
#include "transport/mcpserveroptions.h"
#include "transport/mcpsession.h"
#include "transport/sessionhost.h"

#include <QAbstractHttpServer>
#include <QHash>
#include <QHostAddress>
#include <QHttpServerResponder>
#include <QPointer>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>
#include <unordered_map>

class BackendEvents;
class GuardedTcpServer;
class ToolRegistry;
class ToolRouter;

class InteractionBroker;
class OperatorEndpoint;
class RequestStates;
class TaskHost;
struct TaskRecord;

class McpHttpServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    McpHttpServer(McpServerOptions options, ToolRegistry* registry, BackendEvents* events, qint64 firstCallId,
        QObject* parent = nullptr);
    ~McpHttpServer() override;

    // Binds the listening socket. On failure returns false with a reason.
    bool listen(QString* error);
    quint16 port() const { return m_port; }
    // The operator API's own port (McpServerOptions::operatorPort), 0 when it shares port().
    quint16 operatorPort() const { return m_operatorPort; }
    QUrl url() const;
    int sessionCount() const { return int(m_sessions.size()); }
    // Stateless (2026-07-28) requests in flight, each with a session of its own until answered.
    int requestSessionCount() const;
    // The calls of 2026-07-28 clients that declared the Tasks extension (null without a broker,
    // until listen()).
    const TaskHost* tasks() const { return m_tasks; }
    // Open subscriptions/listen streams.
    int listenStreamCount() const { return int(m_listenStreams.size()); }
    // Calls that wait for a person go through `broker` (approvals, client tools); without one every
    // tool runs at once. Set before listening.
    void setInteractionBroker(InteractionBroker* broker) { m_host.setInteractionBroker(broker); }
    // While `feed` says history has no room, new tools/call requests wait (back-pressure). Set before
    // listening.
    void setHistoryFeed(HistoryFeed* feed) { m_host.setHistoryFeed(feed); }

    // The operator API on this listener (null: /operator/ answers 404). Set before listening; it
    // must outlive this server.
    void setOperatorEndpoint(OperatorEndpoint* endpoint) { m_operator = endpoint; }

    // What the sessions share: also where callers inside the process open local sessions.
    SessionHost& host() { return m_host; }

    // Sends a notification to every session's notification stream (e.g. tools/list_changed).
    void broadcast(const nlohmann::json& notification);
    // The open client sessions, for the operator.
    SessionStateList sessionStates() const;
    // The operator ends a session: it is deleted as a client's DELETE would (its calls cancelled, the
    // questions they wait on withdrawn), and its next request is answered 404. False when there is
    // no such session.
    bool endSession(const QByteArray& id);
    // Ends every session (cancelling what is in flight) and closes every connection.
    void shutdown();

Q_SIGNALS:
    void sessionsChanged(int count);

protected:
    bool handleRequest(const QHttpServerRequest& request, QTcpSocket* socket) override;
    void missingHandler(const QHttpServerRequest& request, QTcpSocket* socket) override;

private:
    class PostExchange;
    class EventStream;
    friend class PostExchange;
    friend class EventStream;
    using Headers = std::vector<std::pair<QByteArray, QByteArray>>;

    void handleRequestOf(const QHttpServerRequest& request, QTcpSocket* socket);

    void handlePost(
        const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers);
    void handleGet(
        const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers);
    void handleDelete(const QHttpServerRequest& request, QHttpServerResponder& responder, Headers& headers);
    // A stateless 2026-07-28 POST (ModernRequest::isModern): checked, then answered by
    // server/discover or by a session of its own that lasts as long as the request.
    void handleModernPost(const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder,
        Headers& headers, const std::vector<JsonRpc::Message>& messages, const QByteArray& body, bool batch);
    nlohmann::json discoverResult() const;
    // tasks/get, tasks/update, tasks/cancel.
    void handleTaskRequest(QHttpServerResponder& responder, const Headers& headers, const JsonRpc::Message& message,
        const nlohmann::json& clientCapabilities, const QString& identity);
    // A task changed: the listen streams that asked for it hear its state.
    void tellListeners(const TaskRecord& task);
    // The identity a request's tasks and input_required rounds belong to: "token:<name>" for a named
    // client token; under the shared token "declared:<clientInfo.name>" (it keeps clients apart; it
    // is no proof of who they are).
    QString identityOf(const QHttpServerRequest& request, const nlohmann::json& clientInfo) const;

    // Looks up the request's session; answers 400/404 itself and returns null when there is none.
    // The refusal carries `requestId`, the id of the request the body holds when it could be read.
    McpSession* sessionFor(const QHttpServerRequest& request, QHttpServerResponder& responder, const Headers& headers,
        const nlohmann::json& requestId = nullptr);
    McpSession* createSession(const QString& clientName, QByteArray* evictionError);
    void removeSession(const QByteArray& id, const QString& reason);

    // `localPort`: the port the request came to (the MCP listener's or the operator API's).
    bool isAllowedHost(const QByteArray& hostHeader, quint16 localPort) const;
    // A listening socket on `port` (0: a free one) bound to this server; null, saying why, when it cannot.
    GuardedTcpServer* openListener(quint16 port, QString* error);
    bool isAllowedOrigin(const QByteArray& origin) const;
    bool isAuthorized(QByteArrayView authorization) const;
    // An operator API request that passed the Host check: refused at the door (Origin, token) or
    // handed to the endpoint.
    void handleOperatorRequest(
        const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers);
    // A request refused at the door, told to the operator (never with the token it carried).
    void recordRefusal(SecurityEventKind kind, const QHttpServerRequest& request, const QTcpSocket* socket,
        const QString& detail) const;
    void recordRefusal(SecurityEventKind kind, const QString& peer, const QString& path, const QString& detail) const;
    // Whether `session`'s client may hold one more connection open waiting for an answer; if not,
    // answers 503 itself.
    bool roomToWait(
        const McpSession& session, QHttpServerResponder& responder, const Headers& headers, const nlohmann::json& id);
    bool roomToWait(
        const QString& clientName, QHttpServerResponder& responder, const Headers& headers, const nlohmann::json& id);
    // subscriptions/listen (2026-07-28): an event stream that hears the changes its filter asks for.
    void listen(QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers, const JsonRpc::Message& request,
        const QString& clientName, const nlohmann::json& clientCapabilities, const QString& identity);
    // The session's state for the operator changed (opened, used, ended).
    void publishSessionState(const QByteArray& id);

    static void writeError(QHttpServerResponder& responder, QHttpServerResponder::StatusCode status, int code,
        const std::string& message, const Headers& headers, const nlohmann::json& id = nullptr,
        nlohmann::json data = nullptr);

    McpServerOptions m_options;
    ToolRegistry* m_registry;
    SessionHost m_host; // before the sessions, which use its environment
    SessionEnvironment& m_environment; // m_host's
    quint16 m_port = 0;
    quint16 m_operatorPort = 0; // the operator API's own listener (--operator-port); 0: it shares m_port
    QPointer<GuardedTcpServer> m_operatorTcpServer;
    QPointer<GuardedTcpServer> m_tcpServer;
    OperatorEndpoint* m_operator = nullptr;
    struct ByteArrayHash
    {
        std::size_t operator()(const QByteArray& bytes) const { return qHash(bytes); }
    };
    std::unordered_map<QByteArray, std::unique_ptr<McpSession>, ByteArrayHash> m_sessions;
    QHash<QByteArray, SessionState> m_sessionStates; // of m_sessions, as the operator sees them
    // The sessions of stateless requests in flight, each gone once its request is answered.
    std::unordered_map<QByteArray, std::unique_ptr<McpSession>, ByteArrayHash> m_requestSessions;
    // The open subscriptions/listen streams, by a key of their own.
    struct ListenStream
    {
        std::shared_ptr<EventStream> stream;
        nlohmann::json subscriptionId; // the listen request's id
        bool toolsListChanged = false;
        QStringList taskIds; // the tasks it hears about (its client's own)
    };
    std::unordered_map<quint64, ListenStream> m_listenStreams;
    quint64 m_nextListenKey = 0;
    TaskHost* m_tasks = nullptr; // a child; from listen() when there is a broker
    std::unique_ptr<RequestStates> m_requestStates; // from listen() when there is a broker
};
