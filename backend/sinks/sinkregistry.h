#pragma once

// SinkRegistry: the sinks the configuration declares (`sinks:`), built once, and their operations
// as tools: one tool per `sinkname.op`, routed to ToolRoute::sink(sinkname), run as blocking work
// on the tool executor (group "sinks", a few at a time) with the sink's deadline. The backend hands
// tools() to ToolRegistry::replaceSource(SinkRegistry::SourceName, …).
//
// Immutable after construction; the tools share the sinks, so they outlive the registry.

#include "sinks/sink.h"
#include "sinks/sinkconfig.h"
#include "tools/toolregistry.h"

#include <QStringList>

#include <memory>
#include <vector>

class SinkRegistry
{
public:
    // The tool source name in ToolRegistry.
    static inline const QString SourceName = QStringLiteral("sinks");
    // Sink calls that run at once, over all sinks; more wait in the executor's queue.
    static constexpr int ConcurrentCalls = 8;

    explicit SinkRegistry(const std::vector<SinkConfig>& configs = {});

    const std::vector<std::shared_ptr<const Sink>>& sinks() const { return m_sinks; }
    std::shared_ptr<const Sink> find(const QString& name) const;
    // What the operator should know (a file sink's root that does not exist yet).
    const QStringList& problems() const { return m_problems; }

    std::vector<RegisteredTool> tools() const;

private:
    std::vector<std::shared_ptr<const Sink>> m_sinks;
    QStringList m_problems;
};
