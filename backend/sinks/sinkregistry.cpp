#include "sinks/sinkregistry.h"

#include "sinks/filesink.h"
#include "sinks/jsonlsink.h"
#include "sinks/sinkresult.h"
#include "sinks/webhooksink.h"

using nlohmann::json;

SinkRegistry::SinkRegistry(const std::vector<SinkConfig>& configs)
{
    for (const SinkConfig& config : configs) {
        switch (config.type) {
        case SinkConfig::Type::File: {
            auto sink = std::make_shared<const FileSink>(config);
            m_problems << sink->problems();
            m_sinks.push_back(std::move(sink));
            break;
        }
        case SinkConfig::Type::Jsonl:
            m_sinks.push_back(std::make_shared<const JsonlSink>(config));
            break;
        case SinkConfig::Type::Webhook:
            m_sinks.push_back(std::make_shared<const WebhookSink>(config));
            break;
        }
    }
}

std::shared_ptr<const Sink> SinkRegistry::find(const QString& name) const
{
    for (const auto& sink : m_sinks) {
        if (sink->name() == name)
            return sink;
    }
    return nullptr;
}

std::vector<RegisteredTool> SinkRegistry::tools() const
{
    std::vector<RegisteredTool> tools;
    for (const std::shared_ptr<const Sink>& sink : m_sinks) {
        for (const SinkOperation& operation : sink->operations()) {
            RegisteredTool tool;
            tool.spec.name = sink->name() + QLatin1Char('.') + operation.name;
            tool.spec.title = operation.title;
            tool.spec.description = operation.description;
            tool.spec.inputSchema = operation.inputSchema;
            tool.spec.outputSchema = SinkResult::outputSchema(operation.resultFields);
            // Every sink operation changes something outside the call, so none is read-only: the
            // permission policy asks before it by default.
            tool.spec.annotations = json{{"title", operation.title.toStdString()}, {"readOnlyHint", false},
                {"destructiveHint", operation.destructive}, {"idempotentHint", operation.idempotent},
                {"openWorldHint", operation.openWorld}};
            tool.route = ToolRoute::sink(sink->name());
            tool.execution = ExecutionPolicy::blocking(sink->deadlineMs());
            tool.execution.group = SourceName;
            tool.execution.groupLimit = ConcurrentCalls;
            tool.blockingHandler
                = [sink, name = operation.name](ToolCallContext& context) { return sink->run(name, context); };
            tools.push_back(std::move(tool));
        }
    }
    return tools;
}
