#include "transport/mcpsession.h"

#include "auth/oauthconnects.h"
#include "boundedjson.h"
#include "clientanswer.h"
#include "events/backendevents.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "interaction/requeststate.h"
#include "protocol/modernrequest.h"
#include "protocol/protocolversion.h"
#include "store/historyfeed.h"
#include "tools/thrownexception.h"
#include "tools/toolcallcontext.h"
#include "tools/toolexecutor.h"
#include "tools/toolregistry.h"
#include "tools/toolrouter.h"
#include "transport/calltimeline.h"

#include <QDateTime>
#include <QPointer>

#include <algorithm>
#include <chrono>
#include <set>

#include <utility>

using nlohmann::json;

namespace {

QString stringOr(const json& object, const char* key, const QString& fallback)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
        return fallback;
    return QString::fromStdString(it->get<std::string>());
}

// tools/list cursors are opaque to clients; inside they name the last tool of the previous page, so
// paging stays correct when tools are added or removed between pages.
std::string encodeCursor(const QString& lastName)
{
    return QByteArray("after:" + lastName.toUtf8())
        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)
        .toStdString();
}

bool decodeCursor(const std::string& cursor, std::string* lastName)
{
    const auto decoded = QByteArray::fromBase64Encoding(
        QByteArray::fromStdString(cursor), QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || !decoded.decoded.startsWith("after:"))
        return false;
    *lastName = decoded.decoded.mid(6).toStdString();
    return true;
}

} // namespace

McpSession::McpSession(QByteArray id, const SessionEnvironment* environment, QObject* parent)
    : QObject(parent)
    , m_id(std::move(id))
    , m_environment(environment)
{
    touch();
    if (m_environment->interactions)
        m_waitTicker.setInterval(m_environment->interactions->settings().progressIntervalMs);
    connect(&m_waitTicker, &QTimer::timeout, this, &McpSession::tickWaitingCalls);
    // The heartbeat looks at every running call this often; each one gets a beat only when it has
    // been silent for a whole interval.
    m_heartbeat.setInterval(qMax(100, m_environment->heartbeatIntervalMs / 2));
    connect(&m_heartbeat, &QTimer::timeout, this, &McpSession::beatRunningCalls);
    // However fast a tool reports, the console gets its call's timeline at most this often.
    m_timelinePublisher.setSingleShot(true);
    m_timelinePublisher.setInterval(250);
    connect(&m_timelinePublisher, &QTimer::timeout, this, &McpSession::publishChangedTimelines);
}

void McpSession::publishChangedTimelines()
{
    // Publishing emits a signal: the keys are taken first, and each call looked up again.
    const std::unordered_set<std::string> keys = std::exchange(m_timelineChanged, {});
    for (const std::string& key : keys) {
        const auto it = m_inFlight.find(key);
        if (it == m_inFlight.end())
            continue; // finished meanwhile: its record has the whole timeline
        it->second.record.timeline = timelineOf(it->second);
        m_environment->events->publishCallChanged(it->second.record);
    }
}

McpSession::~McpSession()
{
    shutDown();
}

void McpSession::touch()
{
    m_lastActivityMs = m_environment->clock();
}

json ServerIdentity::toJson() const
{
    json info{{"name", name.toStdString()}, {"version", version.toStdString()}};
    if (!title.isEmpty())
        info["title"] = title.toStdString();
    return info;
}

bool McpSession::initialize(const JsonRpc::Message& request, QByteArray* response)
{
    const json& params = request.params();
    const auto version = params.is_object() ? params.find("protocolVersion") : params.end();
    if (!params.is_object() || version == params.end() || !version->is_string()) {
        *response = JsonRpc::serialize(JsonRpc::makeError(
            request.id, JsonRpc::InvalidParams, "initialize needs params.protocolVersion (a string)"));
        return false;
    }
    if (const auto caps = params.find("capabilities"); caps != params.end() && !caps->is_object()) {
        *response = JsonRpc::serialize(
            JsonRpc::makeError(request.id, JsonRpc::InvalidParams, "params.capabilities must be an object"));
        return false;
    }
    const std::string& requested = version->get_ref<const std::string&>();
    // Negotiation: answer with the client's version when this server speaks it, otherwise with the
    // newest this server speaks and let the client decide whether to go on.
    m_version = ProtocolVersion::isSupported(requested) ? requested : std::string(ProtocolVersion::latest);
    const json clientInfo = params.value("clientInfo", json::object());
    // Client info goes into every call record, question and headless line: the token never does.
    m_clientName = m_environment->redactor.text(stringOr(clientInfo, "name", QStringLiteral("unknown client")));
    m_clientVersion = m_environment->redactor.text(stringOr(clientInfo, "version", QString()));

    const ServerIdentity& identity = m_environment->identity;
    json result{{"protocolVersion", m_version},
        {"capabilities", {{"tools", {{"listChanged", true}}}, {"logging", json::object()}}},
        {"serverInfo", identity.toJson()}};
    if (!identity.instructions.isEmpty())
        result["instructions"] = identity.instructions.toStdString();
    *response = JsonRpc::serialize(JsonRpc::makeResult(request.id, std::move(result)));
    return true;
}

void McpSession::setLocalCaller(const QString& clientName, const QString& clientVersion, json invocation)
{
    m_clientName = m_environment->redactor.text(clientName);
    m_clientVersion = m_environment->redactor.text(clientVersion);
    m_invocation = std::move(invocation);
    m_invocationValues.clear();
    // Iterative: the metadata is what a caller sent. Values shorter than 8 bytes are left alone
    // (they would cut words out of any text, and hold no credential); at most 64 are kept.
    std::vector<const json*> pending{&m_invocation};
    std::set<std::string> values;
    while (!pending.empty() && values.size() < 64) {
        const json* value = pending.back();
        pending.pop_back();
        if (value->is_string() && value->get_ref<const std::string&>().size() >= 8)
            values.insert(value->get<std::string>());
        else if (value->is_structured())
            for (const json& item : *value)
                pending.push_back(&item);
    }
    for (const std::string& value : values)
        m_invocationValues.emplace_back(QByteArray::fromStdString(value));
    m_version = std::string(ProtocolVersion::latest);
    m_initialized = true;
}

void McpSession::adoptEnvelope(const std::string& version, const json& clientInfo, const std::string& logLevel)
{
    m_version = version;
    const std::optional<LogLevel> level = logLevel.empty() ? std::nullopt : logLevelFromName(logLevel);
    m_logsWanted = level.has_value();
    if (level)
        m_logLevel = *level;
    const json info = clientInfo.is_object() ? clientInfo : json::object();
    m_clientName = m_environment->redactor.text(stringOr(info, "name", QStringLiteral("unknown client")));
    m_clientVersion = m_environment->redactor.text(stringOr(info, "version", QString()));
    m_initialized = true;
}

void McpSession::setCaller(const QString& identity, const json& clientCapabilities)
{
    m_identity = identity;
    m_clientCapabilities = clientCapabilities.is_object() ? clientCapabilities : json::object();
}

