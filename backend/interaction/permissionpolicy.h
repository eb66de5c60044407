#pragma once

// PermissionPolicy: allow, ask or deny for a tool, from the operator's configuration: a rule for
// the tool by name wins over one for its adapter or sink, which wins over the default; without any
// rule, read-only tools are allowed and the others ask. Each verdict names the rule that made it,
// so a refused call can say why.

#include "permissionentry.h"

#include <QMap>
#include <QString>
#include <QStringList>

struct RegisteredTool;
struct SwitchboardConfig;

enum class Permission {
    Allow,
    Ask,
    Deny,
};

QString permissionName(Permission permission);

class PermissionPolicy
{
public:
    struct Verdict
    {
        Permission permission = Permission::Ask;
        QString rule; // e.g. "permissions.tools.rm: deny", or "default: read-only tools are allowed"
    };

    PermissionPolicy() = default;
    // `origin` names where the rules came from (the configuration file), for messages.
    PermissionPolicy(const SwitchboardConfig& config, QString origin);

    Verdict evaluate(const RegisteredTool& tool) const;
    // Every configured rule, and the default in force (configured or built in), as the Permissions
    // view lists them: tools, adapters, sinks, read-only adapters, then the default.
    PermissionEntryList rules() const;

private:
    static bool parse(const QString& text, Permission* permission);

    QString m_origin;
    QString m_default; // empty: by readOnlyHint
    QMap<QString, QString> m_tools;
    QMap<QString, QString> m_adapters;
    QMap<QString, QString> m_sinks;
    QStringList m_readOnlyAdapters; // their write tools are refused (AdapterConfig::readOnly)
};
