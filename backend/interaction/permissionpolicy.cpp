#include "interaction/permissionpolicy.h"

#include "tools/toolregistry.h"

QString permissionName(Permission permission)
{
    switch (permission) {
    case Permission::Allow:
        return QStringLiteral("allow");
    case Permission::Ask:
        return QStringLiteral("ask");
    case Permission::Deny:
        return QStringLiteral("deny");
    }
    return {};
}

PermissionPolicy::PermissionPolicy(Rules rules, QString origin)
    : m_origin(std::move(origin))
    , m_default(std::move(rules.defaultPermission))
    , m_tools(std::move(rules.tools))
    , m_adapters(std::move(rules.adapters))
    , m_sinks(std::move(rules.sinks))
    , m_readOnlyAdapters(std::move(rules.readOnlyAdapters))
{}

PermissionEntryList PermissionPolicy::rules() const
{
    const QString where = m_origin.isEmpty() ? QString() : QStringLiteral(" in ") + m_origin;
    PermissionEntryList entries;
    const auto add = [&entries](const QString& subject, const QString& permission, const QString& origin) {
        PermissionEntry entry;
        entry.source = PermissionEntry::Source::Configuration;
        entry.subject = subject;
        entry.permission = permission;
        entry.origin = origin;
        entries.append(entry);
    };
    for (auto it = m_tools.constBegin(); it != m_tools.constEnd(); ++it)
        add(it.key(), *it, QStringLiteral("permissions.tools.%1%2").arg(it.key(), where));
    for (auto it = m_adapters.constBegin(); it != m_adapters.constEnd(); ++it)
        add(QStringLiteral("adapter %1").arg(it.key()), *it,
            QStringLiteral("permissions.adapters.%1%2").arg(it.key(), where));
    for (auto it = m_sinks.constBegin(); it != m_sinks.constEnd(); ++it)
        add(QStringLiteral("sink %1").arg(it.key()), *it,
            QStringLiteral("permissions.sinks.%1%2").arg(it.key(), where));
    for (const QString& adapter : m_readOnlyAdapters)
        add(QStringLiteral("adapter %1").arg(adapter), QStringLiteral("read-only"),
            QStringLiteral("mcp_endpoints %1: read_only (its write tools are refused)%2").arg(adapter, where));
    if (!m_default.isEmpty())
        add(QStringLiteral("every other tool"), m_default, QStringLiteral("permissions.default%1").arg(where));
    else
        add(QStringLiteral("every other tool"), QStringLiteral("allow read-only, ask others"),
            QStringLiteral("built-in default (by each tool's readOnlyHint)"));
    return entries;
}

bool PermissionPolicy::parse(const QString& text, Permission* permission)
{
    if (text == QStringLiteral("allow"))
        *permission = Permission::Allow;
    else if (text == QStringLiteral("ask"))
        *permission = Permission::Ask;
    else if (text == QStringLiteral("deny"))
        *permission = Permission::Deny;
    else
        return false;
    return true;
}

PermissionPolicy::Verdict PermissionPolicy::evaluate(const RegisteredTool& tool) const
{
    const QString where = m_origin.isEmpty() ? QString() : QStringLiteral(" in ") + m_origin;
    Verdict verdict;
    const QString& name = tool.spec.name;
    if (const auto it = m_tools.constFind(name); it != m_tools.constEnd() && parse(*it, &verdict.permission)) {
        verdict.rule = QStringLiteral("permissions.tools.%1: %2%3").arg(name, *it, where);
        return verdict;
    }
    const QMap<QString, QString>* rules = tool.route.kind == RouteKind::Adapter ? &m_adapters
        : tool.route.kind == RouteKind::Sink                                    ? &m_sinks
                                                                                : nullptr;
    if (rules) {
        const QString& owner = tool.route.owner;
        if (const auto it = rules->constFind(owner); it != rules->constEnd() && parse(*it, &verdict.permission)) {
            verdict.rule
                = QStringLiteral("permissions.%1s.%2: %3%4").arg(routeKindName(tool.route.kind), owner, *it, where);
            return verdict;
        }
    }
    if (parse(m_default, &verdict.permission)) {
        verdict.rule = QStringLiteral("permissions.default: %1%2").arg(m_default, where);
        return verdict;
    }
    if (tool.spec.isReadOnly()) {
        verdict.permission = Permission::Allow;
        verdict.rule = QStringLiteral("built-in default: read-only tools are allowed");
    } else {
        verdict.permission = Permission::Ask;
        verdict.rule = QStringLiteral("built-in default: tools that are not read-only ask");
    }
    return verdict;
}
