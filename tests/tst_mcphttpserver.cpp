// The MCP Streamable HTTP server, spoken to over real sockets: transport rules, security checks,
// every HTTP-level error, sessions, event streams, batches, cancellation and hostile input.

#include "jsontestsupport.h"
#include "mcphttptestsupport.h"
#include "processstatus.h"
#include "rawhttpclient.h"
#include "sanitizers.h"
#include "serverfixture.h"

#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

#include <atomic>

using nlohmann::json;

namespace {

// Peak resident memory of this process (the server runs in it, on its own thread), in bytes.
qint64 peakResidentBytes()
{
    return processStatusBytes("VmHWM");
}

// How much the peak resident size grew over `before` stays under `bound`. AddressSanitizer keeps
// freed memory in quarantine (up to 256 MiB), so there the resident size says nothing about what
// the server keeps: the bound is checked in the build without sanitizers (CTest's ci preset), and
// the sanitized build checks these tests' memory safety.
void verifyPeakGrowth(qint64 before, qint64 bound)
{
#if SWITCHBOARD_UNDER_ASAN
    Q_UNUSED(before);
    Q_UNUSED(bound);
#else
    const qint64 grown = peakResidentBytes() - before;
    QVERIFY2(grown < bound, QByteArray::number(grown).constData());
#endif
}

// Resets the peak to the current resident size (Linux: "5" to /proc/PID/clear_refs).
bool resetPeakResident()
{
    QFile refs(QStringLiteral("/proc/self/clear_refs"));
    return refs.open(QIODevice::WriteOnly) && refs.write("5") == 1;
}

QByteArray headOf(
    const Headers& headers, const QByteArray& requestLine = "POST /mcp HTTP/1.1", const QByteArray& lineEnd = "\r\n")
{
    QByteArray head = requestLine + lineEnd;
    for (const auto& [name, value] : headers)
        head += name + ": " + value + lineEnd;
    return head;
}

// Sends up to `total` bytes in pieces (one reused buffer, so the client's own memory stays flat)
// until the server stops reading or closes.
void keepSending(RawHttpClient& client, qint64 total)
{
    const QByteArray piece(256 * 1024, 'x');
    for (qint64 sent = 0; sent < total && client.socket().state() == QAbstractSocket::ConnectedState;
         sent += piece.size()) {
        client.socket().write(piece);
        if (!client.socket().waitForBytesWritten(5000))
            break;
    }
}

} // namespace

class TestMcpHttpServer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void httpErrors_data();
    void httpErrors();
    void refusalsNameTheRequestTheyCouldRead_data();
    void refusalsNameTheRequestTheyCouldRead();
    void sessionIdIsStrongAndVisibleAscii();
    void keepAliveServesManyRequests();
    void connectionCloseIsHonoured();
    void oversizedBodyIsRefusedBeforeItArrives();
    void oversizedChunkedBodyIsRefused();
    void largeBodyWithinTheLimitWorks();
    void oversizedHeadIsRefused();
    void malformedHttpGets400();
    void expectContinueIsAnswered();
    void eventStreamForProgress();
    void notificationsToAClientThatDoesNotReadAreDropped();
    void batchesIn20250326();
    void getStreamReceivesListChanged();
    void deleteEndsSessionAndItsCalls();
    void cancelledNotificationEndsTheCall();
    void closedConnectionCancelsTheCall();
    void sessionsAreEvictedLeastRecentlyUsedFirst();
    void corsPreflight();
    void modernRequestsAreServedWithoutASession();
    void closingAModernCallsStreamCancelsIt();
    void aModernRequestGetsLogMessagesOnlyAtItsOwnLevel();
    void aListenStreamHearsWhatItAskedFor();
    void paramHeadersAreCheckedAgainstTheArguments();
    void randomBodiesNeverBreakTheServer();

    void hugeChunkIsRefusedBeforeItIsBuffered();
    void bareLfHeadWithHugeContentLengthIsRefused();
    void refusedBodyIsDrainedWithoutBuffering();
    void millionsOfEmptyObjectsAreRefused();
    void trickledHeadMeetsItsDeadline();
    void stalledBodyMeetsItsDeadline();
    void connectionsAreCappedOldestIdleFirst();
    void busyConnectionsMakeNewcomersWait503();
    void sessionEvictionIsFairBetweenClients();

    // Local denial of service (issue 23, item 5).
    void halfSentHeadsNeverCrowdOutClientsWithTheToken();
    void strangersNeverCloseAClientsIdleConnection();
    void strangersMakeRoomFromThePeerHoldingTheMost();
    void unauthenticatedBodyIsRefusedFromItsHead();
    void waitingCallsCountAgainstTheirClientOnly();
    void sessionBurstUnderNewNamesEvictsNoOne();
    void connectionCloseIsHonouredForEveryAnswer();
    void websocketUpgradeGetsOneAnswer();
    void requestOnAnOpenEventStreamWaits();
    void pipelinedRequestsAreAnsweredInOrder();
    void pipelinedInOneWriteAreAllAnswered();

    // The execution core (issue 9).
    void oneListChangedPerSourceUpdate();
    void echoIsAnsweredWhileBlockingCallsRun();
    void longCallsGetHeartbeats();
    void deadlineEndsAStuckCall();

private:
    std::unique_ptr<ServerFixture> m_server;
    QByteArray m_session;
};

void TestMcpHttpServer::initTestCase()
{
    m_server = std::make_unique<ServerFixture>();
    QVERIFY(m_server->port != 0);
    m_session = openSession(m_server->port);
    QVERIFY(!m_session.isEmpty());
}

void TestMcpHttpServer::cleanupTestCase()
{
    m_server.reset();
}

