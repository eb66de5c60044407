// request_connection answered by the client's own user (issue 25, item 3: URL mode for an OAuth
// connect), end to end over real HTTP: a real Backend whose configuration says
// `clientTools: [{name: request_connection, answeredBy: client}]` and configures the tests' OAuth
// authorization server (oauthtestserver.h) as a provider. A 2026-07-28 client that declares
// elicitation.url gets input_required with an elicitation/create in URL mode (the authorization
// URL of the console's own flow: PKCE, loopback redirect); the test plays the browser the client
// opens; the retry gets the connect result (never the token) and the connection is in the secret
// store. A decline cancels the sign-in; a refused sign-in is a connect result saying so; a sign-in
// still running after the retry's bounded wait is another round with the same URL; a client without
// elicitation.url, or asking for an API key, is asked at the console.

#include "clientanswer.h"
#include "config/switchboardconfig.h"
#include "core/backend.h"
#include "mcphttptestsupport.h"
#include "oauthtestserver.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;
using namespace McpHttpTest;

namespace {

json meta(const std::string& client, json capabilities)
{
    return json{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", client}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", std::move(capabilities)}}}};
}

const json urlCapable{{"form", json::object()}, {"url", json::object()}};
const json connectArguments{{"provider", "testauth"}, {"kind", "oauth"}, {"reason", "to read the issues"}};

// Sends one tools/call of request_connection on a connection of its own; read() gets the answer.
std::unique_ptr<RawHttpClient> sendConnect(quint16 port, int id, json extra = json::object(),
    const json& capabilities = urlCapable, const json& arguments = connectArguments,
    const std::string& client = "agent")
{
    json params{{"name", "request_connection"}, {"arguments", arguments}, {"_meta", meta(client, capabilities)}};
    for (auto item = extra.begin(); item != extra.end(); ++item)
        params[item.key()] = item.value();
    auto connection = std::make_unique<RawHttpClient>(port);
    connection->send(RawHttpClient::post(
        QByteArray::fromStdString(
            json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", std::move(params)}}.dump()),
        modernHeaders(port, "tools/call", "request_connection")));
    return connection;
}

// The JSON-RPC message of a response (a JSON body or the result event of a stream).
json messageOf(const RawHttpResponse& response)
{
    if (response.header("content-type").startsWith("text/event-stream")) {
        for (const QByteArray& event : response.events()) {
            const json message = json::parse(event.toStdString(), nullptr, false);
            if (message.contains("result") || message.contains("error"))
                return message;
        }
        return nullptr;
    }
    return bodyJson(response);
}

quint16 portOf(const Backend& backend)
{
    return quint16(backend.serverUrl().port());
}

json answer(const std::string& action)
{
    return json{{"connect", {{"action", action}}}};
}

} // namespace

class TestOAuthConnectUrl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void theClientsUserSignsInThroughTheUrl();
    void aDeclineCancelsTheSignIn();
    void aRefusedSignInIsAConnectResult();
    void aSignInStillRunningIsAnotherRound();
    void otherClientsAndApiKeysAreAskedAtTheConsole_data();
    void otherClientsAndApiKeysAreAskedAtTheConsole();

private:
    // Plays the browser: opens `url` and follows the redirects to the loopback listener.
    void browse(const QUrl& url);
    // The first call's input_required: checks its shape; its URL and requestState.
    bool askFirst(int id, QUrl* url, std::string* state);
    QByteArray secrets() const;

    QTemporaryDir m_stateDir;
    OAuthTestServer m_authorizationServer;
    std::unique_ptr<Backend> m_backend;
    QNetworkAccessManager m_network;
    int m_browserStatus = 0;
    QList<PendingInteraction> m_raised;
};

void TestOAuthConnectUrl::initTestCase()
{
    qRegisterMetaType<InteractionAnswer>();
    QVERIFY(m_stateDir.isValid());
    QVERIFY(m_authorizationServer.port != 0);
    const QString configPath = m_stateDir.filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("secrets: {store: file, file: " + m_stateDir.filePath(QStringLiteral("secrets.json")).toUtf8()
        + "}\n"
          "oauthProviders:\n"
          "  - {name: testauth, title: Test Auth, clientId: switchboard-test, scopes: [read, write],\n"
          "     authorizationUrl: "
        + m_authorizationServer.url("/authorize").toEncoded()
        + ",\n"
          "     tokenUrl: "
        + m_authorizationServer.url("/token").toEncoded()
        + ",\n"
          "     userinfoUrl: "
        + m_authorizationServer.url("/userinfo").toEncoded()
        + "}\n"
          "clientTools:\n"
          "  - {name: request_connection, answeredBy: client}\n");
    file.close();

    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(configPath, &options.config, &error), qPrintable(error));
    QVERIFY2(options.config.warnings.isEmpty(), qPrintable(options.config.warnings.join(u'\n')));
    options.server.port = 0;
    options.server.bearerToken = ServerFixture::token();
    options.stateDirectory = m_stateDir.path();
    options.configPath = configPath;
    m_backend = std::make_unique<Backend>(options);
    connect(m_backend.get(), &OperatorInterface::interactionPending, this,
        [this](const PendingInteraction& interaction) { m_raised.append(interaction); });
    QVERIFY2(m_backend->start(&error), qPrintable(error));
}

