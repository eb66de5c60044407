// The operator's command line (switchboard questions, answer, history, status, grants, grant,
// breaker, adapter) without a Switchboard: every command line read into the request it sends (method,
// path, query, JSON body) or refused as a usage error; --attach URLs brought to the server's base;
// tables and JSON lines printed from canned answers of the operator API; every refusal and every
// failure to reach a server mapped to its message and exit status. The last part runs the whole
// command in this process against FakeOperatorApi, a stand-in written for these unit tests only
// (it records what arrives and answers what the test says); tst_operatorcommande2e runs the built
// binary against the real server.

#include "boundedjson.h"
#include "operatorcommand.h"
#include "operatorinvocation.h"
#include "operatoroutput.h"

#include <QAbstractHttpServer>
#include <QDateTime>
#include <QFile>
#include <QHostAddress>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;
using Command = OperatorInvocation::Command;

namespace {

QStringList words(const char* command, const QStringList& rest = {})
{
    return QStringList{QStringLiteral("switchboard"), QString::fromLatin1(command)} + rest;
}

json parsed(const QByteArray& text)
{
    BoundedJson::Result<json> result = BoundedJson::parse(text, BoundedJson::Limits::record());
    if (!result.ok)
        qWarning() << "not JSON:" << text;
    return result.value;
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

QString str(const json& value)
{
    return QString::fromStdString(value.get<std::string>());
}

OperatorInvocation invocationOf(const QStringList& arguments)
{
    QString help;
    QString error;
    const std::optional<OperatorInvocation> invocation = OperatorInvocation::parse(arguments, &help, &error);
    if (!invocation)
        qWarning() << "not parsed:" << arguments << error;
    return invocation.value_or(OperatorInvocation());
}

AttachTarget targetAt(const QString& url, const QByteArray& token = QByteArrayLiteral("sbop_operator-token"))
{
    AttachTarget target;
    target.base = QUrl(url);
    target.origin = QStringLiteral("--attach");
    target.credential.token = token;
    target.credential.source = QStringLiteral("SWITCHBOARD_OPERATOR_TOKEN");
    target.credential.tokenFile = QStringLiteral("/state/operator-token");
    return target;
}

// A question as the server's GET /questions lists it (PendingInteraction::toJson()).
json question(const char* id, const char* render, const char* tool, const char* client, const QByteArray& arguments,
    qint64 createdAtMs, const json& spec = json::object())
{
    json renderSpec = spec;
    renderSpec["render"] = render;
    return json{{"id", id}, {"kind", std::string(render) == "approval" ? "approval" : "client-tool"},
        {"render", render}, {"tool", tool}, {"toolTitle", ""}, {"route", "builtin"},
        {"arguments", arguments.toStdString()}, {"renderSpec", renderSpec.dump()}, {"sessionId", "s-1"},
        {"clientName", client}, {"clientVersion", "1"}, {"callId", 7}, {"earlierCallIds", json::array()},
        {"mode", "hold"}, {"createdAtMs", createdAtMs}, {"key", "k"}, {"fromRunner", false}};
}

QByteArray dumped(const json& value)
{
    return QByteArray::fromStdString(value.dump());
}

// As --json prints a value: ASCII, with \u escapes.
QByteArray dumpedAscii(const json& value)
{
    return QByteArray::fromStdString(value.dump(-1, ' ', true));
}

} // namespace

// A stand-in for the operator API for these unit tests only: it records every request and answers
// each with the status, body and headers the test set (or, `silent`, never).
class FakeOperatorApi : public QAbstractHttpServer
{
public:
    struct Seen
    {
        QByteArray method;
        QString path; // as sent, percent-encoding kept
        QUrlQuery query;
        QByteArray authorization;
        QByteArray contentType;
        QByteArray origin;
        QByteArray body;
    };

    QList<Seen> seen;
    int status = 200;
    QByteArray body = QByteArrayLiteral("{}");
    QList<QPair<QByteArray, QByteArray>> headers;
    QHash<QString, QByteArray> bodyOfPath; // 200 with this body for these paths, whatever `status` says
    bool silent = false;
    quint16 port = 0;

    FakeOperatorApi() { port = listen(QHostAddress(QHostAddress::LocalHost), 0); }

    QString url(const QString& path = {}) const { return QStringLiteral("http://127.0.0.1:%1").arg(port) + path; }

protected:
    bool handleRequest(const QHttpServerRequest& request, QTcpSocket* socket) override
    {
        static const QHash<QHttpServerRequest::Method, QByteArray> methods{{QHttpServerRequest::Method::Get, "GET"},
            {QHttpServerRequest::Method::Post, "POST"}, {QHttpServerRequest::Method::Delete, "DELETE"},
            {QHttpServerRequest::Method::Put, "PUT"}};
        seen.append({methods.value(request.method(), "OTHER"), request.url().path(QUrl::FullyEncoded), request.query(),
            request.value("authorization"), request.value("content-type"), request.value("origin"), request.body()});
        if (silent)
            return true;
        const auto fixed = bodyOfPath.constFind(request.url().path());
        const QByteArray& answer = fixed == bodyOfPath.cend() ? body : *fixed;
        const int answerStatus = fixed == bodyOfPath.cend() ? status : 200;
        QHttpServerResponder responder = makeResponder(request, socket);
        responder.writeStatusLine(QHttpServerResponder::StatusCode(answerStatus));
        responder.writeHeader("Content-Type", "application/json");
        responder.writeHeader("Content-Length", QByteArray::number(answer.size()));
        for (const auto& [name, value] : std::as_const(headers))
            responder.writeHeader(name, value);
        responder.writeBody(answer);
        return true;
    }
    void missingHandler(const QHttpServerRequest&, QTcpSocket*) override {}
};

class TestOperatorCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void answerRequests_data();
    void answerRequests();
    void otherRequests_data();
    void otherRequests();
    void usageErrors_data();
    void usageErrors();
    void helpSaysHowAndExitStatuses();
    void baseUrl_data();
    void baseUrl();

    void questionsAsJsonLines();
    void questionsAsTable();
    void historyAsJsonLinesAndTable();
    void statusAsText();
    void grantsAsTable();
    void answerOutcomes();
    void refusals_data();
    void refusals();
    void unreachable();

    void againstFakeServer_sendsTheRequestWithTheToken();
    void againstFakeServer_refusals_data();
    void againstFakeServer_refusals();
    void againstFakeServer_connectionRefused();
    void againstFakeServer_timeout();
    void againstFakeServer_apiKeyFromStdin();
    void againstFakeServer_redirectIsNotFollowed();
    void againstFakeServer_tokenFromStateDirAndPortFromConfig();
    void againstFakeServer_noToken();
    void againstFakeServer_clientTokenIsNamed();
};

