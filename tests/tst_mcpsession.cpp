// McpSession without HTTP: lifecycle, methods, tool calls, notifications, cancellation and the
// ToolCall records the console shows.

#include "events/backendevents.h"
#include "interaction/clienttool.h"
#include "interaction/clienttoolconfig.h"
#include "interaction/interactionbroker.h"
#include "store/historyfeed.h"
#include "store/historystore.h"
#include "store/historywriter.h"
#include "tools/builtintools.h"
#include "tools/debugtools.h"
#include "tools/toolexecutor.h"
#include "tools/toolregistry.h"
#include "tools/toolrouter.h"
#include "transport/calltimeline.h"
#include "transport/mcpsession.h"

#include "jsontestsupport.h"
#include <QSignalSpy>

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSemaphore>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <thread>

using nlohmann::json;

namespace {

// Records what the session sends for one exchange.
class RecordingChannel : public ResponseChannel
{
public:
    void sendNotification(const QByteArray& message) override
    {
        notifications.push_back(json::parse(message.toStdString()));
    }
    void sendResponse(const QByteArray& message) override { responses.push_back(json::parse(message.toStdString())); }
    void skipResponse() override { ++skipped; }
    bool isOpen() const override { return true; }

    std::vector<json> notifications;
    std::vector<json> responses;
    int skipped = 0;
};

// A connection that closes the moment the session writes to it, as a socket whose peer reset does:
// the HTTP server's channel then tells the session at once, from inside the write, so the session
// is re-entered while it is still writing.
class ClosingChannel : public ResponseChannel
{
public:
    void sendNotification(const QByteArray&) override { close(); }
    void sendResponse(const QByteArray&) override { close(); }
    void skipResponse() override {}
    void sendKeepAlive(const char*) override { close(); }
    bool isOpen() const override { return !closed; }

    McpSession* session = nullptr;
    bool closed = false;
    int writes = 0;

private:
    void close()
    {
        ++writes;
        if (closed)
            return;
        closed = true;
        session->channelClosed(this);
    }
};

// A standalone notification stream whose connection closes when written to: the HTTP server then
// clears it from the session, from inside the write, dropping the session's reference to it.
class ClosingStream : public ResponseChannel
{
public:
    ~ClosingStream() override { *alive = false; }
    void sendNotification(const QByteArray&) override
    {
        session->clearNotificationStream(this);
        ++*writes; // still this stream's own write
    }
    void sendResponse(const QByteArray& message) override { sendNotification(message); }
    void skipResponse() override {}
    bool isOpen() const override { return true; }

    McpSession* session = nullptr;
    std::shared_ptr<int> writes = std::make_shared<int>(0);
    std::shared_ptr<bool> alive = std::make_shared<bool>(true);
};

struct Fixture
{
    Fixture()
        : router(&registry)
    {
        registerBuiltinTools(registry);
        RegisteredTool slow;
        slow.spec.name = QStringLiteral("slow");
        slow.spec.description = QStringLiteral("finishes only when the test says so");
        slow.route = ToolRoute::builtin();
        slow.handler = [this](const std::shared_ptr<ToolCallContext>& context) {
            pending.push_back(context);
            context->setCancellationHandler([this] { ++abortedWork; });
        };
        registry.add(slow);
        environment.registry = &registry;
        environment.router = &router;
        environment.executor = &executor;
        environment.events = &events;
        environment.nextCallId = [this] { return nextId++; };
        environment.redactor = TokenRedactor("sb_secret-token");
        environment.identity.version = QStringLiteral("9.9.9");
        environment.toolsPageSize = 100;
    }

    std::unique_ptr<McpSession> session(const char* version = "2025-06-18")
    {
        auto s = std::make_unique<McpSession>("session-1", &environment);
        QByteArray response;
        const json init
            = json::parse(std::string(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")")
                + version + R"(","capabilities":{},"clientInfo":{"name":"tester","version":"1.2"}}})");
        const auto message = JsonRpc::classify(init);
        if (!s->initialize(message, &response))
            return nullptr;
        return s;
    }

    ToolRegistry registry;
    ToolRouter router;
    ToolExecutor executor{ToolExecutor::Settings{}};
    BackendEvents events;
    SessionEnvironment environment;
    qint64 nextId = 100;
    std::vector<std::shared_ptr<ToolCallContext>> pending;
    int abortedWork = 0;
};

// Sends one message (as JSON text) and returns what came back on its channel.
std::shared_ptr<RecordingChannel> send(McpSession& session, const std::string& text)
{
    auto channel = std::make_shared<RecordingChannel>();
    const json value = json::parse(text);
    session.handleMessage(JsonRpc::classify(value), QByteArray::fromStdString(text), channel);
    return channel;
}

// A tool that writes, so the default policy asks a person before it runs.
RegisteredTool writeTool()
{
    RegisteredTool write;
    write.spec.name = QStringLiteral("write");
    write.spec.annotations = json{{"readOnlyHint", false}};
    write.route = ToolRoute::builtin();
    write.handler = [](const std::shared_ptr<ToolCallContext>& context) {
        context->finish(ToolResult::text(QStringLiteral("written")));
    };
    return write;
}

// Answers every question the moment it is raised (from the broker's own signal, so a call may
// resume while the session is still raising it).
void answerEveryQuestion(InteractionBroker& broker, const InteractionAnswer& answer)
{
    QObject::connect(
        &broker, &InteractionBroker::interactionPending, &broker, [&broker, answer](const PendingInteraction& asked) {
            QString error;
            QVERIFY2(broker.answer(asked.id, answer, &error), qPrintable(error));
        });
}

} // namespace

class TestMcpSession : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initializeNegotiatesVersion_data();
    void initializeNegotiatesVersion();
    void initializeRejectsBadParams_data();
    void initializeRejectsBadParams();
    void methods_data();
    void methods();
    void toolsListPages();
    void echoCallIsRecorded();
    void unknownToolIsRecordedAsUnknownTool();
    void toolThatThrowsAnythingGetsAToolError();
    void longToolErrorIsCutWithAMarker();
    void refusedCallsAreRecorded_data();
    void refusedCallsAreRecorded();
    void argumentsKeepTheClientsOrder();
    void invalidArgumentsAreRecordedAsSuch();
    void progressAndLogNotifications();
    void setLevelFiltersLogs();
    void timelineRecordsWhatWasSent();
    void timelineIsBoundedAndRedacted();
    void timelineIsPublishedWhileTheCallRuns();
    void timelineKeepsFirstAndLast();
    void cancellationAbortsTheCall();
    void closedChannelCancelsItsCalls();
    void terminateCancelsEverything();
    void duplicateInFlightIdIsRejected();
    void secretIsRedactedFromRecords();
    void waitingCallsSurviveConnectionsClosingDuringTheTick_data();
    void waitingCallsSurviveConnectionsClosingDuringTheTick();
    void callAnsweredWhileItsQuestionIsRaised();
    void heldCallGetsAToolErrorWhenTheServerStops();
    void deniedByPolicyByAReadOnlyRuleAndByAPerson();
    void confirmAnsweredNoIsDeclined();
    void throwingToolIsAToolError();
    void deadlineIsATimeout();
    void timeWaitingForAPersonIsRecordedApartFromRunning();
    void timeARunningToolWaitedOnAPersonIsRecorded();
    void parkedCallIsParked();
    void notificationStreamClosedByItsOwnWrite();
    void tokenNeverReachesARecord_data();
    void tokenNeverReachesARecord();
    void tokenNeverReachesTheWorkspaceState();
    void callsWaitWhileHistoryIsFullAndNoneIsLost();
    void urlCredentialsNeverReachHistory_data();
    void urlCredentialsNeverReachHistory();
    void callsWaitingForHistoryEndWithTheirSession_data();
    void callsWaitingForHistoryEndWithTheirSession();
};

