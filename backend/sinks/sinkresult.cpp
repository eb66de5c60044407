#include "sinks/sinkresult.h"

using nlohmann::json;

namespace {

ToolResult answer(bool ok, const QString& sink, const QString& operation, const QString& message, json fields)
{
    json structured = fields.is_object() ? std::move(fields) : json::object();
    structured["status"] = ok ? "success" : "failure";
    structured["sink"] = sink.toStdString();
    structured["op"] = operation.toStdString();
    structured["message"] = message.toStdString();
    ToolResult result;
    result.isError = !ok;
    result.content = json::array({json{{"type", "text"}, {"text", structured["message"]}},
        json{{"type", "text"}, {"text", structured.dump(-1, ' ', false, json::error_handler_t::replace)}}});
    result.structuredContent = std::move(structured);
    return result;
}

} // namespace

ToolResult SinkResult::success(const QString& sink, const QString& operation, const QString& message, json fields)
{
    return answer(true, sink, operation, message, std::move(fields));
}

ToolResult SinkResult::failure(const QString& sink, const QString& operation, const QString& message, json fields)
{
    return answer(false, sink, operation, message, std::move(fields));
}

json SinkResult::outputSchema(const json& fields)
{
    json properties = fields.is_object() ? fields : json::object();
    properties["status"] = json{{"type", "string"}, {"enum", {"success", "failure"}}};
    properties["sink"] = json{{"type", "string"}};
    properties["op"] = json{{"type", "string"}};
    properties["message"] = json{{"type", "string"}};
    return json{
        {"type", "object"}, {"properties", std::move(properties)}, {"required", {"status", "sink", "op", "message"}}};
}