void TestOperatorCommand::answerRequests_data()
{
    QTest::addColumn<QStringList>("rest");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("readsApiKey");

    const QString path = QStringLiteral("/operator/v1/questions/ia-1/answer");
    QTest::newRow("allow_once") << QStringList{QStringLiteral("ia-1"), QStringLiteral("allow_once")} << path
                                << QByteArray(R"({"answer":"allow_once"})") << false;
    QTest::newRow("allow-once, dashed") << QStringList{QStringLiteral("ia-1"), QStringLiteral("allow-once")} << path
                                        << QByteArray(R"({"answer":"allow_once"})") << false;
    QTest::newRow("allow_session") << QStringList{QStringLiteral("ia-1"), QStringLiteral("allow_session")} << path
                                   << QByteArray(R"({"answer":"allow_session"})") << false;
    QTest::newRow("always_allow, default scope")
        << QStringList{QStringLiteral("ia-1"), QStringLiteral("always_allow")} << path
        << QByteArray(R"({"answer":"always_allow","scope":"client-args"})") << false;
    for (const char* scope : {"client-args", "client-any", "all-args", "all-any"}) {
        QTest::addRow("always_allow --scope %s", scope)
            << QStringList{QStringLiteral("ia-1"), QStringLiteral("always_allow"), QStringLiteral("--scope"),
                   QString::fromLatin1(scope)}
            << path << QByteArray(R"({"answer":"always_allow","scope":")" + QByteArray(scope) + "\"}") << false;
    }
    QTest::newRow("deny") << QStringList{QStringLiteral("ia-1"), QStringLiteral("deny")} << path
                          << QByteArray(R"({"answer":"deny"})") << false;
    QTest::newRow("deny --reason") << QStringList{QStringLiteral("ia-1"), QStringLiteral("deny"),
        QStringLiteral("--reason"), QStringLiteral("not on Fridays")}
                                   << path << QByteArray(R"({"answer":"deny","reason":"not on Fridays"})") << false;
    QTest::newRow("confirm") << QStringList{QStringLiteral("ia-1"), QStringLiteral("confirm")} << path
                             << QByteArray(R"({"answer":"confirm"})") << false;
    QTest::newRow("decline") << QStringList{QStringLiteral("ia-1"), QStringLiteral("decline")} << path
                             << QByteArray(R"({"answer":"decline"})") << false;
    QTest::newRow("submit --values") << QStringList{QStringLiteral("ia-1"), QStringLiteral("submit"),
        QStringLiteral("--values"), QStringLiteral(R"({"name": "x", "n": 2, "tags": ["a"]})")}
                                     << path
                                     << QByteArray(R"({"answer":"submit","values":{"n":2,"name":"x","tags":["a"]}})")
                                     << false;
    QTest::newRow("connect") << QStringList{QStringLiteral("ia-1"), QStringLiteral("connect")} << path
                             << QByteArray(R"({"answer":"connect"})") << true;
    QTest::newRow("connect --provider --account")
        << QStringList{QStringLiteral("ia-1"), QStringLiteral("connect"), QStringLiteral("--provider"),
               QStringLiteral("github"), QStringLiteral("--account"), QStringLiteral("me")}
        << path << QByteArray(R"({"account":"me","answer":"connect","provider":"github"})") << true;
    QTest::newRow("a choice") << QStringList{QStringLiteral("ia-1"), QStringLiteral("staging")} << path
                              << QByteArray(R"({"answer":"choose","choice":"staging"})") << false;
    QTest::newRow("a choice with spaces and unicode")
        << QStringList{QStringLiteral("ia-1"), QStringLiteral("blue green \u00e9")} << path
        << QByteArray(R"({"answer":"choose","choice":"blue green é"})") << false;
    QTest::newRow("choose --choice, a choice named like an answer")
        << QStringList{QStringLiteral("ia-1"), QStringLiteral("choose"), QStringLiteral("--choice"),
               QStringLiteral("deny")}
        << path << QByteArray(R"({"answer":"choose","choice":"deny"})") << false;
    QTest::newRow("a choice after --") << QStringList{QStringLiteral("ia-1"), QStringLiteral("--"),
        QStringLiteral("-1")} << path << QByteArray(R"({"answer":"choose","choice":"-1"})")
                                       << false;
    QTest::newRow("an id that is not a path")
        << QStringList{QStringLiteral("ia-1/../../x?y#z"), QStringLiteral("deny")}
        << QStringLiteral("/operator/v1/questions/ia-1%2F..%2F..%2Fx%3Fy%23z/answer")
        << QByteArray(R"({"answer":"deny"})") << false;
}

void TestOperatorCommand::answerRequests()
{
    QFETCH(QStringList, rest);
    QFETCH(QString, path);
    QFETCH(QByteArray, body);
    QFETCH(bool, readsApiKey);
    const OperatorInvocation invocation = invocationOf(words("answer", rest));
    QCOMPARE(invocation.command, Command::Answer);
    QCOMPARE(invocation.request.method, QByteArray("POST"));
    QCOMPARE(invocation.request.path, path);
    QVERIFY(invocation.request.body.has_value());
    QCOMPARE(dumped(*invocation.request.body), body);
    QCOMPARE(invocation.readsApiKey, readsApiKey);
    QVERIFY(invocation.request.query.isEmpty());
    // The path survives being put under a base URL with a prefix.
    const QUrl url = invocation.request.url(QUrl(QStringLiteral("https://proxy.example/switchboard")));
    QCOMPARE(url.path(QUrl::FullyEncoded), QStringLiteral("/switchboard") + path);
}

void TestOperatorCommand::otherRequests_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("command");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("url"); // under http://h:1
    QTest::addColumn<bool>("jsonLines");

    QTest::newRow("questions") << words("questions") << int(Command::Questions) << QByteArray("GET")
                               << QStringLiteral("http://h:1/operator/v1/questions") << false;
    QTest::newRow("questions --json") << words("questions", {QStringLiteral("--json")}) << int(Command::Questions)
                                      << QByteArray("GET") << QStringLiteral("http://h:1/operator/v1/questions")
                                      << true;
    QTest::newRow("history") << words("history") << int(Command::History) << QByteArray("GET")
                             << QStringLiteral("http://h:1/operator/v1/history") << false;
    QTest::newRow("history --limit --client --tool")
        << words("history",
               {QStringLiteral("--json"), QStringLiteral("--limit"), QStringLiteral("5"), QStringLiteral("--client"),
                   QStringLiteral("claude code"), QStringLiteral("--tool"), QStringLiteral("git_status")})
        << int(Command::History) << QByteArray("GET")
        << QStringLiteral("http://h:1/operator/v1/history?limit=5&client=claude%20code&tool=git_status") << true;
    QTest::newRow("history, names with & = + %")
        << words("history", {QStringLiteral("--client"), QStringLiteral("a&b=c+d%41")}) << int(Command::History)
        << QByteArray("GET") << QStringLiteral("http://h:1/operator/v1/history?client=a%26b%3Dc%2Bd%2541") << false;
    QTest::newRow("status") << words("status") << int(Command::Status) << QByteArray("GET")
                            << QStringLiteral("http://h:1/operator/v1/status") << false;
    QTest::newRow("grants --json") << words("grants", {QStringLiteral("--json")}) << int(Command::Grants)
                                   << QByteArray("GET") << QStringLiteral("http://h:1/operator/v1/grants") << true;
    QTest::newRow("grant revoke") << words("grant", {QStringLiteral("revoke"), QStringLiteral("g-12")})
                                  << int(Command::RevokeGrant) << QByteArray("DELETE")
                                  << QStringLiteral("http://h:1/operator/v1/grants/g-12") << false;
    QTest::newRow("breaker reset") << words("breaker", {QStringLiteral("reset"), QStringLiteral("github")})
                                   << int(Command::ResetBreaker) << QByteArray("POST")
                                   << QStringLiteral("http://h:1/operator/v1/adapters/github/reset") << false;
    QTest::newRow("breaker open") << words("breaker", {QStringLiteral("open"), QStringLiteral("github")})
                                  << int(Command::OpenBreaker) << QByteArray("POST")
                                  << QStringLiteral("http://h:1/operator/v1/adapters/github/force-open") << false;
    QTest::newRow("adapter enable") << words("adapter", {QStringLiteral("enable"), QStringLiteral("my adapter")})
                                    << int(Command::EnableAdapter) << QByteArray("POST")
                                    << QStringLiteral("http://h:1/operator/v1/adapters/my%20adapter/enable") << false;
    QTest::newRow("adapter disable") << words("adapter", {QStringLiteral("disable"), QStringLiteral("github")})
                                     << int(Command::DisableAdapter) << QByteArray("POST")
                                     << QStringLiteral("http://h:1/operator/v1/adapters/github/disable") << false;
}

void TestOperatorCommand::otherRequests()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, command);
    QFETCH(QByteArray, method);
    QFETCH(QString, url);
    QFETCH(bool, jsonLines);
    const OperatorInvocation invocation = invocationOf(arguments);
    QCOMPARE(int(invocation.command), command);
    QCOMPARE(invocation.request.method, method);
    QCOMPARE(invocation.request.url(QUrl(QStringLiteral("http://h:1"))).toString(QUrl::FullyEncoded), url);
    QVERIFY(!invocation.request.body);
    QCOMPARE(invocation.jsonLines, jsonLines);
    QCOMPARE(invocation.timeoutMs, 30000);
}

