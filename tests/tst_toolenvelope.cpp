// ToolEnvelope: every envelope form a per-invocation router hands over, where the tool name comes
// from, which metadata wins, what is refused and how; and the answers written back for results,
// tool errors, protocol errors and the runner's own failures, in the plain and the JSON-RPC form.

#include <QTest>

#include "jsontestsupport.h"
#include "tools/toolenvelope.h"

using nlohmann::json;

namespace {

constexpr qint64 Limit = 1024 * 1024;

json answerJson(const RunnerAnswer& answer)
{
    return json::parse(answer.text.toStdString());
}

} // namespace

class TestToolEnvelope : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void acceptedForms_data();
    void acceptedForms();
    void refusedEnvelopes_data();
    void refusedEnvelopes();
    void jsonRpcRefusalsKeepTheirId_data();
    void jsonRpcRefusalsKeepTheirId();
    void commandLineNameWinsOverTheRouters();
    void invocationIsPreferredOverLegacyAuth();
    void legacyAuthIsUsedWhenThereIsNoInvocation();
    void toolsCallRequestCarriesNameArgumentsAndProgressToken();
    void answersAResult();
    void answersAToolErrorAsFailure();
    void argumentsTheSchemaRefusedAreABadCall();
    void answersAnUnknownToolWithClosestMatches();
    void answersInTheJsonRpcForm();
    void failuresAreOneLineOfJson();
};

void TestToolEnvelope::acceptedForms_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("callerName"); // TOOL_NAME
    QTest::addColumn<int>("form");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QByteArray>("arguments");

    using F = ToolEnvelope::Form;
    QTest::newRow("tool/input/metadata") << QByteArray(R"({"tool":"echo","input":{"text":"a"},"metadata":{}})")
                                         << QString() << int(F::ToolInput) << "echo" << QByteArray(R"({"text":"a"})");
    QTest::newRow("tool_name/arguments") << QByteArray(R"({"tool_name":"git_status","arguments":{"repo_path":"r"}})")
                                         << QString() << int(F::ToolNameArguments) << "git_status"
                                         << QByteArray(R"({"repo_path":"r"})");
    QTest::newRow("name/arguments") << QByteArray(R"({"name":"echo","arguments":{"n":1}})") << QString()
                                    << int(F::NameArguments) << "echo" << QByteArray(R"({"n":1})");
    QTest::newRow("json-rpc") << QByteArray(
        R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"q":true}}})")
                              << QString() << int(F::JsonRpc) << "echo" << QByteArray(R"({"q":true})");
    QTest::newRow("no input is empty arguments")
        << QByteArray(R"({"tool":"echo"})") << QString() << int(F::ToolInput) << "echo" << QByteArray("{}");
    QTest::newRow("null input is empty arguments") << QByteArray(R"({"tool":"echo","input":null})") << QString()
                                                   << int(F::ToolInput) << "echo" << QByteArray("{}");
    QTest::newRow("name from TOOL_NAME, envelope without one")
        << QByteArray(R"({"input":{"a":1}})") << QStringLiteral("echo") << int(F::ToolInput) << "echo"
        << QByteArray(R"({"a":1})");
    QTest::newRow("TOOL_NAME agrees with the envelope")
        << QByteArray(R"({"tool":"echo","input":{}})") << QStringLiteral("echo") << int(F::ToolInput) << "echo"
        << QByteArray("{}");
    QTest::newRow("tool with arguments instead of input")
        << QByteArray(R"({"tool":"echo","arguments":{"b":2}})") << QString() << int(F::ToolInput) << "echo"
        << QByteArray(R"({"b":2})");
    QTest::newRow("unknown fields are ignored")
        << QByteArray(R"({"tool":"echo","input":{},"requestId":"r-1","extra":[1]})") << QString() << int(F::ToolInput)
        << "echo" << QByteArray("{}");
    QTest::newRow("whitespace around it")
        << QByteArray(" \n{\"name\":\"echo\"}\n\n") << QString() << int(F::NameArguments) << "echo" << QByteArray("{}");
}

void TestToolEnvelope::acceptedForms()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, callerName);
    QFETCH(int, form);
    QFETCH(QString, tool);
    QFETCH(QByteArray, arguments);
    ToolEnvelope::Failure failure;
    const std::optional<ToolEnvelope> envelope = ToolEnvelope::parse(text, {QString(), callerName}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(int(envelope->form()), form);
    QCOMPARE(envelope->toolName(), tool);
    QCOMPARE_JSON(envelope->arguments(), json::parse(arguments.toStdString()));
    QVERIFY(envelope->invocation().is_null());
}