void TestOAuthConnectUrl::cleanupTestCase()
{
    if (m_backend)
        m_backend->stop();
}

void TestOAuthConnectUrl::init()
{
    m_authorizationServer.denyWith.clear();
    m_authorizationServer.holdTokenReplies = false;
    m_browserStatus = 0;
}

void TestOAuthConnectUrl::browse(const QUrl& url)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    QNetworkReply* reply = m_network.get(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        m_browserStatus = reply->error() == QNetworkReply::ConnectionRefusedError
            ? -1
            : reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
    });
}

bool TestOAuthConnectUrl::askFirst(int id, QUrl* url, std::string* state)
{
    const json asked = messageOf(sendConnect(portOf(*m_backend), id)->read());
    const json result = asked.value("result", json::object());
    [&] {
        QVERIFY2(result.value("resultType", std::string()) == "input_required", asked.dump().c_str());
        const json& request = result.at("inputRequests").at("connect");
        QVERIFY(request.at("method") == "elicitation/create");
        const json& params = request.at("params");
        QVERIFY(params.at("mode") == "url");
        QCOMPARE(QString::fromStdString(params.at("message")),
            QStringLiteral("Sign in to Test Auth to connect it to Switchboard"));
        *url = QUrl(QString::fromStdString(params.at("url")));
        QVERIFY2(url->toString().startsWith(m_authorizationServer.url("/authorize").toString()), params.dump().c_str());
        const QUrlQuery query(*url);
        QCOMPARE(query.queryItemValue(QStringLiteral("code_challenge_method")), QStringLiteral("S256"));
        QVERIFY(query.queryItemValue(QStringLiteral("redirect_uri"), QUrl::FullyDecoded)
                    .startsWith(QStringLiteral("http://127.0.0.1:")));
        *state = result.at("requestState");
    }();
    return !QTest::currentTestFailed();
}

