#include "operator/operatorapi.h"

#include "boundedjson.h"
#include "clientanswer.h"
#include "operator/operatorfeed.h"
#include "transport/httpconnectionguard.h"
#include "transport/httpresponses.h"

#include <QHttpServerRequest>
#include <QTcpSocket>
#include <QUrlQuery>

#include <algorithm>

using nlohmann::json;
using StatusCode = QHttpServerResponder::StatusCode;
using HttpResponses::chunk;
using HttpResponses::sendNow;

namespace {

const QByteArray JsonType = QByteArrayLiteral("application/json");

QByteArray compact(const json& value)
{
    // Text from clients and tools may hold invalid UTF-8: replaced, never thrown on.
    return QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

json errorBody(const char* code, const QString& message)
{
    return json{{"error", {{"code", code}, {"message", message.toStdString()}}}};
}

// The request's role name for messages ("needs the answerer role").
QString roleNeeded(OperatorRole role)
{
    return QStringLiteral("this needs the %1 role").arg(operatorRoleName(role));
}

std::optional<QString> stringMember(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return std::nullopt;
    return QString::fromStdString(it->get_ref<const std::string&>());
}

} // namespace

// One HTTP answer, written now or later (history, a connect answer). Written at most once; a
// connection that went meanwhile gets nothing.
class OperatorApi::Reply
{
public:
    Reply(QHttpServerResponder responder, QTcpSocket* socket)
        : m_responder(std::move(responder))
        , m_socket(socket)
    {}
    ~Reply()
    {
        if (!m_written)
            send(
                StatusCode::InternalServerError, errorBody("internal", QStringLiteral("the request was not answered")));
    }

    // The answer comes after the handler returned: the connection reads no other request meanwhile.
    void hold()
    {
        if (auto* guard = m_socket ? HttpConnectionGuard::of(m_socket) : nullptr)
            guard->setResponsePending(true);
        m_held = true;
    }

    void send(StatusCode status, const json& body, const HttpResponses::Headers& headers = {})
    {
        if (m_written)
            return;
        m_written = true;
        if (!m_socket)
            return;
        HttpResponses::writeReply(m_responder, status, JsonType, compact(body), headers);
        release();
    }
    void fail(StatusCode status, const char* code, const QString& message) { send(status, errorBody(code, message)); }

