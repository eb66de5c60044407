#include "auth/operatortokens.h"

#include <QCryptographicHash>

namespace {

// Equal, in a time that depends on the lengths only.
bool sameBytes(QByteArrayView presented, QByteArrayView expected)
{
    unsigned difference = unsigned(presented.size() ^ expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        difference |= unsigned(char(expected[i] ^ (i < presented.size() ? presented[i] : 0)));
    return difference == 0;
}

} // namespace

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
    if (!m_defaultToken.isEmpty() && sameBytes(token, m_defaultToken))
        found = OperatorCredential{QStringLiteral("default"), OperatorRole::Admin};
    // Every named digest is compared, whatever matched before.
    const QByteArray digest = digestOf(token);
    for (const Named& named : m_named) {
        if (sameBytes(digest, named.sha256) && !found)
            found = OperatorCredential{named.name, named.role};
    }
    return found;
}

std::optional<OperatorCredential> OperatorTokens::fromAuthorization(QByteArrayView authorization) const
{
    if (authorization.size() < 7 || qstrnicmp(authorization.data(), 7, "bearer ", 7) != 0)
        return std::nullopt;
    return find(authorization.sliced(7).trimmed());
}
