// `switchboard tool NAME`, the one-shot runner, as a router runs it: the real binary started once
// per call with an envelope on stdin. Every envelope form end to end, unknown tools and bad
// envelopes, git_status on a real repository, a command tool run by the runner, the call in
// history, a question parked for the console, SIGTERM while a call runs, no GUI library loaded,
// and git credentials taken from the invocation metadata against a real smart-HTTP remote.

#include "testpaths.h"
#include <QTest>

#include "githttpremote.h"
#include "jsontestsupport.h"
#include "upstreamprocess.h"

#include "config/switchboardconfig.h"
#include "core/backend.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <csignal>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace {

struct RunResult
{
    int exitCode = -1;
    json answer; // stdout, parsed (discarded when it is not one JSON value)
    QByteArray stdoutText;
    QByteArray stderrText;
};

// The processes whose parent is `pid`, from /proc.
QList<qint64> childrenOf(qint64 pid)
{
    QList<qint64> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        const qint64 candidate = entry.toLongLong(&isPid);
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry));
        if (!isPid || !stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' '); // state, ppid, …
        if (fields.size() > 1 && fields.at(1).toLongLong() == pid)
            children << candidate;
    }
    return children;
}

} // namespace

namespace {

// Whether process `pid` has a thread named `name` (as /proc shows it: its first 15 bytes). The
// executor's workers are named "switchboard-tool" and start with the first blocking call.
bool hasThreadNamed(qint64 pid, const QByteArray& name)
{
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    const QStringList threads = tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& thread : threads) {
        QFile comm(tasks.filePath(thread + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == name.left(15))
            return true;
    }
    return false;
}

} // namespace

class TestToolRunner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void everyEnvelopeFormRunsEcho_data();
    void everyEnvelopeFormRunsEcho();
    void unknownToolNamesTheClosestMatches();
    void badEnvelopesFailClearly_data();
    void badEnvelopesFailClearly();
    void listPrintsTheTools();
    void gitStatusPrintsTheStatus();
    void commandToolRunsThroughTheRunner();
    void commandToolOutputBeyondTheLimitsFailsClearly_data();
    void commandToolOutputBeyondTheLimitsFailsClearly();
    void callsAppearInHistory();
    void questionIsParkedForTheConsole();
    void sigtermCancelsTheCall();
    void runnerLoadsNoGuiLibrary();
    void stdinLeftOpenIsGivenUpOn();
    void invocationCredentialsReachGit();
    void adapterToolThroughTheRunner();
    void runnerIsACommandToolOfARouter();
    void concurrentRunnersLoseNoQuestionWithTheConsoleRunning();
    void allowOnceLetsOneOfManyIdenticalRunnersRun();
    void schemaInvalidArgumentsAreABadCall();
    void cloneThatHitsItsDeadlineKeepsTheCloneContract();
    void jsonRpcRefusalKeepsItsId();
    void controlCharactersNeverReachStderr();
    void commandToolGetsTheInvocationHistoryNever();
    void runningCallOfAnotherRunnerIsNotInterrupted();
    void fiftyRunnersAtOnceOnANewStateDirectory();

private:
    void writeConfig(const QByteArray& yaml);
    // The console: a Backend that listens (on a free port), on the runners' configuration and state
    // directory; null (with a warning) when it could not start.
    std::unique_ptr<Backend> startConsole();
    QStringList arguments(const QStringList& extra = {}) const;
    RunResult run(const QStringList& extra, const QByteArray& input,
        const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment());
    // One column of the history rows `where` selects, oldest first.
    QStringList historyColumn(const QString& column, const QString& where = QStringLiteral("1"));

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_config;
    QString m_state;
};

void TestToolRunner::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_config = m_dir->filePath(QStringLiteral("config.yaml"));
    m_state = m_dir->filePath(QStringLiteral("state"));
    writeConfig("port: 0\n");
}

void TestToolRunner::writeConfig(const QByteArray& yaml)
{
    QFile file(m_config);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(yaml);
}

std::unique_ptr<Backend> TestToolRunner::startConsole()
{
    BackendOptions options;
    QString error;
    if (!SwitchboardConfig::load(m_config, &options.config, &error)) {
        qWarning("configuration: %s", qPrintable(error));
        return nullptr;
    }
    options.configPath = m_config;
    options.stateDirectory = m_state;
    options.server.port = 0;
    auto console = std::make_unique<Backend>(options);
    if (!console->start(&error)) {
        qWarning("console: %s", qPrintable(error));
        return nullptr;
    }
    return console;
}

QStringList TestToolRunner::arguments(const QStringList& extra) const
{
    return QStringList{QStringLiteral("tool")} + extra
        + QStringList{QStringLiteral("--config"), m_config, QStringLiteral("--state-dir"), m_state};
}

RunResult TestToolRunner::run(const QStringList& extra, const QByteArray& input, const QProcessEnvironment& environment)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(TestPaths::switchboardBinary(), arguments(extra));
    RunResult result;
    if (!process.waitForStarted(20'000))
        return result;
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(120'000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.stdoutText = process.readAllStandardOutput();
    result.stderrText = process.readAllStandardError();
    result.answer = json::parse(result.stdoutText.toStdString(), nullptr, false);
    if (result.answer.is_discarded())
        result.answer = json();
    return result;
}

QStringList TestToolRunner::historyColumn(const QString& column, const QString& where)
{
    QStringList values;
    const QString connection = QStringLiteral("tst_toolrunner_column");
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        database.setDatabaseName(m_state + QStringLiteral("/history.sqlite"));
        if (database.open()) {
            QSqlQuery query(database);
            if (query.exec(QStringLiteral("SELECT %1 FROM calls WHERE %2 ORDER BY id").arg(column, where))) {
                while (query.next())
                    values << QString::fromUtf8(query.value(0).toByteArray());
            }
        }
    }
    QSqlDatabase::removeDatabase(connection);
    return values;
}

void TestToolRunner::everyEnvelopeFormRunsEcho_data()
{
    QTest::addColumn<QByteArray>("envelope");
    QTest::addColumn<QString>("toolNameVariable");
    QTest::addColumn<bool>("jsonRpc");
    QTest::newRow("tool/input/metadata") << QByteArray(
        R"({"tool":"echo","input":{"text":"a"},"metadata":{"invocation":{"user":"u"}}})")
                                         << QString() << false;
    QTest::newRow("tool_name/arguments") << QByteArray(R"({"tool_name":"echo","arguments":{"text":"a"}})") << QString()
                                         << false;
    QTest::newRow("name/arguments") << QByteArray(R"({"name":"echo","arguments":{"text":"a"}})") << QString() << false;
    QTest::newRow("TOOL_NAME") << QByteArray(R"({"input":{"text":"a"}})") << QStringLiteral("echo") << false;
    QTest::newRow("json-rpc") << QByteArray(
        R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}})")
                              << QString() << true;
}

