#pragma once

// The MCP (syslog) logging levels, in order of severity.

#include <optional>
#include <string>

enum class LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
};

std::optional<LogLevel> logLevelFromName(const std::string& name);
const char* logLevelName(LogLevel level);
