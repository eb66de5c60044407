// Tasks (the Tasks extension of MCP 2026-07-28) over real HTTP: a call that waits for a person, or
// runs longer than promoteAfterMs, is answered with a task handle once the task is stored; the
// client polls tasks/get (its own tasks only), cancels with tasks/cancel, hears notifications/tasks
// on subscriptions/listen; a client that did not declare the extension is refused -32021; a restart
// keeps a waiting task and fails a running one; the lifetime and the store's bound hold.

#include "auth/clienttokens.h"
#include "clientanswer.h"
#include "tasktestsupport.h"

#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;
using Decision = InteractionAnswer::Decision;

class TestTaskHttp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void discoverOffersTheExtension();
    void anApprovalBecomesATaskAnsweredAtTheConsole();
    void aQuickCallIsAnsweredWithoutATask();
    void aLongCallBecomesATaskAfterPromoteAfterMs();
    void aClientWithoutTheExtensionIsHeldAsBefore();
    void aClientConfiguredHoldGetsNoTask();
    void whereATaskIsRequiredAClientWithoutTheExtensionIsRefused();
    void tasksBelongToTheirClient();
    void aNamedTokensTasksAreItsOwn();
    void aRunningTaskAsksItsClientsUser();
    void tasksNeedTheExtension();
    void cancelWithdrawsTheQuestion();
    void listenHearsOnlyItsOwnTasks();
    void aRestartKeepsAWaitingTaskAndFailsARunningOne();
    void aTaskPastItsLifetimeFailsThenGoes();
    void aFullStoreKeepsTheCallOnItsResponse();
};

void TestTaskHttp::discoverOffersTheExtension()
{
    ServerFixture server(options(), interactionSettings());
    RawHttpClient client(server.port);
    client.send(RawHttpClient::post(
        request(1, "server/discover", json::object()), modernHeaders(server.port, "server/discover")));
    const json result = bodyJson(client.read()).at("result");
    QVERIFY2(result.at("capabilities").at("extensions").contains(TasksExtension), result.dump().c_str());
}

