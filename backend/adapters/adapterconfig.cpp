#include "adapters/adapterconfig.h"

#include "tools/toolspec.h"

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
    return ToolSpec::isValidOwnerName(name);
}
