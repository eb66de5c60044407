#include "toolroute.h"

#include <array>
#include <utility>

namespace {

constexpr std::array<std::pair<RouteKind, const char*>, 7> kindNames{{
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
    for (const auto& [k, name] : kindNames) {
        if (k == kind)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("unknown");
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
    for (const auto& [kind, name] : kindNames) {
        if (kind != RouteKind::Unknown && kindText == QLatin1String(name))
            return {kind, owner};
    }
    if (text == QLatin1String("unknown"))
        return {};
    return {RouteKind::Unknown, text};
}
