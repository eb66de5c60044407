#include "transport/mcphttpserver.h"

#include "auth/bearertoken.h"
#include "auth/clienttokens.h"
#include "events/backendevents.h"
#include "interaction/interactionbroker.h"
#include "interaction/requeststate.h"
#include "interaction/taskstore.h"
#include "protocol/modernrequest.h"
#include "protocol/protocolversion.h"
#include "tools/toolexecutor.h"
#include "tools/toolregistry.h"
#include "tools/toolrouter.h"
#include "transport/guardedtcpserver.h"
#include "transport/httpconnectionguard.h"
#include "transport/httpresponses.h"
#include "transport/operatorendpoint.h"
#include "transport/printabletext.h"
#include "transport/taskhost.h"

#include <QHttpServerRequest>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <optional>

using nlohmann::json;
using StatusCode = QHttpServerResponder::StatusCode;
using HttpResponses::chunk;
using HttpResponses::sendNow;
using HttpResponses::writeEventStreamHead;
using HttpResponses::writeReply;

namespace {

constexpr int SessionErrorCode = -32000; // Bad Request: session or header problems
constexpr int SessionNotFoundCode = -32001; // the session is unknown or was deleted
constexpr int UnauthorizedCode = -32002;
constexpr int SessionsRetryAfterSeconds = 5; // sessions end (DELETE, the operator) less often than calls do

// 32 bytes (256 bits) from the operating system's CSPRNG, as base64url: visible ASCII only.
QByteArray newSessionId()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return QByteArray(reinterpret_cast<const char*>(words.data()), qsizetype(sizeof(words)))
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// "application/json; charset=utf-8" → "application/json"
QByteArray mediaType(const QByteArray& headerValue)
{
    const qsizetype semicolon = headerValue.indexOf(';');
    return (semicolon < 0 ? headerValue : headerValue.left(semicolon)).trimmed().toLower();
}

// Whether an Accept header admits `type` (RFC 9110 12.5.1): the most specific range that matches
// decides, and a quality of 0 means "not acceptable".
bool acceptsMediaType(const QByteArray& accept, const QByteArray& type)
{
    const QByteArray family = type.left(type.indexOf('/')) + "/*";
    int bestSpecificity = -1;
    bool acceptable = false;
    const auto ranges = accept.split(',');
    for (const QByteArray& range : ranges) {
        const QByteArray value = mediaType(range);
        const int specificity = value == type ? 2 : value == family ? 1 : value == "*/*" ? 0 : -1;
        if (specificity < 0 || specificity < bestSpecificity)
            continue;
        double quality = 1.0;
        const auto parameters = range.split(';');
        for (qsizetype i = 1; i < parameters.size(); ++i) {
            const QByteArray parameter = parameters.at(i).trimmed().toLower();
            if (parameter.startsWith("q=")) {
                bool ok = false;
                quality = parameter.mid(2).toDouble(&ok);
                if (!ok)
                    quality = 0.0; // an unreadable weight is not a reason to assume the best
            }
        }
        if (specificity > bestSpecificity)
            acceptable = false;
        bestSpecificity = specificity;
        acceptable = acceptable || quality > 0.0;
    }
    return acceptable;
}

// A Host header (or an allowedHosts entry) as a name and a port: "[::1]:8765" → "[::1]" and 8765,
// "Localhost" → "localhost" and none. Empty when malformed: no name, an IPv6 address without its
// closing bracket or with anything but a port after it, or a port that is not 1 to 5 digits naming
// 1-65535 (RFC 9110 7.2, RFC 3986 3.2.3).
struct HostAndPort
{
    QByteArray name; // lower case; an IPv6 address keeps its brackets
    int port = -1; // -1: none given
};

std::optional<HostAndPort> parseHost(QByteArrayView host)
{
    QByteArrayView name = host;
    std::optional<QByteArrayView> port;
    if (host.startsWith('[')) {
        const qsizetype close = host.indexOf(']');
        if (close < 0)
            return std::nullopt;
        name = host.first(close + 1);
        const QByteArrayView rest = host.sliced(close + 1);
        if (!rest.isEmpty()) {
            if (rest.front() != ':')
                return std::nullopt;
            port = rest.sliced(1);
        }
    } else if (const qsizetype colon = host.indexOf(':'); colon >= 0) {
        name = host.first(colon);
        port = host.sliced(colon + 1);
    }
    if (name.isEmpty())
        return std::nullopt;
    HostAndPort result{name.toByteArray().toLower(), -1};
    if (port) {
        if (port->isEmpty() || port->size() > 5)
            return std::nullopt;
        for (char c : *port) {
            if (c < '0' || c > '9')
                return std::nullopt;
        }
        const int value = port->toInt();
        if (value < 1 || value > 65535)
            return std::nullopt;
        result.port = value;
    }
    return result;
}

bool isLoopbackName(const QByteArray& name)
{
    return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

QByteArray sseEvent(const QByteArray& message)
{
    return "event: message\ndata: " + message + "\n\n";
}

// Whether a notification may still go out on this connection: not while more than `limit` bytes
// wait unsent (the client is not reading).
bool roomForNotification(const QTcpSocket* socket, qint64 limit)
{
    return socket && socket->bytesToWrite() <= limit;
}

} // namespace

// One POST's reply. Starts as a plain JSON response; switches to an event stream (chunked) when a
// notification must go out before the response(s). Collects a batch's responses into one array.
class McpHttpServer::PostExchange : public ResponseChannel
{
public:
    PostExchange(QHttpServerResponder responder, QTcpSocket* socket, Headers headers, int expectedResponses, bool batch,
        bool closeAfter, qint64 maxUnsentNotificationBytes)
        : m_responder(std::move(responder))
        , m_socket(socket)
        , m_maxUnsentNotificationBytes(maxUnsentNotificationBytes)
        , m_headers(std::move(headers))
        , m_expected(expectedResponses)
        , m_batch(batch)
        , m_closeAfter(closeAfter)
    {}

    void sendNotification(const QByteArray& message) override
    {
        if (!isOpen() || !roomForNotification(m_socket, m_maxUnsentNotificationBytes))
            return;
        startStream();
        m_responder.writeBody(chunk(sseEvent(message)));
        sendNow(m_responder);
    }

    void sendResponse(const QByteArray& message) override
    {
        if (!isOpen())
            return;
        if (m_streaming) {
            m_responder.writeBody(chunk(sseEvent(message)));
            sendNow(m_responder);
        } else {
            m_collected.append(message);
        }
        responseDone();
    }

    void skipResponse() override
    {
        if (!isOpen())
            return;
        responseDone();
    }

    bool isOpen() const override { return !m_finished && m_socket; }
    bool isFinished() const { return m_finished; }

    void abandon(const QString& /*reason*/) override
    {
        if (!isOpen())
            return;
        // No status line, no body: the client sees the connection close unanswered.
        m_closeAfter = true;
        finish();
    }

    void sendKeepAlive(const char* reason) override
    {
        if (!isOpen())
            return;
        startStream();
        m_responder.writeBody(chunk(QByteArray(": ") + reason + "\n\n"));
        sendNow(m_responder);
    }

