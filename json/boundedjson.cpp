#include "boundedjson.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace BoundedJson {

namespace {

// Stands in for nlohmann's DOM builder where the text is only checked: builds nothing.
template<typename Json>
struct NoBuilder
{
    NoBuilder(Json&, bool) {}
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(typename Json::number_integer_t) { return true; }
    bool number_unsigned(typename Json::number_unsigned_t) { return true; }
    bool number_float(typename Json::number_float_t, const typename Json::string_t&) { return true; }
    bool string(typename Json::string_t&) { return true; }
    bool binary(typename Json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(typename Json::string_t&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
};

// Wraps nlohmann's DOM builder to stop parsing as soon as nesting or the number of values exceeds
// its limit: the deep or huge document is never built.
template<typename Json, typename Builder = nlohmann::detail::json_sax_dom_parser<Json>>
class LimitedSax
{
public:
    using number_integer_t = typename Json::number_integer_t;
    using number_unsigned_t = typename Json::number_unsigned_t;
    using number_float_t = typename Json::number_float_t;
    using string_t = typename Json::string_t;
    using binary_t = typename Json::binary_t;

    LimitedSax(Json& root, const Limits& limits)
        : m_builder(root, false)
        , m_maxDepth(std::min(limits.maxDepth, MaxDepth))
        , m_maxValues(limits.maxValues)
    {}

    bool null() { return counted() && m_builder.null(); }
    bool boolean(bool value) { return counted() && m_builder.boolean(value); }
    bool number_integer(number_integer_t value) { return counted() && m_builder.number_integer(value); }
    bool number_unsigned(number_unsigned_t value) { return counted() && m_builder.number_unsigned(value); }
    bool number_float(number_float_t value, const string_t& text)
    {
        return counted() && m_builder.number_float(value, text);
    }
    bool string(string_t& value) { return counted() && m_builder.string(value); }
    bool binary(binary_t& value) { return counted() && m_builder.binary(value); }
    bool start_object(std::size_t elements) { return entered() && m_builder.start_object(elements); }
    bool key(string_t& value) { return m_builder.key(value); }
    bool end_object()
    {
        --m_depth;
        return m_builder.end_object();
    }
    bool start_array(std::size_t elements) { return entered() && m_builder.start_array(elements); }
    bool end_array()
    {
        --m_depth;
        return m_builder.end_array();
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& exception)
    {
        m_problem = Problem::Malformed;
        m_position = position;
        m_error = exception.what();
        // nlohmann's messages start with "[json.exception.parse_error.101] parse error at …"; keep
        // the readable part.
        const auto bracket = m_error.find("] ");
        if (m_error.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
            m_error.erase(0, bracket + 2);
        return false;
    }

    Problem problem() const { return m_problem; }
    const std::string& error() const { return m_error; }
    std::size_t position() const { return m_position; }

private:
    bool counted()
    {
        if (++m_values <= m_maxValues)
            return true;
        m_problem = Problem::TooManyValues;
        m_error = "JSON has more than " + std::to_string(m_maxValues) + " values";
        return false;
    }
    bool entered()
    {
        if (!counted())
            return false;
        if (++m_depth <= m_maxDepth)
            return true;
        m_problem = Problem::TooDeep;
        m_error = "JSON is nested deeper than " + std::to_string(m_maxDepth) + " levels";
        return false;
    }

    Builder m_builder;
    const int m_maxDepth;
    const int m_maxValues;
    int m_depth = 0;
    int m_values = 0;
    Problem m_problem = Problem::None;
    std::string m_error;
    std::size_t m_position = 0;
};

template<typename Json, typename Builder = nlohmann::detail::json_sax_dom_parser<Json>>
Result<Json> parseAs(QByteArrayView text, const Limits& limits)
{
    Result<Json> result;
    if (text.size() > limits.maxBytes) {
        result.problem = Problem::TooLarge;
        result.error = "JSON is larger than " + std::to_string(limits.maxBytes) + " bytes";
        return result;
    }
    LimitedSax<Json, Builder> sax(result.value, limits);
    const auto* begin = reinterpret_cast<const std::uint8_t*>(text.data());
    // Strict: one value and nothing after it but white space.
    if (!Json::sax_parse(begin, begin + text.size(), &sax, nlohmann::json::input_format_t::json, true)) {
        result.value = Json();
        result.problem = sax.problem() == Problem::None ? Problem::Malformed : sax.problem();
        result.error = sax.error().empty() ? std::string("malformed JSON") : sax.error();
        result.position = sax.position();
        return result;
    }
    result.ok = true;
    return result;
}

template<typename Json>
std::string exceededBy(const Json& value, const Limits& limits)
{
    const int maxDepth = std::min(limits.maxDepth, MaxDepth);
    const auto tooMany = "JSON has more than " + std::to_string(limits.maxValues) + " values";
    if (limits.maxValues < 1)
        return tooMany;
    // Depth first, with the values still to visit and their depth on a stack of our own. Values are
    // counted as they are found, so a huge array is refused before its elements are stacked.
    std::vector<std::pair<const Json*, int>> pending{{&value, 0}};
    qint64 values = 1;
    while (!pending.empty()) {
        const auto [current, parentDepth] = pending.back();
        pending.pop_back();
        if (!current->is_structured())
            continue;
        const int depth = parentDepth + 1;
        if (depth > maxDepth)
            return "JSON is nested deeper than " + std::to_string(maxDepth) + " levels";
        values += qint64(current->size());
        if (values > limits.maxValues)
            return tooMany;
        for (const Json& child : *current)
            pending.emplace_back(&child, depth);
    }
    return {};
}

} // namespace

Result<nlohmann::json> parse(QByteArrayView text, const Limits& limits)
{
    return parseAs<nlohmann::json>(text, limits);
}

Result<nlohmann::ordered_json> parseOrdered(QByteArrayView text, const Limits& limits)
{
    return parseAs<nlohmann::ordered_json>(text, limits);
}

std::string refusal(QByteArrayView text, const Limits& limits)
{
    return parseAs<nlohmann::json, NoBuilder<nlohmann::json>>(text, limits).error;
}

std::string exceeded(const nlohmann::json& value, const Limits& limits)
{
    return exceededBy(value, limits);
}

std::string exceeded(const nlohmann::ordered_json& value, const Limits& limits)
{
    return exceededBy(value, limits);
}

} // namespace BoundedJson
