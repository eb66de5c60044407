#pragma once

// JSON-RPC 2.0 as MCP uses it: bounded parsing of request bodies, classification of messages, and
// the one place where protocol errors are shaped.

#include "boundedjson.h"

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <string>

namespace JsonRpc {

using json = nlohmann::json;

enum ErrorCode : int {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    // 2026-07-28 (the range -32000 to -32019 is the legacy revisions' and never used in their answers).
    HeaderMismatch = -32020,
    MissingRequiredClientCapability = -32021,
    UnsupportedProtocolVersion = -32022,
};

// Limits and results are BoundedJson's (the one parser); a message's by default.
using ParseLimits = BoundedJson::Limits;
using ParseResult = BoundedJson::Result<json>; // error: why parsing failed, for the -32700 message

// Parses a request body or an upstream's message. Invalid UTF-8, nesting deeper than the limit and
// more values than the limit are rejected while parsing, before the document grows past them.
ParseResult parse(const QByteArray& body, const ParseLimits& limits = ParseLimits::message());

enum class Kind {
    Request,
    Notification,
    Response,
    Invalid,
};

// One message of a POST body, classified. For Invalid, `id` is the request id when it could be
// read (so the error can name it) and null otherwise.
struct Message
{
    Kind kind = Kind::Invalid;
    json id; // null for notifications and unreadable ids
    std::string method; // requests and notifications
    const json* paramsValue = nullptr; // points into the parsed document; null when absent
    const json& params() const; // an object, or null when absent
    std::string invalidReason;
    const json* raw = nullptr; // the message as received; points into the parsed document
};

Message classify(const json& value);

json makeResult(const json& id, json result);
json makeError(const json& id, int code, const std::string& message, json data = nullptr);
json makeNotification(const std::string& method, json params);

// Serialises compactly; invalid UTF-8 (which parse() never produces) is replaced rather than thrown.
QByteArray serialize(const json& value);
std::string dump(const json& value);

} // namespace JsonRpc
