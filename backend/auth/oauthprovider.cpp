#include "auth/oauthprovider.h"

#include <QHostAddress>

QStringList OAuthProvider::defaultAccountFields()
{
    return {QStringLiteral("email"), QStringLiteral("preferred_username"), QStringLiteral("login"),
        QStringLiteral("name"), QStringLiteral("sub")};
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
    return {};
}