void TestMcpHttpServer::httpErrors_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QList<QPair<QByteArray, QByteArray>>>("headerChanges"); // null value removes
    QTest::addColumn<bool>("useSession");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("rpcCode"); // 0: no JSON-RPC error expected

    const QByteArray ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    const QByteArray init = initializeBody();
    using H = QList<QPair<QByteArray, QByteArray>>;

    QTest::newRow("ping ok") << QByteArray("POST") << QByteArray("/mcp") << ping << H{} << true << 200 << 0;
    QTest::newRow("initialize ok") << QByteArray("POST") << QByteArray("/mcp") << init << H{} << false << 200 << 0;
    QTest::newRow("accept any") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Accept", "*/*"}} << false
                                << 200 << 0;
    QTest::newRow("content-type with charset")
        << QByteArray("POST") << QByteArray("/mcp") << ping << H{{"Content-Type", "application/json; charset=utf-8"}}
        << true << 200 << 0;
    QTest::newRow("wrong content-type") << QByteArray("POST") << QByteArray("/mcp") << ping
                                        << H{{"Content-Type", "text/plain"}} << true << 415 << -32000;
    QTest::newRow("no content-type") << QByteArray("POST") << QByteArray("/mcp") << ping
                                     << H{{"Content-Type", QByteArray()}} << true << 415 << -32000;
    QTest::newRow("accept json only") << QByteArray("POST") << QByteArray("/mcp") << ping
                                      << H{{"Accept", "application/json"}} << true << 406 << -32000;
    QTest::newRow("accept sse only") << QByteArray("POST") << QByteArray("/mcp") << ping
                                     << H{{"Accept", "text/event-stream"}} << true << 406 << -32000;
    QTest::newRow("no accept") << QByteArray("POST") << QByteArray("/mcp") << ping << H{{"Accept", QByteArray()}}
                               << true << 406 << -32000;
    QTest::newRow("accept q=0") << QByteArray("POST") << QByteArray("/mcp") << ping
                                << H{{"Accept", "application/json;q=0, text/event-stream;q=0"}} << true << 406
                                << -32000;
    QTest::newRow("accept json q=0 wildcard") << QByteArray("POST") << QByteArray("/mcp") << ping
                                              << H{{"Accept", "application/json;q=0, */*"}} << true << 406 << -32000;
    QTest::newRow("accept weighted") << QByteArray("POST") << QByteArray("/mcp") << ping
                                     << H{{"Accept", "application/json;q=0.5, text/event-stream;q=0.1"}} << true << 200
                                     << 0;
    QTest::newRow("transfer-encoding gzip") << QByteArray("POST") << QByteArray("/mcp") << ping
                                            << H{{"Transfer-Encoding", "gzip"}} << true << 400 << -32700;
    QTest::newRow("transfer-encoding gzip, chunked")
        << QByteArray("POST") << QByteArray("/mcp") << ping << H{{"Transfer-Encoding", "gzip, chunked"}} << true << 400
        << -32700;
    QTest::newRow("content-length and transfer-encoding")
        << QByteArray("POST") << QByteArray("/mcp") << ping << H{{"Transfer-Encoding", "chunked"}} << true << 400
        << -32700;
    QTest::newRow("two content-lengths") << QByteArray("POST") << QByteArray("/mcp") << ping
                                         << H{{"Content-Length", "3"}} << true << 400 << -32700;
    QTest::newRow("bad origin") << QByteArray("POST") << QByteArray("/mcp") << init
                                << H{{"Origin", "http://evil.example.com"}} << false << 403 << -32000;
    QTest::newRow("null origin") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Origin", "null"}} << false
                                 << 403 << -32000;
    QTest::newRow("lookalike origin") << QByteArray("POST") << QByteArray("/mcp") << init
                                      << H{{"Origin", "http://localhost.evil.com"}} << false << 403 << -32000;
    QTest::newRow("loopback origin") << QByteArray("POST") << QByteArray("/mcp") << init
                                     << H{{"Origin", "http://localhost:6274"}} << false << 200 << 0;
    QTest::newRow("ipv6 loopback origin")
        << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Origin", "http://[::1]:6274"}} << false << 200 << 0;
    QTest::newRow("bad host") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Host", "evil.example.com"}}
                              << false << 403 << -32000;
    QTest::newRow("no host") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Host", QByteArray()}} << false
                             << 403 << -32000;
    // The Host's port, when it names one, must be the server's (issue 23, item 7).
    const QByteArray port = QByteArray::number(m_server->port);
    QTest::newRow("host localhost") << QByteArray("POST") << QByteArray("/mcp") << init
                                    << H{{"Host", "LocalHost:" + port}} << false << 200 << 0;
    QTest::newRow("host ipv6") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Host", "[::1]:" + port}}
                               << false << 200 << 0;
    QTest::newRow("host without port") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Host", "127.0.0.1"}}
                                       << false << 200 << 0;
    const auto badHost = [&](const char* name, const QByteArray& host) {
        QTest::newRow(name) << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Host", host}} << false << 403
                            << -32000;
    };
    badHost("host wrong port", "127.0.0.1:" + QByteArray::number(m_server->port == 9999 ? 9998 : 9999));
    badHost("host localhost wrong port", "localhost:" + QByteArray::number(m_server->port ^ 1));
    badHost("host ipv6 wrong port", "[::1]:" + QByteArray::number(m_server->port ^ 1));
    badHost("host port not a number", "localhost:abc");
    badHost("host port out of range", "localhost:99999");
    badHost("host port 65536", "localhost:65536");
    badHost("host port 0", "localhost:0");
    badHost("host port empty", "localhost:");
    badHost("host port with sign", "localhost:+" + port);
    badHost("host port too long", "localhost:0000" + port);
    badHost("host two ports", "localhost:" + port + ":" + port);
    badHost("host ipv6 unclosed", "[::1:" + port);
    badHost("host ipv6 trailing", "[::1]x" + port);
    badHost("host ipv6 port not a number", "[::1]:abc");
    badHost("host port only", ":" + port);
    QTest::newRow("no token") << QByteArray("POST") << QByteArray("/mcp") << init << H{{"Authorization", QByteArray()}}
                              << false << 401 << -32002;
    QTest::newRow("wrong token") << QByteArray("POST") << QByteArray("/mcp") << init
                                 << H{{"Authorization", "Bearer sb_guess"}} << false << 401 << -32002;
    QTest::newRow("token prefix") << QByteArray("POST") << QByteArray("/mcp") << init
                                  << H{{"Authorization", "Bearer " + ServerFixture::token().left(10)}} << false << 401
                                  << -32002;
    QTest::newRow("basic auth") << QByteArray("POST") << QByteArray("/mcp") << init
                                << H{{"Authorization", "Basic " + ServerFixture::token()}} << false << 401 << -32002;
    QTest::newRow("lower-case scheme") << QByteArray("POST") << QByteArray("/mcp") << init
                                       << H{{"Authorization", "bearer " + ServerFixture::token()}} << false << 200 << 0;
    QTest::newRow("parse error") << QByteArray("POST") << QByteArray("/mcp") << QByteArray("{not json") << H{} << true
                                 << 400 << -32700;
    QTest::newRow("invalid utf-8") << QByteArray("POST") << QByteArray("/mcp")
                                   << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xff\"}") << H{} << true
                                   << 400 << -32700;
    QTest::newRow("too deep") << QByteArray("POST") << QByteArray("/mcp")
                              << QByteArray(5000, '[') + QByteArray(5000, ']') << H{} << true << 400 << -32700;
    QTest::newRow("invalid request") << QByteArray("POST") << QByteArray("/mcp")
                                     << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << H{} << true << 400
                                     << -32600;
    QTest::newRow("scalar body") << QByteArray("POST") << QByteArray("/mcp") << QByteArray("42") << H{} << true << 400
                                 << -32600;
    QTest::newRow("unknown method") << QByteArray("POST") << QByteArray("/mcp")
                                    << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"nope"})") << H{} << true << 200
                                    << -32601;
    QTest::newRow("invalid params") << QByteArray("POST") << QByteArray("/mcp")
                                    << QByteArray(
                                           R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}})")
                                    << H{} << true << 200 << -32602;
    QTest::newRow("no session") << QByteArray("POST") << QByteArray("/mcp") << ping << H{} << false << 400 << -32000;
    QTest::newRow("unknown session") << QByteArray("POST") << QByteArray("/mcp") << ping
                                     << H{{"Mcp-Session-Id", "no-such-session"}} << false << 404 << -32001;
    QTest::newRow("unsupported version") << QByteArray("POST") << QByteArray("/mcp") << ping
                                         << H{{"MCP-Protocol-Version", "1999-01-01"}} << true << 400 << -32000;
    QTest::newRow("other supported version") << QByteArray("POST") << QByteArray("/mcp") << ping
                                             << H{{"MCP-Protocol-Version", "2025-11-25"}} << true << 200 << 0;
    QTest::newRow("oldest supported version") << QByteArray("POST") << QByteArray("/mcp") << ping
                                              << H{{"MCP-Protocol-Version", "2025-03-26"}} << true << 200 << 0;
    QTest::newRow("no version header") << QByteArray("POST") << QByteArray("/mcp") << ping
                                       << H{{"MCP-Protocol-Version", QByteArray()}} << true << 200 << 0;
    QTest::newRow("batch in 2025-06-18") << QByteArray("POST") << QByteArray("/mcp") << QByteArray("[" + ping + "]")
                                         << H{} << true << 400 << -32600;
    QTest::newRow("empty batch") << QByteArray("POST") << QByteArray("/mcp") << QByteArray("[]") << H{} << true << 400
                                 << -32600;
    QTest::newRow("initialize in a batch")
        << QByteArray("POST") << QByteArray("/mcp") << QByteArray("[" + init + "]") << H{} << false << 400 << -32600;
    QTest::newRow("initialize in a session")
        << QByteArray("POST") << QByteArray("/mcp") << init << H{} << true << 200 << -32600;
    QTest::newRow("initialize without version")
        << QByteArray("POST") << QByteArray("/mcp")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") << H{} << false << 400 << -32602;
    QTest::newRow("wrong path") << QByteArray("POST") << QByteArray("/other") << ping << H{} << true << 404 << -32000;
    QTest::newRow("put") << QByteArray("PUT") << QByteArray("/mcp") << ping << H{} << true << 405 << -32000;
    QTest::newRow("get without sse accept") << QByteArray("GET") << QByteArray("/mcp") << QByteArray()
                                            << H{{"Accept", "application/json"}} << true << 406 << -32000;
    QTest::newRow("get without session") << QByteArray("GET") << QByteArray("/mcp") << QByteArray() << H{} << false
                                         << 400 << -32000;
    QTest::newRow("delete unknown session") << QByteArray("DELETE") << QByteArray("/mcp") << QByteArray()
                                            << H{{"Mcp-Session-Id", "gone"}} << false << 404 << -32001;
    QTest::newRow("notification") << QByteArray("POST") << QByteArray("/mcp")
                                  << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})")
                                  << H{} << true << 202 << 0;
    QTest::newRow("client response") << QByteArray("POST") << QByteArray("/mcp")
                                     << QByteArray(R"({"jsonrpc":"2.0","id":"srv-1","result":{}})") << H{} << true
                                     << 202 << 0;
}

void TestMcpHttpServer::httpErrors()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(Headers, headerChanges);
    QFETCH(bool, useSession);
    QFETCH(int, status);
    QFETCH(int, rpcCode);

    Headers headers = useSession ? sessionHeaders(m_server->port, m_session) : standardHeaders(m_server->port);
    for (const auto& [name, value] : headerChanges)
        headers = withHeader(headers, name, value);
    RawHttpClient client(m_server->port);
    QByteArray request = RawHttpClient::post(body, headers, path);
    request.replace(0, 4, method);
    client.send(request);
    const RawHttpResponse response = client.read();
    QVERIFY(response.ok);
    QCOMPARE(response.status, status);

    if (status == 202) {
        QVERIFY(response.body.isEmpty());
        return;
    }
    const json parsed = bodyJson(response);
    if (rpcCode == 0) {
        QVERIFY2(parsed.is_object() && parsed.contains("result"), response.body.constData());
    } else {
        QVERIFY2(parsed.is_object() && parsed.contains("error"), response.body.constData());
        QCOMPARE_JSON(parsed["error"]["code"], rpcCode);
        QVERIFY(!parsed["error"]["message"].get<std::string>().empty());
        QCOMPARE_JSON(parsed["jsonrpc"], "2.0");
    }
    if (status == 401) {
        QVERIFY(response.header("www-authenticate").startsWith("Bearer realm=\"switchboard\""));
        QVERIFY(!response.body.contains(ServerFixture::token()));
    }
    if (status == 405)
        QVERIFY(response.header("allow").contains("POST"));
    if (rpcCode == -32700)
        QVERIFY(parsed["id"].is_null());
    // Nothing the server says leaks the token.
    QVERIFY(!response.body.contains(ServerFixture::token()));
}

// A refusal of a request whose body could be read names the request's id (it carried "id": null);
// only what is refused before the body is read (a stranger without the token, a batch, which has no
// one id) answers with null.
void TestMcpHttpServer::refusalsNameTheRequestTheyCouldRead_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QList<QPair<QByteArray, QByteArray>>>("headerChanges"); // null value removes
    QTest::addColumn<bool>("useSession");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("id");
    using H = QList<QPair<QByteArray, QByteArray>>;
    const QByteArray ping = R"({"jsonrpc":"2.0","id":77,"method":"ping"})";
    const QByteArray call = R"({"jsonrpc":"2.0","id":"call-9","method":"tools/call","params":{"name":"echo"}})";
    QTest::newRow("no session") << ping << H{} << false << 400 << QByteArray("77");
    QTest::newRow("unknown session") << call << H{{"Mcp-Session-Id", "no-such-session"}} << false << 404
                                     << QByteArray(R"("call-9")");
    QTest::newRow("unsupported version") << ping << H{{"MCP-Protocol-Version", "1999-01-01"}} << true << 400
                                         << QByteArray("77");
    QTest::newRow("wrong content-type") << call << H{{"Content-Type", "text/plain"}} << true << 415
                                        << QByteArray(R"("call-9")");
    QTest::newRow("not acceptable") << ping << H{{"Accept", "application/json"}} << true << 406 << QByteArray("77");
    QTest::newRow("invalid request") << QByteArray(R"({"jsonrpc":"1.0","id":5,"method":"ping"})") << H{} << true << 400
                                     << QByteArray("5");
    QTest::newRow("batch") << QByteArray("[" + ping + "]") << H{} << true << 400 << QByteArray("null");
    QTest::newRow("no token") << ping << H{{"Authorization", QByteArray()}} << true << 401 << QByteArray("null");
}

