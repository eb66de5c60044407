// Calls that wait for a person, over real HTTP: hold (progress while waiting, then the answer),
// park (the connection closes unanswered; the retry gets the stored answer), dropped connections,
// cancellation, session deletion, the maximum wait, arguments checked before any pause, batches
// refused whole, stored answers kept per client, and the limit on pending questions.

#include "auth/clienttokens.h"
#include "clientanswer.h"
#include "mcphttptestsupport.h"

#include <QSemaphore>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>

using nlohmann::json;
using Decision = InteractionAnswer::Decision;

namespace {

InteractionBroker::Settings interactionSettings(int maxWaitMs = 600'000)
{
    InteractionBroker::Settings settings;
    settings.maxWaitMs = maxWaitMs;
    settings.progressIntervalMs = 100;
    settings.clientModes.insert(QStringLiteral("runner"), PauseMode::Park);
    settings.clientModes.insert(QStringLiteral("other-runner"), PauseMode::Park);
    return settings;
}

QByteArray callBody(int id, const char* tool, const json& arguments, bool progress = false)
{
    json params{{"name", tool}, {"arguments", arguments}};
    if (progress)
        params["_meta"] = json{{"progressToken", "p-" + std::to_string(id)}};
    return QByteArray::fromStdString(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", std::move(params)}}.dump());
}

const json connectArguments{{"provider", "github"}, {"kind", "api_key"}, {"reason", "to read issues"}};

// The JSON-RPC response among an event stream's events (or a plain JSON body).
json responseIn(const RawHttpResponse& response)
{
    if (!response.header("content-type").startsWith("text/event-stream"))
        return bodyJson(response);
    for (const QByteArray& event : response.events()) {
        const json message = json::parse(event.toStdString(), nullptr, false);
        if (message.contains("result") || message.contains("error"))
            return message;
    }
    return nullptr;
}

} // namespace

class TestInteractionHttp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void holdStreamsProgressUntilTheAnswer();
    void approvalAllowRunsAndDenyRefuses();
    void parkClosesUnansweredAndTheRetryGetsTheAnswer();
    void aStatelessCallHoldsWhereASessionWouldPark();
    void aStatelessCallHasNoSessionToAllow();
    void closingAStatelessCallsStreamWithdrawsItsQuestion();
    void droppedConnectionKeepsTheQuestion();
    void cancelledWithdrawsTheQuestion();
    void deletedSessionWithdrawsTheQuestion();
    void maximumWaitIsAToolError();
    void missingArgumentsFailBeforeAnyPause();
    void oneOfNotAndRefFailBeforeAnyPause_data();
    void oneOfNotAndRefFailBeforeAnyPause();
    void batchThatWouldPauseIsRefusedWhole();
    void readOnlyToolsRunWithoutAsking();
    void heldCallsWhoseClientsResetKeepTheirQuestions();
    void storedAnswersBelongToTheClientThatWasAsked();
    void storedAnswersBelongToANamedTokenNotItsDeclaredName();
    void questionsBeyondTheLimitAreAToolError();
};

void TestInteractionHttp::holdStreamsProgressUntilTheAnswer()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        callBody(5, "request_connection", connectArguments, true), sessionHeaders(server.port, session)));
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 15'000);
    const PendingInteraction interaction = server.pendingInteractions().front();
    QVERIFY(interaction.waiting);
    QCOMPARE(interaction.clientName, QStringLiteral("http-test"));

    // The call stays open and streams progress while it waits.
    const RawHttpResponse head = client.read(15'000, 1);
    QCOMPARE(head.status, 200);
    QVERIFY(head.header("content-type").startsWith("text/event-stream"));
    QVERIFY2(head.body.contains("notifications/progress"), head.body.constData());
    QVERIFY(head.body.contains("waiting for a person"));
    QByteArray more = client.readChunk();
    QVERIFY(more.contains("notifications/progress"));

    QCOMPARE(
        server.answer(interaction.id,
            InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat")))),
        QString());
    QByteArray rest;
    for (QByteArray chunk = client.readChunk(); !chunk.isEmpty() && chunk != "<end>"; chunk = client.readChunk())
        rest += chunk;
    const qsizetype at = rest.lastIndexOf("data: ");
    QVERIFY2(at >= 0, rest.constData());
    const json message = json::parse(rest.mid(at + 6).trimmed().toStdString());
    QVERIFY(message.at("id") == 5);
    const json& result = message.at("result");
    QVERIFY(!result.value("isError", false));
    QVERIFY(
        result.at("structuredContent") == ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat")));
    QVERIFY(server.pendingInteractions().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 15'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::Ok);
}

void TestInteractionHttp::approvalAllowRunsAndDenyRefuses()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    for (const bool allow : {true, false}) {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(
            callBody(allow ? 1 : 2, "write", json{{"path", "notes.txt"}}), sessionHeaders(server.port, session)));
        QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 15'000);
        const PendingInteraction interaction = server.pendingInteractions().front();
        QCOMPARE(interaction.kind, InteractionKind::Approval);
        QCOMPARE(interaction.render, RenderHint::Approval);
        QCOMPARE(server.writeRuns.load(), allow ? 0 : 1); // nothing ran before the answer
        QCOMPARE(server.answer(interaction.id,
                     allow ? InteractionAnswer::decide(Decision::AllowOnce)
                           : InteractionAnswer::decide(Decision::Deny, QStringLiteral("not today"))),
            QString());
        const json message = responseIn(client.read());
        const json& result = message.at("result");
        if (allow) {
            QVERIFY(!result.value("isError", false));
            QVERIFY(result.at("content").at(0).at("text") == "written");
        } else {
            QVERIFY(result.at("isError") == true);
            QVERIFY(result.at("content").at(0).at("text").get<std::string>().find("not today") != std::string::npos);
        }
    }
    QCOMPARE(server.writeRuns.load(), 1); // the denied call never ran
    // The call log tells the person's denial from a call that ran and failed.
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 2, 15'000);
    QCOMPARE(server.finishedCalls().at(0).status, CallStatus::Ok);
    QCOMPARE(server.finishedCalls().at(1).status, CallStatus::Denied);
}

void TestInteractionHttp::parkClosesUnansweredAndTheRetryGetsTheAnswer()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port, "2025-06-18", "runner");
    const QByteArray body = callBody(9, "request_connection", connectArguments);
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
        QVERIFY(client.waitForClose());
        QVERIFY(!client.read(500).ok); // closed without a status line or body
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    const PendingInteraction parked = server.pendingInteractions().front();
    QCOMPARE(parked.mode, PauseMode::Park);
    QVERIFY(!parked.waiting);
    {
        // The same POST again while parked: also closed unanswered, and no second question.
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
        QVERIFY(client.waitForClose());
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.pendingInteractions().front().earlierCallIds.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 2, 15'000);
    // Over, not left "paused": the question waits for a person, no call does.
    for (const ToolCall& call : server.finishedCalls())
        QCOMPARE(call.status, CallStatus::Parked);

    QCOMPARE(
        server.answer(parked.id,
            InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat")))),
        QString());
    QVERIFY(server.pendingInteractions().isEmpty());
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
    const RawHttpResponse response = client.read();
    QCOMPARE(response.status, 200);
    QVERIFY(bodyJson(response).at("result").at("structuredContent").at("account") == "octocat");
    // Taken, not peeked: the next identical call parks again.
    RawHttpClient again(server.port);
    again.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
    QVERIFY(again.waitForClose());
    QCOMPARE(server.pendingInteractions().size(), 1);
}

// A 2026-07-28 request has no session and nothing to come back to but its open response: a client
// configured to park (the runner) holds instead, and its answer comes on that response. Before,
// the connection was closed unanswered, which a stateless client can only take for a failure.
void TestInteractionHttp::aStatelessCallHoldsWhereASessionWouldPark()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", "runner"}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}, {"progressToken", "p-1"}};
    const QByteArray body = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
        {"params", {{"name", "request_connection"}, {"arguments", connectArguments}, {"_meta", meta}}}}
                                                          .dump());
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(body, modernHeaders(server.port, "tools/call", "request_connection")));
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    const PendingInteraction held = server.pendingInteractions().front();
    QCOMPARE(held.mode, PauseMode::Hold);
    QVERIFY(held.waiting);
    QCOMPARE(held.clientName, QStringLiteral("runner"));
    QTest::qWait(300); // progress while it waits, and the connection stays open
    QCOMPARE(client.socket().state(), QAbstractSocket::ConnectedState);
    QCOMPARE(
        server.answer(held.id,
            InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat")))),
        QString());
    const RawHttpResponse response = client.read();
    QCOMPARE(response.status, 200);
    const json answer = responseIn(response);
    QVERIFY2(answer.at("result").at("structuredContent").at("account") == "octocat", answer.dump().c_str());
    QVERIFY(answer.at("result").at("resultType") == "complete");
}

