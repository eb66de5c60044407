#include "transport/mcpclient.h"

#include "protocol/jsonrpc.h"
#include "protocol/modernrequest.h"
#include "protocol/protocolversion.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>

using json = nlohmann::json;

namespace {

constexpr const char* requestedProtocolVersion = "2025-11-25";
// The stateless revision this client speaks, and the extension whose tasks it polls.
constexpr const char* modernProtocolVersion = ProtocolVersion::modern[0];
constexpr const char* tasksExtension = "io.modelcontextprotocol/tasks";

// One event of a text/event-stream, as the WHATWG rules for EventSource read it.
struct SseEvent
{
    QByteArray type; // empty means "message"
    QByteArray data;
};

// Reads a text/event-stream in whatever pieces the network hands over. Lines end in CRLF, LF or
// CR (a CR at the end of one piece may be the first half of a CRLF), and a blank line ends an
// event. `id` and `retry` are remembered across events (and across a resumed stream) because a
// resumption needs the newest of each even when their event carried no data.
class SseReader
{
public:
    explicit SseReader(qint64 maxEventBytes)
        : m_maxEventBytes(maxEventBytes)
    {}

    // False when an event (or a line) grew past the bound.
    bool feed(const QByteArray& bytes, std::vector<SseEvent>& events)
    {
        for (const char c : bytes) {
            if (m_afterCr) {
                m_afterCr = false;
                if (c == '\n')
                    continue;
            }
            if (c == '\r' || c == '\n') {
                m_afterCr = c == '\r';
                processLine(events);
                m_line.clear();
                continue;
            }
            m_line.append(c);
            if (m_line.size() + m_data.size() > m_maxEventBytes)
                return false;
        }
        return true;
    }

    // A new stream (a resumption) starts with no half-read line or event.
    void restart()
    {
        m_line.clear();
        m_data.clear();
        m_type.clear();
        m_afterCr = false;
    }

    QByteArray lastEventId() const { return m_lastEventId; }
    std::optional<qint64> retryMs() const { return m_retryMs; }

private:
    void processLine(std::vector<SseEvent>& events)
    {
        if (m_line.isEmpty()) {
            // Dispatch: an event without data is no event (but its id and retry stay).
            if (!m_data.isEmpty()) {
                m_data.chop(1); // the newline after the last data line
                events.push_back({m_type, m_data});
            }
            m_data.clear();
            m_type.clear();
            return;
        }
        if (m_line.startsWith(':'))
            return; // a comment: keep-alives
        const qsizetype colon = m_line.indexOf(':');
        const QByteArray field = colon < 0 ? m_line : m_line.left(colon);
        QByteArray value = colon < 0 ? QByteArray() : m_line.mid(colon + 1);
        if (value.startsWith(' '))
            value.remove(0, 1);
        if (field == "data") {
            m_data.append(value);
            m_data.append('\n');
        } else if (field == "event") {
            m_type = value;
        } else if (field == "id") {
            if (!value.contains('\0'))
                m_lastEventId = value;
        } else if (field == "retry") {
            bool ok = false;
            const qint64 ms = value.toLongLong(&ok);
            if (ok && ms >= 0 && !value.startsWith('+'))
                m_retryMs = ms;
        }
    }

    qint64 m_maxEventBytes;
    QByteArray m_line;
    QByteArray m_data;
    QByteArray m_type;
    QByteArray m_lastEventId;
    std::optional<qint64> m_retryMs;
    bool m_afterCr = false;
};

// Whether an event carries a JSON-RPC message: only "message" events with data do (a priming event
// carries just an id and a retry).
bool carriesMessage(const SseEvent& event)
{
    return (event.type.isEmpty() || event.type == "message") && !event.data.trimmed().isEmpty();
}

// The message handlers' operation id for messages that belong to no call (the GET stream's).
constexpr quint64 noOperation = 0;

McpClient::Failure makeFailure(McpClient::FailureKind kind, const QString& message, int httpStatus = 0)
{
    McpClient::Failure failure;
    failure.kind = kind;
    failure.message = message;
    failure.httpStatus = httpStatus;
    return failure;
}

McpClient::Outcome failedOutcome(McpClient::Failure failure)
{
    McpClient::Outcome outcome;
    outcome.failure = std::move(failure);
    return outcome;
}

QString fromStd(const std::string& text)
{
    return QString::fromStdString(text);
}

// Why a message from the upstream could not be read: not JSON, or JSON beyond the parser's limits
// (nesting, values), which is refused rather than built.
QString unreadable(const JsonRpc::ParseResult& parsed)
{
    return (parsed.problem == BoundedJson::Problem::Malformed ? QStringLiteral("is not JSON: ")
                                                              : QStringLiteral("is refused: "))
        + fromStd(parsed.error);
}

// Session ids are visible ASCII (the transport's rule); anything else is not put into a header.
bool isValidSessionId(const QByteArray& id)
{
    if (id.isEmpty() || id.size() > 1024)
        return false;
    for (const char c : id) {
        if (c < 0x21 || c > 0x7e)
            return false;
    }
    return true;
}

// The most of an error response's body kept, to tell a lost session from other refusals and to
// quote the upstream's words.
constexpr qint64 maxErrorBodyBytes = 64 * 1024;

// Whether an upstream's words say it no longer knows the session: servers answer an unknown session
// with 404 (as the transport specifies), with 400 and "No valid session ID provided" (the reference
// server, for a session it lost in a restart), or with a JSON-RPC error ("Session not found").
bool saysSessionIsGone(const QString& text)
{
    static const QRegularExpression words(
        QStringLiteral("session.{0,40}(not found|unknown|invalid|expired|terminated|does not exist|no longer)|"
                       "(no valid|unknown|invalid|expired) session"),
        QRegularExpression::CaseInsensitiveOption);
    return words.match(text).hasMatch();
}

// The message of a JSON-RPC error in an error response's body, cut short; empty when there is none.
QString rpcErrorMessage(const QByteArray& body)
{
    if (body.isEmpty())
        return {};
    const JsonRpc::ParseResult parsed = JsonRpc::parse(body);
    if (!parsed.ok || !parsed.value.is_object())
        return {};
    const auto error = parsed.value.find("error");
    if (error == parsed.value.end() || !error->is_object())
        return {};
    const auto message = error->find("message");
    if (message == error->end() || !message->is_string())
        return {};
    return QString::fromStdString(message->get<std::string>()).left(500);
}

// The JSON-RPC error object of an error response's body, or null when the body carries none.
json rpcErrorObject(const QByteArray& body)
{
    const JsonRpc::ParseResult parsed = JsonRpc::parse(body);
    if (!parsed.ok || !parsed.value.is_object())
        return nullptr;
    const auto error = parsed.value.find("error");
    if (error == parsed.value.end() || !error->is_object())
        return nullptr;
    return *error;
}

// A JSON-RPC error's code, 0 when it has none.
int rpcCode(const json& error)
{
    if (!error.is_object())
        return 0;
    const auto code = error.find("code");
    return code != error.end() && code->is_number_integer() ? code->get<int>() : 0;
}

QString rpcText(const json& error)
{
    if (!error.is_object())
        return QStringLiteral("no message");
    const auto message = error.find("message");
    return message != error.end() && message->is_string() ? fromStd(message->get<std::string>()).left(500)
                                                          : QStringLiteral("no message");
}

// The versions an UnsupportedProtocolVersion error's data.supported names.
std::vector<std::string> supportedVersionsOf(const json& error)
{
    std::vector<std::string> versions;
    if (!error.is_object() || !error.contains("data") || !error["data"].is_object())
        return versions;
    const json& supported = error["data"].value("supported", json());
    if (!supported.is_array())
        return versions;
    for (const json& version : supported) {
        if (version.is_string())
            versions.push_back(version.get<std::string>());
    }
    return versions;
}

bool namesModern(const std::vector<std::string>& versions)
{
    return std::any_of(
        versions.begin(), versions.end(), [](const std::string& v) { return v == modernProtocolVersion; });
}

bool namesLegacy(const std::vector<std::string>& versions)
{
    return std::any_of(
        versions.begin(), versions.end(), [](const std::string& v) { return ProtocolVersion::isSupported(v); });
}

// The methods whose result may be input_required (multi round-trip requests).
bool mayAskForInput(const QString& method)
{
    return method == QLatin1String("tools/call") || method == QLatin1String("prompts/get")
        || method == QLatin1String("resources/read");
}

// The keywords under which an x-mcp-header annotation is not reached through `properties` alone (the
// SDK's list): found there, it makes the tool invalid.
constexpr std::array<const char*, 18> unreachableKeywords = {"items", "prefixItems", "contains", "additionalProperties",
    "unevaluatedProperties", "unevaluatedItems", "propertyNames", "patternProperties", "dependentSchemas", "oneOf",
    "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions"};

// RFC 9110 token characters.
bool isToken(const std::string& text)
{
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$"));
    return !text.empty() && token.match(fromStd(text)).hasMatch();
}

// Whether an error response (its body, JSON-RPC or plain text) says the session is gone.
bool bodySaysSessionIsGone(const QByteArray& body)
{
    const QString message = rpcErrorMessage(body);
    return saysSessionIsGone(message.isEmpty() ? QString::fromUtf8(body.left(4096)) : message);
}

class PendingCallHandle : public McpClient::PendingCall
{
public:
    PendingCallHandle(std::function<void(quint64, const QString&)> cancel, quint64 opId)
        : m_cancel(std::move(cancel))
        , m_opId(opId)
    {}
    void cancel(const QString& reason) override
    {
        if (m_cancel)
            m_cancel(m_opId, reason);
    }

private:
    std::function<void(quint64, const QString&)> m_cancel;
    quint64 m_opId;
};

} // namespace

class McpClient::Private
{
public:
    // One JSON-RPC request from the first POST to its response, through a 404 retry and SSE
    // resumptions.
    struct Operation
    {
        quint64 opId = 0;
        json rpcId;
        QString method;
        json params;
        CallOptions options;
        std::function<void(Outcome)> done;
        QNetworkReply* reply = nullptr; // the current POST or resumption GET
        bool replyIsSse = false;
        bool headersSeen = false;
        bool sent = false; // reached the upstream at least once: a cancellation is worth sending
        bool retriedInNewSession = false; // the upstream lost the session once: sent again in a new one
        bool sendingAgain = false; // from then until it is sent again
        bool needsSession = true; // false for initialize itself
        QByteArray sessionIdSent; // the session id the current POST carried
        quint64 sessionSent = 0; // which session (Private::session) the current POST belonged to
        // Requests of the upstream's (elicitation/create) still waiting for their answer: while any
        // does, the deadline is stopped with `deadlineLeftMs` left, for a person's time is not the
        // upstream's.
        int unansweredServerRequests = 0;
        qint64 deadlineLeftMs = 0;
        QByteArray responseSessionId; // Mcp-Session-Id of the response (initialize)
        // 2026-07-28: the request went with its headers and envelope (era Modern, or the probe).
        bool modern = false;
        bool probe = false; // the server/discover probe that learns the era
        // What the current POST asks, when it is not `method` with `params`: a retry with the
        // answers to input_required, a task's tasks/get or tasks/update. Empty: `method`, `params`.
        QString wireMethod;
        json wireParams;
        bool declaresTasks = false; // tools/call: the Tasks extension declared on each request
        std::optional<std::string> taskId; // the upstream made the call a task
        qint64 pollMs = 0; // the task's poll interval, within Settings' bounds
        std::unique_ptr<QTimer> pollTimer;
        // Input requests (input_required, a task's input_required status) handed to the call's
        // ServerRequestHandler: the round they belong to, the answers so far, how many are awaited,
        // and what follows once all have come. Keys a task already had answered are not asked again.
        int inputRounds = 0;
        quint64 inputRound = 0;
        json inputResponses;
        int inputsAwaited = 0;
        std::function<void(json responses)> inputsAnswered;
        std::set<std::string> answeredInputKeys;
        bool versionRetried = false; // sent again once after UnsupportedProtocolVersion
        bool headersRetried = false; // sent again once after the tools were listed anew (-32020)
        QByteArray body; // a JSON response body
        qint64 totalBytes = 0;
        int resumes = 0;
        std::unique_ptr<SseReader> sse;
        std::unique_ptr<QTimer> deadline;
        std::unique_ptr<QTimer> resumeTimer;
        QObject* receiver = nullptr; // the McpClient: every connection to the reply is made with it