void TestMcpHttpServer::refusalsNameTheRequestTheyCouldRead()
{
    QFETCH(QByteArray, body);
    QFETCH(Headers, headerChanges);
    QFETCH(bool, useSession);
    QFETCH(int, status);
    QFETCH(QByteArray, id);
    Headers headers = useSession ? sessionHeaders(m_server->port, m_session) : standardHeaders(m_server->port);
    for (const auto& [name, value] : headerChanges)
        headers = withHeader(headers, name, value);
    RawHttpClient client(m_server->port);
    client.send(RawHttpClient::post(body, headers));
    const RawHttpResponse response = client.read();
    QVERIFY(response.ok);
    QCOMPARE(response.status, status);
    const json parsed = bodyJson(response);
    QVERIFY2(parsed.is_object() && parsed.contains("error") && parsed.contains("id"), response.body.constData());
    QCOMPARE_JSON(parsed["id"], json::parse(id.toStdString()));
    QCOMPARE_JSON(parsed["jsonrpc"], "2.0");
}

void TestMcpHttpServer::sessionIdIsStrongAndVisibleAscii()
{
    QSet<QByteArray> ids;
    for (int i = 0; i < 20; ++i) {
        RawHttpClient client(m_server->port);
        client.send(RawHttpClient::post(initializeBody(), standardHeaders(m_server->port)));
        const QByteArray id = client.read().header("mcp-session-id");
        QVERIFY(id.size() >= 22); // at least 128 bits of base64
        for (char c : id)
            QVERIFY(c >= 0x21 && c <= 0x7e);
        ids.insert(id);
    }
    QCOMPARE(ids.size(), 20);
}

void TestMcpHttpServer::keepAliveServesManyRequests()
{
    RawHttpClient client(m_server->port);
    const Headers headers = sessionHeaders(m_server->port, m_session);
    for (int i = 0; i < 50; ++i) {
        client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i)
                + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"i":)" + QByteArray::number(i) + "}}}",
            headers));
        const auto response = client.read();
        QCOMPARE(response.status, 200);
        QCOMPARE(response.header("content-type"), QByteArray("application/json"));
        QCOMPARE_JSON(bodyJson(response)["result"]["structuredContent"]["i"], i);
    }
    QCOMPARE(client.socket().state(), QAbstractSocket::ConnectedState);
}

void TestMcpHttpServer::connectionCloseIsHonoured()
{
    RawHttpClient client(m_server->port);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
        withHeader(sessionHeaders(m_server->port, m_session), "Connection", "close")));
    QCOMPARE(client.read().status, 200);
    QVERIFY(client.waitForClose());
}

void TestMcpHttpServer::oversizedBodyIsRefusedBeforeItArrives()
{
    RawHttpClient client(m_server->port);
    Headers headers = sessionHeaders(m_server->port, m_session);
    QByteArray head = "POST /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : headers)
        head += name + ": " + value + "\r\n";
    head += "Content-Length: 3000000000\r\n\r\n"; // 3 GB announced, none sent
    client.send(head);
    const auto response = client.read();
    QCOMPARE(response.status, 413);
    QCOMPARE_JSON(bodyJson(response)["error"]["code"], -32600);
    QVERIFY(client.waitForClose());
}

void TestMcpHttpServer::oversizedChunkedBodyIsRefused()
{
    RawHttpClient client(m_server->port);
    QByteArray head = "POST /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(m_server->port, m_session))
        head += name + ": " + value + "\r\n";
    head += "Transfer-Encoding: chunked\r\n\r\n";
    client.send(head);
    const QByteArray piece(256 * 1024, 'x');
    for (int i = 0; i < 20 && client.socket().state() == QAbstractSocket::ConnectedState; ++i) {
        client.socket().write(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n");
        client.socket().waitForBytesWritten(5000);
        if (client.socket().waitForReadyRead(50))
            break;
    }
    const auto response = client.read();
    QCOMPARE(response.status, 413);
}

void TestMcpHttpServer::largeBodyWithinTheLimitWorks()
{
    RawHttpClient client(m_server->port);
    const QByteArray message(3 * 1024 * 1024, 'a');
    client.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":")" + message
            + "\"}}}",
        sessionHeaders(m_server->port, m_session)));
    const auto response = client.read(60'000);
    QCOMPARE(response.status, 200);
    QCOMPARE(bodyJson(response)["result"]["structuredContent"]["message"].get<std::string>().size(),
        std::size_t(message.size()));
}

void TestMcpHttpServer::oversizedHeadIsRefused()
{
    RawHttpClient client(m_server->port);
    QByteArray head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 2000; ++i)
        head += "X-Filler-" + QByteArray::number(i) + ": " + QByteArray(40, 'f') + "\r\n";
    client.send(head);
    QCOMPARE(client.read().status, 431);
}

void TestMcpHttpServer::malformedHttpGets400()
{
    RawHttpClient client(m_server->port);
    client.send("THIS IS NOT HTTP AT ALL\r\n\r\n");
    const auto response = client.read();
    QCOMPARE(response.status, 400);
    QVERIFY(client.waitForClose());
}

void TestMcpHttpServer::expectContinueIsAnswered()
{
    RawHttpClient client(m_server->port);
    const QByteArray body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    QByteArray head = "POST /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(m_server->port, m_session))
        head += name + ": " + value + "\r\n";
    head += "Expect: 100-continue\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
    client.send(head);
    QVERIFY(client.socket().waitForReadyRead(10'000));
    const QByteArray interim = client.socket().peek(25);
    QVERIFY2(interim.startsWith("HTTP/1.1 100 Continue"), interim.constData());
    client.send(body);
    QCOMPARE(client.read().status, 200);
}

void TestMcpHttpServer::eventStreamForProgress()
{
    RawHttpClient client(m_server->port);
    client.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"_meta":{"progressToken":7}}})",
        sessionHeaders(m_server->port, m_session)));
    const auto response = client.read();
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("content-type"), QByteArray("text/event-stream"));
    const auto events = response.events();
    QCOMPARE(events.size(), 2);
    const json progress = json::parse(events.at(0).toStdString());
    QCOMPARE_JSON(progress["method"], "notifications/progress");
    QCOMPARE_JSON(progress["params"]["progressToken"], 7);
    const json result = json::parse(events.at(1).toStdString());
    QCOMPARE_JSON(result["id"], "p");
    QCOMPARE_JSON(result["result"]["structuredContent"]["message"], "x");
    // The connection is reusable after the stream ended.
    client.send(
        RawHttpClient::post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sessionHeaders(m_server->port, m_session)));
    QCOMPARE(client.read().status, 200);
}

// A tool (or an upstream) that floods progress to a client that does not read: past the limit of
// unsent bytes notifications are dropped instead of piling up in memory; the response still comes.
void TestMcpHttpServer::notificationsToAClientThatDoesNotReadAreDropped()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxUnsentNotificationBytes = 64 * 1024;
    ServerFixture server(options);
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    // The test's event loop runs while it waits: the client's socket must not read meanwhile.
    client.socket().setReadBufferSize(64 * 1024);
    // 32 MB of progress: more than the kernel's socket buffers take on loopback.
    constexpr int Count = 2'000;
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"flood",)"
                                    R"("arguments":{"count":2000,"bytes":16384},"_meta":{"progressToken":"p"}}})",
        sessionHeaders(server.port, session)));
    // Not a byte read until the tool has sent everything.
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 30'000);
    const auto response = client.read(60'000);
    QVERIFY(response.ok);
    const auto events = response.events();
    QVERIFY(!events.isEmpty());
    const json result = json::parse(events.last().toStdString());
    QCOMPARE_JSON(result["id"], "f");
    QCOMPARE_JSON(result["result"]["content"][0]["text"], "flooded");
    const qsizetype progressEvents = events.size() - 1;
    QVERIFY2(progressEvents < Count / 2, qPrintable(QString::number(progressEvents)));
}

void TestMcpHttpServer::batchesIn20250326()
{
    const QByteArray session = openSession(m_server->port, "2025-03-26");
    RawHttpClient client(m_server->port);
    client.send(RawHttpClient::post(
        R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
        R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"b":1}}},)"
        R"({"jsonrpc":"1.0","id":3,"method":"ping"}])",
        sessionHeaders(m_server->port, session, "2025-03-26")));
    const auto response = client.read();
    QCOMPARE(response.status, 200);
    const json parsed = bodyJson(response);
    QVERIFY(parsed.is_array());
    QCOMPARE(parsed.size(), std::size_t(3));
    QCOMPARE_JSON(parsed[0]["id"], 1);
    QCOMPARE_JSON(parsed[1]["result"]["structuredContent"]["b"], 1);
    QCOMPARE_JSON(parsed[2]["error"]["code"], -32600);
    QCOMPARE_JSON(parsed[2]["id"], 3);

    // Only notifications: 202.
    client.send(RawHttpClient::post(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])",
        sessionHeaders(m_server->port, session, "2025-03-26")));
    QCOMPARE(client.read().status, 202);
}