QByteArray TestOAuthConnectUrl::secrets() const
{
    QFile file(m_stateDir.filePath(QStringLiteral("secrets.json")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void TestOAuthConnectUrl::theClientsUserSignsInThroughTheUrl()
{
    QUrl url;
    std::string state;
    QVERIFY(askFirst(1, &url, &state));
    QVERIFY(m_raised.isEmpty()); // nothing at the console

    // The user consented: the client retries at once, and the retry waits for the sign-in.
    const auto retry
        = sendConnect(portOf(*m_backend), 2, {{"inputResponses", answer("accept")}, {"requestState", state}});
    browse(url);
    QTRY_COMPARE_WITH_TIMEOUT(m_browserStatus, 200, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(retry->socket().bytesAvailable() > 0, 20'000);
    const json connected = messageOf(retry->read());
    QVERIFY2(connected.at("result").at("structuredContent")
            == json({{"connected", true}, {"provider", "testauth"}, {"account", "ada@example.org"}}),
        connected.dump().c_str());
    QVERIFY(connected.at("result").at("resultType") == "complete");
    // The token went to the secret store, and nowhere near the client.
    QVERIFY(!m_authorizationServer.lastAccessToken.isEmpty());
    QVERIFY(connected.dump().find(m_authorizationServer.lastAccessToken.toStdString()) == std::string::npos);
    const json stored = json::parse(secrets().toStdString(), nullptr, false).value("secrets", json::object());
    const QByteArray tokens = QByteArray::fromBase64(
        QByteArray::fromStdString(stored.value("oauth/testauth/ada@example.org", std::string())));
    QVERIFY2(tokens.contains(m_authorizationServer.lastAccessToken.toUtf8()), stored.dump().c_str());
    QCOMPARE(QByteArray::fromBase64(QByteArray::fromStdString(stored.value("connection/testauth", std::string()))),
        QByteArrayLiteral("oauth/testauth/ada@example.org")); // the provider's newest connection
    QVERIFY(m_raised.isEmpty());

    // The state answered its call.
    const json replay = messageOf(
        sendConnect(portOf(*m_backend), 3, {{"inputResponses", answer("accept")}, {"requestState", state}})->read());
    QCOMPARE(int(replay.at("error").at("code")), -32602);
}

void TestOAuthConnectUrl::aDeclineCancelsTheSignIn()
{
    QUrl url;
    std::string state;
    QVERIFY(askFirst(1, &url, &state));
    const json declined = messageOf(
        sendConnect(portOf(*m_backend), 2, {{"inputResponses", answer("decline")}, {"requestState", state}})->read());
    QVERIFY2(declined.at("result").at("structuredContent") == json({{"connected", false}, {"reason", "declined"}}),
        declined.dump().c_str());
    // The sign-in is over: its loopback listener is closed, so the browser's redirect goes nowhere.
    const int tokenRequests = m_authorizationServer.tokenRequests;
    browse(url);
    QTRY_VERIFY_WITH_TIMEOUT(m_browserStatus != 0, 20'000);
    QVERIFY2(m_browserStatus != 200, QByteArray::number(m_browserStatus).constData());
    QCOMPARE(m_authorizationServer.tokenRequests, tokenRequests);
}

void TestOAuthConnectUrl::aRefusedSignInIsAConnectResult()
{
    m_authorizationServer.denyWith = QStringLiteral("access_denied");
    QUrl url;
    std::string state;
    QVERIFY(askFirst(1, &url, &state));
    browse(url);
    QTRY_VERIFY_WITH_TIMEOUT(m_browserStatus != 0, 20'000);
    const json refused = messageOf(
        sendConnect(portOf(*m_backend), 2, {{"inputResponses", answer("accept")}, {"requestState", state}})->read());
    const json& output = refused.at("result").at("structuredContent");
    QVERIFY2(output.at("connected") == false && output.at("reason") == "declined" && output.contains("message"),
        refused.dump().c_str());
}

void TestOAuthConnectUrl::aSignInStillRunningIsAnotherRound()
{
    m_authorizationServer.holdTokenReplies = true;
    QUrl url;
    std::string state;
    QVERIFY(askFirst(1, &url, &state));
    browse(url);
    QTRY_COMPARE_WITH_TIMEOUT(m_authorizationServer.heldTokenRequests(), 1, 20'000);
    // The retry waits its bounded while (30 s), then asks again with the same URL.
    const json again = messageOf(sendConnect(portOf(*m_backend), 2,
        {{"inputResponses", answer("accept")},
            {"requestState", state}})->read(60'000));
    const json& result = again.at("result");
    QVERIFY2(result.at("resultType") == "input_required", again.dump().c_str());
    QCOMPARE(QString::fromStdString(result.at("inputRequests").at("connect").at("params").at("url")),
        url.toString(QUrl::FullyEncoded));
    const std::string next = result.at("requestState");
    QVERIFY(next != state);

    m_authorizationServer.releaseHeldTokens();
    const auto retry
        = sendConnect(portOf(*m_backend), 3, {{"inputResponses", answer("accept")}, {"requestState", next}});
    QTRY_VERIFY_WITH_TIMEOUT(retry->socket().bytesAvailable() > 0, 20'000);
    const json connected = messageOf(retry->read());
    QVERIFY2(connected.at("result").at("structuredContent").at("connected") == true, connected.dump().c_str());
}

void TestOAuthConnectUrl::otherClientsAndApiKeysAreAskedAtTheConsole_data()
{
    QTest::addColumn<bool>("url");
    QTest::addColumn<QString>("kind");
    QTest::newRow("no elicitation.url") << false << "oauth";
    QTest::newRow("an API key") << true << "api_key";
}

void TestOAuthConnectUrl::otherClientsAndApiKeysAreAskedAtTheConsole()
{
    QFETCH(bool, url);
    QFETCH(QString, kind);
    json arguments = connectArguments;
    arguments["kind"] = kind.toStdString();
    m_raised.clear();
    const auto call = sendConnect(portOf(*m_backend), 1, json::object(),
        url ? urlCapable : json{{"form", json::object()}}, arguments, "console-asked");
    QTRY_COMPARE_WITH_TIMEOUT(m_raised.size(), 1, 20'000);
    QCOMPARE(m_raised.first().tool, QStringLiteral("request_connection"));
    m_backend->answerInteraction(
        m_raised.first().id, InteractionAnswer::respond(ClientAnswer::notConnected(QStringLiteral("declined"))));
    QTRY_VERIFY_WITH_TIMEOUT(call->socket().bytesAvailable() > 0, 20'000);
    const json answered = messageOf(call->read());
    QVERIFY2(answered.at("result").at("structuredContent") == json({{"connected", false}, {"reason", "declined"}}),
        answered.dump().c_str());
}

QTEST_GUILESS_MAIN(TestOAuthConnectUrl)
#include "tst_oauthconnecturl.moc"
