// The console's own calls (OperatorInterface::callTool, listTools) through a real Backend: they go
// through the same router, permissions, argument validation, executor and history as a client's
// call, show in the call log as the "Switchboard console" client, and a replay records the call it
// replays (ToolCall::replayOf) in the log and in history.

#include <QTest>

#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include "clientanswer.h"
#include "core/backend.h"
#include "jsontestsupport.h"

#include <memory>

using nlohmann::json;

class TestConsoleCalls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void listsTheToolsOffered();
    void unknownToolIsRecordedAsUnknown();
    void invalidArgumentsAreRefusedByTheSchema();
    void deniedToolIsDenied();
    void askToolStillAsksThePerson();
    void clientToolWaitsForThePerson();
    void replayRecordsTheCallItReplays();
    void textThatIsNotJsonIsRefused();
    void callWaitingForTheAdaptersIsToldWhenTheBackendStops();

private:
    // The newest state of call `callId` once it has finished (callsUpdated), or a default ToolCall.
    ToolCall finishedCall(qint64 callId);
    // callTool, and the new call's id from toolCallStarted (0 when none came).
    qint64 call(const QString& tool, const QByteArray& arguments, qint64 replayOf = 0);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Backend> m_backend;
    QHash<qint64, ToolCall> m_calls;
};

void TestConsoleCalls::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString config = m_dir->filePath(QStringLiteral("config.yaml"));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("port: 0\n"
               "permissions:\n"
               "  tools: {debug.progress: deny, debug.block: ask}\n"
               "clientTools:\n"
               "  - name: confirm_it\n"
               "    description: Are you sure?\n"
               "    render: confirm\n");
    file.close();
    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(config, &options.config, &error), qPrintable(error));
    options.configPath = config;
    options.stateDirectory = m_dir->filePath(QStringLiteral("state"));
    options.server.port = 0;
    options.debugTools = true;
    m_backend = std::make_unique<Backend>(options);
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    m_calls.clear();
    connect(m_backend.get(), &OperatorInterface::callsUpdated, this, [this](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            m_calls.insert(call.id, call);
    });
}

void TestConsoleCalls::cleanup()
{
    m_backend.reset();
    m_dir.reset();
}

