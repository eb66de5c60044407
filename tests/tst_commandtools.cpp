// Command tools end to end: a real Backend whose command_tools run the scripts in tests/commands
// (succeed, fail, hang, print garbage, flood stdout, leave a child behind), spoken to over HTTP by
// an MCP client as any client would. Results and their mapping, tool errors with the exit status
// and the tail of stderr, bounds, the process group killed on timeout, cancellation and shutdown
// (and a child left behind killed when its parent ends), other calls answered while a command
// hangs, permissions, the call record's details, and command tools reloaded with the file.

#include "testpaths.h"
#include <QTest>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "commands/commandtool.h"
#include "core/backend.h"
#include "transport/mcpclient.h"

#include <signal.h>
#include <unistd.h>

using nlohmann::json;

namespace {

constexpr char Token[] = "sb_commandTestToken_0123456789abcdefghijklm";

QString script(const char* name)
{
    return TestPaths::commandsDir() + QLatin1Char('/') + QLatin1String(name);
}

CommandToolConfig command(const QString& name, const QString& program, double timeoutSeconds = 30,
    const QString& cwd = QStringLiteral("/tmp"))
{
    CommandToolConfig config;
    config.spec.name = name;
    config.spec.description = QStringLiteral("test command ") + name;
    config.spec.annotations = json{{"readOnlyHint", true}};
    config.command = program;
    config.workingDirectory = cwd;
    config.timeout = std::chrono::milliseconds(qint64(timeoutSeconds * 1000));
    return config;
}

QString firstText(const json& result)
{
    if (!result.is_object() || !result.contains("content") || !result["content"].is_array()
        || result["content"].empty())
        return {};
    return QString::fromStdString(result["content"][0].value("text", std::string()));
}

// A process that is gone or a zombie nobody reaped yet (it runs no more either way).
bool processGone(qint64 pid)
{
    if (pid <= 0)
        return false;
    if (::kill(pid_t(pid), 0) != 0)
        return true;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.size() > close + 2 && text.at(close + 2) == 'Z';
}

qint64 readPid(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    return file.readAll().trimmed().toLongLong();
}

} // namespace

class TestCommandTools : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void successEchoesTheEnvelope();
    void resultMapping_data();
    void resultMapping();
    void failureCarriesExitStatusAndStderr();
    void failureKeepsTheErrorStdoutCarried();
    void garbageIsAToolError();
    void floodIsBoundedAndKilled();
    void deeplyNestedOutputIsRefused();
    void millionsOfValuesAreRefused();
    void missingExecutableNamesTheCommand();
    void timeoutKillsTheGroup();
    void childLeftBehindIsKilledWhenTheCommandEnds();
    void cancellationKillsTheGroup();
    void otherCallsAnswerWhileACommandHangs();
    void shutdownKillsRunningCommands();
    void writeCommandAsksThePersonByDefault();
    void reloadAddsAndRemovesCommandTools();

private:
    bool startBackend(std::vector<CommandToolConfig> tools, const QString& defaultPermission = QStringLiteral("allow"));
    json call(const QString& tool, const json& arguments = json::object());
    // The newest finished record of `tool` the window would have been told about.
    std::optional<ToolCall> finishedRecord(const QString& tool) const;
    json detailsOf(const QString& tool) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<McpClient> m_client;
    QList<ToolCall> m_records;
    QList<qint64> m_pidsToReap;
};

void TestCommandTools::initTestCase()
{
    // Switchboard's own environment must not reach a command (only the minimal one does).
    qputenv("SWITCHBOARD_TEST_SECRET", "do-not-pass-me");
}

void TestCommandTools::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_records.clear();
    m_pidsToReap.clear();
}

void TestCommandTools::cleanup()
{
    m_client.reset();
    m_backend.reset();
    // A failed test must not leave sleeping children behind.
    for (qint64 pid : std::as_const(m_pidsToReap)) {
        if (!processGone(pid))
            ::kill(pid_t(pid), SIGKILL);
    }
    m_dir.reset();
}

