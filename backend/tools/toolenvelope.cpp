#include "tools/toolenvelope.h"

#include "protocol/jsonrpc.h"

#include <QScopeGuard>

using nlohmann::json;

namespace {

// Fields routers have used for caller identity before they verified invocations; read only when
// the envelope has no metadata.invocation.
constexpr const char* LegacyAuthFields[] = {"auth", "authInfo"};

QString quoted(const json& value)
{
    QString text = QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
    if (text.size() > 80)
        text = text.left(77) + QStringLiteral("...");
    return text;
}

RunnerAnswer lineOf(const json& value, int exitCode, const QString& message = {})
{
    QByteArray text = JsonRpc::serialize(value);
    text.append('\n');
    return {text, exitCode, message};
}

json errorObject(const ToolEnvelope::Failure& failure)
{
    json error = failure.details.is_object() ? failure.details : json::object();
    error["code"] = failure.code;
    error["message"] = failure.message.toStdString();
    return error;
}

// A JSON-RPC error code for a failure the runner found itself (the session's own errors keep theirs).
int jsonRpcCodeOf(const std::string& code)
{
    if (code == "invalid_json")
        return JsonRpc::ParseError;
    if (code == "invalid_envelope" || code == "envelope_too_large")
        return JsonRpc::InvalidRequest;
    if (code == "unknown_tool" || code == "invalid_arguments" || code == "tool_name_conflict" || code == "no_tool_name")
        return JsonRpc::InvalidParams;
    return -32000; // implementation-defined server error: waiting, cancelled, unavailable
}

QString firstText(const json& result)
{
    const auto content = result.find("content");
    if (content == result.end() || !content->is_array())
        return {};
    for (const json& item : *content) {
        if (item.is_object() && item.value("type", std::string()) == "text") {
            const auto text = item.find("text");
            if (text != item.end() && text->is_string())
                return QString::fromStdString(text->get<std::string>());
        }
    }
    return {};
}

} // namespace