// "Allow for this session" for a 2026-07-28 request, whose session ends with its answer, would look
// given and grant nothing: it is refused with the reason, the question stays, and Allow once works.
void TestInteractionHttp::aStatelessCallHasNoSessionToAllow()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    const QByteArray body = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
        {"params", {{"name", "write"}, {"arguments", {{"path", "a"}}}, {"_meta", meta}}}}
                                                          .dump());
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(body, modernHeaders(server.port, "tools/call", "write")));
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    const PendingInteraction asked = server.pendingInteractions().front();
    QVERIFY2(asked.sessionId.startsWith(QStringLiteral("request-")), qPrintable(asked.sessionId));
    QVERIFY(asked.stateless); // the console offers no session grant for it
    const QString refused = server.answer(asked.id, InteractionAnswer::decide(Decision::AllowForSession));
    QVERIFY2(refused.contains(QStringLiteral("2026-07-28")), qPrintable(refused));
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.answer(asked.id, InteractionAnswer::decide(Decision::AllowOnce)), QString());
    const RawHttpResponse response = client.read();
    QCOMPARE(response.status, 200);
    QVERIFY2(responseIn(response).dump().find("written") != std::string::npos, response.body.constData());
}

void TestInteractionHttp::closingAStatelessCallsStreamWithdrawsItsQuestion()
{
    // In 2026-07-28 a closed response stream cancels its request; no retry waits for the question.
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", "agent"}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    {
        RawHttpClient client(server.port);
        client.send(
            RawHttpClient::post(QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
                                    {"params", {{"name", "write"}, {"arguments", {{"path", "p"}}}, {"_meta", meta}}}}
                                                              .dump()),
                modernHeaders(server.port, "tools/call", "write")));
        QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
        client.socket().abort();
    }
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 0, 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 10'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::Cancelled);
    QCOMPARE(server.writeRuns.load(), 0);
}

