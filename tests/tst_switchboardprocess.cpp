// The switchboard binary as a user runs it: command line, first line, one line per call, token
// handling, warnings, clean shutdown on SIGTERM, and history across a restart.

#include "store/historystore.h"
#include "testpaths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>
#include <sys/resource.h>
#include <sys/stat.h>

namespace {

struct Running
{
    std::unique_ptr<QProcess> process;
    QUrl url;
};

QProcessEnvironment environmentWithout(const QStringList& names)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString& name : names)
        environment.remove(name);
    return environment;
}

// Starts switchboard and waits for its first line. Never reads the user's configuration.
Running start(
    QStringList arguments, const QProcessEnvironment& environment, const std::function<void()>& childSetup = {})
{
    if (!arguments.contains(QStringLiteral("--config")))
        arguments << QStringLiteral("--config") << QStringLiteral("/nonexistent/switchboard-test.yaml");
    Running running;
    running.process = std::make_unique<QProcess>();
    running.process->setProcessEnvironment(environment);
    if (childSetup)
        running.process->setChildProcessModifier(childSetup);
    running.process->start(TestPaths::switchboardBinary(), arguments);
    if (!running.process->waitForStarted(10'000))
        return running;
    QElapsedTimer timer;
    timer.start();
    while (!running.process->canReadLine() && timer.elapsed() < 20'000 && running.process->state() == QProcess::Running)
        running.process->waitForReadyRead(200);
    const QString line = QString::fromUtf8(running.process->readLine()).trimmed();
    const auto match
        = QRegularExpression(QStringLiteral("^listening on (http://127\\.0\\.0\\.1:\\d+/mcp)$")).match(line);
    if (match.hasMatch())
        running.url = QUrl(match.captured(1));
    else
        qWarning() << "first line was" << line << running.process->readAllStandardError();
    return running;
}

struct Reply
{
    int status = 0;
    QByteArray body;
    QByteArray sessionId;
};

// A POST to the MCP endpoint: JSON, the token and the session when given.
QNetworkRequest mcpRequest(const QUrl& url, const QByteArray& token, const QByteArray& session = {})
{
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token);
    if (!session.isEmpty())
        request.setRawHeader("Mcp-Session-Id", session);
    return request;
}

Reply post(QNetworkAccessManager& network, const QUrl& url, const QByteArray& body, const QByteArray& token,
    const QByteArray& session = {})
{
    QNetworkReply* reply = network.post(mcpRequest(url, token, session), body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    finished.wait(15'000);
    Reply result;
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    result.sessionId = reply->rawHeader("Mcp-Session-Id");
    reply->deleteLater();
    return result;
}

QByteArray openSession(QNetworkAccessManager& network, const QUrl& url, const QByteArray& token)
{
    const Reply init = post(network, url,
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"process-test","version":"2"}}})",
        token);
    post(network, url, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", token, init.sessionId);
    return init.sessionId;
}

// Reads stdout until a line matches, or times out.
QString waitForLine(QProcess& process, const QRegularExpression& pattern, QString* seen)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15'000) {
        while (process.canReadLine()) {
            const QString line = QString::fromUtf8(process.readLine());
            *seen += line;
            if (pattern.match(line).hasMatch())
                return line.trimmed();
        }
        // Requests this test has in flight need the event loop to make progress meanwhile.
        QCoreApplication::processEvents();
        process.waitForReadyRead(50);
    }
    return {};
}

bool stopWithSigterm(QProcess& process, int* exitCode)
{
    ::kill(pid_t(process.processId()), SIGTERM);
    if (!process.waitForFinished(15'000))
        return false;
    *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return true;
}

} // namespace

class TestSwitchboardProcess : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void headlessServesAndLogsEveryCall();
    void headlessLinesNeitherLeakTheTokenNorBreak();
    void historySurvivesARestart();
    void generatedTokenIsStoredOwnerOnly();
    void pendingQuestionSurvivesARestart();
    void mistypedStateFileIsSetAside_data();
    void mistypedStateFileIsSetAside();
    void noAuthWarnsLoudly();
    void nonLoopbackBindWarns();
    void noDisplayFallsBackToHeadless_data();
    void noDisplayFallsBackToHeadless();
    void headlessLoadsNoGuiLibrary();
    void windowIsTheConsoleInTheSameProcess();
    void aSignalEndsTheWindowWithAQuestionPending();
    void badInvocations_data();
    void badInvocations();
    void busyPortIsAClearError();
    void idleCrowdAtTheDescriptorLimitLocksNobodyOut();

private:
    QTemporaryDir m_dir;
};

