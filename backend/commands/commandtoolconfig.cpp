#include "commands/commandtoolconfig.h"

#include "tools/toolspec.h"

bool CommandToolConfig::isValidName(const QString& name)
{
    return ToolSpec::isValidOwnerName(name);
}
