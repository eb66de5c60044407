#include "protocol/jsonrpc.h"

namespace JsonRpc {

namespace {

bool isValidId(const json& id)
{
    return id.is_string() || id.is_number_integer();
}

} // namespace

ParseResult parse(const QByteArray& body, const ParseLimits& limits)
{
    return BoundedJson::parse(body, limits);
}

const json& Message::params() const
{
    static const json absent;
    return paramsValue ? *paramsValue : absent;
}

Message classify(const json& value)
{
    Message message;
    message.raw = &value;
    if (!value.is_object()) {
        message.invalidReason = "a JSON-RPC message must be an object";
        return message;
    }
    const auto idIt = value.find("id");
    const bool hasId = idIt != value.end();
    if (hasId && isValidId(*idIt))
        message.id = *idIt;

    const auto version = value.find("jsonrpc");
    if (version == value.end() || !version->is_string() || version->get_ref<const std::string&>() != "2.0") {
        message.invalidReason = "\"jsonrpc\" must be \"2.0\"";
        return message;
    }
    if (hasId && !isValidId(*idIt)) {
        message.invalidReason = "\"id\" must be a string or an integer";
        return message;
    }

    const auto methodIt = value.find("method");
    if (methodIt != value.end()) {
        if (!methodIt->is_string() || methodIt->get_ref<const std::string&>().empty()) {
            message.invalidReason = "\"method\" must be a non-empty string";
            return message;
        }
        const auto paramsIt = value.find("params");
        if (paramsIt != value.end() && !paramsIt->is_object() && !paramsIt->is_null()) {
            message.invalidReason = "\"params\" must be an object";
            return message;
        }
        message.method = methodIt->get<std::string>();
        if (paramsIt != value.end() && paramsIt->is_object())
            message.paramsValue = &*paramsIt;
        message.kind = hasId ? Kind::Request : Kind::Notification;
        return message;
    }

    const bool hasResult = value.contains("result");
    const bool hasError = value.contains("error");
    if (hasId && hasResult != hasError) {
        message.kind = Kind::Response;
        return message;
    }
    message.invalidReason = "a message needs a \"method\" (request or notification) or exactly one of "
                            "\"result\" and \"error\" with an \"id\" (response)";
    return message;
}

json makeResult(const json& id, json result)
{
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json makeError(const json& id, int code, const std::string& message, json data)
{
    json error{{"code", code}, {"message", message}};
    if (!data.is_null())
        error["data"] = std::move(data);
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

json makeNotification(const std::string& method, json params)
{
    json message{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null())
        message["params"] = std::move(params);
    return message;
}

std::string dump(const json& value)
{
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

QByteArray serialize(const json& value)
{
    const auto text = dump(value);
    return QByteArray(text.data(), qsizetype(text.size()));
}

} // namespace JsonRpc