void TestSwitchboardProcess::headlessServesAndLogsEveryCall()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    const QString state = m_dir.filePath(QStringLiteral("state"));
    Running running = start(
        {QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--state-dir"),
            state, QStringLiteral("--config"), m_dir.filePath(QStringLiteral("none.yaml"))},
        environment);
    QVERIFY(running.url.isValid());

    QNetworkAccessManager network;
    const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
    QVERIFY(!session.isEmpty());
    const Reply echo = post(network, running.url,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"sb_process-test-token-0123456789abcdef is secret"}}})",
        "sb_process-test-token-0123456789abcdef", session);
    QCOMPARE(echo.status, 200);
    const Reply unknown
        = post(network, running.url, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ecoh"}})",
            "sb_process-test-token-0123456789abcdef", session);
    QCOMPARE(unknown.status, 200);

    QString seen;
    QVERIFY2(!waitForLine(*running.process,
                 QRegularExpression(QStringLiteral(
                     R"(^\d\d:\d\d:\d\d\.\d{3} #\d+ ok echo via builtin in [\d.]+ ms from process-test 2$)")),
                 &seen)
                  .isEmpty(),
        qPrintable(seen));
    QVERIFY2(
        !waitForLine(*running.process,
            QRegularExpression(QStringLiteral(R"(#\d+ unknown_tool ecoh via unknown .*Closest matches: echo)")), &seen)
             .isEmpty(),
        qPrintable(seen));
    QVERIFY(!seen.contains(QStringLiteral("sb_process-test-token-0123456789abcdef")));

    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
    const QString errors = QString::fromUtf8(running.process->readAllStandardError());
    QVERIFY2(errors.contains(QStringLiteral("token from SWITCHBOARD_TOKEN")), qPrintable(errors));
    QVERIFY(!errors.contains(QStringLiteral("sb_process-test-token-0123456789abcdef")));
}