std::optional<ToolEnvelope> ToolEnvelope::parse(
    const QByteArray& text, const Naming& naming, qint64 maxBytes, Failure* failure)
{
    const bool namedOutside = !naming.commandLine.isEmpty() || !naming.variable.isEmpty();
    const QString example = QStringLiteral(R"(e.g. {"tool": "echo", "input": {"text": "hi"}})");
    if (text.size() > maxBytes) {
        *failure = {"envelope_too_large",
            QStringLiteral("the envelope on stdin is larger than %1 bytes (server.maxBodyBytes)").arg(maxBytes)};
        return std::nullopt;
    }
    if (text.trimmed().isEmpty()) {
        *failure = {"invalid_envelope", QStringLiteral("stdin is empty: send one JSON envelope, %1").arg(example)};
        return std::nullopt;
    }
    const JsonRpc::ParseResult parsed = JsonRpc::parse(text);
    if (!parsed.ok) {
        *failure = {"invalid_json",
            QStringLiteral("stdin is not one JSON value (%1): send one JSON envelope, %2")
                .arg(QString::fromStdString(parsed.error), example)};
        return std::nullopt;
    }
    const json& value = parsed.value;
    if (!value.is_object()) {
        *failure = {"invalid_envelope", QStringLiteral("the envelope must be a JSON object, %1").arg(example)};
        return std::nullopt;
    }

    ToolEnvelope envelope;
    // A JSON-RPC envelope refused from here on is still answered as JSON-RPC, with its id.
    auto answeredInForm = qScopeGuard([&] {
        if (envelope.m_form == Form::JsonRpc)
            failure->jsonRpcId = envelope.m_requestId;
    });
    const json* name = nullptr; // the envelope's tool name
    const json* arguments = nullptr;
    const json* metadata = nullptr;
    const auto field = [&](const json& object, const char* key) -> const json* {
        const auto it = object.find(key);
        return it == object.end() || it->is_null() ? nullptr : &*it;
    };
    if (value.contains("jsonrpc") || value.contains("method")) {
        envelope.m_form = Form::JsonRpc;
        const JsonRpc::Message message = JsonRpc::classify(value);
        envelope.m_requestId = message.id; // null for a notification, or an id that cannot be read
        if (message.kind != JsonRpc::Kind::Request || message.method != "tools/call") {
            *failure = {"invalid_envelope",
                message.kind == JsonRpc::Kind::Invalid
                    ? QStringLiteral("not a valid JSON-RPC request: %1")
                          .arg(QString::fromStdString(message.invalidReason))
                    : QStringLiteral("a JSON-RPC envelope must be a tools/call request with an id, not %1")
                          .arg(message.method.empty() ? QStringLiteral("a response")
                                                      : QString::fromStdString(message.method))};
            return std::nullopt;
        }
        const json& params = message.params();
        if (!params.is_object()) {
            *failure = {"invalid_envelope", QStringLiteral("tools/call needs params: {\"name\", \"arguments\"}")};
            return std::nullopt;
        }
        name = field(params, "name");
        arguments = field(params, "arguments");
        if (const json* meta = field(params, "_meta"); meta && meta->is_object()) {
            if (const json* token = field(*meta, "progressToken");
                token && (token->is_string() || token->is_number_integer()))
                envelope.m_progressToken = *token;
            metadata = meta;
        }
        if (const json* outer = field(value, "metadata"))
            metadata = outer; // a router's own verified metadata beside the request wins over _meta
    } else if (value.contains("tool")) {
        envelope.m_form = Form::ToolInput;
        name = field(value, "tool");
        arguments = value.contains("input") ? field(value, "input") : field(value, "arguments");
        metadata = field(value, "metadata");
    } else if (value.contains("tool_name")) {
        envelope.m_form = Form::ToolNameArguments;
        name = field(value, "tool_name");
        arguments = field(value, "arguments");
        metadata = field(value, "metadata");
    } else if (value.contains("name")) {
        envelope.m_form = Form::NameArguments;
        name = field(value, "name");
        arguments = field(value, "arguments");
        metadata = field(value, "metadata");
    } else if (namedOutside && (value.contains("input") || value.contains("arguments"))) {
        // The router named the tool outside the envelope (TOOL_NAME or the command line).
        envelope.m_form = value.contains("input") ? Form::ToolInput : Form::NameArguments;
        arguments = value.contains("input") ? field(value, "input") : field(value, "arguments");
        metadata = field(value, "metadata");
    } else {
        *failure = {"invalid_envelope",
            QStringLiteral("the envelope names no tool: use {\"tool\", \"input\", \"metadata\"}, {\"tool_name\", "
                           "\"arguments\"}, {\"name\", \"arguments\"} or a JSON-RPC tools/call request, %1")
                .arg(example)};
        return std::nullopt;
    }

    if (name && (!name->is_string() || name->get_ref<const std::string&>().empty())) {
        *failure = {
            "invalid_envelope", QStringLiteral("the tool name must be a non-empty string, not %1").arg(quoted(*name))};
        return std::nullopt;
    }
    const QString envelopeName = name ? QString::fromStdString(name->get<std::string>()) : QString();
    if (naming.commandLine.isEmpty() && !naming.variable.isEmpty() && !envelopeName.isEmpty()
        && envelopeName != naming.variable) {
        *failure = {"tool_name_conflict",
            QStringLiteral("the envelope names the tool \"%1\" but TOOL_NAME names \"%2\"; they must agree, or name "
                           "Switchboard's tool on the command line (switchboard tool NAME)")
                .arg(envelopeName.left(200), naming.variable.left(200))};
        return std::nullopt;
    }
    envelope.m_toolName = !naming.commandLine.isEmpty() ? naming.commandLine
        : !naming.variable.isEmpty()                    ? naming.variable
                                                        : envelopeName;
    if (envelope.m_toolName.isEmpty()) {
        *failure = {"no_tool_name",
            QStringLiteral("no tool named: run `switchboard tool NAME`, set TOOL_NAME, or name it in the envelope")};
        return std::nullopt;
    }

    if (arguments && !arguments->is_object()) {
        *failure = {"invalid_arguments",
            QStringLiteral("the tool's input must be a JSON object, not %1").arg(quoted(*arguments))};
        return std::nullopt;
    }
    if (arguments)
        envelope.m_arguments = *arguments;

    if (metadata && !metadata->is_object()) {
        *failure
            = {"invalid_envelope", QStringLiteral("metadata must be a JSON object, not %1").arg(quoted(*metadata))};
        return std::nullopt;
    }
    // The verified invocation first; the legacy fields only when there is none.
    if (metadata) {
        if (const json* invocation = field(*metadata, "invocation")) {
            if (!invocation->is_object()) {
                *failure = {"invalid_envelope",
                    QStringLiteral("metadata.invocation must be a JSON object, not %1").arg(quoted(*invocation))};
                return std::nullopt;
            }
            envelope.m_invocation = *invocation;
            envelope.m_invocationSource = QStringLiteral("metadata.invocation");
        }
    }
    for (const char* legacy : LegacyAuthFields) {
        if (!envelope.m_invocation.is_null())
            break;
        for (const json* holder : {metadata, &value}) {
            const json* auth = holder ? field(*holder, legacy) : nullptr;
            if (auth && auth->is_object()) {
                envelope.m_invocation = *auth;
                envelope.m_invocationSource
                    = (holder == metadata ? QStringLiteral("metadata.") : QString()) + QString::fromLatin1(legacy);
                break;
            }
        }
    }
    answeredInForm.dismiss();
    return envelope;
}