void TestMcpSession::initializeNegotiatesVersion_data()
{
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("negotiated");
    QTest::newRow("2025-03-26") << QStringLiteral("2025-03-26") << QStringLiteral("2025-03-26");
    QTest::newRow("2025-06-18") << QStringLiteral("2025-06-18") << QStringLiteral("2025-06-18");
    QTest::newRow("2025-11-25") << QStringLiteral("2025-11-25") << QStringLiteral("2025-11-25");
    QTest::newRow("older unknown") << QStringLiteral("2024-11-05") << QStringLiteral("2025-11-25");
    QTest::newRow("future") << QStringLiteral("2030-01-01") << QStringLiteral("2025-11-25");
}

void TestMcpSession::initializeNegotiatesVersion()
{
    QFETCH(QString, requested);
    QFETCH(QString, negotiated);
    Fixture f;
    McpSession session("s", &f.environment);
    const json init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
        {"params",
            {{"protocolVersion", requested.toStdString()}, {"capabilities", json::object()},
                {"clientInfo", {{"name", "c"}, {"version", "1"}}}}}};
    QByteArray response;
    QVERIFY(session.initialize(JsonRpc::classify(init), &response));
    const json parsed = json::parse(response.toStdString());
    QCOMPARE(QString::fromStdString(parsed["result"]["protocolVersion"].get<std::string>()), negotiated);
    QCOMPARE(QString::fromStdString(session.negotiatedVersion()), negotiated);
    QCOMPARE_JSON(parsed["result"]["serverInfo"]["name"], json("switchboard"));
    QCOMPARE_JSON(parsed["result"]["serverInfo"]["version"], json("9.9.9"));
    QVERIFY(parsed["result"]["capabilities"].contains("tools"));
    QVERIFY(parsed["result"]["capabilities"].contains("logging"));
    QCOMPARE(session.clientName(), QStringLiteral("c"));
}

void TestMcpSession::initializeRejectsBadParams_data()
{
    QTest::addColumn<QByteArray>("params");
    QTest::newRow("no params") << QByteArray("null");
    QTest::newRow("no version") << QByteArray(R"({"capabilities":{}})");
    QTest::newRow("numeric version") << QByteArray(R"({"protocolVersion":2025})");
    QTest::newRow("capabilities not object") << QByteArray(R"({"protocolVersion":"2025-06-18","capabilities":[]})");
}

void TestMcpSession::initializeRejectsBadParams()
{
    QFETCH(QByteArray, params);
    Fixture f;
    McpSession session("s", &f.environment);
    json init{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}};
    const json p = json::parse(params.toStdString());
    if (!p.is_null())
        init["params"] = p;
    QByteArray response;
    QVERIFY(!session.initialize(JsonRpc::classify(init), &response));
    QCOMPARE_JSON(json::parse(response.toStdString())["error"]["code"], json(JsonRpc::InvalidParams));
}

void TestMcpSession::methods_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<QByteArray>("expected"); // the result, or {"error": code}
    QTest::newRow("ping") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") << QByteArray("{}");
    QTest::newRow("ping with params") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{}})")
                                      << QByteArray("{}");
    QTest::newRow("setLevel") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}})")
                              << QByteArray("{}");
    QTest::newRow("setLevel bad") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}})")
                                  << QByteArray(R"({"error":-32602})");
    QTest::newRow("setLevel missing") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel"})")
                                      << QByteArray(R"({"error":-32602})");
    QTest::newRow("unknown method") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"resources/list"})")
                                    << QByteArray(R"({"error":-32601})");
    QTest::newRow("initialize again") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})")
                                      << QByteArray(R"({"error":-32600})");
    QTest::newRow("call without name") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})")
                                       << QByteArray(R"({"error":-32602})");
    QTest::newRow("call with numeric name")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}})")
        << QByteArray(R"({"error":-32602})");
    QTest::newRow("call with array arguments")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}})")
        << QByteArray(R"({"error":-32602})");
    QTest::newRow("call unknown tool") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}})")
                                       << QByteArray(R"({"error":-32602})");
    QTest::newRow("list bad cursor") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"%%%"}})")
                                     << QByteArray(R"({"error":-32602})");
    QTest::newRow("list numeric cursor") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}})")
                                         << QByteArray(R"({"error":-32602})");
    QTest::newRow("invalid message") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[]})")
                                     << QByteArray(R"({"error":-32600})");
}

void TestMcpSession::methods()
{
    QFETCH(QByteArray, request);
    QFETCH(QByteArray, expected);
    Fixture f;
    auto session = f.session();
    QVERIFY(session);
    const auto channel = send(*session, request.toStdString());
    QCOMPARE(channel->responses.size(), std::size_t(1));
    const json& response = channel->responses.front();
    QCOMPARE_JSON(response["id"], json(1));
    QCOMPARE_JSON(response["jsonrpc"], json("2.0"));
    const json want = json::parse(expected.toStdString());
    if (want.contains("error")) {
        QVERIFY2(response.contains("error"), response.dump().c_str());
        QCOMPARE_JSON(response["error"]["code"], want["error"]);
        QVERIFY(!response["error"]["message"].get<std::string>().empty());
    } else {
        QCOMPARE_JSON(response["result"], want);
    }
}

void TestMcpSession::toolsListPages()
{
    Fixture f;
    for (int i = 0; i < 5; ++i) {
        RegisteredTool tool;
        tool.spec.name = QStringLiteral("t%1").arg(i);
        tool.route = ToolRoute::builtin();
        tool.handler = [](const std::shared_ptr<ToolCallContext>& c) { c->finish({}); };
        f.registry.add(tool);
    }
    f.environment.toolsPageSize = 3; // 7 tools: echo, slow, t0..t4
    auto session = f.session();
    QStringList names;
    json cursor;
    int pages = 0;
    do {
        json request{{"jsonrpc", "2.0"}, {"id", pages}, {"method", "tools/list"}, {"params", json::object()}};
        if (!cursor.is_null())
            request["params"]["cursor"] = cursor;
        const auto channel = send(*session, request.dump());
        const json& result = channel->responses.at(0)["result"];
        QVERIFY(result["tools"].size() <= 3);
        for (const auto& tool : result["tools"]) {
            names << QString::fromStdString(tool["name"].get<std::string>());
            QVERIFY(tool.contains("description"));
            QCOMPARE_JSON(tool["inputSchema"]["type"], json("object"));
        }
        cursor = result.value("nextCursor", json());
        ++pages;
    } while (!cursor.is_null() && pages < 10);
    QCOMPARE(pages, 3);
    QCOMPARE(names,
        (QStringList{QStringLiteral("echo"), QStringLiteral("slow"), QStringLiteral("t0"), QStringLiteral("t1"),
            QStringLiteral("t2"), QStringLiteral("t3"), QStringLiteral("t4")}));
}

void TestMcpSession::echoCallIsRecorded()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy started(&f.events, &BackendEvents::callStarted);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const std::string request
        = R"({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi","n":2}}})";
    const auto channel = send(*session, request);
    QCOMPARE(channel->responses.size(), std::size_t(1));
    const json& result = channel->responses.front()["result"];
    QCOMPARE_JSON(result["structuredContent"], json::parse(R"({"message":"hi","n":2})"));
    QCOMPARE_JSON(
        json::parse(result["content"][0]["text"].get<std::string>()), json::parse(R"({"message":"hi","n":2})"));
    QVERIFY(!result.contains("isError"));
    QVERIFY(channel->notifications.empty()); // no progress token, default log level

    QCOMPARE(started.size(), 1);
    QCOMPARE(finished.size(), 1);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.id, qint64(100));
    QCOMPARE(record.tool, QStringLiteral("echo"));
    QCOMPARE(record.route, ToolRoute::builtin());
    QCOMPARE(record.clientName, QStringLiteral("tester"));
    QCOMPARE(record.clientVersion, QStringLiteral("1.2"));
    QCOMPARE(record.sessionId, QStringLiteral("session-1"));
    QCOMPARE(record.status, CallStatus::Ok);
    QVERIFY(record.durationUs >= 0);
    QVERIFY(record.startedAtMs > 0);
    QCOMPARE(record.request, QByteArray::fromStdString(request));
    QCOMPARE_JSON(json::parse(record.response.toStdString()), channel->responses.front());
    QVERIFY(record.argumentsJson().contains("\"message\": \"hi\""));
    QCOMPARE(started.at(0).at(0).value<ToolCall>().status, CallStatus::Running);
}

