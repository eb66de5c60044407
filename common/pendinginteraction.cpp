#include "pendinginteraction.h"

#include "boundedjson.h"
#include "enumnames.h"
#include "statejsonreader.h"

using nlohmann::json;

namespace {

std::string kindName(InteractionKind kind)
{
    return kind == InteractionKind::Approval ? "approval" : "client-tool";
}

} // namespace

QString pauseModeName(PauseMode mode)
{
    return mode == PauseMode::Hold ? QStringLiteral("hold") : QStringLiteral("park");
}

// The one place a paused call's arguments are serialised into the workspace state file.
json PendingInteraction::toJson() const
{
    json earlier = json::array();
    for (qint64 callIdBefore : earlierCallIds)
        earlier.push_back(callIdBefore);
    json record{{"id", id.toStdString()}, {"kind", kindName(kind)}, {"render", renderHintName(render).toStdString()},
        {"tool", tool.toStdString()}, {"toolTitle", toolTitle.toStdString()}, {"route", route.toString().toStdString()},
        {"arguments", arguments.toStdString()}, {"renderSpec", renderSpec.toStdString()},
        {"sessionId", sessionId.toStdString()}, {"clientName", clientName.toStdString()},
        {"clientVersion", clientVersion.toStdString()}, {"callId", callId}, {"earlierCallIds", std::move(earlier)},
        {"mode", pauseModeName(mode).toStdString()}, {"createdAtMs", createdAtMs}, {"key", key.toStdString()},
        {"fromRunner", fromRunner}};
    if (!identity.isEmpty())
        record["identity"] = identity.toStdString();
    if (!backend.isEmpty())
        record["backend"] = backend.toStdString();
    if (stateless)
        record["stateless"] = true;
    if (waiting) {
        record["waiting"] = true;
        record["deadlineMs"] = deadlineMs;
    }
    return record;
}

bool PendingInteraction::fromJson(
    const json& value, const QString& where, PendingInteraction* interaction, QString* problem, Source source)
{
    PendingInteraction result;
    bool waiting = false;
    qint64 deadlineMs = 0;
    StateJsonReader reader(value, where, problem);
    QString kind;
    QString mode;
    QString route;
    QString render;
    reader
        .keys({"id", "kind", "render", "tool", "toolTitle", "route", "arguments", "renderSpec", "sessionId",
                  "clientName", "clientVersion", "callId", "earlierCallIds", "mode", "createdAtMs", "key"},
            // came later: older files lack them
            {"fromRunner", "identity", "stateless", "backend", "waiting", "deadlineMs"})
        .string("id", &result.id)
        .string("kind", &kind)
        .string("render", &render)
        .string("tool", &result.tool)
        .string("toolTitle", &result.toolTitle)
        .string("route", &route)
        .string("arguments", &result.arguments)
        .string("renderSpec", &result.renderSpec)
        .string("sessionId", &result.sessionId)
        .string("clientName", &result.clientName)
        .string("clientVersion", &result.clientVersion)
        .integer("callId", &result.callId)
        .string("mode", &mode)
        .integer("createdAtMs", &result.createdAtMs)
        .string("key", &result.key)
        .optionalBoolean("fromRunner", &result.fromRunner)
        .optionalString("identity", &result.identity)
        .optionalString("backend", &result.backend)
        .optionalBoolean("stateless", &result.stateless)
        .optionalBoolean("waiting", &waiting)
        .optionalInteger("deadlineMs", &deadlineMs);
    result.route = ToolRoute::fromString(route);
    const json* earlier = reader.array("earlierCallIds");
    if (!reader.ok())
        return false;
    if (result.id.isEmpty() || result.key.isEmpty() || result.tool.isEmpty()) {
        reader.fail(QStringLiteral("has an empty \"id\", \"key\" or \"tool\""));
        return false;
    }
    if (kind == QStringLiteral("approval"))
        result.kind = InteractionKind::Approval;
    else if (kind == QStringLiteral("client-tool"))
        result.kind = InteractionKind::ClientTool;
    else
        return reader.fail(QStringLiteral("has an unknown kind \"%1\"").arg(kind)).ok();
    if (const auto hint = renderHintFromName(render))
        result.render = *hint;
    else
        return reader.fail(QStringLiteral("has an unknown render \"%1\"").arg(render)).ok();
    if (mode == QStringLiteral("hold"))
        result.mode = PauseMode::Hold;
    else if (mode == QStringLiteral("park"))
        result.mode = PauseMode::Park;
    else
        return reader.fail(QStringLiteral("has an unknown mode \"%1\"").arg(mode)).ok();
    for (const QByteArray* text : {&result.arguments, &result.renderSpec}) {
        if (const std::string why = BoundedJson::refusal(*text, BoundedJson::Limits::record()); !why.empty()) {
            return reader
                .fail(QStringLiteral("has \"arguments\" or \"renderSpec\" that are not JSON (%1)")
                          .arg(QString::fromStdString(why)))
                .ok();
        }
    }
    for (const json& item : *earlier) {
        if (!item.is_number_integer())
            return reader.fail(QStringLiteral("has an \"earlierCallIds\" entry that is not an integer")).ok();
        result.earlierCallIds.append(item.get<qint64>());
    }
    // In a state file no call waits: none survives a restart, and another process's is not ours.
    result.waiting = source == Source::Live && waiting;
    result.deadlineMs = result.waiting ? deadlineMs : 0;
    *interaction = std::move(result);
    return true;
}