void TestOperatorCommand::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("says");

    const auto answer = [](const QStringList& rest) { return words("answer", rest); };
    QTest::newRow("answer without words") << answer({}) << QStringLiteral("answer takes ID ANSWER, got 0 word(s)");
    QTest::newRow("answer without ANSWER") << answer({QStringLiteral("ia-1")}) << QStringLiteral("got 1 word(s)");
    QTest::newRow("answer, three words") << answer({QStringLiteral("ia-1"), QStringLiteral("deny"),
        QStringLiteral("x")}) << QStringLiteral("got 3 word(s)");
    QTest::newRow("empty answer") << answer({QStringLiteral("ia-1"), QString()}) << QStringLiteral("ANSWER is empty");
    QTest::newRow("empty id") << answer({QString(), QStringLiteral("deny")})
                              << QStringLiteral("the question's id is empty");
    QTest::newRow("unknown scope") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("always_allow"), QStringLiteral("--scope"), QStringLiteral("everyone")})
                                   << QStringLiteral("unknown scope \"everyone\"");
    QTest::newRow("--scope with allow_once") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("allow_once"), QStringLiteral("--scope"), QStringLiteral("all-any")})
                                             << QStringLiteral("--scope goes with always_allow, not with allow_once");
    QTest::newRow("--reason with confirm")
        << answer({QStringLiteral("ia-1"), QStringLiteral("confirm"), QStringLiteral("--reason"), QStringLiteral("x")})
        << QStringLiteral("--reason goes with deny");
    QTest::newRow("--values with deny") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("deny"), QStringLiteral("--values"), QStringLiteral("{}")})
                                        << QStringLiteral("--values goes with submit");
    QTest::newRow("--provider with a choice") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("staging"), QStringLiteral("--provider"), QStringLiteral("github")})
                                              << QStringLiteral("--provider goes with connect, not with choose");
    QTest::newRow("submit without --values")
        << answer({QStringLiteral("ia-1"), QStringLiteral("submit")}) << QStringLiteral("submit needs --values");
    QTest::newRow("--values not JSON") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("submit"), QStringLiteral("--values"), QStringLiteral("{name: x}")})
                                       << QStringLiteral("--values is not JSON");
    QTest::newRow("--values an array") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("submit"), QStringLiteral("--values"), QStringLiteral("[1]")})
                                       << QStringLiteral("--values must be a JSON object");
    QTest::newRow("--values too deep") << answer({QStringLiteral("ia-1"), QStringLiteral("submit"),
        QStringLiteral("--values"), QString(QStringLiteral("{\"a\":") + QString(100, QLatin1Char('[')))})
                                       << QStringLiteral("--values is not JSON");
    QTest::newRow("choose without --choice")
        << answer({QStringLiteral("ia-1"), QStringLiteral("choose")}) << QStringLiteral("choose needs --choice VALUE");
    QTest::newRow("--choice with a choice") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("staging"), QStringLiteral("--choice"), QStringLiteral("prod")})
                                            << QStringLiteral("--choice goes with choose");
    QTest::newRow("--provider empty") << answer(
        {QStringLiteral("ia-1"), QStringLiteral("connect"), QStringLiteral("--provider"), QString()})
                                      << QStringLiteral("--provider needs a name");
    QTest::newRow("history --limit 0") << words("history", {QStringLiteral("--limit"), QStringLiteral("0")})
                                       << QStringLiteral("--limit must be a number from 1 to 1000");
    QTest::newRow("history --limit 1001") << words("history", {QStringLiteral("--limit"), QStringLiteral("1001")})
                                          << QStringLiteral("--limit must be a number from 1 to 1000");
    QTest::newRow("history --limit x") << words("history", {QStringLiteral("--limit"), QStringLiteral("x")})
                                       << QStringLiteral("--limit must be a number from 1 to 1000");
    QTest::newRow("history --client empty")
        << words("history", {QStringLiteral("--client"), QString()}) << QStringLiteral("--client needs a name");
    QTest::newRow("questions with a word")
        << words("questions", {QStringLiteral("all")}) << QStringLiteral("questions takes no words, got: all");
    QTest::newRow("questions --scope") << words("questions", {QStringLiteral("--scope"), QStringLiteral("all-any")})
                                       << QStringLiteral("Unknown option 'scope'");
    QTest::newRow("status --limit") << words("status", {QStringLiteral("--limit"), QStringLiteral("3")})
                                    << QStringLiteral("Unknown option 'limit'");
    QTest::newRow("an unknown option") << words("grants", {QStringLiteral("--bogus")})
                                       << QStringLiteral("Unknown option 'bogus'");
    QTest::newRow("breaker without action")
        << words("breaker") << QStringLiteral("breaker takes reset ADAPTER or open ADAPTER");
    QTest::newRow("breaker close") << words("breaker", {QStringLiteral("close"), QStringLiteral("github")})
                                   << QStringLiteral("unknown action \"close\"");
    QTest::newRow("adapter without name") << words("adapter", {QStringLiteral("enable")})
                                          << QStringLiteral("adapter takes enable ADAPTER or disable ADAPTER");
    QTest::newRow("adapter reset") << words("adapter", {QStringLiteral("reset"), QStringLiteral("github")})
                                   << QStringLiteral("unknown action \"reset\"");
    QTest::newRow("grant delete") << words("grant", {QStringLiteral("delete"), QStringLiteral("g-1")})
                                  << QStringLiteral("unknown action \"delete\": say grant revoke ID");
    QTest::newRow("--timeout 0") << words("status", {QStringLiteral("--timeout"), QStringLiteral("0")})
                                 << QStringLiteral("--timeout must be a number of seconds");
    QTest::newRow("--timeout nan") << words("status", {QStringLiteral("--timeout"), QStringLiteral("nan")})
                                   << QStringLiteral("--timeout must be a number of seconds");
    QTest::newRow("--attach empty") << words("status", {QStringLiteral("--attach"), QString()})
                                    << QStringLiteral("--attach needs a URL");
}

void TestOperatorCommand::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, says);
    QString help;
    QString error;
    QVERIFY(!OperatorInvocation::parse(arguments, &help, &error));
    QVERIFY(help.isEmpty());
    QVERIFY2(error.contains(says), qPrintable(error));
    QVERIFY2(error.endsWith(QStringLiteral("; see switchboard %1 --help").arg(arguments.at(1))), qPrintable(error));

    // The whole command: exit status 2, the reason on stderr, nothing sent (no server is asked).
    QByteArray out;
    QByteArray err;
    OperatorCommand::Environment environment;
    environment.attach = QStringLiteral("http://127.0.0.1:1");
    QCOMPARE(OperatorCommand::run(arguments, environment, &out, &err), 2);
    QVERIFY(out.isEmpty());
    QVERIFY2(err.startsWith(QByteArray("switchboard " + arguments.at(1).toUtf8() + ": ")), err.constData());
    QVERIFY(err.endsWith('\n'));
    QCOMPARE(err.count('\n'), 1);
}

void TestOperatorCommand::helpSaysHowAndExitStatuses()
{
    for (const char* command : {"questions", "answer", "history", "status", "grants", "grant", "breaker", "adapter"}) {
        QByteArray out;
        QByteArray err;
        QCOMPARE(OperatorCommand::run(words(command, {QStringLiteral("--help")}), {}, &out, &err), 0);
        QVERIFY(err.isEmpty());
        for (const char* says : {"--attach", "SWITCHBOARD_ATTACH", "SWITCHBOARD_OPERATOR_TOKEN", "operator-token",
                 "Exit status: 0", "2 a usage error", "3 no server could be reached"})
            QVERIFY2(out.contains(says), QByteArray(QByteArray(command) + " --help lacks " + says).constData());
    }
    QByteArray out;
    QByteArray err;
    QCOMPARE(OperatorCommand::run(words("answer", {QStringLiteral("-h")}), {}, &out, &err), 0);
    for (const char* says : {"--scope", "client-args", "all-any", "--values", "--reason", "stdin", "--choice"})
        QVERIFY2(out.contains(says), says);
    QVERIFY(OperatorCommand::isCommand("questions"));
    QVERIFY(OperatorCommand::isCommand("grant"));
    QVERIFY(!OperatorCommand::isCommand("tool"));
    QVERIFY(!OperatorCommand::isCommand("--headless"));
    QVERIFY(!OperatorCommand::isCommand(nullptr));
}

void TestOperatorCommand::baseUrl_data()
{
    QTest::addColumn<QString>("given");
    QTest::addColumn<QString>("base"); // empty: refused
    QTest::addColumn<QString>("says");

    const QString local = QStringLiteral("http://127.0.0.1:8765");
    QTest::newRow("base") << local << local << QString();
    QTest::newRow("base/") << local + QStringLiteral("/") << local << QString();
    QTest::newRow("mcp") << local + QStringLiteral("/mcp") << local << QString();
    QTest::newRow("mcp/") << local + QStringLiteral("/mcp/") << local << QString();
    QTest::newRow("operator/v1") << local + QStringLiteral("/operator/v1") << local << QString();
    QTest::newRow("operator/v1/") << local + QStringLiteral("/operator/v1/") << local << QString();
    QTest::newRow("no scheme") << QStringLiteral("127.0.0.1:8765/mcp") << local << QString();
    QTest::newRow("spaces around") << QStringLiteral("  http://127.0.0.1:8765/mcp \n") << local << QString();
    QTest::newRow("HTTPS, upper case") << QStringLiteral("HTTPS://Host.Example:9443/mcp")
                                       << QStringLiteral("https://host.example:9443") << QString();
    QTest::newRow("proxy prefix") << QStringLiteral("https://proxy.example/teams/a/mcp")
                                  << QStringLiteral("https://proxy.example/teams/a") << QString();
    QTest::newRow("proxy prefix, operator") << QStringLiteral("https://proxy.example/teams/a/operator/v1/")
                                            << QStringLiteral("https://proxy.example/teams/a") << QString();
    QTest::newRow("IPv6") << QStringLiteral("http://[::1]:8765/mcp") << QStringLiteral("http://[::1]:8765")
                          << QString();
    QTest::newRow("empty") << QString() << QString() << QStringLiteral("empty");
    QTest::newRow("ftp") << QStringLiteral("ftp://h/mcp") << QString() << QStringLiteral("not an http or https URL");
    QTest::newRow("no host") << QStringLiteral("http:///mcp") << QString() << QStringLiteral("is not a server's URL");
    QTest::newRow("credentials") << QStringLiteral("http://me:secret@h:1/mcp") << QString()
                                 << QStringLiteral("holds a user or password");
    QTest::newRow("query") << QStringLiteral("http://h:1/mcp?x=1") << QString()
                           << QStringLiteral("has a query or fragment");
    QTest::newRow("bad port") << QStringLiteral("http://h:99999") << QString()
                              << QStringLiteral("is not a server's URL");
}

