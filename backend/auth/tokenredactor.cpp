#include "auth/tokenredactor.h"

#include "boundedjson.h"
#include "policy/giturlpolicy.h"

#include <algorithm>
#include <vector>

namespace {

// Reads JSON text without building it (nlohmann's SAX parser keeps its nesting on the heap and
// builds nothing): whether any string (value or key) matches once unescaped.
template<typename Matches>
struct StringFinder : nlohmann::json_sax<nlohmann::json>
{
    explicit StringFinder(Matches predicate)
        : matches(std::move(predicate))
    {}

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t& value) override { return check(value); }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t& value) override { return check(value); }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override
    {
        invalid = true;
        return false;
    }

    bool check(const std::string& value)
    {
        found = found || matches(value);
        return true;
    }

    Matches matches;
    bool found = false;
    bool invalid = false;
};

template<typename Matches>
StringFinder<Matches> findStrings(const QByteArray& text, Matches matches)
{
    StringFinder<Matches> finder(std::move(matches));
    // json-parse-check: allowed, a scan that builds nothing (no depth or value to bound)
    nlohmann::json::sax_parse(text.constData(), text.constData() + text.size(), &finder);
    return finder;
}

QByteArray dumped(const nlohmann::ordered_json& value)
{
    return QByteArray::fromStdString(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// A URL's user info ends at an '@'; "%40" is taken as one too (GitUrlPolicy::redact).
bool mayHoldUrlCredentials(const std::string& value)
{
    return (value.find('@') != std::string::npos || value.find("%40") != std::string::npos)
        && value.find(':') != std::string::npos;
}

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
    return GitUrlPolicy::redact(value);
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

bool TokenRedactor::redactUrlCredentials(std::string& value)
{
    if (!mayHoldUrlCredentials(value))
        return false;
    const QByteArray before = QByteArray::fromStdString(value);
    const QByteArray after = GitUrlPolicy::redact(before);
    if (after == before)
        return false;
    value = after.toStdString();
    return true;
}

// Iterative, so a deeply nested value cannot exhaust the stack.
template<typename Json, typename Redact>
bool TokenRedactor::redactTree(Json& root, const Redact& redact)
{
    bool replaced = false;
    std::vector<Json*> pending{&root};
    while (!pending.empty()) {
        Json* value = pending.back();
        pending.pop_back();
        if (value->is_string()) {
            replaced = redact(value->template get_ref<std::string&>()) || replaced;
        } else if (value->is_array()) {
            for (Json& item : *value)
                pending.push_back(&item);
        } else if (value->is_object()) {
            bool keyHolds = false;
            for (const auto& item : value->items()) {
                std::string key = item.key();
                keyHolds = keyHolds || redact(key);
            }
            if (keyHolds) {
                Json rebuilt = Json::object();
                for (auto& item : value->items()) {
                    std::string key = item.key();
                    redact(key);
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
    const bool token
        = !m_token.isEmpty() && redactTree(value, [this](std::string& text) { return redactString(text); });
    return redactTree(value, &TokenRedactor::redactUrlCredentials) || token;
}

bool TokenRedactor::redactJson(nlohmann::ordered_json& value) const
{
    const bool token
        = !m_token.isEmpty() && redactTree(value, [this](std::string& text) { return redactString(text); });
    return redactTree(value, &TokenRedactor::redactUrlCredentials) || token;
}

QByteArray TokenRedactor::jsonText(QByteArray text) const
{
    if (!m_token.isEmpty())
        text = withoutToken(std::move(text));
    return withoutUrlCredentials(std::move(text));
}

QByteArray TokenRedactor::withoutToken(QByteArray text) const
{
    // Without a backslash every string in the text is spelled as it decodes, so the bytes tell.
    if (!text.contains('\\')) {
        if (text.contains(m_token))
            text.replace(m_token, marker);
        return text;
    }
    const auto finder = findStrings(
        text, [this](const std::string& value) { return value.find(m_tokenString) != std::string::npos; });
    if (finder.invalid) {
        text.replace(m_token, marker);
        return text;
    }
    if (!finder.found) {
        if (text.contains(m_token)) // outside strings (a number spelling an all-digit token, say)
            text.replace(m_token, marker);
        return text;
    }
    BoundedJson::Result<nlohmann::ordered_json> parsed = BoundedJson::parseOrdered(text, BoundedJson::Limits::record());
    if (!parsed.ok) // too deep or too large to rewrite safely: kept out whole
        return QByteArray("\"") + marker + " (a value holding the token, too deep or too large to show)\"";
    nlohmann::ordered_json& value = parsed.value;
    redactTree(value, [this](std::string& string) { return redactString(string); });
    QByteArray redacted = dumped(value);
    redacted.replace(m_token, marker);
    return redacted;
}

QByteArray TokenRedactor::withoutUrlCredentials(QByteArray text)
{
    // A URL's credentials end at an '@', which JSON may spell "\u0040" (and a client "%40"): values
    // are compared decoded. Text with none of them (most of it) costs these three searches.
    if (!text.contains('@') && !text.contains("\\u0040") && !text.contains("%40"))
        return text;
    // Without \u escapes every string is spelled as it decodes, but for escapes GitUrlPolicy::redact
    // reads as what they stand for (\/, \", \n, ...): replaced in the bytes, the text stays the same
    // JSON, formatting and all.
    if (!text.contains("\\u"))
        return GitUrlPolicy::redact(text);
    // A \u escape may spell any character of a URL: the strings are compared decoded, and the text is
    // serialised again if one held credentials. "://" with a literal ':' starts ":/" or ":\/";
    // any other spelling needs a \u00XX escape.
    if (!text.contains(":/") && !text.contains(":\\/") && !text.contains("\\u00"))
        return text;
    const auto finder = findStrings(text, [](const std::string& value) {
        if (!mayHoldUrlCredentials(value))
            return false;
        std::string copy = value;
        return redactUrlCredentials(copy);
    });
    if (finder.invalid)
        return GitUrlPolicy::redact(text);
    if (!finder.found)
        return text;
    BoundedJson::Result<nlohmann::ordered_json> parsed = BoundedJson::parseOrdered(text, BoundedJson::Limits::record());
    if (!parsed.ok) // too deep or too large to rewrite safely: kept out whole
        return QByteArray("\"") + marker + " (a value holding URL credentials, too deep or too large to show)\"";
    nlohmann::ordered_json& value = parsed.value;
    redactTree(value, &TokenRedactor::redactUrlCredentials);
    return dumped(value);
}
