#include "sessionstates.h"

#include "enumnames.h"
#include "statejsonreader.h"

using nlohmann::json;

namespace {

constexpr EnumNames<SecurityEventKind, 4> kindNames{{
    {SecurityEventKind::MissingToken, "missing_token"},
    {SecurityEventKind::WrongToken, "wrong_token"},
    {SecurityEventKind::BadOrigin, "bad_origin"},
    {SecurityEventKind::BadHost, "bad_host"},
}};

std::string text(const QString& value)
{
    return value.toStdString();
}

} // namespace

QString securityEventKindName(SecurityEventKind kind)
{
    return enumName(kindNames, kind);
}

std::optional<SecurityEventKind> securityEventKindFromName(const QString& name)
{
    return enumFromName(kindNames, name);
}

json SessionState::toJson() const
{
    return json{{"id", text(id)}, {"clientName", text(clientName)}, {"clientVersion", text(clientVersion)},
        {"protocolVersion", text(protocolVersion)}, {"startedAtMs", startedAtMs}, {"lastActivityMs", lastActivityMs},
        {"calls", calls}, {"ended", ended}};
}

std::optional<SessionState> SessionState::fromJson(const json& value, QString* problem)
{
    SessionState state;
    StateJsonReader reader(value, QStringLiteral("session state"), problem);
    reader
        .keys(
            {"id", "clientName", "clientVersion", "protocolVersion", "startedAtMs", "lastActivityMs", "calls", "ended"})
        .string("id", &state.id)
        .string("clientName", &state.clientName)
        .string("clientVersion", &state.clientVersion)
        .string("protocolVersion", &state.protocolVersion)
        .integer("startedAtMs", &state.startedAtMs)
        .integer("lastActivityMs", &state.lastActivityMs)
        .integer("calls", &state.calls)
        .boolean("ended", &state.ended);
    if (!reader.ok())
        return std::nullopt;
    return state;
}

json SecurityEvent::toJson() const
{
    return json{{"atMs", atMs}, {"kind", text(securityEventKindName(kind))}, {"remoteAddress", text(remoteAddress)},
        {"detail", text(detail)}};
}

std::optional<SecurityEvent> SecurityEvent::fromJson(const json& value, QString* problem)
{
    SecurityEvent event;
    QString kind;
    StateJsonReader reader(value, QStringLiteral("security event"), problem);
    reader.keys({"atMs", "kind", "remoteAddress", "detail"})
        .integer("atMs", &event.atMs)
        .string("kind", &kind)
        .string("remoteAddress", &event.remoteAddress)
        .string("detail", &event.detail);
    if (!reader.ok())
        return std::nullopt;
    const auto parsed = securityEventKindFromName(kind);
    if (!parsed) {
        reader.fail(QStringLiteral("has an unknown kind \"%1\"").arg(kind));
        return std::nullopt;
    }
    event.kind = *parsed;
    return event;
}
