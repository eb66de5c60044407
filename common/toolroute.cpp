#include "toolroute.h"

#include "enumnames.h"

namespace {

constexpr EnumNames<RouteKind, 7> kindNames{{
    {RouteKind::Unknown, "unknown"},
    {RouteKind::Builtin, "builtin"},
    {RouteKind::Client, "client"},
    {RouteKind::Command, "command"},
    {RouteKind::Sink, "sink"},
    {RouteKind::Adapter, "adapter"},
    {RouteKind::Git, "git"},
}};

} // namespace

QString routeKindName(RouteKind kind)
{
    return enumName(kindNames, kind);
}

QString ToolRoute::toString() const
{
    if (kind == RouteKind::Unknown)
        return owner.isEmpty() ? QStringLiteral("unknown") : owner;
    if (owner.isEmpty())
        return routeKindName(kind);
    return routeKindName(kind) + QLatin1Char(':') + owner;
}

ToolRoute ToolRoute::fromString(const QString& text)
{
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    const QString kindText = colon < 0 ? text : text.left(colon);
    const QString owner = colon < 0 ? QString() : text.mid(colon + 1);
    if (const auto kind = enumFromName(kindNames, kindText); kind && *kind != RouteKind::Unknown)
        return {*kind, owner};
    if (text == QLatin1String("unknown"))
        return {};
    return {RouteKind::Unknown, text};
}