// A tool whose code throws something that is not a std::exception, on the backend thread, answers
// its call with a tool error; nothing reaches the event loop.
void TestMcpSession::toolThatThrowsAnythingGetsAToolError()
{
    Fixture f;
    RegisteredTool thrower;
    thrower.spec.name = QStringLiteral("thrower");
    thrower.route = ToolRoute::builtin();
    thrower.handler = [](const std::shared_ptr<ToolCallContext>&) { throw 42; };
    QVERIFY(f.registry.add(thrower));
    RegisteredTool refused = thrower;
    refused.spec.name = QStringLiteral("refused");
    refused.refusal = QStringLiteral("never offered");
    refused.refused = [] { throw 43; };
    QVERIFY(f.registry.add(refused));
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);

    const auto channel
        = send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"thrower"}})");
    QCOMPARE(channel->responses.size(), std::size_t(1));
    const json& result = channel->responses.front().at("result");
    QCOMPARE(result.value("isError", false), true);
    QCOMPARE(result.at("content").at(0).at("text").get<std::string>(),
        std::string("Tool \"thrower\" failed: an exception of type int (not a std::exception)"));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<ToolCall>().status, CallStatus::ToolError);

    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("counting a refused call failed: an exception of type int")));
    const auto denied = send(*session, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"refused"}})");
    QCOMPARE(denied->responses.size(), std::size_t(1));
    QCOMPARE(denied->responses.front().at("result").at("content").at(0).at("text").get<std::string>(),
        std::string("never offered"));
    QCOMPARE(finished.size(), 2);
    QCOMPARE(finished.at(1).at(0).value<ToolCall>().status, CallStatus::Denied);
}

void TestMcpSession::unknownToolIsRecordedAsUnknownTool()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session, R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ecoh"}})");
    const json& error = channel->responses.at(0)["error"];
    QCOMPARE_JSON(error["code"], json(-32602));
    QVERIFY(error["message"].get<std::string>().find("Closest matches: echo") != std::string::npos);
    QCOMPARE(finished.size(), 1);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::UnknownTool);
    QCOMPARE(record.route, ToolRoute());
    QVERIFY(record.error.contains(QStringLiteral("Unknown tool \"ecoh\"")));
}

void TestMcpSession::longToolErrorIsCutWithAMarker()
{
    // The record keeps ToolCall::MaxErrorChars of a tool's error and says how much was cut; the
    // client still gets the whole message.
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session, R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}})");
    QCOMPARE(f.pending.size(), std::size_t(1));
    const QString message = QString(ToolCall::MaxErrorChars, QLatin1Char('e')) + QString(1000, QLatin1Char('x'));
    f.pending.front()->finish(ToolResult::error(message));
    QCOMPARE(channel->responses.size(), std::size_t(1));
    QCOMPARE(channel->responses.at(0)["result"]["content"][0]["text"].get<std::string>(), message.toStdString());
    QCOMPARE(finished.size(), 1);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::ToolError);
    QVERIFY2(
        record.error.startsWith(QString(ToolCall::MaxErrorChars, QLatin1Char('e'))), qPrintable(record.error.left(80)));
    QVERIFY2(record.error.endsWith(QStringLiteral("[1000 more characters cut]")), qPrintable(record.error.right(80)));
}

// Arguments that fail the schema are a tool error to the client (a model can retry), and the
// call log says which kind.
void TestMcpSession::invalidArgumentsAreRecordedAsSuch()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session,
        R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":7}}})");
    const json& result = channel->responses.at(0)["result"];
    QCOMPARE_JSON(result["isError"], json(true));
    QVERIFY(result["content"][0]["text"].get<std::string>().find("/message: expected string, got integer")
        != std::string::npos);
    QCOMPARE(finished.at(0).at(0).value<ToolCall>().status, CallStatus::InvalidArguments);
}

void TestMcpSession::progressAndLogNotifications()
{
    Fixture f;
    auto session = f.session();
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}})");
    const auto channel = send(*session,
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"p-1"}}})");
    QCOMPARE(channel->notifications.size(), std::size_t(2));
    const json& progress = channel->notifications.at(0);
    QCOMPARE_JSON(progress["method"], json("notifications/progress"));
    QCOMPARE_JSON(progress["params"]["progressToken"], json("p-1"));
    QVERIFY(progress["params"]["progress"] == 1);
    const json& log = channel->notifications.at(1);
    QCOMPARE_JSON(log["method"], json("notifications/message"));
    QCOMPARE_JSON(log["params"]["level"], json("debug"));
    QCOMPARE_JSON(log["params"]["logger"], json("echo"));
    QCOMPARE(channel->responses.size(), std::size_t(1));
}

void TestMcpSession::setLevelFiltersLogs()
{
    Fixture f;
    auto session = f.session();
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}})");
    const auto channel
        = send(*session, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}})");
    QVERIFY(channel->notifications.empty()); // echo logs at debug
    QCOMPARE(channel->responses.size(), std::size_t(1));
}

// debug.progress on the executor's pool, as real traffic: every notification the client got is in
// the record's timeline, in order, with times from the call's start; a call without a progress
// token or log level gets none.
void TestMcpSession::timelineRecordsWhatWasSent()
{
    Fixture f;
    f.registry.replaceSource(QStringLiteral("debug"), debugTools());
    auto session = f.session();
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}})");
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session,
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug.progress","arguments":{"steps":3,"interval_ms":20},"_meta":{"progressToken":"t-1"}}})");
    QVERIFY(finished.wait(30'000));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::Ok);
    const json timeline = json::parse(record.timeline.toStdString());
    QVERIFY(timeline.is_array());
    QCOMPARE(timeline.size(), channel->notifications.size());
    QCOMPARE(timeline.size(), std::size_t(6)); // a progress and a log message per step
    qint64 previousMs = 0;
    for (std::size_t i = 0; i < timeline.size(); ++i) {
        const json& entry = timeline[i];
        QCOMPARE_JSON(entry["method"], channel->notifications.at(i)["method"]);
        QCOMPARE_JSON(entry["params"], channel->notifications.at(i)["params"]);
        const qint64 atMs = entry["atMs"].get<qint64>();
        QVERIFY(atMs >= previousMs);
        QVERIFY(atMs <= record.durationUs / 1000 + 1);
        previousMs = atMs;
    }
    QCOMPARE_JSON(timeline[0]["method"], json("notifications/progress"));
    QCOMPARE_JSON(timeline[0]["params"]["message"], json("step 1 of 3"));
    QCOMPARE_JSON(timeline[5]["method"], json("notifications/message"));
    QCOMPARE_JSON(timeline[5]["params"]["data"], (json{{"step", 3}}));
    // Each step waited 20 ms before it was sent.
    QVERIFY(timeline[0]["atMs"].get<qint64>() >= 20);

    // Nothing sent, nothing recorded.
    send(*session, R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}})");
    send(*session,
        R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"debug.progress","arguments":{"steps":1,"interval_ms":0}}})");
    QVERIFY(finished.wait(30'000));
    QVERIFY(finished.at(1).at(0).value<ToolCall>().timeline.isEmpty());
}

// Thousands of notifications (and large ones) stay within the timeline's limits, saying how many
// were left out; a secret in a log message is redacted there as in the bodies.
void TestMcpSession::timelineIsBoundedAndRedacted()
{
    Fixture f;
    f.registry.replaceSource(QStringLiteral("debug"), debugTools());
    auto session = f.session();
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}})");
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session,
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug.progress","arguments":{"steps":2000,"interval_ms":0},"_meta":{"progressToken":7}}})");
    QVERIFY(finished.wait(60'000));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QVERIFY2(record.timeline.size() <= CallTimeline::MaxBytes + 100, QByteArray::number(record.timeline.size()));
    const json timeline = json::parse(record.timeline.toStdString());
    std::size_t kept = 0;
    qint64 omitted = 0;
    for (const json& entry : timeline) {
        if (entry.contains("omitted"))
            omitted = entry["omitted"].get<qint64>();
        else
            ++kept;
    }
    QVERIFY(kept <= std::size_t(CallTimeline::MaxEntries));
    QCOMPARE(qint64(kept) + omitted, qint64(4000));
    QCOMPARE(timeline.front()["params"]["progress"].get<double>(), 1.0);
    QCOMPARE_JSON(timeline.back()["params"]["data"], (json{{"step", 2000}}));

    // echo logs its arguments at debug level: the token in them is redacted in the timeline too.
    send(*session,
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"sb_secret-token"},"_meta":{"progressToken":8}}})");
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 30'000);
    const auto echoed = finished.at(1).at(0).value<ToolCall>();
    QVERIFY(!echoed.timeline.isEmpty());
    QVERIFY2(!echoed.timeline.contains("sb_secret-token"), echoed.timeline.constData());
}