// Names and messages come from clients: one that is the token is redacted, one with a newline
// or a terminal escape cannot forge or garble a line.
void TestSwitchboardProcess::headlessLinesNeitherLeakTheTokenNorBreak()
{
    const QByteArray token = "sb_process-test-token-0123456789abcdef";
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(token));
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("lines"))},
        environment);
    QVERIFY(running.url.isValid());
    QNetworkAccessManager network;
    const Reply init = post(network, running.url,
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
        R"("clientInfo":{"name":"sb_process-test-token-0123456789abcde\u0066","version":"\u001b[31mred"}}})",
        token);
    QCOMPARE(init.status, 200);
    post(network, running.url, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", token, init.sessionId);
    QCOMPARE(
        post(network, running.url,
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sb_process-test-token-0123456789abcdef"}})",
            token, init.sessionId)
            .status,
        200);
    QCOMPARE(
        post(network, running.url,
            R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x\n00:00:00.000 #99 ok forged via builtin"}})",
            token, init.sessionId)
            .status,
        200);

    QString seen;
    QVERIFY2(
        !waitForLine(*running.process,
            QRegularExpression(QStringLiteral(
                R"(^\d\d:\d\d:\d\d\.\d{3} #1 unknown_tool \[redacted\] via unknown in [\d.]+ ms from \[redacted\] \\x1b\[31mred: )")),
            &seen)
             .isEmpty(),
        qPrintable(seen));
    QVERIFY2(
        !waitForLine(*running.process,
            QRegularExpression(QStringLiteral(
                R"(^\d\d:\d\d:\d\d\.\d{3} #2 unknown_tool x\\n00:00:00\.000 #99 ok forged via builtin via unknown )")),
            &seen)
             .isEmpty(),
        qPrintable(seen));
    for (const QString& line : seen.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        QVERIFY2(!line.startsWith(QStringLiteral("00:00:00.000 #99")), qPrintable(seen)); // no forged line
    QVERIFY(!seen.contains(QChar(0x1b)));
    QVERIFY(!seen.contains(QString::fromLatin1(token)));
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
}

void TestSwitchboardProcess::historySurvivesARestart()
{
    // Uses the state the previous test left behind.
    const QString state = m_dir.filePath(QStringLiteral("state"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), state},
        environment);
    QVERIFY(running.url.isValid());
    QNetworkAccessManager network;
    const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
    post(network, running.url,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"after":"restart"}}})",
        "sb_process-test-token-0123456789abcdef", session);
    QString seen;
    const QString line = waitForLine(*running.process, QRegularExpression(QStringLiteral("ok echo")), &seen);
    // Ids go on growing after the first run's two calls (each run reserves a block of its own, so the
    // next is not simply 3).
    const QRegularExpressionMatch id = QRegularExpression(QStringLiteral(R"( #(\d+) )")).match(line);
    QVERIFY2(id.hasMatch(), qPrintable(line));
    QVERIFY2(id.captured(1).toLongLong() > 2, qPrintable(line));
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);

    HistoryStore store(QDir(state).filePath(QStringLiteral("history.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    QSignalSpy answered(&store, &HistoryStore::queryFinished);
    store.loadRecent(1, 10);
    const auto calls = answered.first().at(1).value<ToolCallList>();
    QCOMPARE(calls.size(), 3);
    QCOMPARE(calls.at(0).tool, QStringLiteral("echo"));
    QCOMPARE(calls.at(0).status, CallStatus::Ok);
    QVERIFY(calls.at(0).request.contains("[redacted] is secret")); // the token never reaches history
    QCOMPARE(calls.at(1).tool, QStringLiteral("ecoh"));
    QCOMPARE(calls.at(1).status, CallStatus::UnknownTool);
    QVERIFY(calls.at(2).request.contains("restart"));
}

void TestSwitchboardProcess::pendingQuestionSurvivesARestart()
{
    const QString state = m_dir.filePath(QStringLiteral("questions"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    // Progress every second, so a held call shows that it waits.
    QVERIFY(QDir().mkpath(state));
    const QString config = QDir(state).filePath(QStringLiteral("switchboard.yaml"));
    QFile configFile(config);
    QVERIFY(configFile.open(QIODevice::WriteOnly));
    configFile.write("interaction:\n  progressIntervalSeconds: 1\n");
    configFile.close();
    const QStringList arguments{QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
        QStringLiteral("--state-dir"), state, QStringLiteral("--config"), config};
    const QByteArray call
        = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"request_connection","arguments":{"provider":"github","kind":"api_key","reason":"read issues"}}})";
    QString interactionId;
    {
        Running running = start(arguments, environment);
        QVERIFY(running.url.isValid());
        QNetworkAccessManager network;
        const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
        const QNetworkRequest request = mcpRequest(running.url, "sb_process-test-token-0123456789abcdef", session);
        QNetworkReply* waiting = network.post(request, call); // held open until someone answers
        QString seen;
        const QString line = waitForLine(
            *running.process, QRegularExpression(QStringLiteral("^question ia-[0-9a-f]+ pending: ")), &seen);
        QVERIFY2(!line.isEmpty(), qPrintable(seen));
        QVERIFY(line.contains(QStringLiteral("request_connection for process-test")));
        interactionId = line.section(QLatin1Char(' '), 1, 1);
        int exitCode = -2;
        QVERIFY(stopWithSigterm(*running.process, &exitCode));
        QCOMPARE(exitCode, 0);
        QSignalSpy finished(waiting, &QNetworkReply::finished);
        QVERIFY(waiting->isFinished() || finished.wait(15'000)); // the call ended with the process
        waiting->deleteLater();
    }
    const QString stateFile = QDir(state).filePath(QStringLiteral("workspace.json"));
    QFile file(stateFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains(interactionId.toUtf8()));
    QCOMPARE(file.permissions() & 0x0077, QFileDevice::Permissions()); // no group or other access

    // After the restart the question is still pending, unanswered, and the console says so.
    Running running = start(arguments, environment);
    QVERIFY(running.url.isValid());
    QString seen;
    const QString line = waitForLine(
        *running.process, QRegularExpression(QStringLiteral("^question .* pending from before the restart")), &seen);
    QVERIFY2(line.startsWith(QStringLiteral("question ") + interactionId), qPrintable(seen));
    // The retried call waits on the same question instead of getting an answer no one gave.
    QNetworkAccessManager network;
    const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
    const QNetworkRequest request = mcpRequest(running.url, "sb_process-test-token-0123456789abcdef", session);
    QByteArray withProgress = call;
    withProgress.replace(R"("arguments":)", R"("_meta":{"progressToken":"retry"},"arguments":)");
    QNetworkReply* retried = network.post(request, withProgress);
    // Progress for the retried call says it waits (on the question it found, or on a new one).
    QByteArray streamed;
    QTRY_VERIFY_WITH_TIMEOUT((streamed += retried->readAll()).contains("waiting for a person"), 30'000);
    QVERIFY(!retried->isFinished());
    // A call after it is logged after anything the retried call made the console print: had it
    // raised a second question, its "pending" line would come first.
    post(network, running.url,
        R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"after":"retry"}}})",
        "sb_process-test-token-0123456789abcdef", session);
    QString afterRestart;
    QVERIFY2(!waitForLine(*running.process, QRegularExpression(QStringLiteral(" ok echo ")), &afterRestart).isEmpty(),
        qPrintable(afterRestart));
    QVERIFY2(!afterRestart.contains(QStringLiteral(" pending: ")), qPrintable(afterRestart)); // no second question
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
    QFile after(stateFile);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QVERIFY(after.readAll().contains(interactionId.toUtf8()));
    retried->deleteLater();
}