    void watch(QObject* context, McpSession* session)
    {
        m_session = session;
        if (auto* guard = HttpConnectionGuard::of(m_socket)) {
            guard->setResponsePending(true);
            guard->setWaitingFor(session->fairnessKey());
        }
        m_disconnected = QObject::connect(m_socket, &QTcpSocket::disconnected, context, [this] { connectionLost(); });
        m_keepSelf = self.lock();
    }

    // Runs once when the exchange ends: answered, or its connection lost.
    void whenDone(std::function<void()> done) { m_done = std::move(done); }

    std::weak_ptr<PostExchange> self;

private:
    void runDone()
    {
        if (auto done = std::exchange(m_done, nullptr))
            done();
    }

    void startStream()
    {
        if (m_streaming)
            return;
        m_streaming = true;
        writeEventStreamHead(m_responder, m_headers);
        // Responses collected before the switch (earlier requests of a batch) go first.
        for (const QByteArray& message : std::as_const(m_collected))
            m_responder.writeBody(chunk(sseEvent(message)));
        m_collected.clear();
    }

    void responseDone()
    {
        if (--m_expected > 0)
            return;
        if (m_streaming) {
            m_responder.writeBody(QByteArrayLiteral("0\r\n\r\n"));
            sendNow(m_responder);
        } else if (m_collected.isEmpty()) {
            // Every request was cancelled: no JSON-RPC response is owed, so the answer is an event
            // stream that ends without events.
            startStream();
            m_responder.writeBody(QByteArrayLiteral("0\r\n\r\n"));
            sendNow(m_responder);
        } else {
            const QByteArray body = m_batch ? '[' + m_collected.join(',') + ']' : m_collected.first();
            writeReply(m_responder, StatusCode::Ok, "application/json", body, m_headers);
        }
        finish();
    }

    void finish()
    {
        m_finished = true;
        QObject::disconnect(m_disconnected);
        if (QTcpSocket* socket = m_socket.data()) {
            if (auto* guard = HttpConnectionGuard::of(socket))
                guard->setResponsePending(false);
            if (m_closeAfter)
                socket->disconnectFromHost();
        }
        runDone();
        m_keepSelf.reset();
    }

    void connectionLost()
    {
        if (m_finished)
            return;
        m_finished = true;
        QObject::disconnect(m_disconnected);
        auto keep = std::move(m_keepSelf);
        if (m_session)
            m_session->channelClosed(this);
        runDone();
    }

    QHttpServerResponder m_responder;
    QPointer<QTcpSocket> m_socket;
    const qint64 m_maxUnsentNotificationBytes;
    Headers m_headers;
    int m_expected;
    bool m_batch;
    bool m_closeAfter;
    bool m_streaming = false;
    bool m_finished = false;
    QByteArrayList m_collected;
    QPointer<McpSession> m_session;
    QMetaObject::Connection m_disconnected;
    std::shared_ptr<PostExchange> m_keepSelf; // alive while the response is outstanding
    std::function<void()> m_done;
};

// The standalone GET stream of a session: server-initiated notifications, with a comment line now
// and then so idle proxies and clients keep it open.
class McpHttpServer::EventStream : public ResponseChannel
{
public:
    EventStream(QHttpServerResponder responder, QTcpSocket* socket, const Headers& headers, int keepAliveMs,
        qint64 maxUnsentNotificationBytes, const QString& clientName)
        : m_responder(std::move(responder))
        , m_socket(socket)
        , m_maxUnsentNotificationBytes(maxUnsentNotificationBytes)
    {
        writeEventStreamHead(m_responder, headers);
        m_responder.writeBody(chunk(": stream open\n\n"));
        sendNow(m_responder);
        if (auto* guard = HttpConnectionGuard::of(socket)) {
            guard->setResponsePending(true);
            guard->setWaitingFor(clientName);
        }
        m_keepAlive.setInterval(keepAliveMs);
        QObject::connect(&m_keepAlive, &QTimer::timeout, [this] {
            if (isOpen())
                m_responder.writeBody(chunk(": keep-alive\n\n"));
        });
        m_keepAlive.start();
    }

    ~EventStream() override
    {
        if (m_socket) {
            m_responder.writeBody(QByteArrayLiteral("0\r\n\r\n"));
            if (auto* guard = HttpConnectionGuard::of(m_socket))
                guard->setResponsePending(false);
        }
    }

