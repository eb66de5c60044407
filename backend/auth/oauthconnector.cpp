#include "auth/oauthconnector.h"

#include "auth/loopbackreplyhandler.h"
#include "boundedjson.h"

#include <QCryptographicHash>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QOAuth2AuthorizationCodeFlow>
#include <QRandomGenerator>
#include <QRegularExpression>

using namespace std::chrono_literals;

namespace {

Q_LOGGING_CATEGORY(lcOAuth, "switchboard.oauth")

// base64url of `bytes` random bytes from the system's CSPRNG: only unreserved characters.
QByteArray randomToken(int words)
{
    QByteArray raw(words * int(sizeof(quint32)), Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(raw.data()), words);
    return raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// What the browser shows after the redirect. Written before the flow's outcome is known, so it
// only says what this redirect did.
const char* const pageAccepted = "Switchboard received the sign-in. You can close this window.";
const char* const pageDeclined = "The sign-in was declined. You can close this window.";
const char* const pageRejected
    = "This response does not belong to the sign-in Switchboard started and was rejected. You can close this window.";
const char* const pageDuplicate = "Switchboard already has this sign-in. You can close this window.";

QString describe(std::chrono::milliseconds duration)
{
    if (duration >= 2min && duration % 1min == 0ms)
        return QStringLiteral("%1 minutes").arg(duration / 1min);
    return QStringLiteral("%1 s").arg(double(duration.count()) / 1000.0);
}

// The account named by a userinfo answer or an ID token's claims (JSON text from the provider): the
// first of the fields that holds a string or a number.
QString accountFrom(const QByteArray& text, const QString& configuredField)
{
    const BoundedJson::Result<nlohmann::json> parsed = BoundedJson::parse(text, BoundedJson::Limits::message());
    if (!parsed.value.is_object())
        return {};
    const QStringList fields
        = configuredField.isEmpty() ? OAuthProvider::defaultAccountFields() : QStringList{configuredField};
    for (const QString& field : fields) {
        const auto it = parsed.value.find(field.toStdString());
        if (it == parsed.value.end())
            continue;
        QString value;
        if (it->is_string())
            value = QString::fromStdString(it->get<std::string>());
        else if (it->is_number_integer())
            value = QString::number(it->get<qint64>());
        else if (it->is_number_unsigned())
            value = QString::number(it->get<quint64>());
        else if (it->is_number_float())
            value = QString::number(it->get<double>(), 'g', 17);
        else if (it->is_boolean())
            value = it->get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
        value = value.simplified();
        if (!value.isEmpty())
            return value;
    }
    return {};
}

} // namespace

OAuthConnector::OAuthConnector(OAuthProvider provider, QObject* parent)
    : QObject(parent)
    , m_provider(std::move(provider))
    , m_scopes(m_provider.scopes)
    , m_timeout(5min)
    , m_network(new QNetworkAccessManager(this))
{
    // A redirect would carry the bearer token (userinfo) or the code (token request) to wherever
    // it points; endpoints are configured exactly, so a redirect is an error here.
    m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        fail(OAuthFailure::Reason::Timeout,
            QStringLiteral("No sign-in with %1 within %2.").arg(m_provider.displayTitle(), describe(m_timeout)));
    });
}

OAuthConnector::~OAuthConnector()
{
    // Destroying a connector mid-flow ends it quietly: nobody is listening any more.
    if (!m_finished)
        stop();
}

void OAuthConnector::setScopes(const QStringList& scopes)
{
    m_scopes = scopes;
}

void OAuthConnector::setTimeout(std::chrono::milliseconds timeout)
{
    m_timeout = timeout;
}

QUrl OAuthConnector::redirectUri() const
{
    return m_handler ? m_handler->redirectUri() : QUrl();
}

bool OAuthConnector::isListening() const
{
    return m_handler && m_handler->isListening();
}