void TestToolEnvelope::refusedEnvelopes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("callerName");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("says");

    QTest::newRow("empty") << QByteArray() << QString() << "invalid_envelope"
                           << "stdin is empty";
    QTest::newRow("blank") << QByteArray(" \n\t ") << QString() << "invalid_envelope"
                           << "stdin is empty";
    QTest::newRow("not json") << QByteArray("tool=echo") << QString() << "invalid_json"
                              << "not one JSON value";
    QTest::newRow("two values") << QByteArray(R"({"tool":"echo"} {"tool":"echo"})") << QString() << "invalid_json"
                                << "not one JSON value";
    QTest::newRow("array") << QByteArray("[1,2]") << QString() << "invalid_envelope"
                           << "must be a JSON object";
    QTest::newRow("string") << QByteArray(R"("echo")") << QString() << "invalid_envelope"
                            << "must be a JSON object";
    QTest::newRow("no tool anywhere") << QByteArray(R"({"input":{}})") << QString() << "invalid_envelope"
                                      << "names no tool";
    QTest::newRow("nothing known") << QByteArray(R"({"hello":1})") << QStringLiteral("echo") << "invalid_envelope"
                                   << "names no tool";
    QTest::newRow("tool is a number") << QByteArray(R"({"tool":7})") << QString() << "invalid_envelope"
                                      << "non-empty string";
    QTest::newRow("tool is empty") << QByteArray(R"({"tool":""})") << QString() << "invalid_envelope"
                                   << "non-empty string";
    QTest::newRow("names disagree") << QByteArray(R"({"tool":"git_push"})") << QStringLiteral("git_status")
                                    << "tool_name_conflict"
                                    << "must agree";
    QTest::newRow("input is an array") << QByteArray(R"({"tool":"echo","input":[1]})") << QString()
                                       << "invalid_arguments"
                                       << "must be a JSON object";
    QTest::newRow("arguments are a string")
        << QByteArray(R"({"name":"echo","arguments":"x"})") << QString() << "invalid_arguments"
        << "must be a JSON object";
    QTest::newRow("metadata is a string")
        << QByteArray(R"({"tool":"echo","metadata":"m"})") << QString() << "invalid_envelope"
        << "metadata must be";
    QTest::newRow("invocation is a list")
        << QByteArray(R"({"tool":"echo","metadata":{"invocation":[]}})") << QString() << "invalid_envelope"
        << "metadata.invocation must be";
    QTest::newRow("json-rpc other method")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})") << QString() << "invalid_envelope"
        << "tools/call request";
    QTest::newRow("json-rpc notification")
        << QByteArray(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}})") << QString()
        << "invalid_envelope"
        << "tools/call request";
    QTest::newRow("json-rpc without params")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})") << QString() << "invalid_envelope"
        << "needs params";
    QTest::newRow("json-rpc wrong version")
        << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"echo"}})") << QString()
        << "invalid_envelope"
        << "not a valid JSON-RPC request";
    QTest::newRow("nested too deep") << QByteArray(R"({"tool":"echo","input":{"a":)") + QByteArray(100, '[')
            + QByteArray(100, ']') + QByteArray("}}")
                                     << QString() << "invalid_json"
                                     << "not one JSON value";
    QTest::newRow("too large") << QByteArray(R"({"tool":"echo","input":{"t":")") + QByteArray(int(Limit), 'x')
            + QByteArray(R"("}})")
                               << QString() << "envelope_too_large"
                               << "larger than";
}

void TestToolEnvelope::refusedEnvelopes()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, callerName);
    QFETCH(QString, code);
    QFETCH(QString, says);
    ToolEnvelope::Failure failure;
    QVERIFY(!ToolEnvelope::parse(text, {QString(), callerName}, Limit, &failure));
    QCOMPARE(QString::fromStdString(failure.code), code);
    QVERIFY2(failure.message.contains(says), qPrintable(failure.message));
    // What a person or a model reads stays short whatever the envelope held.
    QVERIFY2(failure.message.size() < 700, qPrintable(failure.message.left(800)));
}