InteractionAnswer InteractionAnswer::respond(const nlohmann::json& output)
{
    InteractionAnswer answer;
    answer.decision = Decision::Respond;
    answer.output = QByteArray::fromStdString(output.dump());
    return answer;
}

InteractionAnswer InteractionAnswer::decide(Decision decision, const QString& reason)
{
    InteractionAnswer answer;
    answer.decision = decision;
    answer.reason = reason;
    return answer;
}

InteractionAnswer InteractionAnswer::alwaysAllow(bool everyClient, bool anyArguments)
{
    InteractionAnswer answer = decide(Decision::AlwaysAllow);
    answer.everyClient = everyClient;
    answer.anyArguments = anyArguments;
    return answer;
}

namespace {

constexpr EnumNames<InteractionAnswer::Decision, 5> decisionNames{{
    {InteractionAnswer::Decision::AllowOnce, "allow-once"},
    {InteractionAnswer::Decision::AllowForSession, "allow-for-session"},
    {InteractionAnswer::Decision::AlwaysAllow, "always-allow"},
    {InteractionAnswer::Decision::Deny, "deny"},
    {InteractionAnswer::Decision::Respond, "respond"},
}};

} // namespace

nlohmann::json InteractionAnswer::toJson() const
{
    nlohmann::json value{{"decision", enumName(decisionNames, decision).toStdString()},
        {"reason", reason.toStdString()}, {"output", output.toStdString()}};
    if (decision == Decision::AlwaysAllow) {
        value["everyClient"] = everyClient;
        value["anyArguments"] = anyArguments;
    }
    return value;
}

std::optional<InteractionAnswer> InteractionAnswer::fromJson(const nlohmann::json& value, QString* problem)
{
    InteractionAnswer answer;
    QString decision;
    StateJsonReader reader(value, QStringLiteral("answer"), problem);
    reader.keys({"decision", "reason", "output"}, {"everyClient", "anyArguments"})
        .string("decision", &decision)
        .string("reason", &answer.reason)
        .string("output", &answer.output)
        .optionalBoolean("everyClient", &answer.everyClient)
        .optionalBoolean("anyArguments", &answer.anyArguments);
    if (!reader.ok())
        return std::nullopt;
    const auto parsed = enumFromName(decisionNames, decision);
    if (!parsed) {
        reader.fail(QStringLiteral("has an unknown decision \"%1\"").arg(decision));
        return std::nullopt;
    }
    answer.decision = *parsed;
    return answer;
}
