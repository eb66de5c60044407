#include "adapters/adapterconfig.h"

#include <QRegularExpression>

bool AdapterConfig::isValidName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    return pattern.match(name).hasMatch();
}