// A JSON-RPC envelope the runner refuses is still answered as JSON-RPC: with "jsonrpc" and its id
// (null only when it has none that can be read), whatever part of it was wrong.
void TestToolEnvelope::jsonRpcRefusalsKeepTheirId_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("id");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("jsonRpcCode");

    QTest::newRow("other method") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})") << QByteArray("1")
                                  << "invalid_envelope" << -32600;
    QTest::newRow("notification") << QByteArray(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"e"}})")
                                  << QByteArray("null") << "invalid_envelope" << -32600;
    QTest::newRow("without params") << QByteArray(R"({"jsonrpc":"2.0","id":"p","method":"tools/call"})")
                                    << QByteArray(R"("p")") << "invalid_envelope" << -32600;
    QTest::newRow("wrong version") << QByteArray(
        R"({"jsonrpc":"1.0","id":4,"method":"tools/call","params":{"name":"echo"}})")
                                   << QByteArray("4") << "invalid_envelope" << -32600;
    QTest::newRow("id of the wrong type")
        << QByteArray(R"({"jsonrpc":"2.0","id":[5],"method":"tools/call","params":{"name":"echo"}})")
        << QByteArray("null") << "invalid_envelope" << -32600;
    QTest::newRow("name is a number") << QByteArray(
        R"({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":5}})")
                                      << QByteArray(R"("a")") << "invalid_envelope" << -32600;
    QTest::newRow("arguments are a list")
        << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":[]}})")
        << QByteArray("7") << "invalid_arguments" << -32602;
    QTest::newRow("metadata is a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo"},"metadata":"m"})")
        << QByteArray("8") << "invalid_envelope" << -32600;
    QTest::newRow("no tool named") << QByteArray(
        R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{}}})")
                                   << QByteArray("9") << "no_tool_name" << -32602;
}

void TestToolEnvelope::jsonRpcRefusalsKeepTheirId()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, id);
    QFETCH(QString, code);
    QFETCH(int, jsonRpcCode);
    ToolEnvelope::Failure failure;
    QVERIFY(!ToolEnvelope::parse(text, {}, Limit, &failure));
    QCOMPARE(QString::fromStdString(failure.code), code);
    const RunnerAnswer answer = ToolEnvelope::refusal(failure, ToolEnvelope::BadCall);
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    QCOMPARE(answer.message, failure.message);
    const json out = answerJson(answer);
    QCOMPARE(out.value("jsonrpc", std::string()), std::string("2.0"));
    QVERIFY2(out.contains("id"), answer.text.constData());
    QCOMPARE_JSON(out["id"], json::parse(id.toStdString()));
    QCOMPARE(out.value("ok", true), false);
    QCOMPARE(out["error"].value("code", 0), jsonRpcCode);
    QCOMPARE(QString::fromStdString(out["error"]["data"].value("reason", std::string())), code);

    // Any other form's refusal stays the plain one.
    QVERIFY(!ToolEnvelope::parse(R"({"tool":"echo","input":[]})", {}, Limit, &failure));
    QVERIFY(!failure.jsonRpcId);
    QVERIFY(!answerJson(ToolEnvelope::refusal(failure, ToolEnvelope::BadCall)).contains("jsonrpc"));
}

// A router names the call by its own name for the tool (envelope and TOOL_NAME); the command line
// names Switchboard's, which wins (found wiring `switchboard tool echo` as a command tool).
void TestToolEnvelope::commandLineNameWinsOverTheRouters()
{
    ToolEnvelope::Failure failure;
    auto envelope = ToolEnvelope::parse(R"({"tool":"router_echo","input":{"t":1}})",
        {QStringLiteral("echo"), QStringLiteral("router_echo")}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(envelope->toolName(), QStringLiteral("echo"));
    envelope = ToolEnvelope::parse(R"({"tool":"other"})", {QStringLiteral("echo"), QString()}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(envelope->toolName(), QStringLiteral("echo"));
    // Without one, TOOL_NAME and the envelope are the router's two words for one tool: they agree.
    QVERIFY(!ToolEnvelope::parse(R"({"tool":"other"})", {QString(), QStringLiteral("echo")}, Limit, &failure));
    QCOMPARE(failure.code, std::string("tool_name_conflict"));
}

void TestToolEnvelope::invocationIsPreferredOverLegacyAuth()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(
        R"({"tool":"git_push","input":{},"metadata":{"invocation":{"user":"u1","credentials":{"h":{"token":"v"}}},
            "auth":{"user":"legacy"},"authInfo":{"user":"older"}},"auth":{"user":"top"}})",
        {}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(envelope->invocationSource(), QStringLiteral("metadata.invocation"));
    QCOMPARE(envelope->invocation().value("user", std::string()), std::string("u1"));
    QCOMPARE(envelope->invocation()["credentials"]["h"].value("token", std::string()), std::string("v"));
}