    void sendNotification(const QByteArray& message) override
    {
        if (roomForNotification(m_socket, m_maxUnsentNotificationBytes))
            sendResponse(message);
    }
    void sendResponse(const QByteArray& message) override
    {
        if (isOpen()) {
            m_responder.writeBody(chunk(sseEvent(message)));
            sendNow(m_responder);
        }
    }
    void skipResponse() override {}
    bool isOpen() const override { return m_socket && m_socket->state() == QAbstractSocket::ConnectedState; }

private:
    QHttpServerResponder m_responder;
    QPointer<QTcpSocket> m_socket;
    const qint64 m_maxUnsentNotificationBytes;
    QTimer m_keepAlive;
};

McpHttpServer::McpHttpServer(
    McpServerOptions options, ToolRegistry* registry, BackendEvents* events, qint64 firstCallId, QObject* parent)
    : QAbstractHttpServer(parent)
    , m_options(std::move(options))
    , m_registry(registry)
    , m_host(m_options, registry, events, firstCallId)
    , m_environment(m_host.environment())
{
    connect(registry, &ToolRegistry::toolsChanged, this,
        [this] { broadcast(JsonRpc::makeNotification("notifications/tools/list_changed", nullptr)); });
}

McpHttpServer::~McpHttpServer()
{
    // Sessions publish their cancelled calls through m_environment, so they go first.
    m_sessions.clear();
    m_host.shutdown();
}

GuardedTcpServer* McpHttpServer::openListener(quint16 port, QString* error)
{
    auto* server = new GuardedTcpServer(
        m_options.limits,
        [this](QByteArrayView target, QByteArrayView authorization) {
            // The operator API opens only to operator tokens, /mcp only to client tokens.
            if (OperatorEndpoint::isOperatorPath(target))
                return m_operator && m_operator->isAuthorized(authorization);
            return isAuthorized(authorization);
        },
        this);
    if (m_options.tls)
        server->setTls(*m_options.tls);
    if (!server->listen(m_options.address, port)) {
        *error = QStringLiteral("cannot listen on %1 port %2: %3")
                     .arg(m_options.address.toString())
                     .arg(port)
                     .arg(server->errorString());
        delete server;
        return nullptr;
    }
    connect(server, &GuardedTcpServer::refusedWithoutToken, this,
        [this](const QString& peer, const QByteArray& target, bool presented) {
            const qsizetype query = target.indexOf('?');
            const QString path = QString::fromUtf8(query < 0 ? target : target.left(query));
            recordRefusal(presented ? SecurityEventKind::WrongToken : SecurityEventKind::MissingToken, peer, path,
                presented ? QStringLiteral("the bearer token is wrong (refused before its body)")
                          : QStringLiteral("no bearer token (refused before its body)"));
        });
    bind(server);
    return server;
}

bool McpHttpServer::listen(QString* error)
{
    GuardedTcpServer* server = openListener(m_options.port, error);
    if (!server)
        return false;
    m_tcpServer = server;
    m_port = server->serverPort();
    if (m_options.operatorPort && m_operator) {
        GuardedTcpServer* operatorServer = openListener(*m_options.operatorPort, error);
        if (!operatorServer) {
            *error = QStringLiteral("the operator API: ") + *error;
            return false;
        }
        m_operatorTcpServer = operatorServer;
        m_operatorPort = operatorServer->serverPort();
    }
    if (InteractionBroker* broker = m_environment.interactions; broker && !m_tasks) {
        m_tasks = new TaskHost(
            TaskHost::Settings{m_options.taskPromoteAfterMs}, &broker->tasks(),
            [this] {
                return std::make_unique<McpSession>(SessionHost::requestSessionId(newSessionId()), &m_environment);
            },
            m_environment.identity.toJson(), this);
        connect(&broker->tasks(), &TaskStore::taskChanged, this, &McpHttpServer::tellListeners);
        m_tasks->resumeStoredTasks();
        QString keyError;
        std::optional<RequestStates> states
            = RequestStates::open(m_options.requestStateKeyPath, RequestStates::Settings{}, &keyError);
        if (states) {
            m_requestStates = std::make_unique<RequestStates>(std::move(*states));
            m_environment.requestStates = m_requestStates.get();
        } else {
            qWarning("switchboard: questions that clients' own users would answer (input_required) are asked at the "
                     "console instead: %s",
                qPrintable(keyError));
        }
    }
    return true;
}

int McpHttpServer::requestSessionCount() const
{
    return int(m_requestSessions.size()) + (m_tasks ? m_tasks->runningCount() : 0);
}

QString McpHttpServer::identityOf(const QHttpServerRequest& request, const json& clientInfo) const
{
    // A named token is an identity; under the shared token the declared name only keeps clients
    // apart. Token names cannot hold ':', so the prefixes keep the two kinds from colliding.
    const QByteArray authorization = request.value("authorization");
    if (const QByteArrayView token = BearerToken::of(authorization); m_options.clientTokens && !token.isEmpty()) {
        if (const std::optional<QString> name = m_options.clientTokens->nameFor(token))
            return QStringLiteral("token:") + *name;
    }
    return QStringLiteral("declared:") + TaskHost::clientNameOf(clientInfo);
}

void McpHttpServer::tellListeners(const TaskRecord& task)
{
    // A write can close its connection, whose handler erases its stream: keys first, then each
    // looked up again.
    std::vector<quint64> listening;
    for (const auto& [key, listen] : m_listenStreams) {
        if (listen.taskIds.contains(task.id))
            listening.push_back(key);
    }
    if (listening.empty())
        return;
    json params = task.toWire(true);
    for (const quint64 key : listening) {
        const auto it = m_listenStreams.find(key);
        if (it == m_listenStreams.end())
            continue;
        params["_meta"] = {{ModernRequest::SubscriptionIdKey, it->second.subscriptionId}};
        const std::shared_ptr<EventStream> stream = it->second.stream;
        stream->sendNotification(JsonRpc::serialize(JsonRpc::makeNotification("notifications/tasks", params)));
    }
}

QUrl McpHttpServer::url() const
{
    QUrl url;
    url.setScheme(m_options.tls ? QStringLiteral("https") : QStringLiteral("http"));
    QHostAddress address = m_options.address;
    if (address == QHostAddress::Any || address == QHostAddress::AnyIPv4)
        address = QHostAddress::LocalHost;
    else if (address == QHostAddress::AnyIPv6)
        address = QHostAddress::LocalHostIPv6;
    url.setHost(address.toString());
    url.setPort(m_port);
    url.setPath(QStringLiteral("/mcp"));
    return url;
}

void McpHttpServer::broadcast(const json& notification)
{
    for (auto& [id, session] : m_sessions)
        session->sendNotification(notification);
    if (notification.value("method", "") != "notifications/tools/list_changed")
        return;
    // A write can close its connection, whose handler erases its stream: keys first, then each
    // looked up again.
    std::vector<quint64> listening;
    for (const auto& [key, listen] : m_listenStreams) {
        if (listen.toolsListChanged)
            listening.push_back(key);
    }
    for (const quint64 key : listening) {
        const auto it = m_listenStreams.find(key);
        if (it == m_listenStreams.end())
            continue;
        json tagged = notification;
        tagged["params"] = json{{"_meta", {{ModernRequest::SubscriptionIdKey, it->second.subscriptionId}}}};
        const std::shared_ptr<EventStream> stream = it->second.stream;
        stream->sendNotification(JsonRpc::serialize(tagged));
    }
}

void McpHttpServer::shutdown()
{
    // Questions that calls wait on stay pending across the restart; only the calls end. Tasks stay
    // as they are, for the restart to take up.
    if (m_tasks)
        m_tasks->shutDown();
    for (auto& [id, session] : m_sessions)
        session->shutDown();
    m_sessions.clear();
    for (auto& [id, session] : m_requestSessions)
        session->shutDown();
    m_requestSessions.clear();
    // Each subscription ends with its result (a graceful teardown), then the stream closes.
    const auto listens = std::exchange(m_listenStreams, {});
    for (const auto& [key, listen] : listens) {
        listen.stream->sendResponse(JsonRpc::serialize(JsonRpc::makeResult(listen.subscriptionId,
            json{{"resultType", "complete"}, {"_meta", {{ModernRequest::SubscriptionIdKey, listen.subscriptionId}}}})));
    }
    const QList<QByteArray> ids = m_sessionStates.keys();
    for (const QByteArray& id : ids)
        publishSessionState(id);
    m_sessionStates.clear();
    // The sessions cancelled their calls; the workers that honour the token are done now.
    m_host.shutdown();
    Q_EMIT sessionsChanged(0);
    if (m_tcpServer)
        m_tcpServer->closeAll();
    if (m_operatorTcpServer)
        m_operatorTcpServer->closeAll();
}

void McpHttpServer::writeError(QHttpServerResponder& responder, StatusCode status, int code, const std::string& message,
    const Headers& headers, const json& id, json data)
{
    writeReply(responder, status, "application/json",
        JsonRpc::serialize(JsonRpc::makeError(id, code, message, std::move(data))), headers);
}

bool McpHttpServer::isAllowedHost(const QByteArray& hostHeader, quint16 localPort) const
{
    const std::optional<HostAndPort> host = parseHost(hostHeader);
    if (!host)
        return false;
    // A port, when the Host names one, must be the one this request came to (or the one an
    // allowedHosts entry names, for a server behind a proxy): a request meant for another port was
    // not meant for this server.
    const auto portFits = [&](int allowedPort) {
        return host->port < 0 || host->port == (allowedPort < 0 ? int(localPort) : allowedPort);
    };
    if (isLoopbackName(host->name))
        return portFits(-1);
    for (const QString& allowed : m_options.allowedHosts) {
        const std::optional<HostAndPort> entry = parseHost(allowed.toUtf8());
        if (entry && entry->name == host->name && portFits(entry->port))
            return true;
    }
    const QHostAddress& bound = m_options.address;
    if (bound == QHostAddress::Any || bound == QHostAddress::AnyIPv4 || bound == QHostAddress::AnyIPv6)
        return m_options.allowedHosts.isEmpty() && portFits(-1); // every interface and no hosts named
    const QString boundName = bound.protocol() == QAbstractSocket::IPv6Protocol
        ? QLatin1Char('[') + bound.toString() + QLatin1Char(']')
        : bound.toString();
    return host->name == boundName.toLower().toUtf8() && portFits(-1);
}

bool McpHttpServer::isAllowedOrigin(const QByteArray& origin) const
{
    for (const QString& allowed : m_options.allowedOrigins) {
        if (origin == allowed.toUtf8())
            return true;
    }
    const QUrl url = QUrl::fromEncoded(origin, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))
        || !url.path().isEmpty())
        return false;
    QByteArray host = url.host().toLower().toUtf8();
    if (host == "::1")
        host = "[::1]";
    return isLoopbackName(host);
}

