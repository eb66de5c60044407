// OAuthConnector against OAuthTestServer, a real authorization server on 127.0.0.1 written for
// these tests; the test plays the browser with a QNetworkAccessManager that follows redirects, so
// the code arrives at the connector's loopback listener exactly as a browser would bring it.
// Everything is real HTTP over loopback inside this process (hence the unit label).

#include "auth/oauthconnector.h"

#include "oauthtestserver.h"

#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

using namespace std::chrono_literals;

namespace {

constexpr int waitMs = 20'000; // generous: the suite runs on loaded 2-core machines

// Everything logged while the tests run, to prove that no token ever reaches a log.
QStringList& logged()
{
    static QStringList lines;
    return lines;
}
QtMessageHandler previousHandler = nullptr;
void captureMessage(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    logged() << message;
    previousHandler(type, context, message);
}

// Whether something accepts connections on 127.0.0.1:port.
bool accepts(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    const bool connected = socket.waitForConnected(10'000);
    socket.abort();
    return connected;
}

QString authorizeValue(const OAuthTestServer& server, const char* key)
{
    return server.lastAuthorizeQuery.queryItemValue(QString::fromLatin1(key), QUrl::FullyDecoded);
}

// A port nothing listens on: bound by the system, then released.
quint16 closedPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress(QHostAddress::LocalHost), 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace

Q_DECLARE_METATYPE(OAuthFailure::Reason)

class TestOAuthConnector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void connects_data();
    void connects();
    void pkceIsEnforced();
    void failures_data();
    void failures();
    void forgedRedirectIsRejected_data();
    void forgedRedirectIsRejected();
    void secondRedirectIsIgnored();
    void cancelWhileWaitingClosesThePort();
    void cancelAfterTokensLeaksNothing();
    void timeout();
    void unusableProviderFailsAtOnce();
    void tokensNeverLogged();

private:
    // The browser: follows redirects like one (http to http on loopback is fine), returns the
    // final reply once it has finished.
    std::unique_ptr<QNetworkReply> browse(const QUrl& url)
    {
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
        std::unique_ptr<QNetworkReply> reply(m_browser.get(request));
        QSignalSpy finished(reply.get(), &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(waitMs);
        return reply;
    }

    struct Page
    {
        int status = 0; // 0 until the browser has the final page
        QByteArray body;
    };

    // The browser, started from the connector's signal as the connect widget would. The returned
    // page fills in when the browser lands on the connector's listener.
    std::shared_ptr<Page> browseWhenReady(OAuthConnector* connector)
    {
        auto page = std::make_shared<Page>();
        connect(connector, &OAuthConnector::authorizationUrlReady, this, [this, page](const QUrl& url) {
            QNetworkRequest request(url);
            request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
            QNetworkReply* reply = m_browser.get(request);
            connect(reply, &QNetworkReply::finished, this, [page, reply] {
                page->body = reply->readAll();
                page->status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                reply->deleteLater();
            });
        });
        return page;
    }

    static void verifyNoTokenIn(const QString& text, const OAuthTestServer& server)
    {
        for (const QString& token : server.issuedTokens)
            QVERIFY2(!text.contains(token), qPrintable(QStringLiteral("a token leaked into: ") + text));
    }

    QNetworkAccessManager m_browser;
};

void TestOAuthConnector::initTestCase()
{
    qRegisterMetaType<OAuthResult>();
    qRegisterMetaType<OAuthFailure>();
    // Every category on, Qt NetworkAuth's debug output included: a token must not appear anywhere.
    QLoggingCategory::setFilterRules(
        QStringLiteral("qt.networkauth*=true\nswitchboard.oauth*=true\nqt.httpserver*=false"));
    previousHandler = qInstallMessageHandler(captureMessage);
}

void TestOAuthConnector::connects_data()
{
    QTest::addColumn<bool>("withUserinfo");
    QTest::addColumn<QString>("accountField");
    QTest::addColumn<int>("userinfoStatus");
    QTest::addColumn<QString>("idTokenUsername"); // empty: no id_token
    QTest::addColumn<QString>("clientSecret");
    QTest::addColumn<QString>("grantedScope");
    QTest::addColumn<QString>("expectedAccount");
    QTest::addColumn<QStringList>("expectedScopes");

    const QStringList requested = {QStringLiteral("read"), QStringLiteral("write")};
    QTest::newRow("userinfo email") << true << QString() << 200 << QString() << QString() << QString()
                                    << QStringLiteral("ada@example.org") << requested;
    QTest::newRow("userinfo configured field") << true << QStringLiteral("login") << 200 << QString() << QString()
                                               << QString() << QStringLiteral("ada-l") << requested;
    QTest::newRow("id token claims, no userinfo")
        << false << QString() << 200 << QStringLiteral("ada.lovelace") << QString() << QString()
        << QStringLiteral("ada.lovelace") << requested;
    QTest::newRow("userinfo fails, id token names")
        << true << QString() << 500 << QStringLiteral("ada.lovelace") << QString() << QString()
        << QStringLiteral("ada.lovelace") << requested;
    QTest::newRow("nothing names the account: provider name")
        << false << QString() << 200 << QString() << QString() << QString() << QStringLiteral("testauth") << requested;
    QTest::newRow("confidential client, secret with form delimiters")
        << true << QString() << 200 << QString() << QStringLiteral("s3cr+t&x=%25/é") << QString()
        << QStringLiteral("ada@example.org") << requested;
    QTest::newRow("server narrows the scopes")
        << true << QString() << 200 << QString() << QString() << QStringLiteral("read")
        << QStringLiteral("ada@example.org") << QStringList{QStringLiteral("read")};
}

void TestOAuthConnector::connects()
{
    QFETCH(bool, withUserinfo);
    QFETCH(QString, accountField);
    QFETCH(int, userinfoStatus);
    QFETCH(QString, idTokenUsername);
    QFETCH(QString, clientSecret);
    QFETCH(QString, grantedScope);
    QFETCH(QString, expectedAccount);
    QFETCH(QStringList, expectedScopes);

    OAuthTestServer server;
    QVERIFY(server.port != 0);
    server.clientSecret = clientSecret;
    server.userinfoStatus = userinfoStatus;
    server.grantedScope = grantedScope;
    if (!idTokenUsername.isEmpty())
        server.idTokenClaims = {{QStringLiteral("preferred_username"), idTokenUsername}};
    OAuthProvider provider = server.provider();
    if (!withUserinfo)
        provider.userinfoUrl.clear();
    provider.accountField = accountField;
    // Extra parameters arrive verbatim, delimiters and all.
    provider.authorizationParameters.insert(QStringLiteral("prompt"), QStringLiteral("consent & more+1=%"));

    OAuthConnector connector(provider);
    const auto page = browseWhenReady(&connector);
    QSignalSpy ready(&connector, &OAuthConnector::authorizationUrlReady);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    const QDateTime before = QDateTime::currentDateTimeUtc();
    connector.start();
    QCOMPARE(ready.size(), 1);
    const quint16 port = connector.redirectUri().port();
    QCOMPARE(connector.redirectUri().toString(), QStringLiteral("http://127.0.0.1:%1/callback").arg(port));
    QVERIFY(connector.isListening());

    QVERIFY2(connected.wait(waitMs) || connected.size() == 1,
        qPrintable(failed.isEmpty() ? server.lastAuthorizeError + server.lastTokenError
                                    : failed.first().first().value<OAuthFailure>().message));
    const QDateTime after = QDateTime::currentDateTimeUtc();
    QCOMPARE(failed.size(), 0);
    const auto result = connected.first().first().value<OAuthResult>();
    QCOMPARE(result.provider, QStringLiteral("testauth"));
    QCOMPARE(result.account, expectedAccount);
    QCOMPARE(result.accessToken, server.lastAccessToken);
    QCOMPARE(result.refreshToken, server.lastRefreshToken);
    QCOMPARE(result.scopes, expectedScopes);
    QVERIFY(result.expiresAt.isValid());
    QCOMPARE(result.expiresAt.timeSpec(), Qt::UTC);
    QVERIFY(result.expiresAt >= before.addSecs(3600 - 5) && result.expiresAt <= after.addSecs(3600 + 5));

    // What the authorization server saw.
    QCOMPARE(authorizeValue(server, "redirect_uri"), connector.redirectUri().toString());
    QCOMPARE(authorizeValue(server, "scope"), QStringLiteral("read write"));
    QCOMPARE(authorizeValue(server, "code_challenge_method"), QStringLiteral("S256"));
    QCOMPARE(authorizeValue(server, "prompt"), QStringLiteral("consent & more+1=%"));
    QCOMPARE(server.tokenRequests, 1);
    if (withUserinfo)
        QCOMPARE(server.lastUserinfoAuthorization, QStringLiteral("Bearer ") + server.lastAccessToken);

    // The browser got the closing page, and the listener is gone.
    QTRY_VERIFY_WITH_TIMEOUT(page->status != 0, waitMs);
    QCOMPARE(page->status, 200);
    QVERIFY2(page->body.contains("You can close this window"), page->body.constData());
    QVERIFY(!connector.isListening());
    QVERIFY(!accepts(port));
    QVERIFY(connector.isFinished());
}

void TestOAuthConnector::pkceIsEnforced()
{
    OAuthTestServer server;
    OAuthConnector connector(server.provider());
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    connector.start();
    const QUrl authorizationUrl = connector.authorizationUrl();
    QVERIFY(authorizationUrl.isValid());

    // The browser's first step only: the redirect that carries the code.
    QNetworkRequest request(authorizationUrl);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    std::unique_ptr<QNetworkReply> reply(m_browser.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    QVERIFY(finished.wait(waitMs));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 302);
    const QUrl callback = reply->attribute(QNetworkRequest::RedirectionTargetAttribute).toUrl();
    const QString code = QUrlQuery(callback).queryItemValue(QStringLiteral("code"));
    QVERIFY(!code.isEmpty());

    // Someone who intercepted the code cannot redeem it: without the verifier, or with a wrong one.
    auto redeem = [&](const QString& verifier) {
        QUrlQuery form;
        form.addQueryItem(QStringLiteral("grant_type"), QStringLiteral("authorization_code"));
        form.addQueryItem(QStringLiteral("code"), code);
        form.addQueryItem(QStringLiteral("redirect_uri"), connector.redirectUri().toString());
        form.addQueryItem(QStringLiteral("client_id"), server.clientId);
        if (!verifier.isEmpty())
            form.addQueryItem(QStringLiteral("code_verifier"), verifier);
        QNetworkRequest post(server.url("/token"));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/x-www-form-urlencoded"));
        std::unique_ptr<QNetworkReply> answer(m_browser.post(post, form.toString(QUrl::FullyEncoded).toLatin1()));
        QSignalSpy done(answer.get(), &QNetworkReply::finished);
        done.wait(waitMs);
        return std::pair{answer->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), answer->readAll()};
    };
    const auto missing = redeem(QString());
    QCOMPARE(missing.first, 400);
    QVERIFY(missing.second.contains("invalid_grant"));
    const auto wrong = redeem(QString(64, QLatin1Char('A')));
    QCOMPARE(wrong.first, 400);
    QVERIFY(wrong.second.contains("invalid_grant"));
    QVERIFY(server.lastTokenError.contains(QStringLiteral("PKCE verification failed")));

    // The connector's own verifier matches the challenge it sent, and the exchange succeeds.
    browse(callback);
    QVERIFY(connected.wait(waitMs) || connected.size() == 1);
    const QString verifier = server.lastTokenForm.queryItemValue(QStringLiteral("code_verifier"), QUrl::FullyDecoded);
    QVERIFY(verifier.size() >= 43 && verifier.size() <= 128);
    QVERIFY(QRegularExpression(QStringLiteral("^[A-Za-z0-9._~-]+$")).match(verifier).hasMatch());
    QCOMPARE(OAuthTestServer::challengeOf(verifier), authorizeValue(server, "code_challenge"));
    QCOMPARE(server.tokenRequests, 3);
}

void TestOAuthConnector::failures_data()
{
    QTest::addColumn<QString>("denyWith");
    QTest::addColumn<int>("forcedStatus");
    QTest::addColumn<QByteArray>("forcedContentType");
    QTest::addColumn<QByteArray>("forcedBody");
    QTest::addColumn<bool>("unreachableTokenEndpoint");
    QTest::addColumn<OAuthFailure::Reason>("reason");
    QTest::addColumn<QString>("messageContains");

    const QByteArray json("application/json");
    QTest::newRow("access denied") << QStringLiteral("access_denied") << 0 << QByteArray() << QByteArray() << false
                                   << OAuthFailure::Reason::Declined << QStringLiteral("was declined");
    QTest::newRow("other authorization error")
        << QStringLiteral("invalid_scope") << 0 << QByteArray() << QByteArray() << false << OAuthFailure::Reason::Error
        << QStringLiteral("refused the sign-in: invalid_scope (The resource owner said no)");
    QTest::newRow("token endpoint 400") << QString() << 400 << json
                                        << QByteArray(
                                               R"({"error":"invalid_client","error_description":"Unknown client"})")
                                        << false << OAuthFailure::Reason::Error
                                        << QStringLiteral("HTTP 400: invalid_client (Unknown client)");
    QTest::newRow("token endpoint 500 without a body")
        << QString() << 500 << QByteArray("text/plain") << QByteArray() << false << OAuthFailure::Reason::Error
        << QStringLiteral("HTTP 500 without an OAuth error");
    QTest::newRow("token endpoint not json")
        << QString() << 200 << QByteArray("text/html") << QByteArray("<html>Sign in again</html>") << false
        << OAuthFailure::Reason::Error << QStringLiteral("is not JSON");
    QTest::newRow("error in a 200 (GitHub style)")
        << QString() << 200 << json << QByteArray(R"({"error":"bad_verification_code"})") << false
        << OAuthFailure::Reason::Error << QStringLiteral("HTTP 200: bad_verification_code");
    QTest::newRow("no access token") << QString() << 200 << json << QByteArray(R"({"token_type":"Bearer"})") << false
                                     << OAuthFailure::Reason::Error << QStringLiteral("has no access_token");
    QTest::newRow("token endpoint unreachable")
        << QString() << 0 << QByteArray() << QByteArray() << true << OAuthFailure::Reason::Error
        << QStringLiteral("Could not reach the token endpoint");
}

void TestOAuthConnector::failures()
{
    QFETCH(QString, denyWith);
    QFETCH(int, forcedStatus);
    QFETCH(QByteArray, forcedContentType);
    QFETCH(QByteArray, forcedBody);
    QFETCH(bool, unreachableTokenEndpoint);
    QFETCH(OAuthFailure::Reason, reason);
    QFETCH(QString, messageContains);

    OAuthTestServer server;
    server.denyWith = denyWith;
    server.forcedTokenReply = {forcedStatus, forcedContentType, forcedBody};
    OAuthProvider provider = server.provider();
    if (unreachableTokenEndpoint)
        provider.tokenUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/token").arg(closedPort()));

    OAuthConnector connector(provider);
    const auto page = browseWhenReady(&connector);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    connector.start();
    const quint16 port = connector.redirectUri().port();
    QVERIFY(failed.wait(waitMs) || failed.size() == 1);
    QCOMPARE(failed.size(), 1);
    const auto failure = failed.first().first().value<OAuthFailure>();
    QCOMPARE(failure.reason, reason);
    QVERIFY2(failure.message.contains(messageContains), qPrintable(failure.message));
    verifyNoTokenIn(failure.message, server);
    QCOMPARE(connected.size(), 0);
    QVERIFY(!connector.isListening());
    QVERIFY(!accepts(port));
    if (reason == OAuthFailure::Reason::Declined) {
        QTRY_VERIFY_WITH_TIMEOUT(page->status != 0, waitMs);
        QVERIFY2(page->body.contains("declined"), page->body.constData());
        QCOMPARE(server.tokenRequests, 0);
    }
}

void TestOAuthConnector::forgedRedirectIsRejected_data()
{
    QTest::addColumn<QString>("query"); // the state is appended as %STATE% says
    QTest::newRow("code with a wrong state") << QStringLiteral("code=stolen&state=not-ours");
    QTest::newRow("code without a state") << QStringLiteral("code=stolen");
    QTest::newRow("denial with a wrong state") << QStringLiteral("error=access_denied&state=not-ours");
}

void TestOAuthConnector::forgedRedirectIsRejected()
{
    QFETCH(QString, query);
    OAuthTestServer server;
    OAuthConnector connector(server.provider());
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    connector.start();
    const quint16 port = connector.redirectUri().port();

    // A page or process that guessed the port sends its own redirect before the real one.
    QUrl forged = connector.redirectUri();
    forged.setQuery(query);
    const auto page = browse(forged);
    QVERIFY(page->readAll().contains("rejected"));
    QCOMPARE(failed.size(), 1);
    const auto failure = failed.first().first().value<OAuthFailure>();
    QCOMPARE(failure.reason, OAuthFailure::Reason::Error); // never Declined: the person said nothing
    QVERIFY2(failure.message.contains(QStringLiteral("state mismatch")), qPrintable(failure.message));
    QCOMPARE(server.tokenRequests, 0); // nothing was exchanged
    QVERIFY(!accepts(port));

    // The real redirect, arriving later, finds nobody listening.
    const auto late = browse(connector.authorizationUrl());
    QCOMPARE(late->error(), QNetworkReply::ConnectionRefusedError);
    QCOMPARE(connected.size(), 0);
    QCOMPARE(failed.size(), 1);
}

void TestOAuthConnector::secondRedirectIsIgnored()
{
    OAuthTestServer server;
    server.holdTokenReplies = true;
    OAuthConnector connector(server.provider());
    browseWhenReady(&connector);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    connector.start();
    const quint16 port = connector.redirectUri().port();
    QTRY_COMPARE_WITH_TIMEOUT(server.heldTokenRequests(), 1, waitMs);

    // A reload of the redirect page (or a forged one) while the code is being exchanged.
    const QString state = authorizeValue(server, "state");
    QUrl again = connector.redirectUri();
    again.setQuery(QStringLiteral("code=another&state=") + state);
    QVERIFY(browse(again)->readAll().contains("already"));
    again.setQuery(QStringLiteral("error=access_denied&state=") + state);
    browse(again);
    QCOMPARE(failed.size(), 0);

    server.releaseHeldTokens();
    QVERIFY(connected.wait(waitMs) || connected.size() == 1);
    QCOMPARE(server.tokenRequests, 1);
    QCOMPARE(failed.size(), 0);

    // After the flow: the listener is closed, so later redirects cannot even connect.
    QVERIFY(!accepts(port));
    QCOMPARE(browse(again)->error(), QNetworkReply::ConnectionRefusedError);
    QCOMPARE(connected.size(), 1);
}

void TestOAuthConnector::cancelWhileWaitingClosesThePort()
{
    OAuthTestServer server;
    OAuthConnector connector(server.provider());
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    connector.start();
    const quint16 port = connector.redirectUri().port();
    QVERIFY(accepts(port));

    connector.cancel();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(failed.first().first().value<OAuthFailure>().reason, OAuthFailure::Reason::Cancelled);
    QVERIFY(!connector.isListening());
    QVERIFY(!accepts(port));

    // The person finishes in the browser anyway: nothing happens.
    QCOMPARE(browse(connector.authorizationUrl())->error(), QNetworkReply::ConnectionRefusedError);
    connector.cancel(); // a second cancel is harmless
    QCOMPARE(failed.size(), 1);
    QCOMPARE(connected.size(), 0);
    QCOMPARE(server.tokenRequests, 0);
}

void TestOAuthConnector::cancelAfterTokensLeaksNothing()
{
    OAuthTestServer server;
    server.holdUserinfoReplies = true;
    OAuthConnector connector(server.provider());
    browseWhenReady(&connector);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    connector.start();
    QTRY_COMPARE_WITH_TIMEOUT(server.heldUserinfoRequests(), 1, waitMs);
    QVERIFY(!server.issuedTokens.isEmpty()); // the tokens exist by now

    connector.cancel();
    QCOMPARE(failed.size(), 1);
    const auto failure = failed.first().first().value<OAuthFailure>();
    QCOMPARE(failure.reason, OAuthFailure::Reason::Cancelled);
    verifyNoTokenIn(failure.message, server);

    // The userinfo answer arrives after all: still no connection.
    server.releaseHeldUserinfo();
    // A later request to the same server, answered: the held answer was written before it (same
    // thread), and by the time the browser has this one, the connector has had every chance to see
    // that one.
    server.holdUserinfoReplies = false;
    const auto later = browse(server.url("/userinfo"));
    QVERIFY(later->isFinished());
    QVERIFY(later->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid());
    QCOMPARE(connected.size(), 0);
    QCOMPARE(failed.size(), 1);
}

void TestOAuthConnector::timeout()
{
    OAuthTestServer server;
    OAuthConnector connector(server.provider());
    connector.setTimeout(300ms);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    connector.start();
    const quint16 port = connector.redirectUri().port();
    // Nobody opens the browser.
    QVERIFY(failed.wait(waitMs));
    const auto failure = failed.first().first().value<OAuthFailure>();
    QCOMPARE(failure.reason, OAuthFailure::Reason::Timeout);
    QVERIFY2(failure.message.contains(QStringLiteral("within 0.3 s")), qPrintable(failure.message));
    QCOMPARE(OAuthFailure::reasonName(failure.reason), QStringLiteral("timeout"));
    QVERIFY(!accepts(port));
}

void TestOAuthConnector::unusableProviderFailsAtOnce()
{
    OAuthTestServer server;
    OAuthProvider provider = server.provider();
    provider.tokenUrl = QUrl(QStringLiteral("http://auth.example/token")); // clear text off the machine
    OAuthConnector connector(provider);
    QSignalSpy ready(&connector, &OAuthConnector::authorizationUrlReady);
    QSignalSpy failed(&connector, &OAuthConnector::failed);
    connector.start();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(ready.size(), 0);
    const auto failure = failed.first().first().value<OAuthFailure>();
    QCOMPARE(failure.reason, OAuthFailure::Reason::Error);
    QVERIFY2(failure.message.contains(QStringLiteral("tokenUrl must be an https URL")), qPrintable(failure.message));
    QVERIFY(!connector.isListening());
    QVERIFY(connector.redirectUri().isEmpty());
}

// Runs last: every flow above, successful or not, logged with NetworkAuth's debug output on. No
// token and no PKCE verifier from any of them may appear in what was logged.
void TestOAuthConnector::tokensNeverLogged()
{
    OAuthTestServer server;
    OAuthConnector connector(server.provider());
    browseWhenReady(&connector);
    QSignalSpy connected(&connector, &OAuthConnector::connected);
    connector.start();
    QVERIFY(connected.wait(waitMs) || connected.size() == 1);
    const QString everything = logged().join(QLatin1Char('\n'));
    QVERIFY(everything.contains(QStringLiteral("signed in with"))); // the capture works
    const QStringList secrets = OAuthTestServer::secretsEverSeen();
    QVERIFY(secrets.size() > 10);
    for (const QString& secret : secrets)
        QVERIFY2(!everything.contains(secret), qPrintable(QStringLiteral("logged: ") + secret));
}

QTEST_GUILESS_MAIN(TestOAuthConnector)
#include "tst_oauthconnector.moc"
