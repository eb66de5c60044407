#include <QTest>

// CurlCommand's script run for real: bash runs it (curl initializes a session, sends the recorded
// call in it and ends the session) against a real server with a token, and the server receives
// exactly the recorded arguments, however a shell would read them, in an argument and through a
// here-document.

#include "curlcommand.h"
#include "jsontestsupport.h"
#include "protocol/protocolversion.h"
#include "serverfixture.h"
#include "shellattackstrings.h"

#include <QProcess>

using nlohmann::json;

class TestCurlCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void curlProtocolVersionIsSpoken();
    void curlScriptRunsAgainstARealServer_data();
    void curlScriptRunsAgainstARealServer();
};

void TestCurlCommand::curlProtocolVersionIsSpoken()
{
    QVERIFY(ProtocolVersion::isSupported(std::string(CurlCommand::ProtocolVersion)));
}

void TestCurlCommand::curlScriptRunsAgainstARealServer_data()
{
    QTest::addColumn<int>("padding");
    QTest::newRow("argument") << 0;
    // Over MaxArgumentBytes: the body goes through a here-document.
    QTest::newRow("here-document") << int(CurlCommand::MaxArgumentBytes) + 1000;
}

void TestCurlCommand::curlScriptRunsAgainstARealServer()
{
    QFETCH(int, padding);
    ServerFixture server;
    QVERIFY(server.port != 0);
    json arguments = json::object();
    int n = 0;
    for (const QString& text : attackStrings())
        arguments["a" + std::to_string(n++)] = text.toStdString();
    arguments["padding"] = std::string(std::size_t(padding), 'x');
    ToolCall recorded;
    recorded.id = 42;
    recorded.tool = QStringLiteral("echo");
    recorded.request = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", 42}, {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", arguments}}}}
                                                     .dump());
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/mcp").arg(server.port));
    const QString script = CurlCommand::forCall(recorded, url, true);

    QProcess bash;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(ServerFixture::token()));
    bash.setProcessEnvironment(environment);
    bash.start(QStringLiteral("bash"), {QStringLiteral("-s")});
    bash.write(script.toUtf8());
    bash.closeWriteChannel();
    QVERIFY(bash.waitForFinished(60'000));
    const QByteArray output = bash.readAllStandardOutput();
    const QByteArray errors = bash.readAllStandardError();
    QVERIFY2(errors.isEmpty(), errors.constData());
    QCOMPARE(bash.exitCode(), 0);

    // The server ran the call with exactly the recorded arguments, in a session that then ended.
    QTRY_VERIFY_WITH_TIMEOUT(!server.finishedCalls().isEmpty(), 30'000);
    const ToolCallList calls = server.finishedCalls();
    QCOMPARE(calls.size(), 1);
    QCOMPARE(calls.first().tool, QStringLiteral("echo"));
    QCOMPARE(calls.first().status, CallStatus::Ok);
    QCOMPARE_JSON(json::parse(calls.first().request.toStdString())["params"]["arguments"], arguments);
    QCOMPARE(calls.first().clientName, QStringLiteral("curl"));
    QTRY_COMPARE_WITH_TIMEOUT(server.sessionCount(), 0, 30'000);
    // What curl printed is the answer (JSON, or an event stream whose data line is).
    QByteArray answer = output.trimmed();
    if (const qsizetype data = answer.indexOf("data: "); data >= 0)
        answer = answer.mid(data + 6).split('\n').first();
    const json response = json::parse(answer.toStdString(), nullptr, false);
    QVERIFY2(response.is_object(), output.left(500).constData());
    QCOMPARE_JSON(response["result"]["structuredContent"], arguments);
}

QTEST_GUILESS_MAIN(TestCurlCommand)
#include "tst_curlcommand.moc"