bool McpSession::isModern() const
{
    return ProtocolVersion::isModern(m_version);
}

json McpSession::resultOfThisEra(json result) const
{
    if (!isModern() || !result.is_object())
        return result;
    if (!result.contains("resultType"))
        result["resultType"] = "complete";
    json& meta = result["_meta"];
    if (!meta.is_object())
        meta = json::object();
    meta[ModernRequest::ServerInfoKey] = m_environment->identity.toJson();
    return result;
}

void McpSession::setLocalCallHooks(qint64 replayOf, std::function<void(qint64 callId)> started)
{
    m_replayOf = replayOf;
    m_callStarted = std::move(started);
}

void McpSession::reply(const std::shared_ptr<ResponseChannel>& channel, const json& response)
{
    if (channel)
        channel->sendResponse(JsonRpc::serialize(response));
}

void McpSession::handleMessage(
    const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel)
{
    touch();
    switch (message.kind) {
    case JsonRpc::Kind::Invalid:
        reply(channel, JsonRpc::makeError(message.id, JsonRpc::InvalidRequest, message.invalidReason));
        return;
    case JsonRpc::Kind::Notification:
        handleNotification(message);
        return;
    case JsonRpc::Kind::Response:
        // This server sends no requests to clients yet, so there is nothing to match a response to.
        return;
    case JsonRpc::Kind::Request:
        break;
    }

    const std::string& method = message.method;
    if (method == "tools/call") {
        HistoryFeed* history = m_environment->history;
        if (history && (!m_heldForHistory.empty() || !history->hasRoom()))
            holdForHistory(message, rawText, channel);
        else
            handleToolsCall(message, rawText, channel);
    } else if (method == "ping") {
        reply(channel, JsonRpc::makeResult(message.id, json::object()));
    } else if (method == "tools/list") {
        reply(channel, handleToolsList(message));
    } else if (method == "logging/setLevel") {
        const auto level = message.params().is_object() ? message.params().find("level") : message.params().end();
        const auto parsed = level != message.params().end() && level->is_string()
            ? logLevelFromName(level->get<std::string>())
            : std::nullopt;
        if (!parsed) {
            reply(channel,
                JsonRpc::makeError(message.id, JsonRpc::InvalidParams,
                    "params.level must be one of debug, info, notice, warning, error, "
                    "critical, alert, emergency"));
            return;
        }
        m_logLevel = *parsed;
        reply(channel, JsonRpc::makeResult(message.id, json::object()));
    } else if (method == "initialize") {
        reply(channel,
            JsonRpc::makeError(message.id, JsonRpc::InvalidRequest,
                "this session is already initialized; send initialize without an "
                "Mcp-Session-Id header to open a new session"));
    } else {
        reply(channel, JsonRpc::makeError(message.id, JsonRpc::MethodNotFound, "Method not found: " + method));
    }
}

json McpSession::handleToolsList(const JsonRpc::Message& message)
{
    std::string after;
    if (message.params().is_object()) {
        const auto cursor = message.params().find("cursor");
        if (cursor != message.params().end() && !cursor->is_null()) {
            if (!cursor->is_string() || !decodeCursor(cursor->get<std::string>(), &after))
                return JsonRpc::makeError(message.id, JsonRpc::InvalidParams,
                    "invalid cursor; pass the nextCursor of a previous tools/list result");
        }
    }
    json tools = json::array();
    const auto all = m_environment->registry->tools();
    const int pageSize = qMax(1, m_environment->toolsPageSize);
    QString lastName;
    bool more = false;
    for (const auto& tool : all) {
        if (!tool->refusal.isEmpty())
            continue;
        if (!after.empty() && tool->spec.name.toStdString() <= after)
            continue;
        if (int(tools.size()) == pageSize) {
            more = true;
            break;
        }
        tools.push_back(tool->spec.toJson());
        lastName = tool->spec.name;
    }
    json result{{"tools", std::move(tools)}};
    if (more)
        result["nextCursor"] = encodeCursor(lastName);
    if (isModern()) {
        // Cacheable, for no time: the list follows the configuration, the adapters and their
        // breakers, and a client learns of a change from tools/list_changed only on a 2025 session.
        result["ttlMs"] = 0;
        result["cacheScope"] = "private";
    }
    return JsonRpc::makeResult(message.id, resultOfThisEra(std::move(result)));
}

// History's queue is full: the call waits, unread and unrun, until the writer has caught up, so
// that every answered call is kept (back-pressure: its client hears nothing until then). Later
// calls of this session wait behind it, in order.
void McpSession::holdForHistory(
    const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel)
{
    // The message points into its POST's document, which is gone by the time the call resumes.
    HeldCall held{*message.raw, rawText, channel, QDateTime::currentMSecsSinceEpoch(), {}};
    held.waited.start();
    m_heldForHistory.push_back(std::move(held));
    askForRoom();
}

void McpSession::askForRoom()
{
    if (m_roomAsked || m_heldForHistory.empty())
        return;
    m_roomAsked = true;
    QPointer<McpSession> self(this);
    m_environment->history->whenRoom(this, [self] {
        if (self)
            self->resumeHeldCalls();
    });
}

void McpSession::resumeHeldCalls()
{
    m_roomAsked = false;
    HistoryFeed* history = m_environment->history;
    while (!m_heldForHistory.empty() && history->hasRoom()) {
        HeldCall held = std::move(m_heldForHistory.front());
        m_heldForHistory.pop_front();
        // A connection that closed while its call waited is normally told (channelClosed); one that
        // was not is still owed no answer, and the call is recorded all the same.
        if (held.channel && !held.channel->isOpen()) {
            cancelHeldCall(held, QStringLiteral("the client closed the connection"));
            continue;
        }
        handleToolsCall(JsonRpc::classify(held.document), held.rawText, held.channel);
    }
    askForRoom();
}

void McpSession::cancelHeldCalls(const QString& reason, const ResponseChannel* channel)
{
    // Taken out first: skipping a response can close its connection at once, which calls back into
    // channelClosed and so into this list.
    std::vector<HeldCall> ending;
    for (auto it = m_heldForHistory.begin(); it != m_heldForHistory.end();) {
        if (channel && it->channel.get() != channel) {
            ++it;
            continue;
        }
        ending.push_back(std::move(*it));
        it = m_heldForHistory.erase(it);
    }
    for (HeldCall& held : ending)
        cancelHeldCall(held, reason);
}

void McpSession::cancelHeldCall(const HeldCall& held, const QString& reason)
{
    const JsonRpc::Message message = JsonRpc::classify(held.document);
    const json& params = message.params();
    const auto name = params.is_object() ? params.find("name") : params.end();
    const QString tool = name != params.end() && name->is_string() && !name->get_ref<const std::string&>().empty()
        ? QString::fromStdString(name->get<std::string>())
        : QStringLiteral("(no name)");
    ToolCall record
        = newRecord(message, held.rawText, tool, m_environment->router->resolve(tool.toStdString()).route());
    record.startedAtMs = held.arrivedAtMs;
    m_environment->events->publishCallStarted(record);
    if (held.channel)
        held.channel->skipResponse();
    record.status = CallStatus::Cancelled;
    record.error = m_environment->redactor.text(
        reason + QStringLiteral(" (the call never ran: it was waiting for history to catch up)"));
    record.durationUs = held.waited.nsecsElapsed() / 1000;
    m_environment->events->publishCallFinished(record);
}