        // An operation that ends with its reply still open (the response came on an event stream
        // the upstream is about to end) lets the reply end by itself, so that its connection is
        // kept for the next request instead of closed and opened again.
        ~Operation() { releaseReply(); }
        void releaseReply()
        {
            if (!reply)
                return;
            QNetworkReply* r = reply;
            reply = nullptr;
            QObject::disconnect(r, nullptr, receiver, nullptr);
            if (r->isFinished()) {
                r->deleteLater();
                return;
            }
            // Nobody reads it any more: a little is buffered, then the stream waits; one the
            // upstream keeps open is cut after a second.
            r->setReadBufferSize(64 * 1024);
            QObject::connect(r, &QNetworkReply::finished, r, &QObject::deleteLater);
            QTimer::singleShot(1'000, r, [r] { r->abort(); });
        }
        void dropReply()
        {
            if (!reply)
                return;
            QNetworkReply* r = reply;
            reply = nullptr;
            // Only this client's connections: the reply's own ones carry abort() to the network
            // thread, and without them the request keeps its connection (one of the six to the
            // host) until the upstream answers a request it was told is cancelled, which it never does.
            QObject::disconnect(r, nullptr, receiver, nullptr);
            r->abort();
            r->deleteLater();
        }
    };

    // The session's standalone GET stream: what the upstream sends outside any call. It has a
    // manager of its own, so the connection it holds for the whole session is never one of the six
    // a call manager opens to the host, and it is counted nowhere as a call.
    struct Listener
    {
        explicit Listener(qint64 maxEventBytes)
            : sse(maxEventBytes)
        {}
        QNetworkReply* reply = nullptr;
        SseReader sse; // across reopenings: the last event id goes out as Last-Event-ID
        bool headersSeen = false;
        bool accepted = false; // a 2xx event stream
        bool delivered = false; // a message arrived since it opened
        QByteArray errorBody; // the start of a refusal's body: it may say the session is gone
        int failures = 0; // reopenings in a row that delivered nothing: the backoff's exponent
        QElapsedTimer openedAt;
        std::unique_ptr<QTimer> reopenTimer;
    };

    explicit Private(McpClient* client)
        : q(client)
    {}

    ~Private()
    {
        // Destruction runs no callback: operations go without their completions, and replies
        // still on the way are cut off before they can report.
        ops.clear();
        stopListening();
        for (QNetworkReply* reply : std::set<QNetworkReply*>(looseReplies)) {
            QObject::disconnect(reply, nullptr, q, nullptr); // ours only, as in Operation::dropReply
            reply->abort();
            reply->deleteLater();
        }
        // Before this Private goes: deleting a manager deletes its replies, whose request counts
        // would otherwise be decremented in a Private that no longer exists.
        for (auto& [manager, inFlight] : networkManagers)
            delete manager;
        delete listenManager;
    }

    McpClient* q;
    // Created on first use, as many as settings().networkManagers; each with its requests in flight.
    std::vector<std::pair<QNetworkAccessManager*, int>> networkManagers;
    std::map<quint64, std::unique_ptr<Operation>> ops;
    std::set<QNetworkReply*> looseReplies; // notifications and answers nobody waits on
    std::unique_ptr<Listener> listener; // while the session listens or waits to listen again
    QNetworkAccessManager* listenManager = nullptr; // created on first use

    quint64 nextOpId = 1;
    qint64 nextRpcId = 1;

    bool initialized = false;
    QByteArray sessionId;
    QByteArray protocolVersion; // sent as MCP-Protocol-Version once negotiated
    InitializeResult initResult;
    std::optional<quint64> initializingOp; // the one initialize every waiter shares
    quint64 generation = 0; // counts close() and failed initializations: late answers are stale
    quint64 session = 0; // counts sessions opened: a request knows which one it was sent in
    bool listeningStopped = false; // stopListening(): no GET stream, in this session or a later one
    std::vector<std::function<void(const std::optional<Failure>&)>> initWaiters;
    QByteArray pendingSessionId; // from the initialize response, taken once initialize succeeded

    Era era = Era::Unknown;
    int probes = 0; // server/discover probes of this negotiation (one more after -32022 naming 2026)
    bool initializeSaidModern = false; // this negotiation went back to probing once after initialize's -32022
    // The last 2026 tools/list: reused until freshUntil, its tools' inputSchemas kept (also after)
    // for the Mcp-Param-* headers of their calls.
    struct ToolCache
    {
        ToolList list;
        QDeadlineTimer freshUntil;
    };
    std::optional<ToolCache> toolCache;
    std::map<std::string, json> toolSchemas;
    std::unique_ptr<QTimer> toolCacheTimer; // toolsListExpired when the ttlMs runs out
    qint64 nextListenId = 1;

    const Settings& settings() const { return q->m_settings; }

    // --- 2026-07-28 requests --------------------------------------------------------------------

    // The per-request envelope: this revision, who asks, and what it can answer (elicitation, as a
    // 2025 session declares; the Tasks extension on a call, whose task it polls).
    json envelope(bool declaresTasks) const
    {
        json capabilities = {{"elicitation", json::object()}};
        if (declaresTasks)
            capabilities["extensions"] = {{tasksExtension, json::object()}};
        return {{ModernRequest::ProtocolVersionKey, modernProtocolVersion},
            {ModernRequest::ClientInfoKey,
                {{"name", settings().clientName.toStdString()}, {"version", settings().clientVersion.toStdString()}}},
            {ModernRequest::ClientCapabilitiesKey, capabilities}};
    }

    static json withEnvelope(json params, const json& envelope)
    {
        if (!params.is_object())
            params = json::object();
        json& meta = params["_meta"];
        if (!meta.is_object())
            meta = json::object();
        for (const auto& [key, value] : envelope.items())
            meta[key] = value;
        return params;
    }

    // A POST of this revision: its version, Mcp-Method, Mcp-Name where the method has a name, and
    // for tools/call the Mcp-Param-* headers of the tool's x-mcp-header arguments (from the last
    // listing; a tool not listed yet gets none, and a refusal for it lists the tools again).
    QNetworkRequest makeModernRequest(const QString& method, const json& params) const
    {
        QNetworkRequest request = makeRequest(false);
        request.setRawHeader("MCP-Protocol-Version", modernProtocolVersion);
        request.setRawHeader("Mcp-Method", method.toUtf8());
        const char* nameKey = nullptr;
        if (method == QLatin1String("tools/call") || method == QLatin1String("prompts/get"))
            nameKey = "name";
        else if (method == QLatin1String("resources/read"))
            nameKey = "uri";
        else if (method.startsWith(QLatin1String("tasks/")))
            nameKey = "taskId";
        if (nameKey && params.is_object() && params.contains(nameKey)) {
            const json& name = params[nameKey];
            request.setRawHeader("Mcp-Name", headerValue(name.is_string() ? name.get<std::string>() : name.dump()));
        }
        if (method == QLatin1String("tools/call") && params.is_object() && params.value("name", json()).is_string()) {
            const auto schema = toolSchemas.find(params["name"].get<std::string>());
            if (schema != toolSchemas.end()) {
                for (const auto& [name, value] : paramHeaders(schema->second, params.value("arguments", json())))
                    request.setRawHeader(name, value);
            }
        }
        return request;
    }

    QNetworkRequest makeRequest(bool streamOnly) const
    {
        QNetworkRequest request(settings().endpoint);
        // A redirect would carry the credential to wherever the upstream pointed.
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setRawHeader("Accept", streamOnly ? "text/event-stream" : "application/json, text/event-stream");
        if (!streamOnly)
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        if (!protocolVersion.isEmpty())
            request.setRawHeader("MCP-Protocol-Version", protocolVersion);
        if (!sessionId.isEmpty())
            request.setRawHeader("Mcp-Session-Id", sessionId);
        if (!settings().bearerToken.isEmpty())
            request.setRawHeader("Authorization", QByteArrayLiteral("Bearer ") + settings().bearerToken);
        return request;
    }

    qint64 timeoutOf(const Operation& op) const
    {
        return op.options.timeoutMs > 0 ? op.options.timeoutMs : settings().requestTimeoutMs;
    }

    // --- starting -----------------------------------------------------------------------------

    quint64 startOperation(
        const QString& method, json params, CallOptions options, std::function<void(Outcome)> done, bool needsSession)
    {
        auto op = std::make_unique<Operation>();
        op->receiver = q;
        const quint64 opId = nextOpId++;
        op->opId = opId;
        op->rpcId = nextRpcId++;
        op->method = method;
        op->params = std::move(params);
        op->options = std::move(options);
        op->done = std::move(done);
        op->needsSession = needsSession;
        op->deadline = std::make_unique<QTimer>();
        op->deadline->setSingleShot(true);
        op->deadline->setInterval(std::chrono::milliseconds(timeoutOf(*op)));
        QObject::connect(op->deadline.get(), &QTimer::timeout, q, [this, opId] { onDeadline(opId); });
        op->deadline->start();
        ops.emplace(opId, std::move(op));

        // Started on the next turn of the event loop: the caller gets its PendingCall before any
        // completion can run, and a completion never runs inside the call that asked for it.
        QTimer::singleShot(0, q, [this, opId] { dispatch(opId); });
        return opId;
    }

    void dispatch(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        if (!op->needsSession || initialized) {
            send(opId);
            return;
        }
        ensureInitialized([this, opId](const std::optional<Failure>& failure) {
            if (!find(opId))
                return;
            if (failure)
                finish(opId, failedOutcome(*failure));
            else
                send(opId);
        });
    }

