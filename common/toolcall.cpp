#include "toolcall.h"

#include "enumnames.h"

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