// A running call's timeline reaches the console before the call ends (the inspector shows its
// progress live), a few times a second at most however fast the tool reports.
void TestMcpSession::timelineIsPublishedWhileTheCallRuns()
{
    Fixture f;
    f.registry.replaceSource(QStringLiteral("debug"), debugTools());
    auto session = f.session();
    QSignalSpy changed(&f.events, &BackendEvents::callChanged);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session,
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug.progress","arguments":{"steps":3,"interval_ms":400},"_meta":{"progressToken":"live"}}})");
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(changed.cbegin(), changed.cend(),
            [](const QList<QVariant>& event) { return !event.at(0).value<ToolCall>().timeline.isEmpty(); }),
        30'000);
    QVERIFY(finished.isEmpty()); // seen while the call runs
    const auto running = std::find_if(changed.cbegin(), changed.cend(),
        [](const QList<QVariant>& event) { return !event.at(0).value<ToolCall>().timeline.isEmpty(); })
                             ->at(0)
                             .value<ToolCall>();
    QCOMPARE(running.status, CallStatus::Running);
    const json first = json::parse(running.timeline.toStdString());
    QCOMPARE_JSON(first[0]["params"]["message"], json("step 1 of 3"));
    QVERIFY(finished.wait(30'000));

    // Thousands of notifications: the calls published with a timeline stay few.
    changed.clear();
    QElapsedTimer elapsed;
    elapsed.start();
    send(*session,
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"debug.progress","arguments":{"steps":2000,"interval_ms":0},"_meta":{"progressToken":"fast"}}})");
    QVERIFY(finished.wait(60'000));
    const qint64 tookMs = elapsed.elapsed();
    const auto withTimeline = std::count_if(changed.cbegin(), changed.cend(),
        [](const QList<QVariant>& event) { return !event.at(0).value<ToolCall>().timeline.isEmpty(); });
    QVERIFY2(withTimeline <= tookMs / 250 + 2,
        qPrintable(QStringLiteral("%1 published in %2 ms").arg(withTimeline).arg(tookMs)));
}

// The recorder alone: the first entries, a marker with the count left out, the newest entries;
// an entry too large keeps its method and time and says how large its params were.
void TestMcpSession::timelineKeepsFirstAndLast()
{
    CallTimeline timeline;
    QVERIFY(timeline.toJson().isEmpty());
    for (int i = 0; i < 1000; ++i)
        timeline.record(i, json{{"method", "notifications/progress"}, {"params", {{"progress", i}}}});
    timeline.record(1000,
        json{{"method", "notifications/message"},
            {"params", {{"data", std::string(CallTimeline::MaxEntryBytes, 'x')}}}});
    const json entries = json::parse(timeline.toJson().toStdString());
    QCOMPARE(entries.size(), std::size_t(CallTimeline::MaxEntries + 1));
    QCOMPARE_JSON(entries[0], (json{{"atMs", 0}, {"method", "notifications/progress"}, {"params", {{"progress", 0}}}}));
    QCOMPARE_JSON(entries[CallTimeline::MaxEntries / 2 - 1]["atMs"], json(CallTimeline::MaxEntries / 2 - 1));
    QCOMPARE_JSON(entries[CallTimeline::MaxEntries / 2], (json{{"omitted", 1001 - CallTimeline::MaxEntries}}));
    QCOMPARE(timeline.omitted(), qint64(1001 - CallTimeline::MaxEntries));
    const json& last = entries.back();
    QCOMPARE_JSON(last["atMs"], json(1000));
    QCOMPARE_JSON(last["method"], json("notifications/message"));
    QVERIFY(last["params"]["omittedBytes"].get<qint64>() > CallTimeline::MaxEntryBytes);
    QCOMPARE_JSON(entries[entries.size() - 2]["atMs"], json(999));
}

void TestMcpSession::cancellationAbortsTheCall()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session, R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}})");
    QVERIFY(channel->responses.empty());
    QCOMPARE(session->inFlightCount(), 1);
    QCOMPARE(f.pending.size(), std::size_t(1));

    // A cancellation for some other id changes nothing.
    send(*session, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})");
    QCOMPARE(session->inFlightCount(), 1);

    send(*session,
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"user pressed stop"}})");
    QCOMPARE(session->inFlightCount(), 0);
    QCOMPARE(f.abortedWork, 1);
    QVERIFY(f.pending.front()->isCancelled());
    QCOMPARE(channel->skipped, 1);
    QVERIFY(channel->responses.empty()); // a cancelled request gets no response
    QCOMPARE(finished.size(), 1);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::Cancelled);
    QVERIFY(record.error.contains(QStringLiteral("user pressed stop")));

    // The tool finishing late is ignored.
    f.pending.front()->finish(ToolResult::text(QStringLiteral("late")));
    QVERIFY(channel->responses.empty());
    QCOMPARE(finished.size(), 1);
}

void TestMcpSession::closedChannelCancelsItsCalls()
{
    Fixture f;
    auto session = f.session();
    const auto first = send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})");
    const auto second = send(*session, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}})");
    QCOMPARE(session->inFlightCount(), 2);
    session->channelClosed(first.get());
    QCOMPARE(session->inFlightCount(), 1);
    QCOMPARE(f.abortedWork, 1);
    f.pending.at(1)->finish(ToolResult::text(QStringLiteral("done")));
    QCOMPARE(second->responses.size(), std::size_t(1));
    QCOMPARE_JSON(second->responses.front()["result"]["content"][0]["text"], json("done"));
}

void TestMcpSession::terminateCancelsEverything()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})");
    send(*session, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}})");
    session->terminate(QStringLiteral("session deleted by the client"));
    QCOMPARE(session->inFlightCount(), 0);
    QCOMPARE(f.abortedWork, 2);
    QCOMPARE(finished.size(), 2);
    for (const auto& args : finished)
        QCOMPARE(args.at(0).value<ToolCall>().error, QStringLiteral("session deleted by the client"));
}

void TestMcpSession::duplicateInFlightIdIsRejected()
{
    Fixture f;
    auto session = f.session();
    send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})");
    const auto channel = send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}})");
    QCOMPARE_JSON(channel->responses.at(0)["error"]["code"], json(-32600));
    // A string id "1" is a different id.
    const auto other = send(*session, R"({"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"echo"}})");
    QVERIFY(other->responses.at(0).contains("result"));
}

void TestMcpSession::secretIsRedactedFromRecords()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"sb_secret-token"}}})");
    // The client gets its own arguments back; the console and history never hold the token.
    QCOMPARE_JSON(channel->responses.at(0)["result"]["structuredContent"]["message"], json("sb_secret-token"));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QVERIFY(!record.request.contains("sb_secret-token"));
    QVERIFY(!record.response.contains("sb_secret-token"));
    QVERIFY(record.request.contains("[redacted]"));
}

void TestMcpSession::refusedCallsAreRecorded_data()
{
    QTest::addColumn<QByteArray>("params");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("error");
    QTest::addColumn<int>("status");
    QTest::newRow("no name") << QByteArray("{}") << QStringLiteral("(no name)") << QStringLiteral("unknown")
                             << QStringLiteral("needs params.name") << int(CallStatus::Error);
    QTest::newRow("arguments not an object")
        << QByteArray(R"({"name":"echo","arguments":5})") << QStringLiteral("echo") << QStringLiteral("builtin")
        << QStringLiteral("must be an object") << int(CallStatus::InvalidArguments);
}

