#pragma once

// ToolRouter: turns a requested tool name into a tool (also through the mcp__<server>__<tool>
// aliases some clients produce), or into an explicit unknown-tool error naming the closest
// matches; validates arguments against the tool's inputSchema; then runs it.

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
        QString route() const { return tool ? tool->route : QStringLiteral("unknown"); }
    };

    Resolution resolve(const std::string& requestedName) const;

    // The message a client gets for an unknown tool; it quotes at most the start of a long name.
    static QString unknownToolMessage(const QString& requestedName, const QStringList& closestMatches);

    // Validates the context's arguments against the tool's inputSchema; on failure the call
    // finishes with a tool error saying what to fix, and the tool never runs. An exception thrown
    // by the tool finishes the call with a tool error too.
    static void invoke(const RegisteredTool& tool, const std::shared_ptr<ToolCallContext>& context);
    // What is wrong with `arguments` for `tool`, as the tool error a client gets; empty when they
    // conform to its inputSchema.
    static QString argumentError(const RegisteredTool& tool, const nlohmann::json& arguments);
    // Runs a tool whose arguments were already validated.
    static void run(const RegisteredTool& tool, const std::shared_ptr<ToolCallContext>& context);

    // The longest part of an error message the router builds from what it was given (argument
    // problems, an exception's text).
    static constexpr qsizetype MaxMessageChars = 2000;

private:
    const ToolRegistry* m_registry;
};