void TestSwitchboardProcess::mistypedStateFileIsSetAside_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::newRow("version is a string") << QByteArray(R"({"version":"1"})");
    QTest::newRow("interactionId is a number")
        << QByteArray(R"({"version":1,"clientOutputs":[{"key":"k","outputs":[{"output":"{}","interactionId":5}]}]})");
    QTest::newRow("pending is an object") << QByteArray(R"({"version":1,"pending":{}})");
    QTest::newRow("alwaysAllow is a string") << QByteArray(R"({"version":1,"approvals":{"alwaysAllow":"echo"}})");
}

void TestSwitchboardProcess::mistypedStateFileIsSetAside()
{
    QFETCH(QByteArray, contents);
    const QString state = m_dir.filePath(QStringLiteral("mistyped-") + QString::fromLatin1(QTest::currentDataTag()));
    QVERIFY(QDir().mkpath(state));
    const QString stateFile = QDir(state).filePath(QStringLiteral("workspace.json"));
    {
        QFile file(stateFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), state},
        environment);
    QVERIFY2(running.url.isValid(), "the binary must start despite the state file");
    QNetworkAccessManager network;
    QVERIFY(!openSession(network, running.url, "sb_process-test-token-0123456789abcdef").isEmpty());
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
    const QString errors = QString::fromUtf8(running.process->readAllStandardError());
    QVERIFY2(errors.contains(QStringLiteral("could not be read")) && errors.contains(QStringLiteral("kept as")),
        qPrintable(errors));
    const QStringList aside = QDir(state).entryList({QStringLiteral("workspace.json.unreadable-*")}, QDir::Files);
    QCOMPARE(aside.size(), 1);
    QFile kept(QDir(state).filePath(aside.front()));
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), contents);
}

void TestSwitchboardProcess::generatedTokenIsStoredOwnerOnly()
{
    const QString state = m_dir.filePath(QStringLiteral("generated"));
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), state},
        environmentWithout({QStringLiteral("SWITCHBOARD_TOKEN")}));
    QVERIFY(running.url.isValid());
    const QString tokenPath = QDir(state).filePath(QStringLiteral("token"));
    struct stat info = {};
    QCOMPARE(::stat(QFile::encodeName(tokenPath).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, mode_t(0600));
    QFile file(tokenPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray token = file.readAll().trimmed();
    QNetworkAccessManager network;
    QCOMPARE(post(network, running.url,
                 R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})", {})
                 .status,
        401);
    QVERIFY(!openSession(network, running.url, token).isEmpty());
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
    QVERIFY(
        QString::fromUtf8(running.process->readAllStandardError()).contains(QStringLiteral("generated and stored in")));
}

