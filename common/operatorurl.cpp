#include "operatorurl.h"

namespace OperatorUrl {

std::optional<QUrl> base(const QString& text, QString* error)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        *error = QStringLiteral("the server's URL is empty");
        return std::nullopt;
    }
    QUrl url(trimmed.contains(QLatin1String("://")) ? trimmed : QStringLiteral("http://") + trimmed, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || url.host().isEmpty()) {
        *error = QStringLiteral("\"%1\" is not a server's URL (say http://host:port)").arg(trimmed);
        return std::nullopt;
    }
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https")) {
        *error = QStringLiteral("\"%1\" is not an http or https URL").arg(trimmed);
        return std::nullopt;
    }
    if (!url.userInfo().isEmpty()) {
        // A URL is printed in messages and kept in shell history: no credential belongs in it.
        *error = QStringLiteral("the server's URL holds a user or password; give the operator token in "
                                "SWITCHBOARD_OPERATOR_TOKEN instead");
        return std::nullopt;
    }
    if (url.hasQuery() || url.hasFragment()) {
        *error = QStringLiteral("\"%1\" has a query or fragment; say http://host:port").arg(trimmed);
        return std::nullopt;
    }
    QString path = url.path(QUrl::FullyEncoded);
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    for (const QString& suffix : {ApiPath, QStringLiteral("/mcp")}) {
        if (path.endsWith(suffix)) {
            path.chop(suffix.size());
            break;
        }
    }
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    url.setScheme(scheme);
    url.setPath(path, QUrl::TolerantMode);
    return url;
}

QUrl endpoint(const QUrl& base, const QString& pathAndQuery)
{
    QUrl url = base;
    const qsizetype query = pathAndQuery.indexOf(QLatin1Char('?'));
    url.setPath(base.path(QUrl::FullyEncoded) + ApiPath + QLatin1Char('/')
            + (query < 0 ? pathAndQuery : pathAndQuery.left(query)),
        QUrl::TolerantMode);
    if (query >= 0)
        url.setQuery(pathAndQuery.mid(query + 1), QUrl::TolerantMode);
    return url;
}

} // namespace OperatorUrl
