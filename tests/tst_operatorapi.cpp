// The operator API (/operator/v1/) of a real Backend on port 0: who may open it (operator tokens
// only, by role), answers to held and parked questions recorded with the operator's name, the
// event stream (state, then changes), history, admin commands, and the attacks the MCP listener
// takes: no token, the MCP token, a viewer answering, oversized and slow requests, a thousand
// event-stream subscribers, a subscriber that never reads.

#include "boundedjson.h"
#include "core/backend.h"
#include "rawhttpclient.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

#include <memory>

using nlohmann::json;

namespace {

const QByteArray AdminToken = "sbop_admin-token-for-the-operator-api-test";
const QByteArray AnswererToken = "answerer-token-for-the-operator-api-test-0123";
const QByteArray ViewerToken = "viewer-token-for-the-operator-api-test-0123456";
const QByteArray ClientToken = "sb_client-token-for-the-operator-api-test-xyz";

json parsed(const QByteArray& body)
{
    const BoundedJson::Result<json> result = BoundedJson::parse(body, BoundedJson::Limits::message());
    return result.ok ? result.value : json();
}

} // namespace

class TestOperatorApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void refusals_data();
    void refusals();
    void theOperatorTokenNeverOpensMcp();
    void answersAHeldCall();
    void answersAParkedQuestion();
    void badAnswersLeaveTheQuestionOpen_data();
    void badAnswersLeaveTheQuestionOpen();
    void eventStreamStartsWithTheStateThenFollows();
    void historyAndWholeCalls();
    void adminCommands();
    void callsAToolAsTheConsole();
    void repositories();
    void eventStreamsAreBounded();
    void aThousandSubscribers();
    void aSubscriberThatNeverReadsIsCut();
    void oversizedAndSlowRequests();
    void aPortOfItsOwn();

private:
    // A backend whose echo asks, with an admin (default), an answerer "alice" and a viewer "victor".
    void startBackend(const QByteArray& extraConfig = {}, int maxStreams = 64, qint64 maxUnsent = 8 * 1024 * 1024,
        int headTimeoutMs = 10'000);
    RawHttpResponse request(const QByteArray& method, const QByteArray& path, const QByteArray& token,
        const QByteArray& body = {}, const QList<QPair<QByteArray, QByteArray>>& extra = {});
    // The same, for what the backend does on its own thread, which is this one (a reload, a tool
    // call as the console's): the event loop runs while the answer is awaited.
    RawHttpResponse requestServed(
        const QByteArray& method, const QByteArray& path, const QByteArray& token, const QByteArray& body = {});
    // The console's own call of echo, which asks: the question's id.
    QString raiseQuestion(const QByteArray& arguments = R"({"text":"hi"})");

    std::optional<quint16> m_operatorPort; // for the next startBackend()
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Backend> m_backend;
    QMap<qint64, ToolCall> m_calls;
};

void TestOperatorApi::initTestCase()
{
    // A thousand subscribers need two thousand descriptors in this process (both ends).
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

void TestOperatorApi::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestOperatorApi::cleanup()
{
    m_backend.reset();
    m_dir.reset();
    m_calls.clear();
    m_operatorPort.reset();
}

void TestOperatorApi::startBackend(const QByteArray& extraConfig, int maxStreams, qint64 maxUnsent, int headTimeoutMs)
{
    const QString configPath = m_dir->filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("permissions:\n  tools:\n    echo: ask\noperator:\n  tokens:\n"
               "    - {name: alice, role: answerer, sha256: "
        + OperatorTokens::digestOf(AnswererToken).toHex()
        + "}\n"
          "    - {name: victor, role: viewer, sha256: "
        + OperatorTokens::digestOf(ViewerToken).toHex() + "}\n" + extraConfig);
    file.close();
    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(configPath, &options.config, &error), qPrintable(error));
    options.configPath = configPath;
    options.stateDirectory = m_dir->filePath(QStringLiteral("state"));
    options.server.port = 0;
    options.server.bearerToken = ClientToken;
    options.server.limits.headTimeoutMs = headTimeoutMs;
    options.server.operatorPort = m_operatorPort;
    QList<OperatorTokens::Named> named;
    for (const OperatorTokenConfig& entry : std::as_const(options.config.operatorTokens))
        named.append({entry.name, *operatorRoleFromName(entry.role), entry.sha256});
    options.operatorTokens = OperatorTokens(AdminToken, named);
    options.operatorMaxStreams = maxStreams;
    options.operatorMaxUnsentStreamBytes = maxUnsent;
    m_backend = std::make_unique<Backend>(options);
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    connect(m_backend.get(), &OperatorInterface::callsUpdated, this, [this](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            m_calls.insert(call.id, call);
    });
}

