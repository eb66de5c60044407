#include "commands/commandtoolconfig.h"

#include "adapters/adapterconfig.h"

bool CommandToolConfig::isValidName(const QString& name)
{
    // The adapters' rule: no '.', which would route the name to an owner (`owner.tool`).
    return AdapterConfig::isValidName(name);
}