    // Streams: the responder is the stream's.
    QHttpServerResponder& responder() { return m_responder; }
    void markWritten() { m_written = true; }
    QTcpSocket* socket() const { return m_socket; }
    void release()
    {
        if (!m_held || !m_socket)
            return;
        m_held = false;
        if (auto* guard = HttpConnectionGuard::of(m_socket))
            guard->setResponsePending(false);
    }

private:
    QHttpServerResponder m_responder;
    QPointer<QTcpSocket> m_socket;
    bool m_written = false;
    bool m_held = false;
};

struct OperatorApi::Request
{
    QHttpServerRequest::Method method = QHttpServerRequest::Method::Unknown;
    QStringList path; // the segments after /operator/v1/, each decoded
    QUrlQuery query;
    QByteArray body;
    OperatorCredential credential;
};

// An open event stream: its reply's responder, written in chunks until the client goes.
struct OperatorApi::Stream
{
    std::shared_ptr<Reply> reply;
    QMetaObject::Connection disconnected;
};

OperatorApi::OperatorApi(Settings settings, OperatorTokens tokens, Hooks hooks, OperatorFeed* feed, QObject* parent)
    : QObject(parent)
    , m_settings(settings)
    , m_tokens(std::move(tokens))
    , m_hooks(std::move(hooks))
    , m_feed(feed)
{
    connect(m_feed, &OperatorFeed::changed, this, &OperatorApi::broadcast);
    m_keepAlive.setInterval(m_settings.keepAliveMs);
    connect(&m_keepAlive, &QTimer::timeout, this, [this] { broadcast(0, {}, {}); });
    m_keepAlive.start();
}

OperatorApi::~OperatorApi()
{
    closeStreams();
}

bool OperatorApi::isAuthorized(QByteArrayView authorization) const
{
    return m_tokens.fromAuthorization(authorization).has_value();
}

void OperatorApi::handle(const QHttpServerRequest& httpRequest, QTcpSocket* socket, QHttpServerResponder responder)
{
    auto reply = std::make_shared<Reply>(std::move(responder), socket);
    const std::optional<OperatorCredential> credential = m_tokens.fromAuthorization(httpRequest.value("authorization"));
    if (!credential) { // McpHttpServer let it in: the tokens cannot have changed, but say so rather than serve
        reply->fail(StatusCode::Unauthorized, "unauthorized", QStringLiteral("no operator token"));
        return;
    }
    Request request;
    request.method = httpRequest.method();
    request.query = QUrlQuery(httpRequest.url());
    request.body = httpRequest.body();
    request.credential = *credential;
    const QString encoded = httpRequest.url().path(QUrl::FullyEncoded);
    const QString prefix = QStringLiteral("/operator/v1/");
    if (!encoded.startsWith(prefix)) {
        reply->fail(StatusCode::NotFound, "not_found",
            QStringLiteral("the operator API is under /operator/v1/ (see docs/operator-api.md)"));
        return;
    }
    for (const QString& segment : encoded.mid(prefix.size()).split(QLatin1Char('/')))
        request.path << QUrl::fromPercentEncoding(segment.toUtf8());
    if (request.method == QHttpServerRequest::Method::Get && request.path == QStringList{QStringLiteral("events")}) {
        openStream(request, socket, reply);
        return;
    }
    route(request, reply);
}

void OperatorApi::route(const Request& request, std::shared_ptr<Reply> reply)
{
    using Method = QHttpServerRequest::Method;
    const QStringList& path = request.path;
    const Method method = request.method;
    const auto is = [&](Method wanted, std::initializer_list<const char*> segments) {
        if (method != wanted || path.size() != qsizetype(segments.size()))
            return false;
        qsizetype i = 0;
        for (const char* segment : segments) {
            if (*segment != '*' && path.at(i) != QLatin1String(segment))
                return false;
            ++i;
        }
        return true;
    };
    const auto needs = [&](OperatorRole role) {
        if (request.credential.mayDo(role))
            return true;
        reply->fail(StatusCode::Forbidden, "forbidden",
            QStringLiteral("%1; the operator token \"%2\" is a %3")
                .arg(roleNeeded(role), request.credential.name, operatorRoleName(request.credential.role)));
        return false;
    };

    if (is(Method::Get, {"state"})) {
        json state = m_feed->state();
        state["server"]["operator"] = {{"name", request.credential.name.toStdString()},
            {"role", operatorRoleName(request.credential.role).toStdString()}};
        reply->send(StatusCode::Ok, state);
        return;
    }
    if (is(Method::Get, {"questions"})) {
        json list = json::array();
        for (const PendingInteraction& question : m_hooks.questions())
            list.push_back(question.toJson());
        reply->send(StatusCode::Ok, json{{"questions", std::move(list)}});
        return;
    }
    if (is(Method::Get, {"grants"})) {
        json list = json::array();
        for (const PermissionEntry& grant : m_hooks.grants())
            list.push_back(grant.toJson());
        reply->send(StatusCode::Ok, json{{"grants", std::move(list)}});
        return;
    }
    if (is(Method::Get, {"status"})) {
        reply->send(StatusCode::Ok, status());
        return;
    }
    if (is(Method::Get, {"history"}) || is(Method::Get, {"calls", "*"})) {
        HistoryQuery query;
        const bool one = path.size() == 2;
        if (one) {
            bool ok = false;
            query.callId = path.at(1).toLongLong(&ok);
            if (!ok || query.callId <= 0) {
                reply->fail(StatusCode::BadRequest, "bad_request", QStringLiteral("a call id is a positive number"));
                return;
            }
            query.limit = 1;
        } else {
            query.limit = 50;
            query.bodyPreviewBytes = OperatorFeed::PreviewBytes;
            if (request.query.hasQueryItem(QStringLiteral("limit"))) {
                bool ok = false;
                query.limit = request.query.queryItemValue(QStringLiteral("limit")).toInt(&ok);
                if (!ok || query.limit < 1 || query.limit > 1000) {
                    reply->fail(
                        StatusCode::BadRequest, "bad_request", QStringLiteral("limit is a number from 1 to 1000"));
                    return;
                }
            }
            if (request.query.hasQueryItem(QStringLiteral("before"))) {
                bool ok = false;
                query.beforeId = request.query.queryItemValue(QStringLiteral("before")).toLongLong(&ok);
                if (!ok || query.beforeId <= 0) {
                    reply->fail(StatusCode::BadRequest, "bad_request", QStringLiteral("before is a call id"));
                    return;
                }
            }
            const auto item
                = [&](const char* key) { return request.query.queryItemValue(QLatin1String(key), QUrl::FullyDecoded); };
            query.search = CallSearch::fromText(item("q"));
            if (const QString client = item("client"); !client.isEmpty())
                query.search.clients << client;
            if (const QString tool = item("tool"); !tool.isEmpty())
                query.search.tools << tool;
        }
        searchHistory(query, one, reply);
        return;
    }
    if (is(Method::Post, {"history", "search"}) || is(Method::Post, {"history", "count"})) {
        const BoundedJson::Result<json> body = BoundedJson::parse(request.body, BoundedJson::Limits::message());
        QString problem
            = body.ok ? QString() : QStringLiteral("the body is not JSON: %1").arg(QString::fromStdString(body.error));
        std::optional<HistoryQuery> query = body.ok ? HistoryQuery::fromJson(body.value, &problem) : std::nullopt;
        if (!query) {
            reply->fail(StatusCode::BadRequest, "bad_request", problem);
            return;
        }
        if (path.at(1) == QLatin1String("search")) {
            searchHistory(*query, false, reply);
            return;
        }
        reply->hold();
        m_hooks.countHistory(*query, [reply](qint64 count) {
            if (count < 0)
                reply->fail(
                    StatusCode::ServiceUnavailable, "unavailable", QStringLiteral("there is no history to read"));
            else
                reply->send(StatusCode::Ok, json{{"count", count}});
        });
        return;
    }
    if (is(Method::Post, {"calls"})) {
        if (!needs(OperatorRole::Answerer))
            return;
        const BoundedJson::Result<json> body = BoundedJson::parse(request.body, BoundedJson::Limits::message());
        const std::optional<QString> tool = body.ok ? stringMember(body.value, "tool") : std::nullopt;
        if (!tool || tool->isEmpty()) {
            reply->fail(StatusCode::BadRequest, "bad_request",
                QStringLiteral("the body is {\"tool\": NAME, \"arguments\": {...}, \"replayOf\": CALL-ID}"));
            return;
        }
        const auto arguments = body.value.find("arguments");
        const QByteArray argumentText
            = arguments != body.value.end() ? QByteArray::fromStdString(arguments->dump()) : QByteArray("{}");
        const auto replayOf = body.value.find("replayOf");
        if (replayOf != body.value.end() && !replayOf->is_number_integer()) {
            reply->fail(StatusCode::BadRequest, "bad_request", QStringLiteral("replayOf is a call id"));
            return;
        }
        reply->hold();
        m_hooks.callTool(*tool, argumentText, replayOf != body.value.end() ? replayOf->get<qint64>() : 0,
            request.credential.recordedAs(), [reply](qint64 callId, const QString& error) {
                if (callId > 0)
                    reply->send(StatusCode::Ok, json{{"callId", callId}});
                else
                    reply->fail(StatusCode::Conflict, "conflict", error);
            });
        return;
    }
    if (is(Method::Post, {"repositories"}) || is(Method::Delete, {"repositories"})
        || is(Method::Post, {"repositories", "refresh"}) || is(Method::Get, {"repositories", "diff"})) {
        // Reading (a diff, a refresh) is a viewer's; changing what the view shows is an admin's.
        const bool read = method == Method::Get || path.size() == 2;
        if (!needs(read ? OperatorRole::Viewer : OperatorRole::Admin))
            return;
        QString repository;
        QString file;
        if (method == Method::Get || method == Method::Delete) {
            repository = request.query.queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded);
            file = request.query.queryItemValue(QStringLiteral("file"), QUrl::FullyDecoded);
        } else {
            const BoundedJson::Result<json> body = BoundedJson::parse(request.body, BoundedJson::Limits::message());
            repository = body.ok ? stringMember(body.value, "path").value_or(QString()) : QString();
        }
        if (repository.isEmpty() || (method == Method::Get && file.isEmpty())) {
            reply->fail(StatusCode::BadRequest, "bad_request",
                method == Method::Get          ? QStringLiteral("the diff needs ?path=REPOSITORY&file=FILE")
                    : method == Method::Delete ? QStringLiteral("removing needs ?path=REPOSITORY")
                                               : QStringLiteral("the body is {\"path\": REPOSITORY}"));
            return;
        }
        if (method == Method::Get) {
            reply->hold();
            m_hooks.loadFileDiff(repository, file, [reply](const FileDiff& diff) {
                reply->send(StatusCode::Ok, json{{"diff", diff.toJson()}});
            });
            return;
        }
        if (method == Method::Delete) {
            m_hooks.removeRepository(repository);
            reply->send(StatusCode::Ok, json{{"ok", true}});
            return;
        }
        QString error;
        const bool done = path.size() == 2 ? m_hooks.refreshRepository(repository, &error)
                                           : m_hooks.addRepository(repository, &error);
        if (done)
            reply->send(StatusCode::Ok, json{{"ok", true}});
        else
            reply->fail(StatusCode::Conflict, "conflict", error);
        return;
    }
    if (is(Method::Get, {"tools"})) {
        json list = json::array();
        for (const ToolInfo& tool : m_hooks.tools())
            list.push_back(tool.toJson());
        reply->send(StatusCode::Ok, json{{"tools", std::move(list)}});
        return;
    }
    if (is(Method::Post, {"questions", "*", "answer"})) {
        if (needs(OperatorRole::Answerer))
            answerQuestion(request, path.at(1), reply);
        return;
    }
    if (is(Method::Post, {"adapters", "*", "*"})) {
        if (!needs(OperatorRole::Admin))
            return;
        const QString& adapter = path.at(1);
        const QString& verb = path.at(2);
        if (!QStringList{QStringLiteral("reset"), QStringLiteral("force-open"), QStringLiteral("enable"),
                QStringLiteral("disable")}
                 .contains(verb)) {
            reply->fail(StatusCode::NotFound, "not_found",
                QStringLiteral("an adapter is reset, force-open, enable or disable, not \"%1\"").arg(verb));
            return;
        }
        if (!m_hooks.adapterExists(adapter)) {
            reply->fail(StatusCode::NotFound, "not_found", QStringLiteral("there is no adapter \"%1\"").arg(adapter));
            return;
        }
        QString error;
        if (m_hooks.adapterCommand(verb, adapter, request.credential.recordedAs(), &error))
            reply->send(StatusCode::Ok, json{{"ok", true}});
        else
            reply->fail(StatusCode::Conflict, "conflict", error);
        return;
    }
    if (is(Method::Delete, {"grants", "*"})) {
        if (!needs(OperatorRole::Admin))
            return;
        if (m_hooks.revokeGrant(path.at(1)))
            reply->send(StatusCode::Ok, json{{"ok", true}});
        else
            reply->fail(StatusCode::NotFound, "not_found",
                QStringLiteral("there is no grant %1: it was revoked already, or its session ended").arg(path.at(1)));
        return;
    }
    if (is(Method::Delete, {"sessions", "*"})) {
        if (!needs(OperatorRole::Admin))
            return;
        if (m_hooks.endSession(path.at(1)))
            reply->send(StatusCode::Ok, json{{"ok", true}});
        else
            reply->fail(StatusCode::NotFound, "not_found",
                QStringLiteral("there is no session %1: it has ended already").arg(path.at(1)));
        return;
    }
    if (is(Method::Post, {"configuration", "reload"})) {
        if (!needs(OperatorRole::Admin))
            return;
        reply->hold();
        m_hooks.reloadConfiguration([reply](bool ok, const QString& message) {
            if (ok)
                reply->send(StatusCode::Ok, json{{"ok", true}, {"message", message.toStdString()}});
            else
                reply->fail(StatusCode::Conflict, "conflict", message);
        });
        return;
    }