void TestMcpSession::refusedCallsAreRecorded()
{
    QFETCH(QByteArray, params);
    QFETCH(QString, tool);
    QFETCH(QString, route);
    QFETCH(QString, error);
    QFETCH(int, status);
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel
        = send(*session, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":)" + params.toStdString() + "}");
    QCOMPARE_JSON(channel->responses.at(0)["error"]["code"], -32602);
    QCOMPARE(finished.size(), 1);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(int(record.status), status);
    QCOMPARE(record.tool, tool);
    QCOMPARE(record.route.toString(), route);
    QVERIFY2(record.error.contains(error), qPrintable(record.error));
}

void TestMcpSession::argumentsKeepTheClientsOrder()
{
    ToolCall call;
    call.request
        = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"zeta":1,"alpha":2}}})";
    const QByteArray shown = call.argumentsJson();
    QVERIFY(shown.indexOf("zeta") < shown.indexOf("alpha"));
}

void TestMcpSession::waitingCallsSurviveConnectionsClosingDuringTheTick_data()
{
    QTest::addColumn<bool>("progress");
    QTest::newRow("keep-alive comments") << false;
    QTest::newRow("progress notifications") << true;
}

// Every tick of the wait ticker writes to each waiting call's connection; a write that closes its
// connection removes that call from the session (its question stays for the retry) while the
// ticker is still going through the calls.
void TestMcpSession::waitingCallsSurviveConnectionsClosingDuringTheTick()
{
    QFETCH(bool, progress);
    Fixture f;
    f.registry.add(ClientTool::requestConnection({QStringLiteral("github")}));
    InteractionBroker::Settings settings;
    settings.progressIntervalMs = 5;
    InteractionBroker broker(settings, &f.registry);
    f.environment.interactions = &broker;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);

    constexpr int calls = 20;
    std::vector<std::shared_ptr<ClosingChannel>> channels;
    for (int i = 0; i < calls; ++i) {
        auto channel = std::make_shared<ClosingChannel>();
        channel->session = session.get();
        json params{{"name", "request_connection"},
            {"arguments", {{"provider", "github"}, {"kind", "api_key"}, {"reason", "call " + std::to_string(i)}}}};
        if (progress)
            params["_meta"] = {{"progressToken", i}};
        const json request{{"jsonrpc", "2.0"}, {"id", i}, {"method", "tools/call"}, {"params", params}};
        session->handleMessage(JsonRpc::classify(request), QByteArray::fromStdString(request.dump()), channel);
        channels.push_back(std::move(channel));
    }
    QCOMPARE(session->inFlightCount(), calls);
    QCOMPARE(broker.pending().size(), calls);

    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), calls, 15'000);
    QCOMPARE(session->inFlightCount(), 0);
    for (const auto& channel : channels) {
        QVERIFY(channel->closed);
        QCOMPARE(channel->writes, 1); // nothing more was written to a closed connection
    }
    for (const auto& signal : finished) {
        const auto record = signal.at(0).value<ToolCall>();
        QCOMPARE(record.status, CallStatus::Parked); // over, and no longer shown as waiting
        QVERIFY2(record.error.contains(QStringLiteral("closed the connection")), qPrintable(record.error));
    }
    // The questions stay for the clients' retries, no longer waited on.
    const PendingInteractionList pending = broker.pending();
    QCOMPARE(pending.size(), calls);
    for (const auto& interaction : pending)
        QVERIFY(!interaction.waiting);
}

// Someone answers a question the moment it appears (a slot on interactionPending), so the call
// resumes, runs and finishes while the session is still inside the broker raising the question.
void TestMcpSession::callAnsweredWhileItsQuestionIsRaised()
{
    Fixture f;
    f.registry.add(writeTool());
    InteractionBroker broker({}, &f.registry);
    f.environment.interactions = &broker;
    answerEveryQuestion(broker, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce));
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel
        = send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{}}})");
    QCOMPARE(channel->responses.size(), 1u);
    QCOMPARE_JSON(channel->responses.at(0)["result"]["content"][0]["text"], json("written"));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<ToolCall>().status, CallStatus::Ok);
    QCOMPARE(session->inFlightCount(), 0);
    QVERIFY(broker.pending().isEmpty());
}

namespace {

// The status the call log got for one call sent to `session`.
CallStatus statusOfCall(BackendEvents& events, McpSession& session, const std::string& tool, const json& arguments)
{
    QSignalSpy finished(&events, &BackendEvents::callFinished);
    const json request{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
        {"params", {{"name", tool}, {"arguments", arguments}}}};
    send(session, request.dump());
    if (finished.size() != 1)
        return CallStatus::Running;
    return finished.at(0).at(0).value<ToolCall>().status;
}

} // namespace

// The operator's policy, a read-only adapter's write tool and a person's "deny" are one status,
// told apart from a tool that ran and failed.
// A call held on a question when the server stops gets a tool error that says what happened and
// what to do (never an exchange that ends without a result), and its question stays pending.
void TestMcpSession::heldCallGetsAToolErrorWhenTheServerStops()
{
    Fixture f;
    f.registry.add(writeTool());
    InteractionBroker broker({}, &f.registry);
    f.environment.interactions = &broker;
    auto session = f.session();
    QVERIFY(session);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel
        = send(*session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write","arguments":{}}})");
    QCOMPARE(broker.pending().size(), 1);
    QVERIFY(channel->responses.empty());

    session->shutDown();
    QCOMPARE(channel->skipped, 0);
    QCOMPARE(channel->responses.size(), 1u);
    const json& result = channel->responses.at(0)["result"];
    QCOMPARE_JSON(result["isError"], json(true));
    const std::string text = result["content"][0]["text"].get<std::string>();
    QVERIFY2(text.find("Switchboard stopped") != std::string::npos && text.find("stays pending") != std::string::npos,
        text.c_str());
    QCOMPARE(broker.pending().size(), 1);
    QCOMPARE(broker.pending().at(0).waiting, false);
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<ToolCall>().status, CallStatus::Cancelled);
    QCOMPARE(session->inFlightCount(), 0);
}

void TestMcpSession::deniedByPolicyByAReadOnlyRuleAndByAPerson()
{
    Fixture f;
    f.registry.add(writeTool());
    RegisteredTool readOnlyWrite = writeTool();
    readOnlyWrite.spec.name = QStringLiteral("upstream.write");
    readOnlyWrite.refusal = QStringLiteral("adapter upstream is read-only");
    f.registry.add(readOnlyWrite);
    PermissionPolicy::Rules rules;
    rules.tools.insert(QStringLiteral("echo"), QStringLiteral("deny"));
    InteractionBroker::Settings settings;
    settings.policy = PermissionPolicy(rules, QStringLiteral("test"));
    InteractionBroker broker(settings, &f.registry);
    f.environment.interactions = &broker;
    answerEveryQuestion(broker, InteractionAnswer::decide(InteractionAnswer::Decision::Deny));
    auto session = f.session();
    QCOMPARE(statusOfCall(f.events, *session, "echo", json{{"message", "hi"}}), CallStatus::Denied);
    QCOMPARE(statusOfCall(f.events, *session, "upstream.write", json::object()), CallStatus::Denied);
    QCOMPARE(statusOfCall(f.events, *session, "write", json::object()), CallStatus::Denied);
}

