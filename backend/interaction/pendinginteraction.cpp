#include "interaction/pendinginteraction.h"

using nlohmann::json;

namespace {

std::string kindName(InteractionKind kind)
{
    return kind == InteractionKind::Approval ? "approval" : "client-tool";
}

QString stringAt(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

qint64 integerAt(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number_integer() ? it->get<qint64>() : 0;
}

} // namespace

QString pauseModeName(PauseMode mode)
{
    return mode == PauseMode::Hold ? QStringLiteral("hold") : QStringLiteral("park");
}

json PendingInteraction::toJson() const
{
    json earlier = json::array();
    for (qint64 callIdBefore : earlierCallIds)
        earlier.push_back(callIdBefore);
    return json{{"id", id.toStdString()}, {"kind", kindName(kind)}, {"render", render.toStdString()},
        {"tool", tool.toStdString()}, {"toolTitle", toolTitle.toStdString()}, {"route", route.toStdString()},
        {"arguments", arguments.toStdString()}, {"renderSpec", renderSpec.toStdString()},
        {"sessionId", sessionId.toStdString()}, {"clientName", clientName.toStdString()},
        {"clientVersion", clientVersion.toStdString()}, {"callId", callId}, {"earlierCallIds", std::move(earlier)},
        {"mode", pauseModeName(mode).toStdString()}, {"createdAtMs", createdAtMs}, {"key", key.toStdString()}};
}

bool PendingInteraction::fromJson(const json& value, PendingInteraction* interaction)
{
    if (!value.is_object())
        return false;
    PendingInteraction result;
    result.id = stringAt(value, "id");
    result.key = stringAt(value, "key");
    result.tool = stringAt(value, "tool");
    if (result.id.isEmpty() || result.key.isEmpty() || result.tool.isEmpty())
        return false;
    const QString kind = stringAt(value, "kind");
    if (kind == QStringLiteral("approval"))
        result.kind = InteractionKind::Approval;
    else if (kind == QStringLiteral("client-tool"))
        result.kind = InteractionKind::ClientTool;
    else
        return false;
    result.render = stringAt(value, "render");
    result.toolTitle = stringAt(value, "toolTitle");
    result.route = stringAt(value, "route");
    result.arguments = stringAt(value, "arguments").toUtf8();
    result.renderSpec = stringAt(value, "renderSpec").toUtf8();
    result.sessionId = stringAt(value, "sessionId");
    result.clientName = stringAt(value, "clientName");
    result.clientVersion = stringAt(value, "clientVersion");
    result.callId = integerAt(value, "callId");
    if (const auto it = value.find("earlierCallIds"); it != value.end() && it->is_array()) {
        for (const json& item : *it) {
            if (item.is_number_integer())
                result.earlierCallIds.append(item.get<qint64>());
        }
    }
    result.mode = stringAt(value, "mode") == QStringLiteral("park") ? PauseMode::Park : PauseMode::Hold;
    result.createdAtMs = integerAt(value, "createdAtMs");
    result.waiting = false; // no call survives a restart
    result.deadlineMs = 0;
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
