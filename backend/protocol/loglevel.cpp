#include "protocol/loglevel.h"

#include <array>

namespace {
constexpr std::array<const char*, 8> names
    = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
}

std::optional<LogLevel> logLevelFromName(const std::string& name)
{
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (name == names[i])
            return LogLevel(i);
    }
    return std::nullopt;
}

const char* logLevelName(LogLevel level)
{
    return names[std::size_t(level)];
}