ToolCall McpSession::newRecord(
    const JsonRpc::Message& message, const QByteArray& rawText, const QString& tool, const ToolRoute& route)
{
    ToolCall record;
    record.id = m_environment->nextCallId();
    record.sessionId = QString::fromLatin1(m_id);
    record.clientName = m_clientName;
    record.clientVersion = m_clientVersion;
    record.tool = m_environment->redactor.text(tool);
    record.route = route;
    record.request = m_environment->redactor.jsonText(rawText.isEmpty() ? JsonRpc::serialize(*message.raw) : rawText);
    record.startedAtMs = QDateTime::currentMSecsSinceEpoch();
    record.replayOf = m_replayOf;
    if (m_callStarted)
        m_callStarted(record.id);
    return record;
}

QByteArray McpSession::timelineOf(const InFlight& entry) const
{
    // Progress messages and log data are the tool's text: secrets in them are redacted as in bodies.
    return entry.timeline ? withoutInvocation(m_environment->redactor.jsonText(entry.timeline->toJson()))
                          : QByteArray();
}

QByteArray McpSession::detailsOf(const ToolCallContext& context) const
{
    const json details = context.details();
    if (!details.is_object() || details.empty())
        return {};
    return withoutInvocation(m_environment->redactor.jsonText(
        QByteArray::fromStdString(details.dump(-1, ' ', false, json::error_handler_t::replace))));
}

void McpSession::rejectCall(const JsonRpc::Message& message, ToolCall record, CallStatus status, int code,
    const QString& text, const std::shared_ptr<ResponseChannel>& channel, json data)
{
    // A call refused before it runs is still a call the operator should see, with its reason.
    const QByteArray bytes
        = JsonRpc::serialize(JsonRpc::makeError(message.id, code, text.toStdString(), std::move(data)));
    if (channel)
        channel->sendResponse(bytes);
    m_environment->events->publishCallStarted(record);
    record.status = status;
    record.error = m_environment->redactor.text(text);
    record.response = m_environment->redactor.jsonText(bytes);
    record.durationUs = 0;
    m_environment->events->publishCallFinished(record);
}

void McpSession::handleToolsCall(
    const JsonRpc::Message& message, const QByteArray& rawText, const std::shared_ptr<ResponseChannel>& channel)
{
    const json& params = message.params();
    const auto nameIt = params.is_object() ? params.find("name") : params.end();
    if (nameIt == params.end() || !nameIt->is_string() || nameIt->get_ref<const std::string&>().empty()) {
        rejectCall(message, newRecord(message, rawText, QStringLiteral("(no name)"), ToolRoute()), CallStatus::Error,
            JsonRpc::InvalidParams, QStringLiteral("tools/call needs params.name, the name of a tool from tools/list"),
            channel);
        return;
    }
    const std::string& name = nameIt->get_ref<const std::string&>();
    const ToolRouter::Resolution resolution = m_environment->router->resolve(name);
    ToolCall record = newRecord(message, rawText, QString::fromStdString(name), resolution.route());

    json arguments = json::object();
    if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
        if (!it->is_object()) {
            rejectCall(message, std::move(record), CallStatus::InvalidArguments, JsonRpc::InvalidParams,
                QStringLiteral("params.arguments must be an object"), channel);
            return;
        }
        arguments = *it;
    }
    json progressToken;
    if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
        const auto token = meta->find("progressToken");
        if (token != meta->end() && (token->is_string() || token->is_number_integer()))
            progressToken = *token;
    }
    std::string key = JsonRpc::dump(message.id);
    if (m_inFlight.count(key)) {
        rejectCall(message, std::move(record), CallStatus::Error, JsonRpc::InvalidRequest,
            QStringLiteral("request id %1 is already in use by a call in flight").arg(QString::fromStdString(key)),
            channel);
        return;
    }
    if (!resolution.tool) {
        const QString text = ToolRouter::unknownToolMessage(record.tool, resolution);
        // Also machine-readable, so a caller can offer the closest matches without parsing the text.
        json closest = json::array();
        for (const QString& match : resolution.closestMatches)
            closest.push_back(match.toStdString());
        // A name whose adapter offers no tools now (disabled, still connecting, its upstream out of
        // reach, its breaker opened by the operator) is routed, to an adapter that cannot take calls:
        // the status a call to it would get (upstream_error, or breaker_open for the breaker's
        // refusal); any other name reaches no tool at all.
        const CallStatus status
            = resolution.unavailableReason.isEmpty() ? CallStatus::UnknownTool : resolution.unavailableStatus;
        rejectCall(message, std::move(record), status, JsonRpc::InvalidParams, text, channel,
            json{{"reason", resolution.unavailableReason.isEmpty() ? "unknown_tool" : "tool_unavailable"},
                {"closestMatches", std::move(closest)}});
        return;
    }

    QPointer<McpSession> self(this);
    ToolCallContext::Hooks hooks;
    // What is sent about the call is also kept with it (the inspector's Timeline), timed from its start.
    auto timeline = std::make_shared<CallTimeline>();
    QElapsedTimer sinceStart;
    sinceStart.start();
    hooks.notify = [self, key, channel, timeline, sinceStart](const json& notification) {
        if (channel && channel->isOpen()) {
            channel->sendNotification(JsonRpc::serialize(notification));
            timeline->record(sinceStart.elapsed(), notification);
            // The write above may have closed the connection and ended the call: the session looks
            // the call up again when it publishes.
            if (self) {
                self->m_timelineChanged.insert(key);
                if (!self->m_timelinePublisher.isActive())
                    self->m_timelinePublisher.start();
            }
        }
    };
    hooks.wantsLog = [self](LogLevel level) { return self && self->m_logsWanted && level >= self->m_logLevel; };
    hooks.askClient = [self](const QString& method, const json& request, ToolCallContext::ClientReply reply) {
        return self && self->m_clientQuestionHook && self->m_clientQuestionHook(method, request, std::move(reply));
    };
    hooks.complete = [self, key](ToolResult result) {
        if (self)
            self->completeCall(key, std::move(result));
    };
    CallMetadata metadata;
    metadata.callId = record.id;
    metadata.tool = resolution.tool->spec.name;
    metadata.route = resolution.tool->route;
    metadata.sessionId = record.sessionId;
    metadata.clientName = m_clientName;
    metadata.clientVersion = m_clientVersion;
    metadata.progressToken = std::move(progressToken);
    metadata.invocation = m_invocation;
    auto context = std::make_shared<ToolCallContext>(
        std::move(arguments), std::move(metadata), std::move(hooks), m_environment->executor->home());

    InFlight& entry = m_inFlight[key];
    if (isModern()) {
        if (const auto responses = params.find("inputResponses"); responses != params.end())
            entry.inputResponses = *responses;
        if (const auto state = params.find("requestState"); state != params.end() && state->is_string())
            entry.requestState = QByteArray::fromStdString(state->get<std::string>());
    }
    entry.context = context;
    entry.channel = channel;
    entry.requestId = message.id;
    entry.record = record;
    entry.timeline = std::move(timeline);
    entry.tool = resolution.tool;
    entry.timer.start();
    m_environment->events->publishCallStarted(record);

    admitCall(key);
}