    // The index of the manager with the fewest requests in flight, so a call does not queue behind six busy
    // connections while another manager has idle ones.
    std::size_t leastBusyManager()
    {
        if (networkManagers.empty()) {
            const int count = std::clamp(settings().networkManagers, 1, 16);
            for (int i = 0; i < count; ++i)
                networkManagers.emplace_back(new QNetworkAccessManager(q), 0);
        }
        const auto least = std::min_element(networkManagers.begin(), networkManagers.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
        return std::size_t(least - networkManagers.begin());
    }

    // Sends through the least busy manager and counts the request until it finishes (an abort
    // finishes it too). The count's connection has the manager as context, not the client, so
    // Operation::dropReply leaves it in place.
    template<typename Send>
    QNetworkReply* sendCounted(Send send)
    {
        const std::size_t index = leastBusyManager();
        QNetworkAccessManager* manager = networkManagers[index].first;
        QNetworkReply* reply = send(manager);
        ++networkManagers[index].second;
        QObject::connect(reply, &QNetworkReply::finished, manager, [this, index] { --networkManagers[index].second; });
        return reply;
    }

    Operation* find(quint64 opId)
    {
        auto it = ops.find(opId);
        return it == ops.end() ? nullptr : it->second.get();
    }

    void send(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        // The era is the one current when it goes: a request that waited for the negotiation goes
        // in whichever it found.
        op->modern = op->probe || era == Era::Modern;
        const QString& method = op->wireMethod.isEmpty() ? op->method : op->wireMethod;
        json params = op->wireMethod.isEmpty() ? op->params : op->wireParams;
        if (op->modern)
            params = withEnvelope(std::move(params), envelope(op->declaresTasks));
        json message = {{"jsonrpc", "2.0"}, {"id", op->rpcId}, {"method", method.toStdString()}};
        if (!params.is_null())
            message["params"] = params;
        const QByteArray body = QByteArray::fromStdString(message.dump());
        op->sessionIdSent = sessionId;
        op->sessionSent = session;
        op->sent = true;
        op->sendingAgain = false;
        op->totalBytes = 0; // a new response
        const QNetworkRequest request = op->modern ? makeModernRequest(method, params) : makeRequest(false);
        attach(*op, sendCounted([&](QNetworkAccessManager* nam) { return nam->post(request, body); }), false);
    }

    void attach(Operation& op, QNetworkReply* reply, bool resumption)
    {
        op.dropReply();
        op.reply = reply;
        op.headersSeen = false;
        op.replyIsSse = false;
        op.body.clear();
        if (!op.sse)
            op.sse = std::make_unique<SseReader>(settings().maxResponseBytes);
        else if (resumption)
            op.sse->restart();
        const quint64 opId = op.opId;
        QObject::connect(reply, &QNetworkReply::readyRead, q, [this, opId, reply] { onReadyRead(opId, reply); });
        QObject::connect(reply, &QNetworkReply::finished, q, [this, opId, reply] { onFinished(opId, reply); });
    }

    // --- initialization -----------------------------------------------------------------------

    void ensureInitialized(std::function<void(const std::optional<Failure>&)> then)
    {
        if (initialized) {
            then(std::nullopt);
            return;
        }
        initWaiters.push_back(std::move(then));
        if (initializingOp)
            return;
        probes = 0;
        initializeSaidModern = false;
        if (settings().negotiateModern && era != Era::Legacy)
            startProbe();
        else
            startInitialize();
    }

    // server/discover, as a 2026-07-28 request: what it answers decides the era (onDiscoverAnswered).
    void startProbe()
    {
        stopListening();
        sessionId.clear();
        protocolVersion.clear();
        ++probes;
        const quint64 started = generation;
        initializingOp = startOperation(
            QStringLiteral("server/discover"), json::object(), {},
            [this, started](Outcome outcome) {
                if (started == generation)
                    onDiscoverAnswered(std::move(outcome));
            },
            false);
        find(*initializingOp)->probe = true;
    }

    // The era detection of the revision's HTTP transport: a DiscoverResult listing 2026-07-28 is a
    // modern upstream; UnsupportedProtocolVersion says which versions it has (2026-07-28 again:
    // probed once more; only 2025 ones: the handshake); HeaderMismatch or a missing capability is
    // a modern upstream refusing this client's request, a defect reported as such rather than
    // hidden by a fallback; any other refusal (400, 404, 405, a 2025 server's JSON-RPC error, a
    // result without 2026-07-28) is an upstream of the 2025 era. A failure of the upstream itself
    // (unreachable, 5xx, a refused credential, a timeout, nonsense) fails the waiters, as a failed
    // initialize does, and the next request probes again.
    void onDiscoverAnswered(Outcome outcome)
    {
        initializingOp.reset();
        if (outcome.ok()) {
            const json& result = outcome.result;
            const json versions = result.is_object() ? result.value("supportedVersions", json()) : json();
            std::vector<std::string> offered;
            if (versions.is_array()) {
                for (const json& version : versions) {
                    if (version.is_string())
                        offered.push_back(version.get<std::string>());
                }
            }
            if (namesModern(offered))
                becomeModern(result);
            else
                becomeLegacy();
            return;
        }
        const Failure& failure = *outcome.failure;
        const int code = rpcCode(failure.rpcError);
        if (code == JsonRpc::UnsupportedProtocolVersion) {
            const std::vector<std::string> supported = supportedVersionsOf(failure.rpcError);
            if (namesModern(supported) && probes < 2) {
                startProbe();
                return;
            }
            if (namesLegacy(supported)) {
                becomeLegacy();
                return;
            }
            failInitialization(makeFailure(FailureKind::Protocol,
                QStringLiteral("the upstream speaks none of the protocol versions this client does (it names %1)")
                    .arg(fromStd(failure.rpcError.value("data", json::object()).value("supported", json()).dump())),
                failure.httpStatus));
            return;
        }
        if (code == JsonRpc::HeaderMismatch || code == JsonRpc::MissingRequiredClientCapability) {
            Failure refused = failure;
            refused.kind = FailureKind::Protocol;
            refused.message = modernRefusal(QStringLiteral("server/discover"), failure.rpcError);
            failInitialization(refused);
            return;
        }
        if (failure.kind == FailureKind::HttpStatus || failure.kind == FailureKind::Protocol)
            becomeLegacy();
        else
            failInitialization(failure);
    }

    // The words for a 2026 upstream's refusal of a request this client made wrongly.
    static QString modernRefusal(const QString& method, const json& error)
    {
        const int code = rpcCode(error);
        if (code == JsonRpc::HeaderMismatch) {
            return QStringLiteral("the upstream refused %1 because its HTTP headers disagree with its body "
                                  "(HeaderMismatch, -32020: %2). This is a defect in Switchboard's 2026-07-28 "
                                  "client; the request did not run")
                .arg(method, rpcText(error));
        }
        if (code == JsonRpc::MissingRequiredClientCapability) {
            const json data = error.value("data", json::object());
            return QStringLiteral("the upstream refused %1: it needs a client capability Switchboard did not "
                                  "declare (MissingRequiredClientCapability, -32021: %2; required %3)")
                .arg(method, rpcText(error),
                    fromStd(data.is_object() ? data.value("requiredCapabilities", json()).dump() : std::string("?")));
        }
        return QStringLiteral("the upstream refused %1: %2 (%3)").arg(method, rpcText(error)).arg(code);
    }

    void becomeModern(const json& discovered)
    {
        era = Era::Modern;
        InitializeResult init;
        init.protocolVersion = QString::fromLatin1(modernProtocolVersion);
        const json meta = discovered.value("_meta", json::object());
        if (meta.is_object() && meta.contains(ModernRequest::ServerInfoKey))
            init.serverInfo = meta[ModernRequest::ServerInfoKey];
        else
            init.serverInfo = discovered.value("serverInfo", json::object());
        init.capabilities = discovered.value("capabilities", json::object());
        if (discovered.contains("instructions") && discovered["instructions"].is_string())
            init.instructions = fromStd(discovered["instructions"].get<std::string>());
        initResult = std::move(init);
        protocolVersion = modernProtocolVersion;
        sessionId.clear();
        initialized = true;
        ++session;
        forgetToolCache();
        startListening();
        QPointer<McpClient> alive(q);
        Q_EMIT q->sessionChanged(QString());
        if (alive)
            releaseWaiters(std::nullopt);
    }

    // The 2025 handshake, for the waiters of this negotiation.
    void becomeLegacy()
    {
        era = Era::Legacy;
        startInitialize();
    }

    void startInitialize()
    {
        json params = {{"protocolVersion", requestedProtocolVersion},
            {"capabilities", {{"elicitation", json::object()}}},
            {"clientInfo",
                {{"name", settings().clientName.toStdString()}, {"version", settings().clientVersion.toStdString()}}}};
        // A fresh session: no id and no version of an earlier one on the initialize request.
        stopListening();
        sessionId.clear();
        protocolVersion.clear();
        const quint64 started = generation;
        initializingOp = startOperation(
            QStringLiteral("initialize"), std::move(params), {},
            [this, started](Outcome outcome) {
                // A close() since then: its waiters were answered already.
                if (started == generation)
                    onInitializeAnswered(std::move(outcome));
            },
            false);
    }

    void onInitializeAnswered(Outcome outcome)
    {
        if (!outcome.ok()) {
            // A 2026-only upstream (an upgrade since the era was learnt) names 2026-07-28: probed
            // again, once in this negotiation.
            if (settings().negotiateModern && !initializeSaidModern
                && rpcCode(outcome.failure->rpcError) == JsonRpc::UnsupportedProtocolVersion
                && namesModern(supportedVersionsOf(outcome.failure->rpcError))) {
                initializeSaidModern = true;
                initializingOp.reset();
                era = Era::Unknown;
                probes = 0;
                startProbe();
                return;
            }
            failInitialization(*outcome.failure);
            return;
        }
        const json& result = outcome.result;
        if (!result.is_object() || !result.contains("protocolVersion") || !result["protocolVersion"].is_string()) {
            failInitialization(
                makeFailure(FailureKind::Malformed, QStringLiteral("the initialize result names no protocolVersion")));
            return;
        }
        const std::string version = result["protocolVersion"].get<std::string>();
        if (!ProtocolVersion::isSupported(version)) {
            failInitialization(makeFailure(FailureKind::Protocol,
                QStringLiteral("the upstream speaks protocol version %1, which this client does not")
                    .arg(fromStd(version))));
            return;
        }
        InitializeResult init;
        init.protocolVersion = fromStd(version);
        init.serverInfo = result.value("serverInfo", json::object());
        init.capabilities = result.value("capabilities", json::object());
        if (result.contains("instructions") && result["instructions"].is_string())
            init.instructions = fromStd(result["instructions"].get<std::string>());
        initResult = std::move(init);
        protocolVersion = QByteArray::fromStdString(version);
        sessionId = pendingSessionId;
        pendingSessionId.clear();
        const quint64 started = generation;

        // notifications/initialized is waited for: a request overtaking it on another connection
        // would reach a server that does not yet count the session as ready.
        postLoose(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
            [this, started](const std::optional<Failure>& failure) {
                if (started != generation)
                    return;
                if (failure) {
                    failInitialization(*failure);
                    return;
                }
                initialized = true;
                ++session;
                initializingOp.reset();
                startListening();
                QPointer<McpClient> alive(q);
                Q_EMIT q->sessionChanged(QString::fromLatin1(sessionId));
                if (alive)
                    releaseWaiters(std::nullopt);
            });
    }

    void failInitialization(const Failure& failure)
    {
        stopListening();
        ++generation;
        initializingOp.reset();
        initialized = false;
        sessionId.clear();
        protocolVersion.clear();
        releaseWaiters(failure);
    }

    void releaseWaiters(const std::optional<Failure>& failure)
    {
        QPointer<McpClient> alive(q);
        auto waiters = std::move(initWaiters);
        initWaiters.clear();
        for (auto& waiter : waiters) {
            if (!alive)
                return;
            waiter(failure);
        }
    }

    // A POST whose response body nobody reads: notifications, answers to the upstream's requests.
    // Bounded in time too: initialization waits on notifications/initialized.
    void postLoose(const json& message, std::function<void(const std::optional<Failure>&)> done = {},
        std::optional<QNetworkRequest> prepared = std::nullopt)
    {
        QNetworkRequest request = prepared ? *prepared : makeRequest(false);
        request.setTransferTimeout(int(std::min<qint64>(settings().requestTimeoutMs, std::numeric_limits<int>::max())));
        const QByteArray body = QByteArray::fromStdString(message.dump());
        QNetworkReply* reply = sendCounted([&](QNetworkAccessManager* nam) { return nam->post(request, body); });
        looseReplies.insert(reply);
        QObject::connect(reply, &QNetworkReply::finished, q, [this, reply, done = std::move(done)] {
            looseReplies.erase(reply);
            reply->deleteLater();
            if (!done)
                return;
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const bool timedOut = reply->error() == QNetworkReply::TimeoutError
                || reply->error() == QNetworkReply::OperationCanceledError; // only the transfer timeout cancels
            if (status == 0)
                done(makeFailure(timedOut ? FailureKind::Timeout : FailureKind::Connection, reply->errorString()));
            else if (status < 200 || status > 299)
                done(failureForStatus(status, reply));
            else
                done(std::nullopt);
        });
    }

    // --- responses ----------------------------------------------------------------------------

    static Failure failureForStatus(int status, QNetworkReply* reply, const QByteArray& body = {})
    {
        const QString reason = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
        QString message = QStringLiteral("the upstream answered HTTP %1 %2").arg(status).arg(reason).trimmed();
        if (const QString why = rpcErrorMessage(body); !why.isEmpty())
            message += QStringLiteral(" (%1)").arg(why);
        Failure failure;
        if (status == 401 || status == 403)
            failure = makeFailure(FailureKind::Authentication, message, status);
        else if (status >= 500 && status <= 599)
            failure = makeFailure(FailureKind::ServerError, message, status);
        else
            failure = makeFailure(FailureKind::HttpStatus, message, status);
        // The era's refusals (UnsupportedProtocolVersion's data.supported) are read from it.
        failure.rpcError = rpcErrorObject(body);
        return failure;
    }

    bool readHeaders(Operation& op, QNetworkReply* reply)
    {
        if (op.headersSeen)
            return true;
        const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        if (!status.isValid())
            return false;
        op.headersSeen = true;
        const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().toLower();
        op.replyIsSse = type.startsWith("text/event-stream");
        if (reply->hasRawHeader("Mcp-Session-Id"))
            op.responseSessionId = reply->rawHeader("Mcp-Session-Id");
        return true;
    }

    void onReadyRead(quint64 opId, QNetworkReply* reply)
    {
        Operation* op = find(opId);
        if (!op || op->reply != reply || !readHeaders(*op, reply))
            return;
        const QByteArray chunk = reply->readAll();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status < 200 || status > 299) {
            // The status decides at the end; the start of the body says why (a lost session).
            if (op->body.size() < maxErrorBodyBytes)
                op->body.append(chunk.left(maxErrorBodyBytes - op->body.size()));
            return;
        }
        op->totalBytes += chunk.size();
        if (op->totalBytes > settings().maxResponseBytes) {
            failTooLarge(opId);
            return;
        }
        if (!op->replyIsSse) {
            op->body.append(chunk);
            return;
        }
        std::vector<SseEvent> events;
        const bool withinBounds = op->sse->feed(chunk, events);
        deliverEvents(opId, reply, std::move(events));
        if (!withinBounds && find(opId) && find(opId)->reply == reply)
            failTooLarge(opId);
    }

