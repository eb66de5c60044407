#pragma once

// ToolResult: what a tool hands back, normalised once into an MCP CallToolResult. Tool failures are
// results with isError set and a message a model can act on; they never become protocol errors.

#include "toolcall.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

struct ToolResult
{
    nlohmann::json content = nlohmann::json::array(); // MCP content blocks
    nlohmann::json structuredContent; // null when the tool returns none
    bool isError = false;
    // How the call log tells this result apart, set by whoever knows why a call failed (a deadline,
    // a denial, an upstream that did not answer) or that a success is a person's "no" (Declined).
    // Unset: Ok, or ToolError when isError. Never sent to the client.
    std::optional<CallStatus> outcome;

    static ToolResult text(const QString& text);
    // A tool error; `outcome` says which kind when it is known.
    static ToolResult error(const QString& message, std::optional<CallStatus> outcome = std::nullopt);

    // The status of the call this result ends.
    CallStatus callStatus() const;

    // The CallToolResult as sent to the client.
    nlohmann::json toJson() const&;
    nlohmann::json toJson() &&; // moves the content out instead of copying it
    // The first text block, for one-line summaries.
    QString firstText() const;
};
