#include "mcp/jsonrpc.h"

namespace JsonRpc {

namespace {

// Wraps nlohmann's DOM builder to stop parsing as soon as nesting or the number of values exceeds
// its limit: the deep or huge document is never built, so a hostile body cannot exhaust the stack
// or the heap.
class LimitedSax
{
public:
    LimitedSax(json& root, const ParseLimits& limits)
        : m_builder(root, false)
        , m_maxDepth(limits.maxDepth)
        , m_maxValues(limits.maxValues)
    {}

    bool null() { return counted() && m_builder.null(); }
    bool boolean(bool value) { return counted() && m_builder.boolean(value); }
    bool number_integer(json::number_integer_t value) { return counted() && m_builder.number_integer(value); }
    bool number_unsigned(json::number_unsigned_t value) { return counted() && m_builder.number_unsigned(value); }
    bool number_float(json::number_float_t value, const json::string_t& text)
    {
        return counted() && m_builder.number_float(value, text);
    }
    bool string(json::string_t& value) { return counted() && m_builder.string(value); }
    bool binary(json::binary_t& value) { return counted() && m_builder.binary(value); }
    bool start_object(std::size_t elements)
    {
        if (!counted())
            return false;
        if (++m_depth > m_maxDepth) {
            m_error = "JSON is nested deeper than " + std::to_string(m_maxDepth) + " levels";
            return false;
        }
        return m_builder.start_object(elements);
    }
    bool key(json::string_t& value) { return m_builder.key(value); }
    bool end_object()
    {
        --m_depth;
        return m_builder.end_object();
    }
    bool start_array(std::size_t elements)
    {
        if (!counted())
            return false;
        if (++m_depth > m_maxDepth) {
            m_error = "JSON is nested deeper than " + std::to_string(m_maxDepth) + " levels";
            return false;
        }
        return m_builder.start_array(elements);
    }
    bool end_array()
    {
        --m_depth;
        return m_builder.end_array();
    }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex)
    {
        (void)position;
        (void)token;
        m_error = ex.what();
        return false;
    }

    const std::string& error() const { return m_error; }

private:
    bool counted()
    {
        if (++m_values <= m_maxValues)
            return true;
        m_error = "JSON has more than " + std::to_string(m_maxValues) + " values";
        return false;
    }

    nlohmann::detail::json_sax_dom_parser<json> m_builder;
    int m_maxDepth;
    int m_maxValues;
    int m_depth = 0;
    int m_values = 0;
    std::string m_error;
};

bool isValidId(const json& id)
{
    return id.is_string() || id.is_number_integer();
}

} // namespace

ParseResult parse(const QByteArray& body, const ParseLimits& limits)
{
    ParseResult result;
    LimitedSax sax(result.value, limits);
    const auto* begin = reinterpret_cast<const std::uint8_t*>(body.constData());
    const bool ok = json::sax_parse(begin, begin + body.size(), &sax, json::input_format_t::json, true);
    if (!ok) {
        result.value = json();
        result.error = sax.error().empty() ? std::string("malformed JSON") : sax.error();
        // nlohmann's messages start with "[json.exception.parse_error.101] parse error at …"; keep
        // the readable part.
        const auto bracket = result.error.find("] ");
        if (result.error.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
            result.error.erase(0, bracket + 2);
        return result;
    }
    result.ok = true;
    return result;
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
