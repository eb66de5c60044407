#pragma once

// The MCP protocol versions this server speaks, oldest first: the three 2025 revisions with an
// initialize handshake and sessions, and the stateless 2026 one.

#include <QByteArray>

#include <array>
#include <string>

namespace ProtocolVersion {

inline constexpr std::array<const char*, 3> supported = {"2025-03-26", "2025-06-18", "2025-11-25"};
inline constexpr const char* latest = "2025-11-25";
// The only version in which JSON-RPC batches are allowed.
inline constexpr const char* batching = "2025-03-26";

inline bool isSupported(const std::string& version)
{
    for (const char* v : supported) {
        if (version == v)
            return true;
    }
    return false;
}

inline bool isSupported(const QByteArray& version)
{
    return isSupported(version.toStdString());
}

// The stateless revisions (2026-07-28 on): every request says its version and who asks in `_meta`,
// with no initialize and no session. Served beside the three above, chosen per request.
inline constexpr std::array<const char*, 1> modern = {"2026-07-28"};

inline bool isModern(const std::string& version)
{
    for (const char* v : modern) {
        if (version == v)
            return true;
    }
    return false;
}

} // namespace ProtocolVersion
