// The operator's command line end to end (issue 26): the built `switchboard --headless` serves an
// MCP client whose calls wait for a person, and `switchboard questions` and `switchboard answer`,
// run as processes the way a person on another terminal runs them, see the questions and answer
// them through the operator API. A held call gets its result once answered; a parked call's answer
// is stored ("stored") and the client's retry takes it; deny gives the client the reason;
// always_allow with a scope makes a grant that `switchboard grants` lists and `grant revoke` ends; a
// connect question takes its API key from stdin and no output shows it; status, history and grants
// read the same server; a wrong, missing or MCP client token and a server that is not there exit 3 and
// say why.

#include "boundedjson.h"
#include "testpaths.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using nlohmann::json;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

json parsed(const QByteArray& text)
{
    return BoundedJson::parse(text, BoundedJson::Limits::record()).value;
}

QList<json> jsonLines(const QByteArray& text)
{
    QList<json> lines;
    for (const QByteArray& line : text.split('\n')) {
        if (!line.isEmpty())
            lines.append(parsed(line));
    }
    return lines;
}

QString str(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// A port that was free a moment ago: the server is started with it in its configuration, so that
// the commands find it there without --attach.
quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress(QHostAddress::LocalHost), 0);
    return probe.serverPort();
}

// The environment of the server and of the commands: none of the user's Switchboard variables.
QProcessEnvironment cleanEnvironment()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"SWITCHBOARD_ATTACH", "SWITCHBOARD_OPERATOR_TOKEN", "SWITCHBOARD_TOKEN"})
        environment.remove(QString::fromLatin1(name));
    return environment;
}

} // namespace

class TestOperatorCommandE2e : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void aHeldCallIsAnsweredFromTheCommandLine();
    void aParkedCallsAnswerIsStoredForTheRetry();
    void denyGivesTheClientTheReason();
    void alwaysAllowMakesAGrantThatIsRevoked();
    void aConnectQuestionTakesItsKeyFromStdin();
    void statusHistoryAndGrants();
    void aWrongTokenExits3AndSaysWhy();

private:
    // Runs `switchboard WORDS…` against the server: its state directory, and its configuration
    // (for the port) unless --attach is among the words.
    Run command(const QStringList& words, const QByteArray& input = {},
        const QProcessEnvironment& environment = cleanEnvironment());
    // An MCP session of a client named `client`; its id.
    QByteArray openSession(const QString& client);
    // Starts a tools/call of `tool` in `session`; the reply is left running.
    QNetworkReply* startCall(const QByteArray& session, int id, const char* tool, const json& arguments);
    // The JSON-RPC message answering request `id` in what a reply brought (JSON, or an event stream).
    static json responseTo(const QByteArray& body, int id);
    // Waits until `switchboard questions --json` lists a question of `tool` asked by `client`.
    json waitForQuestion(const QString& client, const QString& tool);

    QTemporaryDir m_directory;
    QString m_config;
    QString m_stateDir;
    quint16 m_port = 0;
    QUrl m_mcpUrl;
    QByteArray m_clientToken;
    std::unique_ptr<QProcess> m_server;
    QNetworkAccessManager m_network;
};

