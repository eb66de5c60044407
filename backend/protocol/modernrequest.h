#pragma once

// The 2026-07-28 revision's rules for a request over HTTP, before anything runs: which POSTs are of
// that era, what their headers must say about their body (Mcp-Method, Mcp-Name, MCP-Protocol-
// Version, Base64 sentinels decoded), and the per-request envelope in `params._meta` (the version,
// the client's capabilities and, optionally, its name). A refusal carries the HTTP status, the
// JSON-RPC code and its `data`, as the official SDK v2 server answers them
// (docs/protocol/reference-v2-observed.md).

#include <QByteArray>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <variant>

namespace JsonRpc {
struct Message;
}

namespace ModernRequest {

using json = nlohmann::json;

inline constexpr const char* ProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* ClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* ClientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* ServerInfoKey = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* LogLevelKey = "io.modelcontextprotocol/logLevel";
inline constexpr const char* SubscriptionIdKey = "io.modelcontextprotocol/subscriptionId";

// The request's headers that the revision checks against its body (raw, as received).
struct Headers
{
    QByteArray protocolVersion;
    std::optional<QByteArray> method;
    std::optional<QByteArray> name;
};

struct Refusal
{
    int httpStatus = 400;
    int code = 0;
    std::string message;
    json data;
};

// What a valid request says about itself.
struct Envelope
{
    std::string version;
    json clientCapabilities; // an object
    json clientInfo; // an object, or null when the client sent none
    std::string logLevel; // the request's log level (a level's name), or empty: no log messages
};

// Whether a POST is of the stateless era: without a session (a session is a 2025 client's), its
// MCP-Protocol-Version header names no 2025 revision (any other value, a future one included, is
// answered by this era's rules), or, without the header, its body's `params._meta` names a
// protocol version.
bool isModern(const QByteArray& versionHeader, bool hasSessionId, const json& body);

// The versions this era serves, as server/discover and UnsupportedProtocolVersion name them.
json supportedVersions();

// A header value as its sender meant it: `=?base64?…?=` decoded (standard alphabet, UTF-8), any
// other value as it is; nullopt for a sentinel whose Base64 does not decode.
std::optional<std::string> decodeHeaderValue(const QByteArray& value);

// The body's value that Mcp-Name must carry for `method` (params.name, params.uri, params.taskId),
// or nullopt when the method has none.
std::optional<std::string> nameOf(const JsonRpc::Message& request);

// Checks a request (not a notification) in this order: Mcp-Method present and equal to the body's
// method; an initialize without an envelope is refused (the legacy handshake under a modern header;
// with one, it is a request for a removed method, left to the caller's 404); the version header
// present and equal to the envelope's; Mcp-Name present and equal where the method has one; the envelope
// present with its required keys; the version one this server speaks.
std::variant<Refusal, Envelope> check(const JsonRpc::Message& request, const Headers& headers);

// The Mcp-Param-{Name} headers a tools/call must carry, from the `x-mcp-header` annotations of the
// tool's inputSchema (on string, integer and boolean properties reached through `properties`
// only; an annotation anywhere else asks for nothing): each argument present and not null needs its
// header, equal to it (Base64 sentinels decoded, integers compared as numbers). `header` gives a
// request header's raw value by name, or nullopt when it is absent. Nullopt when all agree.
std::optional<Refusal> checkParamHeaders(const json& inputSchema, const json& arguments,
    const std::function<std::optional<QByteArray>(const QByteArray& name)>& header);

} // namespace ModernRequest