void TestOperatorCommand::baseUrl()
{
    QFETCH(QString, given);
    QFETCH(QString, base);
    QFETCH(QString, says);
    QString error;
    const std::optional<QUrl> url = OperatorInvocation::baseUrl(given, &error);
    if (base.isEmpty()) {
        QVERIFY(!url);
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY(!error.contains(QLatin1String("secret")));
        return;
    }
    QVERIFY2(url, qPrintable(error));
    QCOMPARE(url->toString(QUrl::FullyEncoded), base);
}

void TestOperatorCommand::questionsAsJsonLines()
{
    const qint64 now = 1790000100000;
    const QByteArray longArguments = "{\"text\": \"" + QByteArray(500, 'x') + "\"}";
    const json body{{"questions",
        {question("ia-1", "approval", "git_push", "claude-code", "{\n  \"remote\": \"origin\"\n}", 1790000000000),
            question("ia-2", "choice", "choose_branch", "runner", longArguments, now - 5000,
                {{"choices", {"main", "develop"}}, {"question", "Which branch?"}}),
            question("ia-3", "connect", "request_connection", "runner", "{\"provider\":\"github\"}", now,
                {{"provider", "github"}}),
            question("ia-4", "form", "ask_form", "evil\x1b[2Jname", "{}", now)}}};
    const OperatorInvocation invocation = invocationOf(words("questions", {QStringLiteral("--json")}));
    const OperatorPrinted printed
        = OperatorOutput::reply(invocation, targetAt(QStringLiteral("http://h:1")), 200, dumped(body), now);
    QCOMPARE(printed.exitCode, 0);
    QVERIFY(printed.err.isEmpty());
    // ASCII only: a client's escape sequence reaches the terminal as \u001b, never as itself.
    for (const char c : printed.out)
        QVERIFY2(uchar(c) < 0x80 && (uchar(c) >= 0x20 || c == '\n'), printed.out.constData());
    const QList<json> lines = jsonLines(printed.out);
    QCOMPARE(lines.size(), 4);

    const json& first = lines.at(0);
    QCOMPARE(str(first["id"]), QStringLiteral("ia-1"));
    QCOMPARE(str(first["kind"]), QStringLiteral("approval"));
    QCOMPARE(str(first["tool"]), QStringLiteral("git_push"));
    QCOMPARE(str(first["client"]), QStringLiteral("claude-code"));
    QCOMPARE(str(first["mode"]), QStringLiteral("hold"));
    QCOMPARE(str(first["arguments"]), QStringLiteral(R"({"remote":"origin"})")); // compact
    QCOMPARE(first["argumentsCut"].get<bool>(), false);
    QCOMPARE(first["waitingSinceMs"].get<qint64>(), 1790000000000);
    QCOMPARE(str(first["waitingSince"]), QDateTime::fromMSecsSinceEpoch(1790000000000).toUTC().toString(Qt::ISODate));
    QVERIFY(str(first["waitingSince"]).endsWith(QLatin1Char('Z')));
    QCOMPARE(dumped(first["answers"]), dumped(json({"allow_once", "allow_session", "always_allow", "deny"})));

    const json& second = lines.at(1);
    QCOMPARE(str(second["kind"]), QStringLiteral("choice"));
    QCOMPARE(str(second["arguments"]).size(), OperatorOutput::ArgumentsPreviewChars);
    QCOMPARE(second["argumentsCut"].get<bool>(), true);
    QCOMPARE(dumped(second["answers"]), dumped(json({"main", "develop", "decline"})));
    QCOMPARE(str(second["question"]), QStringLiteral("Which branch?"));

    QCOMPARE(dumped(lines.at(2)["answers"]), dumped(json({"connect", "decline"})));
    QCOMPARE(str(lines.at(2)["provider"]), QStringLiteral("github"));
    QCOMPARE(dumped(lines.at(3)["answers"]), dumped(json({"submit", "decline"})));
    QCOMPARE(str(lines.at(3)["client"]), QStringLiteral("evil\x1b[2Jname")); // the value itself, escaped in the line

    // A runner's question has no session to allow for.
    json runner = question("ia-5", "approval", "rm", "switchboard tool", "{}", now);
    runner["fromRunner"] = true;
    const OperatorPrinted runnerPrinted = OperatorOutput::reply(
        invocation, targetAt(QStringLiteral("http://h:1")), 200, dumped(json{{"questions", {runner}}}), now);
    QCOMPARE(
        dumped(jsonLines(runnerPrinted.out).at(0)["answers"]), dumped(json({"allow_once", "always_allow", "deny"})));

    // None: nothing on stdout (a script reads no lines), a word on stderr.
    const OperatorPrinted none = OperatorOutput::reply(
        invocation, targetAt(QStringLiteral("http://h:1")), 200, QByteArrayLiteral(R"({"questions": []})"), now);
    QCOMPARE(none.exitCode, 0);
    QVERIFY(none.out.isEmpty());
    QCOMPARE(none.err, QByteArray("switchboard questions: no questions wait\n"));
}

void TestOperatorCommand::questionsAsTable()
{
    const qint64 now = 1790000000000;
    const json body{{"questions",
        {question("ia-1", "approval", "git_push", "claude-code", "{\"remote\": \"origin\"}", now - 185000),
            question("ia-22", "confirm", "deploy", "evil\x1b[2J\u202ename",
                "{\"text\": \"" + QByteArray(300, 'y') + "\"}", now - 2 * 3600 * 1000 - 13 * 60 * 1000)}}};
    const OperatorPrinted printed = OperatorOutput::reply(
        invocationOf(words("questions")), targetAt(QStringLiteral("http://h:1")), 200, dumped(body), now);
    QCOMPARE(printed.exitCode, 0);
    const QList<QByteArray> lines = printed.out.split('\n');
    QCOMPARE(lines.size(), 4); // header, two rows, the empty piece after the last newline
    QVERIFY(lines.at(3).isEmpty());
    QCOMPARE(lines.at(0), QByteArray("ID     KIND      TOOL      CLIENT                   WAITING  ARGUMENTS"));
    QVERIFY2(
        lines.at(1).startsWith("ia-1   approval  git_push  claude-code              3m05s    {\"remote\":\"origin\"}"),
        lines.at(1).constData());
    // The client's control characters and bidirectional override are escaped; the arguments are cut.
    QVERIFY2(lines.at(2).startsWith("ia-22  confirm   deploy    evil\\x1b[2J\\u{202e}name  2h13m    {\"text\":\"yyy"),
        lines.at(2).constData());
    QVERIFY(lines.at(2).endsWith("\xe2\x80\xa6")); // …
    QVERIFY(!printed.out.contains('\x1b'));
    QVERIFY(!lines.at(1).endsWith(' '));
}