void TestToolRunner::everyEnvelopeFormRunsEcho()
{
    QFETCH(QByteArray, envelope);
    QFETCH(QString, toolNameVariable);
    QFETCH(bool, jsonRpc);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("TOOL_NAME"));
    if (!toolNameVariable.isEmpty())
        environment.insert(QStringLiteral("TOOL_NAME"), toolNameVariable);
    const RunResult result = run({}, envelope, environment);
    QVERIFY2(result.exitCode == 0, QByteArray(result.stdoutText + result.stderrText).constData());
    QCOMPARE(result.stdoutText.count('\n'), 1);
    QCOMPARE(result.answer.value("ok", false), true);
    const json& toolResult = jsonRpc ? result.answer["result"] : result.answer;
    QCOMPARE_JSON(toolResult["structuredContent"], (json{{"text", "a"}}));
    if (jsonRpc) {
        QCOMPARE(result.answer.value("id", 0), 5);
        QCOMPARE(result.answer.value("jsonrpc", std::string()), std::string("2.0"));
    }
}

void TestToolRunner::unknownToolNamesTheClosestMatches()
{
    const RunResult result = run({QStringLiteral("git_stats")}, R"({"input":{}})");
    QCOMPARE(result.exitCode, 2);
    QCOMPARE(result.answer.value("ok", true), false);
    QCOMPARE(result.answer["error"].value("code", std::string()), std::string("unknown_tool"));
    QVERIFY2(result.answer["error"]["closestMatches"].dump().find("git_status") != std::string::npos,
        result.stdoutText.constData());
    QVERIFY2(result.stderrText.contains("git_stats"), result.stderrText.constData());
}

void TestToolRunner::badEnvelopesFailClearly_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("code");
    QTest::newRow("empty stdin") << QByteArray() << QStringList() << "invalid_envelope";
    QTest::newRow("not json") << QByteArray("echo hello") << QStringList() << "invalid_json";
    QTest::newRow("no tool") << QByteArray(R"({"input":{}})") << QStringList() << "invalid_envelope";

    QTest::newRow("input not an object") << QByteArray(R"({"tool":"echo","input":"x"})") << QStringList()
                                         << "invalid_arguments";
    QTest::newRow("two names on the command line")
        << QByteArray(R"({"tool":"echo"})") << QStringList{QStringLiteral("echo"), QStringLiteral("git_status")}
        << "invalid_command_line";
    QTest::newRow("negative stdin timeout")
        << QByteArray(R"({"tool":"echo"})") << QStringList{QStringLiteral("--stdin-timeout"), QStringLiteral("-1")}
        << "invalid_command_line";
    QTest::newRow("unknown option") << QByteArray(R"({"tool":"echo"})") << QStringList{QStringLiteral("--frobnicate")}
                                    << "invalid_command_line";
    // toDouble reads both as numbers; neither is a number of seconds.
    QTest::newRow("stdin timeout nan") << QByteArray(R"({"tool":"echo"})")
                                       << QStringList{QStringLiteral("--stdin-timeout"), QStringLiteral("nan")}
                                       << "invalid_command_line";
    QTest::newRow("stdin timeout inf") << QByteArray(R"({"tool":"echo"})")
                                       << QStringList{QStringLiteral("--stdin-timeout"), QStringLiteral("inf")}
                                       << "invalid_command_line";
}

void TestToolRunner::badEnvelopesFailClearly()
{
    QFETCH(QByteArray, input);
    QFETCH(QStringList, extra);
    QFETCH(QString, code);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("TOOL_NAME"));
    const RunResult result = run(extra, input, environment);
    QCOMPARE(result.exitCode, 2);
    QCOMPARE(result.answer.value("ok", true), false);
    QCOMPARE(QString::fromStdString(result.answer["error"].value("code", std::string())), code);
    QVERIFY(!result.answer["error"].value("message", std::string()).empty());
    // The same message on stderr, for routers that show only stderr.
    QVERIFY2(result.stderrText.startsWith("switchboard tool: "), result.stderrText.constData());
}

void TestToolRunner::listPrintsTheTools()
{
    const RunResult result = run({QStringLiteral("--list")}, QByteArray());
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.answer.value("ok", false), true);
    QStringList names;
    for (const json& tool : result.answer["tools"])
        names << QString::fromStdString(tool.value("name", std::string()));
    QVERIFY2(names.contains(QStringLiteral("echo")) && names.contains(QStringLiteral("git_status"))
            && names.contains(QStringLiteral("request_connection")),
        qPrintable(names.join(u' ')));
}

