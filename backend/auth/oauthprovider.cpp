#include "auth/oauthprovider.h"

#include <QHostAddress>

QStringList OAuthProvider::defaultAccountFields()
{
    return {QStringLiteral("email"), QStringLiteral("preferred_username"), QStringLiteral("login"),
        QStringLiteral("name"), QStringLiteral("sub")};
}

bool OAuthProvider::isReservedAuthorizationParameter(const QString& key)
{
    static const QStringList reserved = {QStringLiteral("response_type"), QStringLiteral("client_id"),
        QStringLiteral("redirect_uri"), QStringLiteral("scope"), QStringLiteral("state"),
        QStringLiteral("code_challenge"), QStringLiteral("code_challenge_method")};
    return reserved.contains(key);
}

QString OAuthProvider::checkEndpoint(const QUrl& url)
{
    if (!url.isValid() || url.isRelative() || url.host().isEmpty())
        return QStringLiteral("must be an absolute http(s) URL");
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("https"))
        return {};
    if (scheme != QLatin1String("http"))
        return QStringLiteral("must be an https URL, not %1").arg(scheme);
    const QString host = url.host().toLower();
    const QHostAddress address(host);
    if (host == QLatin1String("localhost") || (!address.isNull() && address.isLoopback()))
        return {};
    return QStringLiteral("must be an https URL (http is allowed only for loopback hosts)");
}

QString OAuthProvider::validate() const
{
    if (name.isEmpty())
        return QStringLiteral("name is required");
    if (clientId.isEmpty())
        return QStringLiteral("clientId is required");
    const std::pair<const char*, const QUrl*> required[]
        = {{"authorizationUrl", &authorizationUrl}, {"tokenUrl", &tokenUrl}};
    for (const auto& [key, url] : required) {
        if (url->isEmpty())
            return QString::fromLatin1(key) + QStringLiteral(" is required");
        const QString problem = checkEndpoint(*url);
        if (!problem.isEmpty())
            return QString::fromLatin1(key) + QLatin1Char(' ') + problem;
    }
    if (!userinfoUrl.isEmpty()) {
        const QString problem = checkEndpoint(userinfoUrl);
        if (!problem.isEmpty())
            return QStringLiteral("userinfoUrl ") + problem;
    }
    for (auto it = authorizationParameters.cbegin(); it != authorizationParameters.cend(); ++it) {
        if (isReservedAuthorizationParameter(it.key()))
            return QStringLiteral("authorizationParameters must not set %1 (the flow sets it)").arg(it.key());
    }
    return {};
}