bool TestCommandTools::startBackend(std::vector<CommandToolConfig> tools, const QString& defaultPermission)
{
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = Token;
    options.stateDirectory = m_dir->filePath(QStringLiteral("state"));
    options.config.defaultPermission = defaultPermission;
    options.config.commandTools = std::move(tools);
    options.configPath = m_dir->filePath(QStringLiteral("switchboard.yaml"));
    m_backend = std::make_unique<Backend>(options);
    connect(m_backend.get(), &Backend::callsUpdated, this, [this](const ToolCallList& calls) { m_records << calls; });
    QString error;
    if (!m_backend->start(&error)) {
        qWarning("backend: %s", qPrintable(error));
        return false;
    }
    McpClient::Settings settings;
    settings.endpoint = m_backend->serverUrl();
    settings.bearerToken = Token;
    settings.requestTimeoutMs = 60'000;
    m_client = std::make_unique<McpClient>(settings);
    return true;
}

json TestCommandTools::call(const QString& tool, const json& arguments)
{
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(tool, arguments, {}, [&](McpClient::Outcome result) { outcome = result; });
    if (!QTest::qWaitFor([&] { return outcome.has_value(); }, 60'000))
        return json{{"timedOut", true}};
    if (!outcome->ok())
        return json{{"failure", McpClient::failureKindName(outcome->failure->kind).toStdString()},
            {"message", outcome->failure->message.toStdString()}};
    return outcome->result;
}

std::optional<ToolCall> TestCommandTools::finishedRecord(const QString& tool) const
{
    for (auto it = m_records.crbegin(); it != m_records.crend(); ++it) {
        if (it->tool == tool && it->isFinished())
            return *it;
    }
    return std::nullopt;
}

json TestCommandTools::detailsOf(const QString& tool) const
{
    const std::optional<ToolCall> record = finishedRecord(tool);
    if (!record)
        return nullptr;
    return json::parse(record->details.toStdString(), nullptr, false);
}

void TestCommandTools::successEchoesTheEnvelope()
{
    CommandToolConfig echo = command(QStringLiteral("echo_tool"), script("echo.py"), 30, m_dir->path());
    echo.env = {{QStringLiteral("GREETING"), QStringLiteral("hello from the config")}};
    QVERIFY(startBackend({echo}));

    const json result = call(QStringLiteral("echo_tool"), {{"text", "hi"}, {"n", 3}});
    QVERIFY2(result.value("isError", false) == false, result.dump().c_str());
    const json echoed = result.value("structuredContent", json());
    QVERIFY2(echoed.is_object(), result.dump().c_str());
    const json envelope = echoed["envelope"];
    QVERIFY2(envelope["tool"] == "echo_tool", envelope.dump().c_str());
    QVERIFY2(envelope["input"] == json({{"text", "hi"}, {"n", 3}}), envelope.dump().c_str());
    QVERIFY2(envelope["metadata"]["callId"].get<qint64>() > 0, envelope.dump().c_str());
    QVERIFY2(envelope["metadata"]["route"] == "command", envelope.dump().c_str());
    QVERIFY2(envelope["metadata"]["sessionId"].is_string() && !envelope["metadata"]["sessionId"].empty(),
        envelope.dump().c_str());
    QVERIFY2(echoed["toolName"] == "echo_tool", echoed.dump().c_str());
    QVERIFY2(echoed["cwd"] == m_dir->path().toStdString(), echoed.dump().c_str());
    const json environment = echoed["environment"];
    QVERIFY2(environment["GREETING"] == "hello from the config", environment.dump().c_str());
    QVERIFY2(environment["TOOL_NAME"] == "echo_tool", environment.dump().c_str());
    QVERIFY2(!environment.contains("SWITCHBOARD_TEST_SECRET"), environment.dump().c_str());
    QVERIFY2(environment.contains("PATH"), environment.dump().c_str());
    QVERIFY2(result.dump().find(Token) == std::string::npos, "the client's token reached the command");
    // The text block holds the same value as JSON.
    QVERIFY2(json::parse(firstText(result).toStdString(), nullptr, false) == echoed, result.dump().c_str());

    // The record: route, and the details the inspector shows.
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("echo_tool")).has_value(), 10'000);
    const ToolCall record = *finishedRecord(QStringLiteral("echo_tool"));
    QCOMPARE(record.route, ToolRoute::command());
    QCOMPARE(record.status, CallStatus::Ok);
    const json details = detailsOf(QStringLiteral("echo_tool"));
    QVERIFY2(details.is_object(), record.details.constData());
    QVERIFY2(details["envelope"] == envelope, details.dump().c_str());
    QVERIFY2(details["exitCode"] == 0, details.dump().c_str());
    QVERIFY2(details["exit"] == "exit status 0", details.dump().c_str());
    QVERIFY2(details["durationMs"].get<qint64>() >= 0, details.dump().c_str());
    QVERIFY2(json::parse(details["stdout"].get<std::string>(), nullptr, false) == echoed, details.dump().c_str());
    QVERIFY2(details["command"] == script("echo.py").toStdString(), details.dump().c_str());
    QVERIFY2(details.contains("stderr") && details.contains("pid"), details.dump().c_str());
}

void TestCommandTools::resultMapping_data()
{
    QTest::addColumn<QByteArray>("reply"); // what the command prints
    QTest::addColumn<QByteArray>("expected"); // the CallToolResult the client receives

    QTest::newRow("a CallToolResult as it is")
        << QByteArray(R"({"content":[{"type":"text","text":"done"}],"structuredContent":{"n":1}})")
        << QByteArray(R"({"content":[{"type":"text","text":"done"}],"structuredContent":{"n":1},"isError":false})");
    QTest::newRow("a CallToolResult with isError")
        << QByteArray(R"({"content":[{"type":"text","text":"no such user"}],"isError":true})")
        << QByteArray(R"({"content":[{"type":"text","text":"no such user"}],"isError":true})");
    QTest::newRow("an object") << QByteArray(R"({"count":2,"words":["a","b"]})")
                               << QByteArray(
                                      R"({"content":[{"type":"text","text":"{\"count\":2,\"words\":[\"a\",\"b\"]}"}],)"
                                      R"("structuredContent":{"count":2,"words":["a","b"]},"isError":false})");
    QTest::newRow("a string") << QByteArray(R"("forty-two")")
                              << QByteArray(R"({"content":[{"type":"text","text":"forty-two"}],)"
                                            R"("structuredContent":{"result":"forty-two"},"isError":false})");
    QTest::newRow("a number") << QByteArray("42")
                              << QByteArray(R"({"content":[{"type":"text","text":"42"}],)"
                                            R"("structuredContent":{"result":42},"isError":false})");
    // The per-invocation contract's failure shape is a failure, whatever the exit status said.
    QTest::newRow("ok false with an error object")
        << QByteArray(R"({"ok":false,"error":{"code":"not_found","message":"no such user"}})")
        << QByteArray(R"x({"content":[{"type":"text","text":"no such user (not_found)"}],)x"
                      R"("structuredContent":{"ok":false,"error":{"code":"not_found","message":"no such user"}},)"
                      R"("isError":true})");
    QTest::newRow("ok false with an error string")
        << QByteArray(R"({"ok":false,"error":"disk full"})")
        << QByteArray(R"({"content":[{"type":"text","text":"disk full"}],)"
                      R"("structuredContent":{"ok":false,"error":"disk full"},"isError":true})");
    QTest::newRow("ok false and nothing more")
        << QByteArray(R"({"ok":false})")
        << QByteArray(R"x({"content":[{"type":"text","text":"the command reported a failure (\"ok\": false) without )x"
                      R"(an error"}],"structuredContent":{"ok":false},"isError":true})");
    QTest::newRow("ok false beside a CallToolResult")
        << QByteArray(
               R"({"ok":false,"error":{"code":"tool_error","message":"m"},"content":[{"type":"text","text":"m"}],)"
               R"("structuredContent":{"status":"failure"}})")
        << QByteArray(R"({"content":[{"type":"text","text":"m"}],"structuredContent":{"status":"failure"},)"
                      R"("isError":true})");
    QTest::newRow("ok true is a success")
        << QByteArray(R"({"ok":true,"content":[{"type":"text","text":"fine"}]})")
        << QByteArray(R"({"content":[{"type":"text","text":"fine"}],"isError":false})");
    QTest::newRow("an object whose content is no array")
        << QByteArray(R"({"content":"plain"})")
        << QByteArray(R"({"content":[{"type":"text","text":"{\"content\":\"plain\"}"}],)"
                      R"("structuredContent":{"content":"plain"},"isError":false})");
}