    void failTooLarge(quint64 opId)
    {
        finish(opId,
            failedOutcome(makeFailure(FailureKind::Malformed,
                QStringLiteral("the upstream's response is larger than %1 bytes").arg(settings().maxResponseBytes))));
    }

    // Each event can finish the operation, send it again (a lost session) or destroy the client: all
    // are checked before the next.
    void deliverEvents(quint64 opId, QNetworkReply* reply, std::vector<SseEvent> events)
    {
        QPointer<McpClient> alive(q);
        for (SseEvent& event : events) {
            if (!alive || !find(opId) || find(opId)->reply != reply)
                return;
            if (!carriesMessage(event))
                continue;
            const JsonRpc::ParseResult parsed = JsonRpc::parse(event.data);
            if (!parsed.ok) {
                finish(opId,
                    failedOutcome(makeFailure(FailureKind::Malformed,
                        QStringLiteral("the upstream sent an event that %1").arg(unreadable(parsed)))));
                return;
            }
            handleMessage(opId, parsed.value);
        }
    }

    void handleMessage(quint64 opId, const json& message)
    {
        if (message.is_array()) {
            // A batch (2025-03-26): each member in turn, as long as the operation lasts.
            QPointer<McpClient> alive(q);
            for (const json& member : message) {
                if (!alive || !find(opId))
                    return;
                handleMessage(opId, member);
            }
            return;
        }
        Operation* op = find(opId);
        if (!op)
            return;
        if (!message.is_object()) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed, QStringLiteral("the upstream sent a non-object"))));
            return;
        }
        const bool hasMethod = message.contains("method") && message["method"].is_string();
        if (hasMethod && message.contains("id")) {
            // A 2026 upstream asks through input_required, never with a request of its own.
            if (!op->modern)
                handleServerRequest(opId, message);
            return;
        }
        if (hasMethod) {
            handleNotification(opId, message);
            return;
        }
        if (!message.contains("id") || message["id"] != op->rpcId)
            return; // a response to something else
        if (message.contains("error")) {
            onErrorResponse(opId, message["error"], 0);
            return;
        }
        if (!message.contains("result")) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed,
                    QStringLiteral("the upstream's response to %1 has neither result nor error").arg(op->method))));
            return;
        }
        if (op->modern) {
            onModernResult(opId, message["result"]);
            return;
        }
        if (op->method == QLatin1String("initialize"))
            pendingSessionId = isValidSessionId(op->responseSessionId) ? op->responseSessionId : QByteArray();
        Outcome outcome;
        outcome.result = message["result"];
        finish(opId, std::move(outcome));
    }

    // A JSON-RPC error in answer to the operation's current request (in a body of any status).
    void onErrorResponse(quint64 opId, const json& error, int httpStatus)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        const QString text = rpcText(error);
        if (!op->modern && error.is_object() && error.contains("message") && error["message"].is_string()
            && saysSessionIsGone(text) && sendAgainInNewSession(opId))
            return;
        if (!op->modern && switchToModern(opId, error))
            return;
        const QString& wireMethod = op->wireMethod.isEmpty() ? op->method : op->wireMethod;
        const int code = rpcCode(error);
        if (op->modern && !op->probe && wireMethod == op->method) {
            if (code == JsonRpc::UnsupportedProtocolVersion && renegotiate(opId, error))
                return;
            // A refusal in the legacy range (-32000 to -32019), which this revision never uses: the
            // upstream is no longer of it (another program answers now). Its era is learnt again
            // and the request, which did not run, sent once more.
            if (httpStatus >= 400 && httpStatus <= 499 && code <= -32000 && code >= -32019 && !op->versionRetried) {
                op->versionRetried = true;
                forgetModernEra();
                op->sendingAgain = true;
                op->releaseReply();
                QTimer::singleShot(0, q, [this, opId] { dispatch(opId); });
                return;
            }
            // The revision's own advice for a refusal over Mcp-Param-* headers: list the tools
            // again (the annotations may have changed) and retry.
            if (code == JsonRpc::HeaderMismatch && op->method == QLatin1String("tools/call") && !op->headersRetried
                && QString::fromStdString(error.dump()).contains(QLatin1String("mcp-param-"), Qt::CaseInsensitive)) {
                retryAfterListing(opId);
                return;
            }
        }
        QString message;
        if (op->modern && (code == JsonRpc::HeaderMismatch || code == JsonRpc::MissingRequiredClientCapability))
            message = modernRefusal(wireMethod, error);
        else if (op->taskId)
            message = QStringLiteral("the upstream refused %1 for the task %2 of %3: %4 (%5)")
                          .arg(wireMethod, fromStd(*op->taskId), op->method, text)
                          .arg(code);
        else
            message = QStringLiteral("the upstream refused %1: %2 (%3)")
                          .arg(op->method, text,
                              fromStd(error.is_object() ? error.value("code", json()).dump() : std::string("?")));
        Failure failure = makeFailure(FailureKind::Protocol, message, httpStatus);
        failure.rpcError = error;
        finish(opId, failedOutcome(std::move(failure)));
    }

    // UnsupportedProtocolVersion naming 2026-07-28 in answer to a 2025 request of a session: the
    // upstream is of the stateless era now (a newer program on the same endpoint). Its era is learnt
    // again and the request, which did not run, sent once more.
    bool switchToModern(quint64 opId, const json& error)
    {
        Operation* op = find(opId);
        if (!op || !settings().negotiateModern || !op->needsSession || op->versionRetried
            || rpcCode(error) != JsonRpc::UnsupportedProtocolVersion || !namesModern(supportedVersionsOf(error)))
            return false;
        op->versionRetried = true;
        if (initialized && op->sessionSent == session) {
            stopListening();
            initialized = false;
            sessionId.clear();
            protocolVersion.clear();
            era = Era::Unknown;
        }
        op->sendingAgain = true;
        op->releaseReply();
        QTimer::singleShot(0, q, [this, opId] { dispatch(opId); });
        return true;
    }

    // UnsupportedProtocolVersion on a request of the negotiated revision: the upstream changed (or
    // refuses the first request whatever it is). Once per request: 2026-07-28 among data.supported
    // sends it again; only 2025 versions switch to the handshake, and the request (which did not
    // run) goes in the new session.
    bool renegotiate(quint64 opId, const json& error)
    {
        Operation* op = find(opId);
        if (!op || op->versionRetried)
            return false;
        const std::vector<std::string> supported = supportedVersionsOf(error);
        if (namesModern(supported)) {
            op->versionRetried = true;
            sendAgain(opId);
            return true;
        }
        if (!namesLegacy(supported))
            return false;
        op->versionRetried = true;
        stopListening();
        initialized = false;
        protocolVersion.clear();
        era = Era::Legacy;
        forgetToolCache();
        op->sendingAgain = true;
        op->releaseReply();
        QTimer::singleShot(0, q, [this, opId] { dispatch(opId); });
        return true;
    }

    // The operation's current request once more, as a new request (a new id), from the event loop:
    // this may run inside the reply that asked for it.
    void sendAgain(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        op->sendingAgain = true;
        op->releaseReply();
        QTimer::singleShot(0, q, [this, opId] {
            if (Operation* again = find(opId)) {
                again->rpcId = nextRpcId++;
                send(opId);
            }
        });
    }

    void retryAfterListing(quint64 opId)
    {
        Operation* op = find(opId);
        op->headersRetried = true;
        op->sendingAgain = true;
        op->releaseReply();
        forgetToolCache();
        QPointer<McpClient> client(q);
        QTimer::singleShot(0, q, [this, client, opId] {
            q->listTools([client, opId](const ToolList&, const std::optional<Failure>&) {
                // Sent again whatever the listing found: a refusal then is the call's answer.
                if (!client)
                    return;
                if (Operation* again = client->d->find(opId)) {
                    again->rpcId = client->d->nextRpcId++;
                    client->d->send(opId);
                }
            });
        });
    }

    // --- 2026-07-28 results -------------------------------------------------------------------

    // A result is read by its resultType (a missing one is "complete", as from an upstream of an
    // earlier revision): input_required is answered and the request sent again; a task is polled;
    // anything this client did not declare is refused as malformed.
    void onModernResult(quint64 opId, const json& result)
    {
        Operation* op = find(opId);
        // Whatever follows (a poll, input asked for, or the end), this reply has done its part: it is
        // left to finish by itself, and its end fails nothing.
        op->releaseReply();
        op->sendingAgain = true;
        const QString& wireMethod = op->wireMethod.isEmpty() ? op->method : op->wireMethod;
        if (op->taskId && wireMethod == QLatin1String("tasks/get")) {
            onTaskStatus(opId, result);
            return;
        }
        if (op->taskId && wireMethod == QLatin1String("tasks/update")) {
            scheduleTaskPoll(opId);
            return;
        }
        const auto malformed = [&](const QString& why) {
            finish(opId,
                failedOutcome(makeFailure(
                    FailureKind::Malformed, QStringLiteral("the upstream's result of %1 %2").arg(op->method, why))));
        };
        if (!result.is_object()) {
            malformed(QStringLiteral("is not an object"));
            return;
        }
        const json type = result.value("resultType", json("complete"));
        if (!type.is_string()) {
            malformed(QStringLiteral("has a resultType that is not a string"));
            return;
        }
        const std::string kind = type.get<std::string>();
        if (kind == "complete") {
            Outcome outcome;
            outcome.result = result;
            finish(opId, std::move(outcome));
        } else if (kind == "input_required") {
            if (!mayAskForInput(op->method)) {
                malformed(
                    QStringLiteral("is input_required, which only tools/call, prompts/get and resources/read may be"));
                return;
            }
            onInputRequired(opId, result);
        } else if (kind == "task") {
            if (!op->declaresTasks) {
                malformed(QStringLiteral("is a task, though this request did not declare the Tasks extension"));
                return;
            }
            const json id = result.value("taskId", json());
            if (!id.is_string() || id.get<std::string>().empty()) {
                malformed(QStringLiteral("is a task without a taskId"));
                return;
            }
            op->taskId = id.get<std::string>();
            onTaskStatus(opId, result);
        } else {
            malformed(QStringLiteral("has the resultType \"%1\", which this client does not know").arg(fromStd(kind)));
        }
    }

    // Multi round-trip: each input request goes to the call's handler as a 2025 upstream's own
    // request would; once all are answered the request goes again (a new id) with the answers and
    // the requestState exactly as the upstream sent it (none when it sent none).
    void onInputRequired(quint64 opId, const json& result)
    {
        Operation* op = find(opId);
        const json requests = result.value("inputRequests", json::object());
        const json state = result.value("requestState", json());
        if (!requests.is_object() || (!state.is_null() && !state.is_string())
            || (requests.empty() && state.is_null())) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed,
                    QStringLiteral("the upstream's input_required result of %1 has neither inputRequests nor "
                                   "a requestState, or has them of the wrong type")
                        .arg(op->method))));
            return;
        }
        if (++op->inputRounds > settings().maxInputRounds) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Protocol,
                    QStringLiteral("the upstream asked for input (input_required) more than %1 times for one %2; "
                                   "Switchboard gave up")
                        .arg(settings().maxInputRounds)
                        .arg(op->method))));
            return;
        }
        op->releaseReply();
        askForInput(opId, requests, false, [this, opId, state](json responses) {
            Operation* again = find(opId);
            if (!again)
                return;
            json params = again->params;
            if (!responses.empty())
                params["inputResponses"] = std::move(responses);
            if (state.is_string())
                params["requestState"] = state;
            again->wireMethod = again->method;
            again->wireParams = std::move(params);
            sendAgain(opId);
        });
    }

    // Hands each input request (`{method, params}` by key) to the call's handler; `then` gets the
    // answers by key once every one has come. For a task (`skipAnswered`) keys answered before are
    // not asked again (tasks/get repeats what is outstanding until the upstream has taken it in).
    void askForInput(quint64 opId, const json& requests, bool skipAnswered, std::function<void(json)> then)
    {
        Operation* op = find(opId);
        std::vector<std::pair<std::string, json>> asking;
        for (const auto& [key, request] : requests.items()) {
            if (!skipAnswered || !op->answeredInputKeys.count(key))
                asking.emplace_back(key, request);
        }
        if (asking.empty()) {
            then(json::object());
            return;
        }
        const auto fail = [this, opId](FailureKind kind, const QString& why) {
            finish(opId, failedOutcome(makeFailure(kind, why)));
        };
        if (skipAnswered && ++op->inputRounds > settings().maxInputRounds) {
            fail(FailureKind::Protocol,
                QStringLiteral("the upstream's task asked for input more than %1 times; Switchboard gave up")
                    .arg(settings().maxInputRounds));
            return;
        }
        for (const auto& [key, request] : asking) {
            if (!request.is_object() || !request.value("method", json()).is_string()
                || !request.value("params", json::object()).is_object()) {
                fail(FailureKind::Malformed,
                    QStringLiteral("the upstream's input request %1 for %2 is not {method, params}")
                        .arg(fromStd(key), op->method));
                return;
            }
        }
        if (!op->options.serverRequest) {
            fail(FailureKind::Protocol,
                QStringLiteral("the upstream asks for input (%1) for %2, and this call has no one to answer it")
                    .arg(fromStd(asking.front().second["method"].get<std::string>()), op->method));
            return;
        }
        const quint64 round = ++op->inputRound;
        op->inputResponses = json::object();
        op->inputsAwaited = int(asking.size());
        op->inputsAnswered = std::move(then);
        QPointer<McpClient> client(q);
        for (const auto& [requestKey, request] : asking) {
            Operation* current = find(opId);
            if (!client || !current || current->inputRound != round)
                return;
            // A copy: clang 14 cannot capture a structured binding.
            const std::string key = requestKey;
            const std::string method = request["method"].get<std::string>();
            pauseDeadline(*current);
            auto answered = std::make_shared<bool>(false);
            Reply reply = [client, opId, round, key, method, answered](const json& result, const json& error) {
                if (*answered || !client)
                    return;
                *answered = true;
                client->d->onInputAnswered(opId, round, key, method, result, error);
            };
            auto handler = current->options.serverRequest;
            handler(fromStd(method), request.value("params", json::object()), std::move(reply));
        }
    }

    void onInputAnswered(quint64 opId, quint64 round, const std::string& key, const std::string& method,
        const json& result, const json& error)
    {
        Operation* op = find(opId);
        if (!op || op->inputRound != round || op->inputsAwaited == 0)
            return;
        resumeDeadline(opId);
        if (!error.is_null()) {
            // An input request has no way to carry an error back: the call ends with it.
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Protocol,
                    QStringLiteral("the upstream asked for input (%1) for %2, which could not be given: %3")
                        .arg(fromStd(method), op->method, rpcText(error)))));
            return;
        }
        op->inputResponses[key] = result.is_null() ? json::object() : result;
        op->answeredInputKeys.insert(key);
        if (--op->inputsAwaited > 0)
            return;
        auto then = std::move(op->inputsAnswered);
        op->inputsAnswered = nullptr;
        then(std::exchange(op->inputResponses, json::object()));
    }

    // A task's status (the CreateTaskResult, or tasks/get's DetailedTask): polled on while it works,
    // its input requests answered with tasks/update, and the call ends with its outcome.
    void onTaskStatus(quint64 opId, const json& task)
    {
        Operation* op = find(opId);
        op->releaseReply();
        const QString taskName = fromStd(*op->taskId);
        const auto end = [&](FailureKind kind, const QString& why, const json& rpcError = nullptr) {
            Failure failure = makeFailure(kind, why);
            failure.rpcError = rpcError;
            finish(opId, failedOutcome(std::move(failure)));
        };
        if (!task.is_object() || !task.value("status", json()).is_string()) {
            end(FailureKind::Malformed,
                QStringLiteral("the upstream's task %1 of %2 has no status").arg(taskName, op->method));
            return;
        }
        if (task.contains("taskId") && task["taskId"] != json(*op->taskId)) {
            end(FailureKind::Malformed,
                QStringLiteral("the upstream answered tasks/get for the task %1 with another task").arg(taskName));
            return;
        }
        const json interval = task.value("pollIntervalMs", json());
        op->pollMs = std::clamp<qint64>(interval.is_number() && interval.get<double>() >= 0
                ? qint64(std::min(interval.get<double>(), 1e12))
                : settings().defaultTaskPollMs,
            std::max<qint64>(1, settings().minTaskPollMs),
            std::max(settings().minTaskPollMs, settings().maxTaskPollMs));
        const std::string status = task["status"].get<std::string>();
        const QString statusMessage = fromStd(task.value("statusMessage", std::string()));
        if (status == "working") {
            scheduleTaskPoll(opId);
        } else if (status == "input_required") {
            const json requests = task.value("inputRequests", json::object());
            if (!requests.is_object()) {
                end(FailureKind::Malformed,
                    QStringLiteral("the upstream's task %1 needs input but names no inputRequests").arg(taskName));
                return;
            }
            askForInput(opId, requests, true, [this, opId](json responses) {
                Operation* again = find(opId);
                if (!again)
                    return;
                if (responses.empty()) {
                    scheduleTaskPoll(opId);
                    return;
                }
                again->wireMethod = QStringLiteral("tasks/update");
                again->wireParams = {{"taskId", *again->taskId}, {"inputResponses", std::move(responses)}};
                sendAgain(opId);
            });
        } else if (status == "completed") {
            const json result = task.value("result", json());
            if (!result.is_object()) {
                end(FailureKind::Malformed,
                    QStringLiteral("the upstream's task %1 completed without a result").arg(taskName));
                return;
            }
            Outcome outcome;
            outcome.result = result;
            finish(opId, std::move(outcome));
        } else if (status == "failed") {
            const json error = task.value("error", json());
            end(FailureKind::Protocol,
                QStringLiteral("the upstream's task %1 for %2 failed: %3%4")
                    .arg(taskName, op->method, rpcText(error),
                        statusMessage.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(statusMessage)),
                error);
        } else if (status == "cancelled") {
            end(FailureKind::Protocol,
                QStringLiteral("the upstream cancelled its task %1 for %2%3")
                    .arg(taskName, op->method,
                        statusMessage.isEmpty() ? QString() : QStringLiteral(": %1").arg(statusMessage)));
        } else {
            end(FailureKind::Malformed,
                QStringLiteral("the upstream's task %1 has the status \"%2\", which this client does not know")
                    .arg(taskName, fromStd(status)));
        }
    }

    void scheduleTaskPoll(quint64 opId)
    {
        Operation* op = find(opId);
        op->releaseReply();
        op->sendingAgain = true;
        op->pollTimer = std::make_unique<QTimer>();
        op->pollTimer->setSingleShot(true);
        QObject::connect(op->pollTimer.get(), &QTimer::timeout, q, [this, opId] {
            Operation* again = find(opId);
            if (!again)
                return;
            again->wireMethod = QStringLiteral("tasks/get");
            again->wireParams = {{"taskId", *again->taskId}};
            again->rpcId = nextRpcId++;
            send(opId);
        });
        op->pollTimer->start(std::chrono::milliseconds(op->pollMs));
    }

    // tasks/cancel for a task this client gives up on (the call was cancelled, ran out of time, or
    // the client closes); its answer is not waited for, except by close().
    void cancelTask(const std::string& taskId, std::function<void(const std::optional<Failure>&)> done = {})
    {
        const json params = withEnvelope({{"taskId", taskId}}, envelope(true));
        QNetworkRequest request = makeModernRequest(QStringLiteral("tasks/cancel"), params);
        postLoose(json{{"jsonrpc", "2.0"}, {"id", nextRpcId++}, {"method", "tasks/cancel"}, {"params", params}},
            std::move(done), request);
    }

    void forgetModernEra()
    {
        if (era != Era::Modern)
            return;
        stopListening();
        initialized = false;
        protocolVersion.clear();
        era = Era::Unknown;
        forgetToolCache();
    }

    void forgetToolCache()
    {
        toolCache.reset();
        toolCacheTimer.reset();
    }

    // A 2026 listing: tools whose x-mcp-header annotations cannot be honoured are left out (the
    // revision requires it of an HTTP client; the others stay usable), the rest kept for their
    // calls' Mcp-Param-* headers and reused for `ttlMs` (bounded), after which toolsListExpired says so.
    void keepListing(ToolList& list, qint64 ttlMs)
    {
        std::vector<json> kept;
        kept.reserve(list.tools.size());
        toolSchemas.clear();
        for (json& tool : list.tools) {
            const json schema = tool.is_object() ? tool.value("inputSchema", json()) : json();
            if (const std::optional<QString> why = invalidParamHeaders(schema)) {
                qWarning("switchboard: upstream %s: tool %s is left out: %s",
                    qPrintable(settings().endpoint.toDisplayString(QUrl::RemoveUserInfo)),
                    tool.is_object() ? tool.value("name", json()).dump().c_str() : "?", qPrintable(*why));
                continue;
            }
            if (tool.is_object() && tool.value("name", json()).is_string())
                toolSchemas[tool["name"].get<std::string>()] = schema;
            kept.push_back(std::move(tool));
        }
        list.tools = std::move(kept);
        const qint64 lasts = std::clamp<qint64>(ttlMs, 0, std::max<qint64>(0, settings().maxToolListCacheMs));
        toolCache = ToolCache{list, QDeadlineTimer(std::chrono::milliseconds(lasts))};
        toolCacheTimer.reset();
        if (lasts > 0) {
            toolCacheTimer = std::make_unique<QTimer>();
            toolCacheTimer->setSingleShot(true);
            QObject::connect(toolCacheTimer.get(), &QTimer::timeout, q, [this] {
                // Stale from now on, whatever the deadline says: a coarse timer may fire a little early,
                // and the listing it announces must then be fetched, not answered from the cache.
                if (toolCache)
                    toolCache->freshUntil = QDeadlineTimer(0);
                Q_EMIT q->toolsListExpired();
            });
            toolCacheTimer->start(std::chrono::milliseconds(std::max(lasts, settings().minToolListRefreshMs)));
        }
    }

    void handleNotification(quint64 opId, const json& message)
    {
        Operation* op = find(opId);
        const std::string method = message["method"].get<std::string>();
        const json params = message.value("params", json::object());
        if (method == "notifications/progress") {
            if (op && op->options.progress && params.is_object()
                && params.value("progressToken", json()) == progressToken(*op))
                op->options.progress(params);
            return;
        }
        if (method == "notifications/tools/list_changed") {
            forgetToolCache();
            QPointer<McpClient> alive(q);
            Q_EMIT q->toolsListChanged();
            if (!alive)
                return;
            op = find(opId);
        }
        if (op && op->options.notification)
            op->options.notification(fromStd(method), params);
    }

    static json progressToken(const Operation& op) { return "switchboard-" + std::to_string(op.opId); }

    void handleServerRequest(quint64 opId, const json& message)
    {
        Operation* op = find(opId);
        const json id = message["id"];
        const std::string method = message["method"].get<std::string>();
        if (method == "ping") {
            postLoose(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", json::object()}});
            return;
        }
        if (!op || !op->options.serverRequest) {
            postLoose(json{{"jsonrpc", "2.0"}, {"id", id},
                {"error", {{"code", JsonRpc::MethodNotFound}, {"message", "the client does not handle " + method}}}});
            return;
        }
        // The answer may come after the call ended, or never; once at most, and not from a
        // client that is gone. Until it comes the call's timeout is stopped: the handler may be
        // asking a person, whose time is bounded by the handler and never counts against the upstream.
        QPointer<McpClient> client(q);
        auto answered = std::make_shared<bool>(false);
        pauseDeadline(*op);
        Reply reply = [client, answered, id, opId](const json& result, const json& error) {
            if (*answered || !client)
                return;
            *answered = true;
            client->d->resumeDeadline(opId);
            json answer = {{"jsonrpc", "2.0"}, {"id", id}};
            if (!error.is_null())
                answer["error"] = error;
            else
                answer["result"] = result.is_null() ? json::object() : result;
            client->d->postLoose(answer);
        };
        auto handler = op->options.serverRequest;
        handler(fromStd(method), message.value("params", json::object()), std::move(reply));
    }

    void onFinished(quint64 opId, QNetworkReply* reply)
    {
        Operation* op = find(opId);
        if (!op || op->reply != reply)
            return;
        readHeaders(*op, reply);
        // Whatever arrived with the end (readyRead may not have run for the last piece).
        if (reply->bytesAvailable() > 0) {
            onReadyRead(opId, reply);
            op = find(opId);
            if (!op || op->reply != reply)
                return;
        }
        op->reply = nullptr;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();

        // A 2026 upstream refuses with a JSON-RPC error in a 4xx body (HeaderMismatch,
        // UnsupportedProtocolVersion, method not found): read as the error it is. The probe's
        // refusal is read by whoever probed.
        if (op->modern && !op->probe && status >= 400 && status <= 499 && status != 401 && status != 403) {
            if (const json error = rpcErrorObject(op->body); error.is_object()) {
                onErrorResponse(opId, error, status);
                return;
            }
        }
        if (!op->modern && status >= 400 && status <= 499 && switchToModern(opId, rpcErrorObject(op->body)))
            return;
        // A session the upstream no longer knows (it restarted, or expired it): the request was
        // refused before it ran, so it is sent once more in a new session.
        if ((status == 404 || (status == 400 && bodySaysSessionIsGone(op->body))) && sendAgainInNewSession(opId))
            return;
        if (status != 0 && (status < 200 || status > 299)) {
            Failure failure = failureForStatus(status, reply, op->body);
            if (op->resumes > 0) {
                // A stream that cannot be resumed (405: the server keeps no events) is lost.
                failure.kind = FailureKind::Connection;
                failure.message = QStringLiteral("the upstream's event stream dropped and could not be resumed: ")
                    % failure.message;
            }
            finish(opId, failedOutcome(std::move(failure)));
            return;
        }
        if (status == 0) {
            // No HTTP response at all: refused, reset before the headers, DNS, TLS. An upstream
            // that could not be reached may come back as a new process that knows no session: the
            // next request starts a new one rather than learn that from a refusal.
            forgetSession(op->sessionSent, true);
            finish(opId, failedOutcome(makeFailure(FailureKind::Connection, reply->errorString())));
            return;
        }
        if (op->replyIsSse) {
            // The stream ended, or dropped, before the response: resumable when its events had ids.
            if (mayResume(*op)) {
                scheduleResume(opId);
                return;
            }
            const QString why = reply->error() == QNetworkReply::NoError
                ? QStringLiteral("the upstream's event stream ended before the response to %1").arg(op->method)
                : reply->errorString();
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Connection,
                    op->resumes > 0 ? why % QStringLiteral(" (after %1 resumptions)").arg(op->resumes) : why)));
            return;
        }
        if (reply->error() != QNetworkReply::NoError) {
            finish(opId, failedOutcome(makeFailure(FailureKind::Connection, reply->errorString())));
            return;
        }
        const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().toLower();
        if (!type.startsWith("application/json")) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed,
                    QStringLiteral("the upstream answered %1 with content type '%2'")
                        .arg(op->method, QString::fromLatin1(type)),
                    status)));
            return;
        }
        const JsonRpc::ParseResult parsed = JsonRpc::parse(op->body);
        if (!parsed.ok) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed,
                    QStringLiteral("the upstream's response %1").arg(unreadable(parsed)), status)));
            return;
        }
        QPointer<McpClient> alive(q);
        handleMessage(opId, parsed.value);
        if (alive && find(opId) && !find(opId)->sendingAgain) {
            finish(opId,
                failedOutcome(makeFailure(FailureKind::Malformed,
                    QStringLiteral("the upstream's response carries no answer to %1").arg(op->method), status)));
        }
    }

    // The upstream no longer knows the session `op` was sent in, so it did not run the request:
    // the session is forgotten (unless another request learnt it first and a new one is open or
    // opening) and the request goes again, in a new session, once. Not after a resumption: the
    // request reached the upstream then and must not run twice. False when it may not go again,
    // and the caller fails it.
    bool sendAgainInNewSession(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op || !op->needsSession || op->sessionIdSent.isEmpty() || op->resumes > 0 || op->retriedInNewSession)
            return false;
        op->retriedInNewSession = true;
        op->sendingAgain = true;
        op->dropReply();
        forgetSession(op->sessionSent);
        // From the event loop: this may run inside the refused reply's own signal.
        QTimer::singleShot(0, q, [this, opId] { dispatch(opId); });
        return true;
    }

    // DELETE for the current session, not waited for (bounded: a closing client waits for `done`).
    void endSession(std::function<void()> done)
    {
        QNetworkRequest request = makeRequest(false);
        request.setTransferTimeout(int(std::clamp<qint64>(settings().requestTimeoutMs, 1, 5'000)));
        QNetworkReply* reply = sendCounted([&](QNetworkAccessManager* nam) { return nam->deleteResource(request); });
        looseReplies.insert(reply);
        QObject::connect(reply, &QNetworkReply::finished, q, [this, reply, done = std::move(done)] {
            looseReplies.erase(reply);
            reply->deleteLater();
            if (done)
                done();
        });
    }

    // Forgets session `which` if it is still the current one: the next request initializes anew.
    // `endIt` when the upstream did not say it is gone (it could not be reached): a DELETE, not
    // waited for, ends it in case the upstream is there after all and would keep it.
    void forgetSession(quint64 which, bool endIt = false)
    {
        if (!initialized || which != session)
            return;
        if (era == Era::Modern) {
            // No session to forget, but the upstream may come back as another program: the next
            // request learns its era again.
            forgetModernEra();
            return;
        }
        if (endIt && !sessionId.isEmpty())
            endSession({});
        stopListening();
        initialized = false;
        sessionId.clear();
        protocolVersion.clear();
    }

    void pauseDeadline(Operation& op)
    {
        if (op.unansweredServerRequests++ > 0 || !op.deadline)
            return;
        op.deadlineLeftMs = std::max(0, op.deadline->remainingTime());
        op.deadline->stop();
    }

    void resumeDeadline(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op || op->unansweredServerRequests == 0 || --op->unansweredServerRequests > 0 || !op->deadline)
            return;
        op->deadline->start(std::chrono::milliseconds(op->deadlineLeftMs));
    }

    bool mayResume(const Operation& op) const
    {
        // 2026-07-28 has no resumption: a broken stream loses its request.
        return !op.modern && !op.sse->lastEventId().isEmpty() && op.resumes < settings().maxSseResumes;
    }

    void scheduleResume(quint64 opId)
    {
        Operation* op = find(opId);
        ++op->resumes;
        const qint64 delay = op->sse->retryMs().value_or(settings().defaultSseRetryMs);
        op->resumeTimer = std::make_unique<QTimer>();
        op->resumeTimer->setSingleShot(true);
        op->resumeTimer->setTimerType(Qt::PreciseTimer);
        QObject::connect(op->resumeTimer.get(), &QTimer::timeout, q, [this, opId] { resume(opId); });
        op->resumeTimer->start(std::chrono::milliseconds(delay));
    }

    void resume(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        QNetworkRequest request = makeRequest(true);
        request.setRawHeader("Last-Event-ID", op->sse->lastEventId());
        attach(*op, sendCounted([&](QNetworkAccessManager* nam) { return nam->get(request); }), true);
    }

    // --- the GET stream -----------------------------------------------------------------------

    // After initialize: one stream per session, replacing whatever an earlier session had. Only
    // for an upstream that says it sends tools/list_changed, the one message outside calls this
    // client acts on: the stream holds a connection for the whole session, and a server that
    // expects no listener may take a GET for something else (the conformance suite's sse-retry
    // server answers a pending call on any GET, as if it were that call's resumption).
    void startListening()
    {
        stopListening();
        const json& capabilities = initResult.capabilities;
        const bool sendsListChanged = capabilities.is_object() && capabilities.contains("tools")
            && capabilities["tools"].is_object() && capabilities["tools"].value("listChanged", json()) == json(true);
        if (!settings().listenForNotifications || !sendsListChanged || listeningStopped)
            return;
        listener = std::make_unique<Listener>(settings().maxResponseBytes);
        openListener();
    }

    // Aborted, not left to finish: nobody reads it any more and the upstream holds it open. Only
    // this client's connections are cut, as in Operation::dropReply.
    void stopListening()
    {
        const std::unique_ptr<Listener> ending = std::move(listener);
        if (!ending || !ending->reply)
            return;
        QNetworkReply* reply = ending->reply;
        QObject::disconnect(reply, nullptr, q, nullptr);
        reply->abort();
        reply->deleteLater();
    }

    void openListener()
    {
        if (!listener || listener->reply)
            return;
        if (!listenManager)
            listenManager = new QNetworkAccessManager(q);
        listener->sse.restart();
        listener->headersSeen = false;
        listener->accepted = false;
        listener->delivered = false;
        listener->errorBody.clear();
        listener->openedAt.start();
        QNetworkReply* reply = nullptr;
        if (era == Era::Modern) {
            // 2026-07-28: a subscriptions/listen request whose response stream stays open.
            const json params = withEnvelope({{"notifications", {{"toolsListChanged", true}}}}, envelope(false));
            const json message = {{"jsonrpc", "2.0"}, {"id", "switchboard-listen-" + std::to_string(nextListenId++)},
                {"method", "subscriptions/listen"}, {"params", params}};
            reply = listenManager->post(makeModernRequest(QStringLiteral("subscriptions/listen"), params),
                QByteArray::fromStdString(message.dump()));
        } else {
            QNetworkRequest request = makeRequest(true);
            if (!listener->sse.lastEventId().isEmpty())
                request.setRawHeader("Last-Event-ID", listener->sse.lastEventId());
            reply = listenManager->get(request);
        }
        // Read as it comes; what waits unread for the next turn of the event loop is bounded too.
        reply->setReadBufferSize(std::min<qint64>(settings().maxResponseBytes, 1024 * 1024));
        listener->reply = reply;
        QObject::connect(reply, &QNetworkReply::readyRead, q, [this, reply] { onListenerReadyRead(reply); });
        QObject::connect(reply, &QNetworkReply::finished, q, [this, reply] { onListenerFinished(reply); });
    }

    bool isListening(QNetworkReply* reply) const { return listener && listener->reply == reply; }

    void onListenerReadyRead(QNetworkReply* reply)
    {
        if (!isListening(reply))
            return;
        if (!listener->headersSeen) {
            const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
            if (!status.isValid())
                return;
            listener->headersSeen = true;
            const QByteArray type = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray().toLower();
            listener->accepted = status.toInt() >= 200 && status.toInt() <= 299 && type.startsWith("text/event-stream");
        }
        // Not kept when it is no event stream (the status decides at the end), but for the start of
        // a refusal, which may say the session is gone.
        const QByteArray chunk = reply->readAll();
        if (!listener->accepted) {
            if (listener->errorBody.size() < maxErrorBodyBytes)
                listener->errorBody.append(chunk.left(maxErrorBodyBytes - listener->errorBody.size()));
            return;
        }
        std::vector<SseEvent> events;
        const bool withinBounds = listener->sse.feed(chunk, events);
        QPointer<McpClient> alive(q);
        for (const SseEvent& event : events) {
            if (!alive || !isListening(reply))
                return;
            if (!carriesMessage(event))
                continue;
            // Nothing waits on this stream, so an event that is not JSON fails nothing: it is skipped.
            const JsonRpc::ParseResult parsed = JsonRpc::parse(event.data);
            if (!parsed.ok)
                continue;
            listener->delivered = true;
            handleListenerMessage(reply, parsed.value);
        }
        if (!withinBounds && alive && isListening(reply)) {
            // An event past the bound: this stream is given up and another one opened later.
            QObject::disconnect(reply, nullptr, q, nullptr);
            reply->abort();
            reply->deleteLater();
            listener->reply = nullptr;
            scheduleListenerReopen();
        }
    }

    // Requests and notifications as on a call's stream, but with no call: a request is answered
    // as one without a handler is (ping gets its empty result), a notification other than
    // tools/list_changed has no call to go to. Responses do not belong here and are ignored.
    void handleListenerMessage(QNetworkReply* reply, const json& message)
    {
        if (message.is_array()) {
            QPointer<McpClient> alive(q);
            for (const json& member : message) {
                if (!alive || !isListening(reply))
                    return;
                handleListenerMessage(reply, member);
            }
            return;
        }
        if (!message.is_object() || !message.contains("method") || !message["method"].is_string())
            return;
        // A 2026 upstream sends no requests (and the acknowledgement, like any notification but
        // tools/list_changed, has nothing to act on).
        if (message.contains("id") && era != Era::Modern)
            handleServerRequest(noOperation, message);
        else if (!message.contains("id"))
            handleNotification(noOperation, message);
    }

    void onListenerFinished(QNetworkReply* reply)
    {
        if (!isListening(reply))
            return;
        if (reply->bytesAvailable() > 0) {
            onListenerReadyRead(reply);
            if (!isListening(reply))
                return;
        }
        listener->reply = nullptr;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 405 || (era == Era::Modern && status >= 400 && status <= 499)) {
            // The upstream offers no stream (a 2026 one refuses subscriptions/listen: method not
            // found, or a filter it will not honour): not asked again in this session, and not an error.
            listener.reset();
            return;
        }
        if (status == 0 || status == 404 || (status == 400 && bodySaysSessionIsGone(listener->errorBody))) {
            // The upstream no longer knows the session (it restarted, or expired it), or cannot be
            // reached (and may come back knowing none): the next request opens a new session,
            // which listens again.
            listener.reset();
            forgetSession(session, status == 0);
            return;
        }
        scheduleListenerReopen();
    }

    // Refused, failed or ended: opened again after the server's `retry` (else defaultSseRetryMs),
    // doubled each time in a row the stream brought nothing, up to maxListenRetryMs.
    void scheduleListenerReopen()
    {
        const qint64 maxDelay = std::max<qint64>(settings().maxListenRetryMs, 1);
        if (listener->delivered || (listener->accepted && listener->openedAt.elapsed() >= maxDelay))
            listener->failures = 0;
        // At least a millisecond: `retry: 0` from a stream that keeps ending must not spin.
        const qint64 base
            = std::clamp<qint64>(listener->sse.retryMs().value_or(settings().defaultSseRetryMs), 1, maxDelay);
        const qint64 delay = std::min(base << std::min(listener->failures, 30), maxDelay);
        ++listener->failures;
        listener->reopenTimer = std::make_unique<QTimer>();
        listener->reopenTimer->setSingleShot(true);
        QObject::connect(listener->reopenTimer.get(), &QTimer::timeout, q, [this] { openListener(); });
        listener->reopenTimer->start(std::chrono::milliseconds(delay));
    }

    // --- ending -------------------------------------------------------------------------------

    // Removes the operation, then runs its completion as the very last thing: the completion may
    // destroy the client.
    void finish(quint64 opId, Outcome outcome)
    {
        auto it = ops.find(opId);
        if (it == ops.end())
            return;
        std::unique_ptr<Operation> op = std::move(it->second);
        ops.erase(it);
        auto done = std::move(op->done);
        op.reset();
        if (done)
            done(std::move(outcome));
    }

    void stop(quint64 opId, FailureKind kind, const QString& reason)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        op->dropReply();
        op->pollTimer.reset();
        if (op->taskId) {
            // The task runs on without anyone waiting: the upstream is told.
            cancelTask(*op->taskId);
        } else if (op->sent && initialized && !op->modern) {
            postLoose(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                {"params", {{"requestId", op->rpcId}, {"reason", reason.toStdString()}}}});
        }
        // A 2026 request is cancelled by closing its response stream, which dropReply did.
        finish(opId, failedOutcome(makeFailure(kind, reason)));
    }

    void onDeadline(quint64 opId)
    {
        Operation* op = find(opId);
        if (!op)
            return;
        stop(opId, FailureKind::Timeout,
            QStringLiteral("no response to %1 within %2 ms").arg(op->method).arg(timeoutOf(*op)));
    }

    void cancel(quint64 opId, const QString& reason)
    {
        stop(opId, FailureKind::Cancelled, reason.isEmpty() ? QStringLiteral("cancelled") : reason);
    }

    std::shared_ptr<PendingCall> handle(quint64 opId)
    {
        QPointer<McpClient> client(q);
        return std::make_shared<PendingCallHandle>(
            [client](quint64 id, const QString& reason) {
                if (client)
                    client->d->cancel(id, reason);
            },
            opId);
    }
};