bool McpHttpServer::isAuthorized(QByteArrayView authorization) const
{
    if (m_options.bearerToken.isEmpty())
        return true;
    const QByteArrayView presented = BearerToken::of(authorization);
    if (presented.isEmpty())
        return false;
    if (m_options.clientTokens && m_options.clientTokens->nameFor(presented))
        return true;
    return BearerToken::same(presented, m_options.bearerToken);
}

void McpHttpServer::recordRefusal(
    SecurityEventKind kind, const QHttpServerRequest& request, const QTcpSocket* socket, const QString& detail) const
{
    recordRefusal(kind, socket ? socket->peerAddress().toString() : QString(), request.url().path(), detail);
}

void McpHttpServer::recordRefusal(
    SecurityEventKind kind, const QString& peer, const QString& path, const QString& detail) const
{
    if (!m_environment.events)
        return;
    SecurityEvent event;
    event.atMs = m_environment.clock();
    event.kind = kind;
    event.remoteAddress = peer;
    // What the client sent is its own text: searched for the token (a client may send the token in
    // the very header refused here) while whole, so cutting cannot leave a piece of it; then made
    // printable and cut.
    const QString line = m_environment.redactor.text(path + QStringLiteral(": ") + detail);
    const QString text = QString::fromUtf8(PrintableText::escaped(line));
    event.detail = text.size() > SecurityEvent::MaxDetailChars
        ? text.left(SecurityEvent::MaxDetailChars) + QStringLiteral("…")
        : text;
    m_environment.events->publishSecurityEvent(event);
}

SessionStateList McpHttpServer::sessionStates() const
{
    SessionStateList states;
    states.reserve(m_sessionStates.size());
    for (const SessionState& state : m_sessionStates)
        states.append(state);
    std::sort(states.begin(), states.end(),
        [](const SessionState& a, const SessionState& b) { return a.startedAtMs < b.startedAtMs; });
    return states;
}

bool McpHttpServer::endSession(const QByteArray& id)
{
    if (m_sessions.find(id) == m_sessions.end())
        return false;
    removeSession(id, QStringLiteral("session ended by the Switchboard operator"));
    return true;
}

void McpHttpServer::publishSessionState(const QByteArray& id)
{
    const auto state = m_sessionStates.find(id);
    if (state == m_sessionStates.end())
        return;
    const auto session = m_sessions.find(id);
    if (session == m_sessions.end())
        state->ended = true;
    else
        state->lastActivityMs = session->second->lastActivityMs();
    if (m_environment.events)
        m_environment.events->publishSessionState(*state);
}

void McpHttpServer::handleOperatorRequest(
    const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers)
{
    const auto refuse = [&](StatusCode status, const char* code, const QString& message) {
        const json body{{"error", {{"code", code}, {"message", message.toStdString()}}}};
        writeReply(responder, status, "application/json", QByteArray::fromStdString(body.dump()), headers);
    };
    if (!m_operator) {
        refuse(StatusCode::NotFound, "not_found", QStringLiteral("this server has no operator API"));
        return;
    }
    // A web page may never drive the operator's side: no Origin is served, not even loopback ones.
    if (const QByteArray origin = request.value("origin"); !origin.isEmpty()) {
        recordRefusal(SecurityEventKind::BadOrigin, request, socket,
            QStringLiteral("Origin \"%1\" on the operator API").arg(QString::fromUtf8(origin)));
        refuse(StatusCode::Forbidden, "forbidden",
            QStringLiteral("the operator API serves no web pages (Origin refused)"));
        return;
    }
    const QByteArray authorization = request.value("authorization");
    if (!m_operator->isAuthorized(authorization)) {
        const bool presented = !authorization.isEmpty();
        // An agent's token is told apart, so that its owner knows to look for the operator's.
        const bool clientToken = presented && !m_options.bearerToken.isEmpty() && isAuthorized(authorization);
        recordRefusal(presented ? SecurityEventKind::WrongToken : SecurityEventKind::MissingToken, request, socket,
            clientToken     ? QStringLiteral("an MCP client's token on the operator API")
                : presented ? QStringLiteral("the operator token is wrong")
                            : QStringLiteral("no operator token"));
        headers.emplace_back("WWW-Authenticate",
            presented ? R"(Bearer realm="switchboard-operator", error="invalid_token")"
                      : R"(Bearer realm="switchboard-operator")");
        refuse(StatusCode::Unauthorized, "unauthorized",
            clientToken
                ? QStringLiteral("this is an MCP client's token; the operator API takes only an operator token "
                                 "(SWITCHBOARD_OPERATOR_TOKEN, or the operator-token file in the state directory)")
                : presented ? QStringLiteral("the operator token is wrong")
                            : QStringLiteral("send an operator token as 'Authorization: Bearer <token>' "
                                             "(SWITCHBOARD_OPERATOR_TOKEN, or the operator-token file in the state "
                                             "directory)"));
        return;
    }
    m_operator->handle(request, socket, std::move(responder));
}

bool McpHttpServer::handleRequest(const QHttpServerRequest& request, QTcpSocket* socket)
{
    const QPointer<HttpConnectionGuard> guard = HttpConnectionGuard::of(socket);
    if (guard && !guard->beginRequest())
        return true; // not a new request: nothing to answer
    handleRequestOf(request, socket);
    // The answer is written, unless a response was left pending (a call in flight, an event stream).
    if (guard)
        guard->requestHandled();
    return true;
}