void TestCommandTools::resultMapping()
{
    QFETCH(QByteArray, reply);
    QFETCH(QByteArray, expected);
    QVERIFY(startBackend({command(QStringLiteral("echo_tool"), script("echo.py"))}));
    json result = call(QStringLiteral("echo_tool"), {{"reply", json::parse(reply.toStdString())}});
    if (!result.contains("isError"))
        result["isError"] = false;
    const json want = json::parse(expected.toStdString());
    QVERIFY2(result == want, (result.dump() + " != " + want.dump()).c_str());
}

void TestCommandTools::failureCarriesExitStatusAndStderr()
{
    QVERIFY(startBackend({command(QStringLiteral("fail_tool"), script("fail.sh"))}));
    const json result = call(QStringLiteral("fail_tool"), {{"x", 1}});
    QVERIFY2(result.value("isError", false), result.dump().c_str());
    const QString text = firstText(result);
    QVERIFY2(text.contains(QStringLiteral("Command tool \"fail_tool\" failed")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("exited with status 3")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("frobnicator: the disk is on fire")), qPrintable(text));
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("fail_tool")).has_value(), 10'000);
    QCOMPARE(finishedRecord(QStringLiteral("fail_tool"))->status, CallStatus::ToolError);
    const json details = detailsOf(QStringLiteral("fail_tool"));
    QVERIFY2(details["exitCode"] == 3, details.dump().c_str());
    QVERIFY2(
        details["stderr"] == "starting the frobnicator\nfrobnicator: the disk is on fire\n", details.dump().c_str());
}

