#pragma once

// PermissionEntry: one standing rule or grant that decides whether a tool call may run without
// asking, as the Permissions view lists it: a rule of the operator's configuration (allow, ask or
// deny for a tool, an adapter, a sink or by default; a read-only adapter), an "always allow" grant a
// person gave in answer to a question (kept across restarts), or an "allow for this session" grant
// (gone with its session). Grants carry an id to revoke them by; configuration rules change only
// by editing the configuration, so they have none.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

struct PermissionEntry
{
    enum class Source {
        Configuration, // the configuration file: not revocable from the console
        Always, // "Always allow", answered at a console
        Session, // "Allow for this session", answered at a console
    };

    QString id; // grants only: what revokeGrant takes
    Source source = Source::Configuration;
    // What it applies to: a tool's name for grants and tool rules, "adapter github", "sink audit",
    // "every tool" (the configured default), or the built-in default.
    QString subject;
    QString permission; // "allow", "ask", "deny"; "read-only" for a read-only adapter
    QString clientName; // grants: the one client it lets through; empty: every client
    QString sessionId; // session grants: the session
    QByteArray arguments; // grants: the exact arguments it lets through (compact JSON); empty: any
    QString grantedBy; // grants: the console user who answered
    qint64 grantedAtMs = 0; // grants: when (ms since the Unix epoch); 0 when not known (an older file)
    QString origin; // rules: where it is written (e.g. "permissions.tools.rm in /etc/switchboard.yaml")
    QString backend; // whose rule or grant, when a window holds several backends (FleetOperator sets it)

    bool isRevocable() const { return source != Source::Configuration; }
    bool everyClient() const { return clientName.isEmpty(); }
    bool anyArguments() const { return arguments.isEmpty(); }
    // {"id", "source": "configuration" | "always" | "session", "subject", "permission", "clientName",
    // "sessionId", "arguments", "grantedBy", "grantedAtMs", "origin"}, and back, refusing anything else.
    nlohmann::json toJson() const;
    static std::optional<PermissionEntry> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const PermissionEntry&, const PermissionEntry&) = default;
};

using PermissionEntryList = QList<PermissionEntry>;

// "Configuration", "Always", "This session": the words a person reads for a source.
QString permissionSourceLabel(PermissionEntry::Source source);

Q_DECLARE_METATYPE(PermissionEntry)
Q_DECLARE_METATYPE(PermissionEntryList)