void TestToolEnvelope::legacyAuthIsUsedWhenThereIsNoInvocation()
{
    ToolEnvelope::Failure failure;
    auto envelope = ToolEnvelope::parse(
        R"({"tool":"echo","metadata":{"authInfo":{"user":"a"}},"auth":{"user":"top"}})", {}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    // auth (in metadata, then at the top) is looked for before authInfo.
    QCOMPARE(envelope->invocationSource(), QStringLiteral("auth"));
    QCOMPARE(envelope->invocation().value("user", std::string()), std::string("top"));

    envelope = ToolEnvelope::parse(R"({"tool":"echo","metadata":{"authInfo":{"user":"a"}}})", {}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(envelope->invocationSource(), QStringLiteral("metadata.authInfo"));
    QCOMPARE(envelope->invocation().value("user", std::string()), std::string("a"));

    // A JSON-RPC request's invocation travels in params._meta.
    envelope = ToolEnvelope::parse(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","_meta":{"invocation":{"user":"m"}}}})",
        {}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    QCOMPARE(envelope->invocation().value("user", std::string()), std::string("m"));
}

void TestToolEnvelope::toolsCallRequestCarriesNameArgumentsAndProgressToken()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(
        R"({"jsonrpc":"2.0","id":"req-9","method":"tools/call","params":{"name":"echo","arguments":{"t":1},
            "_meta":{"progressToken":"p1","invocation":{"secret":"never in the request"}}}})",
        {}, Limit, &failure);
    QVERIFY2(envelope, qPrintable(failure.message));
    const json request = json::parse(envelope->toolsCallRequest().toStdString());
    QCOMPARE_JSON(request, json::parse(R"({"jsonrpc":"2.0","id":"req-9","method":"tools/call","params":{"name":"echo",
            "arguments":{"t":1},"_meta":{"progressToken":"p1"}}})"));
    // The invocation goes to the tool beside the request, never inside it (history keeps requests).
    QVERIFY(!envelope->toolsCallRequest().contains("never in the request"));
}

void TestToolEnvelope::answersAResult()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(R"({"tool":"echo","input":{}})", {}, Limit, &failure);
    QVERIFY(envelope);
    const RunnerAnswer answer = envelope->answer(
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}}})");
    QCOMPARE(answer.exitCode, int(ToolEnvelope::Succeeded));
    QVERIFY(answer.message.isEmpty());
    QVERIFY(answer.text.endsWith('\n'));
    QCOMPARE(answer.text.count('\n'), 1);
    QCOMPARE_JSON(answerJson(answer),
        json::parse(R"({"ok":true,"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}})"));
}

void TestToolEnvelope::answersAToolErrorAsFailure()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(R"({"tool_name":"git_clone_repository"})", {}, Limit, &failure);
    QVERIFY(envelope);
    const RunnerAnswer answer = envelope->answer(R"({"jsonrpc":"2.0","id":1,"result":{"isError":true,
        "content":[{"type":"text","text":"Repository not found"}],
        "structuredContent":{"status":"failure","message":"Repository not found","local_path_created":null}}})");
    QCOMPARE(answer.exitCode, int(ToolEnvelope::ToolFailed));
    QCOMPARE(answer.message, QStringLiteral("Repository not found")); // for stderr too
    const json out = answerJson(answer);
    QCOMPARE(out.value("ok", true), false);
    QCOMPARE_JSON(out["error"], json::parse(R"({"code":"tool_error","message":"Repository not found"})"));
    // The tool's own contract (status, local_path_created) is still all there.
    QCOMPARE_JSON(out["structuredContent"],
        json::parse(R"({"status":"failure","message":"Repository not found","local_path_created":null})"));
}