void TestToolRunner::gitStatusPrintsTheStatus()
{
    const QString root = m_dir->filePath(QStringLiteral("work"));
    const QString repo = root + QStringLiteral("/repo");
    QVERIFY(QDir().mkpath(repo));
    QProcess git;
    git.setWorkingDirectory(repo);
    git.start(QStringLiteral("git"),
        {QStringLiteral("init"), QStringLiteral("--quiet"), QStringLiteral("-b"), QStringLiteral("main"), repo});
    QVERIFY(git.waitForFinished(30'000) && git.exitCode() == 0);
    QFile untracked(repo + QStringLiteral("/notes.txt"));
    QVERIFY(untracked.open(QIODevice::WriteOnly));
    untracked.write("hello\n");
    untracked.close();
    writeConfig("port: 0\ngit:\n  roots: [" + root.toUtf8() + "]\n");

    const QByteArray envelope = QByteArray(R"({"tool":"git_status","input":{"repo_path":")") + repo.toUtf8() + "\"}}";
    const RunResult result = run({QStringLiteral("git_status")}, envelope);
    QVERIFY2(result.exitCode == 0, QByteArray(result.stdoutText + result.stderrText).constData());
    const json& status = result.answer["structuredContent"];
    QCOMPARE(status.value("status", std::string()), std::string("success"));
    QCOMPARE(status.value("branch", std::string()), std::string("main"));
    QVERIFY2(status["untracked"].dump().find("notes.txt") != std::string::npos, status.dump().c_str());

    // Outside the roots: refused as a tool error, exit status 1.
    const RunResult outside = run({QStringLiteral("git_status")}, R"({"input":{"repo_path":"/etc"}})");
    QCOMPARE(outside.exitCode, 1);
    QCOMPARE(outside.answer["error"].value("code", std::string()), std::string("tool_error"));
    QCOMPARE(outside.answer.value("isError", false), true);
}

void TestToolRunner::commandToolRunsThroughTheRunner()
{
    const QByteArray echo = TestPaths::commandsDir().toUtf8() + "/echo.py";
    writeConfig("port: 0\ncommand_tools:\n  - name: script_echo\n    command: " + echo
        + "\n    annotations: {readOnlyHint: true}\n");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("TOOL_NAME"), QStringLiteral("script_echo"));
    const RunResult result
        = run({}, R"({"input":{"reply":{"content":[{"type":"text","text":"from the script"}]}}})", environment);
    QVERIFY2(result.exitCode == 0, QByteArray(result.stdoutText + result.stderrText).constData());
    QCOMPARE(result.answer["content"][0].value("text", std::string()), std::string("from the script"));

    // Without a reply the script echoes what it was given: the envelope and its own TOOL_NAME.
    const RunResult echoed = run({}, R"({"input":{"x":1}})", environment);
    QVERIFY2(echoed.exitCode == 0, QByteArray(echoed.stdoutText + echoed.stderrText).constData());
    QCOMPARE(echoed.answer["structuredContent"].value("toolName", std::string()), std::string("script_echo"));
    QCOMPARE_JSON(echoed.answer["structuredContent"]["envelope"]["input"], (json{{"x", 1}}));
}

void TestToolRunner::commandToolOutputBeyondTheLimitsFailsClearly_data()
{
    QTest::addColumn<QByteArray>("envelope");
    QTest::addColumn<QString>("why");
    QTest::newRow("200,000 levels") << QByteArray(R"({"input":{"shape":"deep","depth":200000}})")
                                    << QStringLiteral("JSON is nested deeper than 64 levels");
    QTest::newRow("8 MB of {}") << QByteArray(R"({"input":{"shape":"many","count":2700000}})")
                                << QStringLiteral("JSON has more than 100000 values");
}

void TestToolRunner::commandToolOutputBeyondTheLimitsFailsClearly()
{
    // The runner died of SIGSEGV (exit 139) on a command tool's 200,000-deep stdout, copied
    // recursively on a worker's stack, and left its history row "running"; 8 MB of {} cost it about
    // 1 GB. Both are refused while parsing: a tool error, exit 1, the call finished in history.
    QFETCH(QByteArray, envelope);
    QFETCH(QString, why);
    const QByteArray generate = TestPaths::commandsDir().toUtf8() + "/generate.py";
    writeConfig("port: 0\ncommand_tools:\n  - name: generate\n    command: " + generate
        + "\n    timeout: 120\n    annotations: {readOnlyHint: true}\n");
    const RunResult result = run({QStringLiteral("generate")}, envelope);
    QVERIFY2(result.exitCode == 1,
        qPrintable(QStringLiteral("exit %1: %2").arg(result.exitCode).arg(QString::fromUtf8(result.stderrText))));
    QCOMPARE(result.answer.value("ok", true), false);
    QCOMPARE(result.answer["error"].value("code", std::string()), std::string("tool_error"));
    const QString message = QString::fromStdString(result.answer["error"].value("message", std::string()));
    QVERIFY2(message.contains(QStringLiteral("its stdout is refused: ") + why), qPrintable(message));
    QVERIFY2(message.size() < 4096, qPrintable(message.left(300))); // no 200,000 brackets quoted
    QVERIFY2(result.stderrText.contains(why.toUtf8()), result.stderrText.left(500).constData());

    const QString connection = QStringLiteral("tst_toolrunner_limits");
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        database.setDatabaseName(m_state + QStringLiteral("/history.sqlite"));
        QVERIFY(database.open());
        QSqlQuery query(database);
        QVERIFY(query.exec(QStringLiteral("SELECT status, response FROM calls WHERE tool = 'generate'")));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("tool_error"));
        QVERIFY2(query.value(1).toString().contains(why), qPrintable(query.value(1).toString().left(300)));
        QVERIFY(!query.next());
    }
    QSqlDatabase::removeDatabase(connection);
}

void TestToolRunner::callsAppearInHistory()
{
    const RunResult first = run({QStringLiteral("echo")}, R"({"input":{"text":"one"}})");
    QCOMPARE(first.exitCode, 0);
    const RunResult second = run({QStringLiteral("echo")}, R"({"input":{"text":"two"}})");
    QCOMPARE(second.exitCode, 0);
    const RunResult unknown = run({QStringLiteral("nope")}, R"({"input":{}})");
    QCOMPARE(unknown.exitCode, 2);

    const QString connection = QStringLiteral("tst_toolrunner_history");
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        database.setDatabaseName(m_state + QStringLiteral("/history.sqlite"));
        QVERIFY(database.open());
        QSqlQuery query(database);
        QVERIFY(query.exec(QStringLiteral("SELECT id, tool, client_name, status, request FROM calls ORDER BY id")));
        QList<qint64> ids;
        QStringList tools;
        QStringList statuses;
        while (query.next()) {
            ids << query.value(0).toLongLong();
            tools << query.value(1).toString();
            QCOMPARE(query.value(2).toString(), QStringLiteral("switchboard tool"));
            statuses << query.value(3).toString();
        }
        QCOMPARE(tools, (QStringList{QStringLiteral("echo"), QStringLiteral("echo"), QStringLiteral("nope")}));
        QCOMPARE(statuses.first(), QStringLiteral("ok"));
        QCOMPARE(statuses.last(), QStringLiteral("unknown_tool"));
        // Each process has ids of its own: none reused.
        QCOMPARE(QSet<qint64>(ids.cbegin(), ids.cend()).size(), 3);
    }
    QSqlDatabase::removeDatabase(connection);
}

