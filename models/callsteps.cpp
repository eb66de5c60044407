#include "callsteps.h"

#include "boundedjson.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

QString text(const json& object, const char* key)
{
    const auto value = object.find(key);
    return value != object.end() && value->is_string() ? QString::fromStdString(value->get<std::string>()) : QString();
}

int integer(const json& object, const char* key)
{
    const auto value = object.find(key);
    return value != object.end() && value->is_number_integer() ? int(value->get<qint64>()) : 0;
}

QStringList texts(const json& object, const char* key)
{
    QStringList list;
    const auto value = object.find(key);
    if (value == object.end() || !value->is_array())
        return list;
    for (const json& item : *value) {
        if (item.is_string())
            list << QString::fromStdString(item.get<std::string>());
    }
    return list;
}

bool isTerminal(const QString& status)
{
    return status == QLatin1String("completed") || status == QLatin1String("cancelled")
        || status == QLatin1String("failed");
}

// Responses larger than this are taken for results without parsing them: a JSON-RPC error is a few
// hundred bytes, and the inspector asks on the GUI thread.
constexpr qsizetype MaxParsedResponseBytes = 1024 * 1024;

} // namespace

CallSteps CallSteps::of(const QByteArray& timeline)
{
    CallSteps steps;
    if (!timeline.contains(TaskMethod) && !timeline.contains(InputMethod))
        return steps;
    const auto parsed = BoundedJson::parse(timeline, BoundedJson::Limits::record());
    if (!parsed.ok || !parsed.value.is_array())
        return steps;
    for (const json& entry : parsed.value) {
        if (!entry.is_object())
            continue;
        const std::string method = entry.value("method", std::string());
        const auto params = entry.find("params");
        if (params == entry.end() || !params->is_object())
            continue;
        if (method == TaskMethod) {
            Task& task = steps.task ? *steps.task : steps.task.emplace();
            if (const QString id = text(*params, "taskId"); !id.isEmpty())
                task.id = id;
            if (const QString status = text(*params, "status"); !status.isEmpty())
                task.status = status;
            if (params->contains("statusMessage"))
                task.statusMessage = text(*params, "statusMessage");
            task.lastEvent = text(*params, "event");
            if (task.lastEvent == QLatin1String("polled"))
                ++task.polls;
            else if (task.lastEvent == QLatin1String("cancel-requested"))
                task.cancelRequested = true;
        } else if (method == InputMethod) {
            Input& input = steps.input ? *steps.input : steps.input.emplace();
            input.lastEvent = text(*params, "event");
            input.round = integer(*params, "round");
            if (input.lastEvent == QLatin1String("asked")) {
                input.askedRound = input.round;
                input.keys = texts(*params, "keys");
                input.requestKinds = texts(*params, "requestKinds");
            } else if (input.lastEvent == QLatin1String("answered")) {
                input.answeredRound = input.round;
                if (const auto previous = params->find("previousCallId");
                    previous != params->end() && previous->is_number_integer())
                    input.previousCallId = previous->get<qint64>();
            } else if (input.lastEvent == QLatin1String("refused")) {
                input.reason = text(*params, "reason");
            }
        }
    }
    return steps;
}

QString CallSteps::endingStatus(const ToolCall& call, QString* message)
{
    const auto say = [message](const QString& status, const QString& what) {
        if (message)
            *message = what;
        return status;
    };
    // TaskHost's own reading of the call's answer: nothing is a cancelled call, an error a failed one.
    if (call.status == CallStatus::Cancelled || call.response.isEmpty())
        return say(
            QStringLiteral("cancelled"), call.error.isEmpty() ? QStringLiteral("The call was cancelled") : call.error);
    if (call.response.size() <= MaxParsedResponseBytes) {
        const auto parsed = BoundedJson::parse(call.response, BoundedJson::Limits::record());
        if (parsed.ok && parsed.value.is_object()) {
            if (const auto error = parsed.value.find("error"); error != parsed.value.end()) {
                const QString reason = error->is_object() ? text(*error, "message") : QString();
                return say(QStringLiteral("failed"),
                    reason.isEmpty() ? QStringLiteral("The call failed")
                                     : QStringLiteral("The call failed: ") + reason);
            }
            const auto result = parsed.value.find("result");
            if (result != parsed.value.end() && result->is_object() && result->value("isError", false))
                return say(QStringLiteral("completed"), QStringLiteral("The call ended with a tool error"));
        }
    }
    return say(QStringLiteral("completed"), QStringLiteral("The call completed"));
}

QByteArray CallSteps::withEnding(const ToolCall& call)
{
    if (!call.isFinished() || !call.timeline.contains(TaskMethod))
        return call.timeline;
    const CallSteps steps = of(call.timeline);
    if (!steps.task || steps.task->id.isEmpty() || isTerminal(steps.task->status))
        return call.timeline; // the timeline says how the task ended itself
    json params{{"event", "ended"}, {"taskId", steps.task->id.toStdString()}};
    if ((call.status == CallStatus::Cancelled || call.response.isEmpty()) && !steps.task->cancelRequested) {
        // Not the client's doing: whether the task goes on is not this call's to say.
        params["event"] = "stopped";
        params["statusMessage"]
            = (call.error.isEmpty() ? QStringLiteral("The call stopped") : call.error).toStdString();
    } else {
        QString message;
        params["status"] = endingStatus(call, &message).toStdString();
        params["statusMessage"] = message.toStdString();
    }
    const json entry{
        {"atMs", call.durationUs < 0 ? 0 : call.durationUs / 1000}, {"method", TaskMethod}, {"params", params}};
    QByteArray timeline = call.timeline;
    const qsizetype end = timeline.lastIndexOf(']');
    if (end < 0)
        return call.timeline;
    timeline.insert(end, QByteArray(",") + QByteArray::fromStdString(entry.dump()));
    return timeline;
}
