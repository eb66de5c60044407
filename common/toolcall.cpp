#include "toolcall.h"

#include "boundedjson.h"
#include "enumnames.h"
#include "statejsonreader.h"

#include <nlohmann/json.hpp>

namespace {

constexpr EnumNames<CallStatus, 14> statusNames{{
    {CallStatus::Running, "running"},
    {CallStatus::Ok, "ok"},
    {CallStatus::Error, "error"},
    {CallStatus::Cancelled, "cancelled"},
    {CallStatus::Paused, "paused"},
    {CallStatus::Denied, "denied"},
    {CallStatus::Declined, "declined"},
    {CallStatus::InvalidArguments, "invalid_arguments"},
    {CallStatus::UnknownTool, "unknown_tool"},
    {CallStatus::TimedOut, "timed_out"},
    {CallStatus::UpstreamError, "upstream_error"},
    {CallStatus::ToolError, "tool_error"},
    {CallStatus::Parked, "parked"},
    {CallStatus::BreakerOpen, "breaker_open"},
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

QList<CallStatus> allCallStatuses()
{
    return {CallStatus::Running, CallStatus::Paused, CallStatus::Ok, CallStatus::Declined, CallStatus::Parked,
        CallStatus::Cancelled, CallStatus::Denied, CallStatus::InvalidArguments, CallStatus::UnknownTool,
        CallStatus::TimedOut, CallStatus::BreakerOpen, CallStatus::UpstreamError, CallStatus::ToolError,
        CallStatus::Error};
}

QString callStatusLabel(CallStatus status)
{
    switch (status) {
    case CallStatus::Running:
        return QStringLiteral("Running");
    case CallStatus::Ok:
        return QStringLiteral("OK");
    case CallStatus::Error:
        return QStringLiteral("Error");
    case CallStatus::Cancelled:
        return QStringLiteral("Cancelled");
    case CallStatus::Paused:
        return QStringLiteral("Paused");
    case CallStatus::Denied:
        return QStringLiteral("Denied");
    case CallStatus::Declined:
        return QStringLiteral("Declined");
    case CallStatus::InvalidArguments:
        return QStringLiteral("Invalid arguments");
    case CallStatus::UnknownTool:
        return QStringLiteral("Unknown tool");
    case CallStatus::TimedOut:
        return QStringLiteral("Timed out");
    case CallStatus::UpstreamError:
        return QStringLiteral("Upstream error");
    case CallStatus::ToolError:
        return QStringLiteral("Tool error");
    case CallStatus::Parked:
        return QStringLiteral("Parked");
    case CallStatus::BreakerOpen:
        return QStringLiteral("Breaker open");
    }
    return callStatusName(status);
}

QString callStatusDescription(CallStatus status)
{
    switch (status) {
    case CallStatus::Running:
        return QStringLiteral("The call is running.");
    case CallStatus::Ok:
        return QStringLiteral("The tool ran and answered.");
    case CallStatus::Error:
        return QStringLiteral("Refused before it ran: the request was malformed or Switchboard was too busy.");
    case CallStatus::Cancelled:
        return QStringLiteral("Stopped: the client cancelled it or closed its connection, or the server stopped.");
    case CallStatus::Paused:
        return QStringLiteral("Waiting for a person to answer at the console.");
    case CallStatus::Denied:
        return QStringLiteral("Did not run: the operator's policy, a read-only adapter or a person denied it.");
    case CallStatus::Declined:
        return QStringLiteral("A person answered the question with \u201cno\u201d; the client got that answer.");
    case CallStatus::InvalidArguments:
        return QStringLiteral("Did not run: its arguments do not fit the tool's input schema.");
    case CallStatus::UnknownTool:
        return QStringLiteral("Did not run: no tool answers to this name.");
    case CallStatus::TimedOut:
        return QStringLiteral("Ended by a deadline: the tool, its command or upstream took too long, or no one "
                              "answered in time.");
    case CallStatus::UpstreamError:
        return QStringLiteral("The adapter got no answer from its upstream server (connection, HTTP error).");
    case CallStatus::ToolError:
        return QStringLiteral("The tool ran and reported an error.");
    case CallStatus::Parked:
        return QStringLiteral("Let go without an answer; its question stays open and the answer goes to the next "
                              "identical call.");
    case CallStatus::BreakerOpen:
        return QStringLiteral("Not sent: the adapter's circuit breaker is open (after failures, or forced open by "
                              "the operator), so the upstream was not asked.");
    }
    return {};
}

bool isFailureStatus(CallStatus status)
{
    switch (status) {
    case CallStatus::Running:
    case CallStatus::Ok:
    case CallStatus::Paused:
    case CallStatus::Declined:
    case CallStatus::Parked:
    case CallStatus::Cancelled: // the client's choice (or a shutdown), not a fault of the call
        return false;
    default:
        return true;
    }
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
    const auto parsed = BoundedJson::parseOrdered(request, BoundedJson::Limits::record()).value;
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

QByteArray ToolCall::utf8Start(const QByteArray& text, qsizetype maxBytes)
{
    if (text.size() <= maxBytes)
        return text;
    qsizetype end = maxBytes;
    while (end > 0 && (uchar(text.at(end)) & 0xC0) == 0x80)
        --end;
    return text.left(end);
}

ToolCall ToolCall::preview(qsizetype maxBodyBytes) const
{
    ToolCall cut = *this;
    if (request.size() > maxBodyBytes || response.size() > maxBodyBytes) {
        // As a preview read from history says it: both whole sizes, whichever was cut.
        cut.wholeRequestBytes = hasBodyPreviews() ? wholeRequestBytes : request.size();
        cut.wholeResponseBytes = hasBodyPreviews() ? wholeResponseBytes : response.size();
        cut.request = utf8Start(request, maxBodyBytes);
        cut.response = utf8Start(response, maxBodyBytes);
    }
    if (details.size() > maxBodyBytes)
        cut.details.clear();
    if (timeline.size() > maxBodyBytes)
        cut.timeline.clear();
    return cut;
}

nlohmann::json ToolCall::toJson() const
{
    nlohmann::json record{{"id", id}, {"sessionId", sessionId.toStdString()}, {"clientName", clientName.toStdString()},
        {"clientVersion", clientVersion.toStdString()}, {"tool", tool.toStdString()},
        {"route", route.toString().toStdString()}, {"request", request.toStdString()},
        {"response", response.toStdString()}, {"details", details.toStdString()}, {"decision", decision.toStdString()},
        {"replayOf", replayOf}, {"timeline", timeline.toStdString()}, {"error", error.toStdString()},
        {"startedAtMs", startedAtMs}, {"durationUs", durationUs}, {"waitedUs", waitedUs},
        {"status", callStatusName(status).toStdString()}, {"wholeRequestBytes", wholeRequestBytes},
        {"wholeResponseBytes", wholeResponseBytes}};
    // Only a window holding several backends names one: a backend's own records stay as they were.
    if (!backend.isEmpty())
        record["backend"] = backend.toStdString();
    return record;
}

std::optional<ToolCall> ToolCall::fromJson(const nlohmann::json& value, QString* problem)
{
    ToolCall call;
    QString route;
    QString status;
    StateJsonReader reader(value, QStringLiteral("call"), problem);
    reader
        .keys({"id", "sessionId", "clientName", "clientVersion", "tool", "route", "request", "response", "details",
                  "error", "startedAtMs", "durationUs", "status", "wholeRequestBytes", "wholeResponseBytes"},
            // Added later: records written before them (exports, older files) lack them.
            {"decision", "replayOf", "timeline", "waitedUs", "backend"})
        .integer("id", &call.id)
        .string("sessionId", &call.sessionId)
        .string("clientName", &call.clientName)
        .string("clientVersion", &call.clientVersion)
        .string("tool", &call.tool)
        .string("route", &route)
        .string("request", &call.request)
        .string("response", &call.response)
        .string("details", &call.details)
        .optionalString("decision", &call.decision)
        .optionalInteger("replayOf", &call.replayOf)
        .optionalString("timeline", &call.timeline)
        .string("error", &call.error)
        .integer("startedAtMs", &call.startedAtMs)
        .integer("durationUs", &call.durationUs)
        .optionalInteger("waitedUs", &call.waitedUs)
        .optionalString("backend", &call.backend)
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