void TestMcpHttpServer::getStreamReceivesListChanged()
{
    const QByteArray session = openSession(m_server->port);
    RawHttpClient stream(m_server->port);
    QByteArray get = "GET /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(m_server->port, session))
        get += name + ": " + value + "\r\n";
    get += "\r\n";
    stream.send(get);
    const auto opened = stream.read(15'000, 1);
    QCOMPARE(opened.status, 200);
    QCOMPARE(opened.header("content-type"), QByteArray("text/event-stream"));

    RawHttpClient second(m_server->port);
    second.send(get);
    QCOMPARE(second.read().status, 409);

    m_server->addTool(QStringLiteral("added_later"));
    const QByteArray event = stream.readChunk();
    QVERIFY2(event.contains("notifications/tools/list_changed"), event.constData());
}

void TestMcpHttpServer::deleteEndsSessionAndItsCalls()
{
    const QByteArray session = openSession(m_server->port);
    RawHttpClient caller(m_server->port);
    caller.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})",
        sessionHeaders(m_server->port, session)));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingSlow(), 1, 10'000);
    const int abortedBefore = m_server->abortedWork;

    RawHttpClient deleter(m_server->port);
    QByteArray request = "DELETE /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(m_server->port, session))
        request += name + ": " + value + "\r\n";
    deleter.send(request + "\r\n");
    QCOMPARE(deleter.read().status, 204);

    // The in-flight call ends without a JSON-RPC response; its work was aborted.
    const auto ended = caller.read();
    QCOMPARE(ended.status, 200);
    QVERIFY(ended.events().isEmpty());
    QCOMPARE(m_server->abortedWork, abortedBefore + 1);
    const auto calls = m_server->finishedCalls();
    QCOMPARE(calls.last().status, CallStatus::Cancelled);
    QCOMPARE(calls.last().error, QStringLiteral("session deleted by the client"));

    caller.send(
        RawHttpClient::post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sessionHeaders(m_server->port, session)));
    QCOMPARE(caller.read().status, 404);
}

void TestMcpHttpServer::cancelledNotificationEndsTheCall()
{
    RawHttpClient caller(m_server->port);
    caller.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow"}})",
        sessionHeaders(m_server->port, m_session)));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingSlow(), 1, 10'000);
    RawHttpClient canceller(m_server->port);
    canceller.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"test"}})",
        sessionHeaders(m_server->port, m_session)));
    QCOMPARE(canceller.read().status, 202);
    const auto ended = caller.read();
    QCOMPARE(ended.status, 200);
    QVERIFY(ended.events().isEmpty());
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Cancelled);
    QCOMPARE(m_server->pendingSlow(), 0);
}

void TestMcpHttpServer::closedConnectionCancelsTheCall()
{
    const int abortedBefore = m_server->abortedWork;
    {
        RawHttpClient caller(m_server->port);
        caller.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"slow"}})",
            sessionHeaders(m_server->port, m_session)));
        QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingSlow(), 1, 10'000);
        caller.socket().abort();
    }
    QTRY_COMPARE_WITH_TIMEOUT(int(m_server->abortedWork), abortedBefore + 1, 10'000);
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Cancelled);
    QCOMPARE(m_server->finishedCalls().last().error, QStringLiteral("the client closed the connection"));
}

void TestMcpHttpServer::sessionsAreEvictedLeastRecentlyUsedFirst()
{
    // Activity times come from a clock the test moves: no sleeps to make them distinct.
    auto now = std::make_shared<std::atomic<qint64>>(1'000'000);
    McpServerOptions options = ServerFixture::defaultOptions();
    options.maxSessions = 2;
    options.clock = [now] { return now->load(); };
    ServerFixture small(options);
    const QByteArray first = openSession(small.port);
    *now += 1000;
    const QByteArray second = openSession(small.port);
    *now += 1000;
    // Touch the first so the second is the least recently used.
    RawHttpClient client(small.port);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sessionHeaders(small.port, first)));
    QCOMPARE(client.read().status, 200);
    *now += 1000;
    openSession(small.port);
    QCOMPARE(small.sessionCount(), 2);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", sessionHeaders(small.port, second)));
    QCOMPARE(client.read().status, 404);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":3,"method":"ping"})", sessionHeaders(small.port, first)));
    QCOMPARE(client.read().status, 200);
}

// MCP 2026-07-28 beside the 2025 sessions (issue 25, item 1): a request that carries its version,
// its client and its capabilities in `_meta` is answered with no initialize and no session, with
// the answers the SDK v2 reference server gives (docs/protocol/reference-v2-observed.md); a 2025
// request is answered as before.
void TestMcpHttpServer::modernRequestsAreServedWithoutASession()
{
    const int sessionsBefore = m_server->sessionCount();
    const quint16 port = m_server->port;
    const QByteArray meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                            R"("io.modelcontextprotocol/clientInfo":{"name":"v2-client","version":"2.4.0"},)"
                            R"("io.modelcontextprotocol/clientCapabilities":{}})";
    RawHttpClient client(port);
    const auto ask = [&client](const QByteArray& body, const Headers& headers) {
        client.send(RawHttpClient::post(body, headers));
        return client.read();
    };
    const auto resultOf = [](const RawHttpResponse& response) {
        return json::parse(response.body.toStdString()).value("result", json());
    };
    const auto errorOf = [](const RawHttpResponse& response) {
        return json::parse(response.body.toStdString()).value("error", json());
    };

    // server/discover: the versions, capabilities and who answers.
    RawHttpResponse response = ask(R"({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{)" + meta + "}}",
        modernHeaders(port, "server/discover"));
    QCOMPARE(response.status, 200);
    QVERIFY(response.header("mcp-session-id").isEmpty());
    json result = resultOf(response);
    QCOMPARE_JSON(result["supportedVersions"], json::array({"2026-07-28"}));
    QCOMPARE_JSON(result["resultType"], json("complete"));
    QCOMPARE_JSON(result["ttlMs"], json(0));
    QCOMPARE_JSON(result["cacheScope"], json("private"));
    QVERIFY(result["capabilities"]["tools"].is_object());
    QVERIFY(result["capabilities"]["extensions"].is_object());
    QCOMPARE_JSON(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], json("switchboard"));
    QVERIFY(!result.contains("serverInfo"));

    // tools/list: the tools in name order, cacheable for no time.
    response = ask(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{)" + meta + "}}", modernHeaders(port, "tools/list"));
    QCOMPARE(response.status, 200);
    result = resultOf(response);
    QVERIFY(result["tools"].size() > 2);
    std::vector<std::string> names;
    for (const json& tool : result["tools"])
        names.push_back(tool["name"].get<std::string>());
    QVERIFY(std::is_sorted(names.begin(), names.end()));
    QCOMPARE_JSON(result["resultType"], json("complete"));
    QCOMPARE_JSON(result["ttlMs"], json(0));
    QCOMPARE_JSON(result["cacheScope"], json("private"));
    QVERIFY(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

    // tools/call: echo, recorded under the client the envelope names.
    response = ask(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":)"
                   R"({"message":"stateless"},)"
            + meta + "}}",
        modernHeaders(port, "tools/call", "echo"));
    QCOMPARE(response.status, 200);
    result = resultOf(response);
    QCOMPARE_JSON(result["resultType"], json("complete"));
    QVERIFY2(result.dump().find("stateless") != std::string::npos, result.dump().c_str());
    QVERIFY(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    QTRY_VERIFY(!m_server->finishedCalls().isEmpty()
        && m_server->finishedCalls().last().clientName == QStringLiteral("v2-client"));
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Ok);

    // The refusals, as the reference server gives them.
    response
        = ask(R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{)" + meta + "}}", modernHeaders(port, {}));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32020));
    QCOMPARE_JSON(errorOf(response)["data"]["mismatch"]["header"], json("(missing)"));
    response = ask(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo",)" + meta + "}}",
        modernHeaders(port, "tools/call", "=?base64?b3RoZXI=?="));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["data"]["mismatch"]["header"], json("other"));
    response = ask(R"({"jsonrpc":"2.0","id":6,"method":"resources/list","params":{)" + meta + "}}",
        modernHeaders(port, "resources/list"));
    QCOMPARE(response.status, 404);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32601));
    response = ask(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}})", modernHeaders(port, "tools/list"));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32602));
    QCOMPARE_JSON(errorOf(response)["data"]["envelope"]["missing"], json::array({"_meta"}));
    QByteArray later = meta;
    later.replace("2026-07-28", "2027-01-01");
    response = ask(R"({"jsonrpc":"2.0","id":8,"method":"tools/list","params":{)" + later + "}}",
        modernHeaders(port, "tools/list", {}, "2027-01-01"));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32022));
    QCOMPARE_JSON(errorOf(response)["data"]["requested"], json("2027-01-01"));
    QCOMPARE_JSON(errorOf(response)["data"]["supported"], json::array({"2026-07-28"}));
    response = ask(R"([{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{)" + meta + "}}]",
        modernHeaders(port, "tools/list"));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32600));
    response = ask(R"({"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2026-07-28"}})",
        modernHeaders(port, "initialize"));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32020));
    response = ask(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,)" + meta + "}}",
        modernHeaders(port, "notifications/cancelled"));
    QCOMPARE(response.status, 202);
    // A refused token is not -32002 in a 2026 answer.
    response = ask(R"({"jsonrpc":"2.0","id":11,"method":"tools/list","params":{)" + meta + "}}",
        withHeader(
            modernHeaders(port, "tools/list"), "Authorization", "Bearer wrong-token-0123456789abcdef0123456789"));
    QCOMPARE(response.status, 401);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32600));

    // A 2025 client sees what it saw: without a session, the session is asked for.
    response = ask(R"({"jsonrpc":"2.0","id":12,"method":"tools/list"})", standardHeaders(port));
    QCOMPARE(response.status, 400);
    QCOMPARE_JSON(errorOf(response)["code"], json(-32000));
    // And none of this opened a session; the requests' own are gone with their answers.
    QCOMPARE(m_server->sessionCount(), sessionsBefore);
    QTRY_COMPARE(m_server->requestSessionCount(), 0);
}

// A 2026 call has no session to cancel it by: closing its response stream does (and the request's
// own session goes with it, as it goes after every answer).
void TestMcpHttpServer::closingAModernCallsStreamCancelsIt()
{
    const int abortedBefore = m_server->abortedWork;
    const QByteArray meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                            R"("io.modelcontextprotocol/clientCapabilities":{}})";
    {
        RawHttpClient caller(m_server->port);
        caller.send(RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"slow",)" + meta + "}}",
            modernHeaders(m_server->port, "tools/call", "slow")));
        QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingSlow(), 1, 10'000);
        QCOMPARE(m_server->requestSessionCount(), 1);
        caller.socket().abort();
    }
    QTRY_COMPARE_WITH_TIMEOUT(int(m_server->abortedWork), abortedBefore + 1, 10'000);
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Cancelled);
    QCOMPARE(m_server->finishedCalls().last().clientName, QStringLiteral("unknown client"));
    QTRY_COMPARE(m_server->requestSessionCount(), 0);
}