void TestToolRunner::questionIsParkedForTheConsole()
{
    const QByteArray envelope = R"({"tool":"request_connection","input":{"provider":"github","kind":"api_key",
        "reason":"to open a pull request"}})";
    const RunResult result = run({}, envelope);
    QCOMPARE(result.exitCode, 75);
    QCOMPARE(result.answer["error"].value("code", std::string()), std::string("waiting_for_person"));
    QVERIFY2(
        result.answer["error"].value("message", std::string()).find("Run the same call again") != std::string::npos,
        result.stdoutText.constData());

    // Saved before the runner answered: the console finds the question in the workspace state.
    QFile state(m_state + QStringLiteral("/workspace.json"));
    QVERIFY(state.open(QIODevice::ReadOnly));
    const json saved = json::parse(state.readAll().toStdString(), nullptr, false);
    QVERIFY(saved.is_object());
    QCOMPARE(saved["pending"].size(), std::size_t(1));
    QCOMPARE(saved["pending"][0].value("tool", std::string()), std::string("request_connection"));
    QCOMPARE(saved["pending"][0].value("clientName", std::string()), std::string("switchboard tool"));

    // The same call again finds the same question waiting, not a second one.
    const RunResult again = run({}, envelope);
    QCOMPARE(again.exitCode, 75);
    state.close();
    QVERIFY(state.open(QIODevice::ReadOnly));
    QCOMPARE(json::parse(state.readAll().toStdString())["pending"].size(), std::size_t(1));
}