// A confirm answered "no" reaches the client as a result (not an error), and the call log shows it
// as declined, not as a plain ok; "yes" is ok.
void TestMcpSession::confirmAnsweredNoIsDeclined()
{
    Fixture f;
    ClientToolConfig confirmConfig;
    confirmConfig.spec = json{{"name", "confirm_delete"}, {"inputSchema", {{"type", "object"}}}};
    confirmConfig.render = QStringLiteral("confirm");
    RegisteredTool confirm;
    QString error;
    QVERIFY2(ClientTool::fromConfig(confirmConfig, &confirm, &error), qPrintable(error));
    f.registry.add(confirm);
    InteractionBroker broker({}, &f.registry);
    f.environment.interactions = &broker;
    bool yes = false;
    QObject::connect(&broker, &InteractionBroker::interactionPending, &broker, [&](const PendingInteraction& asked) {
        QString problem;
        QVERIFY2(broker.answer(asked.id, InteractionAnswer::respond(json{{"confirmed", yes}}), &problem),
            qPrintable(problem));
    });
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{}}})");
    QCOMPARE(channel->responses.size(), 1u);
    QVERIFY(!channel->responses.at(0)["result"].value("isError", false));
    QCOMPARE_JSON(channel->responses.at(0)["result"]["structuredContent"]["confirmed"], json(false));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.at(0).at(0).value<ToolCall>().status, CallStatus::Declined);
    yes = true;
    QCOMPARE(statusOfCall(f.events, *session, "confirm_delete", json::object()), CallStatus::Ok);
}

void TestMcpSession::throwingToolIsAToolError()
{
    Fixture f;
    RegisteredTool throwing;
    throwing.spec.name = QStringLiteral("throwing");
    throwing.route = ToolRoute::builtin();
    throwing.handler = [](const std::shared_ptr<ToolCallContext>&) { throw std::runtime_error("boom"); };
    f.registry.add(throwing);
    RegisteredTool throwingBlocking = throwing;
    throwingBlocking.spec.name = QStringLiteral("throwing_blocking");
    throwingBlocking.execution = ExecutionPolicy::blocking();
    throwingBlocking.handler = nullptr;
    throwingBlocking.blockingHandler = [](ToolCallContext&) -> ToolResult { throw std::runtime_error("boom"); };
    f.registry.add(throwingBlocking);
    auto session = f.session();
    QCOMPARE(statusOfCall(f.events, *session, "throwing", json::object()), CallStatus::ToolError);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"throwing_blocking"}})");
    QVERIFY(finished.wait(30'000));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::ToolError);
    QVERIFY2(record.error.contains(QStringLiteral("boom")), qPrintable(record.error));
}

// The executor's deadline ends a call that never finishes: timed out, not a tool error.
void TestMcpSession::deadlineIsATimeout()
{
    Fixture f;
    RegisteredTool stuck;
    stuck.spec.name = QStringLiteral("stuck");
    stuck.route = ToolRoute::builtin();
    stuck.execution.deadlineMs = 50;
    stuck.handler = [&f](const std::shared_ptr<ToolCallContext>& context) { f.pending.push_back(context); };
    f.registry.add(stuck);
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    const auto channel = send(*session, R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stuck"}})");
    QVERIFY(finished.wait(30'000));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::TimedOut);
    QVERIFY2(record.error.contains(QStringLiteral("deadline")), qPrintable(record.error));
    QCOMPARE_JSON(channel->responses.at(0)["result"]["isError"], json(true));
}

// An approval answered after a while: the record's duration holds the wait, and waitedUs says how
// much of it was the person's, so the log and the dashboard do not read it as the tool's latency.
void TestMcpSession::timeWaitingForAPersonIsRecordedApartFromRunning()
{
    Fixture f;
    f.registry.add(writeTool());
    InteractionBroker broker({}, &f.registry);
    f.environment.interactions = &broker;
    constexpr int AnswerAfterMs = 300;
    QObject::connect(
        &broker, &InteractionBroker::interactionPending, &broker, [&broker](const PendingInteraction& asked) {
            const QString id = asked.id;
            QTimer::singleShot(AnswerAfterMs, Qt::PreciseTimer, &broker, [&broker, id] {
                QString error;
                QVERIFY2(broker.answer(id, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce), &error),
                    qPrintable(error));
            });
        });
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session, R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{}}})");
    QVERIFY(finished.wait(30'000));
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::Ok);
    QVERIFY2(record.waitedUs >= AnswerAfterMs * 1000, qPrintable(QString::number(record.waitedUs)));
    QVERIFY(record.waitedUs <= record.durationUs);
    QCOMPARE(record.ranUs(), record.durationUs - record.waitedUs);

    // A call no one was asked about waited for no one.
    const QString echo = QStringLiteral("echo");
    QSignalSpy again(&f.events, &BackendEvents::callFinished);
    send(*session,
        R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}})");
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.at(0).at(0).value<ToolCall>().tool, echo);
    QCOMPARE(again.at(0).at(0).value<ToolCall>().waitedUs, qint64(0));
}

// A running tool that waits on a person (an upstream's elicitation pauses its deadline): the pause
// is the call's waiting time too.
void TestMcpSession::timeARunningToolWaitedOnAPersonIsRecorded()
{
    Fixture f;
    auto session = f.session();
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(*session, R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}})");
    QTRY_COMPARE_WITH_TIMEOUT(f.pending.size(), std::size_t(1), 30'000);
    const std::shared_ptr<ToolCallContext> context = f.pending.front();
    QElapsedTimer paused;
    paused.start();
    context->pauseDeadline();
    QTest::qWait(200); // the person takes a while (time passing, not a synchronisation)
    context->resumeDeadline();
    const qint64 pausedUs = paused.nsecsElapsed() / 1000;
    context->finish(ToolResult::text(QStringLiteral("done")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30'000);
    const auto record = finished.at(0).at(0).value<ToolCall>();
    QCOMPARE(record.status, CallStatus::Ok);
    QVERIFY2(record.waitedUs >= 200'000 && record.waitedUs <= pausedUs,
        qPrintable(QStringLiteral("%1 of %2").arg(record.waitedUs).arg(pausedUs)));
    QVERIFY(record.waitedUs <= record.durationUs);
}

// A parked call is over when its connection is let go: its row leaves "paused" for "parked",
// while its question stays open.
void TestMcpSession::parkedCallIsParked()
{
    Fixture f;
    f.registry.add(writeTool());
    InteractionBroker::Settings settings;
    settings.defaultMode = PauseMode::Park;
    InteractionBroker broker(settings, &f.registry);
    f.environment.interactions = &broker;
    auto session = f.session();
    const CallStatus status = statusOfCall(f.events, *session, "write", json::object());
    QCOMPARE(status, CallStatus::Parked);
    ToolCall record;
    record.status = status;
    QVERIFY(record.isFinished());
    QCOMPARE(broker.pending().size(), 1);
    QCOMPARE(session->inFlightCount(), 0);
}

namespace {

const std::string token = "sb_secret-token";

// Whether `text` holds the token, as bytes or in any JSON spelling of it.
bool holdsToken(const QByteArray& text)
{
    if (text.contains(QByteArray::fromStdString(token)))
        return true;
    const json parsed = json::parse(text.toStdString(), nullptr, false);
    return !parsed.is_discarded() && parsed.dump().find(token) != std::string::npos;
}

bool holdsToken(const QString& text)
{
    return text.contains(QString::fromStdString(token));
}

} // namespace

void TestMcpSession::tokenNeverReachesARecord_data()
{
    QTest::addColumn<QByteArray>("clientName");
    QTest::addColumn<QByteArray>("call");
    QTest::addColumn<int>("status");
    // \u0073 is "s": the token written with one character escaped.
    QTest::newRow("tool name") << QByteArray("tester") << QByteArray(R"({"name":"sb_secret-token","arguments":{}})")
                               << int(CallStatus::UnknownTool);
    QTest::newRow("tool name, escaped") << QByteArray("tester")
                                        << QByteArray(R"({"name":"sb_\u0073ecret-token","arguments":{}})")
                                        << int(CallStatus::UnknownTool);
    QTest::newRow("clientInfo.name") << QByteArray("sb_secret-token")
                                     << QByteArray(R"({"name":"echo","arguments":{"message":"hi"}})")
                                     << int(CallStatus::Ok);
    QTest::newRow("clientInfo.name, escaped")
        << QByteArray("sb_secret-\u0074oken") << QByteArray(R"({"name":"echo","arguments":{"message":"hi"}})")
        << int(CallStatus::Ok);
    QTest::newRow("argument, escaped") << QByteArray(
        "tester") << QByteArray(R"({"name":"echo","arguments":{"message":"sb_\u0073ecret-token"}})")
                                       << int(CallStatus::Ok);
    QTest::newRow("argument key, escaped")
        << QByteArray("tester") << QByteArray(R"({"name":"echo","arguments":{"sb_secret\u002dtoken":1}})")
        << int(CallStatus::Ok);
    QTest::newRow("error message") << QByteArray("tester")
                                   << QByteArray(R"({"name":"fail","arguments":{"why":"sb_\u0073ecret-token"}})")
                                   << int(CallStatus::ToolError);
    QTest::newRow("wrong arguments") << QByteArray("tester")
                                     << QByteArray(R"({"name":"echo","arguments":"sb_\u0073ecret-token"})")
                                     << int(CallStatus::InvalidArguments);
}

// Every field of every record (and so history, the call log and the headless lines, which are
// all made from records) is free of the token, however the client spelled it.
void TestMcpSession::tokenNeverReachesARecord()
{
    QFETCH(QByteArray, clientName);
    QFETCH(QByteArray, call);
    QFETCH(int, status);
    Fixture f;
    RegisteredTool fail;
    fail.spec.name = QStringLiteral("fail");
    fail.route = ToolRoute::builtin();
    fail.handler = [](const std::shared_ptr<ToolCallContext>& context) {
        context->finish(ToolResult::error(
            QStringLiteral("refused: ") + QString::fromStdString(context->arguments().value("why", std::string()))));
    };
    f.registry.add(fail);
    McpSession session("s", &f.environment);
    const std::string init
        = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
          R"("capabilities":{},"clientInfo":{"name":")"
        + clientName.toStdString() + R"(","version":"sb_secret-token"}}})";
    QByteArray response;
    QVERIFY(session.initialize(JsonRpc::classify(json::parse(init)), &response));
    QSignalSpy started(&f.events, &BackendEvents::callStarted);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);
    send(session, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":)" + call.toStdString() + "}");
    QCOMPARE(finished.size(), 1);
    std::vector<ToolCall> records{started.at(0).at(0).value<ToolCall>(), finished.at(0).at(0).value<ToolCall>()};
    QCOMPARE(int(records.back().status), status);
    for (const ToolCall& record : records) {
        QVERIFY2(!holdsToken(record.tool), qPrintable(record.tool));
        QVERIFY2(!holdsToken(record.clientName), qPrintable(record.clientName));
        QVERIFY2(!holdsToken(record.clientVersion), qPrintable(record.clientVersion));
        QVERIFY2(!holdsToken(record.error), qPrintable(record.error));
        QVERIFY2(!holdsToken(record.request), record.request.constData());
        QVERIFY2(!holdsToken(record.response), record.response.constData());
        QVERIFY2(!holdsToken(record.argumentsJson()), record.argumentsJson().constData());
        // What was redacted is still the request: valid JSON, the marker where the token was.
        QVERIFY(!json::parse(record.request.toStdString(), nullptr, false).is_discarded());
    }
    const ToolCall& record = records.back();
    QVERIFY2(record.request.contains("[redacted]") || record.clientName.contains(QStringLiteral("[redacted]")),
        record.request.constData());
    QCOMPARE(record.clientVersion, QStringLiteral("[redacted]"));
}

