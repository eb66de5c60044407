#include "tools/toolcallcontext.h"

using nlohmann::json;

ToolCallContext::ToolCallContext(json arguments, json progressToken, Hooks hooks)
    : m_arguments(std::move(arguments))
    , m_progressToken(std::move(progressToken))
    , m_hooks(std::move(hooks))
{}

void ToolCallContext::setCancellationHandler(std::function<void()> handler)
{
    m_cancellationHandler = std::move(handler);
}

void ToolCallContext::reportProgress(double progress, std::optional<double> total, const QString& message)
{
    if (m_finished || isCancelled() || m_progressToken.is_null() || !m_hooks.notify)
        return;
    json params{{"progressToken", m_progressToken}, {"progress", progress}};
    if (total)
        params["total"] = *total;
    if (!message.isEmpty())
        params["message"] = message.toStdString();
    m_hooks.notify(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", std::move(params)}});
}

void ToolCallContext::log(LogLevel level, const json& data, const QString& logger)
{
    if (m_finished || isCancelled() || !m_hooks.notify || !m_hooks.wantsLog || !m_hooks.wantsLog(level))
        return;
    json params{{"level", logLevelName(level)}, {"data", data}};
    if (!logger.isEmpty())
        params["logger"] = logger.toStdString();
    m_hooks.notify(json{{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", std::move(params)}});
}

void ToolCallContext::finish(ToolResult result)
{
    if (m_finished || isCancelled())
        return;
    m_finished = true;
    if (m_hooks.complete)
        m_hooks.complete(std::move(result));
}

void ToolCallContext::cancel()
{
    if (m_finished || m_cancelled.exchange(true))
        return;
    if (m_cancellationHandler)
        m_cancellationHandler();
}