void McpHttpServer::handleRequestOf(const QHttpServerRequest& request, QTcpSocket* socket)
{
    QHttpServerResponder responder = makeResponder(request, socket);
    Headers headers;

    const QByteArray origin = request.value("origin");
    const quint16 localPort = socket ? socket->localPort() : m_port;
    if (!isAllowedHost(request.value("host"), localPort)) {
        recordRefusal(SecurityEventKind::BadHost, request, socket,
            QStringLiteral("Host \"%1\" does not name this server").arg(QString::fromUtf8(request.value("host"))));
        writeError(responder, StatusCode::Forbidden, SessionErrorCode,
            "Forbidden: the Host header does not name this server (DNS rebinding protection)", headers);
        return;
    }
    const bool operatorPath = OperatorEndpoint::isOperatorPath(request.url().path().toUtf8());
    // With a port of its own (--operator-port), the operator API is there and only there.
    if (m_operatorPort != 0 && (localPort == m_operatorPort) != operatorPath) {
        const json body{{"error",
            {{"code", "not_found"},
                {"message",
                    operatorPath ? "the operator API of this Switchboard is on port " + std::to_string(m_operatorPort)
                                 : std::string("this port serves only the operator API (/operator/v1/)")}}}};
        writeReply(
            responder, StatusCode::NotFound, "application/json", QByteArray::fromStdString(body.dump()), headers);
        return;
    }
    if (operatorPath) {
        handleOperatorRequest(request, socket, responder, headers);
        return;
    }
    if (!origin.isEmpty()) {
        if (!isAllowedOrigin(origin)) {
            recordRefusal(SecurityEventKind::BadOrigin, request, socket,
                QStringLiteral("Origin \"%1\" is not allowed").arg(QString::fromUtf8(origin)));
            writeError(responder, StatusCode::Forbidden, SessionErrorCode,
                "Forbidden: Origin " + origin.toStdString() + " is not allowed", headers);
            return;
        }
        headers.emplace_back("Access-Control-Allow-Origin", origin);
        headers.emplace_back("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate");
        headers.emplace_back("Vary", "Origin");
    }

    if (request.url().path() != QLatin1String("/mcp")) {
        writeError(responder, StatusCode::NotFound, SessionErrorCode, "Not found: the MCP endpoint is /mcp", headers);
        return;
    }

    const auto method = request.method();
    if (method == QHttpServerRequest::Method::Options) {
        // CORS preflight from a browser-based client (e.g. MCP Inspector in direct mode).
        headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
        headers.emplace_back("Access-Control-Allow-Headers",
            "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, "
            "Last-Event-ID");
        headers.emplace_back("Access-Control-Max-Age", "600");
        writeReply(responder, StatusCode::NoContent, {}, {}, headers);
        return;
    }

    if (!isAuthorized(request.value("authorization"))) {
        const bool presented = !request.value("authorization").isEmpty();
        recordRefusal(presented ? SecurityEventKind::WrongToken : SecurityEventKind::MissingToken, request, socket,
            presented ? QStringLiteral("the bearer token is wrong") : QStringLiteral("no bearer token"));
        headers.emplace_back("WWW-Authenticate",
            presented ? R"(Bearer realm="switchboard", error="invalid_token")" : R"(Bearer realm="switchboard")");
        // The legacy range (-32000 to -32019) means nothing in 2026-07-28 answers: the status says it.
        const QByteArray version = request.value("mcp-protocol-version");
        const bool modern = !version.isEmpty() && !ProtocolVersion::isSupported(version);
        writeError(responder, StatusCode::Unauthorized, modern ? int(JsonRpc::InvalidRequest) : UnauthorizedCode,
            presented ? "Unauthorized: the bearer token is wrong"
                      : "Unauthorized: send the Switchboard token as 'Authorization: Bearer <token>'",
            headers);
        return;
    }

    switch (method) {
    case QHttpServerRequest::Method::Post:
        handlePost(request, socket, responder, headers);
        break;
    case QHttpServerRequest::Method::Get:
        handleGet(request, socket, responder, headers);
        break;
    case QHttpServerRequest::Method::Delete:
        handleDelete(request, responder, headers);
        break;
    default:
        headers.emplace_back("Allow", "GET, POST, DELETE, OPTIONS");
        writeError(responder, StatusCode::MethodNotAllowed, SessionErrorCode, "Method not allowed", headers);
        break;
    }
    return;
}

void McpHttpServer::missingHandler(const QHttpServerRequest& request, QTcpSocket* socket)
{
    QHttpServerResponder responder = makeResponder(request, socket);
    writeError(responder, StatusCode::NotFound, SessionErrorCode, "Not found", {});
}

McpSession* McpHttpServer::sessionFor(
    const QHttpServerRequest& request, QHttpServerResponder& responder, const Headers& headers, const json& requestId)
{
    const QByteArray id = request.value("mcp-session-id");
    if (id.isEmpty()) {
        writeError(responder, StatusCode::BadRequest, SessionErrorCode,
            "Bad Request: Mcp-Session-Id header is required (send initialize first to get one)", headers, requestId);
        return nullptr;
    }
    const auto it = m_sessions.find(id);
    if (it == m_sessions.end()) {
        writeError(responder, StatusCode::NotFound, SessionNotFoundCode,
            "Session not found: it was deleted or has expired; initialize a new session", headers, requestId);
        return nullptr;
    }
    McpSession* session = it->second.get();
    // Any version this server speaks is accepted, as the reference server does (a client may
    // send the newest one it knows on every request); only an unknown one is refused.
    const QByteArray version = request.value("mcp-protocol-version");
    if (!version.isEmpty() && !ProtocolVersion::isSupported(version)) {
        writeError(responder, StatusCode::BadRequest, SessionErrorCode,
            "Bad Request: MCP-Protocol-Version " + version.toStdString()
                + " is not supported (supported: 2025-03-26, 2025-06-18, 2025-11-25)",
            headers, requestId);
        return nullptr;
    }
    return session;
}

McpSession* McpHttpServer::createSession(const QString& clientName, QByteArray* evictionError)
{
    if (int(m_sessions.size()) >= m_options.maxSessions) {
        // Make room fairly: the client holding the most sessions (counting the one it asks for now)
        // gives up its least recently used session that has nothing in flight. A client opening
        // sessions in a loop thus evicts its own, not everybody else's; and the only session of a
        // client is never taken, so a burst of sessions under ever new names evicts no one and is
        // refused instead.
        std::unordered_map<QString, int> perClient;
        for (const auto& [id, session] : m_sessions)
            ++perClient[session->fairnessKey()];
        ++perClient[clientName];
        McpSession* victim = nullptr;
        int victimClientSessions = 0;
        for (const auto& [id, session] : m_sessions) {
            if (session->inFlightCount() != 0 || session->hasNotificationStream())
                continue;
            const int held = perClient[session->fairnessKey()];
            const int heldBefore = held - (session->fairnessKey() == clientName ? 1 : 0);
            if (heldBefore < 2)
                continue;
            if (!victim || held > victimClientSessions
                || (held == victimClientSessions && session->lastActivityMs() < victim->lastActivityMs())) {
                victim = session.get();
                victimClientSessions = held;
            }
        }
        if (!victim) {
            *evictionError = QByteArray::number(m_options.maxSessions)
                + " sessions are open (the limit), each the only session of its client or busy; end one "
                  "(DELETE) or retry later";
            return nullptr;
        }
        removeSession(victim->id(), QStringLiteral("session evicted: too many sessions"));
    }
    QByteArray id = newSessionId();
    auto session = std::make_unique<McpSession>(id, &m_environment);
    McpSession* raw = session.get();
    m_sessions.emplace(std::move(id), std::move(session));
    return raw;
}

