#pragma once

// TokenRedactor: keeps the server's bearer token out of everything the console shows, prints or
// stores (call records, history, headless lines, the workspace state). It compares decoded values,
// never raw bytes alone: a JSON string that spells one character of the token as an escape
// ("\u0041") still names the token, so JSON text is searched string by string after unescaping,
// object keys included.

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

class TokenRedactor
{
public:
    // Stands in for the token wherever it was.
    static constexpr const char* marker = "[redacted]";

    TokenRedactor() = default; // redacts nothing (no token: --no-auth)
    explicit TokenRedactor(QByteArray token);

    bool isActive() const { return !m_token.isEmpty(); }

    // A decoded value: a name, client info, an error message.
    QString text(QString value) const;
    // JSON text (a request or response as sent): every string value and key, compared after
    // unescaping. The text comes back unchanged unless it held the token; then it is serialised
    // again (same key order) with the token replaced. Text that is not JSON is redacted as bytes.
    QByteArray jsonText(QByteArray text) const;
    // A parsed value, in place; true when anything was replaced.
    bool redactJson(nlohmann::json& value) const;
    bool redactJson(nlohmann::ordered_json& value) const;

private:
    bool redactString(std::string& value) const;
    template<typename Json>
    bool redactTree(Json& root) const;

    QByteArray m_token;
    QString m_tokenText;
    std::string m_tokenString;
};