void TestInteractionHttp::droppedConnectionKeepsTheQuestion()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    const QByteArray body = callBody(3, "write", json{{"path", "a"}});
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
        QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 15'000);
        client.socket().abort();
    }
    QTRY_VERIFY_WITH_TIMEOUT(!server.pendingInteractions().front().waiting, 15'000);
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 15'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::Parked);
    QCOMPARE(server.answer(server.pendingInteractions().front().id, InteractionAnswer::decide(Decision::AllowOnce)),
        QString());
    QCOMPARE(server.writeRuns.load(), 0); // the answer is kept, not acted on without a call
    RawHttpClient retry(server.port);
    retry.send(RawHttpClient::post(body, sessionHeaders(server.port, session)));
    const json message = responseIn(retry.read());
    QVERIFY(message.at("result").at("content").at(0).at("text") == "written");
    QCOMPARE(server.writeRuns.load(), 1);
}

void TestInteractionHttp::cancelledWithdrawsTheQuestion()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        callBody(11, "request_connection", connectArguments), sessionHeaders(server.port, session)));
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 15'000);
    RawHttpClient canceller(server.port);
    canceller.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,"reason":"user stopped"}})",
        sessionHeaders(server.port, session)));
    QCOMPARE(canceller.read().status, 202);
    QTRY_VERIFY_WITH_TIMEOUT(server.pendingInteractions().isEmpty(), 15'000);
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 15'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::Cancelled);
    QVERIFY(server.finishedCalls().front().error.contains(QStringLiteral("user stopped")));
}

void TestInteractionHttp::deletedSessionWithdrawsTheQuestion()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(callBody(12, "write", json::object()), sessionHeaders(server.port, session)));
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 15'000);
    RawHttpClient deleter(server.port);
    QByteArray request = "DELETE /mcp HTTP/1.1\r\n";
    for (const auto& [name, value] : sessionHeaders(server.port, session))
        request += name + ": " + value + "\r\n";
    deleter.send(request + "Content-Length: 0\r\n\r\n");
    QCOMPARE(deleter.read().status, 204);
    QTRY_VERIFY_WITH_TIMEOUT(server.pendingInteractions().isEmpty(), 15'000);
    QCOMPARE(server.writeRuns.load(), 0);
}

