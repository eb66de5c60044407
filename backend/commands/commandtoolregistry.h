#pragma once

// CommandToolRegistry: the tools the configuration's `command_tools` list declares, as tools for
// ToolRegistry::replaceSource(CommandToolRegistry::SourceName, …): each a CommandTool run on the
// executor's workers. Built again from a reloaded configuration; calls in flight keep the tool
// they started with.

#include "commands/commandtool.h"

#include <memory>
#include <vector>

class CommandToolRegistry
{
public:
    // The tool source name in ToolRegistry.
    static inline const QString SourceName = QStringLiteral("commands");

    explicit CommandToolRegistry(const std::vector<CommandToolConfig>& configs = {});

    const std::vector<std::shared_ptr<const CommandTool>>& commandTools() const { return m_tools; }
    std::vector<RegisteredTool> tools() const;

private:
    std::vector<std::shared_ptr<const CommandTool>> m_tools;
};
