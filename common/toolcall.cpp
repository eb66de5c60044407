#include "toolcall.h"

#include "enumnames.h"
#include "statejsonreader.h"

#include <nlohmann/json.hpp>

namespace {

constexpr EnumNames<CallStatus, 5> statusNames{{
    {CallStatus::Running, "running"},
    {CallStatus::Ok, "ok"},
    {CallStatus::Error, "error"},
    {CallStatus::Cancelled, "cancelled"},
    {CallStatus::Paused, "paused"},
}};

} // namespace

QString callStatusName(CallStatus status)
{
    return enumName(statusNames, status);
}

bool callStatusFromName(const QString& name, CallStatus* status)
{
    const auto parsed = enumFromName(statusNames, name);
    if (parsed)
        *status = *parsed;
    return parsed.has_value();
}

QString ToolCall::boundedText(const QString& text, qsizetype maxChars)
{
    if (text.size() <= maxChars)
        return text;
    qsizetype cut = maxChars;
    if (cut > 0 && text.at(cut - 1).isHighSurrogate())
        --cut; // never split a character
    return text.left(cut) + QStringLiteral("… [%1 more characters cut]").arg(text.size() - cut);
}

ToolCall ToolCall::withBoundedText() const
{
    ToolCall bounded = *this;
    bounded.tool = boundedText(tool, MaxToolChars);
    bounded.error = boundedText(error, MaxErrorChars);
    return bounded;
}

QByteArray ToolCall::argumentsJson() const
{
    return argumentsFromRequest(request);
}

QByteArray ToolCall::argumentsFromRequest(const QByteArray& request)
{
    // ordered_json keeps the client's key order, which is what a person expects to read.
    const auto parsed = nlohmann::ordered_json::parse(request.constBegin(), request.constEnd(), nullptr, false);
    if (!parsed.is_object())
        return {};
    const auto params = parsed.find("params");
    if (params == parsed.end() || !params->is_object())
        return {};
    const auto arguments = params->find("arguments");
    if (arguments == params->end())
        return {};
    return QByteArray::fromStdString(arguments->dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

nlohmann::json ToolCall::toJson() const
{
    return nlohmann::json{{"id", id}, {"sessionId", sessionId.toStdString()}, {"clientName", clientName.toStdString()},
        {"clientVersion", clientVersion.toStdString()}, {"tool", tool.toStdString()},
        {"route", route.toString().toStdString()}, {"request", request.toStdString()},
        {"response", response.toStdString()}, {"details", details.toStdString()}, {"error", error.toStdString()},
        {"startedAtMs", startedAtMs}, {"durationUs", durationUs}, {"status", callStatusName(status).toStdString()},
        {"wholeRequestBytes", wholeRequestBytes}, {"wholeResponseBytes", wholeResponseBytes}};
}

std::optional<ToolCall> ToolCall::fromJson(const nlohmann::json& value, QString* problem)
{
    ToolCall call;
    QString route;
    QString status;
    StateJsonReader reader(value, QStringLiteral("call"), problem);
    reader
        .keys({"id", "sessionId", "clientName", "clientVersion", "tool", "route", "request", "response", "details",
            "error", "startedAtMs", "durationUs", "status", "wholeRequestBytes", "wholeResponseBytes"})
        .integer("id", &call.id)
        .string("sessionId", &call.sessionId)
        .string("clientName", &call.clientName)
        .string("clientVersion", &call.clientVersion)
        .string("tool", &call.tool)
        .string("route", &route)
        .string("request", &call.request)
        .string("response", &call.response)
        .string("details", &call.details)
        .string("error", &call.error)
        .integer("startedAtMs", &call.startedAtMs)
        .integer("durationUs", &call.durationUs)
        .string("status", &status)
        .integer("wholeRequestBytes", &call.wholeRequestBytes)
        .integer("wholeResponseBytes", &call.wholeResponseBytes);
    if (!reader.ok())
        return std::nullopt;
    if (!callStatusFromName(status, &call.status)) {
        reader.fail(QStringLiteral("has an unknown status \"%1\"").arg(status));
        return std::nullopt;
    }
    call.route = ToolRoute::fromString(route);
    return call;
}
