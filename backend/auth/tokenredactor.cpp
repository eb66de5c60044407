#include "auth/tokenredactor.h"

#include <algorithm>
#include <vector>

namespace {

constexpr std::size_t MaximumRewriteDepth = 256;

// Reads JSON text without building it: whether any string (value or key) holds the token once
// unescaped, and how deep the text nests.
struct TokenFinder : nlohmann::json_sax<nlohmann::json>
{
    explicit TokenFinder(const std::string& needle)
        : token(needle)
    {}

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t& value) override { return check(value); }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return enter(); }
    bool key(string_t& value) override { return check(value); }
    bool end_object() override { return leave(); }
    bool start_array(std::size_t) override { return enter(); }
    bool end_array() override { return leave(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override
    {
        invalid = true;
        return false;
    }

    bool check(const std::string& value)
    {
        found = found || value.find(token) != std::string::npos;
        return true;
    }
    bool enter()
    {
        maximumDepth = std::max(maximumDepth, ++depth);
        return true;
    }
    bool leave()
    {
        --depth;
        return true;
    }

    const std::string& token;
    bool found = false;
    bool invalid = false;
    std::size_t depth = 0;
    std::size_t maximumDepth = 0;
};

} // namespace

TokenRedactor::TokenRedactor(QByteArray token)
    : m_token(std::move(token))
    , m_tokenText(QString::fromUtf8(m_token))
    , m_tokenString(m_token.toStdString())
{}

QString TokenRedactor::text(QString value) const
{
    if (!m_token.isEmpty() && value.contains(m_tokenText))
        value.replace(m_tokenText, QLatin1String(marker));
    return value;
}

bool TokenRedactor::redactString(std::string& value) const
{
    bool replaced = false;
    for (std::size_t at = value.find(m_tokenString); at != std::string::npos;
         at = value.find(m_tokenString, at + std::char_traits<char>::length(marker))) {
        value.replace(at, m_tokenString.size(), marker);
        replaced = true;
    }
    return replaced;
}

// Iterative, so a deeply nested value cannot exhaust the stack.
template<typename Json>
bool TokenRedactor::redactTree(Json& root) const
{
    bool replaced = false;
    std::vector<Json*> pending{&root};
    while (!pending.empty()) {
        Json* value = pending.back();
        pending.pop_back();
        if (value->is_string()) {
            replaced = redactString(value->template get_ref<std::string&>()) || replaced;
        } else if (value->is_array()) {
            for (Json& item : *value)
                pending.push_back(&item);
        } else if (value->is_object()) {
            bool keyHolds = false;
            for (const auto& item : value->items())
                keyHolds = keyHolds || item.key().find(m_tokenString) != std::string::npos;
            if (keyHolds) {
                Json rebuilt = Json::object();
                for (auto& item : value->items()) {
                    std::string key = item.key();
                    redactString(key);
                    rebuilt[key] = std::move(item.value());
                }
                *value = std::move(rebuilt);
                replaced = true;
            }
            for (auto& item : value->items())
                pending.push_back(&item.value());
        }
    }
    return replaced;
}

bool TokenRedactor::redactJson(nlohmann::json& value) const
{
    return !m_token.isEmpty() && redactTree(value);
}

bool TokenRedactor::redactJson(nlohmann::ordered_json& value) const
{
    return !m_token.isEmpty() && redactTree(value);
}

QByteArray TokenRedactor::jsonText(QByteArray text) const
{
    if (m_token.isEmpty())
        return text;
    // Without a backslash every string in the text is spelled as it decodes, so the bytes tell.
    if (!text.contains('\\')) {
        if (text.contains(m_token))
            text.replace(m_token, marker);
        return text;
    }
    TokenFinder finder(m_tokenString);
    nlohmann::json::sax_parse(text.constData(), text.constData() + text.size(), &finder);
    if (finder.invalid) {
        text.replace(m_token, marker);
        return text;
    }
    if (!finder.found) {
        if (text.contains(m_token)) // outside strings (a number spelling an all-digit token, say)
            text.replace(m_token, marker);
        return text;
    }
    if (finder.maximumDepth > MaximumRewriteDepth) // too deep to rewrite safely: kept out whole
        return QByteArray("\"") + marker + " (a value holding the token, nested too deeply to show)\"";
    nlohmann::ordered_json value
        = nlohmann::ordered_json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    redactTree(value);
    QByteArray redacted
        = QByteArray::fromStdString(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    redacted.replace(m_token, marker);
    return redacted;
}