McpClient::McpClient(Settings settings, QObject* parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , d(std::make_unique<Private>(this))
{}

McpClient::~McpClient()
{
    d.reset();
}

void McpClient::initialize(std::function<void(const InitializeResult&, const std::optional<Failure>&)> done)
{
    // Answered on a later turn of the event loop even when a session exists, as every operation is.
    QTimer::singleShot(0, this, [this, done = std::move(done)] {
        d->ensureInitialized([this, done](const std::optional<Failure>& failure) {
            done(failure ? InitializeResult{} : d->initResult, failure);
        });
    });
}

bool McpClient::isInitialized() const
{
    return d->initialized;
}

McpClient::Era McpClient::era() const
{
    return d->era;
}

QString McpClient::protocolVersion() const
{
    return QString::fromLatin1(d->protocolVersion);
}

QString McpClient::sessionId() const
{
    return QString::fromLatin1(d->sessionId);
}

void McpClient::listTools(std::function<void(const ToolList&, const std::optional<Failure>&)> done)
{
    if (d->era == Era::Modern && d->toolCache && !d->toolCache->freshUntil.hasExpired()) {
        // Answered on a later turn of the event loop, as every operation is.
        QTimer::singleShot(0, this, [this, done = std::move(done)] {
            if (d->toolCache)
                done(d->toolCache->list, std::nullopt);
            else
                listTools(done);
        });
        return;
    }
    struct Listing
    {
        ToolList list;
        int pages = 0;
        std::optional<qint64> ttlMs; // the shortest of the pages' (2026-07-28)
        std::function<void(const ToolList&, const std::optional<Failure>&)> done;
        std::function<void(const json& cursor)> next;
    };
    auto listing = std::make_shared<Listing>();
    listing->done = std::move(done);
    std::weak_ptr<Listing> weak = listing;
    listing->next = [this, weak](const json& cursor) {
        auto state = weak.lock();
        if (!state)
            return;
        json params = json::object();
        if (!cursor.is_null())
            params["cursor"] = cursor;
        // The request's completion holds the listing alive until the last page.
        request(QStringLiteral("tools/list"), params,
            [this, state](Outcome outcome) {
                auto finishWith = [this, state](const std::optional<Failure>& failure) {
                    auto complete = std::move(state->done);
                    state->next = nullptr;
                    if (!failure && d->era == Era::Modern)
                        d->keepListing(state->list, state->ttlMs.value_or(0));
                    complete(failure ? ToolList{} : std::move(state->list), failure);
                };
                if (!outcome.ok()) {
                    finishWith(outcome.failure);
                    return;
                }
                const json& result = outcome.result;
                if (!result.is_object() || !result.contains("tools") || !result["tools"].is_array()) {
                    finishWith(
                        makeFailure(FailureKind::Malformed, QStringLiteral("tools/list returned no tools array")));
                    return;
                }
                ++state->pages;
                // Each page's freshness (absent or negative: stale at once); the listing lasts as
                // long as its shortest.
                const json ttl = result.value("ttlMs", json());
                const qint64 pageTtl
                    = ttl.is_number() && ttl.get<double>() > 0 ? qint64(std::min(ttl.get<double>(), 1e12)) : 0;
                state->ttlMs = std::min(state->ttlMs.value_or(pageTtl), pageTtl);
                for (const json& tool : result["tools"]) {
                    if (static_cast<int>(state->list.tools.size()) >= m_settings.maxTools) {
                        state->list.truncated = true;
                        finishWith(std::nullopt);
                        return;
                    }
                    state->list.tools.push_back(tool);
                }
                const json nextCursor = result.value("nextCursor", json());
                if (!nextCursor.is_string()) {
                    finishWith(std::nullopt);
                    return;
                }
                if (state->pages >= m_settings.maxToolPages) {
                    state->list.truncated = true;
                    finishWith(std::nullopt);
                    return;
                }
                state->next(nextCursor);
            },
            {});
    };
    listing->next(json());
}

std::shared_ptr<McpClient::PendingCall> McpClient::callTool(
    const QString& name, const nlohmann::json& arguments, CallOptions options, std::function<void(Outcome)> done)
{
    json params = {{"name", name.toStdString()}, {"arguments", arguments.is_null() ? json::object() : arguments}};
    const bool wantsProgress = static_cast<bool>(options.progress);
    const quint64 opId
        = d->startOperation(QStringLiteral("tools/call"), std::move(params), std::move(options), std::move(done), true);
    Private::Operation* op = d->find(opId);
    // To a 2026 upstream: this client polls a task the call may become.
    op->declaresTasks = true;
    if (wantsProgress)
        op->params["_meta"] = {{"progressToken", Private::progressToken(*op)}};
    return d->handle(opId);
}

std::shared_ptr<McpClient::PendingCall> McpClient::request(
    const QString& method, const nlohmann::json& params, std::function<void(Outcome)> done, CallOptions options)
{
    return d->handle(d->startOperation(method, params, std::move(options), std::move(done), true));
}

void McpClient::stopListening()
{
    d->listeningStopped = true;
    d->stopListening();
}

int McpClient::operationsInFlight() const
{
    return int(d->ops.size());
}

void McpClient::close()
{
    d->stopListening();
    // Tasks still polled are cancelled upstream; closed() waits for those answers (each bounded),
    // as it waits for the DELETE of a session.
    std::vector<std::string> tasks;
    for (const auto& [id, op] : d->ops) {
        if (op->taskId)
            tasks.push_back(*op->taskId);
    }
    auto waiting = std::make_shared<int>(int(tasks.size()) + 1);
    QPointer<McpClient> self(this);
    const auto oneDone = [self, waiting] {
        if (--*waiting == 0 && self)
            Q_EMIT self->closed();
    };
    for (const std::string& task : tasks)
        d->cancelTask(task, [oneDone](const std::optional<Failure>&) { oneDone(); });
    if (!d->sessionId.isEmpty()) {
        d->endSession(oneDone);
    } else {
        QTimer::singleShot(0, this, oneDone);
    }
    for (auto& [id, op] : d->ops)
        op->taskId.reset(); // cancelled above: failing them below sends nothing more
    ++d->generation;
    d->initialized = false;
    d->sessionId.clear();
    d->protocolVersion.clear();
    d->pendingSessionId.clear();
    d->initializingOp.reset();
    d->forgetToolCache();
    auto waiters = std::move(d->initWaiters);
    d->initWaiters.clear();

    const Failure closed = makeFailure(FailureKind::Cancelled, QStringLiteral("the client was closed"));
    std::vector<quint64> ids;
    for (const auto& [id, op] : d->ops)
        ids.push_back(id);
    QPointer<McpClient> alive(this);
    for (const quint64 id : ids) {
        if (!alive)
            return;
        if (Private::Operation* op = d->find(id)) {
            op->dropReply();
            d->finish(id, failedOutcome(closed));
        }
    }
    // initialize() callers (operations waiting on the session were answered above).
    for (auto& waiter : waiters) {
        if (!alive)
            return;
        waiter(closed);
    }
}

QByteArray McpClient::headerValue(const std::string& value)
{
    // Visible ASCII and spaces are safe; a tab is encoded too (the conformance suite wants it so,
    // and Base64 is always allowed).
    bool safe = value.empty() || (value.front() != ' ' && value.back() != ' ');
    for (const char c : value) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) {
            safe = false;
            break;
        }
    }
    if (safe && value.starts_with("=?base64?") && value.ends_with("?="))
        safe = false;
    const QByteArray bytes = QByteArray::fromStdString(value);
    return safe ? bytes : QByteArrayLiteral("=?base64?") + bytes.toBase64() + QByteArrayLiteral("?=");
}