void TestInteractionHttp::maximumWaitIsAToolError()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings(300));
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        callBody(13, "request_connection", connectArguments), sessionHeaders(server.port, session)));
    const json message = responseIn(client.read(30'000));
    const json& result = message.at("result");
    QVERIFY(result.at("isError") == true);
    QVERIFY(result.at("content").at(0).at("text").get<std::string>().find("No one answered") != std::string::npos);
    QVERIFY(result.at("structuredContent") == ClientAnswer::notConnected(QStringLiteral("timeout")));
    QVERIFY(server.pendingInteractions().isEmpty()); // the widget is withdrawn
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 15'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::TimedOut);
}

void TestInteractionHttp::missingArgumentsFailBeforeAnyPause()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        callBody(14, "request_connection", json{{"kind", "api_key"}}), sessionHeaders(server.port, session)));
    const json result = responseIn(client.read()).at("result");
    QVERIFY(result.at("isError") == true);
    const std::string text = result.at("content").at(0).at("text");
    QVERIFY2(text.find("provider") != std::string::npos, text.c_str());
    QVERIFY(server.pendingInteractions().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 1, 15'000);
    QCOMPARE(server.finishedCalls().front().status, CallStatus::InvalidArguments);
}

// Keywords the validator used to skip (issue 8, item 18): arguments they refuse fail at once with
// a tool error instead of pausing for a person's approval.
void TestInteractionHttp::oneOfNotAndRefFailBeforeAnyPause_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("arguments");
    QTest::addColumn<QString>("errorContains");
    QTest::newRow("oneOf") << QByteArray(R"({"type":"object","properties":{"target":{"oneOf":[{"type":"string"},
        {"type":"integer","minimum":0}]}},"required":["target"]})")
                           << QByteArray(R"({"target":-1})") << QStringLiteral("/target");
    QTest::newRow("not") << QByteArray(R"({"type":"object","properties":{"path":{"type":"string",
        "not":{"pattern":"^/etc/"}}}})")
                         << QByteArray(R"({"path":"/etc/passwd"})") << QStringLiteral("/path");
    QTest::newRow("$ref") << QByteArray(R"({"type":"object","definitions":{"port":{"type":"integer","maximum":65535}},
        "properties":{"port":{"$ref":"#/definitions/port"}}})")
                          << QByteArray(R"({"port":70000})") << QStringLiteral("/port");
    QTest::newRow("$defs") << QByteArray(R"({"type":"object","$defs":{"mode":{"enum":["r","w"]}},
        "properties":{"mode":{"$ref":"#/$defs/mode"}}})")
                           << QByteArray(R"({"mode":"x"})") << QStringLiteral("/mode");
}

void TestInteractionHttp::oneOfNotAndRefFailBeforeAnyPause()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, arguments);
    QFETCH(QString, errorContains);
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    RegisteredTool tool;
    tool.spec.name = QStringLiteral("guarded");
    tool.spec.inputSchema = json::parse(schema.toStdString());
    tool.spec.annotations = json{{"readOnlyHint", false}}; // asks the operator before it runs
    tool.route = ToolRoute::builtin();
    tool.handler = [](const std::shared_ptr<ToolCallContext>& context) { context->finish(ToolResult::text({})); };
    QString error;
    QVERIFY2(server.addTool(tool, &error), qPrintable(error));
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        callBody(15, "guarded", json::parse(arguments.toStdString())), sessionHeaders(server.port, session)));
    const json result = responseIn(client.read()).at("result");
    QVERIFY(result.at("isError") == true);
    const QString text = QString::fromStdString(result.at("content").at(0).at("text").get<std::string>());
    QVERIFY2(text.contains(QStringLiteral("Invalid arguments for tool \"guarded\"")), qPrintable(text));
    QVERIFY2(text.contains(errorContains), qPrintable(text));
    QVERIFY(server.pendingInteractions().isEmpty());
}