void TestTaskHttp::anApprovalBecomesATaskAnsweredAtTheConsole()
{
    ServerFixture server(options(), interactionSettings());
    auto caller = call(server.port, 1, "write", {{"path", "notes.txt"}});
    const json handle = responseIn(caller->read());
    const json& task = handle.at("result");
    QVERIFY2(task.at("resultType") == "task", handle.dump().c_str());
    const std::string taskId = task.at("taskId");
    QVERIFY(taskId.size() >= 32); // 128 random bits
    QVERIFY(task.at("status") == "working");
    QVERIFY(task.at("statusMessage").get<std::string>().find("Waiting for a person") != std::string::npos);
    QVERIFY(task.at("ttlMs").is_number_integer());
    QVERIFY(task.at("pollIntervalMs").get<int>() > 0);
    QVERIFY(task.contains("createdAt") && task.contains("lastUpdatedAt"));
    QVERIFY(!task.contains("task")); // flat, as the extension defines CreateTaskResult

    // Durable before the handle went out: the store has it, and tasks/get finds it.
    QCOMPARE(server.tasks().size(), 1);
    QCOMPARE(server.writeRuns.load(), 0);
    const json working = taskGet(server.port, taskId).at("result");
    QVERIFY(working.at("status") == "working");
    QVERIFY(working.at("resultType") == "complete");

    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    QCOMPARE(server.answer(server.pendingInteractions().front().id, InteractionAnswer::decide(Decision::AllowOnce)),
        QString());
    json done;
    QTRY_VERIFY_WITH_TIMEOUT((done = taskGet(server.port, taskId).at("result")).at("status") == "completed", 10'000);
    QVERIFY2(done.at("result").at("content").at(0).at("text") == "written", done.dump().c_str());
    QVERIFY(done.at("resultType") == "complete");
    QCOMPARE(server.writeRuns.load(), 1);
    QCOMPARE(server.tasks().front().callId, server.finishedCalls().last().id);
    // One call, with its task's life on its timeline: created (waiting), handed out, polled, running.
    const QByteArray timeline = server.finishedCalls().last().timeline;
    for (const char* event : {"\"created\"", "\"handed-out\"", "\"polled\"", "\"running\""})
        QVERIFY2(timeline.contains(event), timeline.constData());
    QVERIFY(timeline.contains(QByteArray::fromStdString(taskId)));
    QCOMPARE(server.finishedCalls().size(), 1);
    QTRY_COMPARE(server.requestSessionCount(), 0);
}

void TestTaskHttp::aQuickCallIsAnsweredWithoutATask()
{
    ServerFixture server(options(0), interactionSettings());
    auto caller = call(server.port, 1, "echo", {{"message", "hi"}});
    const json answer = responseIn(caller->read());
    QVERIFY2(answer.at("result").at("resultType") == "complete", answer.dump().c_str());
    QVERIFY(answer.at("result").at("structuredContent").at("message") == "hi");
    QTest::qWait(50); // a promotion timer that fires now finds nothing to promote
    QCOMPARE(server.tasks().size(), 0);
    QTRY_COMPARE(server.requestSessionCount(), 0);
}

void TestTaskHttp::aLongCallBecomesATaskAfterPromoteAfterMs()
{
    ServerFixture server(options(200), interactionSettings());
    auto caller = call(server.port, 1, "slow", json::object());
    const json handle = responseIn(caller->read());
    QVERIFY2(handle.at("result").at("resultType") == "task", handle.dump().c_str());
    const std::string taskId = handle.at("result").at("taskId");
    QVERIFY2(handle.at("result").at("statusMessage").get<std::string>().find("running") != std::string::npos,
        handle.dump().c_str());
    QCOMPARE(server.pendingSlow(), 1); // the handle went out; the call goes on
    server.releaseSlow(QStringLiteral("slow done"));
    json done;
    QTRY_VERIFY_WITH_TIMEOUT((done = taskGet(server.port, taskId).at("result")).at("status") == "completed", 10'000);
    QVERIFY(done.at("result").at("content").at(0).at("text") == "slow done");
    QCOMPARE(server.finishedCalls().last().status, CallStatus::Ok);
}

void TestTaskHttp::aClientWithoutTheExtensionIsHeldAsBefore()
{
    ServerFixture server(options(0), interactionSettings());
    auto caller = call(server.port, 1, "write", {{"path", "a"}}, "agent", false);
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    QCOMPARE(server.pendingInteractions().front().mode, PauseMode::Hold);
    QCOMPARE(server.tasks().size(), 0);
    QCOMPARE(server.answer(server.pendingInteractions().front().id, InteractionAnswer::decide(Decision::AllowOnce)),
        QString());
    const json answer = responseIn(caller->read());
    QVERIFY2(answer.at("result").at("content").at(0).at("text") == "written", answer.dump().c_str());
}

void TestTaskHttp::aClientConfiguredHoldGetsNoTask()
{
    InteractionBroker::Settings settings = interactionSettings();
    settings.clientModes.insert(QStringLiteral("agent"), PauseMode::Hold);
    ServerFixture server(options(0), settings);
    auto caller = call(server.port, 1, "write", {{"path", "held"}});
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    QTest::qWait(100);
    QCOMPARE(server.tasks().size(), 0);
    QCOMPARE(server.answer(server.pendingInteractions().front().id, InteractionAnswer::decide(Decision::AllowOnce)),
        QString());
    const json answer = responseIn(caller->read());
    QVERIFY2(answer.at("result").at("resultType") == "complete", answer.dump().c_str());
}

void TestTaskHttp::whereATaskIsRequiredAClientWithoutTheExtensionIsRefused()
{
    InteractionBroker::Settings settings = interactionSettings();
    settings.tasksRequired = true;
    ServerFixture server(options(), settings);
    auto refused = call(server.port, 1, "write", {{"path", "x"}}, "agent", false);
    const RawHttpResponse response = refused->read();
    QCOMPARE(response.status, 400);
    const json error = bodyJson(response).at("error");
    QCOMPARE(int(error.at("code")), -32021);
    QVERIFY(error.at("data").at("requiredCapabilities").at("extensions").contains(TasksExtension));
    QCOMPARE(server.pendingInteractions().size(), 0); // refused before anything was asked
    QCOMPARE(server.writeRuns.load(), 0);
    // A call that waits for no one runs as ever.
    auto echo = call(server.port, 2, "echo", {{"message", "fine"}}, "agent", false);
    QVERIFY(responseIn(echo->read()).at("result").at("structuredContent").at("message") == "fine");
    // With the extension, the same call is a task.
    auto task = call(server.port, 3, "write", {{"path", "x"}});
    QVERIFY(responseIn(task->read()).at("result").at("resultType") == "task");
}

void TestTaskHttp::tasksBelongToTheirClient()
{
    ServerFixture server(options(), interactionSettings());
    auto caller = call(server.port, 1, "write", {{"path", "b"}});
    const std::string taskId = responseIn(caller->read()).at("result").at("taskId");
    // Another client's tasks/get reads exactly as a task that does not exist.
    const RawHttpResponse other = taskRequest(server.port, "tasks/get", taskId, "someone-else");
    const json otherError = responseIn(other).at("error");
    const json unknownError = taskGet(server.port, "task-0000", "agent").at("error");
    QCOMPARE(int(otherError.at("code")), -32602);
    QCOMPARE(int(unknownError.at("code")), -32602);
    QVERIFY(otherError.at("message").get<std::string>().find("no task") != std::string::npos);
    // Nor can it cancel it.
    QVERIFY(responseIn(taskRequest(server.port, "tasks/cancel", taskId, "someone-else")).contains("error"));
    QVERIFY(taskGet(server.port, taskId).at("result").at("status") == "working");
}

void TestTaskHttp::aNamedTokensTasksAreItsOwn()
{
    QTemporaryDir directory;
    auto tokens = std::make_shared<ClientTokens>(ClientTokens::defaultPath(directory.path()));
    QString error;
    const QByteArray ciToken = tokens->issue(QStringLiteral("ci"), &error);
    QVERIFY2(!ciToken.isEmpty(), qPrintable(error));
    McpServerOptions withTokens = options();
    withTokens.clientTokens = tokens;
    ServerFixture server(withTokens, interactionSettings());
    const auto as = [&](const QByteArray& token, const std::string& method, const QByteArray& name, json params) {
        RawHttpClient connection(server.port);
        connection.send(RawHttpClient::post(request(1, method, std::move(params), "agent"),
            withHeader(modernHeaders(server.port, QByteArray::fromStdString(method), name), "Authorization",
                "Bearer " + token)));
        return connection.read();
    };
    // A call made with the named token: its task is the token's, whatever the client calls itself.
    const json handle
        = responseIn(as(ciToken, "tools/call", "write", {{"name", "write"}, {"arguments", {{"path", "t"}}}}));
    const std::string taskId = handle.at("result").at("taskId");
    QCOMPARE(server.tasks().front().owner, QStringLiteral("token:ci"));
    const QByteArray id = QByteArray::fromStdString(taskId);
    QVERIFY(responseIn(as(ciToken, "tasks/get", id, {{"taskId", taskId}})).contains("result"));
    // The same declared name under the shared token is someone else.
    QCOMPARE(int(responseIn(as(ServerFixture::token(), "tasks/get", id, {{"taskId", taskId}})).at("error").at("code")),
        -32602);
    // Revoked (by another process, say), the token opens nothing at all.
    ClientTokens elsewhere(tokens->path());
    QVERIFY2(elsewhere.revoke(QStringLiteral("ci"), &error), qPrintable(error));
    QCOMPARE(as(ciToken, "tasks/get", id, {{"taskId", taskId}}).status, 401);
}

void TestTaskHttp::aRunningTaskAsksItsClientsUser()
{
    ServerFixture server(options(), interactionSettings());
    // A client that declared both the Tasks extension and elicitation.
    const auto withElicitation = [](std::string method, json params, const json& id) {
        params["_meta"] = meta("agent");
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"] = json::object();
        return QByteArray::fromStdString(
            json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
    };
    RawHttpClient caller(server.port);
    caller.send(RawHttpClient::post(withElicitation("tools/call", {{"name", "ask_user"}}, 1),
        modernHeaders(server.port, "tools/call", "ask_user")));
    const json handle = responseIn(caller.read());
    QVERIFY2(handle.at("result").at("resultType") == "task", handle.dump().c_str());
    const std::string taskId = handle.at("result").at("taskId");
    const json asking = taskGet(server.port, taskId).at("result");
    QVERIFY2(asking.at("status") == "input_required", asking.dump().c_str());
    const json& request = asking.at("inputRequests").at("input-1");
    QVERIFY(request.at("method") == "elicitation/create");
    QVERIFY(request.at("params").at("message") == "Your name?");
    QVERIFY(server.pendingInteractions().isEmpty()); // nothing at the console

    // An answer for a key never asked is ignored; the outstanding one completes the call.
    RawHttpClient updater(server.port);
    updater.send(
        RawHttpClient::post(withElicitation("tasks/update",
                                {{"taskId", taskId},
                                    {"inputResponses",
                                        {{"input-9", {{"action", "accept"}}},
                                            {"input-1", {{"action", "accept"}, {"content", {{"name", "Ada"}}}}}}}},
                                2),
            modernHeaders(server.port, "tasks/update", QByteArray::fromStdString(taskId))));
    QVERIFY(responseIn(updater.read()).at("result").at("resultType") == "complete");
    json done;
    QTRY_VERIFY_WITH_TIMEOUT((done = taskGet(server.port, taskId).at("result")).at("status") == "completed", 10'000);
    QVERIFY2(done.at("result").at("content").at(0).at("text") == "accept Ada", done.dump().c_str());
    QVERIFY(!done.contains("inputRequests"));

    // Without elicitation the call cannot ask its client: it says so (as an adapter would then ask
    // at the console).
    auto plain = call(server.port, 3, "ask_user", json::object());
    QVERIFY(responseIn(plain->read()).at("result").at("content").at(0).at("text") == "could not ask the client");
}

void TestTaskHttp::tasksNeedTheExtension()
{
    ServerFixture server(options(), interactionSettings());
    for (const char* method : {"tasks/get", "tasks/cancel", "tasks/update"}) {
        const RawHttpResponse refused = taskRequest(server.port, method, "task-1", "agent", false);
        QCOMPARE(refused.status, 400);
        const json error = bodyJson(refused).at("error");
        QCOMPARE(int(error.at("code")), -32021);
        QVERIFY(error.at("data").at("requiredCapabilities").at("extensions").contains(TasksExtension));
    }
    // A listen for task ids likewise.
    RawHttpClient listener(server.port);
    listener.send(RawHttpClient::post(
        request(5, "subscriptions/listen", {{"notifications", {{"taskIds", {"task-1"}}}}}, "agent", false),
        modernHeaders(server.port, "subscriptions/listen")));
    const RawHttpResponse refused = listener.read();
    QCOMPARE(refused.status, 400);
    QCOMPARE(int(bodyJson(refused).at("error").at("code")), -32021);
    // Mcp-Name must carry the task id.
    RawHttpClient mismatched(server.port);
    mismatched.send(RawHttpClient::post(
        request(6, "tasks/get", {{"taskId", "task-1"}}), modernHeaders(server.port, "tasks/get", "task-2")));
    const RawHttpResponse mismatch = mismatched.read();
    QCOMPARE(mismatch.status, 400);
    QCOMPARE(int(bodyJson(mismatch).at("error").at("code")), -32020);
}

void TestTaskHttp::cancelWithdrawsTheQuestion()
{
    ServerFixture server(options(), interactionSettings());
    auto caller = call(server.port, 1, "write", {{"path", "c"}});
    const std::string taskId = responseIn(caller->read()).at("result").at("taskId");
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    const json ack = responseIn(taskRequest(server.port, "tasks/cancel", taskId));
    QVERIFY2(ack.at("result").at("resultType") == "complete", ack.dump().c_str());
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 0, 10'000);
    QVERIFY(taskGet(server.port, taskId).at("result").at("status") == "cancelled");
    QCOMPARE(server.writeRuns.load(), 0);
    QTRY_COMPARE(server.finishedCalls().size(), 1);
    QCOMPARE(server.finishedCalls().last().status, CallStatus::Cancelled);
    // Cancelling again, or an ended task, is acknowledged and changes nothing.
    QVERIFY(responseIn(taskRequest(server.port, "tasks/cancel", taskId)).contains("result"));
    QVERIFY(taskGet(server.port, taskId).at("result").at("status") == "cancelled");
}

void TestTaskHttp::listenHearsOnlyItsOwnTasks()
{
    ServerFixture server(options(), interactionSettings());
    auto mine = call(server.port, 1, "write", {{"path", "mine"}});
    const std::string mineId = responseIn(mine->read()).at("result").at("taskId");
    auto theirs = call(server.port, 2, "write", {{"path", "theirs"}}, "other");
    const std::string theirsId = responseIn(theirs->read()).at("result").at("taskId");

    RawHttpClient listener(server.port);
    listener.send(RawHttpClient::post(
        request("sub", "subscriptions/listen", {{"notifications", {{"taskIds", {mineId, theirsId, "task-nope"}}}}}),
        modernHeaders(server.port, "subscriptions/listen")));
    const RawHttpResponse head = listener.read(10'000, 1);
    QCOMPARE(head.status, 200);
    QByteArray acknowledged = head.body;
    QTRY_VERIFY_WITH_TIMEOUT(
        (acknowledged += listener.readChunk(200)).contains("notifications/subscriptions/acknowledged"), 10'000);
    QVERIFY2(acknowledged.contains(QByteArray::fromStdString(mineId)), acknowledged.constData());
    QVERIFY(!acknowledged.contains(QByteArray::fromStdString(theirsId)));
    QVERIFY(!acknowledged.contains("task-nope"));

    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 2, 10'000);
    for (const PendingInteraction& question : server.pendingInteractions())
        QCOMPARE(server.answer(question.id, InteractionAnswer::decide(Decision::AllowOnce)), QString());
    QByteArray heard;
    QTRY_VERIFY_WITH_TIMEOUT((heard += listener.readChunk(200)).contains("\"completed\""), 10'000);
    QVERIFY2(heard.contains("notifications/tasks"), heard.constData());
    QVERIFY(heard.contains(QByteArray::fromStdString(mineId)));
    QVERIFY(heard.contains("io.modelcontextprotocol/subscriptionId"));
    QVERIFY(heard.contains("written")); // the detailed task: its result inlined
    QTest::qWait(200);
    heard += listener.readChunk(200);
    QVERIFY(!heard.contains(QByteArray::fromStdString(theirsId)));
}

void TestTaskHttp::aRestartKeepsAWaitingTaskAndFailsARunningOne()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString statePath = directory.filePath(QStringLiteral("workspace.json"));
    std::string waitingId;
    std::string runningId;
    {
        ServerFixture server(options(200), interactionSettings(statePath));
        auto waiting = call(server.port, 1, "write", {{"path", "kept"}});
        waitingId = responseIn(waiting->read()).at("result").at("taskId");
        auto running = call(server.port, 2, "slow", json::object());
        runningId = responseIn(running->read()).at("result").at("taskId");
        QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    } // Switchboard stops

    ServerFixture server(options(200), interactionSettings(statePath));
    const json failed = taskGet(server.port, runningId).at("result");
    QVERIFY2(failed.at("status") == "failed", failed.dump().c_str());
    QVERIFY(failed.at("error").at("message").get<std::string>().find("not run again") != std::string::npos);
    QVERIFY(taskGet(server.port, waitingId).at("result").at("status") == "working");
    // The same question waits again, and answering it completes the task.
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 1, 10'000);
    const PendingInteraction question = server.pendingInteractions().front();
    QVERIFY(question.waiting);
    QCOMPARE(server.answer(question.id, InteractionAnswer::decide(Decision::AllowOnce)), QString());
    json done;
    QTRY_VERIFY_WITH_TIMEOUT((done = taskGet(server.port, waitingId).at("result")).at("status") == "completed", 10'000);
    QVERIFY2(done.at("result").at("content").at(0).at("text") == "written", done.dump().c_str());
    QCOMPARE(server.writeRuns.load(), 1);
}

void TestTaskHttp::aTaskPastItsLifetimeFailsThenGoes()
{
    InteractionBroker::Settings settings = interactionSettings();
    settings.tasks.ttlMs = 400;
    settings.tasks.keepAfterExpiryMs = 400;
    ServerFixture server(options(), settings);
    auto caller = call(server.port, 1, "write", {{"path", "late"}});
    const std::string taskId = responseIn(caller->read()).at("result").at("taskId");
    json expired;
    QTRY_VERIFY_WITH_TIMEOUT(
        (expired = taskGet(server.port, taskId)).contains("result") && expired.at("result").at("status") == "failed",
        10'000);
    QVERIFY(expired.at("result").at("error").at("message").get<std::string>().find("lifetime") != std::string::npos);
    // Its call was stopped, and its question withdrawn.
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 0, 10'000);
    QCOMPARE(server.writeRuns.load(), 0);
    // Then it is gone: -32602, as for any unknown task.
    QTRY_VERIFY_WITH_TIMEOUT(taskGet(server.port, taskId).contains("error"), 10'000);
    QCOMPARE(server.tasks().size(), 0);
}

void TestTaskHttp::aFullStoreKeepsTheCallOnItsResponse()
{
    InteractionBroker::Settings settings = interactionSettings();
    settings.tasks.maxTasks = 1;
    ServerFixture server(options(), settings);
    auto first = call(server.port, 1, "write", {{"path", "one"}});
    QVERIFY(responseIn(first->read()).at("result").at("resultType") == "task");
    auto second = call(server.port, 2, "write", {{"path", "two"}});
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingInteractions().size(), 2, 10'000);
    QCOMPARE(server.tasks().size(), 1);
    for (const PendingInteraction& question : server.pendingInteractions()) {
        if (question.arguments.contains("two"))
            QCOMPARE(server.answer(question.id, InteractionAnswer::decide(Decision::AllowOnce)), QString());
    }
    // The second call was held on its open response and answered there.
    const json answer = responseIn(second->read());
    QVERIFY2(answer.at("result").at("resultType") == "complete", answer.dump().c_str());
    QVERIFY(answer.at("result").at("content").at(0).at("text") == "written");
}

QTEST_GUILESS_MAIN(TestTaskHttp)
#include "tst_taskhttp.moc"