std::optional<QString> McpClient::invalidParamHeaders(const nlohmann::json& inputSchema)
{
    // Walked iteratively (the schema is bounded by the parser that read it): through `properties`
    // the annotation is reachable, under any other subschema keyword it is not.
    struct Step
    {
        const json* schema;
        QString path;
        bool reachable;
    };
    std::vector<Step> pending{{&inputSchema, QString(), true}};
    std::map<QString, QString> seen; // lower-case name -> as written
    while (!pending.empty()) {
        const Step step = pending.back();
        pending.pop_back();
        if (!step.schema->is_object())
            continue;
        const json& schema = *step.schema;
        const QString where = step.path.isEmpty() ? QStringLiteral("<root>") : step.path;
        if (const auto annotation = schema.find("x-mcp-header"); annotation != schema.end()) {
            if (!step.reachable || step.path.isEmpty())
                return QStringLiteral("%1: x-mcp-header is only allowed on properties reached through `properties` "
                                      "alone")
                    .arg(where);
            if (!annotation->is_string() || !isToken(annotation->get<std::string>()))
                return QStringLiteral("%1: x-mcp-header %2 is not a non-empty RFC 9110 token")
                    .arg(where, fromStd(annotation->dump()));
            const json type = schema.value("type", json());
            if (!type.is_string() || (type != json("string") && type != json("integer") && type != json("boolean")))
                return QStringLiteral("%1: x-mcp-header is only allowed on string, integer and boolean properties, "
                                      "not %2")
                    .arg(where, fromStd(type.dump()));
            const QString name = fromStd(annotation->get<std::string>());
            const auto [earlier, added] = seen.emplace(name.toLower(), name);
            if (!added)
                return QStringLiteral("x-mcp-header %1 is named twice (also as %2)").arg(name, earlier->second);
        }
        if (const auto properties = schema.find("properties"); properties != schema.end() && properties->is_object()) {
            for (const auto& [key, property] : properties->items())
                pending.push_back(
                    {&property, step.path.isEmpty() ? fromStd(key) : step.path + u'.' + fromStd(key), step.reachable});
        }
        for (const char* keyword : unreachableKeywords) {
            const auto sub = schema.find(keyword);
            if (sub == schema.end())
                continue;
            const QString path = where + QStringLiteral(".<%1>").arg(QLatin1String(keyword));
            if (sub->is_array()
                || (sub->is_object()
                    && (std::string_view(keyword) == "patternProperties"
                        || std::string_view(keyword) == "dependentSchemas" || std::string_view(keyword) == "$defs"
                        || std::string_view(keyword) == "definitions"))) {
                for (const auto& [key, branch] : sub->items())
                    pending.push_back({&branch, path, false});
            } else {
                pending.push_back({&*sub, path, false});
            }
        }
    }
    return std::nullopt;
}