// In 2026-07-28 the log level is the request's own (`_meta` io.modelcontextprotocol/logLevel), and
// a request without one gets no log messages (a 2025 session gets info and above until it sets its
// level). echo logs its arguments at debug level, warn a warning.
void TestMcpHttpServer::aModernRequestGetsLogMessagesOnlyAtItsOwnLevel()
{
    const auto call = [this](const char* level, const char* tool = "echo") {
        json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
            {"io.modelcontextprotocol/clientCapabilities", json::object()}};
        if (level)
            meta["io.modelcontextprotocol/logLevel"] = level;
        const json body{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
            {"params", {{"name", tool}, {"arguments", {{"message", "logged?"}}}, {"_meta", meta}}}};
        RawHttpClient client(m_server->port);
        client.send(RawHttpClient::post(
            QByteArray::fromStdString(body.dump()), modernHeaders(m_server->port, "tools/call", tool)));
        return client.read();
    };
    RawHttpResponse response = call("debug");
    QCOMPARE(response.status, 200);
    QVERIFY2(response.body.contains("notifications/message"), response.body.constData());
    response = call("warning");
    QCOMPARE(response.status, 200);
    QVERIFY2(!response.body.contains("notifications/message"), response.body.constData());
    response = call(nullptr);
    QCOMPARE(response.status, 200);
    QVERIFY2(!response.body.contains("notifications/message"), response.body.constData());
    QVERIFY(response.body.contains("logged?"));
    response = call("warning", "warn");
    QVERIFY2(response.body.contains("notifications/message"), response.body.constData());
    response = call(nullptr, "warn");
    QCOMPARE(response.status, 200);
    QVERIFY2(!response.body.contains("notifications/message"), response.body.constData());
    QVERIFY(response.body.contains("warned"));
}