void TestOperatorCommand::historyAsJsonLinesAndTable()
{
    const json call1{{"id", 42}, {"sessionId", "s"}, {"clientName", "claude-code"}, {"clientVersion", "1"},
        {"tool", "git_status"}, {"route", "git"},
        {"request",
            R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"git_status","arguments":{"path":"/src"}}})"},
        {"response", "{}"}, {"details", ""}, {"decision", ""}, {"replayOf", 0}, {"timeline", ""}, {"error", ""},
        {"startedAtMs", 1790000000000}, {"durationUs", 12345}, {"waitedUs", 0}, {"status", "ok"},
        {"wholeRequestBytes", -1}, {"wholeResponseBytes", -1}};
    json call2 = call1;
    call2["id"] = 41;
    call2["tool"] = "rm";
    call2["status"] = "denied";
    call2["error"] = "denied by a person: not on Fridays";
    // A preview cut inside the arguments is not JSON any more: its arguments are shown as text.
    call2["request"]
        = R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm","arguments":{"path":"/sr)";
    call2["wholeRequestBytes"] = 5000;
    const json body{{"calls", {call1, call2}}, {"hasMore", true}};

    const OperatorPrinted lines = OperatorOutput::reply(invocationOf(words("history", {QStringLiteral("--json")})),
        targetAt(QStringLiteral("http://h:1")), 200, dumped(body), 0);
    QCOMPARE(lines.exitCode, 0);
    const QList<json> parsedLines = jsonLines(lines.out);
    QCOMPARE(parsedLines.size(), 2);
    QCOMPARE(parsedLines.at(0)["id"].get<qint64>(), 42);
    QCOMPARE(str(parsedLines.at(0)["tool"]), QStringLiteral("git_status"));
    QCOMPARE(str(parsedLines.at(0)["client"]), QStringLiteral("claude-code"));
    QCOMPARE(str(parsedLines.at(0)["status"]), QStringLiteral("ok"));
    QCOMPARE(str(parsedLines.at(0)["route"]), QStringLiteral("git"));
    QCOMPARE(parsedLines.at(0)["durationUs"].get<qint64>(), 12345);
    QCOMPARE(str(parsedLines.at(0)["arguments"]), QStringLiteral(R"({"path":"/src"})"));
    QCOMPARE(str(parsedLines.at(0)["startedAt"]),
        QDateTime::fromMSecsSinceEpoch(1790000000000).toUTC().toString(Qt::ISODate));
    const QString cutArguments = QStringLiteral(R"({"path":"/sr)"); // (moc cannot read this string in a macro)
    QCOMPARE(str(parsedLines.at(1)["arguments"]), cutArguments);
    QCOMPARE(str(parsedLines.at(1)["error"]), QStringLiteral("denied by a person: not on Fridays"));
    QVERIFY2(lines.err.contains("more calls are stored: raise --limit"), lines.err.constData());

    const OperatorPrinted table = OperatorOutput::reply(
        invocationOf(words("history")), targetAt(QStringLiteral("http://h:1")), 200, dumped(body), 0);
    const QList<QByteArray> rows = table.out.split('\n');
    QVERIFY2(
        rows.at(0).startsWith("ID  STARTED               CLIENT       TOOL        STATUS  TOOK   ERROR OR ARGUMENTS"),
        rows.at(0).constData());
    QVERIFY2(rows.at(1).startsWith("42  ") && rows.at(1).contains("git_status  ok      12 ms  {\"path\":\"/src\"}"),
        rows.at(1).constData());
    QVERIFY2(
        rows.at(2).contains("rm          denied  12 ms  denied by a person: not on Fridays"), rows.at(2).constData());

    const OperatorPrinted none = OperatorOutput::reply(invocationOf(words("history")),
        targetAt(QStringLiteral("http://h:1")), 200, QByteArrayLiteral(R"({"calls": [], "hasMore": false})"), 0);
    QCOMPARE(none.exitCode, 0);
    QVERIFY(none.out.isEmpty());
    QCOMPARE(none.err, QByteArray("switchboard history: no calls match\n"));
}

void TestOperatorCommand::statusAsText()
{
    const qint64 now = 1790000000000;
    const json body{{"server",
                        {{"name", "switchboard"}, {"version", "0.9.0"}, {"mcpUrl", "http://127.0.0.1:8765/mcp"},
                            {"startedAtMs", now - 3600000}, {"instance", "a1"},
                            {"operator", {{"name", "default"}, {"role", "admin"}}}}},
        {"sessions",
            {{{"id", "sess-1"}, {"clientName", "claude-code"}, {"clientVersion", "1"},
                 {"protocolVersion", "2025-06-18"}, {"startedAtMs", now - 60000}, {"lastActivityMs", now - 12000},
                 {"calls", 3}, {"ended", false}},
                {{"id", "sess-0"}, {"clientName", "gone"}, {"clientVersion", "1"}, {"protocolVersion", "2025-06-18"},
                    {"startedAtMs", 0}, {"lastActivityMs", 0}, {"calls", 0}, {"ended", true}}}},
        {"adapters",
            {{{"name", "github"}, {"endpoint", "https://x"}, {"connection", "ready"}, {"readOnly", false},
                 {"disabledByOperator", false}, {"toolCount", 12}, {"lastError", ""}},
                {{"name", "jira"}, {"endpoint", "https://y"}, {"connection", "failing"}, {"readOnly", false},
                    {"disabledByOperator", false}, {"toolCount", 0}, {"lastError", "connection refused"}}}},
        {"breakers",
            {{{"adapter", "github"}, {"phase", "closed"}, {"consecutiveFailures", 0}, {"failureThreshold", 5},
                 {"forcedOpen", false}, {"retryAtMs", 0}},
                {{"adapter", "jira"}, {"phase", "open"}, {"consecutiveFailures", 5}, {"failureThreshold", 5},
                    {"forcedOpen", false}, {"retryAtMs", now + 20000}}}},
        {"questions", 2}, {"warnings", {"bound to 0.0.0.0 without TLS"}}};
    const OperatorPrinted printed = OperatorOutput::reply(
        invocationOf(words("status")), targetAt(QStringLiteral("http://h:1")), 200, dumped(body), now);
    QCOMPARE(printed.exitCode, 0);
    const QByteArray expected
        = "switchboard 0.9.0 at http://127.0.0.1:8765/mcp, up 1h00m; you are operator:default (admin)\n"
          "questions waiting: 2 (switchboard questions)\n"
          "sessions: 1\n"
          "  ID      CLIENT       PROTOCOL    CALLS  LAST ACTIVE\n"
          "  sess-1  claude-code  2025-06-18  3      12s ago\n"
          "adapters: 2\n"
          "  NAME    CONNECTION  BREAKER              FAILURES  TOOLS  LAST ERROR\n"
          "  github  ready       closed               0/5       12     -\n"
          "  jira    failing     open (retry in 20s)  5/5       0      connection refused\n"
          "warnings: 1\n"
          "  bound to 0.0.0.0 without TLS\n";
    QCOMPARE(printed.out, expected);

    const OperatorPrinted asJson = OperatorOutput::reply(invocationOf(words("status", {QStringLiteral("--json")})),
        targetAt(QStringLiteral("http://h:1")), 200, dumped(body), now);
    QCOMPARE(asJson.out, dumpedAscii(body) + '\n');
}

void TestOperatorCommand::grantsAsTable()
{
    const json body{{"grants",
        {{{"id", "g-1"}, {"source", "always"}, {"subject", "git_push"}, {"permission", "allow"},
             {"clientName", "claude-code"}, {"sessionId", ""}, {"arguments", "{\"remote\": \"origin\"}"},
             {"grantedBy", "ada"}, {"grantedAtMs", 1790000000000}},
            {{"source", "configuration"}, {"subject", "every tool"}, {"permission", "ask"}, {"clientName", ""},
                {"arguments", ""}, {"origin", "permissions.default in /etc/switchboard.yaml"}}}}};
    const OperatorPrinted table = OperatorOutput::reply(
        invocationOf(words("grants")), targetAt(QStringLiteral("http://h:1")), 200, dumped(body), 0);
    QCOMPARE(table.exitCode, 0);
    const QList<QByteArray> rows = table.out.split('\n');
    QVERIFY2(rows.at(0).startsWith("ID   SOURCE         SUBJECT     PERMISSION  CLIENT        ARGUMENTS"),
        rows.at(0).constData());
    QVERIFY2(rows.at(1).startsWith(
                 "g-1  always         git_push    allow       claude-code   {\"remote\":\"origin\"}  ada, "),
        rows.at(1).constData());
    QVERIFY2(
        rows.at(2).startsWith("-    configuration  every tool  ask         every client  any"), rows.at(2).constData());
    QVERIFY(rows.at(2).endsWith("permissions.default in /etc/switchboard.yaml"));

    const OperatorPrinted lines = OperatorOutput::reply(invocationOf(words("grants", {QStringLiteral("--json")})),
        targetAt(QStringLiteral("http://h:1")), 200, dumped(body), 0);
    QCOMPARE(lines.out, dumpedAscii(body["grants"][0]) + '\n' + dumpedAscii(body["grants"][1]) + '\n');
}

