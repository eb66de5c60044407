#include "toolcall.h"

#include <nlohmann/json.hpp>

QString callStatusName(CallStatus status)
{
    switch (status) {
    case CallStatus::Running:
        return QStringLiteral("running");
    case CallStatus::Ok:
        return QStringLiteral("ok");
    case CallStatus::Error:
        return QStringLiteral("error");
    case CallStatus::Cancelled:
        return QStringLiteral("cancelled");
    case CallStatus::Paused:
        return QStringLiteral("paused");
    }
    return QStringLiteral("unknown");
}

bool callStatusFromName(const QString& name, CallStatus* status)
{
    for (auto candidate :
        {CallStatus::Running, CallStatus::Ok, CallStatus::Error, CallStatus::Cancelled, CallStatus::Paused}) {
        if (callStatusName(candidate) == name) {
            *status = candidate;
            return true;
        }
    }
    return false;
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
