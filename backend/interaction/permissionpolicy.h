#pragma once

// PermissionPolicy: allow, ask or deny for a tool, from the operator's rules: a rule for
// the tool by name wins over one for its adapter or sink, which wins over the default; without any
// rule, read-only tools are allowed and the others ask. Each verdict names the rule that made it,
// so a refused call can say why. The core reads the rules from the configuration and hands them
// down as a value (Rules).

#include "permissionentry.h"

#include <QMap>
#include <QString>
#include <QStringList>

struct RegisteredTool;

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

    // The configuration's `permissions:` section, and its adapters that are read-only.
    struct Rules
    {
        QString defaultPermission; // allow | ask | deny; empty: by the tool's readOnlyHint
        QMap<QString, QString> tools; // tool name → allow | ask | deny
        QMap<QString, QString> adapters; // adapter name → allow | ask | deny
        QMap<QString, QString> sinks; // sink name → allow | ask | deny
        QStringList readOnlyAdapters; // mcp_endpoints with read_only: their write tools are refused
    };

    PermissionPolicy() = default;
    // `origin` names where the rules came from (the configuration file), for messages.
    PermissionPolicy(Rules rules, QString origin);

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