void McpHttpServer::removeSession(const QByteArray& sessionId, const QString& reason)
{
    // A copy: callers pass the session's own id (victim->id()), which erasing the session frees.
    const QByteArray id = sessionId;
    const auto it = m_sessions.find(id);
    if (it == m_sessions.end())
        return;
    it->second->terminate(reason);
    m_sessions.erase(it);
    publishSessionState(id);
    m_sessionStates.remove(id);
    Q_EMIT sessionsChanged(int(m_sessions.size()));
}

void McpHttpServer::handlePost(
    const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers)
{
    const QByteArray body = request.body();
    if (body.size() > m_options.limits.maxBodyBytes) {
        writeError(responder, StatusCode::PayloadTooLarge, JsonRpc::InvalidRequest,
            "request body is larger than the limit", headers);
        return;
    }
    // Read first, so that every refusal of a request whose id can be read names it (a batch's
    // refusal concerns no one request: its id stays null).
    JsonRpc::ParseResult parsed = JsonRpc::parse(body, {m_options.maxJsonDepth, m_options.maxJsonValues});
    const json requestId = parsed.ok && parsed.value.is_object() ? JsonRpc::classify(parsed.value).id : json();
    if (mediaType(request.value("content-type")) != "application/json") {
        writeError(responder, StatusCode::UnsupportedMediaType, SessionErrorCode,
            "Unsupported Media Type: POST bodies must be Content-Type: application/json", headers, requestId);
        return;
    }
    const QByteArray accept = request.value("accept");
    if (!acceptsMediaType(accept, "application/json") || !acceptsMediaType(accept, "text/event-stream")) {
        writeError(responder, StatusCode::NotAcceptable, SessionErrorCode,
            "Not Acceptable: the Accept header must list both application/json and text/event-stream", headers,
            requestId);
        return;
    }
    if (!parsed.ok) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::ParseError, "Parse error: " + parsed.error, headers);
        return;
    }

    const bool batch = parsed.value.is_array();
    std::vector<JsonRpc::Message> messages;
    if (batch) {
        if (parsed.value.empty()) {
            writeError(
                responder, StatusCode::BadRequest, JsonRpc::InvalidRequest, "Invalid Request: an empty batch", headers);
            return;
        }
        messages.reserve(parsed.value.size());
        for (const json& item : parsed.value)
            messages.push_back(JsonRpc::classify(item));
    } else {
        messages.push_back(JsonRpc::classify(parsed.value));
    }

    const bool isInitialize
        = !batch && messages.front().kind == JsonRpc::Kind::Request && messages.front().method == "initialize";
    if (!batch && messages.front().kind == JsonRpc::Kind::Invalid) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidRequest,
            "Invalid Request: " + messages.front().invalidReason, headers, messages.front().id);
        return;
    }

    if (ModernRequest::isModern(
            request.value("mcp-protocol-version"), !request.value("mcp-session-id").isEmpty(), parsed.value)) {
        handleModernPost(request, socket, responder, headers, messages, body, batch);
        return;
    }
    if (request.value("mcp-session-id").isEmpty() && isInitialize) {
        QByteArray evictionError;
        QString clientName = QStringLiteral("unknown client"); // as McpSession names a client without one
        const json& params = messages.front().params();
        if (const auto info = params.find("clientInfo");
            params.is_object() && info != params.end() && info->is_object()) {
            if (const auto name = info->find("name"); name != info->end() && name->is_string())
                clientName = QString::fromStdString(name->get<std::string>());
        }
        // A named token's identity is the client, for fairness as for its tasks and answers.
        const QString identity = identityOf(request, params.is_object() ? params.value("clientInfo", json()) : json());
        McpSession* session
            = createSession(identity.startsWith(QLatin1String("token:")) ? identity : clientName, &evictionError);
        if (!session) {
            headers.emplace_back("Retry-After", QByteArray::number(SessionsRetryAfterSeconds));
            writeError(responder, StatusCode::ServiceUnavailable, SessionErrorCode,
                "Service Unavailable: " + evictionError.toStdString(), headers, messages.front().id);
            return;
        }
        session->setCaller(
            identity, params.is_object() ? params.value("capabilities", json::object()) : json::object());
        QByteArray response;
        if (!session->initialize(messages.front(), &response)) {
            removeSession(session->id(), QStringLiteral("initialize failed"));
            writeReply(responder, StatusCode::BadRequest, "application/json", response, headers);
            return;
        }
        headers.emplace_back("Mcp-Session-Id", session->id());
        SessionState state;
        state.id = QString::fromLatin1(session->id());
        state.clientName = session->clientName();
        state.clientVersion = session->clientVersion();
        state.protocolVersion = QString::fromStdString(session->negotiatedVersion());
        state.startedAtMs = m_environment.clock();
        m_sessionStates.insert(session->id(), state);
        const QByteArray id = session->id();
        writeReply(responder, StatusCode::Ok, "application/json", response, headers);
        publishSessionState(id);
        Q_EMIT sessionsChanged(int(m_sessions.size()));
        return;
    }
    if (batch) {
        for (const auto& message : messages) {
            if (message.kind == JsonRpc::Kind::Request && message.method == "initialize") {
                writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidRequest,
                    "Invalid Request: initialize must not be part of a batch", headers);
                return;
            }
        }
    }

    McpSession* session = sessionFor(request, responder, headers, requestId);
    if (!session)
        return;
    if (batch && session->negotiatedVersion() != ProtocolVersion::batching) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidRequest,
            "Invalid Request: JSON-RPC batches are not allowed in protocol version " + session->negotiatedVersion()
                + " (only in 2025-03-26)",
            headers);
        return;
    }

    const bool calls = std::any_of(messages.begin(), messages.end(), [](const JsonRpc::Message& message) {
        return message.kind == JsonRpc::Kind::Request && message.method == "tools/call";
    });
    if (calls && !roomToWait(*session, responder, headers, batch ? json(nullptr) : messages.front().id))
        return;

    int expected = 0;
    const QByteArray sessionId = session->id();
    auto state = m_sessionStates.find(sessionId);
    for (const auto& message : messages) {
        if (message.kind == JsonRpc::Kind::Request || message.kind == JsonRpc::Kind::Invalid)
            ++expected;
        if (message.kind == JsonRpc::Kind::Request && message.method == "tools/call" && state != m_sessionStates.end())
            ++state->calls;
    }
    // Told once the messages are handled (the activity time is theirs); a write in between may
    // close the connection, but the session stays until removeSession, which publishes its end.
    const auto published = qScopeGuard([this, sessionId] { publishSessionState(sessionId); });
    if (expected == 0) {
        for (const auto& message : messages)
            session->handleMessage(message, {}, nullptr);
        writeReply(responder, StatusCode::Accepted, {}, {}, headers);
        return;
    }

    const bool closeAfter = request.value("connection").toLower() == "close";
    auto exchange = std::make_shared<PostExchange>(std::move(responder), socket, std::move(headers), expected, batch,
        closeAfter, m_options.limits.maxUnsentNotificationBytes);
    exchange->self = exchange;
    if (batch && session->refuseBatchThatWouldPause(messages, exchange))
        return;
    for (const auto& message : messages)
        session->handleMessage(message, batch ? QByteArray() : body, exchange);
    if (!exchange->isFinished() && exchange->isOpen())
        exchange->watch(this, session);
}