void OAuthConnector::start()
{
    if (m_started)
        return;
    m_started = true;

    const QString problem = m_provider.validate();
    if (!problem.isEmpty()) {
        fail(OAuthFailure::Reason::Error,
            QStringLiteral("The OAuth provider %1 cannot be used: %2").arg(m_provider.displayTitle(), problem));
        return;
    }

    m_handler = new LoopbackReplyHandler(this);
    if (!m_handler->isListening()) {
        fail(OAuthFailure::Reason::Error,
            QStringLiteral("Could not open a port on 127.0.0.1 for the sign-in redirect."));
        return;
    }
    m_handler->setCallbackPath(QStringLiteral("/callback"));
    m_handler->setCallbackText(QString::fromUtf8(pageAccepted));
    // Connected before the flow connects its own slots (it does so in grant() and when it requests
    // the token), so these run first for every emission.
    connect(m_handler, &QAbstractOAuthReplyHandler::callbackReceived, this, &OAuthConnector::handleCallback);
    connect(m_handler, &QAbstractOAuthReplyHandler::tokensReceived, this, &OAuthConnector::keepTokenResponse);
    connect(m_handler, &LoopbackReplyHandler::tokenRequestFailed, this,
        [this](const QString& message) { fail(OAuthFailure::Reason::Error, message); });

    m_state = QString::fromLatin1(randomToken(4));
    m_codeVerifier = randomToken(12); // 64 characters, within RFC 7636's 43–128
    const QByteArray challenge = QCryptographicHash::hash(m_codeVerifier, QCryptographicHash::Sha256)
                                     .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);

    m_flow = new QOAuth2AuthorizationCodeFlow(m_network, this);
    m_flow->setAuthorizationUrl(m_provider.authorizationUrl);
    m_flow->setAccessTokenUrl(m_provider.tokenUrl);
    m_flow->setClientIdentifier(m_provider.clientId);
    m_flow->setClientIdentifierSharedKey(m_provider.clientSecret);
    m_flow->setScope(m_scopes.join(QLatin1Char(' ')));
    m_flow->setState(m_state);
    m_flow->setReplyHandler(m_handler);
    // Qt 6.4 has no PKCE (setPkceMethod came in 6.8): add it to both requests ourselves. The flow
    // puts parameter values into a QUrlQuery as they are, so anything that may hold '+', '&' or '%'
    // is percent-encoded first (the flow does the same for code and redirect_uri).
    m_flow->setModifyParametersFunction(
        [this, challenge](QAbstractOAuth::Stage stage, QMultiMap<QString, QVariant>* parameters) {
            if (stage == QAbstractOAuth::Stage::RequestingAuthorization) {
                for (auto it = m_provider.authorizationParameters.cbegin();
                     it != m_provider.authorizationParameters.cend(); ++it)
                    parameters->replace(it.key(), QString::fromLatin1(QUrl::toPercentEncoding(it.value())));
                parameters->replace(QStringLiteral("code_challenge"), QString::fromLatin1(challenge));
                parameters->replace(QStringLiteral("code_challenge_method"), QStringLiteral("S256"));
            } else if (stage == QAbstractOAuth::Stage::RequestingAccessToken) {
                parameters->replace(QStringLiteral("code_verifier"), QString::fromLatin1(m_codeVerifier));
                if (!m_provider.clientSecret.isEmpty()) {
                    parameters->replace(QStringLiteral("client_secret"),
                        QString::fromLatin1(QUrl::toPercentEncoding(m_provider.clientSecret)));
                }
                m_codeVerifier.clear(); // sent once; a second exchange must not be possible
            }
        });
    connect(m_flow, &QAbstractOAuth::authorizeWithBrowser, this, [this](const QUrl& url) {
        m_authorizationUrl = url;
        Q_EMIT authorizationUrlReady(url);
    });
    connect(m_flow, &QAbstractOAuth::granted, this, &OAuthConnector::fetchAccount);

    m_deadline.start(m_timeout);
    qCInfo(lcOAuth) << "sign-in with" << m_provider.name << "waiting for the redirect on" << redirectUri();
    m_flow->grant();
}

void OAuthConnector::cancel()
{
    fail(OAuthFailure::Reason::Cancelled,
        QStringLiteral("The sign-in with %1 was cancelled.").arg(m_provider.displayTitle()));
}

// Runs before the flow's own handling of the same redirect. Qt 6.4 only logs a state mismatch or
// an error and keeps waiting, and accepts a second redirect after a failed one; this decides.
void OAuthConnector::handleCallback(const QVariantMap& data)
{
    if (m_finished)
        return;
    if (m_callbackAccepted) {
        // A reload or a second tab: the code is being exchanged already (the flow ignores it too).
        qCInfo(lcOAuth) << "ignoring a second redirect for" << m_provider.name;
        m_handler->setCallbackText(QString::fromUtf8(pageDuplicate));
        return;
    }
    const QString state = data.value(QStringLiteral("state")).toString();
    if (state != m_state) {
        // Not from the authorization request we made (RFC 6749 §10.12): exchange nothing.
        m_handler->setCallbackText(QString::fromUtf8(pageRejected));
        fail(OAuthFailure::Reason::Error,
            QStringLiteral("The sign-in redirect did not match the request Switchboard made (state mismatch); "
                           "nothing was exchanged. Try again."));
        return;
    }
    const QString error = data.value(QStringLiteral("error")).toString();
    if (!error.isEmpty()) {
        m_handler->setCallbackText(QString::fromUtf8(pageDeclined));
        if (error == QLatin1String("access_denied")) {
            fail(OAuthFailure::Reason::Declined,
                QStringLiteral("The sign-in with %1 was declined.").arg(m_provider.displayTitle()));
        } else {
            QString description = data.value(QStringLiteral("error_description")).toString().simplified();
            if (description.size() > 200)
                description = description.left(200) + QStringLiteral("…");
            fail(OAuthFailure::Reason::Error,
                QStringLiteral("%1 refused the sign-in: %2%3")
                    .arg(m_provider.displayTitle(), error.left(100),
                        description.isEmpty() ? QString() : QStringLiteral(" (") + description + QLatin1Char(')')));
        }
        return;
    }
    if (data.value(QStringLiteral("code")).toString().isEmpty()) {
        m_handler->setCallbackText(QString::fromUtf8(pageRejected));
        fail(OAuthFailure::Reason::Error, QStringLiteral("The sign-in redirect carried neither a code nor an error."));
        return;
    }
    m_callbackAccepted = true;
    m_handler->setCallbackText(QString::fromUtf8(pageAccepted));
    // The flow's slot runs next and posts the code with our code_verifier to the token endpoint.
}