// subscriptions/listen (2026-07-28): the stream's first message acknowledges what the server will
// tell (the tool list's changes; prompts it cannot, so they are left out), every notification on it
// names the subscription, a stream that did not ask hears nothing, and a closed stream is gone.
void TestMcpHttpServer::aListenStreamHearsWhatItAskedFor()
{
    const auto open = [this](RawHttpClient& client, const json& id, const json& filter) {
        const json body{{"jsonrpc", "2.0"}, {"id", id}, {"method", "subscriptions/listen"},
            {"params",
                {{"notifications", filter},
                    {"_meta",
                        {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                            {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
        client.send(RawHttpClient::post(
            QByteArray::fromStdString(body.dump()), modernHeaders(m_server->port, "subscriptions/listen")));
        const RawHttpResponse head = client.read(15'000, 1);
        QCOMPARE(head.status, 200);
        QCOMPARE(head.header("content-type"), QByteArray("text/event-stream"));
    };
    const auto nextEvent = [](RawHttpClient& client) {
        for (int i = 0; i < 10; ++i) {
            const QByteArray chunk = client.readChunk();
            for (const QByteArray& line : chunk.split('\n')) {
                if (line.startsWith("data: "))
                    return json::parse(line.mid(6).toStdString());
            }
            if (chunk.isEmpty())
                break;
        }
        return json();
    };
    const int before = m_server->listenStreamCount();
    RawHttpClient tools(m_server->port);
    open(tools, "listen-1", json{{"toolsListChanged", true}, {"promptsListChanged", true}});
    json event = nextEvent(tools);
    QCOMPARE_JSON(event["method"], json("notifications/subscriptions/acknowledged"));
    QCOMPARE_JSON(event["params"]["notifications"], (json{{"toolsListChanged", true}}));
    QCOMPARE_JSON(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json("listen-1"));
    RawHttpClient nothing(m_server->port);
    open(nothing, 7, json::object());
    event = nextEvent(nothing);
    QCOMPARE_JSON(event["params"]["notifications"], json::object());
    QCOMPARE_JSON(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json(7));
    QTRY_COMPARE(m_server->listenStreamCount(), before + 2);

    m_server->addTool(QStringLiteral("added_for_listeners"));
    event = nextEvent(tools);
    QCOMPARE_JSON(event["method"], json("notifications/tools/list_changed"));
    QCOMPARE_JSON(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json("listen-1"));
    // The other stream asked for nothing: keep-alive comments at most, no event.
    QVERIFY(!nothing.socket().waitForReadyRead(300) || !nothing.socket().peek(4096).contains("data: "));

    // A filter that is not an object is refused.
    RawHttpClient bad(m_server->port);
    const json badBody{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "subscriptions/listen"},
        {"params",
            {{"_meta",
                {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                    {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
    bad.send(RawHttpClient::post(
        QByteArray::fromStdString(badBody.dump()), modernHeaders(m_server->port, "subscriptions/listen")));
    QCOMPARE(bad.read().status, 400);

    tools.socket().abort();
    nothing.socket().abort();
    QTRY_COMPARE(m_server->listenStreamCount(), before);
}

// A tool whose schema marks an argument with x-mcp-header: a 2026-07-28 call must carry it in its
// Mcp-Param-* header too, equal (Base64 decoded), or it is refused with -32020 before it runs.
void TestMcpHttpServer::paramHeadersAreCheckedAgainstTheArguments()
{
    const auto call = [this](const json& arguments, const QByteArray& region) {
        const json body{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
            {"params",
                {{"name", "tagged"}, {"arguments", arguments},
                    {"_meta",
                        {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                            {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
        Headers headers = modernHeaders(m_server->port, "tools/call", "tagged");
        if (!region.isEmpty())
            headers = withHeader(headers, "Mcp-Param-Region", region);
        RawHttpClient client(m_server->port);
        client.send(RawHttpClient::post(QByteArray::fromStdString(body.dump()), headers));
        return client.read();
    };
    QCOMPARE(call(json{{"region", "eu-west"}}, "eu-west").status, 200);
    QCOMPARE(call(json{{"region", "Zürich"}}, "=?base64?WsO8cmljaA==?=").status, 200);
    QCOMPARE(call(json::object(), {}).status, 200); // absent: no header expected
    RawHttpResponse refused = call(json{{"region", "eu-west"}}, {});
    QCOMPARE(refused.status, 400);
    QCOMPARE_JSON(bodyJson(refused)["error"]["code"], json(-32020));
    refused = call(json{{"region", "eu-west"}}, "us-east");
    QCOMPARE(refused.status, 400);
    QCOMPARE_JSON(bodyJson(refused)["error"]["data"]["mismatch"]["header"], json("us-east"));
}

void TestMcpHttpServer::corsPreflight()
{
    RawHttpClient client(m_server->port);
    client.send("OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://localhost:6274\r\n"
                "Access-Control-Request-Method: POST\r\n\r\n");
    const auto response = client.read();
    QCOMPARE(response.status, 204);
    QCOMPARE(response.header("access-control-allow-origin"), QByteArray("http://localhost:6274"));
    QVERIFY(response.header("access-control-allow-headers").contains("Mcp-Session-Id"));
    QVERIFY(response.header("access-control-allow-headers").contains("Authorization"));

    RawHttpClient evil(m_server->port);
    evil.send("OPTIONS /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n\r\n");
    QCOMPARE(evil.read().status, 403);
}

void TestMcpHttpServer::randomBodiesNeverBreakTheServer()
{
    // Mutations of a valid call: the server must answer every one with a well-formed HTTP response
    // and stay up.
    const QByteArray valid
        = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi","n":[1,2,{"x":null}]}}})";
    // Seeded, and the seed printed, so that a failure can be replayed: SWITCHBOARD_FUZZ_SEED=<seed>.
    bool seedGiven = false;
    const quint32 seed = qEnvironmentVariableIsSet("SWITCHBOARD_FUZZ_SEED")
        ? quint32(qEnvironmentVariable("SWITCHBOARD_FUZZ_SEED").toUInt(&seedGiven))
        : QRandomGenerator::system()->generate();
    if (qEnvironmentVariableIsSet("SWITCHBOARD_FUZZ_SEED"))
        QVERIFY2(seedGiven, "SWITCHBOARD_FUZZ_SEED must be an unsigned 32-bit number");
    qInfo("randomBodiesNeverBreakTheServer: seed %u (replay with SWITCHBOARD_FUZZ_SEED=%u)", seed, seed);
    QRandomGenerator generator(seed);
    auto* random = &generator;
    RawHttpClient client(m_server->port);
    const Headers headers = sessionHeaders(m_server->port, m_session);
    for (int i = 0; i < 300; ++i) {
        QByteArray body = valid;
        const int edits = 1 + int(random->bounded(4));
        for (int e = 0; e < edits; ++e) {
            const int at = int(random->bounded(int(body.size())));
            switch (random->bounded(3)) {
            case 0:
                body[at] = char(random->bounded(256));
                break;
            case 1:
                body.remove(at, 1 + int(random->bounded(5)));
                break;
            default:
                body.insert(at, QByteArray(1 + int(random->bounded(3)), "{[\"]}:,\\"[random->bounded(8)]));
                break;
            }
        }
        client.send(RawHttpClient::post(body, headers));
        const auto response = client.read();
        QVERIFY2(response.ok, body.toPercentEncoding().constData());
        QVERIFY2(response.status == 200 || response.status == 400 || response.status == 202, body.constData());
        if (response.status == 202)
            QVERIFY(response.body.isEmpty()); // the mutation turned the call into a notification
        else
            QVERIFY(bodyJson(response).is_object() || bodyJson(response).is_array());
    }
    RawHttpClient after(m_server->port);
    after.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", headers));
    QCOMPARE(after.read().status, 200);
}

void TestMcpHttpServer::hugeChunkIsRefusedBeforeItIsBuffered()
{
    // A chunk announcing 2 GiB: refused as soon as its size line arrives, before Qt's parser could
    // reserve room for it, and whatever follows is drained, not kept.
    QVERIFY(resetPeakResident());
    const qint64 before = peakResidentBytes();
    RawHttpClient client(m_server->port);
    client.send(headOf(sessionHeaders(m_server->port, m_session)) + "Transfer-Encoding: chunked\r\n\r\n7fffffff\r\n");
    const auto response = client.read();
    QCOMPARE(response.status, 413);
    QCOMPARE_JSON(bodyJson(response)["error"]["code"], -32600);
    keepSending(client, 64 * 1024 * 1024);
    QVERIFY(client.waitForClose());
    verifyPeakGrowth(before, 24 * 1024 * 1024);
}

void TestMcpHttpServer::bareLfHeadWithHugeContentLengthIsRefused()
{
    // Qt's parser ends a head at LF LF too; the guard must see the same end, and the 100 MB length.
    QVERIFY(resetPeakResident());
    const qint64 before = peakResidentBytes();
    RawHttpClient client(m_server->port);
    client.send(headOf(sessionHeaders(m_server->port, m_session), "POST /mcp HTTP/1.1", "\n")
        + "Content-Length: 100000000\n\n");
    const auto response = client.read();
    QCOMPARE(response.status, 413);
    keepSending(client, 64 * 1024 * 1024);
    QVERIFY(client.waitForClose());
    verifyPeakGrowth(before, 24 * 1024 * 1024);
    if (QTest::currentTestFailed())
        return;

    // A well-formed request with bare LF line endings is served as Qt's parser reads it.
    RawHttpClient polite(m_server->port);
    const QByteArray body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    polite.send(headOf(sessionHeaders(m_server->port, m_session), "POST /mcp HTTP/1.1", "\n")
        + "Content-Length: " + QByteArray::number(body.size()) + "\n\n" + body);
    QCOMPARE(polite.read().status, 200);
}

void TestMcpHttpServer::refusedBodyIsDrainedWithoutBuffering()
{
    // A chunked body that grows past the limit in small chunks: refused once past it, and the rest
    // is drained rather than kept in the socket's transaction.
    QVERIFY(resetPeakResident());
    const qint64 before = peakResidentBytes();
    RawHttpClient client(m_server->port);
    client.send(headOf(sessionHeaders(m_server->port, m_session)) + "Transfer-Encoding: chunked\r\n\r\n");
    const QByteArray piece(64 * 1024, 'x');
    const QByteArray chunk = QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    for (int i = 0; i < 1024 && client.socket().state() == QAbstractSocket::ConnectedState; ++i) {
        client.socket().write(chunk);
        if (!client.socket().waitForBytesWritten(5000))
            break;
        if (client.socket().bytesAvailable() > 0)
            break;
    }
    QCOMPARE(client.read().status, 413);
    keepSending(client, 64 * 1024 * 1024);
    client.waitForClose();
    verifyPeakGrowth(before, 40 * 1024 * 1024);
}

void TestMcpHttpServer::millionsOfEmptyObjectsAreRefused()
{
    // Almost 4 MiB of "{}" (1.4 million values) would parse into some 440 MB of DOM.
    QVERIFY(resetPeakResident());
    const qint64 before = peakResidentBytes();
    QByteArray body = "[";
    body.reserve(4 * 1024 * 1024);
    while (body.size() < 4 * 1024 * 1024 - 8)
        body += "{},";
    body += "{}]";
    RawHttpClient client(m_server->port);
    client.send(RawHttpClient::post(body, sessionHeaders(m_server->port, m_session)));
    const auto response = client.read(60'000);
    QCOMPARE(response.status, 400);
    const json error = bodyJson(response)["error"];
    QCOMPARE_JSON(error["code"], -32700);
    QVERIFY2(error["message"].get<std::string>().find("100000 values") != std::string::npos, response.body.constData());
    verifyPeakGrowth(before, 96 * 1024 * 1024);
}

void TestMcpHttpServer::trickledHeadMeetsItsDeadline()
{
    // A byte now and then keeps a connection busy but never finishes the head: the head's total
    // deadline ends it, however lively the trickle.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.headTimeoutMs = 1000;
    ServerFixture server(options);
    RawHttpClient client(server.port);
    const QByteArray head = headOf(standardHeaders(server.port));
    RawHttpResponse response;
    for (qsizetype i = 0; i < head.size() && !response.ok; ++i) {
        client.send(head.mid(i, 1));
        response = client.read(200);
    }
    QVERIFY2(response.ok, "the trickle outlived the whole head");
    QCOMPARE(response.status, 408);
    QVERIFY(client.waitForClose());
}

void TestMcpHttpServer::stalledBodyMeetsItsDeadline()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.bodyTimeoutMs = 1000;
    ServerFixture server(options);
    RawHttpClient client(server.port);
    client.send(headOf(standardHeaders(server.port)) + "Content-Length: 100\r\n\r\n{\"jsonrpc\":");
    const auto response = client.read(60'000);
    QCOMPARE(response.status, 408);
    QVERIFY(client.waitForClose());
}

void TestMcpHttpServer::connectionsAreCappedOldestIdleFirst()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 4;
    ServerFixture server(options);
    std::vector<std::unique_ptr<RawHttpClient>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<RawHttpClient>(server.port));
        idle.back()->send(RawHttpClient::post(initializeBody(), standardHeaders(server.port)));
        QCOMPARE(idle.back()->read().status, 200);
    }
    // The fifth connection is served; the connection idle the longest made room for it.
    RawHttpClient newcomer(server.port);
    newcomer.send(RawHttpClient::post(initializeBody(), standardHeaders(server.port)));
    QCOMPARE(newcomer.read().status, 200);
    QVERIFY(idle.front()->waitForClose());
    for (std::size_t i = 1; i < idle.size(); ++i)
        QCOMPARE(idle[i]->socket().state(), QAbstractSocket::ConnectedState);
}

void TestMcpHttpServer::busyConnectionsMakeNewcomersWait503()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 2;
    ServerFixture server(options);
    // Two clients (one waiting call each is all a client may hold of two connections).
    const QList<QByteArray> sessions{openSession(server.port, "2025-06-18", "first-client"),
        openSession(server.port, "2025-06-18", "second-client")};
    std::vector<std::unique_ptr<RawHttpClient>> busy;
    for (int i = 0; i < 2; ++i) {
        busy.push_back(std::make_unique<RawHttpClient>(server.port));
        busy.back()->send(RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i) + R"(,"method":"tools/call","params":{"name":"slow"}})",
            sessionHeaders(server.port, sessions.at(i))));
    }
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingSlow(), 2, 10'000);
    RawHttpClient refused(server.port);
    const auto response = refused.read();
    QCOMPARE(response.status, 503);
    QCOMPARE_JSON(bodyJson(response)["error"]["code"], -32000);
    QVERIFY(refused.waitForClose());
    server.releaseSlow(QStringLiteral("done"));
    for (auto& client : busy)
        QCOMPARE(client->read().status, 200);
}

void TestMcpHttpServer::sessionEvictionIsFairBetweenClients()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.maxSessions = 3;
    ServerFixture server(options);
    const QByteArray victim = openSession(server.port, "2025-06-18", "quiet-client");
    for (int i = 0; i < 8; ++i)
        QVERIFY(!openSession(server.port, "2025-06-18", "flooding-client").isEmpty());
    QCOMPARE(server.sessionCount(), 3);
    RawHttpClient client(server.port);
    client.send(
        RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sessionHeaders(server.port, victim)));
    QCOMPARE(client.read().status, 200);
}

namespace {

// A connection that has sent half a request head and no token, as a local process that wants to
// crowd the server out would hold it.
std::unique_ptr<RawHttpClient> halfSentHead(quint16 port)
{
    auto client = std::make_unique<RawHttpClient>(port);
    client->send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) + "\r\n");
    return client;
}

QByteArray echoCall(int id)
{
    return R"({"jsonrpc":"2.0","id":)" + QByteArray::number(id)
        + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"call )" + QByteArray::number(id)
        + R"("}}})";
}

// One echo call on a new connection: whether it was answered with its own result.
bool echoAnswered(quint16 port, const QByteArray& session, int id)
{
    RawHttpClient client(port);
    client.send(RawHttpClient::post(echoCall(id), sessionHeaders(port, session)));
    const RawHttpResponse response = client.read();
    return response.ok && response.status == 200 && response.body.contains("\"result\"")
        && response.body.contains(QByteArray("call " + QByteArray::number(id)));
}

} // namespace

void TestMcpHttpServer::halfSentHeadsNeverCrowdOutClientsWithTheToken()
{
    // All local processes share 127.0.0.1. One without the token keeps more half-sent heads open
    // than the server takes connections, and opens new ones before every call of a client with the
    // token: every one of that client's calls is still answered, each on a new connection.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 8;
    ServerFixture server(options);
    const QByteArray session = openSession(server.port);
    std::vector<std::unique_ptr<RawHttpClient>> strangers;
    constexpr int Calls = 10;
    int answered = 0;
    for (int call = 0; call < Calls; ++call) {
        for (int i = 0; i < 12; ++i)
            strangers.push_back(halfSentHead(server.port));
        answered += echoAnswered(server.port, session, call) ? 1 : 0;
    }
    QCOMPARE(answered, Calls);
    // The strangers made room for each other, oldest first, and were told why.
    const RawHttpResponse evicted = strangers.front()->read();
    QCOMPARE(evicted.status, 503);
    QVERIFY(!evicted.header("retry-after").isEmpty());
    QCOMPARE_JSON(bodyJson(evicted)["error"]["code"], -32000);
    QVERIFY(strangers.front()->waitForClose());
}

void TestMcpHttpServer::strangersNeverCloseAClientsIdleConnection()
{
    // A client with the token keeps its connection open between calls; strangers filling every
    // connection the server takes never close it, idle as it is.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 8;
    ServerFixture server(options);
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(echoCall(1), sessionHeaders(server.port, session)));
    QCOMPARE(client.read().status, 200);
    // Strangers that were refused for want of the token and stay connected, idle (each one's
    // answer is read, so the server has seen each before the next arrives).
    std::vector<std::unique_ptr<RawHttpClient>> strangers;
    for (int i = 0; i < 20; ++i) {
        strangers.push_back(std::make_unique<RawHttpClient>(server.port));
        strangers.back()->send(
            RawHttpClient::post(echoCall(i), withHeader(standardHeaders(server.port), "Authorization", QByteArray())));
        QCOMPARE(strangers.back()->read().status, 401);
    }
    client.send(RawHttpClient::post(echoCall(3), sessionHeaders(server.port, session)));
    const RawHttpResponse response = client.read();
    QVERIFY2(response.ok, "the idle connection of the client with the token was closed");
    QCOMPARE(response.status, 200);
}

void TestMcpHttpServer::strangersMakeRoomFromThePeerHoldingTheMost()
{
    // Strangers at another loopback address (a remote peer, when the server listens beyond loopback)
    // keep their connection while one address floods: the flood makes room from its own.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 8; // four for strangers
    ServerFixture server(options);
    QTcpSocket other;
    QVERIFY2(other.bind(QHostAddress(QStringLiteral("127.0.0.2"))), qPrintable(other.errorString()));
    other.connectToHost(QHostAddress::LocalHost, server.port);
    QVERIFY(other.waitForConnected(10'000));
    other.write("POST /mcp HTTP/1.1\r\n");
    QVERIFY(other.waitForBytesWritten(10'000));
    std::vector<std::unique_ptr<RawHttpClient>> flood;
    for (int i = 0; i < 12; ++i)
        flood.push_back(halfSentHead(server.port));
    QCOMPARE(flood.front()->read().status, 503);
    QVERIFY(flood.front()->waitForClose());
    // The other address's connection, the oldest of all, is still open: it finishes its request.
    const QByteArray body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    const QByteArray session = openSession(server.port);
    QByteArray rest;
    for (const auto& [name, value] : sessionHeaders(server.port, session))
        rest += name + ": " + value + "\r\n";
    other.write(rest + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QVERIFY(other.waitForBytesWritten(10'000));
    QByteArray answer;
    while (!answer.contains("\r\n\r\n") && other.waitForReadyRead(15'000))
        answer += other.readAll();
    QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
}

void TestMcpHttpServer::unauthenticatedBodyIsRefusedFromItsHead()
{
    // Without a valid token a request is refused anyway: its body is not read (a stranger's
    // connections hold a head and a small body at most), and the answer comes from the head alone.
    const quint16 port = m_server->port;
    const struct
    {
        QByteArray authorization;
        QByteArray framing;
        QByteArray challenge;
    } cases[] = {
        {QByteArray(), "Content-Length: 1048576\r\n\r\n", R"(Bearer realm="switchboard")"},
        {"Bearer sb_guessed-token-0000000000000000", "Content-Length: 1048576\r\n\r\n",
            R"(Bearer realm="switchboard", error="invalid_token")"},
        {QByteArray(), "Transfer-Encoding: chunked\r\n\r\n100000\r\n", R"(Bearer realm="switchboard")"},
    };
    for (const auto& [authorization, framing, challenge] : cases) {
        RawHttpClient client(port);
        client.send(headOf(withHeader(standardHeaders(port), "Authorization", authorization)) + framing);
        const RawHttpResponse response = client.read(60'000);
        QCOMPARE(response.status, 401);
        QCOMPARE(response.header("www-authenticate"), challenge);
        QCOMPARE_JSON(bodyJson(response)["error"]["code"], -32002);
        QVERIFY(client.waitForClose());
    }
    // A small body without a token still reaches the server, which says the same (and keeps the
    // connection); with the token, the same large body is read and answered.
    RawHttpClient small(port);
    small.send(RawHttpClient::post(initializeBody(), withHeader(standardHeaders(port), "Authorization", QByteArray())));
    QCOMPARE(small.read().status, 401);
    small.send(RawHttpClient::post(initializeBody(), standardHeaders(port)));
    QCOMPARE(small.read().status, 200);
}

void TestMcpHttpServer::waitingCallsCountAgainstTheirClientOnly()
{
    // A client holding calls open (waiting for a person, or long-running) fills its own allowance,
    // not the connections every other local client shares: the others' calls are all answered.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.limits.maxConnections = 8; // four for strangers; of the other four, two per client
    ServerFixture server(options);
    const QByteArray greedy = openSession(server.port, "2025-06-18", "greedy-client");
    const QByteArray other = openSession(server.port, "2025-06-18", "other-client");
    constexpr int Held = 8;
    std::vector<std::unique_ptr<RawHttpClient>> calls;
    for (int i = 0; i < Held; ++i) {
        calls.push_back(std::make_unique<RawHttpClient>(server.port));
        calls.back()->send(RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i) + R"(,"method":"tools/call","params":{"name":"slow"}})",
            sessionHeaders(server.port, greedy)));
    }
    // Every call is either running or refused at once; count which.
    std::vector<RawHttpResponse> refusals;
    std::vector<bool> answered(Held, false);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (int i = 0; i < Held; ++i) {
                if (answered[i])
                    continue;
                RawHttpResponse response = calls[i]->read(20);
                if (response.ok) {
                    answered[i] = true;
                    refusals.push_back(response);
                }
            }
            return int(refusals.size()) + server.pendingSlow() == Held;
        }(),
        30'000);
    QCOMPARE(server.pendingSlow(), 2);
    QCOMPARE(int(refusals.size()), Held - 2);
    for (const RawHttpResponse& refusal : refusals) {
        QCOMPARE(refusal.status, 503);
        QCOMPARE(refusal.header("retry-after"), QByteArray("1"));
        const json error = bodyJson(refusal)["error"];
        QCOMPARE_JSON(error["code"], -32000);
        QVERIFY2(error["message"].get<std::string>().find("\"greedy-client\"") != std::string::npos,
            refusal.body.constData());
        QVERIFY(bodyJson(refusal)["id"].is_number());
    }

    // The other client's calls, each on a new connection, are all answered meanwhile.
    constexpr int OtherCalls = 10;
    int otherAnswered = 0;
    for (int i = 0; i < OtherCalls; ++i)
        otherAnswered += echoAnswered(server.port, other, i) ? 1 : 0;
    QCOMPARE(otherAnswered, OtherCalls);

    // An event stream held open counts too: the greedy client has no room for one, the other has.
    Headers streamHeaders = withHeader(sessionHeaders(server.port, greedy), "Content-Type", QByteArray());
    RawHttpClient greedyStream(server.port);
    greedyStream.send(headOf(streamHeaders, "GET /mcp HTTP/1.1") + "\r\n");
    QCOMPARE(greedyStream.read().status, 503);
    RawHttpClient otherStream(server.port);
    otherStream.send(headOf(withHeader(streamHeaders, "Mcp-Session-Id", other), "GET /mcp HTTP/1.1") + "\r\n");
    QCOMPARE(otherStream.read(15'000, 1).status, 200);

    // Answered calls give their room back.
    server.releaseSlow(QStringLiteral("done"));
    for (int i = 0; i < Held; ++i) {
        if (!answered[i])
            QCOMPARE(calls[i]->read().status, 200);
    }
    QVERIFY(echoAnswered(server.port, greedy, 100));
}

void TestMcpHttpServer::sessionBurstUnderNewNamesEvictsNoOne()
{
    // Sessions opened in a burst, each under a new client name, find the server full: they are
    // refused, and the idle session of the client that was there first stays.
    McpServerOptions options = ServerFixture::defaultOptions();
    options.maxSessions = 4;
    ServerFixture server(options);
    const QByteArray quiet = openSession(server.port, "2025-06-18", "quiet-client");
    int opened = 0;
    int refused = 0;
    for (int i = 0; i < 10; ++i) {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(
            initializeBody("2025-06-18", "burst-client-" + QByteArray::number(i)), standardHeaders(server.port)));
        const RawHttpResponse response = client.read();
        if (response.status == 200) {
            ++opened;
            continue;
        }
        ++refused;
        QCOMPARE(response.status, 503);
        QVERIFY(!response.header("retry-after").isEmpty());
        QVERIFY(response.header("mcp-session-id").isEmpty());
        const json body = bodyJson(response);
        QCOMPARE_JSON(body["error"]["code"], -32000);
        QCOMPARE_JSON(body["id"], 0);
    }
    QCOMPARE(opened, 3);
    QCOMPARE(refused, 7);
    QCOMPARE(server.sessionCount(), 4);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sessionHeaders(server.port, quiet)));
    QCOMPARE(client.read().status, 200);
}

void TestMcpHttpServer::connectionCloseIsHonouredForEveryAnswer()
{
    const auto closing = [this](const QByteArray& body, bool withSession) {
        Headers headers = withSession ? sessionHeaders(m_server->port, m_session) : standardHeaders(m_server->port);
        return RawHttpClient::post(body, withHeader(headers, "Connection", "close"));
    };
    {
        RawHttpClient client(m_server->port); // 200 for initialize, answered synchronously
        client.send(closing(initializeBody(), false));
        QCOMPARE(client.read().status, 200);
        QVERIFY(client.waitForClose());
    }
    {
        RawHttpClient client(m_server->port); // 202 for a notification
        client.send(closing(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})", true));
        QCOMPARE(client.read().status, 202);
        QVERIFY(client.waitForClose());
    }
    {
        RawHttpClient client(m_server->port); // an error
        client.send(closing(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", false));
        QCOMPARE(client.read().status, 400);
        QVERIFY(client.waitForClose());
    }
    {
        RawHttpClient client(m_server->port); // HTTP/1.0 closes unless asked to keep alive
        QByteArray request = RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sessionHeaders(m_server->port, m_session));
        request.replace("HTTP/1.1", "HTTP/1.0");
        client.send(request);
        QCOMPARE(client.read().status, 200);
        QVERIFY(client.waitForClose());
    }
}

void TestMcpHttpServer::websocketUpgradeGetsOneAnswer()
{
    RawHttpClient client(m_server->port);
    client.send(headOf(sessionHeaders(m_server->port, m_session), "GET /mcp HTTP/1.1")
        + "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
    const auto response = client.read();
    QCOMPARE(response.status, 400);
    QVERIFY2(bodyJson(response)["error"]["message"].get<std::string>().find("upgrade") != std::string::npos,
        response.body.constData());
    QVERIFY(client.waitForClose());
    QVERIFY(client.read(500).status == 0); // nothing after the one answer
}

void TestMcpHttpServer::requestOnAnOpenEventStreamWaits()
{
    // A request sent on the connection of an open event stream must not be answered inside the
    // stream's chunked body; it waits until the stream ends.
    const QByteArray session = openSession(m_server->port);
    RawHttpClient stream(m_server->port);
    stream.send(headOf(sessionHeaders(m_server->port, session), "GET /mcp HTTP/1.1") + "\r\n");
    QCOMPARE(stream.read(15'000, 1).status, 200);
    stream.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sessionHeaders(m_server->port, session), "/elsewhere"));
    m_server->addTool(QStringLiteral("added_while_streaming"));
    const QByteArray event = stream.readChunk();
    QVERIFY2(event.contains("notifications/tools/list_changed"), event.constData());
    QVERIFY2(!event.contains("HTTP/1.1"), event.constData());
    // Ending the session ends the stream; then the held request is answered, in order.
    RawHttpClient deleter(m_server->port);
    deleter.send(headOf(sessionHeaders(m_server->port, session), "DELETE /mcp HTTP/1.1") + "\r\n");
    QCOMPARE(deleter.read().status, 204);
    QByteArray rest;
    while ((rest = stream.readChunk()) != "<end>") {
        QVERIFY2(!rest.isEmpty(), "the event stream did not end");
        QVERIFY2(!rest.contains("HTTP/1.1"), rest.constData());
    }
    QCOMPARE(stream.read().status, 404);
}

void TestMcpHttpServer::pipelinedRequestsAreAnsweredInOrder()
{
    RawHttpClient client(m_server->port);
    const Headers headers = sessionHeaders(m_server->port, m_session);
    client.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"slow"}})", headers));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingSlow(), 1, 10'000);
    // The second request arrives while the first is still being answered.
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":"second","method":"ping"})", headers));
    QVERIFY(client.read(300).status == 0); // nothing is answered before the first
    m_server->releaseSlow(QStringLiteral("first done"));
    const auto first = client.read();
    QCOMPARE(first.status, 200);
    QCOMPARE_JSON(bodyJson(first)["id"], "first");
    const auto second = client.read();
    QCOMPARE(second.status, 200);
    QCOMPARE_JSON(bodyJson(second)["id"], "second");
}

void TestMcpHttpServer::pipelinedInOneWriteAreAllAnswered()
{
    // Three requests in one write: each is answered, once, in order, and the connection stays usable.
    RawHttpClient client(m_server->port);
    const Headers headers = sessionHeaders(m_server->port, m_session);
    QByteArray all;
    for (int i = 0; i < 3; ++i) {
        all += RawHttpClient::post(R"({"jsonrpc":"2.0","id":)" + QByteArray::number(i)
                + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"i":)" + QByteArray::number(i) + "}}}",
            headers);
    }
    client.send(all);
    for (int i = 0; i < 3; ++i) {
        const auto response = client.read();
        QCOMPARE(response.status, 200);
        QCOMPARE_JSON(bodyJson(response)["id"], i);
    }
    QVERIFY(client.read(300).status == 0);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","id":9,"method":"ping"})", headers));
    QCOMPARE(client.read().status, 200);
}

namespace {

QByteArray getRequest(quint16 port, const QByteArray& session)
{
    QByteArray get = "GET /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(port, session))
        get += name + ": " + value + "\r\n";
    return get + "\r\n";
}

} // namespace

// A source that replaces its whole set of tools (an adapter reconnecting with three tools, then
// going away) is one notifications/tools/list_changed each time, on a real GET event stream.
void TestMcpHttpServer::oneListChangedPerSourceUpdate()
{
    const QByteArray session = openSession(m_server->port);
    RawHttpClient stream(m_server->port);
    stream.send(getRequest(m_server->port, session));
    QCOMPARE(stream.read(15'000, 1).status, 200);

    QCOMPARE(m_server->replaceSource(QStringLiteral("upstream"),
                 {QStringLiteral("upstream.a"), QStringLiteral("upstream.b"), QStringLiteral("upstream.c")}),
        3);
    m_server->replaceSource(QStringLiteral("upstream"), {});
    // Two updates, two events; then a ping on the stream's session proves nothing else was queued.
    QList<QByteArray> events;
    for (int i = 0; i < 2; ++i)
        events << stream.readChunk();
    for (const QByteArray& event : std::as_const(events))
        QVERIFY2(event.contains("notifications/tools/list_changed"), event.constData());
    const QByteArray more = stream.readChunk(500);
    QVERIFY2(!more.contains("list_changed"), more.constData());
}

// While 16 calls of a blocking tool hold workers, echo on other connections is answered: nothing
// blocks the server thread. (The p99 figure comes from tests/bench/run-executor-bench.sh.)
void TestMcpHttpServer::echoIsAnsweredWhileBlockingCallsRun()
{
    std::vector<std::unique_ptr<RawHttpClient>> blockers;
    for (int i = 0; i < 16; ++i) {
        blockers.push_back(std::make_unique<RawHttpClient>(m_server->port));
        blockers.back()->send(RawHttpClient::post(QByteArray(R"({"jsonrpc":"2.0","id":)") + QByteArray::number(1000 + i)
                + R"(,"method":"tools/call","params":{"name":"debug.block","arguments":{"seconds":30}}})",
            sessionHeaders(m_server->port, m_session)));
    }
    RawHttpClient echo(m_server->port);
    for (int i = 0; i < 20; ++i) {
        echo.send(RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}})",
            sessionHeaders(m_server->port, m_session)));
        const auto answer = echo.read();
        QCOMPARE(answer.status, 200);
        QCOMPARE_JSON(bodyJson(answer)["result"]["structuredContent"]["message"], "hi");
    }
    // None of the blocking calls has answered yet; closing their connections cancels them, and the
    // workers end (debug.block honours the token).
    const auto finishedMeanwhile = m_server->finishedCalls();
    QVERIFY(std::none_of(finishedMeanwhile.begin(), finishedMeanwhile.end(),
        [](const ToolCall& c) { return c.tool == QStringLiteral("debug.block"); }));
    blockers.clear();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const auto calls = m_server->finishedCalls();
            return std::count_if(calls.begin(), calls.end(), [](const ToolCall& c) {
                return c.tool == QStringLiteral("debug.block") && c.status == CallStatus::Cancelled;
            }) >= 16;
        }(),
        15'000);
}

