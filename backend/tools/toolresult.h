#pragma once

// ToolResult: what a tool hands back, normalised once into an MCP CallToolResult. Tool failures are
// results with isError set and a message a model can act on; they never become protocol errors.

#include <QString>

#include <nlohmann/json.hpp>

struct ToolResult
{
    nlohmann::json content = nlohmann::json::array(); // MCP content blocks
    nlohmann::json structuredContent; // null when the tool returns none
    bool isError = false;

    static ToolResult text(const QString& text);
    static ToolResult error(const QString& message);

    // The CallToolResult as sent to the client.
    nlohmann::json toJson() const&;
    nlohmann::json toJson() &&; // moves the content out instead of copying it
    // The first text block, for one-line summaries.
    QString firstText() const;
};
