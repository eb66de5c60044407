#pragma once

// OAuthProvider: one OAuth 2.0 authorization server the connect widget can sign in to, as the
// operator configures it (`oauthProviders:` in the configuration). A plain value type; the flow
// itself is OAuthConnector's.

#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QUrl>

struct OAuthProvider
{
    QString name; // what request_connection's `provider` argument names, e.g. "github"
    QString title; // what the person reads, e.g. "GitHub"; the name when not configured
    QUrl authorizationUrl;
    QUrl tokenUrl;
    QString clientId;
    QString clientSecret; // empty for public clients, which rely on PKCE alone
    QStringList scopes; // requested when the call asks for none
    QUrl userinfoUrl; // optional: GET with the access token names the account
    QString accountField; // optional: which userinfo field names the account
    QMap<QString, QString> authorizationParameters; // extra query items, e.g. prompt=consent

    QString displayTitle() const { return title.isEmpty() ? name : title; }

    // The userinfo fields tried in order when accountField is not configured.
    static QStringList defaultAccountFields();

    // Parameters the flow sets itself (client, redirect, state, scope, PKCE): configuring one would
    // break or weaken the flow, so configuration refuses them.
    static bool isReservedAuthorizationParameter(const QString& key);

    // Empty when `url` may carry authorization traffic: https anywhere, or http to a loopback
    // host only (codes and tokens must not cross a network in clear text). Otherwise the reason.
    static QString checkEndpoint(const QUrl& url);

    // Empty when the provider can run a flow; otherwise the first problem, naming the field.
    QString validate() const;
};

Q_DECLARE_METATYPE(OAuthProvider)