json McpHttpServer::discoverResult() const
{
    const ServerIdentity& identity = m_environment.identity;
    json result{{"supportedVersions", ModernRequest::supportedVersions()},
        // listChanged: heard on a subscriptions/listen stream.
        {"capabilities",
            {{"tools", {{"listChanged", true}}},
                {"extensions", m_tasks ? json{{TaskHost::ExtensionId, json::object()}} : json::object()}}},
        {"resultType", "complete"}, {"ttlMs", 0}, {"cacheScope", "private"},
        {"_meta", {{ModernRequest::ServerInfoKey, identity.toJson()}}}};
    if (!identity.instructions.isEmpty())
        result["instructions"] = identity.instructions.toStdString();
    return result;
}

void McpHttpServer::handleModernPost(const QHttpServerRequest& request, QTcpSocket* socket,
    QHttpServerResponder& responder, Headers& headers, const std::vector<JsonRpc::Message>& messages,
    const QByteArray& body, bool batch)
{
    if (batch) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidRequest,
            "Invalid Request: JSON-RPC batches are not part of protocol revision 2026-07-28", headers);
        return;
    }
    const JsonRpc::Message& message = messages.front();
    if (message.kind == JsonRpc::Kind::Notification) {
        // Nothing to act on: a request is cancelled by closing its response stream.
        writeReply(responder, StatusCode::Accepted, {}, {}, headers);
        return;
    }
    if (message.kind != JsonRpc::Kind::Request) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidRequest,
            "Invalid Request: in protocol revision 2026-07-28 a client sends requests and notifications only", headers,
            message.id);
        return;
    }
    // A header's value, or nullopt when it is absent (or empty, which no check accepts either).
    const auto header = [&request](const QByteArray& name) -> std::optional<QByteArray> {
        const QByteArray value = request.value(name);
        return value.isEmpty() ? std::nullopt : std::optional<QByteArray>(value);
    };
    const auto checked = ModernRequest::check(
        message, {request.value("mcp-protocol-version"), header("mcp-method"), header("mcp-name")});
    if (const auto* refusal = std::get_if<ModernRequest::Refusal>(&checked)) {
        writeError(responder, StatusCode(refusal->httpStatus), refusal->code, refusal->message, headers, message.id,
            refusal->data);
        return;
    }
    const auto& envelope = std::get<ModernRequest::Envelope>(checked);
    if (message.method == "server/discover") {
        writeReply(responder, StatusCode::Ok, "application/json",
            JsonRpc::serialize(JsonRpc::makeResult(message.id, discoverResult())), headers);
        return;
    }
    const QString identity = identityOf(request, envelope.clientInfo);
    const QString clientName = TaskHost::clientNameOf(envelope.clientInfo);
    if (message.method == "subscriptions/listen") {
        listen(socket, responder, headers, message,
            identity.startsWith(QLatin1String("token:")) ? identity : clientName, envelope.clientCapabilities,
            identity);
        return;
    }
    if (message.method == "tasks/get" || message.method == "tasks/update" || message.method == "tasks/cancel") {
        handleTaskRequest(responder, headers, message, envelope.clientCapabilities, identity);
        return;
    }
    if (message.method == "tools/call") {
        // The arguments a tool's schema asks to see in Mcp-Param-* headers, checked against them.
        const json& params = message.params();
        const auto nameValue = params.is_object() ? params.find("name") : params.end();
        const std::string name = params.is_object() && nameValue != params.end() && nameValue->is_string()
            ? nameValue->get<std::string>()
            : std::string();
        if (const ToolRegistry::ToolPtr tool = name.empty() ? nullptr : m_registry->find(name)) {
            const json arguments = params.is_object() ? params.value("arguments", json::object()) : json::object();
            const auto refusal = ModernRequest::checkParamHeaders(tool->spec.inputSchema, arguments, header);
            if (refusal) {
                writeError(responder, StatusCode(refusal->httpStatus), refusal->code, refusal->message, headers,
                    message.id, refusal->data);
                return;
            }
            // Where the configuration wants a call that waits for a person carried as a task, a client
            // that cannot take one is told so before anything runs.
            const InteractionBroker* broker = m_environment.interactions;
            if (m_tasks && broker && !TaskHost::declaresExtension(envelope.clientCapabilities)
                && broker->requiresTaskOf(clientName) && broker->wouldPause(*tool, QString(), clientName)) {
                writeError(responder, StatusCode::BadRequest, JsonRpc::MissingRequiredClientCapability,
                    "Missing required client capability: a call of " + name
                        + " waits for a person at the Switchboard console, and this server carries such calls "
                          "as tasks: declare the io.modelcontextprotocol/tasks extension in the request's client "
                          "capabilities",
                    headers, message.id, TaskHost::requiredCapabilities());
                return;
            }
        }
    }
    if (message.method != "tools/list" && message.method != "tools/call") {
        writeError(responder, StatusCode::NotFound, JsonRpc::MethodNotFound, "Method not found: " + message.method,
            headers, message.id);
        return;
    }

    // A session for this request alone: the calls' machinery (approvals, hold, progress,
    // cancellation by a closed stream) is the sessions' own.
    auto owned = std::make_unique<McpSession>(SessionHost::requestSessionId(newSessionId()), &m_environment);
    McpSession* session = owned.get();
    session->adoptEnvelope(envelope.version, envelope.clientInfo, envelope.logLevel);
    session->setCaller(identity, envelope.clientCapabilities);
    if (message.method == "tools/call" && !roomToWait(*session, responder, headers, message.id))
        return;
    const QByteArray id = session->id();
    m_requestSessions.emplace(id, std::move(owned));
    const bool closeAfter = request.value("connection").toLower() == "close";
    auto exchange = std::make_shared<PostExchange>(std::move(responder), socket, std::move(headers), 1, false,
        closeAfter, m_options.limits.maxUnsentNotificationBytes);
    exchange->self = exchange;
    if (m_tasks && message.method == "tools/call" && TaskHost::declaresExtension(envelope.clientCapabilities)
        && m_environment.interactions->offersTaskTo(clientName)) {
        // A call that may become a task: the task host owns its session from now on.
        std::unique_ptr<McpSession> taskSession = std::move(m_requestSessions.at(id));
        m_requestSessions.erase(id);
        exchange->whenDone([this, id] {
            QMetaObject::invokeMethod(
                this,
                [this, id] {
                    if (m_tasks)
                        m_tasks->exchangeEnded(id);
                },
                Qt::QueuedConnection);
        });
        m_tasks->startCall(std::move(taskSession), message, body, exchange,
            TaskHost::Caller{identity, envelope.clientInfo, envelope.version, envelope.clientCapabilities});
        if (!exchange->isFinished() && exchange->isOpen())
            exchange->watch(this, session);
        return;
    }
    // Gone after the answer (or the closed stream), once the session's own code has returned.
    exchange->whenDone([this, id] {
        QMetaObject::invokeMethod(
            this,
            [this, id] {
                const auto it = m_requestSessions.find(id);
                if (it == m_requestSessions.end())
                    return;
                std::unique_ptr<McpSession> done = std::move(it->second);
                m_requestSessions.erase(it);
                done->terminate(QStringLiteral("the request was answered"));
            },
            Qt::QueuedConnection);
    });
    session->handleMessage(message, body, exchange);
    if (!exchange->isFinished() && exchange->isOpen())
        exchange->watch(this, session);
}

