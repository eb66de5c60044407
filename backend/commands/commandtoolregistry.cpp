#include "commands/commandtoolregistry.h"

CommandToolRegistry::CommandToolRegistry(const std::vector<CommandToolConfig>& configs)
{
    for (const CommandToolConfig& config : configs)
        m_tools.push_back(std::make_shared<const CommandTool>(config));
}

std::vector<RegisteredTool> CommandToolRegistry::tools() const
{
    std::vector<RegisteredTool> tools;
    for (const std::shared_ptr<const CommandTool>& tool : m_tools)
        tools.push_back(CommandTool::registeredTool(tool));
    return tools;
}