// Hands an admitted call to the executor, which runs it as its tool declares; a call still running
// afterwards is kept alive by the heartbeat.
void McpSession::execute(const std::string& key)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    const std::shared_ptr<ToolCallContext> context = it->second.context;
    const std::shared_ptr<const RegisteredTool> tool = it->second.tool;
    m_environment->executor->run(tool, context);
    watchRunning(key);
}

void McpSession::watchRunning(const std::string& key)
{
    if (!m_heartbeat.isActive() && m_inFlight.count(key))
        m_heartbeat.start();
}

void McpSession::beatRunningCalls()
{
    // As in tickWaitingCalls: a write can close its connection and end calls, so the keys are
    // collected first and each is looked up again, holding what is written through.
    const qint64 now
        = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
    std::vector<std::string> due;
    for (const auto& [key, entry] : m_inFlight) {
        if (entry.interactionId.isEmpty() && entry.record.status == CallStatus::Running
            && now - entry.context->lastNotificationMs() >= m_environment->heartbeatIntervalMs)
            due.push_back(key);
    }
    if (m_inFlight.empty()) {
        m_heartbeat.stop();
        return;
    }
    for (const std::string& key : due) {
        const auto it = m_inFlight.find(key);
        if (it == m_inFlight.end() || !it->second.interactionId.isEmpty())
            continue;
        const std::shared_ptr<ToolCallContext> context = it->second.context;
        const std::shared_ptr<ResponseChannel> channel = it->second.channel;
        const qint64 seconds = it->second.timer.elapsed() / 1000;
        if (context->hasProgressToken()) {
            context->sendHeartbeatProgress(
                QStringLiteral("%1 is still running (%2 s)").arg(it->second.record.tool).arg(seconds));
        } else if (channel) {
            channel->sendKeepAlive("still running");
            context->noteKeepAlive();
        }
    }
}

void McpSession::admitCall(const std::string& key)
{
    InFlight& entry = m_inFlight.at(key);
    const std::shared_ptr<ToolCallContext> context = entry.context;
    const std::shared_ptr<const RegisteredTool> tool = entry.tool;
    if (!tool->refusal.isEmpty()) {
        if (tool->refused) {
            try { // the tool's own code (a count of refused calls): what it throws does not change the answer
                tool->refused();
            } catch (...) {
                qWarning("switchboard: tool %s: counting a refused call failed: %s", qPrintable(tool->spec.name),
                    qPrintable(ThrownException::describe(std::current_exception())));
            }
        }
        // A standing rule of the operator's (a write tool of a read-only adapter), not a failure of
        // the upstream, which was never asked: retrying cannot help, as with a policy's deny.
        context->finish(ToolResult::error(tool->refusal, CallStatus::Denied));
        return;
    }
    // Arguments are checked before any pause, so a model gets a retryable error at once rather
    // than after a person answered.
    const QString invalid = ToolRouter::argumentError(*tool, context->arguments());
    if (!invalid.isEmpty()) {
        context->finish(ToolResult::error(invalid, CallStatus::InvalidArguments));
        return;
    }
    InteractionBroker* broker = m_environment->interactions;
    if (!broker) {
        execute(key);
        return;
    }
    // A named token's identity keys the client's stored answers and grants; a declared name keys
    // them as it always has (so answers stored before named tokens still match).
    const InteractionBroker::CallOrigin origin{entry.record.id, entry.record.sessionId, entry.record.clientName,
        entry.record.clientVersion, entry.record.request,
        m_identity.startsWith(QLatin1String("token:")) ? m_identity : QString()};
    InteractionBroker::Admission admission = broker->admit(*tool, context->arguments(), origin);
    entry.record.decision = admission.decision; // a rule, a grant or a stored answer: why it ran (or not) unasked
    switch (admission.verdict) {
    case InteractionBroker::Admission::Verdict::Run:
        execute(key);
        return;
    case InteractionBroker::Admission::Verdict::Refuse:
    case InteractionBroker::Admission::Verdict::Answer:
        context->finish(std::move(admission.result));
        return;
    case InteractionBroker::Admission::Verdict::Pause:
        break;
    }

    if (isModern() && tool->clientTool && tool->clientTool->answeredByClient && runInputRound(key))
        return;
    // A stateless (2026-07-28) request has nothing to come back to but its open response (or its
    // task): its call holds where a session's would park.
    if (isModern())
        admission.mode = PauseMode::Hold;
    if (admission.mode == PauseMode::Park) {
        bool duplicate = false;
        const QString interactionId = broker->park(*tool, context->arguments(), admission, origin, &duplicate);
        leaveWaiting(key,
            duplicate ? QStringLiteral("parked again: the same question (%1) is already waiting for a person; the "
                                       "answer goes to the next identical call")
                            .arg(interactionId)
                      : QStringLiteral("parked: waiting for a person at the console (%1); the answer goes to the "
                                       "next identical call")
                            .arg(interactionId));
        return;
    }

    QPointer<McpSession> self(this);
    InteractionBroker::Waiter waiter;
    waiter.answered = [self, key](const InteractionAnswer& answer, const QByteArray& decision) {
        if (self)
            self->resumeCall(key, answer, decision);
    };
    waiter.timedOut = [self, key] {
        if (self)
            self->timeOutCall(key);
    };
    // Raising the question emits signals: someone may answer it before hold() returns, and the call
    // may then have run and finished. An answer sets the status back to Running; a finished call is
    // gone: so the entry is looked up again afterwards.
    entry.record.status = CallStatus::Paused;
    entry.waitTimer.start();
    const QString interactionId = broker->hold(*tool, context->arguments(), admission, origin, std::move(waiter));
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end() || it->second.record.status != CallStatus::Paused)
        return;
    it->second.interactionId = interactionId;
    m_environment->events->publishCallChanged(it->second.record);
    if (m_waitingCount++ == 0)
        m_waitTicker.start();
    if (m_waitHook)
        m_waitHook(it->second.record.id, interactionId); // last: it may give the call a new channel
}

void McpSession::resumeCall(const std::string& key, const InteractionAnswer& answer, const QByteArray& decision)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    InFlight& entry = it->second;
    stopWaiting(entry);
    entry.record.status = CallStatus::Running;
    entry.record.decision = m_environment->redactor.jsonText(decision);
    m_environment->events->publishCallChanged(entry.record);
    if (m_waitHook) {
        m_waitHook(entry.record.id, QString());
        if (m_inFlight.find(key) == m_inFlight.end())
            return;
    }
    const std::shared_ptr<ToolCallContext> context = entry.context;
    const std::shared_ptr<const RegisteredTool> tool = entry.tool;
    if (tool->clientTool) {
        context->finish(ClientTool::resultFor(BoundedJson::parse(answer.output, BoundedJson::Limits::message()).value));
    } else if (answer.decision == InteractionAnswer::Decision::Deny) {
        context->finish(ToolResult::error(
            QStringLiteral("The person at the Switchboard console denied this call of \"%1\"%2.")
                .arg(tool->spec.name, answer.reason.isEmpty() ? QString() : QStringLiteral(": ") + answer.reason),
            CallStatus::Denied));
    } else {
        execute(key);
    }
}