// A command that exits non-zero after printing the contract's failure: the error it printed is the
// heart of the message (beside the status and stderr), and the failure's structured content.
void TestCommandTools::failureKeepsTheErrorStdoutCarried()
{
    QVERIFY(startBackend({command(QStringLiteral("echo_tool"), script("echo.py"))}));
    const json printed{{"ok", false}, {"error", {{"code", "not_found"}, {"message", "no such user"}}}};
    const json result = call(QStringLiteral("echo_tool"), {{"reply", printed}, {"exit", 4}});
    QVERIFY2(result.value("isError", false), result.dump().c_str());
    const QString text = firstText(result);
    QVERIFY2(text.contains(QStringLiteral("Command tool \"echo_tool\" failed")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("exited with status 4: no such user (not_found)")), qPrintable(text));
    QVERIFY2(result["structuredContent"] == printed, result.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("echo_tool")).has_value(), 10'000);
    QCOMPARE(finishedRecord(QStringLiteral("echo_tool"))->status, CallStatus::ToolError);
}

void TestCommandTools::garbageIsAToolError()
{
    QVERIFY(startBackend({command(QStringLiteral("garbage_tool"), script("garbage.sh"))}));
    const json result = call(QStringLiteral("garbage_tool"));
    QVERIFY2(result.value("isError", false), result.dump().c_str());
    const QString text = firstText(result);
    QVERIFY2(
        text.contains(QStringLiteral("exited with status 0, but its stdout is not one JSON value")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("this is not json {")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("printed garbage")), qPrintable(text));
}

void TestCommandTools::floodIsBoundedAndKilled()
{
    QVERIFY(startBackend({command(QStringLiteral("flood_tool"), script("flood.sh"))}));
    const json result = call(QStringLiteral("flood_tool"));
    QVERIFY2(result.value("isError", false), result.dump().c_str());
    const QString text = firstText(result);
    QVERIFY2(text.contains(QStringLiteral("wrote more than 8 MiB to stdout")), qPrintable(text));
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("flood_tool")).has_value(), 10'000);
    const json details = detailsOf(QStringLiteral("flood_tool"));
    QVERIFY2(details["stdoutBytes"].get<qint64>() > CommandTool::MaxStdoutBytes, details.dump().substr(0, 500).c_str());
    QVERIFY(qint64(details["stdout"].get<std::string>().size()) <= CommandTool::DetailsStdoutBytes);
    QVERIFY(finishedRecord(QStringLiteral("flood_tool"))->response.size() < 64 * 1024);
}