    // Known paths with another method get 405, the rest 404.
    const QStringList known = {QStringLiteral("state"), QStringLiteral("events"), QStringLiteral("questions"),
        QStringLiteral("tools"), QStringLiteral("repositories"), QStringLiteral("grants"), QStringLiteral("status"),
        QStringLiteral("history"), QStringLiteral("calls"), QStringLiteral("adapters"), QStringLiteral("sessions"),
        QStringLiteral("configuration")};
    if (!path.isEmpty() && known.contains(path.first())) {
        reply->send(StatusCode::MethodNotAllowed,
            errorBody("method_not_allowed", QStringLiteral("not with this method (see docs/operator-api.md)")));
        return;
    }
    reply->fail(StatusCode::NotFound, "not_found",
        QStringLiteral("no such operator API path: /operator/v1/%1").arg(path.join(QLatin1Char('/'))));
}

void OperatorApi::searchHistory(const HistoryQuery& query, bool one, std::shared_ptr<Reply> reply)
{
    reply->hold();
    m_hooks.history(query, [reply, one, id = query.callId](bool ok, const ToolCallList& calls, bool hasMore) {
        if (!ok) {
            reply->fail(StatusCode::ServiceUnavailable, "unavailable", QStringLiteral("there is no history to read"));
            return;
        }
        if (one) {
            if (calls.isEmpty())
                reply->fail(StatusCode::NotFound, "not_found", QStringLiteral("history has no call %1").arg(id));
            else
                reply->send(StatusCode::Ok, json{{"call", calls.first().toJson()}});
            return;
        }
        json list = json::array();
        for (const ToolCall& call : calls)
            list.push_back(call.toJson());
        reply->send(StatusCode::Ok, json{{"calls", std::move(list)}, {"hasMore", hasMore}});
    });
}

