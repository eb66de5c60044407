#pragma once

// ToolRoute: where a tool's calls go: which kind of subsystem serves it and, for the kinds that
// have several (each adapter, each sink), which one. Call records, questions and permission rules
// carry it; its text form ("builtin", "adapter:github") is what history stores and the log shows.

#include <QMetaType>
#include <QString>

enum class RouteKind {
    Unknown, // no tool answered to the name
    Builtin,
    Client, // a person answers at the console
    Command, // a process per call
    Sink,
    Adapter, // an upstream MCP server
    Git,
};

struct ToolRoute
{
    RouteKind kind = RouteKind::Unknown;
    QString owner; // the adapter's or sink's name; empty for kinds that have one owner

    static ToolRoute builtin() { return {RouteKind::Builtin, {}}; }
    static ToolRoute client() { return {RouteKind::Client, {}}; }
    static ToolRoute command() { return {RouteKind::Command, {}}; }
    static ToolRoute adapter(const QString& name) { return {RouteKind::Adapter, name}; }
    static ToolRoute sink(const QString& name) { return {RouteKind::Sink, name}; }
    static ToolRoute git() { return {RouteKind::Git, {}}; }

    // "builtin", "client", "command", "git", "unknown", "adapter:github", "sink:slack".
    QString toString() const;
    // Reads toString()'s form; anything else is Unknown with the text kept as its owner, so a record
    // written by a later version still shows what it said.
    static ToolRoute fromString(const QString& text);

    friend bool operator==(const ToolRoute& a, const ToolRoute& b) { return a.kind == b.kind && a.owner == b.owner; }
    friend bool operator!=(const ToolRoute& a, const ToolRoute& b) { return !(a == b); }
};

QString routeKindName(RouteKind kind);

Q_DECLARE_METATYPE(ToolRoute)
