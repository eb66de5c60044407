#pragma once

// OAuthTestServer: an OAuth 2.0 authorization server on 127.0.0.1 written for the tests, on
// QHttpServer. It does what a strict real one does: GET /authorize checks the request (code
// response type, client, a loopback redirect URI, an S256 PKCE challenge) and redirects to the
// client with a code or with error=access_denied; POST /token checks the form, the code (single
// use), the redirect URI and the PKCE verifier against the stored challenge; GET /userinfo checks
// the bearer token. Knobs make it misbehave the ways real servers do.

#include "auth/oauthprovider.h"

#include <QCryptographicHash>
#include <QHostAddress>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QHttpServerResponse>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QUrlQuery>

#include <array>
#include <memory>
#include <vector>

class OAuthTestServer
{
public:
    using StatusCode = QHttpServerResponder::StatusCode;

    struct Issued
    {
        QString challenge;
        QString redirectUri;
        QString clientId;
    };

    // What to answer at /token instead of checking and issuing (status 0: behave).
    struct ForcedReply
    {
        int status = 0;
        QByteArray contentType;
        QByteArray body;
    };

    OAuthTestServer()
    {
        m_server.route(QStringLiteral("/authorize"), QHttpServerRequest::Method::Get,
            [this](const QHttpServerRequest& request) { return answerAuthorize(request); });
        m_server.route(QStringLiteral("/token"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                answerToken(request, std::move(responder));
            });
        m_server.route(QStringLiteral("/userinfo"), QHttpServerRequest::Method::Get,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                answerUserinfo(request, std::move(responder));
            });
        port = m_server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    }

    QUrl url(const char* path) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QLatin1String(path)));
    }

    OAuthProvider provider() const
    {
        OAuthProvider provider;
        provider.name = QStringLiteral("testauth");
        provider.title = QStringLiteral("Test Auth");
        provider.authorizationUrl = url("/authorize");
        provider.tokenUrl = url("/token");
        provider.clientId = clientId;
        provider.clientSecret = clientSecret;
        provider.scopes = {QStringLiteral("read"), QStringLiteral("write")};
        provider.userinfoUrl = url("/userinfo");
        return provider;
    }

    static QString challengeOf(const QString& verifier)
    {
        return QString::fromLatin1(QCryptographicHash::hash(verifier.toLatin1(), QCryptographicHash::Sha256)
                                       .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    }

    // application/x-www-form-urlencoded, '+' included.
    static QUrlQuery parseForm(QByteArray body)
    {
        body.replace('+', "%20");
        return QUrlQuery(QString::fromLatin1(body));
    }

    // Answers the held /token or /userinfo requests now.
    void releaseHeldTokens()
    {
        for (auto& responder : m_heldTokenReplies)
            issueTokens(std::move(*responder));
        m_heldTokenReplies.clear();
    }
    void releaseHeldUserinfo()
    {
        for (auto& responder : m_heldUserinfoReplies)
            sendUserinfo(std::move(*responder));
        m_heldUserinfoReplies.clear();
    }
    // Every token any instance issued and every verifier it saw, for checks that span tests.
    static QStringList& secretsEverSeen()
    {
        static QStringList all;
        return all;
    }

    int heldTokenRequests() const { return int(m_heldTokenReplies.size()); }
    int heldUserinfoRequests() const { return int(m_heldUserinfoReplies.size()); }

    quint16 port = 0;

    // Configuration
    QString clientId = QStringLiteral("switchboard-test");
    QString clientSecret; // checked at /token when set
    QString denyWith; // redirect with this error (access_denied, invalid_scope, …) instead of a code
    ForcedReply forcedTokenReply;
    bool holdTokenReplies = false;
    bool holdUserinfoReplies = false;
    int userinfoStatus = 200;
    QJsonObject userinfo = {{QStringLiteral("email"), QStringLiteral("ada@example.org")},
        {QStringLiteral("login"), QStringLiteral("ada-l")}};
    QString grantedScope; // "scope" in the token response when set
    QJsonObject idTokenClaims; // an (unsigned) id_token in the token response when set

    // What happened
    QUrlQuery lastAuthorizeQuery;
    QString lastAuthorizeError; // why /authorize refused, if it did
    int tokenRequests = 0;
    QUrlQuery lastTokenForm;
    QString lastTokenError; // why /token refused, if it did
    QStringList issuedTokens; // access and refresh tokens, for "never leaked" checks
    QString lastAccessToken;
    QString lastRefreshToken;
    QString lastUserinfoAuthorization;

private:
    static QString randomString()
    {
        std::array<quint32, 6> words{};
        QRandomGenerator::global()->fillRange(words.data(), words.size());
        return QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(words.data()), sizeof(words))
                                       .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    }

    static QHttpServerResponse oauthError(const QString& error, const QString& description)
    {
        return QHttpServerResponse(
            QJsonObject{{QStringLiteral("error"), error}, {QStringLiteral("error_description"), description}},
            StatusCode::BadRequest);
    }

    QHttpServerResponse refuseAuthorize(const QString& why)
    {
        lastAuthorizeError = why;
        return QHttpServerResponse(QStringLiteral("bad authorization request: ") + why, StatusCode::BadRequest);
    }

    QHttpServerResponse answerAuthorize(const QHttpServerRequest& request)
    {
        const QUrlQuery query = request.query();
        lastAuthorizeQuery = query;
        auto value
            = [&query](const char* key) { return query.queryItemValue(QString::fromLatin1(key), QUrl::FullyDecoded); };
        if (value("response_type") != QLatin1String("code"))
            return refuseAuthorize(QStringLiteral("response_type must be code"));
        if (value("client_id") != clientId)
            return refuseAuthorize(QStringLiteral("unknown client_id"));
        const QUrl redirect(value("redirect_uri"), QUrl::StrictMode);
        const QHostAddress redirectHost(redirect.host());
        if (redirect.scheme() != QLatin1String("http") || redirectHost.isNull() || !redirectHost.isLoopback()
            || redirect.port() <= 0)
            return refuseAuthorize(QStringLiteral("redirect_uri must be http on a loopback address with a port"));
        if (value("code_challenge_method") != QLatin1String("S256"))
            return refuseAuthorize(QStringLiteral("code_challenge_method must be S256"));
        static const QRegularExpression challengeShape(QStringLiteral("^[A-Za-z0-9_-]{43}$"));
        if (!challengeShape.match(value("code_challenge")).hasMatch())
            return refuseAuthorize(QStringLiteral("code_challenge must be a base64url SHA-256"));
        const QString state = value("state");
        if (state.isEmpty())
            return refuseAuthorize(QStringLiteral("state is required"));

        QUrlQuery back;
        if (!denyWith.isEmpty()) {
            back.addQueryItem(QStringLiteral("error"), denyWith);
            back.addQueryItem(QStringLiteral("error_description"), QStringLiteral("The resource owner said no"));
        } else {
            const QString code = randomString();
            m_codes.insert(code, Issued{value("code_challenge"), value("redirect_uri"), value("client_id")});
            back.addQueryItem(QStringLiteral("code"), code);
        }
        back.addQueryItem(QStringLiteral("state"), QString::fromLatin1(QUrl::toPercentEncoding(state)));
        QUrl location = redirect;
        location.setQuery(back);
        QHttpServerResponse response(StatusCode::Found);
        response.setHeader("Location", location.toEncoded());
        return response;
    }

    QHttpServerResponse checkTokenRequest(const QHttpServerRequest& request)
    {
        if (!request.value("Content-Type").startsWith("application/x-www-form-urlencoded"))
            return oauthError(QStringLiteral("invalid_request"), QStringLiteral("form body expected"));
        const QUrlQuery form = parseForm(request.body());
        lastTokenForm = form;
        auto value
            = [&form](const char* key) { return form.queryItemValue(QString::fromLatin1(key), QUrl::FullyDecoded); };
        if (value("grant_type") != QLatin1String("authorization_code"))
            return oauthError(QStringLiteral("unsupported_grant_type"), value("grant_type"));
        const auto issued = m_codes.constFind(value("code"));
        if (issued == m_codes.cend())
            return oauthError(QStringLiteral("invalid_grant"), QStringLiteral("unknown or used code"));
        if (value("client_id") != issued->clientId)
            return oauthError(QStringLiteral("invalid_client"), QStringLiteral("client_id differs"));
        if (!clientSecret.isEmpty() && value("client_secret") != clientSecret)
            return oauthError(QStringLiteral("invalid_client"), QStringLiteral("wrong client_secret"));
        if (value("redirect_uri") != issued->redirectUri)
            return oauthError(QStringLiteral("invalid_grant"), QStringLiteral("redirect_uri differs"));
        const QString verifier = value("code_verifier");
        if (!verifier.isEmpty())
            secretsEverSeen() << verifier;
        static const QRegularExpression verifierShape(QStringLiteral("^[A-Za-z0-9._~-]{43,128}$"));
        if (!verifierShape.match(verifier).hasMatch())
            return oauthError(QStringLiteral("invalid_grant"), QStringLiteral("code_verifier missing or malformed"));
        if (challengeOf(verifier) != issued->challenge)
            return oauthError(QStringLiteral("invalid_grant"), QStringLiteral("PKCE verification failed"));
        m_codes.erase(issued); // single use, once redeemed
        return QHttpServerResponse(StatusCode::Ok);
    }

    void answerToken(const QHttpServerRequest& request, QHttpServerResponder&& responder)
    {
        ++tokenRequests;
        const QHttpServerResponse checked = checkTokenRequest(request);
        if (checked.statusCode() != StatusCode::Ok) {
            lastTokenError = QString::fromUtf8(checked.data());
            checked.write(std::move(responder));
            return;
        }
        if (forcedTokenReply.status != 0) {
            responder.write(forcedTokenReply.body, forcedTokenReply.contentType, StatusCode(forcedTokenReply.status));
            return;
        }
        if (holdTokenReplies) {
            m_heldTokenReplies.push_back(std::make_unique<QHttpServerResponder>(std::move(responder)));
            return;
        }
        issueTokens(std::move(responder));
    }

    void issueTokens(QHttpServerResponder&& responder)
    {
        lastAccessToken = QStringLiteral("at-") + randomString();
        lastRefreshToken = QStringLiteral("rt-") + randomString();
        issuedTokens << lastAccessToken << lastRefreshToken;
        secretsEverSeen() << lastAccessToken << lastRefreshToken;
        QJsonObject body{{QStringLiteral("access_token"), lastAccessToken},
            {QStringLiteral("token_type"), QStringLiteral("Bearer")}, {QStringLiteral("expires_in"), 3600},
            {QStringLiteral("refresh_token"), lastRefreshToken}};
        if (!grantedScope.isEmpty())
            body.insert(QStringLiteral("scope"), grantedScope);
        if (!idTokenClaims.isEmpty()) {
            auto part = [](const QByteArray& json) {
                return json.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
            };
            body.insert(QStringLiteral("id_token"),
                QString::fromLatin1(part(R"({"alg":"none"})") + '.'
                    + part(QJsonDocument(idTokenClaims).toJson(QJsonDocument::Compact)) + '.'));
        }
        responder.write(QJsonDocument(body));
    }

    void answerUserinfo(const QHttpServerRequest& request, QHttpServerResponder&& responder)
    {
        lastUserinfoAuthorization = QString::fromLatin1(request.value("Authorization"));
        if (lastAccessToken.isEmpty() || lastUserinfoAuthorization != QStringLiteral("Bearer ") + lastAccessToken) {
            responder.write(QJsonDocument(QJsonObject{{QStringLiteral("error"), QStringLiteral("invalid_token")}}),
                StatusCode::Unauthorized);
            return;
        }
        if (holdUserinfoReplies) {
            m_heldUserinfoReplies.push_back(std::make_unique<QHttpServerResponder>(std::move(responder)));
            return;
        }
        sendUserinfo(std::move(responder));
    }

    void sendUserinfo(QHttpServerResponder&& responder)
    {
        if (userinfoStatus != 200) {
            responder.write(QByteArray("upstream trouble"), QByteArray("text/plain"), StatusCode(userinfoStatus));
            return;
        }
        responder.write(QJsonDocument(userinfo));
    }

    QHttpServer m_server;
    QHash<QString, Issued> m_codes;
    std::vector<std::unique_ptr<QHttpServerResponder>> m_heldTokenReplies;
    std::vector<std::unique_ptr<QHttpServerResponder>> m_heldUserinfoReplies;
};