RawHttpResponse TestOperatorApi::request(const QByteArray& method, const QByteArray& path, const QByteArray& token,
    const QByteArray& body, const QList<QPair<QByteArray, QByteArray>>& extra)
{
    RawHttpClient client(m_backend->serverUrl().port());
    QByteArray head = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!token.isEmpty())
        head += "Authorization: Bearer " + token + "\r\n";
    for (const auto& [name, value] : extra)
        head += name + ": " + value + "\r\n";
    if (!body.isEmpty() || method == "POST")
        head += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    client.send(head + "\r\n" + body);
    return client.read();
}

RawHttpResponse TestOperatorApi::requestServed(
    const QByteArray& method, const QByteArray& path, const QByteArray& token, const QByteArray& body)
{
    RawHttpClient client(m_backend->serverUrl().port());
    client.send(method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
        + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
        + body);
    if (!QTest::qWaitFor([&] { return client.socket().bytesAvailable() > 0; }, 15'000))
        return {}; // the callers' checks fail on it
    return client.read();
}

QString TestOperatorApi::raiseQuestion(const QByteArray& arguments)
{
    const size_t before = parsed(request("GET", "/operator/v1/questions", AdminToken).body)["questions"].size();
    m_backend->callTool(QStringLiteral("echo"), arguments);
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15'000) {
        const json questions = parsed(request("GET", "/operator/v1/questions", AdminToken).body)["questions"];
        if (questions.size() > before)
            return QString::fromStdString(questions.back().value("id", std::string()));
        QTest::qWait(50);
    }
    return {}; // the callers' checks fail on it
}

void TestOperatorApi::refusals_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QByteArray>("origin");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("says");

    QTest::newRow("no token") << QByteArray("GET") << QByteArray("/operator/v1/state") << QByteArray() << QByteArray()
                              << 401 << QStringLiteral("send an operator token");
    QTest::newRow("the MCP clients' token") << QByteArray("GET") << QByteArray("/operator/v1/state") << ClientToken
                                            << QByteArray() << 401 << QStringLiteral("MCP client's token");
    QTest::newRow("a wrong token") << QByteArray("GET") << QByteArray("/operator/v1/questions")
                                   << QByteArray("sbop_not-the-operator-token-at-all-no-no") << QByteArray() << 401
                                   << QStringLiteral("wrong");
    QTest::newRow("a web page") << QByteArray("GET") << QByteArray("/operator/v1/state") << AdminToken
                                << QByteArray("http://localhost:3000") << 403 << QStringLiteral("no web pages");
    QTest::newRow("a viewer answering") << QByteArray("POST") << QByteArray("/operator/v1/questions/ia-1/answer")
                                        << ViewerToken << QByteArray() << 403 << QStringLiteral("answerer role");
    QTest::newRow("an answerer resetting a breaker")
        << QByteArray("POST") << QByteArray("/operator/v1/adapters/x/reset") << AnswererToken << QByteArray() << 403
        << QStringLiteral("admin role");
    QTest::newRow("an unknown path") << QByteArray("GET") << QByteArray("/operator/v1/secrets") << AdminToken
                                     << QByteArray() << 404 << QStringLiteral("no such operator API path");
    QTest::newRow("another version") << QByteArray("GET") << QByteArray("/operator/v2/state") << AdminToken
                                     << QByteArray() << 404 << QStringLiteral("/operator/v1/");
    QTest::newRow("a method a path does not take")
        << QByteArray("DELETE") << QByteArray("/operator/v1/questions") << AdminToken << QByteArray() << 405
        << QStringLiteral("not with this method");
    QTest::newRow("an answer without a body")
        << QByteArray("POST") << QByteArray("/operator/v1/questions/ia-none/answer") << AnswererToken << QByteArray()
        << 400 << QStringLiteral("not JSON");
}