void McpSession::timeOutCall(const std::string& key)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    InFlight& entry = it->second;
    stopWaiting(entry);
    const std::shared_ptr<ToolCallContext> context = entry.context;
    const std::shared_ptr<const RegisteredTool> tool = entry.tool;
    const int seconds = m_environment->interactions->settings().maxWaitMs / 1000;
    context->finish(tool->clientTool
            ? tool->clientTool->timeoutResult(tool->spec.name, seconds)
            : ToolResult::error(QStringLiteral("No one answered the approval for \"%1\" at the Switchboard console "
                                               "within %2 seconds, so it did not run. Tell the user it needs their "
                                               "approval there, or try again later.")
                                    .arg(tool->spec.name)
                                    .arg(seconds),
                CallStatus::TimedOut));
}

// The call no longer waits on its question (answered, timed out, finished, cancelled or left);
// the session's progress ticker runs only while some call waits. Returns the question's id.
QString McpSession::stopWaiting(InFlight& entry)
{
    if (entry.waitTimer.isValid()) {
        entry.waitedUs += entry.waitTimer.nsecsElapsed() / 1000;
        entry.waitTimer.invalidate();
    }
    const QString interactionId = std::exchange(entry.interactionId, QString());
    if (!interactionId.isEmpty() && --m_waitingCount == 0)
        m_waitTicker.stop();
    return interactionId;
}

void McpSession::recordTimes(InFlight& entry)
{
    entry.record.durationUs = entry.timer.nsecsElapsed() / 1000;
    // Never more than the whole: the two clocks are read a moment apart.
    entry.record.waitedUs = std::min(
        entry.record.durationUs, entry.waitedUs + qint64(entry.context ? entry.context->pausedTime().count() : 0));
}

// The call stops waiting without an answer (parked, or its connection dropped) while its question
// stays pending: no JSON-RPC result is sent, the connection is closed, and the call is recorded
// as parked. Not paused: the call is over (nothing more happens to this record, and a row left
// "paused" would wait for ever), and not cancelled: its question is not withdrawn, and answering it
// still serves the client's retry. `why` tells a parked call from one whose client went away.
void McpSession::leaveWaiting(const std::string& key, const QString& why)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    InFlight entry = std::move(it->second);
    m_inFlight.erase(it);
    stopWaiting(entry);
    entry.context->cancel(); // nothing of the call may go on running
    if (entry.channel)
        entry.channel->abandon(why);
    ToolCall& record = entry.record;
    record.status = CallStatus::Parked;
    record.error = why;
    recordTimes(entry);
    record.timeline = timelineOf(entry);
    m_environment->events->publishCallFinished(record);
}

void McpSession::tickWaitingCalls()
{
    // Each write below can close its connection at once (the peer reset), and a closed connection
    // removes its calls from m_inFlight: so the waiting calls are collected first and each is looked
    // up again, and what is being written through is held here, not only by the entry.
    std::vector<std::string> waiting;
    waiting.reserve(std::size_t(m_waitingCount));
    for (const auto& [key, entry] : m_inFlight) {
        if (!entry.interactionId.isEmpty())
            waiting.push_back(key);
    }
    for (const std::string& key : waiting) {
        const auto it = m_inFlight.find(key);
        if (it == m_inFlight.end() || it->second.interactionId.isEmpty())
            continue;
        const InFlight& entry = it->second;
        const double waitedSeconds = double(entry.timer.elapsed()) / 1000.0;
        const std::shared_ptr<ToolCallContext> context = entry.context;
        const std::shared_ptr<ResponseChannel> channel = entry.channel;
        if (context->hasProgressToken()) {
            context->reportProgress(waitedSeconds, std::nullopt,
                QStringLiteral("waiting for a person to answer %1 at the Switchboard console").arg(entry.record.tool));
        } else if (channel) {
            channel->sendKeepAlive("waiting for a person at the Switchboard console");
        }
    }
}

bool McpSession::refuseBatchThatWouldPause(
    const std::vector<JsonRpc::Message>& messages, const std::shared_ptr<ResponseChannel>& channel)
{
    InteractionBroker* broker = m_environment->interactions;
    if (!broker)
        return false;
    QString pausing;
    for (const auto& message : messages) {
        if (message.kind != JsonRpc::Kind::Request || message.method != "tools/call" || !message.params().is_object())
            continue;
        const auto name = message.params().find("name");
        if (name == message.params().end() || !name->is_string())
            continue;
        const ToolRouter::Resolution resolution = m_environment->router->resolve(name->get<std::string>());
        if (resolution.tool && broker->wouldPause(*resolution.tool, QString::fromLatin1(m_id), m_clientName)) {
            pausing = resolution.tool->spec.name;
            break;
        }
    }
    if (pausing.isEmpty())
        return false;
    const QString text = QStringLiteral("Invalid Request: this batch calls \"%1\", which waits for a person at the "
                                        "Switchboard console; a batch that would wait is refused whole and none of "
                                        "it ran. Send that call on its own.")
                             .arg(pausing);
    for (const auto& message : messages) {
        if (message.kind == JsonRpc::Kind::Request && message.method == "tools/call") {
            const auto name = message.params().is_object() ? message.params().find("name") : message.params().end();
            const QString tool = name != message.params().end() && name->is_string()
                ? QString::fromStdString(name->get<std::string>())
                : QStringLiteral("(no name)");
            rejectCall(message,
                newRecord(message, QByteArray(), tool, m_environment->router->resolve(tool.toStdString()).route()),
                CallStatus::Error, JsonRpc::InvalidRequest, text, channel);
        } else if (message.kind == JsonRpc::Kind::Request || message.kind == JsonRpc::Kind::Invalid) {
            reply(channel, JsonRpc::makeError(message.id, JsonRpc::InvalidRequest, text.toStdString()));
        }
    }
    return true;
}

void McpSession::completeCall(const std::string& key, ToolResult result)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    // A running tool parked its call on a question to a person (an upstream's elicitation, for a
    // client that parks): no result is sent, as for a call parked before it ran.
    if (result.callStatus() == CallStatus::Parked) {
        leaveWaiting(key, result.firstText());
        return;
    }
    InFlight entry = std::move(it->second);
    m_inFlight.erase(it);
    if (const QString interactionId = stopWaiting(entry); !interactionId.isEmpty()) // finished by other means
        m_environment->interactions->withdraw(interactionId, QStringLiteral("the call finished"));

    // A failure the tool did not shape itself (the call ended before or without it) in the tool's
    // own shape.
    if (result.isError && result.structuredContent.is_null() && entry.tool && entry.tool->shapeFailure)
        result = entry.tool->shapeFailure(result);
    ToolCall& record = entry.record;
    record.status = result.callStatus();
    if (result.isError)
        record.error = m_environment->redactor.text(result.firstText()); // BackendEvents cuts it to MaxErrorChars
    const QByteArray bytes
        = JsonRpc::serialize(JsonRpc::makeResult(entry.requestId, resultOfThisEra(std::move(result).toJson())));
    sendFinalResponse(entry, bytes);
}