void TestOperatorCommand::answerOutcomes()
{
    const AttachTarget target = targetAt(QStringLiteral("http://h:1"));
    const OperatorInvocation allow
        = invocationOf(words("answer", {QStringLiteral("ia-1"), QStringLiteral("allow_once")}));
    OperatorPrinted printed = OperatorOutput::reply(allow, target, 200,
        QByteArrayLiteral(R"({"answered": true, "id": "ia-1", "outcome": "answered", "by": "operator:default"})"), 0);
    QCOMPARE(printed.exitCode, 0);
    QCOMPARE(printed.out,
        QByteArray("answered ia-1 with allow_once: the waiting call has it (recorded as operator:default)\n"));
    printed = OperatorOutput::reply(allow, target, 200,
        QByteArrayLiteral(R"({"answered": true, "id": "ia-1", "outcome": "stored", "by": "operator:ci"})"), 0);
    QCOMPARE(printed.out,
        QByteArray("answered ia-1 with allow_once: no call was waiting; the answer is kept for the client's next "
                   "identical call (recorded as operator:ci)\n"));

    const OperatorInvocation reset
        = invocationOf(words("breaker", {QStringLiteral("reset"), QStringLiteral("github")}));
    printed = OperatorOutput::reply(reset, target, 200, QByteArrayLiteral(R"({"ok": true})"), 0);
    QCOMPARE(printed.out, QByteArray("reset the breaker of adapter github: it is closed\n"));
    const OperatorInvocation open = invocationOf(words("breaker", {QStringLiteral("open"), QStringLiteral("github")}));
    printed = OperatorOutput::reply(open, target, 200, QByteArrayLiteral(R"({"ok": true})"), 0);
    QVERIFY(printed.out.startsWith("forced the breaker of adapter github open"));
    const OperatorInvocation revoke = invocationOf(words("grant", {QStringLiteral("revoke"), QStringLiteral("g-1")}));
    printed = OperatorOutput::reply(revoke, target, 200, QByteArrayLiteral(R"({"ok": true})"), 0);
    QCOMPARE(printed.out, QByteArray("revoked grant g-1: the calls it let through ask again\n"));

    // 200 with what is not the API's JSON.
    printed = OperatorOutput::reply(revoke, target, 200, QByteArrayLiteral("<html>hello</html>"), 0);
    QCOMPARE(printed.exitCode, 1);
    QVERIFY2(printed.err.contains("is not a JSON object"), printed.err.constData());
    printed = OperatorOutput::reply(invocationOf(words("questions")), target, 200, QByteArrayLiteral("{}"), 0);
    QCOMPARE(printed.exitCode, 1);
    QVERIFY2(printed.err.contains("no \"questions\" list"), printed.err.constData());
}

void TestOperatorCommand::refusals_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("says");

    const QStringList answer = words("answer", {QStringLiteral("ia-9"), QStringLiteral("allow_once")});
    const auto error = [](const char* code, const char* message) {
        return QByteArray::fromStdString(json{{"error", {{"code", code}, {"message", message}}}}.dump());
    };
    const QByteArray op = "sbop_right";
    QTest::newRow("401 wrong token") << answer << 401 << error("unauthorized", "the token is not an operator token")
                                     << op << 3
                                     << QStringLiteral("http://h:1 did not accept the operator token from "
                                                       "SWITCHBOARD_OPERATOR_TOKEN: a wrong token");
    QTest::newRow("401 names the file") << answer << 401 << error("unauthorized", "wrong") << op << 3
                                        << QStringLiteral("/state/operator-token");
    QTest::newRow("401 no token") << answer << 401 << error("unauthorized", "no token") << QByteArray() << 3
                                  << QStringLiteral("no operator token: SWITCHBOARD_OPERATOR_TOKEN is not set and "
                                                    "/state/operator-token does not exist");
    QTest::newRow("401 an MCP client's token, by its prefix")
        << answer << 401 << error("unauthorized", "not an operator token") << QByteArray("sbc_abc") << 3
        << QStringLiteral(
               "is an MCP client token; the operator API needs the operator token from "
               "<state-dir>/operator-token (on this machine: /state/operator-token) or SWITCHBOARD_OPERATOR_TOKEN");
    QTest::newRow("401 an MCP client's token, by the server's word")
        << answer << 401 << error("unauthorized", "this is an MCP client's token") << op << 3
        << QStringLiteral("is an MCP client token");
    QTest::newRow("403 role") << answer << 403
                              << error("forbidden", "operator:viewer needs the answerer role to answer questions") << op
                              << 1
                              << QStringLiteral(
                                     "not allowed: operator:viewer needs the answerer role to answer questions");
    QTest::newRow("404 question") << answer << 404 << error("not_found", "no such question") << op << 1
                                  << QStringLiteral("no question ia-9: answered already or never asked");
    QTest::newRow("404 adapter") << words("breaker", {QStringLiteral("reset"), QStringLiteral("nope")}) << 404
                                 << error("not_found", "no such adapter") << op << 1
                                 << QStringLiteral("no adapter named nope");
    QTest::newRow("404 grant") << words("grant", {QStringLiteral("revoke"), QStringLiteral("g-7")}) << 404
                               << error("not_found", "no such grant") << op << 1
                               << QStringLiteral("no grant g-7: revoked already or never given");
    QTest::newRow("404 without the API") << words("questions") << 404 << QByteArray("Not Found") << op << 3
                                         << QStringLiteral("http://h:1 has no operator API (HTTP 404 for "
                                                           "/operator/v1/questions)");
    QTest::newRow("404 from a server without the API")
        << answer << 404 << error("not_found", "this server has no operator API") << op << 3
        << QStringLiteral("http://h:1 has no operator API (HTTP 404 for "
                          "/operator/v1/questions/ia-9/answer (the "
                          "server says: this server has no operator API)");
    QTest::newRow("409") << answer << 409 << error("conflict", "this question takes confirm or decline, not allow_once")
                         << op << 1
                         << QStringLiteral("refused: this question takes confirm or decline, not allow_once");
    QTest::newRow("400") << answer << 400 << error("bad_request", "unknown answer") << op << 1
                         << QStringLiteral("the server refused (HTTP 400, bad_request): unknown answer");
    QTest::newRow("503") << words("status") << 503 << error("unavailable", "the backend is stopping") << op << 3
                         << QStringLiteral("http://h:1 cannot serve now (the server says: the backend is stopping)");
    QTest::newRow("500 not the API's") << words("status") << 500 << QByteArray("oops") << op << 1
                                       << QStringLiteral("answered HTTP 500, not as the operator API does");
    QTest::newRow("a message with a control character")
        << answer << 409 << error("conflict", "line\nforged \x1b[31mred") << op << 1
        << QStringLiteral("refused: line\\nforged \\x1b[31mred");
}

void TestOperatorCommand::refusals()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, token);
    QFETCH(int, exitCode);
    QFETCH(QString, says);
    AttachTarget target = targetAt(QStringLiteral("http://h:1"), token);
    if (token.isEmpty()) {
        target.credential.source = target.credential.tokenFile;
        target.credential.problem = QStringLiteral("does not exist");
    }
    target.credential.clientToken = token.startsWith("sbc_");
    const OperatorPrinted printed = OperatorOutput::reply(invocationOf(arguments), target, status, body, 0);
    QCOMPARE(printed.exitCode, exitCode);
    QVERIFY(printed.out.isEmpty());
    QVERIFY2(
        printed.err.startsWith(QByteArray("switchboard " + arguments.at(1).toUtf8() + ": ")), printed.err.constData());
    QVERIFY2(QString::fromUtf8(printed.err).contains(says), printed.err.constData());
    QCOMPARE(printed.err.count('\n'), 1); // one line: the server's words cannot forge another
    QVERIFY(!printed.err.contains('\x1b'));
    if (!token.isEmpty())
        QVERIFY(!printed.err.contains(token)); // never the token itself
}

void TestOperatorCommand::unreachable()
{
    const AttachTarget target = targetAt(QStringLiteral("http://h:1"));
    const OperatorInvocation status
        = invocationOf(words("status", {QStringLiteral("--timeout"), QStringLiteral("2.5")}));
    QCOMPARE(status.timeoutMs, 2500);
    struct Case
    {
        OperatorOutput::Unreached why;
        const char* says;
    };
    for (const Case& c :
        {Case{OperatorOutput::Unreached::Refused, "no Switchboard answers at http://h:1: is it running?"},
            Case{OperatorOutput::Unreached::HostNotFound, "cannot find the host h"},
            Case{OperatorOutput::Unreached::TimedOut, "no answer from http://h:1 within 2.5 s (--timeout)"},
            Case{OperatorOutput::Unreached::Closed, "closed the connection without an answer"},
            Case{OperatorOutput::Unreached::Tls, "TLS with http://h:1 failed"},
            Case{OperatorOutput::Unreached::Other, "cannot reach http://h:1: detail"}}) {
        const OperatorPrinted printed = OperatorOutput::unreached(status, target, c.why, QStringLiteral("detail"));
        QCOMPARE(printed.exitCode, 3);
        QVERIFY2(printed.err.contains(c.says), printed.err.constData());
    }
}

