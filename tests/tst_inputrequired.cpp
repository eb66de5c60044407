// input_required over real HTTP (MCP 2026-07-28 multi round-trip requests): a client tool
// answered by the client's own user ends its call with an elicitation/create form and an
// HMAC-protected requestState; the retry's inputResponses complete it with the same result shapes
// the console's answers give. Hostile states are refused with -32602 and a reason: altered, another
// client's, another call's, used twice. A client without elicitation, or of 2025, gets the console
// question as before.

#include "clientanswer.h"
#include "config/switchboardconfig.h"
#include "interaction/clienttool.h"
#include "mcphttptestsupport.h"

#include <QTest>

using nlohmann::json;

namespace {

json meta(const std::string& client, bool elicitation = true)
{
    json capabilities = json::object();
    if (elicitation)
        capabilities["elicitation"] = json::object();
    return json{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", client}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)}};
}

const json question{{"question", "Which branch should the release go to?"}};

// One tools/call of choose_branch on a connection of its own; the JSON-RPC message it got back.
json chooseBranch(quint16 port, int id, const std::string& client = "agent", json extra = json::object(),
    const json& arguments = question, bool elicitation = true, RawHttpResponse* raw = nullptr)
{
    json params{{"name", "choose_branch"}, {"arguments", arguments}, {"_meta", meta(client, elicitation)}};
    for (const auto& [key, value] : extra.items())
        params[key] = value;
    RawHttpClient connection(port);
    connection.send(RawHttpClient::post(
        QByteArray::fromStdString(
            json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", std::move(params)}}.dump()),
        modernHeaders(port, "tools/call", "choose_branch")));
    const RawHttpResponse response = connection.read();
    if (raw)
        *raw = response;
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

json accept(const std::string& choice)
{
    return json{{"answer", {{"action", "accept"}, {"content", {{"choice", choice}}}}}};
}

} // namespace

class TestInputRequired : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void theClientsUserAnswersThroughARetry();
    void hostileStatesAreRefused_data();
    void hostileStatesAreRefused();
    void aMissingAnswerIsAskedAgain();
    void aDeclineIsTheConsolesDecline();
    void anAnswerOutsideTheOptionsIsRefused();
    void aClientWithoutElicitationIsAskedAtTheConsole();

private:
    std::unique_ptr<ServerFixture> m_server;
};

void TestInputRequired::init()
{
    InteractionBroker::Settings settings;
    settings.progressIntervalMs = 100;
    m_server = std::make_unique<ServerFixture>(ServerFixture::defaultOptions(), settings);
    ClientToolConfig config;
    config.spec = json{{"name", "choose_branch"},
        {"inputSchema", {{"type", "object"}, {"properties", {{"question", {{"type", "string"}}}}}}}};
    config.render = QStringLiteral("choice");
    config.choices = {QStringLiteral("main"), QStringLiteral("develop")};
    config.answeredBy = QStringLiteral("client");
    RegisteredTool tool;
    QString error;
    QVERIFY2(ClientTool::fromConfig(config, &tool, &error), qPrintable(error));
    QVERIFY2(m_server->addTool(std::move(tool), &error), qPrintable(error));
}

void TestInputRequired::cleanup()
{
    m_server.reset();
}

void TestInputRequired::theClientsUserAnswersThroughARetry()
{
    const json asked = chooseBranch(m_server->port, 1);
    const json& result = asked.at("result");
    QVERIFY2(result.at("resultType") == "input_required", asked.dump().c_str());
    const json& request = result.at("inputRequests").at("answer");
    QVERIFY(request.at("method") == "elicitation/create");
    QVERIFY(request.at("params").at("mode") == "form");
    QVERIFY(request.at("params").at("message").get<std::string>().find("Which branch") != std::string::npos);
    QVERIFY(request.at("params").at("requestedSchema").at("properties").at("choice").at("enum")
        == json::array({"main", "develop"}));
    const std::string state = result.at("requestState");
    QVERIFY(m_server->pendingInteractions().isEmpty()); // nothing waits at the console
    QTRY_COMPARE(m_server->finishedCalls().size(), 1);
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Parked);
    QVERIFY(m_server->finishedCalls().last().timeline.contains("\"asked\""));

    const json answered
        = chooseBranch(m_server->port, 2, "agent", {{"inputResponses", accept("develop")}, {"requestState", state}});
    QVERIFY2(answered.at("result").at("resultType") == "complete", answered.dump().c_str());
    QVERIFY(answered.at("result").at("structuredContent") == json({{"choice", "develop"}}));
    QTRY_COMPARE(m_server->finishedCalls().size(), 2);
    const ToolCall retry = m_server->finishedCalls().last();
    QCOMPARE(retry.status, CallStatus::Ok);
    QVERIFY2(retry.timeline.contains("\"answered\"") && retry.timeline.contains("\"previousCallId\""),
        retry.timeline.constData());
    QVERIFY2(retry.decision.contains("\"via\":\"client\""), retry.decision.constData());

    // The same state again: it answered its call already.
    const json replay
        = chooseBranch(m_server->port, 3, "agent", {{"inputResponses", accept("main")}, {"requestState", state}});
    QCOMPARE(int(replay.at("error").at("code")), -32602);
    QVERIFY2(replay.at("error").at("message").get<std::string>().find("used already") != std::string::npos,
        replay.dump().c_str());
}

void TestInputRequired::hostileStatesAreRefused_data()
{
    QTest::addColumn<QString>("attack");
    QTest::addColumn<QString>("expected");
    QTest::newRow("flipped bytes") << "flip"
                                   << "altered";
    QTest::newRow("another client's") << "client"
                                      << "another client";
    QTest::newRow("replayed on other arguments") << "arguments"
                                                 << "another call";
    QTest::newRow("not a state") << "garbage"
                                 << "not one this server gave out";
}

void TestInputRequired::hostileStatesAreRefused()
{
    QFETCH(QString, attack);
    QFETCH(QString, expected);
    std::string state = chooseBranch(m_server->port, 1).at("result").at("requestState");
    std::string client = "agent";
    json arguments = question;
    if (attack == QLatin1String("flip"))
        state[5] = state[5] == 'A' ? 'B' : 'A';
    else if (attack == QLatin1String("client"))
        client = "intruder";
    else if (attack == QLatin1String("arguments"))
        arguments = json{{"question", "Delete which branch?"}};
    else
        state = "not-a-state";
    RawHttpResponse raw;
    const json refused = chooseBranch(m_server->port, 2, client,
        {{"inputResponses", accept("main")}, {"requestState", state}}, arguments, true, &raw);
    QCOMPARE(raw.status, 200);
    QCOMPARE(int(refused.at("error").at("code")), -32602);
    QVERIFY2(QString::fromStdString(refused.at("error").at("message")).contains(expected), refused.dump().c_str());
    QTRY_COMPARE(m_server->finishedCalls().size(), 2);
    QCOMPARE(m_server->finishedCalls().last().status, CallStatus::Error);
}

void TestInputRequired::aMissingAnswerIsAskedAgain()
{
    const std::string state = chooseBranch(m_server->port, 1).at("result").at("requestState");
    const json again
        = chooseBranch(m_server->port, 2, "agent", {{"inputResponses", json::object()}, {"requestState", state}});
    QVERIFY2(again.at("result").at("resultType") == "input_required", again.dump().c_str());
    QVERIFY(again.at("result").at("requestState") != state);
    QTRY_COMPARE(m_server->finishedCalls().size(), 2);
    QVERIFY(m_server->finishedCalls().last().timeline.contains("\"round\":2"));
}

void TestInputRequired::aDeclineIsTheConsolesDecline()
{
    const std::string state = chooseBranch(m_server->port, 1).at("result").at("requestState");
    const json declined = chooseBranch(m_server->port, 2, "agent",
        {{"inputResponses", {{"answer", {{"action", "decline"}}}}}, {"requestState", state}});
    QVERIFY2(declined.at("result").at("structuredContent") == json({{"reason", "declined"}}), declined.dump().c_str());
}

void TestInputRequired::anAnswerOutsideTheOptionsIsRefused()
{
    const std::string state = chooseBranch(m_server->port, 1).at("result").at("requestState");
    const json refused
        = chooseBranch(m_server->port, 2, "agent", {{"inputResponses", accept("production")}, {"requestState", state}});
    QCOMPARE(int(refused.at("error").at("code")), -32602);
    QVERIFY2(refused.at("error").at("message").get<std::string>().find("not one of the options") != std::string::npos,
        refused.dump().c_str());
    // Not consumed: the client's user may answer again with a real option.
    const json answered
        = chooseBranch(m_server->port, 3, "agent", {{"inputResponses", accept("main")}, {"requestState", state}});
    QVERIFY2(answered.at("result").at("structuredContent") == json({{"choice", "main"}}), answered.dump().c_str());
}

void TestInputRequired::aClientWithoutElicitationIsAskedAtTheConsole()
{
    RawHttpClient connection(m_server->port);
    connection.send(RawHttpClient::post(
        QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
            {"params", {{"name", "choose_branch"}, {"arguments", question}, {"_meta", meta("agent", false)}}}}
                                      .dump()),
        modernHeaders(m_server->port, "tools/call", "choose_branch")));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->pendingInteractions().size(), 1, 10'000);
    const PendingInteraction asked = m_server->pendingInteractions().front();
    QCOMPARE(asked.tool, QStringLiteral("choose_branch"));
    QCOMPARE(m_server->answer(asked.id, InteractionAnswer::respond(json{{"choice", "main"}})), QString());
    const RawHttpResponse response = connection.read();
    QVERIFY2(response.body.contains("\"choice\":\"main\""), response.body.constData());
}

QTEST_GUILESS_MAIN(TestInputRequired)
#include "tst_inputrequired.moc"
