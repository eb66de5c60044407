#include "auth/operatortokens.h"

#include "auth/bearertoken.h"

#include <QCryptographicHash>

QString operatorRoleName(OperatorRole role)
{
    switch (role) {
    case OperatorRole::Viewer:
        return QStringLiteral("viewer");
    case OperatorRole::Answerer:
        return QStringLiteral("answerer");
    case OperatorRole::Admin:
        return QStringLiteral("admin");
    }
    return {};
}

std::optional<OperatorRole> operatorRoleFromName(const QString& name)
{
    for (const OperatorRole role : {OperatorRole::Viewer, OperatorRole::Answerer, OperatorRole::Admin}) {
        if (operatorRoleName(role) == name)
            return role;
    }
    return std::nullopt;
}

OperatorTokens::OperatorTokens(QByteArray defaultToken, QList<Named> named)
    : m_defaultToken(std::move(defaultToken))
    , m_named(std::move(named))
{}

QByteArray OperatorTokens::digestOf(QByteArrayView token)
{
    return QCryptographicHash::hash(token, QCryptographicHash::Sha256);
}

std::optional<OperatorCredential> OperatorTokens::find(QByteArrayView token) const
{
    if (token.isEmpty())
        return std::nullopt;
    std::optional<OperatorCredential> found;
    if (!m_defaultToken.isEmpty() && BearerToken::same(token, m_defaultToken))
        found = OperatorCredential{QStringLiteral("default"), OperatorRole::Admin};
    // Every named digest is compared, whatever matched before.
    const QByteArray digest = digestOf(token);
    for (const Named& named : m_named) {
        if (BearerToken::same(digest, named.sha256) && !found)
            found = OperatorCredential{named.name, named.role};
    }
    return found;
}

std::optional<OperatorCredential> OperatorTokens::fromAuthorization(QByteArrayView authorization) const
{
    return find(BearerToken::of(authorization));
}