// The call's response goes to its client, and the call's record, finished, to the operator.
void McpSession::sendFinalResponse(InFlight& entry, const QByteArray& bytes)
{
    ToolCall& record = entry.record;
    if (entry.channel)
        entry.channel->sendCallResponse(bytes, record.status);
    recordTimes(entry);
    record.response = m_environment->redactor.jsonText(bytes);
    record.timeline = timelineOf(entry);
    record.details = detailsOf(*entry.context);
    withholdInvocation(record);
    m_environment->events->publishCallFinished(record);
}

void McpSession::endCall(const std::string& key, const json& response, CallStatus status, const QString& note)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    InFlight entry = std::move(it->second);
    m_inFlight.erase(it);
    if (const QString interactionId = stopWaiting(entry); !interactionId.isEmpty())
        m_environment->interactions->withdraw(interactionId, QStringLiteral("the call finished"));
    entry.context->cancel(); // nothing of the call may go on running
    ToolCall& record = entry.record;
    record.status = status;
    record.error = m_environment->redactor.text(note);
    const QByteArray bytes = JsonRpc::serialize(response);
    sendFinalResponse(entry, bytes);
}

std::optional<RequestStates::Claims> McpSession::checkedRequestState(
    const std::string& key, const QString& tool, const QByteArray& argumentsDigest)
{
    InFlight& entry = m_inFlight.at(key);
    auto verified = m_environment->requestStates->verify(entry.requestState, m_identity, tool, argumentsDigest);
    if (const QString* refusal = std::get_if<QString>(&verified)) {
        entry.timeline->record(entry.timer.elapsed(),
            json{{"method", "switchboard/input"},
                {"params", {{"event", "refused"}, {"reason", refusal->toStdString()}}}});
        const QString reason = *refusal;
        endCall(key,
            JsonRpc::makeError(entry.requestId, JsonRpc::InvalidParams, "Invalid params: " + reason.toStdString()),
            CallStatus::Error, reason);
        return std::nullopt;
    }
    return std::get<RequestStates::Claims>(std::move(verified));
}

bool McpSession::askThroughInputRequired(const std::string& key, const QString& tool, const QByteArray& argumentsDigest,
    int round, const char* inputKey, const json& request, const QString& note, const std::function<void()>& onIssued)
{
    InFlight& entry = m_inFlight.at(key);
    RequestStates::Claims claims;
    claims.identity = m_identity;
    claims.tool = tool;
    claims.argumentsDigest = argumentsDigest;
    claims.round = round;
    claims.callId = entry.record.id;
    claims.keys = {QString::fromLatin1(inputKey)};
    const QByteArray state = m_environment->requestStates->issue(claims);
    if (state.isEmpty())
        return false;
    if (onIssued)
        onIssued();
    json asked{{"event", "asked"}, {"round", round}, {"keys", {inputKey}}, {"requestKinds", {"elicitation/create"}}};
    if (request.value("mode", std::string()) == "url")
        asked["mode"] = "url";
    entry.timeline->record(entry.timer.elapsed(), json{{"method", "switchboard/input"}, {"params", std::move(asked)}});
    json result{{"resultType", "input_required"},
        {"inputRequests", {{inputKey, {{"method", "elicitation/create"}, {"params", request}}}}},
        {"requestState", state.toStdString()}};
    endCall(key, JsonRpc::makeResult(entry.requestId, resultOfThisEra(std::move(result))), CallStatus::Parked, note);
    return true;
}

bool McpSession::runInputRound(const std::string& key)
{
    if (m_inFlight.at(key).tool->clientTool->render == RenderHint::Connect)
        return runConnectRound(key); // a secret never goes through a form: a sign-in, or the console
    RequestStates* states = m_environment->requestStates;
    const auto elicitation = m_clientCapabilities.find("elicitation");
    // Form mode: `{}` or one that lists form (a client that offers only URL mode cannot show a form).
    const bool canAsk = elicitation != m_clientCapabilities.end() && elicitation->is_object()
        && (elicitation->empty() || elicitation->contains("form"));
    InFlight& entry = m_inFlight.at(key);
    if (!states || !canAsk || m_identity.isEmpty())
        return false;
    const ClientTool& clientTool = *entry.tool->clientTool;
    const json& arguments = entry.context->arguments();
    const QString tool = entry.tool->spec.name;
    const QByteArray digest = RequestStates::digestOf(arguments);
    constexpr const char* AnswerKey = "answer";
    int round = 1;
    if (!entry.requestState.isEmpty()) {
        const std::optional<RequestStates::Claims> checked = checkedRequestState(key, tool, digest);
        if (!checked)
            return true; // refused: the call has ended
        const RequestStates::Claims& claims = *checked;
        const json responses = entry.inputResponses.is_object() ? entry.inputResponses : json::object();
        const auto answer = responses.find(AnswerKey);
        if (answer != responses.end()) {
            QString problem;
            const std::optional<json> output = clientTool.outputFromElicitation(*answer, arguments, &problem);
            if (!output) {
                endCall(key,
                    JsonRpc::makeError(entry.requestId, JsonRpc::InvalidParams,
                        std::string("Invalid params: inputResponses.") + AnswerKey + ": " + problem.toStdString()),
                    CallStatus::Error, problem);
                return true;
            }
            states->consume(claims);
            entry.timeline->record(entry.timer.elapsed(),
                json{{"method", "switchboard/input"},
                    {"params",
                        {{"event", "answered"}, {"round", claims.round}, {"keys", {AnswerKey}},
                            {"previousCallId", claims.callId}}}});
            const bool declined = answer->is_object() && answer->value("action", std::string()) != "accept";
            entry.record.decision
                = QByteArray::fromStdString(json{{"what", declined ? "declined" : "answered"}, {"via", "client"},
                    {"by", "the user of " + m_clientName.toStdString()}, {"atMs", m_environment->clock()},
                    {"round", claims.round}}.dump());
            const std::shared_ptr<ToolCallContext> context = entry.context;
            context->finish(ClientTool::resultFor(*output));
            return true;
        }
        round = claims.round + 1; // the answer is missing: ask again
    }
    const std::optional<json> request = clientTool.elicitation(arguments);
    if (!request)
        return false;
    return askThroughInputRequired(key, tool, digest, round, AnswerKey, *request,
        QStringLiteral("input required: asked the client's own user (round %1); the client's retry answers it")
            .arg(round));
}