void TestCommandTools::deeplyNestedOutputIsRefused()
{
    // 200,000 nested arrays on stdout (as a tool printing a string the client sent may print) killed
    // the whole process: the parsed value was copied recursively on the worker's stack. Nesting past
    // the limit is refused while parsing, as a tool error, and the process answers on.
    QVERIFY(startBackend({command(QStringLiteral("generate_tool"), script("generate.py"))}));
    const json result = call(QStringLiteral("generate_tool"), {{"shape", "deep"}, {"depth", 200'000}});
    QVERIFY2(result.value("isError", false), result.dump().substr(0, 500).c_str());
    const QString text = firstText(result);
    QVERIFY2(
        text.contains(QStringLiteral("Command tool \"generate_tool\" failed: the command exited with status 0, but "
                                     "its stdout is refused: JSON is nested deeper than 64 levels")),
        qPrintable(text.left(500)));
    QVERIFY2(text.size() < 4096, qPrintable(text.left(500))); // the brackets are not quoted back
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("generate_tool")).has_value(), 10'000);
    QCOMPARE(finishedRecord(QStringLiteral("generate_tool"))->status, CallStatus::ToolError);
    const json details = detailsOf(QStringLiteral("generate_tool"));
    QCOMPARE(details["stdoutBytes"].get<qint64>(), qint64(400'001)); // what it printed, newline and all

    const json echoed = call(QStringLiteral("echo"), {{"message", "still here"}});
    QVERIFY2(!echoed.value("isError", false) && firstText(echoed).contains(QStringLiteral("still here")),
        echoed.dump().c_str());
}

void TestCommandTools::millionsOfValuesAreRefused()
{
    // 8 MB of {} (2.7 million empty objects, inside the 8 MiB stdout bound) was parsed whole: about
    // 500 MB for one call. More than 100,000 values are refused while parsing.
    QVERIFY(startBackend({command(QStringLiteral("generate_tool"), script("generate.py"))}));
    const json result = call(QStringLiteral("generate_tool"), {{"shape", "many"}, {"count", 2'700'000}});
    QVERIFY2(result.value("isError", false), result.dump().substr(0, 500).c_str());
    const QString text = firstText(result);
    QVERIFY2(text.contains(QStringLiteral("its stdout is refused: JSON has more than 100000 values (a command tool's "
                                          "output may nest 64 levels deep and hold 100000 values)")),
        qPrintable(text.left(500)));
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("generate_tool")).has_value(), 10'000);
    QCOMPARE(finishedRecord(QStringLiteral("generate_tool"))->status, CallStatus::ToolError);
    QVERIFY(finishedRecord(QStringLiteral("generate_tool"))->response.size() < 64 * 1024);
}

void TestCommandTools::missingExecutableNamesTheCommand()
{
    QVERIFY(startBackend({command(QStringLiteral("missing_tool"), QStringLiteral("/nonexistent/switchboard-tool")),
        command(QStringLiteral("unlisted_tool"), QStringLiteral("switchboard-no-such-program"))}));
    for (const auto& [tool, program] : {std::pair{"missing_tool", "/nonexistent/switchboard-tool"},
             std::pair{"unlisted_tool", "switchboard-no-such-program"}}) {
        const json result = call(QLatin1String(tool));
        QVERIFY2(result.value("isError", false), result.dump().c_str());
        const QString text = firstText(result);
        QVERIFY2(text.contains(QStringLiteral("cannot start the command \"%1\"").arg(QLatin1String(program))),
            qPrintable(text));
    }
}

void TestCommandTools::timeoutKillsTheGroup()
{
    QVERIFY(startBackend({command(QStringLiteral("hang_tool"), script("hang.sh"), 1),
        command(QStringLiteral("spawn_tool"), script("spawn.py"), 1.5)}));
    QElapsedTimer clock;
    clock.start();
    const json result = call(QStringLiteral("hang_tool"));
    QVERIFY2(result.value("isError", false), result.dump().c_str());
    const QString text = firstText(result);
    QVERIFY2(text.contains(QStringLiteral("did not finish within its timeout of 1 s")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("hanging on purpose")), qPrintable(text));
    QVERIFY2(clock.elapsed() < 20'000, qPrintable(QString::number(clock.elapsed())));
    // The command's own timeout is a timeout in the call log, not the tool's error.
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("hang_tool")).has_value(), 10'000);
    QCOMPARE(finishedRecord(QStringLiteral("hang_tool"))->status, CallStatus::TimedOut);

    // The parent and the child it started both go.
    const QString pidFile = m_dir->filePath(QStringLiteral("timeout.pid"));
    const json spawned = call(QStringLiteral("spawn_tool"), {{"pidFile", pidFile.toStdString()}, {"then", "hang"}});
    QVERIFY2(spawned.value("isError", false), spawned.dump().c_str());
    QVERIFY2(firstText(spawned).contains(QStringLiteral("timeout")), spawned.dump().c_str());
    const qint64 child = readPid(pidFile);
    QVERIFY(child > 0);
    m_pidsToReap << child;
    QTRY_VERIFY_WITH_TIMEOUT(processGone(child), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("spawn_tool")).has_value(), 10'000);
    const json details = detailsOf(QStringLiteral("spawn_tool"));
    QVERIFY2(QString::fromStdString(details["exit"].get<std::string>()).startsWith(QStringLiteral("timed out")),
        details.dump().c_str());
    const qint64 parent = details["pid"].get<qint64>();
    QTRY_VERIFY_WITH_TIMEOUT(processGone(parent), 10'000);
}

void TestCommandTools::childLeftBehindIsKilledWhenTheCommandEnds()
{
    QVERIFY(startBackend({command(QStringLiteral("spawn_tool"), script("spawn.py"))}));
    const QString pidFile = m_dir->filePath(QStringLiteral("orphan.pid"));
    const json result = call(QStringLiteral("spawn_tool"), {{"pidFile", pidFile.toStdString()}, {"then", "exit"}});
    QVERIFY2(!result.value("isError", false), result.dump().c_str());
    const qint64 child = result["structuredContent"]["child"].get<qint64>();
    QCOMPARE(readPid(pidFile), child);
    m_pidsToReap << child;
    QTRY_VERIFY_WITH_TIMEOUT(processGone(child), 10'000);
}

void TestCommandTools::cancellationKillsTheGroup()
{
    QVERIFY(startBackend({command(QStringLiteral("spawn_tool"), script("spawn.py"), 120)}));
    const QString pidFile = m_dir->filePath(QStringLiteral("cancel.pid"));
    std::optional<McpClient::Outcome> outcome;
    const auto pending
        = m_client->callTool(QStringLiteral("spawn_tool"), {{"pidFile", pidFile.toStdString()}, {"then", "hang"}}, {},
            [&](McpClient::Outcome result) { outcome = result; });
    QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 30'000);
    const qint64 child = readPid(pidFile);
    m_pidsToReap << child;
    QVERIFY(!processGone(child));
    pending->cancel(QStringLiteral("the test cancels"));
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(processGone(child), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(finishedRecord(QStringLiteral("spawn_tool")).has_value(), 10'000);
    const ToolCall record = *finishedRecord(QStringLiteral("spawn_tool"));
    QCOMPARE(record.status, CallStatus::Cancelled);
    const json details = detailsOf(QStringLiteral("spawn_tool"));
    QVERIFY2(QString::fromStdString(details.value("exit", std::string())).startsWith(QStringLiteral("cancelled")),
        details.dump().c_str());
    QVERIFY2(details["envelope"]["input"]["then"] == "hang", details.dump().c_str());
    const qint64 parent = details["pid"].get<qint64>();
    QTRY_VERIFY_WITH_TIMEOUT(processGone(parent), 10'000);
}

void TestCommandTools::otherCallsAnswerWhileACommandHangs()
{
    QVERIFY(startBackend({command(QStringLiteral("hang_tool"), script("hang.sh"), 120),
        command(QStringLiteral("echo_tool"), script("echo.py"))}));
    std::vector<std::shared_ptr<McpClient::PendingCall>> hanging;
    int hangsEnded = 0;
    for (int i = 0; i < 2; ++i)
        hanging.push_back(m_client->callTool(
            QStringLiteral("hang_tool"), json::object(), {}, [&](McpClient::Outcome) { ++hangsEnded; }));
    // Both hang calls are running (their records say so) before the others are asked.
    QTRY_VERIFY_WITH_TIMEOUT(std::count_if(m_records.cbegin(), m_records.cend(),
                                 [](const ToolCall& record) {
                                     return record.tool == QLatin1String("hang_tool")
                                         && record.status == CallStatus::Running;
                                 })
            >= 2,
        20'000);
    QElapsedTimer clock;
    clock.start();
    const QString builtin = firstText(call(QStringLiteral("echo"), {{"message", "still here"}}));
    QVERIFY2(builtin.contains(QStringLiteral("still here")), qPrintable(builtin));
    const json echoed = call(QStringLiteral("echo_tool"), {{"reply", "also here"}});
    QCOMPARE(firstText(echoed), QStringLiteral("also here"));
    QVERIFY2(clock.elapsed() < 30'000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(hangsEnded, 0);
    for (const auto& call : hanging)
        call->cancel(QStringLiteral("done"));
    QTRY_COMPARE_WITH_TIMEOUT(hangsEnded, 2, 10'000);
}

void TestCommandTools::shutdownKillsRunningCommands()
{
    QVERIFY(startBackend({command(QStringLiteral("spawn_tool"), script("spawn.py"), 120)}));
    const QString pidFile = m_dir->filePath(QStringLiteral("shutdown.pid"));
    m_client->callTool(QStringLiteral("spawn_tool"), {{"pidFile", pidFile.toStdString()}, {"then", "hang"}}, {},
        [](McpClient::Outcome) {});
    QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 30'000);
    const qint64 child = readPid(pidFile);
    m_pidsToReap << child;
    QVERIFY(!processGone(child));
    QElapsedTimer clock;
    clock.start();
    m_client.reset();
    m_backend->stop();
    QVERIFY2(clock.elapsed() < 10'000, qPrintable(QString::number(clock.elapsed())));
    QTRY_VERIFY_WITH_TIMEOUT(processGone(child), 10'000);
}

void TestCommandTools::writeCommandAsksThePersonByDefault()
{
    CommandToolConfig write = command(QStringLiteral("write_tool"), script("echo.py"));
    write.spec.annotations = json{{"readOnlyHint", false}};
    QVERIFY(startBackend({command(QStringLiteral("read_tool"), script("echo.py")), write}, QString()));
    QCOMPARE(firstText(call(QStringLiteral("read_tool"), {{"reply", "read"}})), QStringLiteral("read"));

    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("write_tool"), {{"reply", "x"}}, {}, [&](McpClient::Outcome result) { outcome = result; });
    QVERIFY(pending.wait(20'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(question.tool, QStringLiteral("write_tool"));
    QVERIFY(!outcome.has_value());
    m_backend->answerInteraction(question.id, InteractionAnswer::decide(InteractionAnswer::Decision::Deny));
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 20'000);
    QVERIFY(outcome->ok());
    QVERIFY2(firstText(outcome->result).contains(QStringLiteral("denied")), outcome->result.dump().c_str());
}

void TestCommandTools::reloadAddsAndRemovesCommandTools()
{
    const QString path = m_dir->filePath(QStringLiteral("switchboard.yaml"));
    const auto write = [&](const QByteArray& text) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    };
    const QByteArray echo = script("echo.py").toUtf8();
    write("command_tools:\n  - name: first_tool\n    command: " + echo + "\n");
    QVERIFY(startBackend({command(QStringLiteral("first_tool"), script("echo.py"))}));
    QCOMPARE(firstText(call(QStringLiteral("first_tool"), {{"reply", "one"}})), QStringLiteral("one"));

    QSignalSpy reloaded(m_backend.get(), &Backend::configurationReloaded);
    write("command_tools:\n  - name: second_tool\n    command: " + echo + "\n    timeout: 5\n");
    m_backend->reloadConfiguration();
    QTRY_VERIFY_WITH_TIMEOUT(!reloaded.isEmpty() && reloaded.last().at(0).toBool(), 10'000);
    QVERIFY2(reloaded.last().at(1).toString().contains(QStringLiteral("1 command tools")),
        qPrintable(reloaded.last().at(1).toString()));
    QTRY_COMPARE_WITH_TIMEOUT(
        firstText(call(QStringLiteral("second_tool"), {{"reply", "two"}})), QStringLiteral("two"), 20'000);
    const json gone = call(QStringLiteral("first_tool"), {{"reply", "one"}});
    QVERIFY2(gone.contains("failure") || gone.value("isError", false), gone.dump().c_str());

    // A bad entry keeps what is in force.
    const int before = int(reloaded.size());
    write("command_tools:\n  - name: second_tool\n    command: relative/tool\n");
    m_backend->reloadConfiguration();
    QTRY_VERIFY_WITH_TIMEOUT(int(reloaded.size()) > before, 10'000);
    QCOMPARE(reloaded.last().at(0).toBool(), false);
    QVERIFY2(reloaded.last().at(1).toString().contains(QStringLiteral("command_tools[second_tool].command")),
        qPrintable(reloaded.last().at(1).toString()));
    QCOMPARE(firstText(call(QStringLiteral("second_tool"), {{"reply", "kept"}})), QStringLiteral("kept"));
}

QTEST_GUILESS_MAIN(TestCommandTools)
#include "tst_commandtools.moc"
