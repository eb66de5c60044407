#include "config/configsettings.h"

namespace ConfigSettings {

PermissionPolicy::Rules permissionRules(const SwitchboardConfig& config)
{
    PermissionPolicy::Rules rules;
    rules.defaultPermission = config.defaultPermission;
    rules.tools = config.toolPermissions;
    rules.adapters = config.adapterPermissions;
    rules.sinks = config.sinkPermissions;
    for (const AdapterConfig& adapter : config.adapters) {
        if (adapter.readOnly)
            rules.readOnlyAdapters.append(adapter.name);
    }
    return rules;
}

SecretStore::Settings secretStore(const SwitchboardConfig& config)
{
    SecretStore::Settings settings;
    settings.mode = config.secretStorage == SwitchboardConfig::SecretStorage::OwnerOnlyFile
        ? SecretStore::Mode::OwnerOnlyFile
        : SecretStore::Mode::Keychain;
    settings.file = config.secretsFile;
    return settings;
}

} // namespace ConfigSettings
