#include "tools/builtintools.h"

#include "protocol/jsonrpc.h"
#include "tools/toolregistry.h"

using nlohmann::json;

namespace {

RegisteredTool echoTool()
{
    RegisteredTool tool;
    tool.spec.name = QStringLiteral("echo");
    tool.spec.title = QStringLiteral("Echo");
    tool.spec.description = QStringLiteral(
        "Returns its arguments unchanged, as text and as structured content. A diagnostic for checking a "
        "client's wiring: it also reports progress when the client sends a progressToken, and logs its "
        "arguments at debug level.");
    tool.spec.inputSchema = json{{"type", "object"},
        {"properties", {{"message", {{"type", "string"}, {"description", "Text to echo back"}}}}},
        {"additionalProperties", true}};
    tool.spec.outputSchema = json{{"type", "object"}, {"additionalProperties", true}};
    tool.spec.annotations = json{{"title", "Echo"}, {"readOnlyHint", true}, {"destructiveHint", false},
        {"idempotentHint", true}, {"openWorldHint", false}};
    tool.handler = [](const std::shared_ptr<ToolCallContext>& context) {
        context->reportProgress(1, 1, QStringLiteral("echoing"));
        context->log(
            LogLevel::Debug, json{{"tool", "echo"}, {"arguments", context->arguments()}}, QStringLiteral("echo"));
        ToolResult result;
        result.content.push_back(json{{"type", "text"}, {"text", JsonRpc::dump(context->arguments())}});
        result.structuredContent = context->arguments();
        context->finish(std::move(result));
    };
    return tool;
}

} // namespace

void registerBuiltinTools(ToolRegistry& registry)
{
    std::vector<RegisteredTool> tools;
    tools.push_back(echoTool());
    registry.replaceSource(QStringLiteral("builtin"), std::move(tools));
}