void OAuthConnector::keepTokenResponse(const QVariantMap& values)
{
    // Only what names the account and the granted scope; the tokens stay in the flow.
    m_idToken = values.value(QStringLiteral("id_token")).toString();
    m_grantedScope = values.value(QStringLiteral("scope")).toString();
}

void OAuthConnector::fetchAccount()
{
    if (m_finished)
        return;
    if (m_provider.userinfoUrl.isEmpty()) {
        succeed(accountFromIdToken());
        return;
    }
    QNetworkRequest request(m_provider.userinfoUrl);
    request.setRawHeader("Authorization", "Bearer " + m_flow->token().toUtf8());
    request.setRawHeader("Accept", "application/json");
    m_userinfoReply = m_network->get(request);
    connect(m_userinfoReply, &QNetworkReply::finished, this, &OAuthConnector::userinfoFinished);
}

void OAuthConnector::userinfoFinished()
{
    QNetworkReply* reply = m_userinfoReply;
    if (!reply)
        return;
    reply->deleteLater();
    m_userinfoReply = nullptr;
    if (m_finished)
        return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    QString account;
    if (status >= 200 && status <= 299)
        account = accountFrom(reply->readAll(), m_provider.accountField);
    if (account.isEmpty()) {
        // The tokens are good; only the display name is missing. Say so, and fall back.
        qCWarning(lcOAuth, "userinfo of %s named no account (%s); using a fallback", qPrintable(m_provider.name),
            qPrintable(status == 0 ? reply->errorString() : QStringLiteral("HTTP %1").arg(status)));
        account = accountFromIdToken();
    }
    succeed(account);
}

// The ID token's claims are decoded without checking its signature. That is acceptable only
// because the result is a display name for the person's own connection, never an identity
// anything is authorised on.
QString OAuthConnector::accountFromIdToken() const
{
    const QList<QStringView> parts = QStringView(m_idToken).split(QLatin1Char('.'));
    if (parts.size() == 3) {
        const QByteArray payload = QByteArray::fromBase64(parts.at(1).toLatin1(), QByteArray::Base64UrlEncoding);
        const QString account = accountFrom(payload, m_provider.accountField);
        if (!account.isEmpty())
            return account;
    }
    return m_provider.name;
}

void OAuthConnector::succeed(const QString& account)
{
    OAuthResult result;
    result.provider = m_provider.name;
    result.account = account;
    result.accessToken = m_flow->token();
    result.refreshToken = m_flow->refreshToken();
    result.expiresAt = m_flow->expirationAt().toUTC();
    static const QRegularExpression separators(QStringLiteral("[\\s,]+"));
    result.scopes = m_grantedScope.isEmpty() ? m_scopes : m_grantedScope.split(separators, Qt::SkipEmptyParts);
    // The result is now the only copy.
    m_flow->setToken(QString());
    m_flow->setRefreshToken(QString());
    stop();
    qCInfo(lcOAuth) << "signed in with" << m_provider.name << "as" << account;
    Q_EMIT connected(result);
}

void OAuthConnector::fail(OAuthFailure::Reason reason, const QString& message)
{
    if (m_finished)
        return;
    if (m_flow) {
        m_flow->setToken(QString());
        m_flow->setRefreshToken(QString());
    }
    stop();
    qCInfo(lcOAuth) << "sign-in with" << m_provider.name << "ended:" << OAuthFailure::reasonName(reason) << message;
    Q_EMIT failed(OAuthFailure{reason, message});
}

// Ends everything that could still produce an outcome: the deadline, the listener, the flow's
// hold on the handler, and requests in flight (aborting them runs their finished handlers, which
// see m_finished and do nothing).
void OAuthConnector::stop()
{
    m_finished = true;
    m_deadline.stop();
    m_codeVerifier.clear();
    m_idToken.clear();
    if (m_handler) {
        m_handler->close();
        if (m_flow)
            disconnect(m_handler, nullptr, m_flow, nullptr);
    }
    const auto replies = m_network->findChildren<QNetworkReply*>();
    for (QNetworkReply* reply : replies) {
        if (reply->isRunning())
            reply->abort();
    }
}
