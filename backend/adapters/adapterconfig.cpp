#include "adapters/adapterconfig.h"

#include <QRegularExpression>

QUrl AdapterConfig::effectiveEndpoint(const QUrl& endpoint)
{
    if (!endpoint.isValid() || !endpoint.path().isEmpty())
        return endpoint;
    QUrl withPath = endpoint;
    withPath.setPath(QStringLiteral("/mcp"));
    return withPath;
}

bool AdapterConfig::isValidName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    return pattern.match(name).hasMatch();
}