void OperatorApi::answerQuestion(const Request& request, const QString& id, std::shared_ptr<Reply> reply)
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(request.body, BoundedJson::Limits::message());
    if (!parsed.ok || !parsed.value.is_object()) {
        reply->fail(StatusCode::BadRequest, "bad_request",
            parsed.ok ? QStringLiteral("the body is a JSON object such as {\"answer\": \"allow_once\"}")
                      : QStringLiteral("the body is not JSON: %1").arg(QString::fromStdString(parsed.error)));
        return;
    }
    const json& body = parsed.value;
    const std::optional<QString> answer = stringMember(body, "answer");
    if (!answer) {
        reply->fail(StatusCode::BadRequest, "bad_request", QStringLiteral("\"answer\" (a string) is missing"));
        return;
    }
    const PendingInteractionList questions = m_hooks.questions();
    const auto question = std::find_if(
        questions.cbegin(), questions.cend(), [&](const PendingInteraction& pending) { return pending.id == id; });
    if (question == questions.cend()) {
        reply->fail(StatusCode::NotFound, "not_found",
            QStringLiteral("there is no question %1: it was answered, cancelled or timed out, or never asked").arg(id));
        return;
    }
    const QString by = request.credential.recordedAs();
    const auto bad = [&](const QString& message) { reply->fail(StatusCode::BadRequest, "bad_request", message); };

    if (*answer == QLatin1String("connect")) {
        const std::optional<QString> provider = stringMember(body, "provider");
        const std::optional<QString> apiKey = stringMember(body, "apiKey");
        if (!provider || provider->isEmpty() || !apiKey || apiKey->trimmed().isEmpty()) {
            bad(QStringLiteral("a connect answer needs \"provider\" and \"apiKey\" (strings)"));
            return;
        }
        reply->hold();
        m_hooks.connect(id, *provider, stringMember(body, "account").value_or(QString()), apiKey->toUtf8(), by,
            [reply, id, by](bool ok, const QString& error) {
                if (ok)
                    reply->send(StatusCode::Ok,
                        json{{"answered", true}, {"id", id.toStdString()}, {"outcome", "answered"},
                            {"by", by.toStdString()}});
                else
                    reply->fail(StatusCode::Conflict, "conflict", error);
            });
        return;
    }

    InteractionAnswer decided;
    using Decision = InteractionAnswer::Decision;
    if (*answer == QLatin1String("allow_once")) {
        decided = InteractionAnswer::decide(Decision::AllowOnce);
    } else if (*answer == QLatin1String("allow_session")) {
        decided = InteractionAnswer::decide(Decision::AllowForSession);
    } else if (*answer == QLatin1String("always_allow")) {
        const QString scope = stringMember(body, "scope").value_or(QStringLiteral("client-args"));
        const QStringList scopes = {QStringLiteral("client-args"), QStringLiteral("client-any"),
            QStringLiteral("all-args"), QStringLiteral("all-any")};
        if (!scopes.contains(scope)) {
            bad(QStringLiteral("scope is one of %1").arg(scopes.join(QStringLiteral(", "))));
            return;
        }
        decided = InteractionAnswer::alwaysAllow(
            scope.startsWith(QLatin1String("all")), scope.endsWith(QLatin1String("any")));
    } else if (*answer == QLatin1String("deny")) {
        decided = InteractionAnswer::decide(Decision::Deny, stringMember(body, "reason").value_or(QString()));
    } else if (*answer == QLatin1String("confirm")) {
        decided = InteractionAnswer::respond(ClientAnswer::confirmed(true));
    } else if (*answer == QLatin1String("decline")) {
        decided = InteractionAnswer::respond(ClientAnswer::declined(question->render));
    } else if (*answer == QLatin1String("choose")) {
        const std::optional<QString> choice = stringMember(body, "choice");
        if (!choice) {
            bad(QStringLiteral("a choose answer needs \"choice\" (a string)"));
            return;
        }
        decided = InteractionAnswer::respond(ClientAnswer::chosen(*choice));
    } else if (*answer == QLatin1String("respond")) {
        // A client tool's answer as the client will receive it (what the window's widgets build).
        const auto output = body.find("output");
        if (output == body.end() || !output->is_object()) {
            bad(QStringLiteral("a respond answer needs \"output\" (an object)"));
            return;
        }
        decided = InteractionAnswer::respond(*output);
    } else if (*answer == QLatin1String("submit")) {
        const auto values = body.find("values");
        if (values == body.end() || !values->is_object()) {
            bad(QStringLiteral("a submit answer needs \"values\" (an object)"));
            return;
        }
        decided = InteractionAnswer::respond(ClientAnswer::submitted(*values));
    } else {
        bad(QStringLiteral("\"answer\" is one of allow_once, allow_session, always_allow, deny, confirm, decline, "
                           "choose, submit, respond, connect; not \"%1\"")
                .arg(*answer));
        return;
    }
    QString error;
    InteractionOutcome outcome = InteractionOutcome::Answered;
    if (!m_hooks.answer(id, decided, by, &error, &outcome)) {
        reply->fail(StatusCode::Conflict, "conflict", error);
        return;
    }
    reply->send(StatusCode::Ok,
        json{{"answered", true}, {"id", id.toStdString()}, {"outcome", interactionOutcomeName(outcome).toStdString()},
            {"by", by.toStdString()}});
}