void TestToolRunner::sigtermCancelsTheCall()
{
    QProcess process;
    process.start(TestPaths::switchboardBinary(), arguments({QStringLiteral("--debug-tools")}));
    QVERIFY(process.waitForStarted(20'000));
    process.write(R"({"tool":"debug.block","input":{"seconds":600}})");
    process.closeWriteChannel();
    // The call runs once a worker has started it; then the process is asked to stop.
    QTRY_VERIFY_WITH_TIMEOUT(hasThreadNamed(process.processId(), "switchboard-tool"), 30'000);
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(pid_t(process.processId()), SIGTERM);
    QVERIFY(process.waitForFinished(60'000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    const json answer = json::parse(process.readAllStandardOutput().toStdString(), nullptr, false);
    QVERIFY(answer.is_object());
    QCOMPARE(answer["error"].value("code", std::string()), std::string("cancelled"));
}

// A router that writes its envelope and never closes stdin: the runner gives up after
// --stdin-timeout with a clear failure, rather than waiting for ever.
void TestToolRunner::stdinLeftOpenIsGivenUpOn()
{
    QProcess process;
    process.start(TestPaths::switchboardBinary(),
        arguments({QStringLiteral("echo"), QStringLiteral("--stdin-timeout"), QStringLiteral("1")}));
    QVERIFY(process.waitForStarted(20'000));
    process.write(R"({"input":{"text":"never closed"}})"); // stdin stays open
    QVERIFY2(process.waitForFinished(60'000), "the runner still waits for stdin to close");
    QCOMPARE(process.exitCode(), 2);
    const json answer = json::parse(process.readAllStandardOutput().toStdString(), nullptr, false);
    QVERIFY(answer.is_object());
    QCOMPARE(answer["error"].value("code", std::string()), std::string("stdin_timeout"));
}

void TestToolRunner::runnerLoadsNoGuiLibrary()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("DISPLAY"), QStringLiteral(":99")); // a window would be wanted otherwise
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(TestPaths::switchboardBinary(), arguments({QStringLiteral("--debug-tools")}));
    QVERIFY(process.waitForStarted(20'000));
    process.write(R"({"tool":"debug.block","input":{"seconds":600}})");
    process.closeWriteChannel();
    // Everything the runner loads to run a call is loaded once a worker runs it.
    QTRY_VERIFY_WITH_TIMEOUT(hasThreadNamed(process.processId(), "switchboard-tool"), 30'000);
    QFile maps(QStringLiteral("/proc/%1/maps").arg(process.processId()));
    QVERIFY(maps.open(QIODevice::ReadOnly));
    const QByteArray mapped = maps.readAll();
    process.kill();
    process.waitForFinished(30'000);
    QVERIFY(mapped.contains("libQt6Core"));
    QVERIFY2(!mapped.contains("libQt6Gui") && !mapped.contains("libQt6Widgets"), "a GUI library is loaded");
    QVERIFY2(!mapped.contains("libqopensslbackend"), "the TLS backend was loaded for a call that needs none");
}

void TestToolRunner::invocationCredentialsReachGit()
{
    QString why;
    if (!GitHttpRemote::available(&why))
        QFAIL(qPrintable(why));
    GitHttpRemote remote;
    QVERIFY2(!remote.createBareRepository(QStringLiteral("private")).isEmpty(), qPrintable(remote.log()));
    QVERIFY2(remote.start(&why), qPrintable(why));
    const QString root = m_dir->filePath(QStringLiteral("clones"));
    QVERIFY(QDir().mkpath(root));
    // A clone writes, so it asks by default: a rule lets the runner's calls through. The test
    // remote speaks plain http on loopback.
    writeConfig("port: 0\ngit:\n  schemes: [http]\n  roots: [" + root.toUtf8()
        + "]\npermissions:\n  tools: {git_clone_repository: allow}\n");
    const QUrl url = remote.url(QStringLiteral("private"));

    const auto envelope = [&](const QString& destination, const json& metadata) {
        json value{{"tool", "git_clone_repository"},
            {"input", {{"repository_url", url.toString().toStdString()}, {"local_path", destination.toStdString()}}}};
        if (!metadata.is_null())
            value["metadata"] = metadata;
        return QByteArray::fromStdString(value.dump());
    };

    // No credential anywhere and no connection provider: a failure that says what to do, nothing cloned.
    const RunResult refused = run({}, envelope(root + QStringLiteral("/a"), nullptr));
    QCOMPARE(refused.exitCode, 1);
    QCOMPARE(refused.answer["structuredContent"].value("status", std::string()), std::string("failure"));
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/a/README.md")));

    // The router's verified invocation carries the credential: the clone succeeds, and the token
    // shows nowhere in the answer.
    const json metadata{{"invocation",
        {{"user", "someone"},
            {"credentials", {{url.host().toStdString(), {{"username", "alice"}, {"token", "s3cret-token"}}}}}}}};
    const RunResult cloned = run({}, envelope(root + QStringLiteral("/b"), metadata));
    QVERIFY2(cloned.exitCode == 0, QByteArray(cloned.stdoutText + cloned.stderrText).constData());
    QCOMPARE(cloned.answer["structuredContent"].value("status", std::string()), std::string("success"));
    QVERIFY(QFileInfo::exists(root + QStringLiteral("/b/README.md")));
    QVERIFY(!cloned.stdoutText.contains("s3cret-token"));
    QVERIFY(!cloned.stderrText.contains("s3cret-token"));

    // A legacy auth field is used only when there is no invocation: the invocation's wrong token
    // wins over a right one in metadata.auth, and the clone fails.
    const json both{
        {"invocation", {{"credentials", {{url.host().toStdString(), {{"username", "alice"}, {"token", "wrong"}}}}}}},
        {"auth", {{"credentials", {{url.host().toStdString(), {{"username", "alice"}, {"token", "s3cret-token"}}}}}}}};
    const RunResult preferred = run({}, envelope(root + QStringLiteral("/c"), both));
    QCOMPARE(preferred.exitCode, 1);
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/c/README.md")));
}

// An upstream adapter's tool from a process that has just started: the runner connects only the
// adapter its call names and routes the call once that adapter has listed its tools.
void TestToolRunner::adapterToolThroughTheRunner()
{
    UpstreamProcess upstream;
    QVERIFY2(upstream.start(), qPrintable(upstream.errorString()));
    const QByteArray endpoint = upstream.url().toString().toUtf8();
    writeConfig("port: 0\nmcp_endpoints:\n  - name: faulty\n    endpoint: " + endpoint
        + "\n  - name: unreachable\n    endpoint: http://127.0.0.1:9/mcp\n");
    const RunResult result = run({QStringLiteral("faulty.echo")}, R"({"input":{"text":"through the runner"}})");
    QVERIFY2(result.exitCode == 0, QByteArray(result.stdoutText + result.stderrText).constData());
    QVERIFY2(result.stdoutText.contains("through the runner"), result.stdoutText.constData());

    // A write tool of the adapter asks first: parked for the console, not run.
    const RunResult write = run({QStringLiteral("faulty.write_note")}, R"({"input":{"note":"n"}})");
    QCOMPARE(write.exitCode, 75);

    // An adapter the operator disabled (adapters.json, shared with the console): refused, and its
    // upstream never hears of the call.
    const auto requests = [&] {
        const json stats = upstream.stats();
        qint64 total = 0;
        const json methods = stats.is_object() ? stats.value("methods", json::object()) : json::object();
        for (auto it = methods.cbegin(); it != methods.cend(); ++it)
            total += it->is_number() ? it->get<qint64>() : 0;
        return total;
    };
    const qint64 before = requests();
    QVERIFY(before > 0); // the calls above reached it: the count is real
    QFile overrides(m_state + QStringLiteral("/adapters.json"));
    QVERIFY(overrides.open(QIODevice::WriteOnly));
    overrides.write(R"({"version":1,"adapters":{"faulty":{"enabled":false,"forcedOpen":false,"changedAtMs":1}}})");
    overrides.close();
    const RunResult disabled = run({QStringLiteral("faulty.echo")}, R"({"input":{"text":"not sent"}})");
    QCOMPARE(disabled.exitCode, 3);
    QCOMPARE(disabled.answer["error"].value("code", std::string()), std::string("tool_unavailable"));
    QVERIFY2(disabled.answer["error"].value("message", std::string()).find("disabled") != std::string::npos,
        disabled.stdoutText.constData());
    QCOMPARE(requests(), before);

    // An adapter that cannot be reached: a clear failure once its connection failed, not a hang.
    const RunResult down = run({QStringLiteral("unreachable.echo")}, R"({"input":{"text":"x"}})");
    QCOMPARE(down.exitCode, 3);
    QCOMPARE(down.answer.value("ok", true), false);
    QCOMPARE(down.answer["error"].value("code", std::string()), std::string("tool_unavailable"));
    QVERIFY2(down.answer["error"].value("message", std::string()).find("unreachable") != std::string::npos,
        down.stdoutText.constData());
}

// The round trip the runner exists for: a router that starts a process per call (here Switchboard
// itself, whose command tools are such a router) declares `switchboard tool echo` as a command, and
// its answer is read back as the tool's result.
void TestToolRunner::runnerIsACommandToolOfARouter()
{
    const QByteArray binary = TestPaths::switchboardBinary().toUtf8();
    const QString routerConfig = m_dir->filePath(QStringLiteral("router.yaml"));
    QFile file(routerConfig);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("command_tools:\n  - name: switchboard_echo\n    command: " + binary
        + "\n    args: [tool, echo, --config, " + m_config.toUtf8() + ", --state-dir, " + m_state.toUtf8()
        + "]\n    annotations: {readOnlyHint: true}\n");
    file.close();

    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(routerConfig, &options.config, &error), qPrintable(error));
    options.configPath = routerConfig;
    options.stateDirectory = m_dir->filePath(QStringLiteral("router-state"));
    options.listen = false;
    Backend router(options);
    QVERIFY2(router.start(&error), qPrintable(error));

    std::optional<LocalCallOutcome> outcome;
    router.callLocally(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_echo","arguments":{"text":"round trip"}}})",
        LocalCaller{QStringLiteral("test router"), QStringLiteral("1"), nullptr, {}}, nullptr,
        [&](const LocalCallOutcome& ended) { outcome = ended; });
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 60'000);
    router.stop();
    QCOMPARE(int(outcome->kind), int(LocalCallOutcome::Kind::Answered));
    const json response = json::parse(outcome->response.toStdString());
    const json& result = response["result"];
    QVERIFY2(!result.value("isError", false), response.dump().c_str());
    // The runner's answer is a CallToolResult: the router takes it as it is.
    QCOMPARE_JSON(result["structuredContent"], (json{{"text", "round trip"}}));
}

// 200 runners started at once, each parking a question of its own (a record it adds to the
// workspace state), while the console runs on the same state directory: every question is in the
// file afterwards, and the console shows every one.
void TestToolRunner::concurrentRunnersLoseNoQuestionWithTheConsoleRunning()
{
    constexpr int Runners = 200;
    const std::unique_ptr<Backend> started = startConsole();
    QVERIFY(started);
    Backend& console = *started;

    std::vector<std::unique_ptr<QProcess>> runners;
    for (int i = 0; i < Runners; ++i) {
        auto process = std::make_unique<QProcess>();
        process->start(TestPaths::switchboardBinary(), arguments({QStringLiteral("request_connection")}));
        runners.push_back(std::move(process));
    }
    for (int i = 0; i < Runners; ++i) {
        QProcess& process = *runners[std::size_t(i)];
        QVERIFY2(process.waitForStarted(60'000), qPrintable(process.errorString()));
        process.write(
            QByteArray::fromStdString(json{{"input",
                                               {{"provider", "provider-" + std::to_string(i)}, {"kind", "api_key"},
                                                   {"reason", "runner " + std::to_string(i)}}}}
                                          .dump()));
        process.closeWriteChannel();
    }
    QStringList failures;
    for (int i = 0; i < Runners; ++i) {
        QProcess& process = *runners[std::size_t(i)];
        if (!process.waitForFinished(240'000) || process.exitCode() != 75)
            failures << QStringLiteral("runner %1: exit %2: %3 %4")
                            .arg(i)
                            .arg(process.exitCode())
                            .arg(QString::fromUtf8(process.readAllStandardOutput()),
                                QString::fromUtf8(process.readAllStandardError()));
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.mid(0, 5).join(u'\n')));

    // Every runner's question is in the file...
    QFile state(m_state + QStringLiteral("/workspace.json"));
    QVERIFY(state.open(QIODevice::ReadOnly));
    const json saved = json::parse(state.readAll().toStdString(), nullptr, false);
    QVERIFY(saved.is_object());
    std::set<std::string> reasons;
    for (const json& question : saved["pending"])
        reasons.insert(json::parse(question.value("arguments", std::string("{}"))).value("reason", std::string()));
    QCOMPARE(int(reasons.size()), Runners);

    // ...and the console, which wrote the same file meanwhile, shows them all.
    // (Asked again until it does: the console reads the file when it hears it changed.)
    QSignalSpy listed(&console, &Backend::interactionsListed);
    QVERIFY(QTest::qWaitFor(
        [&] {
            console.listInteractions();
            return listed.wait(30'000) && listed.takeLast().at(0).value<PendingInteractionList>().size() == Runners;
        },
        60'000));
    console.stop();
}

// A person allows a runner's parked call once; then ten identical runners start together. The one
// approval lets exactly one of them run; the others park the question again.
void TestToolRunner::allowOnceLetsOneOfManyIdenticalRunnersRun()
{
    const QByteArray echo = TestPaths::commandsDir().toUtf8() + "/echo.py";
    writeConfig("port: 0\ncommand_tools:\n  - name: write_thing\n    command: " + echo + "\n"); // no hint: asks
    const QByteArray envelope = R"({"tool":"write_thing","input":{"reply":"written"}})";
    QCOMPARE(run({}, envelope).exitCode, 75);

    {
        const std::unique_ptr<Backend> started = startConsole();
        QVERIFY(started);
        Backend& console = *started;
        PendingInteractionList listed;
        connect(&console, &Backend::interactionsListed, this,
            [&](const PendingInteractionList& interactions) { listed = interactions; });
        console.listInteractions();
        QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 1, 30'000);
        QSignalSpy resolved(&console, &Backend::interactionResolved);
        console.answerInteraction(listed.first().id, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce));
        QTRY_VERIFY_WITH_TIMEOUT(!resolved.isEmpty(), 30'000);
        console.stop();
    }

    constexpr int Runners = 10;
    // Each waits at a gate (a line to read from a FIFO) before it starts, so that all of them read
    // the state at about the same time: the gate opens once every envelope is written.
    const QString gate = m_dir->filePath(QStringLiteral("start-gate"));
    QCOMPARE(::mkfifo(QFile::encodeName(gate).constData(), 0600), 0);
    const int gateFd = ::open(QFile::encodeName(gate).constData(), O_RDWR | O_CLOEXEC); // never blocks
    QVERIFY(gateFd >= 0);
    const auto closeGate = qScopeGuard([gateFd] { ::close(gateFd); });
    std::vector<std::unique_ptr<QProcess>> runners;
    for (int i = 0; i < Runners; ++i) {
        auto process = std::make_unique<QProcess>();
        process->start(QStringLiteral("/bin/sh"),
            QStringList{QStringLiteral("-c"), QStringLiteral("read -r _ < \"$1\"; shift; exec \"$0\" \"$@\""),
                TestPaths::switchboardBinary(), gate}
                + arguments());
        runners.push_back(std::move(process));
    }
    int ran = 0;
    int parked = 0;
    for (auto& process : runners) {
        QVERIFY(process->waitForStarted(30'000));
        process->write(envelope);
        process->closeWriteChannel();
    }
    const QByteArray lines(Runners, '\n'); // one line for each runner's `read`
    QCOMPARE(::write(gateFd, lines.constData(), std::size_t(lines.size())), ssize_t(lines.size()));
    for (auto& process : runners) {
        QVERIFY(process->waitForFinished(120'000));
        const QByteArray out = process->readAllStandardOutput();
        if (process->exitCode() == 0 && out.contains("written"))
            ++ran;
        else if (process->exitCode() == 75)
            ++parked;
        else
            QFAIL(qPrintable(QStringLiteral("exit %1: %2").arg(process->exitCode()).arg(QString::fromUtf8(out))));
    }
    QCOMPARE(ran, 1);
    QCOMPARE(parked, Runners - 1);
}

// Arguments the tool's inputSchema refuses: exit 2 and invalid_arguments, as README says, and a git
// tool still answers in its own shape (the clone contract's status, message, local_path_created).
void TestToolRunner::schemaInvalidArgumentsAreABadCall()
{
    const QString root = m_dir->filePath(QStringLiteral("clones"));
    QVERIFY(QDir().mkpath(root));
    writeConfig("port: 0\ngit:\n  roots: [" + root.toUtf8() + "]\n");
    const RunResult result
        = run({QStringLiteral("git_clone_repository")}, R"({"input":{"repository_url":"https://example.com/r.git"}})");
    QVERIFY2(result.exitCode == 2, QByteArray(result.stdoutText + result.stderrText).constData());
    QCOMPARE(result.answer.value("ok", true), false);
    QCOMPARE(result.answer["error"].value("code", std::string()), std::string("invalid_arguments"));
    QVERIFY2(result.answer["error"].value("message", std::string()).find("local_path") != std::string::npos,
        result.stdoutText.constData());
    QVERIFY2(result.answer.contains("structuredContent"), result.stdoutText.constData());
    const json& contract = result.answer["structuredContent"];
    QCOMPARE(contract.value("status", std::string()), std::string("failure"));
    QVERIFY(!contract.value("message", std::string()).empty());
    QVERIFY2(contract.contains("local_path_created") && contract["local_path_created"].is_null(),
        result.stdoutText.constData());

    // The same as a JSON-RPC envelope: the same exit status, the answer a JSON-RPC response to it.
    const RunResult jsonRpc = run({}, R"({"jsonrpc":"2.0","id":"c1","method":"tools/call",
        "params":{"name":"git_clone_repository","arguments":{"local_path":"x"}}})");
    QCOMPARE(jsonRpc.exitCode, 2);
    QCOMPARE(jsonRpc.answer.value("id", std::string()), std::string("c1"));
    QVERIFY2(jsonRpc.answer.contains("result"), jsonRpc.stdoutText.constData());
    QCOMPARE(jsonRpc.answer["result"]["structuredContent"].value("status", std::string()), std::string("failure"));
}

// A clone that the executor's deadline stops (a remote that accepts the connection and never
// answers) answers in the clone contract's shape too, not as a bare tool error.
void TestToolRunner::cloneThatHitsItsDeadlineKeepsTheCloneContract()
{
    QTcpServer silent; // never served: the kernel accepts the connection, and nothing answers
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    const QString root = m_dir->filePath(QStringLiteral("clones"));
    QVERIFY(QDir().mkpath(root));
    writeConfig("port: 0\ngit:\n  schemes: [http]\n  roots: [" + root.toUtf8()
        + "]\npermissions:\n  tools: {git_clone_repository: allow}\nexecution:\n  deadlines: {git_clone_repository: "
          "1}\n");
    const json envelope{{"tool", "git_clone_repository"},
        {"input",
            {{"repository_url", QStringLiteral("http://127.0.0.1:%1/r.git").arg(silent.serverPort()).toStdString()},
                {"local_path", QString(root + QStringLiteral("/clone")).toStdString()}}}};
    QElapsedTimer clock;
    clock.start();
    const RunResult result = run({}, QByteArray::fromStdString(envelope.dump()));
    QVERIFY2(result.exitCode == 1, QByteArray(result.stdoutText + result.stderrText).constData());
    QVERIFY2(clock.elapsed() < 60'000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY2(result.answer.contains("structuredContent"), result.stdoutText.constData());
    const json& contract = result.answer["structuredContent"];
    QCOMPARE(contract.value("status", std::string()), std::string("failure"));
    QVERIFY2(
        contract.value("message", std::string()).find("deadline") != std::string::npos, result.stdoutText.constData());
    QVERIFY2(contract.contains("local_path_created") && contract["local_path_created"].is_null(),
        result.stdoutText.constData());
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/clone")));
}

// A JSON-RPC envelope the runner refuses gets a JSON-RPC response: "jsonrpc" and its id kept.
void TestToolRunner::jsonRpcRefusalKeepsItsId()
{
    const RunResult result = run({}, R"({"jsonrpc":"2.0","id":11,"method":"tools/call",
        "params":{"name":"echo","arguments":[1]}})");
    QCOMPARE(result.exitCode, 2);
    QCOMPARE(result.answer.value("jsonrpc", std::string()), std::string("2.0"));
    QCOMPARE(result.answer.value("id", 0), 11);
    QCOMPARE(result.answer.value("ok", true), false);
    QCOMPARE(result.answer["error"]["data"].value("reason", std::string()), std::string("invalid_arguments"));
}

// What a caller names (a tool) or a tool says reaches the terminal escaped: no control character of
// theirs, and one line per message.
void TestToolRunner::controlCharactersNeverReachStderr()
{
    const QString name = QStringLiteral("ec\x1b[2J\x1b]0;pwned\x07ho\nforged line\r");
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("TOOL_NAME"));
    for (const RunResult& result : {run({name}, R"({"input":{}})", environment),
             run({}, QByteArray::fromStdString(json{{"tool", name.toStdString()}}.dump()), environment)}) {
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(result.answer["error"].value("code", std::string()), std::string("unknown_tool"));
        QVERIFY2(!result.stderrText.isEmpty(), result.stdoutText.constData());
        for (const char c : result.stderrText.chopped(1)) // all but the final newline
            QVERIFY2(uchar(c) >= 0x20 && c != 0x7f, result.stderrText.toHex().constData());
        QVERIFY2(
            result.stderrText.contains("\\x1b[2J") && result.stderrText.contains("\\n"), result.stderrText.constData());
        // stdout is JSON, which escapes them itself: the caller gets its name back as it was.
        QVERIFY(result.answer["error"].value("message", std::string()).find(name.toStdString()) != std::string::npos);
    }
}

// Command tools get the call's verified invocation metadata in their envelope; neither the call's
// details nor history keep it, even when the command prints it back.
void TestToolRunner::commandToolGetsTheInvocationHistoryNever()
{
    const QByteArray echo = TestPaths::commandsDir().toUtf8() + "/echo.py";
    writeConfig("port: 0\ncommand_tools:\n  - name: script_echo\n    command: " + echo
        + "\n    annotations: {readOnlyHint: true}\n");
    const json invocation{{"user", "alice-in-the-metadata"},
        {"credentials", {{"example.com", {{"username", "alice"}, {"token", "inv-s3cret-token-0123"}}}}}};
    const json envelope{{"tool", "script_echo"}, {"input", {{"x", 1}}}, {"metadata", {{"invocation", invocation}}}};
    const RunResult result = run({}, QByteArray::fromStdString(envelope.dump()));
    QVERIFY2(result.exitCode == 0, QByteArray(result.stdoutText + result.stderrText).constData());
    // The command received it (and printed it back: the caller gets its answer unchanged).
    QCOMPARE_JSON(result.answer["structuredContent"]["envelope"]["metadata"]["invocation"], invocation);

    const QStringList details = historyColumn(QStringLiteral("details"));
    const QStringList responses = historyColumn(QStringLiteral("response"));
    const QStringList requests = historyColumn(QStringLiteral("request"));
    QCOMPARE(details.size(), 1);
    for (const QStringList& column : {details, responses, requests}) {
        for (const QString& value : column) {
            QVERIFY2(!value.contains(QLatin1String("inv-s3cret-token-0123")), qPrintable(value.left(2000)));
            QVERIFY2(!value.contains(QLatin1String("alice-in-the-metadata")), qPrintable(value.left(2000)));
        }
    }
    const json recorded = json::parse(details.first().toStdString(), nullptr, false);
    QVERIFY2(recorded.is_object(), qPrintable(details.first()));
    QVERIFY2(recorded["envelope"]["metadata"]["invocation"].is_string(), recorded.dump().c_str());
    QCOMPARE_JSON(recorded["envelope"]["input"], (json{{"x", 1}}));
}

// A runner that starts while another runs a call on the same state directory leaves that call
// running in history; a call whose runner was killed is marked interrupted by the next one.
void TestToolRunner::runningCallOfAnotherRunnerIsNotInterrupted()
{
    const QByteArray hang = TestPaths::commandsDir().toUtf8() + "/hang.sh";
    writeConfig("port: 0\ncommand_tools:\n  - name: slow\n    command: " + hang
        + "\n    timeout: 300\n    annotations: {readOnlyHint: true}\n");
    QProcess slow;
    slow.start(TestPaths::switchboardBinary(), arguments({QStringLiteral("slow")}));
    QVERIFY(slow.waitForStarted(20'000));
    slow.write(R"({"input":{}})");
    slow.closeWriteChannel();
    QTRY_COMPARE_WITH_TIMEOUT(historyColumn(QStringLiteral("status"), QStringLiteral("tool = 'slow'")),
        QStringList{QStringLiteral("running")}, 60'000);

    const RunResult echo = run({QStringLiteral("echo")}, R"({"input":{"text":"meanwhile"}})");
    QCOMPARE(echo.exitCode, 0);
    QCOMPARE(historyColumn(QStringLiteral("status"), QStringLiteral("tool = 'slow'")),
        QStringList{QStringLiteral("running")});

    // The command runs in a process group of its own, which outlives its runner's SIGKILL.
    const QList<qint64> commands = childrenOf(slow.processId());
    ::kill(pid_t(slow.processId()), SIGKILL);
    QVERIFY(slow.waitForFinished(30'000));
    for (const qint64 command : commands)
        ::kill(-pid_t(command), SIGKILL);
    QCOMPARE(run({QStringLiteral("echo")}, R"({"input":{"text":"after"}})").exitCode, 0);
    QCOMPARE(
        historyColumn(QStringLiteral("status"), QStringLiteral("tool = 'slow'")), QStringList{QStringLiteral("error")});
    QVERIFY(historyColumn(QStringLiteral("error"), QStringLiteral("tool = 'slow'"))
                .first()
                .startsWith(QLatin1String("interrupted")));
}

// 50 runners started at once on a new state directory, round after round: every one answers (about
// one call in a thousand failed with exit 3 while another process's last connection removed the
// -shm file between its creation and a change of its mode), and history stays owner-only.
void TestToolRunner::fiftyRunnersAtOnceOnANewStateDirectory()
{
    constexpr int Runners = 50;
    constexpr int Rounds = 6;
    QStringList failures;
    for (int round = 0; round < Rounds; ++round) {
        m_state = m_dir->filePath(QStringLiteral("state-%1").arg(round));
        std::vector<std::unique_ptr<QProcess>> runners;
        for (int i = 0; i < Runners; ++i) {
            auto process = std::make_unique<QProcess>();
            process->start(TestPaths::switchboardBinary(), arguments({QStringLiteral("echo")}));
            runners.push_back(std::move(process));
        }
        for (auto& process : runners) {
            QVERIFY2(process->waitForStarted(60'000), qPrintable(process->errorString()));
            process->write(R"({"input":{"text":"at once"}})");
            process->closeWriteChannel();
        }
        for (auto& process : runners) {
            if (!process->waitForFinished(240'000) || process->exitCode() != 0)
                failures << QStringLiteral("round %1: exit %2: %3")
                                .arg(round)
                                .arg(process->exitCode())
                                .arg(QString::fromUtf8(process->readAllStandardError()));
        }
        const QString history = m_state + QStringLiteral("/history.sqlite");
        QCOMPARE(QFileInfo(m_state).permissions()
                & ~(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadUser | QFile::WriteUser
                    | QFile::ExeUser),
            QFile::Permissions());
        for (const QString& name :
            QStringList{history, history + QStringLiteral("-wal"), history + QStringLiteral("-shm")}) {
            if (QFileInfo::exists(name))
                QCOMPARE(QFileInfo(name).permissions()
                        & ~(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser),
                    QFile::Permissions());
        }
        QCOMPARE(historyColumn(QStringLiteral("status")).size(), Runners);
    }
    QVERIFY2(failures.isEmpty(),
        qPrintable(QStringLiteral("%1 of %2 runners failed: %3")
                       .arg(failures.size())
                       .arg(Runners * Rounds)
                       .arg(failures.mid(0, 3).join(u'\n'))));
}

QTEST_GUILESS_MAIN(TestToolRunner)
#include "tst_toolrunner.moc"