namespace {

constexpr const char* ConnectKey = "connect";

// The URL-mode elicitation of a sign-in.
json signInRequest(const QString& providerTitle, const QUrl& url)
{
    return json{{"mode", "url"},
        {"message", QStringLiteral("Sign in to %1 to connect it to Switchboard").arg(providerTitle).toStdString()},
        {"url", url.toString(QUrl::FullyEncoded).toStdString()}};
}

// How a sign-in that ended reaches the client: who is connected, never the token.
json connectOutput(const OAuthConnects::Outcome& outcome)
{
    if (outcome.state == OAuthConnects::Outcome::State::Connected)
        return ClientAnswer::connected(outcome.provider, outcome.account);
    json output = ClientAnswer::notConnected(outcome.reason);
    output["provider"] = outcome.provider.toStdString();
    if (!outcome.message.isEmpty())
        output["message"] = outcome.message.toStdString();
    return output;
}

} // namespace

bool McpSession::runConnectRound(const std::string& key)
{
    RequestStates* states = m_environment->requestStates;
    OAuthConnects* connects = m_environment->oauthConnects;
    const auto elicitation = m_clientCapabilities.find("elicitation");
    // URL mode only for a client that lists it; `{}` means form only.
    const bool canOpenUrl
        = elicitation != m_clientCapabilities.end() && elicitation->is_object() && elicitation->contains("url");
    if (!states || !connects || !canOpenUrl || m_identity.isEmpty())
        return false;
    InFlight& entry = m_inFlight.at(key);
    const json& arguments = entry.context->arguments();
    const std::string kind = arguments.value("kind", std::string());
    const OAuthProvider* provider
        = connects->provider(QString::fromStdString(arguments.value("provider", std::string())));
    if (kind == "api_key" || !provider)
        return false; // an API key is a secret: the console asks for it
    const QString tool = entry.tool->spec.name;
    const QByteArray digest = RequestStates::digestOf(arguments);
    int round = 1;
    if (!entry.requestState.isEmpty()) {
        const std::optional<RequestStates::Claims> checked = checkedRequestState(key, tool, digest);
        if (!checked)
            return true; // refused: the call has ended
        const RequestStates::Claims& claims = *checked;
        const qint64 flowCall = claims.callId;
        const int claimsRound = claims.round;
        const std::function<void()> consume = [states, claims] { states->consume(claims); };
        const json responses = entry.inputResponses.is_object() ? entry.inputResponses : json::object();
        const auto answer = responses.find(ConnectKey);
        if (answer != responses.end() && answer->is_object() && answer->value("action", std::string()) != "accept") {
            // Declined or cancelled, before or during the sign-in: it ends here.
            connects->forget(flowCall);
            consume();
            entry.timeline->record(entry.timer.elapsed(),
                json{{"method", "switchboard/input"},
                    {"params",
                        {{"event", "answered"}, {"round", claimsRound}, {"keys", {ConnectKey}},
                            {"previousCallId", flowCall}}}});
            entry.record.decision = QByteArray::fromStdString(json{{"what", "declined"}, {"via", "client"},
                {"by", "the user of " + m_clientName.toStdString()}, {"atMs", m_environment->clock()},
                {"round", claimsRound}}.dump());
            const std::shared_ptr<ToolCallContext> context = entry.context;
            context->finish(ClientTool::resultFor(ClientAnswer::notConnected(QStringLiteral("declined"))));
            return true;
        }
        if (connects->outcome(flowCall, m_identity)) {
            // Accepted (or no answer yet): the sign-in's outcome, waited for a bounded while.
            entry.timeline->record(entry.timer.elapsed(),
                json{{"method", "switchboard/input"},
                    {"params",
                        {{"event", "waiting"}, {"round", claimsRound}, {"keys", {ConnectKey}},
                            {"previousCallId", flowCall}}}});
            auto done = std::make_shared<bool>(false);
            QPointer<McpSession> self(this);
            const auto settle = [self, key, flowCall, claimsRound, consume, done] {
                if (!self || std::exchange(*done, true))
                    return;
                self->settleConnectRound(key, flowCall, claimsRound, consume);
            };
            QTimer::singleShot(connects->settings().settleWaitMs, this, settle);
            connects->whenSettled(flowCall, settle);
            return true;
        }
        // The sign-in is gone (it expired, or the server restarted): a new one, in a new round.
        consume();
        round = claimsRound + 1;
    }
    QStringList scopes;
    if (const auto listed = arguments.find("scopes"); listed != arguments.end() && listed->is_array()) {
        for (const json& scope : *listed) {
            if (scope.is_string())
                scopes << QString::fromStdString(scope.get<std::string>());
        }
    }
    QString problem;
    const QUrl url = connects->start(entry.record.id, m_identity, *provider, scopes, &problem);
    if (url.isEmpty()) {
        qWarning("switchboard: a client's sign-in with %s could not start (%s); the console asks instead",
            qPrintable(provider->name), qPrintable(problem));
        return false;
    }
    if (!askThroughInputRequired(key, tool, digest, round, ConnectKey, signInRequest(provider->displayTitle(), url),
            QStringLiteral("input required: the client's own user signs in to %1 (round %2); the client's retry "
                           "learns the outcome")
                .arg(provider->displayTitle())
                .arg(round))) {
        connects->forget(entry.record.id);
        return false; // too many rounds in flight to remember another: the console asks
    }
    return true;
}

void McpSession::settleConnectRound(
    const std::string& key, qint64 flowCall, int round, const std::function<void()>& consume)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return; // the retry was cancelled while it waited: its state answers the next one
    InFlight& entry = it->second;
    OAuthConnects* connects = m_environment->oauthConnects;
    const std::optional<OAuthConnects::Outcome> outcome = connects->outcome(flowCall, m_identity);
    if (outcome && outcome->state == OAuthConnects::Outcome::State::Pending) {
        // Still signing in: another round with the same URL, filed under this call.
        const OAuthProvider* provider = connects->provider(outcome->provider);
        const json request = signInRequest(
            provider ? provider->displayTitle() : outcome->provider, connects->authorizationUrl(flowCall));
        const qint64 callId = entry.record.id;
        if (askThroughInputRequired(key, entry.tool->spec.name, RequestStates::digestOf(entry.context->arguments()),
                round + 1, ConnectKey, request,
                QStringLiteral("input required: the sign-in is still running (round %1)").arg(round + 1), [&] {
                    consume();
                    connects->refile(flowCall, callId);
                }))
            return;
    }
    consume();
    connects->forget(flowCall);
    const json output = outcome && outcome->state != OAuthConnects::Outcome::State::Pending
        ? connectOutput(*outcome)
        : ClientAnswer::notConnected(QStringLiteral("timeout"));
    const bool connected = output.value("connected", false);
    entry.timeline->record(entry.timer.elapsed(),
        json{{"method", "switchboard/input"},
            {"params",
                {{"event", "answered"}, {"round", round}, {"keys", {ConnectKey}}, {"previousCallId", flowCall}}}});
    entry.record.decision = QByteArray::fromStdString(json{{"what", connected ? "answered" : "declined"},
        {"via", "client"}, {"by", "the user of " + m_clientName.toStdString()}, {"atMs", m_environment->clock()},
        {"round", round}}.dump());
    const std::shared_ptr<ToolCallContext> context = entry.context;
    context->finish(ClientTool::resultFor(output));
}

