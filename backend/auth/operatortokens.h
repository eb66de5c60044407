#pragma once

// OperatorTokens: the credentials that open the operator API, each with a role. The default one
// (SWITCHBOARD_OPERATOR_TOKEN, else <state-dir>/operator-token) is an admin named "default"; the
// configuration's `operator.tokens` add named ones by the SHA-256 of their token. MCP clients'
// tokens are none of these: an agent cannot answer its own approvals.

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

enum class OperatorRole {
    Viewer, // reads state, history and the event stream
    Answerer, // also answers questions
    Admin, // also breakers, adapters, grants, sessions, configuration
};

QString operatorRoleName(OperatorRole role);
std::optional<OperatorRole> operatorRoleFromName(const QString& name);

struct OperatorCredential
{
    QString name; // "default", or the configured name
    OperatorRole role = OperatorRole::Viewer;
    // What answers given with it are recorded as.
    QString recordedAs() const { return QStringLiteral("operator:") + name; }
    bool mayDo(OperatorRole needed) const { return int(role) >= int(needed); }
};

class OperatorTokens
{
public:
    struct Named
    {
        QString name;
        OperatorRole role = OperatorRole::Viewer;
        QByteArray sha256; // the 32 bytes of the token's digest
    };

    OperatorTokens() = default;
    // `defaultToken` empty: only the named ones open the API.
    OperatorTokens(QByteArray defaultToken, QList<Named> named);

    // The credential `token` (the bearer value) is, if any. Takes as long for every wrong token of a
    // length, and for every named one, whatever matched.
    std::optional<OperatorCredential> find(QByteArrayView token) const;
    // From an Authorization header's value ("Bearer …").
    std::optional<OperatorCredential> fromAuthorization(QByteArrayView authorization) const;
    bool isEmpty() const { return m_defaultToken.isEmpty() && m_named.isEmpty(); }

    static QByteArray digestOf(QByteArrayView token);

private:
    QByteArray m_defaultToken;
    QList<Named> m_named;
};