void TestSwitchboardProcess::noAuthWarnsLoudly()
{
    Running running = start(
        {QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--no-auth"),
            QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("noauth"))},
        QProcessEnvironment::systemEnvironment());
    QVERIFY(running.url.isValid());
    QNetworkAccessManager network;
    QVERIFY(!openSession(network, running.url, {}).isEmpty());
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QVERIFY(QString::fromUtf8(running.process->readAllStandardError()).contains(QStringLiteral("WARNING: --no-auth")));
}

void TestSwitchboardProcess::nonLoopbackBindWarns()
{
    Running running
        = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--bind"),
                    QStringLiteral("0.0.0.0"), QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("bind"))},
            QProcessEnvironment::systemEnvironment());
    QVERIFY(running.url.isValid());
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QVERIFY(QString::fromUtf8(running.process->readAllStandardError())
                .contains(QStringLiteral("WARNING: listening on 0.0.0.0, not loopback")));
}

void TestSwitchboardProcess::noDisplayFallsBackToHeadless_data()
{
    QTest::addColumn<bool>("setButEmpty");
    QTest::newRow("unset") << false;
    // DISPLAY= used to count as a display: the window was started and QApplication aborted.
    QTest::newRow("set but empty") << true;
}

void TestSwitchboardProcess::noDisplayFallsBackToHeadless()
{
    QFETCH(bool, setButEmpty);
    QProcessEnvironment environment = environmentWithout(
        {QStringLiteral("DISPLAY"), QStringLiteral("WAYLAND_DISPLAY"), QStringLiteral("QT_QPA_PLATFORM")});
    if (setButEmpty) {
        environment.insert(QStringLiteral("DISPLAY"), QString());
        environment.insert(QStringLiteral("WAYLAND_DISPLAY"), QString());
    }
    Running running
        = start({QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--state-dir"),
                    m_dir.filePath(setButEmpty ? QStringLiteral("emptydisplay") : QStringLiteral("nodisplay"))},
            environment);
    QVERIFY(running.url.isValid());
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
    QVERIFY(QString::fromUtf8(running.process->readAllStandardError()).contains(QStringLiteral("no display found")));
}

namespace {

QByteArray memoryMap(const QProcess& process)
{
    QFile maps(QStringLiteral("/proc/%1/maps").arg(process.processId()));
    return maps.open(QIODevice::ReadOnly) ? maps.readAll() : QByteArray();
}

} // namespace

// `switchboard` links no GUI library: what runs without a window (headless, and later the one-shot
// tool runner) starts without loading Qt Gui or Widgets.
void TestSwitchboardProcess::headlessLoadsNoGuiLibrary()
{
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("nogui"))},
        QProcessEnvironment::systemEnvironment());
    QVERIFY(running.url.isValid());
    const QByteArray maps = memoryMap(*running.process);
    QVERIFY(maps.contains("libQt6Core"));
    QVERIFY2(!maps.contains("libQt6Gui") && !maps.contains("libQt6Widgets"), "a GUI library is loaded");
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
}

// With a display the command becomes switchboard-console (exec: the same process id, so whatever
// started it can still stop it) and serves as before.
void TestSwitchboardProcess::windowIsTheConsoleInTheSameProcess()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    Running running = start({QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--state-dir"),
                                m_dir.filePath(QStringLiteral("window"))},
        environment);
    QVERIFY(running.url.isValid());
    const QString executable
        = QFileInfo(QStringLiteral("/proc/%1/exe").arg(running.process->processId())).symLinkTarget();
    QVERIFY2(executable.endsWith(QLatin1String("/switchboard-console")), qPrintable(executable));
    QVERIFY(memoryMap(*running.process).contains("libQt6Widgets"));
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
}