QByteArray ToolEnvelope::toolsCallRequest() const
{
    json params{{"name", m_toolName.toStdString()}, {"arguments", m_arguments}};
    if (!m_progressToken.is_null())
        params["_meta"] = json{{"progressToken", m_progressToken}};
    return JsonRpc::serialize(json{{"jsonrpc", "2.0"}, {"id", m_requestId.is_null() ? json(1) : m_requestId},
        {"method", "tools/call"}, {"params", std::move(params)}});
}

RunnerAnswer ToolEnvelope::answer(const QByteArray& jsonRpcResponse, std::optional<CallStatus> status) const
{
    // The runner's own backend wrote it: a record's limits (a tool's output inside a response).
    const BoundedJson::Result<json> parsed = BoundedJson::parse(jsonRpcResponse, BoundedJson::Limits::record());
    const json& response = parsed.value;
    if (response.is_object()) {
        if (const auto result = response.find("result"); result != response.end() && result->is_object()) {
            // Arguments the tool's schema refused: the call is wrong, whatever its result says.
            const bool invalidArguments = status == CallStatus::InvalidArguments;
            const bool failed = result->value("isError", false) || invalidArguments;
            QString message;
            if (failed) {
                message = firstText(*result);
                if (message.isEmpty())
                    message = QStringLiteral("the tool reported an error");
            }
            const int exitCode = invalidArguments ? BadCall : failed ? ToolFailed : Succeeded;
            if (m_form == Form::JsonRpc) {
                json out{{"jsonrpc", "2.0"}, {"id", m_requestId}, {"ok", !failed}, {"result", *result}};
                return lineOf(out, exitCode, message);
            }
            json out = *result;
            out["ok"] = !failed;
            if (failed)
                out["error"] = json{{"code", invalidArguments ? "invalid_arguments" : "tool_error"},
                    {"message", message.toStdString()}};
            return lineOf(out, exitCode, message);
        }
        if (const auto error = response.find("error"); error != response.end() && error->is_object()) {
            const json data = error->value("data", json::object());
            const int code = error->value("code", 0);
            std::string reason = data.is_object() ? data.value("reason", std::string()) : std::string();
            if (reason.empty())
                reason = code == JsonRpc::InvalidParams ? "invalid_params"
                    : code == JsonRpc::InvalidRequest   ? "invalid_request"
                                                        : "error";
            const int exitCode = reason == "tool_unavailable" ? Unavailable : BadCall;
            if (m_form == Form::JsonRpc) {
                json out{{"jsonrpc", "2.0"}, {"id", m_requestId}, {"ok", false}, {"error", *error}};
                return lineOf(out, exitCode, QString::fromStdString(error->value("message", std::string())));
            }
            Failure failure{reason, QString::fromStdString(error->value("message", std::string()))};
            if (reason == "unknown_tool") // the session's text points at tools/list, which a runner's caller lacks
                failure.message += QStringLiteral(" `switchboard tool --list` lists the tools.");
            if (data.is_object() && data.contains("closestMatches"))
                failure.details["closestMatches"] = data["closestMatches"];
            return lineOf(json{{"ok", false}, {"error", errorObject(failure)}}, exitCode, failure.message);
        }
    }
    return failure({"internal_error",
                       parsed.ok ? QStringLiteral("the call ended without a readable response")
                                 : QStringLiteral("the call's response could not be read: %1")
                                       .arg(QString::fromStdString(parsed.error))},
        ToolFailed);
}

RunnerAnswer ToolEnvelope::failure(const Failure& failure, int exitCode) const
{
    Failure inForm = failure;
    if (m_form == Form::JsonRpc)
        inForm.jsonRpcId = m_requestId;
    return refusal(inForm, exitCode);
}

RunnerAnswer ToolEnvelope::refusal(const Failure& failure, int exitCode)
{
    if (!failure.jsonRpcId)
        return lineOf(json{{"ok", false}, {"error", errorObject(failure)}}, exitCode, failure.message);
    json error{{"code", jsonRpcCodeOf(failure.code)}, {"message", failure.message.toStdString()}};
    json data = failure.details.is_object() ? failure.details : json::object();
    data["reason"] = failure.code;
    error["data"] = std::move(data);
    return lineOf(json{{"jsonrpc", "2.0"}, {"id", *failure.jsonRpcId}, {"ok", false}, {"error", std::move(error)}},
        exitCode, failure.message);
}