// A paused call's question (its arguments, what the widget shows, who asked) is written to
// workspace.json: none of it holds the token.
void TestMcpSession::tokenNeverReachesTheWorkspaceState()
{
    Fixture f;
    f.registry.add(ClientTool::requestConnection({QStringLiteral("github")}));
    QTemporaryDir dir;
    InteractionBroker::Settings settings;
    settings.statePath = dir.filePath(QStringLiteral("workspace.json"));
    settings.redactor = TokenRedactor("sb_secret-token");
    InteractionBroker broker(settings, &f.registry);
    f.environment.interactions = &broker;
    McpSession session("s", &f.environment);
    const json init = json::parse(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{)"
                                  R"("protocolVersion":"2025-06-18","capabilities":{},)"
                                  R"("clientInfo":{"name":"sb_secret-token","version":"1"}}})");
    QByteArray response;
    QVERIFY(session.initialize(JsonRpc::classify(init), &response));
    const auto channel = send(session,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request_connection","arguments":)"
        R"({"provider":"github","kind":"api_key","reason":"sb_\u0073ecret-token \"sb_secret-token\""}}})");
    QCOMPARE(broker.pending().size(), 1);
    broker.flush();

    QFile file(settings.statePath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    const json state = json::parse(bytes.toStdString());
    json question = state.at("pending").at(0);
    QVERIFY2(question.at("arguments").get<std::string>().find("[redacted]") != std::string::npos, bytes.constData());
    // The question's key (the canonical arguments, for matching the retried call) is another
    // engineer's change to hash; every other field is checked here, as the file holds it.
    question.erase("key");
    QVERIFY2(!holdsToken(QByteArray::fromStdString(question.dump())), bytes.constData());
    for (const std::string field : {"arguments", "renderSpec"})
        QVERIFY2(!holdsToken(QByteArray::fromStdString(question.at(field).get<std::string>())), bytes.constData());
    // The person still sees the question; the call still has its real arguments.
    QVERIFY(!broker.pending().front().arguments.contains("sb_secret-token"));
}

void TestMcpSession::notificationStreamClosedByItsOwnWrite()
{
    Fixture f;
    auto session = f.session();
    auto stream = std::make_shared<ClosingStream>();
    stream->session = session.get();
    const auto writes = stream->writes;
    const auto alive = stream->alive;
    session->setNotificationStream(std::move(stream));
    QVERIFY(session->hasNotificationStream());
    session->sendNotification(JsonRpc::makeNotification("notifications/tools/list_changed", nullptr));
    QCOMPARE(*writes, 1);
    QVERIFY(!*alive); // released once its write returned
    QVERIFY(!session->hasNotificationStream());
}

void TestMcpSession::callsWaitWhileHistoryIsFullAndNoneIsLost()
{
    Fixture f;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryWriterLimits limits;
    limits.maxQueuedCalls = 4;
    HistoryWriter writer(path, 1000, limits);
    QString error;
    QVERIFY2(writer.start(&error), qPrintable(error));
    HistoryFeed feed(&writer, &f.events);
    f.environment.history = &feed;
    auto session = f.session();
    QVERIFY(session);

    // The writer is held, as a stalled disk would hold it.
    QSemaphore gate;
    QSemaphore held;
    std::thread holder([&] {
        writer.runOnWriterThread([&](HistoryDatabase&) {
            held.release();
            gate.acquire();
        });
    });
    held.acquire();
    std::vector<std::shared_ptr<RecordingChannel>> channels;
    for (int i = 1; i <= 10; ++i)
        channels.push_back(send(*session,
            R"({"jsonrpc":"2.0","id":)" + std::to_string(i)
                + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}})"));
    const auto answered = [&] {
        int count = 0;
        for (const auto& channel : channels)
            count += int(channel->responses.size());
        return count;
    };
    // History took five calls (one beyond its bound); the other five wait, unanswered and unrun.
    QCOMPARE(answered(), 5);
    QVERIFY(!writer.hasRoom());

    gate.release();
    holder.join();
    QTRY_COMPARE_WITH_TIMEOUT(answered(), 10, 30'000);
    for (int i = 0; i < 10; ++i)
        QCOMPARE(channels.at(std::size_t(i))->responses.at(0).at("id").get<int>(), i + 1);
    writer.stop();

    HistoryStore store(path);
    QVERIFY(store.open(&error, HistoryStore::Role::Reader));
    QSignalSpy found(&store, &HistoryStore::queryFinished);
    store.loadRecent(1, 100);
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.first().at(1).value<ToolCallList>().size(), 10);
}

