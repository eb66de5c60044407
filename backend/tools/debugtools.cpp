#include "tools/debugtools.h"

#include <QThread>

#include <chrono>
#include <stdexcept>

using nlohmann::json;

namespace {

RegisteredTool blockingTool(const char* name, const char* description, json properties)
{
    RegisteredTool tool;
    tool.spec.name = QString::fromLatin1(name);
    tool.spec.description = QString::fromLatin1(description);
    tool.spec.inputSchema
        = json{{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    tool.spec.annotations = json{{"readOnlyHint", true}, {"openWorldHint", false}};
    tool.route = ToolRoute::builtin();
    tool.execution = ExecutionPolicy::blocking();
    return tool;
}

json secondsProperty(double maximum)
{
    return json{{"type", "number"}, {"minimum", 0}, {"maximum", maximum}, {"description", "How long, in seconds"}};
}

ToolResult doneAfter(double seconds, bool cancelled)
{
    ToolResult result = ToolResult::text(cancelled ? QStringLiteral("stopped early: the call was cancelled")
                                                   : QStringLiteral("done after %1 s").arg(seconds));
    result.structuredContent = json{{"seconds", seconds}, {"cancelled", cancelled}};
    return result;
}

} // namespace

std::vector<RegisteredTool> debugTools()
{
    std::vector<RegisteredTool> tools;

    RegisteredTool block = blockingTool("debug.block",
        "Blocks a worker thread for `seconds` (default 5) and then answers; stops at once when the call is cancelled. "
        "For trying long calls, heartbeats and cancellation.",
        json{{"seconds", secondsProperty(3600)}});
    block.blockingHandler = [](ToolCallContext& context) {
        const double seconds = context.arguments().value("seconds", 5.0);
        const bool cancelled = context.waitForCancellation(std::chrono::milliseconds(qint64(seconds * 1000)));
        return doneAfter(seconds, cancelled);
    };
    tools.push_back(std::move(block));

    RegisteredTool progress = blockingTool("debug.progress",
        "Reports `steps` progress notifications (default 5), `interval_ms` apart (default 200), then answers. "
        "Send a progressToken to see them.",
        json{{"steps", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}}},
            {"interval_ms", {{"type", "integer"}, {"minimum", 0}, {"maximum", 60000}}}});
    progress.blockingHandler = [](ToolCallContext& context) {
        const int steps = context.arguments().value("steps", 5);
        const int intervalMs = context.arguments().value("interval_ms", 200);
        for (int step = 1; step <= steps; ++step) {
            if (context.waitForCancellation(std::chrono::milliseconds(intervalMs)))
                return doneAfter(0, true);
            context.reportProgress(step, steps, QStringLiteral("step %1 of %2").arg(step).arg(steps));
            context.log(LogLevel::Debug, json{{"step", step}}, QStringLiteral("debug.progress"));
        }
        ToolResult result = ToolResult::text(QStringLiteral("%1 steps done").arg(steps));
        result.structuredContent = json{{"steps", steps}};
        return result;
    };
    tools.push_back(std::move(progress));

    RegisteredTool stubborn = blockingTool("debug.ignore_cancel",
        "Blocks a worker thread for `seconds` (default 5) and ignores cancellation, as a stuck library call "
        "would; its deadline of 2 s ends the call, and what it returns afterwards is dropped.",
        json{{"seconds", secondsProperty(60)}});
    stubborn.execution.deadlineMs = 2000;
    stubborn.blockingHandler = [](ToolCallContext& context) {
        const double seconds = context.arguments().value("seconds", 5.0);
        QThread::msleep(static_cast<unsigned long>(seconds * 1000));
        return doneAfter(seconds, false);
    };
    tools.push_back(std::move(stubborn));

    RegisteredTool thrower = blockingTool("debug.throw", "Throws an exception with `message` on a worker thread.",
        json{{"message", {{"type", "string"}, {"maxLength", 1000}}}});
    thrower.blockingHandler = [](ToolCallContext& context) -> ToolResult {
        throw std::runtime_error(context.arguments().value("message", std::string("debug.throw was called")));
    };
    tools.push_back(std::move(thrower));
    return tools;
}