void TestOperatorApi::refusals()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, token);
    QFETCH(QByteArray, origin);
    QFETCH(int, status);
    QFETCH(QString, says);
    startBackend();
    QList<QPair<QByteArray, QByteArray>> extra;
    if (!origin.isEmpty())
        extra.append({"Origin", origin});
    const RawHttpResponse response = request(method, path, token, {}, extra);
    QVERIFY(response.ok);
    QCOMPARE(response.status, status);
    const json body = parsed(response.body);
    const QString message = QString::fromStdString(body["error"].value("message", std::string()));
    QVERIFY2(message.contains(says), qPrintable(message));
    // The refused token is never in what comes back.
    QVERIFY(token.isEmpty() || !response.body.contains(token));
    if (status == 401)
        QVERIFY(response.header("www-authenticate").startsWith("Bearer realm=\"switchboard-operator\""));
}

void TestOperatorApi::theOperatorTokenNeverOpensMcp()
{
    startBackend();
    const RawHttpResponse response = request("POST", "/mcp", AdminToken,
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}})",
        {{"Accept", "application/json, text/event-stream"}});
    QCOMPARE(response.status, 401);
}

void TestOperatorApi::answersAHeldCall()
{
    startBackend();
    const QString id = raiseQuestion();
    QVERIFY(!id.isEmpty());
    const RawHttpResponse answered = request(
        "POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AnswererToken, R"({"answer":"allow_once"})");
    QCOMPARE(answered.status, 200);
    const json body = parsed(answered.body);
    QCOMPARE(body.value("outcome", std::string()), std::string("answered"));
    QCOMPARE(body.value("by", std::string()), std::string("operator:alice"));
    // The held call ran, and its record says who let it.
    QTRY_VERIFY_WITH_TIMEOUT(!m_calls.isEmpty() && m_calls.begin()->isFinished(), 15'000);
    const ToolCall call = m_calls.begin().value();
    QCOMPARE(call.status, CallStatus::Ok);
    QCOMPARE(parsed(call.decision).value("by", std::string()), std::string("operator:alice"));
    // Answered once: a second answer finds no question.
    QCOMPARE(request("POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AnswererToken, R"({"answer":"deny"})")
                 .status,
        404);
}

void TestOperatorApi::answersAParkedQuestion()
{
    startBackend("interaction:\n  clients:\n    \"Switchboard console\": park\n");
    const QString id = raiseQuestion(R"({"text":"parked"})");
    const RawHttpResponse answered = request("POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AdminToken,
        R"({"answer":"deny","reason":"not today"})");
    QCOMPARE(answered.status, 200);
    const json body = parsed(answered.body);
    // No call waited: the answer is kept for the client's retry.
    QCOMPARE(body.value("outcome", std::string()), std::string("stored"));
    QCOMPARE(body.value("by", std::string()), std::string("operator:default"));
    // The retry (a call after the parked one) takes it.
    QTRY_VERIFY_WITH_TIMEOUT(!m_calls.isEmpty() && m_calls.last().status == CallStatus::Parked, 15'000);
    const qint64 parkedId = m_calls.lastKey();
    m_backend->callTool(QStringLiteral("echo"), R"({"text":"parked"})");
    QTRY_VERIFY_WITH_TIMEOUT(m_calls.lastKey() > parkedId && m_calls.last().isFinished(), 15'000);
    QCOMPARE(m_calls.last().status, CallStatus::Denied);
    const json decision = parsed(m_calls.last().decision);
    QCOMPARE(decision.value("by", std::string()), std::string("operator:default"));
    QCOMPARE(decision.value("via", std::string()), std::string("stored"));
}

void TestOperatorApi::badAnswersLeaveTheQuestionOpen_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("says");
    QTest::newRow("not JSON") << QByteArray("{") << 400 << QStringLiteral("not JSON");
    QTest::newRow("no answer") << QByteArray("{}") << 400 << QStringLiteral("\"answer\"");
    QTest::newRow("an unknown answer") << QByteArray(R"({"answer":"maybe"})") << 400 << QStringLiteral("maybe");
    QTest::newRow("an unknown scope") << QByteArray(R"({"answer":"always_allow","scope":"everyone"})") << 400
                                      << QStringLiteral("scope");
    QTest::newRow("a client-tool answer to an approval")
        << QByteArray(R"({"answer":"confirm"})") << 409 << QStringLiteral("allow or deny");
    QTest::newRow("a connect answer without a key")
        << QByteArray(R"({"answer":"connect","provider":"github"})") << 400 << QStringLiteral("apiKey");
    QTest::newRow("nested too deep") << QByteArray(R"({"answer":"submit","values":)" + QByteArray(200, '[')) << 400
                                     << QStringLiteral("not JSON");
}

void TestOperatorApi::badAnswersLeaveTheQuestionOpen()
{
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, says);
    startBackend();
    const QString id = raiseQuestion();
    const RawHttpResponse response
        = request("POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AnswererToken, body);
    QCOMPARE(response.status, status);
    const QString message = QString::fromStdString(parsed(response.body)["error"].value("message", std::string()));
    QVERIFY2(message.contains(says), qPrintable(message));
    const json questions = parsed(request("GET", "/operator/v1/questions", ViewerToken).body)["questions"];
    QCOMPARE(questions.size(), size_t(1));
    QCOMPARE(QString::fromStdString(questions[0].value("id", std::string())), id);
}

void TestOperatorApi::eventStreamStartsWithTheStateThenFollows()
{
    startBackend();
    RawHttpClient stream(m_backend->serverUrl().port());
    stream.send(
        "GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken + "\r\n\r\n");
    const RawHttpResponse head = stream.read(15'000, 1);
    QCOMPARE(head.status, 200);
    QCOMPARE(head.header("content-type"), QByteArray("text/event-stream"));
    QVERIFY2(head.body.contains("event: state\n"), head.body.constData());
    const json state = parsed(head.events().value(0));
    QVERIFY(state.contains("questions") && state["questions"].empty());
    QCOMPARE(state["server"]["operator"].value("name", std::string()), std::string("victor"));
    QCOMPARE(state["server"]["operator"].value("role", std::string()), std::string("viewer"));
    QVERIFY(state.contains("recentCalls") && state.contains("adapters") && state.contains("grants"));
    const quint64 first = state.value("sequence", quint64(0));

    const QString id = raiseQuestion();
    // Changes follow, numbered after the state; the question's arrives raised.
    bool raised = false;
    quint64 last = first;
    QElapsedTimer timer;
    timer.start();
    while (!raised && timer.elapsed() < 15'000) {
        const QByteArray event = stream.readChunk(5'000);
        QVERIFY(!event.isEmpty());
        if (!event.startsWith("id: "))
            continue; // a keep-alive
        const quint64 sequence = event.mid(4, event.indexOf('\n') - 4).toULongLong();
        QVERIFY2(sequence > last, event.constData());
        last = sequence;
        if (event.contains("event: questions\n")) {
            const json update = parsed(event.mid(event.indexOf("data: ") + 6).trimmed())["updates"][0];
            raised = update.value("raised", false) && update.value("id", std::string()) == id.toStdString();
        }
    }
    QVERIFY(raised);
}

void TestOperatorApi::historyAndWholeCalls()
{
    startBackend();
    const QByteArray large = "{\"text\":\"" + QByteArray(10'000, 'x') + "\"}";
    const QString id = raiseQuestion(large);
    QCOMPARE(
        request("POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AdminToken, R"({"answer":"allow_once"})")
            .status,
        200);
    QTRY_VERIFY_WITH_TIMEOUT(!m_calls.isEmpty() && m_calls.begin()->isFinished(), 15'000);
    const qint64 callId = m_calls.begin().key();
    json calls;
    QTRY_VERIFY_WITH_TIMEOUT(
        (calls = parsed(request("GET", "/operator/v1/history?tool=echo&limit=5", ViewerToken).body)["calls"]).size()
            == 1,
        15'000);
    // A page of history holds previews; the call itself is whole.
    QVERIFY(calls[0].value("wholeRequestBytes", qint64(-1)) > 10'000);
    QVERIFY(calls[0].value("request", std::string()).size() < 10'000);
    QVERIFY(parsed(request("GET", "/operator/v1/history?tool=other", ViewerToken).body)["calls"].empty());
    const json whole = parsed(request("GET", "/operator/v1/calls/" + QByteArray::number(callId), ViewerToken).body);
    QVERIFY(whole["call"].value("request", std::string()).size() > 10'000);
    QCOMPARE(request("GET", "/operator/v1/calls/999999", ViewerToken).status, 404);
    QCOMPARE(request("GET", "/operator/v1/history?limit=0", ViewerToken).status, 400);
}

void TestOperatorApi::adminCommands()
{
    startBackend();
    const QString id = raiseQuestion();
    QCOMPARE(request("POST", "/operator/v1/questions/" + id.toUtf8() + "/answer", AnswererToken,
                 R"({"answer":"always_allow","scope":"all-any"})")
                 .status,
        200);
    json grant;
    const json grants = parsed(request("GET", "/operator/v1/grants", ViewerToken).body);
    for (const json& entry : grants["grants"]) {
        if (entry.value("source", std::string()) == "always")
            grant = entry;
    }
    QVERIFY2(grant.is_object(), request("GET", "/operator/v1/grants", ViewerToken).body.constData());
    QCOMPARE(grant.value("grantedBy", std::string()), std::string("operator:alice"));
    const QByteArray grantPath = "/operator/v1/grants/" + QByteArray::fromStdString(grant.value("id", std::string()));
    QCOMPARE(request("DELETE", grantPath, AnswererToken).status, 403);
    QCOMPARE(request("DELETE", grantPath, AdminToken).status, 200);
    QCOMPARE(request("DELETE", grantPath, AdminToken).status, 404);
    QCOMPARE(request("POST", "/operator/v1/adapters/none/reset", AdminToken).status, 404);
    QCOMPARE(request("POST", "/operator/v1/adapters/none/explode", AdminToken).status, 404);
    QCOMPARE(request("DELETE", "/operator/v1/sessions/no-such-session", AdminToken).status, 404);
    const RawHttpResponse reloaded = requestServed("POST", "/operator/v1/configuration/reload", AdminToken);
    QCOMPARE(reloaded.status, 200);
    QVERIFY(parsed(reloaded.body).value("message", std::string()).find("reloaded") != std::string::npos);
    const json status = parsed(request("GET", "/operator/v1/status", ViewerToken).body);
    QCOMPARE(status.value("questions", -1), 0);
    QVERIFY(status.contains("adapters") && status.contains("sessions") && status.contains("warnings"));
}

void TestOperatorApi::callsAToolAsTheConsole()
{
    startBackend();
    QCOMPARE(request("POST", "/operator/v1/calls", ViewerToken, R"({"tool":"echo"})").status, 403);
    QCOMPARE(request("POST", "/operator/v1/calls", AnswererToken, R"({"arguments":{}})").status, 400);
    QCOMPARE(request("POST", "/operator/v1/calls", AnswererToken, R"({"tool":"echo","replayOf":"x"})").status, 400);
    // A call starts (and asks: echo asks here), and says its id; it shows on the stream like any other.
    const RawHttpResponse started = requestServed(
        "POST", "/operator/v1/calls", AnswererToken, R"({"tool":"echo","arguments":{"text":"by alice"}})");
    QCOMPARE(started.status, 200);
    const qint64 callId = parsed(started.body).value("callId", qint64(0));
    QVERIFY(callId > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_calls.contains(callId), 15'000);
    QCOMPARE(m_calls.value(callId).clientName, OperatorInterface::consoleClientName());
    QCOMPARE(m_calls.value(callId).clientVersion, QStringLiteral("operator:alice"));
    const json questions = parsed(request("GET", "/operator/v1/questions", AdminToken).body)["questions"];
    QCOMPARE(questions.size(), size_t(1));
    QCOMPARE(questions[0].value("callId", qint64(0)), callId);
}

void TestOperatorApi::repositories()
{
    // A repository under the allowed root, with a change to show.
    const QString root = m_dir->filePath(QStringLiteral("repos"));
    const QString repository = root + QStringLiteral("/project");
    QVERIFY(QDir().mkpath(repository));
    QProcess git;
    git.setWorkingDirectory(repository);
    git.start(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q")});
    QVERIFY(git.waitForFinished(30'000) && git.exitCode() == 0);
    QFile readme(repository + QStringLiteral("/README"));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("hello\n");
    readme.close();
    startBackend("git:\n  roots: [\"" + root.toUtf8() + "\"]\n");
    const QByteArray body = QByteArray::fromStdString(json{{"path", repository.toStdString()}}.dump());
    QCOMPARE(request("POST", "/operator/v1/repositories", AnswererToken, body).status, 403);
    const RawHttpResponse outside = request("POST", "/operator/v1/repositories", AdminToken, R"({"path":"/etc"})");
    QCOMPARE(outside.status, 409);
    QCOMPARE(request("POST", "/operator/v1/repositories", AdminToken, body).status, 200);
    // Shown, read: the state has it.
    const auto shown = [&] {
        const json state = parsed(request("GET", "/operator/v1/state", ViewerToken).body);
        for (const json& entry : state["repositories"]) {
            if (QString::fromStdString(entry.value("path", std::string())).endsWith(QLatin1String("/project")))
                return QString::fromStdString(entry.value("path", std::string()));
        }
        return QString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!shown().isEmpty(), 15'000);
    const QByteArray path = QUrl::toPercentEncoding(shown());
    QCOMPARE(request("POST", "/operator/v1/repositories/refresh", ViewerToken, body).status, 200);
    QCOMPARE(request("GET", "/operator/v1/repositories/diff?path=" + path, ViewerToken).status, 400);
    const RawHttpResponse diff
        = request("GET", "/operator/v1/repositories/diff?path=" + path + "&file=README", ViewerToken);
    QCOMPARE(diff.status, 200);
    QVERIFY2(parsed(diff.body)["diff"].value("unstaged", std::string()).find("hello") != std::string::npos,
        diff.body.constData());
    QCOMPARE(request("DELETE", "/operator/v1/repositories?path=" + path, AdminToken).status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(shown().isEmpty(), 15'000);
}

void TestOperatorApi::eventStreamsAreBounded()
{
    startBackend({}, 4);
    std::vector<std::unique_ptr<RawHttpClient>> streams;
    for (int i = 0; i < 4; ++i) {
        streams.push_back(std::make_unique<RawHttpClient>(m_backend->serverUrl().port()));
        streams.back()->send(
            "GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken + "\r\n\r\n");
        QCOMPARE(streams.back()->read(15'000, 1).status, 200);
    }
    const RawHttpResponse refused = request("GET", "/operator/v1/events", ViewerToken);
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("retry-after"), QByteArray("5"));
    // A stream that ends makes room.
    streams.front().reset();
    QTRY_COMPARE_WITH_TIMEOUT(
        [&] {
            RawHttpClient again(m_backend->serverUrl().port());
            again.send("GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken
                + "\r\n\r\n");
            return again.read(15'000, 1).status;
        }(),
        200, 15'000);
}

void TestOperatorApi::aThousandSubscribers()
{
    startBackend();
    const quint16 port = m_backend->serverUrl().port();
    std::vector<std::unique_ptr<QTcpSocket>> sockets;
    for (int i = 0; i < 1000; ++i) {
        auto socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(QStringLiteral("127.0.0.1"), port);
        sockets.push_back(std::move(socket));
    }
    for (auto& socket : sockets) {
        if (socket->waitForConnected(10'000))
            socket->write("GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken
                + "\r\n\r\n");
    }
    int streaming = 0;
    int refused = 0;
    int closed = 0;
    for (auto& socket : sockets) {
        QByteArray head;
        QElapsedTimer timer;
        timer.start();
        while (
            !head.contains("\r\n") && socket->state() == QAbstractSocket::ConnectedState && timer.elapsed() < 20'000) {
            socket->waitForReadyRead(200);
            head += socket->readAll();
        }
        head += socket->readAll();
        if (head.startsWith("HTTP/1.1 200"))
            ++streaming;
        else if (head.startsWith("HTTP/1.1 503"))
            ++refused;
        else
            ++closed; // made room for others before it was answered (the listener's connection bound)
    }
    qInfo("1000 subscribers: %d streaming, %d refused with 503, %d closed", streaming, refused, closed);
    QCOMPARE(streaming, 64);
    QCOMPARE(streaming + refused + closed, 1000);
    QVERIFY(refused > 0);
    // The server still answers operators and clients at once, and forgets the streams that went.
    sockets.clear();
    QTRY_COMPARE_WITH_TIMEOUT(
        parsed(request("GET", "/operator/v1/status", ViewerToken).body).value("eventStreams", -1), 0, 15'000);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(request("GET", "/operator/v1/status", ViewerToken).status, 200);
    const RawHttpResponse mcp = request("POST", "/mcp", ClientToken,
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}})",
        {{"Accept", "application/json, text/event-stream"}});
    QCOMPARE(mcp.status, 200);
    QVERIFY2(timer.elapsed() < 10'000, QByteArray::number(timer.elapsed()).constData());
}

void TestOperatorApi::aSubscriberThatNeverReadsIsCut()
{
    // A reader 64 KiB behind is cut.
    startBackend("", 64, 64 * 1024);
    QTcpSocket reader;
    reader.setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 4096);
    reader.setReadBufferSize(4096); // Qt takes no more from the kernel than this either
    reader.connectToHost(QStringLiteral("127.0.0.1"), m_backend->serverUrl().port());
    QVERIFY(reader.waitForConnected(10'000));
    reader.write(
        "GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken + "\r\n\r\n");
    QVERIFY(reader.waitForBytesWritten(10'000));
    const auto streams
        = [this] { return parsed(request("GET", "/operator/v1/status", AdminToken).body).value("eventStreams", -1); };
    QTRY_COMPARE_WITH_TIMEOUT(streams(), 1, 15'000);
    // It never reads: calls with large arguments (their previews, 2 KiB each way) pile up unsent
    // until the server cuts it. An unknown tool's calls are recorded like any other.
    const QByteArray large = "{\"text\":\"" + QByteArray(4'000, 'y') + "\"}";
    int calls = 0;
    while (calls < 5'000 && streams() == 1) {
        for (int i = 0; i < 50; ++i, ++calls)
            m_backend->callTool(QStringLiteral("no_such_tool"), large);
        QTest::qWait(50);
    }
    QTRY_COMPARE_WITH_TIMEOUT(streams(), 0, 30'000);
    qInfo("a reader that never read was cut after %d calls", calls);
    // The server goes on: a new stream starts with the state again.
    RawHttpClient again(m_backend->serverUrl().port());
    again.send(
        "GET /operator/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ViewerToken + "\r\n\r\n");
    const RawHttpResponse head = again.read(15'000, 1);
    QCOMPARE(head.status, 200);
    QVERIFY(head.body.contains("event: state\n"));
}

void TestOperatorApi::oversizedAndSlowRequests()
{
    startBackend({}, 64, 8 * 1024 * 1024, 500);
    // A body beyond the listener's bound is refused from its head.
    {
        RawHttpClient client(m_backend->serverUrl().port());
        client.send("POST /operator/v1/questions/ia-1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + AdminToken + "\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n");
        QCOMPARE(client.read().status, 413);
    }
    // Without a token a large body is not even read.
    {
        RawHttpClient client(m_backend->serverUrl().port());
        client.send("POST /operator/v1/questions/ia-1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    "application/json\r\nContent-Length: 1048576\r\n\r\n");
        QCOMPARE(client.read().status, 401);
    }
    // A head that never ends is cut at its deadline.
    {
        RawHttpClient client(m_backend->serverUrl().port());
        client.send("GET /operator/v1/state HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        QCOMPARE(client.read(15'000).status, 408);
    }
    // And the API still answers.
    QCOMPARE(request("GET", "/operator/v1/state", AdminToken).status, 200);
}

void TestOperatorApi::aPortOfItsOwn()
{
    m_operatorPort = 0;
    startBackend();
    const QUrl api = m_backend->operatorUrl();
    const quint16 mcpPort = quint16(m_backend->serverUrl().port());
    QVERIFY(api.port() > 0 && api.port() != mcpPort);
    QCOMPARE(api.path(), QStringLiteral("/operator/v1/"));
    const auto on = [&](quint16 port, const QByteArray& path, const QByteArray& token) {
        RawHttpClient client(port);
        client.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
            + "\r\nAuthorization: Bearer " + token + "\r\nAccept: application/json, text/event-stream\r\n\r\n");
        return client.read();
    };
    // The API is on its port, with a Host naming that port; not on the MCP port, which says where it is.
    QCOMPARE(on(quint16(api.port()), "/operator/v1/status", ViewerToken).status, 200);
    const RawHttpResponse moved = on(mcpPort, "/operator/v1/status", ViewerToken);
    QCOMPARE(moved.status, 404);
    QVERIFY2(moved.body.contains(QByteArray("port " + QByteArray::number(api.port()))), moved.body.constData());
    // And its port serves nothing else.
    QCOMPARE(on(quint16(api.port()), "/mcp", ClientToken).status, 404);
}

QTEST_GUILESS_MAIN(TestOperatorApi)
#include "tst_operatorapi.moc"
