#pragma once

// ToolRouter: turns a requested tool name into a tool: a bare name (a builtin, client or command
// tool), a namespaced one (`owner.tool`: an adapter's, a sink's), and the mcp__<server>__<tool>
// aliases some clients produce; or into an explicit unknown-tool error naming the closest matches,
// found with a bounded amount of work. Validates arguments against the tool's inputSchema. Running
// the tool is the ToolExecutor's job.

#include "tools/toolregistry.h"

#include <QStringList>

class ToolRouter
{
public:
    explicit ToolRouter(const ToolRegistry* registry);

    struct Resolution
    {
        ToolRegistry::ToolPtr tool; // null when unknown
        QStringList closestMatches; // for the unknown-tool message
        // The name is longer than any tool's may be (ToolSpec::MaxNameBytes): it was neither
        // looked up nor compared with the tools' names.
        bool nameTooLong = false;
        // Unknown, and its owner (`owner.tool`) says why: e.g. the adapter is disabled.
        QString unavailableReason;
        // The status a call to it ends with (only when unavailableReason is set).
        CallStatus unavailableStatus = CallStatus::UpstreamError;
        ToolRoute route() const { return tool ? tool->route : ToolRoute(); }
    };

    Resolution resolve(const std::string& requestedName) const;

    // The message a client gets for an unknown tool; it quotes at most the start of a long name.
    static QString unknownToolMessage(const QString& requestedName, const QStringList& closestMatches);
    // The message for an unknown tool, from everything resolve() found out.
    static QString unknownToolMessage(const QString& requestedName, const Resolution& resolution);

    // What is wrong with `arguments` for `tool`, as the tool error a client gets; empty when they
    // conform to its inputSchema.
    static QString argumentError(const RegisteredTool& tool, const nlohmann::json& arguments);

    // The longest part of an error message the router builds from what it was given.
    static constexpr qsizetype MaxMessageChars = 2000;
    // The closest-match search compares names by edit distance until it has filled this many
    // table cells (the product of two names' lengths), then only by containment: an unknown name
    // costs the server thread a bounded time however many tools there are.
    static constexpr qint64 MaxSuggestionCells = 1'000'000;

private:
    const ToolRegistry* m_registry;
};