void TestInteractionHttp::batchThatWouldPauseIsRefusedWhole()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port, "2025-03-26");
    const QByteArray batch = "[" + callBody(1, "echo", json{{"message", "first"}}) + ","
        + callBody(2, "request_connection", connectArguments) + "," + R"({"jsonrpc":"2.0","id":3,"method":"ping"}])";
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(batch, sessionHeaders(server.port, session, "2025-03-26")));
    const RawHttpResponse response = client.read();
    QCOMPARE(response.status, 200);
    const json replies = bodyJson(response);
    QVERIFY(replies.is_array());
    QCOMPARE(int(replies.size()), 3);
    for (const json& reply : replies) {
        QVERIFY(reply.at("error").at("code") == -32600);
        QVERIFY(reply.at("error").at("message").get<std::string>().find("request_connection") != std::string::npos);
    }
    QVERIFY(server.pendingInteractions().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), 2, 15'000);
    for (const ToolCall& call : server.finishedCalls())
        QCOMPARE(call.status, CallStatus::Error); // echo did not run either
    // A batch of calls that run at once is still fine.
    RawHttpClient plain(server.port);
    plain.send(RawHttpClient::post(
        "[" + callBody(4, "echo", json{{"message", "ok"}}) + "]", sessionHeaders(server.port, session, "2025-03-26")));
    QVERIFY(!bodyJson(plain.read()).at(0).at("result").value("isError", false));
}

void TestInteractionHttp::readOnlyToolsRunWithoutAsking()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray session = openSession(server.port);
    RawHttpClient client(server.port);
    client.send(
        RawHttpClient::post(callBody(1, "echo", json{{"message", "hi"}}), sessionHeaders(server.port, session)));
    QVERIFY(responseIn(client.read()).at("result").at("structuredContent").at("message") == "hi");
    QVERIFY(server.pendingInteractions().isEmpty());
}

// 100 held calls (half with progress, half with keep-alive comments) whose clients reset their
// connections (RST: SO_LINGER 0, then abort) while the wait ticker writes to every one of them. The
// server's writes fail and close connections from inside its tick; it must go on serving, every
// call must end as paused and every question must stay for the retry. The calls come from two
// clients, 50 each: one client may hold at most 64 connections waiting (issue 23).
void TestInteractionHttp::heldCallsWhoseClientsResetKeepTheirQuestions()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray sessions[] = {openSession(server.port, "2025-06-18", "first-client"),
        openSession(server.port, "2025-06-18", "second-client")};
    constexpr int calls = 100;
    std::vector<std::unique_ptr<RawHttpClient>> clients;
    for (int i = 0; i < calls; ++i) {
        auto client = std::make_unique<RawHttpClient>(server.port);
        const json arguments{{"provider", "github"}, {"kind", "api_key"}, {"reason", "call " + std::to_string(i)}};
        client->send(RawHttpClient::post(callBody(i + 1, "request_connection", arguments, i % 2 == 0),
            sessionHeaders(server.port, sessions[i % 2])));
        clients.push_back(std::move(client));
    }
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), calls, 60'000);
    // Every connection has heard from the ticker: it writes to all of them now.
    for (const auto& client : clients) {
        const RawHttpResponse head = client->read(30'000, 1);
        QCOMPARE(head.status, 200);
        QVERIFY(head.header("content-type").startsWith("text/event-stream"));
    }

    // The resets arrive while the server's thread is held, so its next tick writes to connections
    // that are already reset.
    QSemaphore release;
    server.holdServerThread(&release);
    for (const auto& client : clients) {
        const linger reset{1, 0};
        QCOMPARE(
            ::setsockopt(int(client->socket().socketDescriptor()), SOL_SOCKET, SO_LINGER, &reset, sizeof reset), 0);
        client->socket().abort();
    }
    release.release();

    QTRY_COMPARE_WITH_TIMEOUT(server.finishedCalls().size(), calls, 60'000);
    for (const ToolCall& call : server.finishedCalls()) {
        QCOMPARE(call.status, CallStatus::Parked);
        QVERIFY2(call.error.contains(QStringLiteral("closed the connection")), qPrintable(call.error));
    }
    const PendingInteractionList pending = server.pendingInteractions();
    QCOMPARE(pending.size(), calls);
    for (const PendingInteraction& interaction : pending)
        QVERIFY(!interaction.waiting);
    // The server is still there and serving.
    QVERIFY(!openSession(server.port).isEmpty());
}

void TestInteractionHttp::storedAnswersBelongToTheClientThatWasAsked()
{
    ServerFixture server(ServerFixture::defaultOptions(), interactionSettings());
    const QByteArray first = openSession(server.port, "2025-06-18", "runner");
    const QByteArray second = openSession(server.port, "2025-06-18", "other-runner");
    const QByteArray body = callBody(4, "request_connection", connectArguments);
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, sessionHeaders(server.port, first)));
        QVERIFY(client.waitForClose()); // parked
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.answer(server.pendingInteractions().front().id,
                 InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("mine")))),
        QString());

    // The other client repeating the same call is asked itself; it does not get (or use up) the
    // first client's answer.
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, sessionHeaders(server.port, second)));
        QVERIFY(client.waitForClose());
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.pendingInteractions().front().clientName, QStringLiteral("other-runner"));

    RawHttpClient retry(server.port);
    retry.send(RawHttpClient::post(body, sessionHeaders(server.port, first)));
    const RawHttpResponse response = retry.read();
    QCOMPARE(response.status, 200);
    QVERIFY(bodyJson(response).at("result").at("structuredContent").at("account") == "mine");
}

