#pragma once

// TokenRedactor: keeps the server's bearer token out of everything the console shows, prints or
// stores (call records, history, headless lines, the workspace state). It compares decoded values,
// never raw bytes alone: a JSON string that spells one character of the token as an escape
// ("\u0041") still names the token, so JSON text is searched string by string after unescaping,
// object keys included.
//
// It also removes the credentials of URLs (https://TOKEN@host, ssh://git:secret@host; see
// GitUrlPolicy::redact), with or without a bearer token: a git remote's token passed as an
// argument or echoed in a result must not reach the same places. Text without '@' costs a memchr.

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

class TokenRedactor
{
public:
    // Stands in for the token wherever it was.
    static constexpr const char* marker = "[redacted]";

    TokenRedactor() = default; // no token (--no-auth): redacts only URL credentials
    explicit TokenRedactor(QByteArray token);

    // Whether a bearer token is redacted (URL credentials always are).
    bool isActive() const { return !m_token.isEmpty(); }

    // A decoded value: a name, client info, an error message.
    QString text(QString value) const;
    // JSON text (a request or response as sent): every string value and key, compared after
    // unescaping. The text comes back unchanged unless it held the token or a URL's credentials;
    // then it is serialised again (same key order) with them replaced, so it stays valid JSON. Text
    // that is not JSON is redacted as bytes.
    QByteArray jsonText(QByteArray text) const;
    // A parsed value, in place; true when anything was replaced.
    bool redactJson(nlohmann::json& value) const;
    bool redactJson(nlohmann::ordered_json& value) const;

private:
    bool redactString(std::string& value) const;
    static bool redactUrlCredentials(std::string& value);
    template<typename Json, typename Redact>
    static bool redactTree(Json& root, const Redact& redact);
    QByteArray withoutToken(QByteArray text) const;
    static QByteArray withoutUrlCredentials(QByteArray text);

    QByteArray m_token;
    QString m_tokenText;
    std::string m_tokenString;
};