// Arguments the tool's inputSchema refused come back as a tool error (as MCP clients get them), but
// for the runner the call is wrong: exit 2, invalid_arguments, the tool's result kept beside.
void TestToolEnvelope::argumentsTheSchemaRefusedAreABadCall()
{
    const QByteArray response = R"({"jsonrpc":"2.0","id":3,"result":{"isError":true,
        "content":[{"type":"text","text":"Invalid arguments for tool \"git_clone_repository\": local_path is required"}],
        "structuredContent":{"status":"failure","message":"Invalid arguments","local_path_created":null}}})";
    ToolEnvelope::Failure failure;
    auto envelope = ToolEnvelope::parse(R"({"tool":"git_clone_repository","input":{}})", {}, Limit, &failure);
    QVERIFY(envelope);
    RunnerAnswer answer = envelope->answer(response, CallStatus::InvalidArguments);
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    json out = answerJson(answer);
    QCOMPARE(out.value("ok", true), false);
    QCOMPARE(out["error"].value("code", std::string()), std::string("invalid_arguments"));
    QVERIFY(out["error"].value("message", std::string()).find("local_path is required") != std::string::npos);
    QVERIFY(out["structuredContent"].value("local_path_created", json(1)).is_null());
    // The same result from a tool that ran and failed is the tool's error (exit 1).
    QCOMPARE(envelope->answer(response, CallStatus::ToolError).exitCode, int(ToolEnvelope::ToolFailed));

    envelope = ToolEnvelope::parse(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"git_clone_repository"}})", {}, Limit,
        &failure);
    QVERIFY(envelope);
    answer = envelope->answer(response, CallStatus::InvalidArguments);
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    out = answerJson(answer);
    QCOMPARE(out.value("id", 0), 3);
    QCOMPARE(out.value("ok", true), false);
    QCOMPARE(out["result"].value("isError", false), true);
}

void TestToolEnvelope::answersAnUnknownToolWithClosestMatches()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(R"({"name":"git_stats"})", {}, Limit, &failure);
    QVERIFY(envelope);
    const RunnerAnswer answer = envelope->answer(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,
        "message":"Unknown tool git_stats. Closest matches: git_status.",
        "data":{"reason":"unknown_tool","closestMatches":["git_status"]}}})");
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    const json out = answerJson(answer);
    QCOMPARE(out.value("ok", true), false);
    QCOMPARE(out["error"].value("code", std::string()), std::string("unknown_tool"));
    QCOMPARE_JSON(out["error"]["closestMatches"], json::array({"git_status"}));
    QVERIFY(out["error"].value("message", std::string()).find("git_status") != std::string::npos);
    QVERIFY(out["error"].value("message", std::string()).find("--list") != std::string::npos);
}

void TestToolEnvelope::answersInTheJsonRpcForm()
{
    ToolEnvelope::Failure failure;
    const auto envelope = ToolEnvelope::parse(
        R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo"}})", {}, Limit, &failure);
    QVERIFY(envelope);
    RunnerAnswer answer = envelope->answer(R"({"jsonrpc":"2.0","id":42,"result":{"content":[]}})");
    QCOMPARE(answer.exitCode, int(ToolEnvelope::Succeeded));
    QCOMPARE_JSON(answerJson(answer), json::parse(R"({"jsonrpc":"2.0","id":42,"ok":true,"result":{"content":[]}})"));

    answer = envelope->answer(R"({"jsonrpc":"2.0","id":42,"error":{"code":-32602,"message":"bad"}})");
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    QCOMPARE_JSON(answerJson(answer),
        json::parse(R"({"jsonrpc":"2.0","id":42,"ok":false,"error":{"code":-32602,"message":"bad"}})"));

    answer = envelope->failure({"waiting_for_person", QStringLiteral("asked")}, ToolEnvelope::WaitingForPerson);
    QCOMPARE(answer.exitCode, int(ToolEnvelope::WaitingForPerson));
    QCOMPARE_JSON(answerJson(answer), json::parse(R"({"jsonrpc":"2.0","id":42,"ok":false,
        "error":{"code":-32000,"message":"asked","data":{"reason":"waiting_for_person"}}})"));
}

void TestToolEnvelope::failuresAreOneLineOfJson()
{
    const RunnerAnswer answer
        = ToolEnvelope::refusal({"invalid_envelope", QStringLiteral("two\nlines \"quoted\"")}, ToolEnvelope::BadCall);
    QCOMPARE(answer.exitCode, int(ToolEnvelope::BadCall));
    QCOMPARE(answer.text.count('\n'), 1);
    const json expected{{"ok", false}, {"error", {{"code", "invalid_envelope"}, {"message", "two\nlines \"quoted\""}}}};
    QCOMPARE_JSON(answerJson(answer), expected);
}

QTEST_GUILESS_MAIN(TestToolEnvelope)
#include "tst_toolenvelope.moc"
