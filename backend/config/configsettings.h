#pragma once

// ConfigSettings: the settings classes below the core take, as values read from the
// SwitchboardConfig. Nothing below the core includes config/: a class that needs part of the
// configuration declares a plain struct of its own layer (PermissionPolicy::Rules,
// SecretStore::Settings), and the core fills it here.

#include "auth/secretstore.h"
#include "config/switchboardconfig.h"
#include "interaction/permissionpolicy.h"

namespace ConfigSettings {

// permissions: and the read-only mcp_endpoints.
PermissionPolicy::Rules permissionRules(const SwitchboardConfig& config);
// secrets: store and file.
SecretStore::Settings secretStore(const SwitchboardConfig& config);

} // namespace ConfigSettings
