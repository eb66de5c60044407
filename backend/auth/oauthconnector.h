#pragma once

// OAuthConnector: one OAuth 2.0 sign-in for the connect widget: the authorization code grant with
// PKCE (S256) and a loopback redirect (RFC 8252), run by Qt NetworkAuth. start() opens a listener
// on 127.0.0.1 and emits authorizationUrlReady(); the UI opens that URL in the browser (the backend
// never does). The flow ends exactly once, in connected() or failed(), and the listener is closed
// then, however it ended. One object per attempt; delete it with deleteLater().

#include "auth/oauthprovider.h"
#include "auth/oauthresult.h"

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <chrono>

class LoopbackReplyHandler;
class QNetworkAccessManager;
class QNetworkReply;
class QOAuth2AuthorizationCodeFlow;

class OAuthConnector : public QObject
{
    Q_OBJECT
public:
    explicit OAuthConnector(OAuthProvider provider, QObject* parent = nullptr);
    ~OAuthConnector() override;

    const OAuthProvider& provider() const { return m_provider; }

    // Scopes to request instead of the provider's defaults (request_connection's `scopes`).
    void setScopes(const QStringList& scopes);
    QStringList scopes() const { return m_scopes; }

    // How long the whole sign-in may take, from start() to the account; set it before start().
    // Default: 5 minutes.
    void setTimeout(std::chrono::milliseconds timeout);
    std::chrono::milliseconds timeout() const { return m_timeout; }

    // http://127.0.0.1:<port>/callback once start() has opened the listener; empty before.
    QUrl redirectUri() const;
    // What authorizationUrlReady() carried; empty before start().
    QUrl authorizationUrl() const { return m_authorizationUrl; }
    bool isListening() const;
    bool isFinished() const { return m_finished; }

public Q_SLOTS:
    // Opens the loopback listener and emits authorizationUrlReady(), or failed() if the provider
    // is unusable or no port can be opened. Only the first call does anything.
    void start();
    // Ends the sign-in with failed(Cancelled): closes the listener, aborts requests in flight.
    void cancel();

Q_SIGNALS:
    void authorizationUrlReady(const QUrl& url);
    void connected(const OAuthResult& result);
    void failed(const OAuthFailure& failure);

private:
    void handleCallback(const QVariantMap& data);
    void keepTokenResponse(const QVariantMap& values);
    void fetchAccount();
    void userinfoFinished();
    void succeed(const QString& account);
    void fail(OAuthFailure::Reason reason, const QString& message);
    void stop();
    QString accountFromIdToken() const;

    OAuthProvider m_provider;
    QStringList m_scopes;
    std::chrono::milliseconds m_timeout;
    QNetworkAccessManager* m_network;
    QOAuth2AuthorizationCodeFlow* m_flow = nullptr;
    LoopbackReplyHandler* m_handler = nullptr;
    QTimer m_deadline;
    QPointer<QNetworkReply> m_userinfoReply;
    QUrl m_authorizationUrl;
    QString m_state; // our own CSPRNG value: Qt 6.4 does not report a mismatch, so we check it
    QByteArray m_codeVerifier; // secret until the token request is sent
    QString m_idToken; // kept only to name the account
    QString m_grantedScope;
    bool m_started = false;
    bool m_callbackAccepted = false;
    bool m_finished = false;
};