void McpHttpServer::handleGet(
    const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers)
{
    if (!acceptsMediaType(request.value("accept"), "text/event-stream")) {
        writeError(responder, StatusCode::NotAcceptable, SessionErrorCode,
            "Not Acceptable: GET opens an event stream; the Accept header must list text/event-stream", headers);
        return;
    }
    McpSession* session = sessionFor(request, responder, headers);
    if (!session)
        return;
    if (session->hasNotificationStream()) {
        writeError(responder, StatusCode::Conflict, SessionErrorCode,
            "Conflict: this session already has an open event stream", headers);
        return;
    }
    if (!roomToWait(*session, responder, headers, nullptr))
        return;
    auto stream = std::make_shared<EventStream>(std::move(responder), socket, headers, m_options.keepAliveIntervalMs,
        m_options.limits.maxUnsentNotificationBytes, session->fairnessKey());
    session->setNotificationStream(stream);
    const QByteArray id = session->id();
    publishSessionState(id);
    connect(socket, &QTcpSocket::disconnected, this, [this, id, raw = stream.get()] {
        const auto it = m_sessions.find(id);
        if (it != m_sessions.end())
            it->second->clearNotificationStream(raw);
    });
}

void McpHttpServer::handleTaskRequest(QHttpServerResponder& responder, const Headers& headers,
    const JsonRpc::Message& message, const json& clientCapabilities, const QString& identity)
{
    if (!m_tasks) {
        writeError(responder, StatusCode::NotFound, JsonRpc::MethodNotFound,
            "Method not found: " + message.method + " (this server offers no tasks)", headers, message.id);
        return;
    }
    if (!TaskHost::declaresExtension(clientCapabilities)) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::MissingRequiredClientCapability,
            "Missing required client capability: " + message.method
                + " needs the request to declare the io.modelcontextprotocol/tasks extension in its client "
                  "capabilities",
            headers, message.id, TaskHost::requiredCapabilities());
        return;
    }
    TaskHost::Caller caller{identity, nullptr, {}};
    auto answer = m_tasks->handle(message.method, message.params(), caller);
    if (const auto* error = std::get_if<TaskHost::Error>(&answer)) {
        writeError(responder, StatusCode::Ok, error->code, error->message, headers, message.id);
        return;
    }
    writeReply(responder, StatusCode::Ok, "application/json",
        JsonRpc::serialize(JsonRpc::makeResult(message.id, std::get<json>(std::move(answer)))), headers);
}

void McpHttpServer::listen(QTcpSocket* socket, QHttpServerResponder& responder, Headers& headers,
    const JsonRpc::Message& request, const QString& clientName, const json& clientCapabilities, const QString& identity)
{
    const json& params = request.params();
    const auto filter = params.is_object() ? params.find("notifications") : params.end();
    if (!params.is_object() || filter == params.end() || !filter->is_object()) {
        writeError(responder, StatusCode::BadRequest, JsonRpc::InvalidParams,
            "Invalid params: subscriptions/listen needs params.notifications, an object naming the "
            "notifications to receive",
            headers, request.id);
        return;
    }
    if (!roomToWait(clientName, responder, headers, request.id))
        return;
    // What this server can tell: its tool list's changes. Anything else asked for is left out of
    // the acknowledgement and never sent.
    json honored = json::object();
    const auto tools = filter->find("toolsListChanged");
    if (tools != filter->end() && tools->is_boolean() && tools->get<bool>())
        honored["toolsListChanged"] = true;
    QStringList taskIds;
    if (const auto tasks = filter->find("taskIds"); tasks != filter->end()) {
        if (!TaskHost::declaresExtension(clientCapabilities)) {
            writeError(responder, StatusCode::BadRequest, JsonRpc::MissingRequiredClientCapability,
                "Missing required client capability: a subscription to taskIds needs the request to declare the "
                "io.modelcontextprotocol/tasks extension in its client capabilities",
                headers, request.id, TaskHost::requiredCapabilities());
            return;
        }
        // Only the client's own tasks: another's are as unknown as tasks that never were.
        if (m_tasks)
            taskIds = m_tasks->ownedAmong(*tasks, identity);
        json agreed = json::array();
        for (const QString& id : std::as_const(taskIds))
            agreed.push_back(id.toStdString());
        honored["taskIds"] = std::move(agreed);
    }
    auto stream = std::make_shared<EventStream>(std::move(responder), socket, headers, m_options.keepAliveIntervalMs,
        m_options.limits.maxUnsentNotificationBytes, clientName);
    const quint64 key = ++m_nextListenKey;
    m_listenStreams.emplace(key, ListenStream{stream, request.id, honored.contains("toolsListChanged"), taskIds});
    connect(socket, &QTcpSocket::disconnected, this, [this, key] { m_listenStreams.erase(key); });
    // The subscription's first message.
    stream->sendNotification(JsonRpc::serialize(JsonRpc::makeNotification("notifications/subscriptions/acknowledged",
        json{{"notifications", std::move(honored)}, {"_meta", {{ModernRequest::SubscriptionIdKey, request.id}}}})));
}

bool McpHttpServer::roomToWait(
    const McpSession& session, QHttpServerResponder& responder, const Headers& headers, const json& id)
{
    return roomToWait(session.fairnessKey(), responder, headers, id);
}

bool McpHttpServer::roomToWait(
    const QString& clientName, QHttpServerResponder& responder, const Headers& headers, const json& id)
{
    // All local clients share 127.0.0.1: what one client keeps waiting counts against its own
    // allowance, never against a cap the others share.
    if (!m_tcpServer)
        return true;
    const int limit = m_tcpServer->waitingLimitPerClient();
    if (m_tcpServer->connectionsWaitingFor(clientName) < limit)
        return true;
    Headers refusal = headers;
    refusal.emplace_back("Retry-After", "1");
    writeError(responder, StatusCode::ServiceUnavailable, SessionErrorCode,
        "Service Unavailable: client \"" + PrintableText::escaped(QStringView(clientName).left(100)).toStdString()
            + "\" already holds " + std::to_string(limit)
            + " connections waiting for answers (the limit per client); retry once some are answered",
        refusal, id);
    return false;
}

void McpHttpServer::handleDelete(const QHttpServerRequest& request, QHttpServerResponder& responder, Headers& headers)
{
    McpSession* session = sessionFor(request, responder, headers);
    if (!session)
        return;
    removeSession(session->id(), QStringLiteral("session deleted by the client"));
    writeReply(responder, StatusCode::NoContent, {}, {}, headers);
}