namespace {

struct Ran
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Ran runCommand(const QStringList& arguments, const OperatorCommand::Environment& environment)
{
    Ran ran;
    ran.exitCode = OperatorCommand::run(arguments, environment, &ran.out, &ran.err);
    return ran;
}

OperatorCommand::Environment tokenEnvironment(const QByteArray& token = QByteArrayLiteral("sbop_the-operator-token"))
{
    OperatorCommand::Environment environment;
    environment.operatorToken = token;
    return environment;
}

} // namespace

void TestOperatorCommand::againstFakeServer_sendsTheRequestWithTheToken()
{
    FakeOperatorApi api;
    QVERIFY(api.port != 0);
    api.body = dumped(json{{"questions", {question("ia-1", "approval", "rm", "claude-code", "{}", 1)}}});
    // --attach with the MCP URL: the request goes to the operator API beside it.
    Ran ran = runCommand(
        words("questions", {QStringLiteral("--json"), QStringLiteral("--attach"), api.url(QStringLiteral("/mcp"))}),
        tokenEnvironment());
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QCOMPARE(api.seen.size(), 1);
    QCOMPARE(api.seen.at(0).method, QByteArray("GET"));
    QCOMPARE(api.seen.at(0).path, QStringLiteral("/operator/v1/questions"));
    QCOMPARE(api.seen.at(0).authorization, QByteArray("Bearer sbop_the-operator-token"));
    QVERIFY(api.seen.at(0).origin.isEmpty()); // the API refuses any Origin
    QCOMPARE(jsonLines(ran.out).size(), 1);
    QVERIFY(ran.err.isEmpty()); // loopback over http: no warning

    // SWITCHBOARD_ATTACH when there is no --attach, with the operator API's own URL.
    api.body
        = QByteArrayLiteral(R"({"answered": true, "id": "ia-1", "outcome": "answered", "by": "operator:default"})");
    OperatorCommand::Environment environment = tokenEnvironment();
    environment.attach = api.url(QStringLiteral("/operator/v1/"));
    ran = runCommand(words("answer",
                         {QStringLiteral("ia-1"), QStringLiteral("always_allow"), QStringLiteral("--scope"),
                             QStringLiteral("all-any")}),
        environment);
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QCOMPARE(api.seen.size(), 2);
    QCOMPARE(api.seen.at(1).method, QByteArray("POST"));
    QCOMPARE(api.seen.at(1).path, QStringLiteral("/operator/v1/questions/ia-1/answer"));
    QCOMPARE(api.seen.at(1).contentType, QByteArray("application/json"));
    QCOMPARE(dumped(parsed(api.seen.at(1).body)), dumped(json({{"answer", "always_allow"}, {"scope", "all-any"}})));
    QCOMPARE(ran.out,
        QByteArray("answered ia-1 with always_allow: the waiting call has it (recorded as operator:default)\n"));

    // History's filters arrive as they were typed.
    api.body = QByteArrayLiteral(R"({"calls": [], "hasMore": false})");
    ran = runCommand(words("history",
                         {QStringLiteral("--attach"), api.url(), QStringLiteral("--client"),
                             QStringLiteral("a&b=c+d %41"), QStringLiteral("--limit"), QStringLiteral("7")}),
        tokenEnvironment());
    QCOMPARE(ran.exitCode, 0);
    QCOMPARE(api.seen.at(2).query.queryItemValue(QStringLiteral("client"), QUrl::FullyDecoded),
        QStringLiteral("a&b=c+d %41"));
    QCOMPARE(api.seen.at(2).query.queryItemValue(QStringLiteral("limit")), QStringLiteral("7"));

    // DELETE for a grant.
    api.body = QByteArrayLiteral(R"({"ok": true})");
    ran = runCommand(
        words("grant", {QStringLiteral("revoke"), QStringLiteral("g-3"), QStringLiteral("--attach"), api.url()}),
        tokenEnvironment());
    QCOMPARE(ran.exitCode, 0);
    QCOMPARE(api.seen.at(3).method, QByteArray("DELETE"));
    QCOMPARE(api.seen.at(3).path, QStringLiteral("/operator/v1/grants/g-3"));
}

void TestOperatorCommand::againstFakeServer_refusals_data()
{
    QTest::addColumn<QStringList>("rest");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("says");

    const QStringList answer{QStringLiteral("ia-404"), QStringLiteral("deny")};
    QTest::newRow("401") << answer << 401
                         << QByteArray(
                                R"({"error":{"code":"unauthorized","message":"the token is not an operator token"}})")
                         << 3 << QByteArray("did not accept the operator token from SWITCHBOARD_OPERATOR_TOKEN");
    QTest::newRow("403") << answer << 403
                         << QByteArray(R"({"error":{"code":"forbidden","message":"needs the answerer role"}})") << 1
                         << QByteArray("not allowed: needs the answerer role");
    QTest::newRow("404") << answer << 404
                         << QByteArray(R"({"error":{"code":"not_found","message":"no such question"}})") << 1
                         << QByteArray("no question ia-404: answered already or never asked");
    QTest::newRow("409") << answer << 409
                         << QByteArray(
                                R"({"error":{"code":"conflict","message":"the question was answered meanwhile"}})")
                         << 1 << QByteArray("refused: the question was answered meanwhile");
}

void TestOperatorCommand::againstFakeServer_refusals()
{
    QFETCH(QStringList, rest);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, says);
    FakeOperatorApi api;
    api.status = status;
    api.body = body;
    if (status == 401)
        api.headers = {{"WWW-Authenticate", R"(Bearer realm="switchboard-operator")"}};
    const Ran ran
        = runCommand(words("answer", rest + QStringList{QStringLiteral("--attach"), api.url()}), tokenEnvironment());
    QCOMPARE(ran.exitCode, exitCode);
    QVERIFY(ran.out.isEmpty());
    QVERIFY2(ran.err.contains(says), ran.err.constData());
    QCOMPARE(api.seen.size(), 1);
}

void TestOperatorCommand::againstFakeServer_connectionRefused()
{
    // A port nothing listens on: taken, then let go.
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress(QHostAddress::LocalHost), 0));
    const quint16 port = taken.serverPort();
    taken.close();
    const QString url = QStringLiteral("http://127.0.0.1:%1").arg(port);
    const Ran ran
        = runCommand(words("status", {QStringLiteral("--attach"), url + QStringLiteral("/mcp")}), tokenEnvironment());
    QCOMPARE(ran.exitCode, 3);
    QCOMPARE(ran.err,
        QByteArray("switchboard status: no Switchboard answers at " + url.toUtf8()
            + ": is it running? (the URL is from --attach)\n"));
}

void TestOperatorCommand::againstFakeServer_timeout()
{
    FakeOperatorApi api;
    api.silent = true;
    QElapsedTimer clock;
    clock.start();
    const Ran ran = runCommand(
        words("questions", {QStringLiteral("--attach"), api.url(), QStringLiteral("--timeout"), QStringLiteral("0.5")}),
        tokenEnvironment());
    QCOMPARE(ran.exitCode, 3);
    QVERIFY2(ran.err.contains(QByteArray("no answer from " + api.url().toUtf8() + " within 0.5 s (--timeout)")),
        ran.err.constData());
    QVERIFY2(clock.elapsed() < 10000, QByteArray::number(clock.elapsed()).constData());
}