// SIGTERM (a logout, systemd, kill) ends the windowed console with a question pending, as it ends a
// headless one: the window's Quit asks first, a signal does not wait for anyone. Before, the signal
// went through the window's close, which asked, and the process lived on with the dialog open.
void TestSwitchboardProcess::aSignalEndsTheWindowWithAQuestionPending()
{
    const QString state = m_dir.filePath(QStringLiteral("signal"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    Running running
        = start({QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--state-dir"), state}, environment);
    QVERIFY(running.url.isValid());
    QNetworkAccessManager network;
    const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
    const QNetworkRequest request = mcpRequest(running.url, "sb_process-test-token-0123456789abcdef", session);
    QNetworkReply* waiting = network.post(request,
        R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"request_connection",)"
        R"("arguments":{"provider":"github","kind":"api_key","reason":"read issues"}}})");
    // Pending once the workspace state holds the question.
    const QString stateFile = QDir(state).filePath(QStringLiteral("workspace.json"));
    const auto pending = [&] {
        QFile file(stateFile);
        return file.open(QIODevice::ReadOnly) && file.readAll().contains("\"ia-");
    };
    QTRY_VERIFY_WITH_TIMEOUT(pending(), 15'000);
    QVERIFY(!waiting->isFinished());
    int exitCode = -2;
    QVERIFY2(stopWithSigterm(*running.process, &exitCode), "still running 15 s after SIGTERM");
    QCOMPARE(exitCode, 0);
    // The held client heard why: a tool error, not a dropped connection.
    QSignalSpy finished(waiting, &QNetworkReply::finished);
    QVERIFY(waiting->isFinished() || finished.wait(15'000));
    const QByteArray body = waiting->readAll();
    QVERIFY2(body.contains("\"isError\":true"), body.constData());
    waiting->deleteLater();
}

void TestSwitchboardProcess::badInvocations_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("token"); // SWITCHBOARD_TOKEN; unset when empty
    QTest::newRow("port not a number") << QStringList{QStringLiteral("--port"), QStringLiteral("eighty")}
                                       << QByteArray() << 2 << QStringLiteral("--port must be a number") << QString();
    QTest::newRow("bind not an address") << QStringList{QStringLiteral("--bind"), QStringLiteral("example.com")}
                                         << QByteArray() << 2 << QStringLiteral("not an IP address") << QString();
    QTest::newRow("config error") << QStringList() << QByteArray("server:\n  port: [1\n") << 2
                                  << QStringLiteral("config.yaml:") << QString();
    QTest::newRow("config type") << QStringList() << QByteArray("server:\n  port: high\n") << 2
                                 << QStringLiteral("config.yaml:2: server.port must be a number") << QString();
    QTest::newRow("short token") << QStringList() << QByteArray() << 2
                                 << QStringLiteral("SWITCHBOARD_TOKEN is 21 characters long; a token needs at least 32")
                                 << QStringLiteral("sb_process-test-token");
    QTest::newRow("token with a space") << QStringList() << QByteArray() << 2
                                        << QStringLiteral("SWITCHBOARD_TOKEN contains whitespace")
                                        << QStringLiteral("sb_process-test-token 0123456789abcdef");
    // These aborted (exit 134), crashed or were ignored (issue 8, item 15).
    QTest::newRow("config complex key") << QStringList() << QByteArray("? [a, b]\n: 1\n") << 2
                                        << QStringLiteral("config.yaml:1: the document has a key that is a list")
                                        << QString();
    QTest::newRow("config recursive anchor")
        << QStringList() << QByteArray("clientTools:\n  - name: t\n    inputSchema: &s {properties: {p: *s}}\n") << 2
        << QStringLiteral("config.yaml:3: clientTools[0].inputSchema.properties.p contains itself") << QString();
    QTest::newRow("config section type") << QStringList() << QByteArray("server: 5\n") << 2
                                         << QStringLiteral("config.yaml:1: server must be a mapping") << QString();
    // A word the command line does not expect is an error naming it, never a server started with
    // the word ignored (`switchboard --state-dir X tool echo` served on port 8765).
    QTest::newRow("tool after options") << QStringList{QStringLiteral("--port"), QStringLiteral("0"),
        QStringLiteral("tool"), QStringLiteral("echo")}
                                        << QByteArray() << 2 << QStringLiteral("unexpected argument \"tool\"")
                                        << QString();
    QTest::newRow("stray word") << QStringList{QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("serve")}
                                << QByteArray() << 2 << QStringLiteral("unexpected argument \"serve\"") << QString();
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--port"), QStringLiteral("0"),
        QStringLiteral("--frobnicate")}
                                    << QByteArray() << 2 << QStringLiteral("frobnicate") << QString();
    QTest::newRow("client tool schema that cannot be checked")
        << QStringList() << QByteArray("clientTools:\n  - name: t\n    inputSchema: {prefixItems: []}\n") << 1
        << QStringLiteral("clientTools: tool \"t\": inputSchema cannot be checked: keyword \"prefixItems\"")
        << QString();
}

void TestSwitchboardProcess::badInvocations()
{
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, config);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QFETCH(QString, token);
    const QString configPath = m_dir.filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(config);
    file.close();
    QProcess process;
    QProcessEnvironment environment = environmentWithout({QStringLiteral("SWITCHBOARD_TOKEN")});
    if (!token.isEmpty())
        environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), token);
    process.setProcessEnvironment(environment);
    process.start(TestPaths::switchboardBinary(),
        QStringList{QStringLiteral("--headless"), QStringLiteral("--config"), configPath, QStringLiteral("--state-dir"),
            m_dir.filePath(QStringLiteral("bad"))}
            + arguments);
    QVERIFY(process.waitForFinished(15'000));
    QCOMPARE(process.exitCode(), exitCode);
    const QString errors = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(errors.contains(message), qPrintable(errors));
}

void TestSwitchboardProcess::busyPortIsAClearError()
{
    Running first = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                              QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("busy1"))},
        QProcessEnvironment::systemEnvironment());
    QVERIFY(first.url.isValid());
    QProcess second;
    second.start(TestPaths::switchboardBinary(),
        {QStringLiteral("--headless"), QStringLiteral("--port"), QString::number(first.url.port()),
            QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("busy2")), QStringLiteral("--config"),
            QStringLiteral("/nonexistent/switchboard-test.yaml")});
    QVERIFY(second.waitForFinished(15'000));
    QCOMPARE(second.exitCode(), 1);
    QVERIFY(QString::fromUtf8(second.readAllStandardError())
                .contains(QStringLiteral("cannot listen on 127.0.0.1 port %1").arg(first.url.port())));
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*first.process, &exitCode));
}

