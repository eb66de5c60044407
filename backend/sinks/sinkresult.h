#pragma once

// SinkResult: every sink tool answers in one shape. structuredContent is {"status": "success" |
// "failure", "sink", "op", "message", and the operation's own fields (bytes written, path, HTTP
// status)}; the first text block is the message, the second the same JSON for clients that read
// only text. A failure also sets isError, so a model sees a tool error it can act on.

#include "tools/toolresult.h"

#include <QString>

#include <nlohmann/json.hpp>

class SinkResult
{
public:
    static ToolResult success(const QString& sink, const QString& operation, const QString& message,
        nlohmann::json fields = nlohmann::json::object());
    static ToolResult failure(const QString& sink, const QString& operation, const QString& message,
        nlohmann::json fields = nlohmann::json::object());

    // The outputSchema of an operation whose successes add `fields` (JSON Schema properties).
    static nlohmann::json outputSchema(const nlohmann::json& fields);
};