std::vector<std::pair<QByteArray, QByteArray>> McpClient::paramHeaders(
    const nlohmann::json& inputSchema, const nlohmann::json& arguments)
{
    std::vector<std::pair<QByteArray, QByteArray>> headers;
    struct Step
    {
        const json* schema;
        const json* value; // the argument at this path; null when absent
    };
    std::vector<Step> pending{{&inputSchema, &arguments}};
    while (!pending.empty()) {
        const Step step = pending.back();
        pending.pop_back();
        if (!step.schema->is_object() || !step.value || !step.value->is_object())
            continue;
        const auto properties = step.schema->find("properties");
        if (properties == step.schema->end() || !properties->is_object())
            continue;
        for (const auto& [key, property] : properties->items()) {
            const auto found = step.value->find(key);
            if (found == step.value->end() || found->is_null() || !property.is_object())
                continue;
            const json& value = *found;
            const auto annotation = property.find("x-mcp-header");
            if (annotation != property.end() && annotation->is_string()) {
                std::string text;
                if (value.is_string())
                    text = value.get<std::string>();
                else if (value.is_boolean())
                    text = value.get<bool>() ? "true" : "false";
                else if (value.is_number())
                    text = value.dump();
                else
                    continue; // not a value a header can carry
                headers.emplace_back(
                    "Mcp-Param-" + QByteArray::fromStdString(annotation->get<std::string>()), headerValue(text));
            }
            pending.push_back({&property, &value});
        }
    }
    return headers;
}

QString McpClient::failureKindName(FailureKind kind)
{
    switch (kind) {
    case FailureKind::Connection:
        return QStringLiteral("connection error");
    case FailureKind::Timeout:
        return QStringLiteral("timeout");
    case FailureKind::ServerError:
        return QStringLiteral("server error");
    case FailureKind::Authentication:
        return QStringLiteral("authentication failure");
    case FailureKind::HttpStatus:
        return QStringLiteral("unexpected HTTP status");
    case FailureKind::Malformed:
        return QStringLiteral("malformed response");
    case FailureKind::Protocol:
        return QStringLiteral("protocol error");
    case FailureKind::Cancelled:
        return QStringLiteral("cancelled");
    }
    return QStringLiteral("unknown failure");
}
