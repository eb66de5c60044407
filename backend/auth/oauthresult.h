#pragma once

// OAuthResult and OAuthFailure: how one OAuth sign-in (OAuthConnector) ends. Plain value types for
// queued signals. OAuthResult carries secrets (the tokens): hand them to the secret store and drop
// them; never log them or put them in anything a client or the call log sees.

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>

struct OAuthResult
{
    QString provider; // OAuthProvider::name
    QString account; // who signed in, for display; the provider's name when nothing better is known
    QString accessToken; // secret
    QString refreshToken; // secret; empty when the server issued none
    QDateTime expiresAt; // UTC; invalid when the server did not say
    QStringList scopes; // granted; the requested ones when the server did not say
};

struct OAuthFailure
{
    enum class Reason {
        Declined, // the person (or the server) said no: error=access_denied
        Cancelled, // OAuthConnector::cancel()
        Timeout, // no answer within the connector's timeout
        Error, // anything else: unreachable endpoints, protocol errors, forged redirects
    };
    Reason reason = Reason::Error;
    QString message; // for the person; never contains a token or the code verifier

    // "declined", "cancelled", "timeout" or "error", as request_connection reports it.
    static QString reasonName(Reason reason);
};

Q_DECLARE_METATYPE(OAuthResult)
Q_DECLARE_METATYPE(OAuthFailure)
