#include "permissionentry.h"

#include "statejsonreader.h"

#include <QCoreApplication>

namespace {

const char* sourceName(PermissionEntry::Source source)
{
    switch (source) {
    case PermissionEntry::Source::Configuration:
        return "configuration";
    case PermissionEntry::Source::Always:
        return "always";
    case PermissionEntry::Source::Session:
        return "session";
    }
    return "";
}

} // namespace

nlohmann::json PermissionEntry::toJson() const
{
    return nlohmann::json{{"id", id.toStdString()}, {"source", sourceName(source)}, {"subject", subject.toStdString()},
        {"permission", permission.toStdString()}, {"clientName", clientName.toStdString()},
        {"sessionId", sessionId.toStdString()}, {"arguments", arguments.toStdString()},
        {"grantedBy", grantedBy.toStdString()}, {"grantedAtMs", grantedAtMs}, {"origin", origin.toStdString()}};
}

std::optional<PermissionEntry> PermissionEntry::fromJson(const nlohmann::json& value, QString* problem)
{
    PermissionEntry entry;
    QString source;
    StateJsonReader reader(value, QStringLiteral("grant"), problem);
    reader
        .keys({"id", "source", "subject", "permission", "clientName", "sessionId", "arguments", "grantedBy",
            "grantedAtMs", "origin"})
        .string("id", &entry.id)
        .string("source", &source)
        .string("subject", &entry.subject)
        .string("permission", &entry.permission)
        .string("clientName", &entry.clientName)
        .string("sessionId", &entry.sessionId)
        .string("arguments", &entry.arguments)
        .string("grantedBy", &entry.grantedBy)
        .integer("grantedAtMs", &entry.grantedAtMs)
        .string("origin", &entry.origin);
    if (!reader.ok())
        return std::nullopt;
    for (const Source candidate : {Source::Configuration, Source::Always, Source::Session}) {
        if (source == QLatin1String(sourceName(candidate))) {
            entry.source = candidate;
            return entry;
        }
    }
    if (problem)
        *problem = QStringLiteral("grant has an unknown source \"%1\"").arg(source);
    return std::nullopt;
}

QString permissionSourceLabel(PermissionEntry::Source source)
{
    switch (source) {
    case PermissionEntry::Source::Configuration:
        return QCoreApplication::translate("PermissionEntry", "Configuration");
    case PermissionEntry::Source::Always:
        return QCoreApplication::translate("PermissionEntry", "Always");
    case PermissionEntry::Source::Session:
        return QCoreApplication::translate("PermissionEntry", "This session");
    }
    return {};
}