void TestOperatorCommand::againstFakeServer_apiKeyFromStdin()
{
    FakeOperatorApi api;
    api.body = QByteArrayLiteral(R"({"answered": true, "id": "ia-5", "outcome": "stored", "by": "operator:default"})");
    const QByteArray key = "sk-test-0123456789";
    OperatorCommand::Environment environment = tokenEnvironment();
    int reads = 0;
    environment.readSecret = [&](int, QString*) -> std::optional<QByteArray> {
        ++reads;
        return "\n  " + key + "\r\n";
    };
    const auto connect = [&](const QString& id, const QStringList& options = {}) {
        return words(
            "answer", QStringList{id, QStringLiteral("connect"), QStringLiteral("--attach"), api.url()} + options);
    };
    const QStringList github{QStringLiteral("--provider"), QStringLiteral("github")};
    Ran ran = runCommand(connect(QStringLiteral("ia-5"), github), environment);
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QCOMPARE(reads, 1);
    QCOMPARE(api.seen.size(), 1);
    // The whole of stdin, trimmed, as the body's apiKey; never on stdout or stderr.
    QCOMPARE(dumped(parsed(api.seen.at(0).body)),
        dumped(json({{"answer", "connect"}, {"provider", "github"}, {"apiKey", key.toStdString()}})));
    QVERIFY(!ran.out.contains(key));
    QVERIFY(!ran.err.contains(key));

    // Without --provider, the question's provider: looked up first.
    api.seen.clear();
    api.bodyOfPath.insert(QStringLiteral("/operator/v1/questions"),
        dumped(json{{"questions",
            {question("ia-4", "approval", "rm", "c", "{}", 1),
                question("ia-5", "connect", "request_connection", "c", "{}", 1, {{"provider", "openai"}})}}}));
    ran = runCommand(connect(QStringLiteral("ia-5")), environment);
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QCOMPARE(api.seen.size(), 2);
    QCOMPARE(api.seen.at(0).method, QByteArray("GET"));
    QCOMPARE(api.seen.at(0).path, QStringLiteral("/operator/v1/questions"));
    QCOMPARE(dumped(parsed(api.seen.at(1).body)),
        dumped(json({{"answer", "connect"}, {"provider", "openai"}, {"apiKey", key.toStdString()}})));
    QVERIFY(!ran.out.contains(key) && !ran.err.contains(key));

    // A question that is not there: said before the key is read.
    reads = 0;
    ran = runCommand(connect(QStringLiteral("ia-6")), environment);
    QCOMPARE(ran.exitCode, 1);
    QVERIFY2(ran.err.contains("no question ia-6: answered already or never asked"), ran.err.constData());
    QCOMPARE(reads, 0);
    QCOMPARE(api.seen.size(), 3);
    api.seen.clear();
    api.bodyOfPath.clear();

    // An empty key is refused before anything is sent.
    environment.readSecret = [](int, QString*) -> std::optional<QByteArray> { return QByteArray(" \n\t"); };
    ran = runCommand(connect(QStringLiteral("ia-5"), github), environment);
    QCOMPARE(ran.exitCode, 2);
    QVERIFY2(ran.err.contains("connect reads the API key from stdin, and stdin held none"), ran.err.constData());
    QVERIFY(api.seen.isEmpty());

    // stdin that cannot be read.
    environment.readSecret = [](int, QString* error) -> std::optional<QByteArray> {
        *error = QStringLiteral("stdin was not closed within 30 s");
        return std::nullopt;
    };
    ran = runCommand(connect(QStringLiteral("ia-5"), github), environment);
    QCOMPARE(ran.exitCode, 2);
    QVERIFY2(ran.err.contains("stdin was not closed"), ran.err.constData());
    QVERIFY(api.seen.isEmpty());

    // A refusal of the server does not echo the key either.
    api.status = 409;
    api.body
        = QByteArrayLiteral(R"({"error":{"code":"conflict","message":"this question is not a connect question"}})");
    environment.readSecret = [&](int, QString*) -> std::optional<QByteArray> { return key; };
    ran = runCommand(connect(QStringLiteral("ia-5"), github), environment);
    QCOMPARE(ran.exitCode, 1);
    QVERIFY2(ran.err.contains("refused: this question is not a connect question"), ran.err.constData());
    QVERIFY(!ran.err.contains(key));
}

void TestOperatorCommand::againstFakeServer_redirectIsNotFollowed()
{
    FakeOperatorApi elsewhere;
    FakeOperatorApi api;
    api.status = 302;
    api.headers = {{"Location", elsewhere.url(QStringLiteral("/operator/v1/status")).toUtf8()}};
    const Ran ran = runCommand(words("status", {QStringLiteral("--attach"), api.url()}), tokenEnvironment());
    QCOMPARE(ran.exitCode, 3);
    QVERIFY2(ran.err.contains(QByteArray("answered with a redirect (HTTP 302 to " + elsewhere.url().toUtf8())),
        ran.err.constData());
    QVERIFY(elsewhere.seen.isEmpty()); // the token went nowhere else
}

void TestOperatorCommand::againstFakeServer_tokenFromStateDirAndPortFromConfig()
{
    FakeOperatorApi api;
    QTemporaryDir directory;
    QFile config(directory.filePath(QStringLiteral("config.yaml")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("server:\n  port: " + QByteArray::number(api.port) + "\n");
    config.close();
    QFile token(directory.filePath(QStringLiteral("operator-token")));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("sbop_from-the-file\n");
    token.close();
    api.body = QByteArrayLiteral(R"({"server": {"name": "switchboard"}, "questions": 0})");

    const QStringList arguments = words(
        "status", {QStringLiteral("--config"), config.fileName(), QStringLiteral("--state-dir"), directory.path()});
    Ran ran = runCommand(arguments, OperatorCommand::Environment());
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QCOMPARE(api.seen.size(), 1);
    QCOMPARE(api.seen.at(0).authorization, QByteArray("Bearer sbop_from-the-file"));
    QVERIFY(ran.out.startsWith("switchboard\n"));

    // SWITCHBOARD_OPERATOR_TOKEN wins over the file.
    ran = runCommand(arguments, tokenEnvironment("sbop_from-the-variable"));
    QCOMPARE(ran.exitCode, 0);
    QCOMPARE(api.seen.at(1).authorization, QByteArray("Bearer sbop_from-the-variable"));

    // A configuration that cannot be read stops the command (exit 1), naming the file.
    QFile broken(directory.filePath(QStringLiteral("broken.yaml")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("server: [unclosed\n");
    broken.close();
    ran = runCommand(words("status", {QStringLiteral("--config"), broken.fileName()}), tokenEnvironment());
    QCOMPARE(ran.exitCode, 1);
    QVERIFY2(ran.err.contains("broken.yaml"), ran.err.constData());
    QCOMPARE(api.seen.size(), 2);

    // --attach that is no URL: a usage error.
    ran = runCommand(words("status", {QStringLiteral("--attach"), QStringLiteral("ftp://x")}), tokenEnvironment());
    QCOMPARE(ran.exitCode, 2);
    QVERIFY2(ran.err.contains("--attach: \"ftp://x\" is not an http or https URL"), ran.err.constData());
}

void TestOperatorCommand::againstFakeServer_noToken()
{
    FakeOperatorApi api;
    api.status = 401;
    api.body = QByteArrayLiteral(R"({"error":{"code":"unauthorized","message":"no operator token"}})");
    QTemporaryDir empty;
    const Ran ran = runCommand(
        words("questions", {QStringLiteral("--attach"), api.url(), QStringLiteral("--state-dir"), empty.path()}),
        OperatorCommand::Environment());
    QCOMPARE(ran.exitCode, 3);
    QVERIFY2(ran.err.contains(QByteArray("no operator token: SWITCHBOARD_OPERATOR_TOKEN is not set and "
                 + QDir(empty.path()).filePath(QStringLiteral("operator-token")).toUtf8() + " does not exist")),
        ran.err.constData());
    QCOMPARE(api.seen.size(), 1);
    QVERIFY(api.seen.at(0).authorization.isEmpty());
}

void TestOperatorCommand::againstFakeServer_clientTokenIsNamed()
{
    FakeOperatorApi api;
    api.status = 401;
    api.body = QByteArrayLiteral(R"({"error":{"code":"unauthorized","message":"not an operator token"}})");
    // The state directory's MCP token given as the operator token: named as what it is.
    QTemporaryDir directory;
    QFile mcpToken(directory.filePath(QStringLiteral("token")));
    QVERIFY(mcpToken.open(QIODevice::WriteOnly));
    mcpToken.write("a-custom-mcp-token-of-forty-characters-xx\n");
    mcpToken.close();
    const Ran ran = runCommand(
        words("status", {QStringLiteral("--attach"), api.url(), QStringLiteral("--state-dir"), directory.path()}),
        tokenEnvironment("a-custom-mcp-token-of-forty-characters-xx"));
    QCOMPARE(ran.exitCode, 3);
    QVERIFY2(ran.err.contains("the token from SWITCHBOARD_OPERATOR_TOKEN is an MCP client token; the operator API "
                              "needs the operator token from <state-dir>/operator-token"),
        ran.err.constData());
    QVERIFY(!ran.err.contains("a-custom-mcp-token"));
}

QTEST_GUILESS_MAIN(TestOperatorCommand)
#include "tst_operatorcommand.moc"