void TestMcpSession::urlCredentialsNeverReachHistory_data()
{
    // A URL's password, with characters of the URL spelled as JSON escapes (decoded, they are the
    // same URL), or the separator percent-encoded.
    QTest::addColumn<QByteArray>("url");
    QTest::newRow("plain") << QByteArray("https://alice:pw-secret@example.com/r.git");
    QTest::newRow("@ as \\u0040") << QByteArray(R"(https://alice:pw-secret\u0040example.com/r.git)");
    QTest::newRow(": as \\u003a, @ as \\u0040")
        << QByteArray(R"(https\u003a//alice\u003Apw-secret\u0040example.com/r.git)");
    QTest::newRow("/ as \\/, @ as \\u0040") << QByteArray(R"(https:\/\/alice:pw-secret\u0040example.com\/r.git)");
    QTest::newRow("every character escaped")
        << QByteArray(R"(\u0068ttps\u003a\u002f\u002f\u0061lice\u003a\u0070w-secret\u0040example.com/r.git)");
    QTest::newRow("ssh, @ as \\u0040") << QByteArray(R"(ssh://git:pw-secret\u0040example.com/r.git)");
    QTest::newRow("@ as %40") << QByteArray("https://alice:pw-secret%40example.com/r.git");
}

// What a client sends and what the tools answer is kept in history: a URL's password is not,
// however the request's JSON spells the URL. Checked in the records history gives back and in
// the database's own bytes.
void TestMcpSession::urlCredentialsNeverReachHistory()
{
    QFETCH(QByteArray, url);
    const QByteArray secret = "pw-secret";
    Fixture f;
    RegisteredTool fail;
    fail.spec.name = QStringLiteral("fail");
    fail.route = ToolRoute::builtin();
    fail.handler = [](const std::shared_ptr<ToolCallContext>& context) {
        context->finish(ToolResult::error(QStringLiteral("cannot reach ")
            + QString::fromStdString(context->arguments().value("url", std::string()))));
    };
    f.registry.add(fail);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("history.sqlite"));
    HistoryWriter writer(path, 1000, HistoryWriterLimits{});
    QString error;
    QVERIFY2(writer.start(&error), qPrintable(error));
    HistoryFeed feed(&writer, &f.events);
    f.environment.history = &feed;
    auto session = f.session();
    QVERIFY(session);
    const std::string text = url.toStdString();
    send(*session,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":")" + text
            + R"("}}})");
    send(*session,
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail","arguments":{"url":")" + text
            + R"("}}})");
    writer.stop();

    HistoryStore store(path);
    QVERIFY(store.open(&error, HistoryStore::Role::Reader));
    QSignalSpy found(&store, &HistoryStore::queryFinished);
    store.loadRecent(1, 100);
    QCOMPARE(found.size(), 1);
    const ToolCallList calls = found.first().at(1).value<ToolCallList>();
    QCOMPARE(calls.size(), 2);
    const auto holdsSecret = [&](const QByteArray& bytes) {
        if (bytes.contains(secret))
            return true;
        const json parsed = json::parse(bytes.toStdString(), nullptr, false);
        return !parsed.is_discarded() && parsed.dump().find(secret.toStdString()) != std::string::npos;
    };
    for (const ToolCall& call : calls) {
        QVERIFY2(!holdsSecret(call.request), call.request.constData());
        QVERIFY2(!holdsSecret(call.response), call.response.constData());
        QVERIFY2(!call.error.contains(QString::fromLatin1(secret)), qPrintable(call.error));
        // Still the request that came, with the URL's host.
        QVERIFY2(call.request.contains("example.com"), call.request.constData());
    }
    for (const QString& file : QDir(dir.path()).entryList(QDir::Files)) {
        QFile database(dir.filePath(file));
        QVERIFY(database.open(QIODevice::ReadOnly));
        QVERIFY2(!database.readAll().contains(secret), qPrintable(file));
    }
}

void TestMcpSession::callsWaitingForHistoryEndWithTheirSession_data()
{
    QTest::addColumn<QString>("end");
    QTest::addColumn<QString>("reason");
    QTest::newRow("deleted") << "terminate"
                             << "session deleted by the client";
    QTest::newRow("connection closed") << "channelClosed"
                                       << "the client closed the connection";
    QTest::newRow("server stopped") << "destroyed"
                                    << "the server stopped";
}

// A call held back while history is full is answered (its exchange ended, as a cancelled call's
// is) and recorded as cancelled when its session ends, not only the calls in flight.
void TestMcpSession::callsWaitingForHistoryEndWithTheirSession()
{
    QFETCH(QString, end);
    QFETCH(QString, reason);
    // The connection of an exchange closes; the session is told, as the HTTP server tells it.
    class ClosableChannel : public RecordingChannel
    {
    public:
        bool isOpen() const override { return !closed; }
        bool closed = false;
    };

    Fixture f;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryWriterLimits limits;
    limits.maxQueuedCalls = 4;
    HistoryWriter writer(path, 1000, limits);
    QString error;
    QVERIFY2(writer.start(&error), qPrintable(error));
    HistoryFeed feed(&writer, &f.events);
    f.environment.history = &feed;
    auto session = f.session();
    QVERIFY(session);
    QSignalSpy finished(&f.events, &BackendEvents::callFinished);

    QSemaphore gate;
    QSemaphore held;
    std::thread holder([&] {
        writer.runOnWriterThread([&](HistoryDatabase&) {
            held.release();
            gate.acquire();
        });
    });
    held.acquire();
    // However the test ends, the writer is let go (a thread left joinable would abort the test).
    auto letGo = qScopeGuard([&] {
        gate.release();
        holder.join();
    });
    std::vector<std::shared_ptr<ClosableChannel>> channels;
    for (int i = 1; i <= 10; ++i) {
        auto channel = std::make_shared<ClosableChannel>();
        const std::string text = R"({"jsonrpc":"2.0","id":)" + std::to_string(i)
            + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}})";
        session->handleMessage(JsonRpc::classify(json::parse(text)), QByteArray::fromStdString(text), channel);
        channels.push_back(channel);
    }
    // Five calls ran; five wait for history, unanswered, and keep their session from looking idle.
    QCOMPARE(finished.size(), 5);
    for (int i = 5; i < 10; ++i)
        QVERIFY(channels.at(std::size_t(i))->responses.empty() && channels.at(std::size_t(i))->skipped == 0);
    QCOMPARE(session->inFlightCount(), 5);

    if (end == QLatin1String("terminate")) {
        session->terminate(reason);
    } else if (end == QLatin1String("channelClosed")) {
        for (const auto& channel : channels) {
            channel->closed = true;
            session->channelClosed(channel.get());
        }
    } else {
        session.reset();
    }

    // Every held call is over at once: its exchange is ended and its record says why it never ran.
    QCOMPARE(finished.size(), 10);
    for (int i = 5; i < 10; ++i) {
        const auto& channel = channels.at(std::size_t(i));
        QVERIFY(channel->responses.empty());
        if (end != QLatin1String("channelClosed"))
            QCOMPARE(channel->skipped, 1);
        const auto call = finished.at(i).at(0).value<ToolCall>();
        QCOMPARE(call.status, CallStatus::Cancelled);
        QCOMPARE(call.tool, QStringLiteral("echo"));
        QVERIFY2(call.error.startsWith(reason), qPrintable(call.error));
        QVERIFY2(call.error.contains(QStringLiteral("never ran")), qPrintable(call.error));
        QVERIFY(call.request.contains(QByteArray("\"id\":" + QByteArray::number(i + 1))));
    }
    if (session)
        QCOMPARE(session->inFlightCount(), 0);

    // History keeps all ten once it has caught up; nothing is resumed later.
    letGo.dismiss();
    gate.release();
    holder.join();
    QTRY_VERIFY_WITH_TIMEOUT(writer.hasRoom(), 30'000);
    QCoreApplication::processEvents();
    QCOMPARE(finished.size(), 10);
    writer.stop();
    HistoryStore store(path);
    QVERIFY(store.open(&error, HistoryStore::Role::Reader));
    QSignalSpy found(&store, &HistoryStore::queryFinished);
    store.loadRecent(1, 100);
    QCOMPARE(found.size(), 1);
    const auto calls = found.first().at(1).value<ToolCallList>();
    QCOMPARE(calls.size(), 10);
    QCOMPARE(std::count_if(calls.cbegin(), calls.cend(),
                 [](const ToolCall& call) { return call.status == CallStatus::Cancelled; }),
        5);
}

QTEST_GUILESS_MAIN(TestMcpSession)
#include "tst_mcpsession.moc"
