#pragma once

// GitToolResult: every git tool answers in one shape: {"status": "success" | "failure", "message":
// a sentence a person or a model can act on, and the tool's own fields}, as structuredContent and
// as text. Failures also set isError. Credentials in URLs are removed from all of it.

#include "tools/toolresult.h"

#include <QString>

#include <nlohmann/json.hpp>

class GitToolResult
{
public:
    static ToolResult success(const QString& message, nlohmann::json fields = nlohmann::json::object());
    static ToolResult failure(const QString& message, nlohmann::json fields = nlohmann::json::object());

    // Every string in `value` (keys included) with URL credentials removed.
    static void redact(nlohmann::json& value);

private:
    static ToolResult make(bool ok, const QString& message, nlohmann::json fields);
};