QByteArray McpSession::withoutInvocation(QByteArray jsonText) const
{
    for (const TokenRedactor& value : m_invocationValues)
        jsonText = value.jsonText(std::move(jsonText));
    return jsonText;
}

void McpSession::withholdInvocation(ToolCall& record) const
{
    // Timeline and details are taken without it (timelineOf, detailsOf).
    record.response = withoutInvocation(std::move(record.response));
    for (const TokenRedactor& value : m_invocationValues)
        record.error = value.text(std::move(record.error));
}

void McpSession::cancelCall(const std::string& key, const QString& reason, QuestionFate fate)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    InFlight entry = std::move(it->second);
    m_inFlight.erase(it);
    if (const QString interactionId = stopWaiting(entry); !interactionId.isEmpty()) {
        if (fate == QuestionFate::Withdraw)
            m_environment->interactions->withdraw(interactionId, reason);
        else
            m_environment->interactions->detach(interactionId);
    }
    entry.context->cancel();
    if (entry.channel)
        entry.channel->skipResponse();
    ToolCall& record = entry.record;
    recordTimes(entry);
    record.status = CallStatus::Cancelled;
    record.error = m_environment->redactor.text(reason); // may quote the client's own reason
    record.timeline = timelineOf(entry);
    record.details = detailsOf(*entry.context); // after cancel(): what the work had done by then
    withholdInvocation(record);
    m_environment->events->publishCallFinished(record);
}

void McpSession::endAtShutdown(const std::string& key)
{
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end())
        return;
    // The client gets a tool error it can act on, never an exchange that ends without a result (an
    // empty 200 to a client that holds a call). A question the call waited on stays pending across
    // the restart, and its answer goes to the client's retry.
    const QString interactionId = stopWaiting(it->second);
    if (!interactionId.isEmpty())
        m_environment->interactions->detach(interactionId);
    const std::shared_ptr<ToolCallContext> context = it->second.context;
    completeCall(key,
        ToolResult::error(interactionId.isEmpty()
                ? QStringLiteral("Switchboard stopped before the call finished; call it again once Switchboard is "
                                 "running.")
                : QStringLiteral("Switchboard stopped before anyone answered its question. The question stays "
                                 "pending: call the tool again with the same arguments once Switchboard is running, "
                                 "and that call gets the answer."),
            CallStatus::Cancelled));
    // After the result is out: a tool that ends on cancellation finds its call already answered.
    context->cancel();
}

void McpSession::handleNotification(const JsonRpc::Message& message)
{
    if (message.method == "notifications/initialized") {
        m_initialized = true;
    } else if (message.method == "notifications/cancelled") {
        if (!message.params().is_object())
            return;
        const auto requestId = message.params().find("requestId");
        if (requestId == message.params().end())
            return;
        QString reason = QStringLiteral("cancelled by the client");
        if (const auto r = message.params().find("reason"); r != message.params().end() && r->is_string())
            reason += QStringLiteral(": ") + QString::fromStdString(r->get<std::string>());
        cancelCall(JsonRpc::dump(*requestId), reason);
    }
    // Other notifications (roots/list_changed, progress for server requests, …) need no action yet;
    // unknown notifications are ignored, as JSON-RPC requires.
}

void McpSession::replaceChannel(const ResponseChannel* from, const std::shared_ptr<ResponseChannel>& to)
{
    for (auto& [key, entry] : m_inFlight) {
        if (entry.channel.get() == from)
            entry.channel = to;
    }
}

void McpSession::noteOnTimeline(const json& requestId, const json& entry)
{
    const std::string key = JsonRpc::dump(requestId);
    const auto it = m_inFlight.find(key);
    if (it == m_inFlight.end() || !it->second.timeline)
        return;
    it->second.timeline->record(it->second.timer.elapsed(), entry);
    m_timelineChanged.insert(key);
    if (!m_timelinePublisher.isActive())
        m_timelinePublisher.start();
}

qint64 McpSession::callIdOf(const json& requestId) const
{
    const auto it = m_inFlight.find(JsonRpc::dump(requestId));
    return it == m_inFlight.end() ? 0 : it->second.record.id;
}

void McpSession::channelClosed(const ResponseChannel* channel)
{
    std::vector<std::string> keys;
    for (const auto& [key, entry] : m_inFlight) {
        if (entry.channel.get() == channel)
            keys.push_back(key);
    }
    // Cancelling or leaving one call writes to channels and calls the broker, either of which can
    // end other calls: each is looked up again.
    for (const auto& key : keys) {
        const auto it = m_inFlight.find(key);
        if (it == m_inFlight.end() || it->second.channel.get() != channel)
            continue;
        const QString interactionId = it->second.interactionId;
        // In 2026-07-28 closing a request's response stream cancels it, question and all: a
        // stateless client has no retry that the question could wait for.
        if (interactionId.isEmpty() || isModern()) {
            cancelCall(key, QStringLiteral("the client closed the connection"));
            continue;
        }
        // A dropped connection alone does not cancel a question: the widget stays, and the answer
        // is kept for the retried call. The channel is closed: nothing more is written to it.
        it->second.channel.reset();
        m_environment->interactions->detach(interactionId);
        leaveWaiting(key,
            QStringLiteral("the client closed the connection while waiting; the question (%1) stays open and its "
                           "answer goes to the next identical call")
                .arg(interactionId));
    }
    cancelHeldCalls(QStringLiteral("the client closed the connection"), channel);
    clearNotificationStream(channel);
}

void McpSession::terminate(const QString& reason)
{
    std::vector<std::string> keys;
    keys.reserve(m_inFlight.size());
    for (const auto& [key, entry] : m_inFlight)
        keys.push_back(key);
    for (const auto& key : keys)
        cancelCall(key, reason);
    cancelHeldCalls(reason);
    m_notificationStream.reset();
    if (m_environment->interactions)
        m_environment->interactions->forgetSession(QString::fromLatin1(m_id));
}

void McpSession::shutDown()
{
    std::vector<std::string> keys;
    keys.reserve(m_inFlight.size());
    for (const auto& [key, entry] : m_inFlight)
        keys.push_back(key);
    for (const auto& key : keys)
        endAtShutdown(key);
    cancelHeldCalls(QStringLiteral("the server stopped"));
    m_notificationStream.reset();
}

void McpSession::setNotificationStream(std::shared_ptr<ResponseChannel> stream)
{
    m_notificationStream = std::move(stream);
}

bool McpSession::hasNotificationStream() const
{
    return m_notificationStream && m_notificationStream->isOpen();
}

void McpSession::clearNotificationStream(const ResponseChannel* stream)
{
    if (m_notificationStream.get() == stream)
        m_notificationStream.reset();
}

void McpSession::sendNotification(const json& notification)
{
    // Held here: a write can close the stream, which clears m_notificationStream from inside it.
    const std::shared_ptr<ResponseChannel> stream = m_notificationStream;
    if (stream && stream->isOpen())
        stream->sendNotification(JsonRpc::serialize(notification));
}