qint64 TestConsoleCalls::call(const QString& tool, const QByteArray& arguments, qint64 replayOf)
{
    QSignalSpy started(m_backend.get(), &OperatorInterface::toolCallStarted);
    const quint64 requestId = m_backend->callTool(tool, arguments, replayOf);
    if (!started.wait(30'000) && started.isEmpty())
        return 0;
    if (started.first().at(0).toULongLong() != requestId)
        return -1;
    return started.first().at(1).toLongLong();
}

ToolCall TestConsoleCalls::finishedCall(qint64 callId)
{
    if (!QTest::qWaitFor([&] { return m_calls.contains(callId) && m_calls.value(callId).isFinished(); }, 30'000))
        return {};
    return m_calls.value(callId);
}

void TestConsoleCalls::listsTheToolsOffered()
{
    QSignalSpy listed(m_backend.get(), &OperatorInterface::toolsListed);
    m_backend->listTools();
    QVERIFY(listed.wait(10'000));
    const auto tools = listed.first().at(0).value<ToolInfoList>();
    QHash<QString, ToolInfo> byName;
    for (const ToolInfo& tool : tools)
        byName.insert(tool.name, tool);
    QVERIFY(byName.contains(QStringLiteral("echo")));
    const ToolInfo echo = byName.value(QStringLiteral("echo"));
    QCOMPARE(echo.route, ToolRoute::builtin());
    QVERIFY(echo.description.contains(QStringLiteral("Returns its arguments")));
    QVERIFY(json::parse(echo.inputSchema.toStdString())["properties"]["message"]["type"] == "string");
    QVERIFY(!echo.outputSchema.isEmpty());
    QCOMPARE(echo.hint("readOnlyHint"), std::optional<bool>(true));
    QCOMPARE(echo.hint("destructiveHint"), std::optional<bool>(false));
    QCOMPARE(byName.value(QStringLiteral("confirm_it")).route, ToolRoute::client());
    QCOMPARE(byName.value(QStringLiteral("request_connection")).route, ToolRoute::client());
    QVERIFY(byName.contains(QStringLiteral("debug.block")));
    // Its JSON form round-trips.
    QString problem;
    const auto back = ToolInfo::fromJson(echo.toJson(), &problem);
    QVERIFY2(back.has_value(), qPrintable(problem));
    QCOMPARE(*back, echo);
}

void TestConsoleCalls::unknownToolIsRecordedAsUnknown()
{
    const qint64 id = call(QStringLiteral("no_such_tool"), "{}");
    QVERIFY(id > 0);
    const ToolCall record = finishedCall(id);
    QCOMPARE(record.status, CallStatus::UnknownTool);
    QCOMPARE(record.clientName, OperatorInterface::consoleClientName());
    QCOMPARE(record.replayOf, 0);
}

void TestConsoleCalls::invalidArgumentsAreRefusedByTheSchema()
{
    const qint64 id = call(QStringLiteral("echo"), R"({"message": 5})");
    QVERIFY(id > 0);
    QCOMPARE(finishedCall(id).status, CallStatus::InvalidArguments);
    // Arguments that are JSON but not an object reach the router too, which refuses them.
    const qint64 list = call(QStringLiteral("echo"), "[1, 2]");
    QVERIFY(list > 0);
    QCOMPARE(finishedCall(list).status, CallStatus::InvalidArguments);
}

void TestConsoleCalls::deniedToolIsDenied()
{
    const qint64 id = call(QStringLiteral("debug.progress"), R"({"steps": 1})");
    QVERIFY(id > 0);
    const ToolCall record = finishedCall(id);
    QCOMPARE(record.status, CallStatus::Denied);
    QVERIFY2(record.error.contains(QStringLiteral("policy")), qPrintable(record.error));
}

void TestConsoleCalls::askToolStillAsksThePerson()
{
    QSignalSpy pending(m_backend.get(), &OperatorInterface::interactionPending);
    const qint64 id = call(QStringLiteral("debug.block"), R"({"seconds": 0})");
    QVERIFY(id > 0);
    QVERIFY(pending.count() > 0 || pending.wait(30'000));
    const auto question = pending.first().at(0).value<PendingInteraction>();
    QCOMPARE(question.callId, id);
    QCOMPARE(question.clientName, OperatorInterface::consoleClientName());
    QCOMPARE(question.kind, InteractionKind::Approval);
    // It waits for the person (held, not parked), and runs once allowed.
    QTRY_COMPARE_WITH_TIMEOUT(m_calls.value(id).status, CallStatus::Paused, 30'000);
    m_backend->answerInteraction(question.id, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce));
    QCOMPARE(finishedCall(id).status, CallStatus::Ok);
}

void TestConsoleCalls::clientToolWaitsForThePerson()
{
    QSignalSpy pending(m_backend.get(), &OperatorInterface::interactionPending);
    const qint64 id = call(QStringLiteral("confirm_it"), R"({"message": "Really?"})");
    QVERIFY(id > 0);
    QVERIFY(pending.count() > 0 || pending.wait(30'000));
    const auto question = pending.first().at(0).value<PendingInteraction>();
    QCOMPARE(question.callId, id);
    QCOMPARE(question.kind, InteractionKind::ClientTool);
    m_backend->answerInteraction(question.id, InteractionAnswer::respond(ClientAnswer::confirmed(true)));
    const ToolCall record = finishedCall(id);
    QCOMPARE(record.status, CallStatus::Ok);
    QVERIFY2(record.response.contains("confirmed"), record.response.constData());
}

void TestConsoleCalls::replayRecordsTheCallItReplays()
{
    const qint64 original = call(QStringLiteral("echo"), R"({"message": "first"})");
    QVERIFY(original > 0);
    QCOMPARE(finishedCall(original).status, CallStatus::Ok);
    const qint64 replay = call(QStringLiteral("echo"), R"({"message": "edited"})", original);
    QVERIFY(replay > original);
    const ToolCall record = finishedCall(replay);
    QCOMPARE(record.status, CallStatus::Ok);
    QCOMPARE(record.replayOf, original);
    QCOMPARE_JSON(json::parse(record.argumentsJson().toStdString()), (json{{"message", "edited"}}));

    // History keeps the link (written in batches: asked until it is there).
    ToolCallList found;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            HistoryQuery query;
            query.callId = replay;
            query.limit = 1;
            QSignalSpy loaded(m_backend.get(), &OperatorInterface::historyLoaded);
            const quint64 request = m_backend->queryHistory(query);
            if (!loaded.wait(10'000) || loaded.first().at(0).toULongLong() != request)
                return false;
            found = loaded.first().at(1).value<ToolCallList>();
            return !found.isEmpty() && found.first().isFinished();
        }(),
        30'000);
    QCOMPARE(found.first().replayOf, original);
    QCOMPARE(found.first().clientName, OperatorInterface::consoleClientName());
}

void TestConsoleCalls::textThatIsNotJsonIsRefused()
{
    QSignalSpy failed(m_backend.get(), &OperatorInterface::commandFailed);
    QSignalSpy started(m_backend.get(), &OperatorInterface::toolCallStarted);
    m_backend->callTool(QStringLiteral("echo"), "{not json");
    QVERIFY(failed.wait(10'000));
    QCOMPARE(failed.first().at(0).toString(), QStringLiteral("callTool"));
    QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("not valid JSON")));
    QCOMPARE(started.count(), 0);
}

// A call made while an adapter is still connecting waits for it to settle (so that its tools are
// known) before it reaches a session. When the backend stops meanwhile, the call is told it was
// cancelled, as a call in flight is, rather than never hearing again.
void TestConsoleCalls::callWaitingForTheAdaptersIsToldWhenTheBackendStops()
{
    QTcpServer silent; // accepts the adapter's connection and never answers
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    QList<QTcpSocket*> held;
    connect(&silent, &QTcpServer::newConnection, this, [&] {
        while (QTcpSocket* socket = silent.nextPendingConnection())
            held.append(socket);
    });
    QTemporaryDir dir;
    BackendOptions options;
    options.stateDirectory = dir.filePath(QStringLiteral("state"));
    options.server.port = 0;
    AdapterConfig adapter;
    adapter.name = QStringLiteral("silent");
    adapter.endpoint = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(silent.serverPort()));
    adapter.timeout = std::chrono::minutes(5);
    options.config.adapters.append(adapter);
    Backend backend(options);
    QString error;
    QVERIFY2(backend.start(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!held.isEmpty(), 30'000); // the adapter is connecting

    QSignalSpy started(&backend, &OperatorInterface::toolCallStarted);
    QSignalSpy failed(&backend, &OperatorInterface::commandFailed);
    backend.callTool(QStringLiteral("echo"), R"({"message":"waits"})");
    backend.stop(); // after the call was handed to the server thread, which runs it first
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15'000);
    QCOMPARE(failed.first().at(0).toString(), QStringLiteral("callTool"));
    QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("cancelled")),
        qPrintable(failed.first().at(1).toString()));
    QCOMPARE(started.size(), 0); // it never reached a session
}

QTEST_GUILESS_MAIN(TestConsoleCalls)
#include "tst_consolecalls.moc"