void TestMcpHttpServer::longCallsGetHeartbeats()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.heartbeatIntervalMs = 200;
    ServerFixture server(options);
    const QByteArray session = openSession(server.port);

    // Without a progressToken: event-stream comments keep the connection alive, then the result.
    RawHttpClient quiet(server.port);
    quiet.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debug.block","arguments":{"seconds":1}}})",
        sessionHeaders(server.port, session)));
    const auto plain = quiet.read();
    QCOMPARE(plain.status, 200);
    QCOMPARE(plain.header("content-type"), QByteArray("text/event-stream"));
    QVERIFY2(plain.body.contains(": still running"), plain.body.constData());
    QCOMPARE(plain.events().size(), 1);
    QCOMPARE_JSON(json::parse(plain.events().at(0).toStdString())["result"]["structuredContent"]["cancelled"], false);

    // With one: progress notifications that only increase, then the result.
    RawHttpClient progressed(server.port);
    progressed.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug.block","arguments":{"seconds":1},"_meta":{"progressToken":"hb"}}})",
        sessionHeaders(server.port, session)));
    const auto withProgress = progressed.read();
    const auto events = withProgress.events();
    QVERIFY2(events.size() >= 2, withProgress.body.constData());
    double last = -1;
    for (qsizetype i = 0; i + 1 < events.size(); ++i) {
        const json notification = json::parse(events.at(i).toStdString());
        QCOMPARE_JSON(notification["method"], "notifications/progress");
        QCOMPARE_JSON(notification["params"]["progressToken"], "hb");
        QVERIFY(notification["params"]["message"].get<std::string>().find("still running") != std::string::npos);
        QVERIFY(notification["params"]["progress"].get<double>() > last);
        last = notification["params"]["progress"].get<double>();
    }
    QCOMPARE_JSON(json::parse(events.last().toStdString())["id"], 2);
}