void TestInteractionHttp::storedAnswersBelongToANamedTokenNotItsDeclaredName()
{
    // Two clients with tokens of their own that both call themselves "runner": the answer stored for
    // one is not the other's, though their declared names (and calls) are the same.
    QTemporaryDir directory;
    auto tokens = std::make_shared<ClientTokens>(ClientTokens::defaultPath(directory.path()));
    QString error;
    const QByteArray alpha = tokens->issue(QStringLiteral("alpha"), &error);
    const QByteArray beta = tokens->issue(QStringLiteral("beta"), &error);
    QVERIFY2(!alpha.isEmpty() && !beta.isEmpty(), qPrintable(error));
    McpServerOptions options = ServerFixture::defaultOptions();
    options.clientTokens = tokens;
    ServerFixture server(options, interactionSettings());
    const auto withToken = [&](Headers headers, const QByteArray& token) {
        return withHeader(std::move(headers), "Authorization", "Bearer " + token);
    };
    const auto open = [&](const QByteArray& token) {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(
            initializeBody("2025-06-18", "runner"), withToken(standardHeaders(server.port), token)));
        const QByteArray id = client.read().header("mcp-session-id");
        client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
            withToken(sessionHeaders(server.port, id), token)));
        client.read();
        return id;
    };
    const QByteArray first = open(alpha);
    const QByteArray second = open(beta);
    const QByteArray body = callBody(4, "request_connection", connectArguments);
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, withToken(sessionHeaders(server.port, first), alpha)));
        QVERIFY(client.waitForClose()); // parked ("runner" parks)
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.pendingInteractions().front().identity, QStringLiteral("token:alpha"));
    QCOMPARE(
        server.answer(server.pendingInteractions().front().id,
            InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("alphas")))),
        QString());
    {
        RawHttpClient client(server.port);
        client.send(RawHttpClient::post(body, withToken(sessionHeaders(server.port, second), beta)));
        QVERIFY(client.waitForClose()); // beta is asked itself
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.pendingInteractions().front().identity, QStringLiteral("token:beta"));
    RawHttpClient retry(server.port);
    retry.send(RawHttpClient::post(body, withToken(sessionHeaders(server.port, first), alpha)));
    const RawHttpResponse response = retry.read();
    QCOMPARE(response.status, 200);
    QVERIFY(bodyJson(response).at("result").at("structuredContent").at("account") == "alphas");
}

void TestInteractionHttp::questionsBeyondTheLimitAreAToolError()
{
    InteractionBroker::Settings settings = interactionSettings();
    settings.maxPending = 1;
    ServerFixture server(ServerFixture::defaultOptions(), settings);
    const QByteArray session = openSession(server.port, "2025-06-18", "runner");
    {
        RawHttpClient client(server.port);
        client.send(
            RawHttpClient::post(callBody(1, "write", json{{"path", "one"}}), sessionHeaders(server.port, session)));
        QVERIFY(client.waitForClose()); // parked: the one question allowed
    }
    QCOMPARE(server.pendingInteractions().size(), 1);
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(callBody(2, "write", json{{"path", "two"}}), sessionHeaders(server.port, session)));
    const json message = responseIn(client.read());
    const json& result = message.at("result");
    QVERIFY(result.at("isError") == true);
    const std::string text = result.at("content").at(0).at("text").get<std::string>();
    QVERIFY2(text.find("interaction.maxPendingQuestions") != std::string::npos, text.c_str());
    QCOMPARE(server.pendingInteractions().size(), 1);
    QCOMPARE(server.writeRuns.load(), 0);
}

QTEST_GUILESS_MAIN(TestInteractionHttp)
#include "tst_interactionhttp.moc"