void OperatorApi::openStream(const Request& request, QTcpSocket* socket, std::shared_ptr<Reply> reply)
{
    if (int(m_streams.size()) >= m_settings.maxStreams) {
        reply->send(StatusCode::ServiceUnavailable,
            errorBody("unavailable",
                QStringLiteral("%1 event streams are open, the most this server keeps; retry later")
                    .arg(m_streams.size())),
            {{"Retry-After", "5"}});
        return;
    }
    reply->markWritten();
    reply->hold();
    HttpResponses::writeEventStreamHead(reply->responder(), {});
    json state = m_feed->state();
    state["server"]["operator"] = {{"name", request.credential.name.toStdString()},
        {"role", operatorRoleName(request.credential.role).toStdString()}};
    reply->responder().writeBody(
        chunk("id: " + QByteArray::number(m_feed->sequence()) + "\nevent: state\ndata: " + compact(state) + "\n\n"));
    sendNow(reply->responder());
    const quint64 id = m_nextStreamId++;
    auto stream = std::make_unique<Stream>();
    stream->reply = reply;
    stream->disconnected = connect(socket, &QTcpSocket::disconnected, this, [this, id] { removeStream(id); });
    m_streams.emplace(id, std::move(stream));
}

void OperatorApi::broadcast(quint64 sequence, const QByteArray& event, const QByteArray& data)
{
    if (m_streams.empty())
        return;
    // One chunk for every stream; an empty event is a keep-alive comment.
    const QByteArray bytes = event.isEmpty()
        ? chunk(QByteArrayLiteral(": keep-alive\n\n"))
        : chunk("id: " + QByteArray::number(sequence) + "\nevent: " + event + "\ndata: " + data + "\n\n");
    // A write may close its connection (and remove its stream) at once: the ids first, then each
    // looked up again.
    std::vector<quint64> ids;
    ids.reserve(m_streams.size());
    for (const auto& [id, stream] : m_streams)
        ids.push_back(id);
    for (const quint64 id : ids) {
        const auto it = m_streams.find(id);
        if (it == m_streams.end())
            continue;
        QTcpSocket* socket = it->second->reply->socket();
        if (!socket || socket->state() != QAbstractSocket::ConnectedState) {
            removeStream(id);
            continue;
        }
        if (socket->bytesToWrite() > m_settings.maxUnsentStreamBytes) {
            // It does not keep up: cut, so that it reconnects to the state rather than miss changes.
            removeStream(id);
            socket->abort();
            continue;
        }
        it->second->reply->responder().writeBody(bytes);
        sendNow(it->second->reply->responder());
    }
}