void TestOperatorCommandE2e::initTestCase()
{
    QVERIFY(m_directory.isValid());
    m_stateDir = m_directory.filePath(QStringLiteral("state"));
    m_config = m_directory.filePath(QStringLiteral("switchboard.yaml"));
    m_port = freePort();
    QVERIFY(m_port != 0);
    // echo asks (it is read-only, so it would run without); "parker" is an agent runner whose calls
    // park; secrets go to a file (no keychain in CI).
    QFile config(m_config);
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("server:\n"
                 "  port: "
        + QByteArray::number(m_port)
        + "\n"
          "permissions:\n"
          "  tools: {echo: ask}\n"
          "interaction:\n"
          "  clients: {parker: park}\n"
          "secrets: file\n");
    config.close();

    m_server = std::make_unique<QProcess>();
    m_server->setProcessEnvironment(cleanEnvironment());
    m_server->setProcessChannelMode(QProcess::SeparateChannels);
    m_server->start(TestPaths::switchboardBinary(),
        {QStringLiteral("--headless"), QStringLiteral("--config"), m_config, QStringLiteral("--state-dir"),
            m_stateDir});
    QVERIFY(m_server->waitForStarted(10'000));
    QElapsedTimer clock;
    clock.start();
    while (!m_server->canReadLine() && clock.elapsed() < 20'000 && m_server->state() == QProcess::Running)
        m_server->waitForReadyRead(200);
    const QString first = QString::fromUtf8(m_server->readLine()).trimmed();
    const QRegularExpressionMatch match
        = QRegularExpression(QStringLiteral("^listening on (http://127\\.0\\.0\\.1:\\d+/mcp)$")).match(first);
    QVERIFY2(match.hasMatch(), qPrintable(first + QString::fromUtf8(m_server->readAllStandardError())));
    m_mcpUrl = QUrl(match.captured(1));
    QCOMPARE(m_mcpUrl.port(), int(m_port));
    QFile token(QDir(m_stateDir).filePath(QStringLiteral("token")));
    QVERIFY(token.open(QIODevice::ReadOnly));
    m_clientToken = token.readAll().trimmed();
    QVERIFY(QFile::exists(QDir(m_stateDir).filePath(QStringLiteral("operator-token"))));
}

void TestOperatorCommandE2e::cleanupTestCase()
{
    if (m_server && m_server->state() == QProcess::Running) {
        m_server->terminate();
        if (!m_server->waitForFinished(15'000))
            m_server->kill();
    }
}

Run TestOperatorCommandE2e::command(
    const QStringList& words, const QByteArray& input, const QProcessEnvironment& environment)
{
    QStringList arguments = words;
    if (!words.contains(QStringLiteral("--state-dir")))
        arguments << QStringLiteral("--state-dir") << m_stateDir;
    if (!words.contains(QStringLiteral("--attach")))
        arguments << QStringLiteral("--config") << m_config;
    QProcess process;
    process.setProcessEnvironment(environment);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(TestPaths::switchboardBinary(), arguments);
    Run run;
    if (!process.waitForStarted(10'000))
        return run;
    process.write(input);
    process.closeWriteChannel();
    // An event loop meanwhile: this test's own calls in flight go on.
    if (!finished.wait(60'000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QByteArray TestOperatorCommandE2e::openSession(const QString& client)
{
    QNetworkRequest request(m_mcpUrl);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    request.setRawHeader("Authorization", "Bearer " + m_clientToken);
    const json initialize{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
        {"params",
            {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                {"clientInfo", {{"name", client.toStdString()}, {"version", "1"}}}}}};
    QNetworkReply* reply = m_network.post(request, QByteArray::fromStdString(initialize.dump()));
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        done.wait(15'000);
    const QByteArray session = reply->rawHeader("Mcp-Session-Id");
    reply->deleteLater();
    request.setRawHeader("Mcp-Session-Id", session);
    QNetworkReply* initialized
        = m_network.post(request, QByteArrayLiteral(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    QSignalSpy initializedDone(initialized, &QNetworkReply::finished);
    if (!initialized->isFinished())
        initializedDone.wait(15'000);
    initialized->deleteLater();
    return session;
}

QNetworkReply* TestOperatorCommandE2e::startCall(
    const QByteArray& session, int id, const char* tool, const json& arguments)
{
    QNetworkRequest request(m_mcpUrl);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("Accept", "application/json, text/event-stream");
    request.setRawHeader("Authorization", "Bearer " + m_clientToken);
    request.setRawHeader("Mcp-Session-Id", session);
    request.setRawHeader("MCP-Protocol-Version", "2025-06-18");
    const json call{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
        {"params", {{"name", tool}, {"arguments", arguments}}}};
    return m_network.post(request, QByteArray::fromStdString(call.dump()));
}

json TestOperatorCommandE2e::responseTo(const QByteArray& body, int id)
{
    const json whole = parsed(body);
    if (whole.is_object())
        return whole;
    json found;
    for (const QByteArray& line : body.split('\n')) {
        if (!line.startsWith("data:"))
            continue;
        const json message = parsed(line.mid(5).trimmed());
        if (message.is_object() && message.value("id", json()) == json(id))
            found = message;
    }
    return found;
}

json TestOperatorCommandE2e::waitForQuestion(const QString& client, const QString& tool)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 20'000) {
        const Run listed = command({QStringLiteral("questions"), QStringLiteral("--json")});
        if (listed.exitCode != 0) {
            qWarning() << "questions failed:" << listed.exitCode << listed.err;
            return {};
        }
        for (const json& question : jsonLines(listed.out)) {
            if (str(question, "client") == client && str(question, "tool") == tool)
                return question;
        }
        QTest::qWait(200);
    }
    return {};
}

void TestOperatorCommandE2e::aHeldCallIsAnsweredFromTheCommandLine()
{
    const QByteArray session = openSession(QStringLiteral("holder"));
    QVERIFY(!session.isEmpty());
    QPointer<QNetworkReply> held = startCall(session, 7, "echo", json{{"message", "held for a person"}});

    const json question = waitForQuestion(QStringLiteral("holder"), QStringLiteral("echo"));
    QVERIFY2(question.is_object(), "no question of holder's echo call was listed");
    const QString id = str(question, "id");
    QVERIFY2(id.startsWith(QLatin1String("ia-")), qPrintable(id));
    QCOMPARE(str(question, "kind"), QStringLiteral("approval"));
    QCOMPARE(str(question, "mode"), QStringLiteral("hold"));
    QVERIFY2(str(question, "arguments").contains(QLatin1String("held for a person")), question.dump().c_str());
    QVERIFY(question.at("waitingSinceMs").get<qint64>() > 0);
    QVERIFY(str(question, "waitingSince").endsWith(QLatin1Char('Z')));
    QVERIFY(question.at("answers") == json({"allow_once", "allow_session", "always_allow", "deny"}));
    QVERIFY(!held->isFinished()); // still waiting

    // The table a person reads lists it too.
    const Run table = command({QStringLiteral("questions")});
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.startsWith("ID ") && table.out.contains(id.toUtf8()) && table.out.contains("holder"),
        table.out.constData());

    // --attach with the MCP URL, as the server printed it.
    const Run answered = command(
        {QStringLiteral("answer"), id, QStringLiteral("allow_once"), QStringLiteral("--attach"), m_mcpUrl.toString()});
    QVERIFY2(answered.exitCode == 0, answered.err.constData());
    QCOMPARE(answered.out,
        QByteArray(
            "answered " + id.toUtf8() + " with allow_once: the waiting call has it (recorded as operator:default)\n"));

    QSignalSpy done(held.data(), &QNetworkReply::finished);
    QVERIFY(held->isFinished() || done.wait(15'000));
    QCOMPARE(held->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    const json response = responseTo(held->readAll(), 7);
    held->deleteLater();
    QVERIFY2(response.contains("result"), response.dump().c_str());
    QVERIFY(!response.at("result").value("isError", false));
    QVERIFY(response.at("result").at("structuredContent") == json({{"message", "held for a person"}}));

    // Answered: it is gone, and answering again says so.
    const Run again = command({QStringLiteral("answer"), id, QStringLiteral("allow_once")});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains(QByteArray("no question " + id.toUtf8() + ": answered already or never asked")),
        again.err.constData());
    const Run none = command({QStringLiteral("questions"), QStringLiteral("--json")});
    QCOMPARE(none.exitCode, 0);
    for (const json& left : jsonLines(none.out))
        QVERIFY(str(left, "id") != id);
}

void TestOperatorCommandE2e::aParkedCallsAnswerIsStoredForTheRetry()
{
    const QByteArray session = openSession(QStringLiteral("parker"));
    QVERIFY(!session.isEmpty());
    const json arguments{{"message", "parked until answered"}};
    QNetworkReply* parked = startCall(session, 8, "echo", arguments);
    QSignalSpy closed(parked, &QNetworkReply::finished);
    QVERIFY(parked->isFinished() || closed.wait(15'000));
    // Parked: the connection closes with no answer at all.
    QVERIFY(!parked->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid());
    parked->deleteLater();

    const json question = waitForQuestion(QStringLiteral("parker"), QStringLiteral("echo"));
    QVERIFY2(question.is_object(), "no question of parker's echo call was listed");
    QCOMPARE(str(question, "mode"), QStringLiteral("park"));
    const QString id = str(question, "id");

    const Run answered = command({QStringLiteral("answer"), id, QStringLiteral("allow_once")});
    QVERIFY2(answered.exitCode == 0, answered.err.constData());
    QVERIFY2(answered.out.contains("no call was waiting; the answer is kept for the client's next identical call"),
        answered.out.constData());

    // The retry takes the stored answer and runs at once.
    QNetworkReply* retry = startCall(session, 9, "echo", arguments);
    QSignalSpy done(retry, &QNetworkReply::finished);
    QVERIFY(retry->isFinished() || done.wait(15'000));
    const json response = responseTo(retry->readAll(), 9);
    retry->deleteLater();
    QVERIFY2(response.contains("result"), response.dump().c_str());
    QVERIFY(!response.at("result").value("isError", false));
    QVERIFY(response.at("result").at("structuredContent") == arguments);
}

void TestOperatorCommandE2e::denyGivesTheClientTheReason()
{
    const QByteArray session = openSession(QStringLiteral("denied-client"));
    QPointer<QNetworkReply> held = startCall(session, 10, "echo", json{{"message", "on a Friday"}});
    const json question = waitForQuestion(QStringLiteral("denied-client"), QStringLiteral("echo"));
    QVERIFY(question.is_object());
    const Run denied = command({QStringLiteral("answer"), str(question, "id"), QStringLiteral("deny"),
        QStringLiteral("--reason"), QStringLiteral("not on Fridays")});
    QVERIFY2(denied.exitCode == 0, denied.err.constData());
    QSignalSpy done(held.data(), &QNetworkReply::finished);
    QVERIFY(held->isFinished() || done.wait(15'000));
    const json response = responseTo(held->readAll(), 10);
    held->deleteLater();
    QVERIFY2(response.dump().find("not on Fridays") != std::string::npos, response.dump().c_str());
    QVERIFY2(response.contains("error") || response.at("result").value("isError", false), response.dump().c_str());
}

void TestOperatorCommandE2e::alwaysAllowMakesAGrantThatIsRevoked()
{
    const QByteArray session = openSession(QStringLiteral("granted"));
    QPointer<QNetworkReply> held = startCall(session, 12, "echo", json{{"message", "first"}});
    const json question = waitForQuestion(QStringLiteral("granted"), QStringLiteral("echo"));
    QVERIFY(question.is_object());
    const Run allowed = command({QStringLiteral("answer"), str(question, "id"), QStringLiteral("always_allow"),
        QStringLiteral("--scope"), QStringLiteral("client-any")});
    QVERIFY2(allowed.exitCode == 0, allowed.err.constData());
    QSignalSpy done(held.data(), &QNetworkReply::finished);
    QVERIFY(held->isFinished() || done.wait(15'000));
    QVERIFY(responseTo(held->readAll(), 12).contains("result"));
    held->deleteLater();

    // The grant: this client, any arguments; listed with its id.
    const auto grantOf = [this]() -> json {
        const Run listed = command({QStringLiteral("grants"), QStringLiteral("--json")});
        if (listed.exitCode != 0)
            qWarning() << listed.err;
        for (const json& grant : jsonLines(listed.out)) {
            if (str(grant, "subject") == QLatin1String("echo") && str(grant, "clientName") == QLatin1String("granted"))
                return grant;
        }
        return {};
    };
    const json grant = grantOf();
    QVERIFY2(grant.is_object(), "no grant for granted's echo");
    QCOMPARE(str(grant, "source"), QStringLiteral("always"));
    QCOMPARE(str(grant, "arguments"), QString());
    QCOMPARE(str(grant, "grantedBy"), QStringLiteral("operator:default"));
    const QString id = str(grant, "id");
    QVERIFY(!id.isEmpty());

    // Other arguments run without asking while it stands.
    QNetworkReply* second = startCall(session, 13, "echo", json{{"message", "second"}});
    QSignalSpy secondDone(second, &QNetworkReply::finished);
    QVERIFY(second->isFinished() || secondDone.wait(15'000));
    QVERIFY(responseTo(second->readAll(), 13).contains("result"));
    second->deleteLater();

    const Run revoked = command({QStringLiteral("grant"), QStringLiteral("revoke"), id});
    QVERIFY2(revoked.exitCode == 0, revoked.err.constData());
    QCOMPARE(revoked.out, QByteArray("revoked grant " + id.toUtf8() + ": the calls it let through ask again\n"));
    QVERIFY(!grantOf().is_object());
}

void TestOperatorCommandE2e::aConnectQuestionTakesItsKeyFromStdin()
{
    const QByteArray session = openSession(QStringLiteral("connector"));
    QPointer<QNetworkReply> held = startCall(session, 11, "request_connection",
        json{{"provider", "acme"}, {"kind", "api_key"}, {"reason", "to read the acme tickets"}});
    const json question = waitForQuestion(QStringLiteral("connector"), QStringLiteral("request_connection"));
    QVERIFY2(question.is_object(), "no connect question was listed");
    QCOMPARE(str(question, "kind"), QStringLiteral("connect"));
    QCOMPARE(str(question, "provider"), QStringLiteral("acme"));
    QVERIFY(question.at("answers") == json({"connect", "decline"}));

    // An empty stdin is refused, and the question stays.
    const Run empty = command({QStringLiteral("answer"), str(question, "id"), QStringLiteral("connect")}, "\n");
    QCOMPARE(empty.exitCode, 2);
    QVERIFY2(empty.err.contains("stdin held none"), empty.err.constData());

    const QByteArray key = "acme-key-e2e-0123456789abcdef";
    const Run connected = command({QStringLiteral("answer"), str(question, "id"), QStringLiteral("connect"),
                                      QStringLiteral("--account"), QStringLiteral("ops")},
        key + "\n");
    QVERIFY2(connected.exitCode == 0, connected.err.constData());
    QVERIFY(!connected.out.contains(key));
    QVERIFY(!connected.err.contains(key));

    QSignalSpy done(held.data(), &QNetworkReply::finished);
    QVERIFY(held->isFinished() || done.wait(15'000));
    const QByteArray body = held->readAll();
    held->deleteLater();
    QVERIFY(!body.contains(key)); // the client never sees the secret
    const json response = responseTo(body, 11);
    QVERIFY2(response.contains("result"), response.dump().c_str());
    const json& content = response.at("result").at("structuredContent");
    QVERIFY2(content.value("connected", false), content.dump().c_str());
    QCOMPARE(QString::fromStdString(content.value("provider", std::string())), QStringLiteral("acme"));
    // The key went to the secret store (the owner-only file keeps each secret in base64).
    QFile secrets(QDir(m_stateDir).filePath(QStringLiteral("secrets.json")));
    QVERIFY(secrets.open(QIODevice::ReadOnly));
    const json file = parsed(secrets.readAll());
    bool stored = false;
    const std::function<void(const json&)> look = [&](const json& value) {
        if (value.is_string())
            stored
                = stored || QByteArray::fromBase64(QByteArray::fromStdString(value.get<std::string>())).contains(key);
        else if (value.is_structured())
            for (const json& inner : value)
                look(inner);
    };
    look(file);
    QVERIFY(stored);
}

void TestOperatorCommandE2e::statusHistoryAndGrants()
{
    const Run status = command({QStringLiteral("status")});
    QVERIFY2(status.exitCode == 0, status.err.constData());
    QVERIFY2(status.out.startsWith("switchboard "), status.out.constData());
    QVERIFY2(status.out.contains(m_mcpUrl.toString().toUtf8()), status.out.constData());
    QVERIFY(status.out.contains("questions waiting: "));
    QVERIFY(status.out.contains("sessions: "));
    QVERIFY(status.out.contains("adapters: 0"));

    const Run history = command({QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--tool"),
        QStringLiteral("echo"), QStringLiteral("--client"), QStringLiteral("holder")});
    QVERIFY2(history.exitCode == 0, history.err.constData());
    const QList<json> calls = jsonLines(history.out);
    QVERIFY2(!calls.isEmpty(), history.out.constData());
    for (const json& call : calls) {
        QCOMPARE(str(call, "tool"), QStringLiteral("echo"));
        QCOMPARE(str(call, "client"), QStringLiteral("holder"));
    }
    QCOMPARE(str(calls.first(), "status"), QStringLiteral("ok"));
    const Run limited = command({QStringLiteral("history"), QStringLiteral("--limit"), QStringLiteral("1")});
    QCOMPARE(limited.exitCode, 0);
    QCOMPARE(limited.out.count('\n'), 2); // the header and one call
    QVERIFY2(limited.err.contains("raise --limit"), limited.err.constData());

    const Run grants = command({QStringLiteral("grants")});
    QVERIFY2(grants.exitCode == 0, grants.err.constData());
    QVERIFY2(grants.out.contains("echo") && grants.out.contains("ask"), grants.out.constData());
    const Run revoke = command({QStringLiteral("grant"), QStringLiteral("revoke"), QStringLiteral("g-none")});
    QCOMPARE(revoke.exitCode, 1);
    QVERIFY2(revoke.err.contains("no grant g-none"), revoke.err.constData());
    const Run breaker = command({QStringLiteral("breaker"), QStringLiteral("reset"), QStringLiteral("nothing")});
    QCOMPARE(breaker.exitCode, 1);
    QVERIFY2(breaker.err.contains("no adapter named nothing"), breaker.err.constData());
}

void TestOperatorCommandE2e::aWrongTokenExits3AndSaysWhy()
{
    QProcessEnvironment wrong = cleanEnvironment();
    wrong.insert(
        QStringLiteral("SWITCHBOARD_OPERATOR_TOKEN"), QStringLiteral("sbop_not-the-right-one-at-all-0123456789"));
    Run run = command({QStringLiteral("questions")}, {}, wrong);
    QCOMPARE(run.exitCode, 3);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(
        run.err.contains("did not accept the operator token from SWITCHBOARD_OPERATOR_TOKEN"), run.err.constData());
    QVERIFY(!run.err.contains("sbop_not-the-right-one"));

    // The MCP clients' token: named as what it is.
    QProcessEnvironment client = cleanEnvironment();
    client.insert(QStringLiteral("SWITCHBOARD_OPERATOR_TOKEN"), QString::fromLatin1(m_clientToken));
    run = command({QStringLiteral("answer"), QStringLiteral("ia-1"), QStringLiteral("allow_once")}, {}, client);
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(
        run.err.contains("is an MCP client token; the operator API needs the operator token"), run.err.constData());
    QVERIFY(!run.err.contains(m_clientToken));

    // No token at all: a state directory without one.
    QTemporaryDir elsewhere;
    run = command({QStringLiteral("status"), QStringLiteral("--state-dir"), elsewhere.path()});
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains("no operator token"), run.err.constData());

    // No server there.
    const quint16 nothing = freePort();
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(nothing);
    run = command({QStringLiteral("questions"), QStringLiteral("--attach"), url});
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.err.contains(QByteArray("no Switchboard answers at " + url.toUtf8() + ": is it running?")),
        run.err.constData());
}

QTEST_GUILESS_MAIN(TestOperatorCommandE2e)
#include "tst_operatorcommande2e.moc"
