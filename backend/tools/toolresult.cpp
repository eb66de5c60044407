#include "tools/toolresult.h"

using nlohmann::json;

ToolResult ToolResult::text(const QString& text)
{
    ToolResult result;
    result.content.push_back(json{{"type", "text"}, {"text", text.toStdString()}});
    return result;
}

ToolResult ToolResult::error(const QString& message, std::optional<CallStatus> outcome)
{
    ToolResult result = text(message);
    result.isError = true;
    result.outcome = outcome;
    return result;
}

CallStatus ToolResult::callStatus() const
{
    if (outcome)
        return *outcome;
    return isError ? CallStatus::ToolError : CallStatus::Ok;
}

json ToolResult::toJson() const&
{
    return ToolResult(*this).toJson();
}

json ToolResult::toJson() &&
{
    json result = json::object();
    result["content"] = content.is_array() ? std::move(content) : json::array();
    if (!structuredContent.is_null())
        result["structuredContent"] = std::move(structuredContent);
    if (isError)
        result["isError"] = true;
    return result;
}

QString ToolResult::firstText() const
{
    if (!content.is_array())
        return {};
    for (const auto& block : content) {
        const auto type = block.find("type");
        const auto text = block.find("text");
        if (type != block.end() && *type == "text" && text != block.end() && text->is_string())
            return QString::fromStdString(text->get<std::string>());
    }
    return {};
}