void OperatorApi::removeStream(quint64 id)
{
    const auto it = m_streams.find(id);
    if (it == m_streams.end())
        return;
    std::unique_ptr<Stream> stream = std::move(it->second);
    m_streams.erase(it);
    disconnect(stream->disconnected);
    stream->reply->release();
}

void OperatorApi::closeStreams()
{
    std::vector<quint64> ids;
    for (const auto& [id, stream] : m_streams)
        ids.push_back(id);
    for (const quint64 id : ids) {
        const auto it = m_streams.find(id);
        if (it == m_streams.end())
            continue;
        if (QTcpSocket* socket = it->second->reply->socket()) {
            it->second->reply->responder().writeBody(QByteArrayLiteral("0\r\n\r\n"));
            sendNow(it->second->reply->responder());
            removeStream(id);
            socket->disconnectFromHost();
        } else {
            removeStream(id);
        }
    }
}

json OperatorApi::status() const
{
    const json state = m_feed->state();
    json sessions = json::array();
    for (const json& session : state["sessions"])
        sessions.push_back(session);
    json warnings = json::array();
    for (const QString& warning : m_feed->warnings())
        warnings.push_back(warning.toStdString());
    return json{{"server", state["server"]}, {"sessions", std::move(sessions)}, {"adapters", state["adapters"]},
        {"breakers", state["breakers"]}, {"questions", state["questions"].size()}, {"warnings", std::move(warnings)},
        {"eventStreams", m_streams.size()}};
}