void TestMcpHttpServer::deadlineEndsAStuckCall()
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.executor.toolDeadlinesMs.insert(QStringLiteral("debug.ignore_cancel"), 300);
    ServerFixture server(options);
    const QByteArray session = openSession(server.port);
    RawHttpClient caller(server.port);
    caller.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"debug.ignore_cancel","arguments":{"seconds":1}}})",
        sessionHeaders(server.port, session)));
    const auto answer = caller.read();
    QCOMPARE(answer.status, 200);
    const json result = bodyJson(answer)["result"];
    QCOMPARE_JSON(result["isError"], true);
    QVERIFY2(result["content"][0]["text"].get<std::string>().find("deadline of 300 ms") != std::string::npos,
        result.dump().c_str());
    // The worker returns a second later; its result is dropped and the server goes on.
    QTRY_COMPARE_WITH_TIMEOUT(server.runningBlockingCount(), 0, 15'000);
    caller.send(
        RawHttpClient::post(R"({"jsonrpc":"2.0","id":8,"method":"ping"})", sessionHeaders(server.port, session)));
    QCOMPARE(caller.read().status, 200);
    const auto calls = server.finishedCalls();
    QCOMPARE(std::count_if(calls.begin(), calls.end(),
                 [](const ToolCall& c) { return c.tool == QStringLiteral("debug.ignore_cancel"); }),
        1);
    QCOMPARE(calls.last().status, CallStatus::TimedOut); // the deadline, told apart from a tool's own error
}

QTEST_GUILESS_MAIN(TestMcpHttpServer)
#include "tst_mcphttpserver.moc"
