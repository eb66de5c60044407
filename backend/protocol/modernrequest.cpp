#include "protocol/modernrequest.h"

#include "protocol/jsonrpc.h"
#include "protocol/loglevel.h"
#include "protocol/protocolversion.h"

namespace ModernRequest {

namespace {

constexpr QByteArrayView SentinelPrefix = "=?base64?";
constexpr QByteArrayView SentinelSuffix = "?=";

Refusal mismatch(const std::string& header, const std::string& body)
{
    return {400, JsonRpc::HeaderMismatch, "Bad Request: the request headers and body disagree: " + body,
        json{{"mismatch", {{"header", header}, {"body", body}}}}};
}

std::string shown(const std::optional<QByteArray>& header)
{
    return header ? header->toStdString() : std::string("(missing)");
}

} // namespace

json supportedVersions()
{
    json versions = json::array();
    for (const char* version : ProtocolVersion::modern)
        versions.push_back(version);
    return versions;
}

bool isModern(const QByteArray& versionHeader, bool hasSessionId, const json& body)
{
    // A session is a 2025 client's, whatever it says (it hears the 2025 answers it always did).
    if (hasSessionId)
        return false;
    if (!versionHeader.isEmpty())
        return !ProtocolVersion::isSupported(versionHeader);
    if (!body.is_object())
        return false;
    const auto params = body.find("params");
    if (params == body.end() || !params->is_object())
        return false;
    const auto meta = params->find("_meta");
    return meta != params->end() && meta->is_object() && meta->contains(ProtocolVersionKey);
}

std::optional<std::string> decodeHeaderValue(const QByteArray& value)
{
    const QByteArrayView view(value);
    if (!view.startsWith(SentinelPrefix) || !view.endsWith(SentinelSuffix)
        || view.size() < SentinelPrefix.size() + SentinelSuffix.size())
        return value.toStdString();
    const QByteArray encoded
        = view.sliced(SentinelPrefix.size(), view.size() - SentinelPrefix.size() - SentinelSuffix.size()).toByteArray();
    // Standard Base64 with its padding, as the revision writes it: Qt accepts a missing trailing '=',
    // which the SDK and the conformance suite refuse (SEP-2243), so the length is checked first.
    if (encoded.size() % 4 != 0)
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded.toStdString();
}

std::optional<std::string> nameOf(const JsonRpc::Message& request)
{
    const std::string& method = request.method;
    const char* key = nullptr;
    if (method == "tools/call" || method == "prompts/get")
        key = "name";
    else if (method == "resources/read")
        key = "uri";
    else if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")
        key = "taskId";
    if (!key)
        return std::nullopt;
    const json& params = request.params();
    const auto value = params.is_object() ? params.find(key) : params.end();
    if (!params.is_object() || value == params.end())
        return std::string();
    if (value->is_string())
        return value->get<std::string>();
    return value->dump();
}

std::variant<Refusal, Envelope> check(const JsonRpc::Message& request, const Headers& headers)
{
    // Mcp-Method: present and the body's.
    if (!headers.method || headers.method->toStdString() != request.method) {
        return mismatch(shown(headers.method),
            headers.method
                ? "the body names method " + request.method + " but the Mcp-Method header names "
                    + headers.method->toStdString()
                : "the body names method " + request.method + " but the required Mcp-Method header is absent");
    }
    // The legacy handshake under a modern header (no envelope) contradicts itself; an initialize with
    // an envelope is a 2026 request for a method that revision removed (404, as the suite expects).
    const json& params = request.params();
    const bool enveloped = params.is_object() && params.contains("_meta");
    if (request.method == "initialize" && !enveloped) {
        return mismatch(headers.protocolVersion.toStdString(),
            "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header");
    }
    if (headers.protocolVersion.isEmpty()) {
        return mismatch("(missing)",
            "the body carries a 2026-07-28 envelope but the required MCP-Protocol-Version header is absent");
    }
    const auto meta = enveloped ? params.find("_meta") : params.end();
    // The version header: the envelope's.
    if (enveloped && meta->is_object()) {
        const auto version = meta->find(ProtocolVersionKey);
        if (version != meta->end() && version->is_string()
            && headers.protocolVersion.toStdString() != version->get<std::string>()) {
            return mismatch(headers.protocolVersion.toStdString(),
                "the body envelope names protocol version " + version->get<std::string>()
                    + " but the MCP-Protocol-Version header names " + headers.protocolVersion.toStdString());
        }
    }
    // Mcp-Name: present and the body's, where the method has one.
    if (const std::optional<std::string> name = nameOf(request)) {
        const std::optional<std::string> header
            = headers.name ? decodeHeaderValue(*headers.name) : std::optional<std::string>();
        if (!headers.name) {
            return mismatch(
                "(missing)", "the body carries the name \"" + *name + "\" but the required Mcp-Name header is absent");
        }
        if (!header) {
            return mismatch(headers.name->toStdString(), "the Mcp-Name header's Base64 value does not decode");
        }
        if (*header != *name) {
            return mismatch(*header,
                "the body carries the name \"" + *name + "\" but the Mcp-Name header names \"" + *header + "\"");
        }
    }
    // The envelope.
    if (!enveloped) {
        return Refusal{400, JsonRpc::InvalidParams,
            "Invalid params: the request is missing the per-request envelope params._meta that protocol "
            "revision 2026-07-28 requires",
            json{{"envelope", {{"missing", json::array({"_meta"})}}}}};
    }
    const auto envelopeProblem = [](const char* key, const char* problem) {
        return Refusal{400, JsonRpc::InvalidParams,
            std::string("Invalid _meta envelope for protocol revision 2026-07-28: ") + key + ": " + problem,
            json{{"envelope", {{"key", key}, {"problem", problem}}}}};
    };
    if (!meta->is_object())
        return envelopeProblem("_meta", "not an object");
    const auto version = meta->find(ProtocolVersionKey);
    if (version == meta->end())
        return envelopeProblem(ProtocolVersionKey, "missing");
    if (!version->is_string())
        return envelopeProblem(ProtocolVersionKey, "not a string");
    const auto capabilities = meta->find(ClientCapabilitiesKey);
    if (capabilities == meta->end())
        return envelopeProblem(ClientCapabilitiesKey, "missing");
    if (!capabilities->is_object())
        return envelopeProblem(ClientCapabilitiesKey, "not an object");
    const auto clientInfo = meta->find(ClientInfoKey);
    if (clientInfo != meta->end() && !clientInfo->is_object())
        return envelopeProblem(ClientInfoKey, "not an object");
    const auto logLevel = meta->find(LogLevelKey);
    if (logLevel != meta->end() && (!logLevel->is_string() || !logLevelFromName(logLevel->get<std::string>())))
        return envelopeProblem(
            LogLevelKey, "not a log level (debug, info, notice, warning, error, critical, alert, emergency)");
    // The version: one this server speaks in this era.
    const std::string requested = version->get<std::string>();
    if (!ProtocolVersion::isModern(requested)) {
        return Refusal{400, JsonRpc::UnsupportedProtocolVersion, "Unsupported protocol version: " + requested,
            json{{"supported", supportedVersions()}, {"requested", requested}}};
    }
    return Envelope{requested, *capabilities, clientInfo != meta->end() ? *clientInfo : json(),
        logLevel != meta->end() ? logLevel->get<std::string>() : std::string()};
}

std::optional<Refusal> checkParamHeaders(const json& inputSchema, const json& arguments,
    const std::function<std::optional<QByteArray>(const QByteArray& name)>& header)
{
    // Walked iteratively through `properties` alone (a path through items, composition or $ref is
    // not one a client follows); bounded by the schema, which the registry bounded.
    struct Step
    {
        const json* schema;
        const json* value; // the argument at this path, or null when absent
    };
    std::vector<Step> pending{{&inputSchema, &arguments}};
    while (!pending.empty()) {
        const Step step = pending.back();
        pending.pop_back();
        const auto properties = step.schema->is_object() ? step.schema->find("properties") : step.schema->end();
        if (!step.schema->is_object() || properties == step.schema->end() || !properties->is_object())
            continue;
        for (const auto& [key, property] : properties->items()) {
            if (!property.is_object())
                continue;
            const json* value = nullptr;
            if (step.value && step.value->is_object()) {
                const auto found = step.value->find(key);
                if (found != step.value->end())
                    value = &*found;
            }
            const auto annotation = property.find("x-mcp-header");
            if (annotation != property.end() && annotation->is_string() && !annotation->get<std::string>().empty()) {
                if (!value || value->is_null())
                    continue; // absent: no header is expected
                const QByteArray name = "Mcp-Param-" + QByteArray::fromStdString(annotation->get<std::string>());
                const std::optional<QByteArray> raw = header(name);
                std::string wanted;
                if (value->is_string())
                    wanted = value->get<std::string>();
                else if (value->is_number_integer())
                    wanted = value->dump();
                else if (value->is_boolean())
                    wanted = value->get<bool>() ? "true" : "false";
                else
                    continue; // not a type the annotation may stand on: nothing to compare
                if (!raw) {
                    return mismatch("(missing)",
                        "the argument " + key + " is in the body but the required " + name.toStdString()
                            + " header is absent");
                }
                const std::optional<std::string> sent = decodeHeaderValue(*raw);
                bool same = sent && *sent == wanted;
                if (!same && sent && value->is_number_integer()) {
                    // Compared as numbers: 42 and 42.0 are the same.
                    bool ok = false;
                    const double number = QByteArray::fromStdString(*sent).toDouble(&ok);
                    same = ok && number == value->get<double>();
                }
                if (!same) {
                    return mismatch(sent ? *sent : raw->toStdString(),
                        "the argument " + key + " is " + wanted + " but the " + name.toStdString() + " header says "
                            + (sent ? *sent : std::string("an undecodable value")));
                }
            }
            pending.push_back({&property, value});
        }
    }
    return std::nullopt;
}

} // namespace ModernRequest