void TestSwitchboardProcess::idleCrowdAtTheDescriptorLimitLocksNobodyOut()
{
    // 1,100 idle connections against a server limited to 1,024 open files (soft and hard): it
    // keeps descriptors in reserve, lets the connections idle the longest make room, and every
    // new client is still served (before, accept() failed with EMFILE and nobody got in again).
    rlimit own{};
    QVERIFY(getrlimit(RLIMIT_NOFILE, &own) == 0);
    if (own.rlim_cur < 2048 && own.rlim_max >= 2048) {
        own.rlim_cur = 2048;
        QVERIFY(setrlimit(RLIMIT_NOFILE, &own) == 0);
    }
    QVERIFY2(own.rlim_cur >= 2048, "this test needs 2,048 open files for its side of the connections");

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QStringLiteral("sb_process-test-token-0123456789abcdef"));
    Running running = start({QStringLiteral("--headless"), QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--state-dir"), m_dir.filePath(QStringLiteral("crowd-state")),
                                QStringLiteral("--config"), m_dir.filePath(QStringLiteral("none.yaml"))},
        environment, [] {
            const rlimit limit{1024, 1024};
            ::setrlimit(RLIMIT_NOFILE, &limit);
        });
    QVERIFY(running.url.isValid());

    std::vector<std::unique_ptr<QTcpSocket>> crowd;
    for (int i = 0; i < 1100; ++i) {
        crowd.push_back(std::make_unique<QTcpSocket>());
        crowd.back()->connectToHost(running.url.host(), quint16(running.url.port()));
        QVERIFY(crowd.back()->waitForConnected(10'000));
    }
    QNetworkAccessManager network;
    for (int i = 0; i < 3; ++i) {
        const QByteArray session = openSession(network, running.url, "sb_process-test-token-0123456789abcdef");
        QVERIFY2(!session.isEmpty(), "a new client was locked out");
        const Reply ping = post(network, running.url, R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
            "sb_process-test-token-0123456789abcdef", session);
        QCOMPARE(ping.status, 200);
    }
    crowd.clear();
    int exitCode = -2;
    QVERIFY(stopWithSigterm(*running.process, &exitCode));
    QCOMPARE(exitCode, 0);
}

QTEST_GUILESS_MAIN(TestSwitchboardProcess)
#include "tst_switchboardprocess.moc"
