#include "testpaths.h"
#include <QTest>

// The developer's ways out of the console: a call as a curl script (quoting attacked through bash;
// tst_curlcommand runs the script against a real server), calls as NDJSON (written and read back
// whole) and as HAR 1.2 (every field the format requires, and the file imported by Chromium's own
// DevTools network panel importer), and the NDJSON reader's refusals (bad lines by number, lines
// and files too big, too many calls).

#include "callexportwriter.h"
#include "curlcommand.h"
#include "jsontestsupport.h"
#include "ndjsoncallreader.h"
#include "shellattackstrings.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QProcess>
#include <QTemporaryFile>

using nlohmann::json;

namespace {

// What bash makes of `word` as the argument of printf %s.
QString bashSays(const QString& word)
{
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), QStringLiteral("printf %s ") + word});
    if (!bash.waitForFinished(30'000))
        return QStringLiteral("<bash did not finish>");
    return QString::fromUtf8(bash.readAllStandardOutput());
}

ToolCall sampleCall(qint64 id, const json& arguments)
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("session-%1").arg(id);
    call.clientName = QStringLiteral("tester");
    call.clientVersion = QStringLiteral("1.0");
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.request = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", arguments}}}}
                                                 .dump());
    call.response = QByteArray::fromStdString(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"content", json::array()}, {"structuredContent", arguments}}}}
            .dump());
    call.details = QByteArrayLiteral("{\"stdout\":\"a\\nb\"}");
    call.decision = QByteArrayLiteral("{\"by\":\"console\"}");
    call.replayOf = id - 1;
    call.timeline = QByteArrayLiteral(
        "[{\"atMs\":3,\"method\":\"notifications/progress\",\"params\":{\"progress\":1,\"progressToken\":\"p\"}}]");
    call.error = QStringLiteral("an error\nover two lines");
    call.startedAtMs = 1'764'150'000'123 + id;
    call.durationUs = 2500 + id;
    call.status = CallStatus::ToolError;
    return call;
}

QByteArray exported(const ToolCallList& calls, CallExportWriter::Format format)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    CallExportWriter writer(&buffer, format, QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), QStringLiteral("9.9"));
    if (!writer.begin())
        return {};
    for (const ToolCall& call : calls) {
        if (!writer.write(call))
            return {};
    }
    if (!writer.finish())
        return {};
    return buffer.data();
}

NdjsonCallReader::Result readBytes(const QByteArray& bytes, qint64 maxFile = NdjsonCallReader::MaxFileBytes,
    qint64 maxLine = NdjsonCallReader::MaxLineBytes, int maxCalls = NdjsonCallReader::MaxCalls)
{
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    return NdjsonCallReader::read(&buffer, maxFile, maxLine, maxCalls);
}

} // namespace

class TestCallExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shellQuoteSurvivesBash_data();
    void shellQuoteSurvivesBash();
    void curlScriptParsesAndNeverHoldsTheToken();
    void ndjsonRoundTrip();
    void ndjsonBodiesAreJsonNotStrings();
    void harHasEveryRequiredField();
    void harOfAnUnansweredCall();
    void harImportsIntoDevTools();
    void readerNamesBadLines();
    void readerRefusesLinesBeyondTheLimits();
    void readerRefusesWhatIsTooBig();
    void readerStopsAtMaxCalls();
};

void TestCallExport::shellQuoteSurvivesBash_data()
{
    QTest::addColumn<QString>("text");
    for (const QString& text : attackStrings())
        QTest::newRow(qPrintable(text.left(20))) << text;
}

void TestCallExport::shellQuoteSurvivesBash()
{
    QFETCH(QString, text);
    QCOMPARE(bashSays(CurlCommand::shellQuote(text)), text);
}

void TestCallExport::curlScriptParsesAndNeverHoldsTheToken()
{
    json arguments = json::object();
    int n = 0;
    for (const QString& text : attackStrings())
        arguments[std::to_string(n++)] = text.toStdString();
    for (const bool token : {true, false}) {
        const QString script
            = CurlCommand::forCall(sampleCall(1, arguments), QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")), token);
        QProcess bash;
        bash.start(QStringLiteral("bash"), {QStringLiteral("-n")});
        bash.write(script.toUtf8());
        bash.closeWriteChannel();
        QVERIFY(bash.waitForFinished(30'000));
        QVERIFY2(bash.exitCode() == 0, bash.readAllStandardError().constData());
        QCOMPARE(script.contains(QStringLiteral("Authorization: Bearer $SWITCHBOARD_TOKEN")), token);
        QCOMPARE(script.count(QStringLiteral("Authorization")), token ? 4 : 0);
        // Every bearer header names the variable; none carries a value.
        QCOMPARE(script.count(QStringLiteral("Bearer ")), script.count(QStringLiteral("Bearer $SWITCHBOARD_TOKEN")));
        QVERIFY(script.contains(QStringLiteral("Accept: application/json, text/event-stream")));
        QVERIFY(script.contains(QStringLiteral("MCP-Protocol-Version: ")));
        QVERIFY(script.contains(QStringLiteral("$sb_session")));
    }
}

void TestCallExport::ndjsonRoundTrip()
{
    ToolCallList calls;
    calls << sampleCall(1, json{{"message", "hi\nthere"}}) << sampleCall(2, json{{"quote", "it's \"x\""}});
    ToolCall running = sampleCall(3, json::object());
    running.response.clear();
    running.durationUs = -1;
    running.status = CallStatus::Running;
    running.wholeRequestBytes = -1;
    calls << running;
    const QByteArray bytes = exported(calls, CallExportWriter::Format::Ndjson);
    QCOMPARE(bytes.count('\n'), 3); // one line per call: newlines in bodies are escaped
    const NdjsonCallReader::Result result = readBytes(bytes);
    QVERIFY2(result.fatal.isEmpty(), qPrintable(result.fatal));
    QCOMPARE(result.badLines, 0);
    QCOMPARE(result.calls.size(), calls.size());
    for (int i = 0; i < calls.size(); ++i)
        QCOMPARE_JSON(result.calls.at(i).toJson(), calls.at(i).toJson());
    QCOMPARE(result.calls.at(0).timeline, calls.at(0).timeline);
    QCOMPARE(result.calls.at(1).replayOf, qint64(1));
}

// Bodies are JSON values in the line (jq .response.result works), in their own key order; a body
// that is not whole JSON (a preview cut short) stays text; both, and the string bodies of older
// exports, read back as the call.
void TestCallExport::ndjsonBodiesAreJsonNotStrings()
{
    ToolCall call = sampleCall(5, json{{"zeta", 1}, {"alpha", "a"}});
    call.request
        = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"zeta":1,"alpha":"a"}}})";
    ToolCall cut = sampleCall(6, json::object());
    cut.response = R"({"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"abc)";
    cut.wholeRequestBytes = cut.request.size();
    cut.wholeResponseBytes = 5000;
    const QByteArray bytes = exported({call, cut}, CallExportWriter::Format::Ndjson);
    const QList<QByteArray> lines = bytes.split('\n');
    const json first = json::parse(lines.at(0).toStdString());
    QVERIFY(first["request"].is_object());
    QCOMPARE_JSON(first["request"]["params"]["arguments"]["zeta"], json(1));
    QVERIFY(first["response"].is_object());
    QVERIFY(first["response"]["result"].is_object());
    QVERIFY(first["details"].is_object());
    QVERIFY(first["decision"].is_object());
    QVERIFY(first["timeline"].is_array());
    // The client's key order is kept in the line.
    QVERIFY(lines.at(0).indexOf("\"zeta\"") < lines.at(0).indexOf("\"alpha\""));
    const json second = json::parse(lines.at(1).toStdString());
    QVERIFY(second["request"].is_object());
    QVERIFY(second["response"].is_string()); // cut short: not JSON, kept as written

    const NdjsonCallReader::Result result = readBytes(bytes);
    QCOMPARE(result.badLines, 0);
    QCOMPARE(result.calls.size(), 2);
    QCOMPARE(result.calls.at(0).request, call.request); // byte for byte: compact, in order
    QCOMPARE(result.calls.at(0).response, call.response);
    QCOMPARE(result.calls.at(0).details, call.details);
    QCOMPARE(result.calls.at(0).timeline, call.timeline);
    QCOMPARE(result.calls.at(1).response, cut.response);
    QCOMPARE(result.calls.at(1).wholeResponseBytes, qint64(5000));

    // An export of a version that wrote bodies as strings still reads.
    const QByteArray older = QByteArray::fromStdString(call.toJson().dump()) + '\n';
    const NdjsonCallReader::Result olderResult = readBytes(older);
    QCOMPARE(olderResult.badLines, 0);
    QCOMPARE(olderResult.calls.size(), 1);
    QCOMPARE(olderResult.calls.at(0).request, call.request);
}

void TestCallExport::harHasEveryRequiredField()
{
    const ToolCallList calls{sampleCall(1, json{{"message", "hi"}}), sampleCall(2, json{{"n", 2}})};
    const QByteArray bytes = exported(calls, CallExportWriter::Format::Har);
    const json har = json::parse(bytes.toStdString(), nullptr, false);
    QVERIFY2(har.is_object(), bytes.left(300).constData());
    const json& log = har["log"];
    QCOMPARE_JSON(log["version"], json("1.2"));
    QCOMPARE_JSON(log["creator"], (json{{"name", "Switchboard"}, {"version", "9.9"}}));
    QVERIFY(log["entries"].is_array());
    QCOMPARE(log["entries"].size(), std::size_t(2));
    const auto isStringField = [](const json& o, const char* key) { return o.contains(key) && o[key].is_string(); };
    const auto isNumberField = [](const json& o, const char* key) { return o.contains(key) && o[key].is_number(); };
    const auto isNameValueList = [](const json& list) {
        if (!list.is_array())
            return false;
        for (const json& item : list) {
            if (!item.is_object() || !item["name"].is_string() || !item["value"].is_string())
                return false;
        }
        return true;
    };
    for (std::size_t i = 0; i < 2; ++i) {
        const json& entry = log["entries"][i];
        const ToolCall& call = calls.at(int(i));
        QVERIFY(isStringField(entry, "startedDateTime"));
        QCOMPARE(QDateTime::fromString(QString::fromStdString(entry["startedDateTime"]), Qt::ISODateWithMs)
                     .toMSecsSinceEpoch(),
            call.startedAtMs);
        QVERIFY(entry["startedDateTime"].get<std::string>().back() == 'Z');
        QVERIFY(isNumberField(entry, "time"));
        QCOMPARE(entry["time"].get<double>(), call.durationUs / 1000.0);
        QVERIFY(entry["cache"].is_object());

        const json& request = entry["request"];
        QCOMPARE_JSON(request["method"], json("POST"));
        QCOMPARE_JSON(request["url"], json("http://127.0.0.1:8765/mcp"));
        QVERIFY(isStringField(request, "httpVersion"));
        QVERIFY(request["cookies"].is_array());
        QVERIFY(isNameValueList(request["headers"]));
        QVERIFY(isNameValueList(request["queryString"]));
        QVERIFY(isNumberField(request, "headersSize"));
        QVERIFY(isNumberField(request, "bodySize"));
        QCOMPARE_JSON(request["postData"]["mimeType"], json("application/json"));
        QCOMPARE(QByteArray::fromStdString(request["postData"]["text"]), call.request);
        QVERIFY(request["headers"].dump().find("Mcp-Session-Id") != std::string::npos);
        QVERIFY(request["headers"].dump().find("Authorization") == std::string::npos);

        const json& response = entry["response"];
        QCOMPARE_JSON(response["status"], json(200));
        QVERIFY(isStringField(response, "statusText"));
        QVERIFY(isStringField(response, "httpVersion"));
        QVERIFY(response["cookies"].is_array());
        QVERIFY(isNameValueList(response["headers"]));
        QVERIFY(isStringField(response, "redirectURL"));
        QVERIFY(isNumberField(response, "headersSize"));
        QVERIFY(isNumberField(response, "bodySize"));
        const json& content = response["content"];
        QCOMPARE(content["size"].get<qint64>(), qint64(call.response.size()));
        QCOMPARE_JSON(content["mimeType"], json("application/json"));
        QCOMPARE(QByteArray::fromStdString(content["text"]), call.response);

        const json& timings = entry["timings"];
        for (const char* key : {"send", "wait", "receive"})
            QVERIFY2(isNumberField(timings, key) && timings[key].get<double>() >= 0, key);
        for (const char* key : {"blocked", "dns", "connect", "ssl"})
            QVERIFY2(!timings.contains(key) || timings[key].get<double>() >= -1, key);
        // The send, wait and receive timings add up to the time (HAR: time is their sum).
        QCOMPARE(timings["send"].get<double>() + timings["wait"].get<double>() + timings["receive"].get<double>(),
            entry["time"].get<double>());
        // Switchboard's own fields: underscored, the call without its bodies.
        QCOMPARE(entry["_switchboard"]["id"].get<qint64>(), call.id);
        QVERIFY(!entry["_switchboard"].contains("request"));
    }
}

void TestCallExport::harOfAnUnansweredCall()
{
    ToolCall parked = sampleCall(1, json::object());
    parked.response.clear();
    parked.durationUs = -1;
    parked.status = CallStatus::Running;
    const json entry = CallExportWriter::harEntry(parked, QUrl(QStringLiteral("http://127.0.0.1:1/mcp")));
    QCOMPARE_JSON(entry["response"]["status"], json(0));
    QCOMPARE_JSON(entry["response"]["content"]["size"], json(0));
    QVERIFY(entry["response"]["content"]["mimeType"].is_string());
    QCOMPARE_JSON(entry["time"], json(0.0));
    // Empty files are valid HAR too.
    const json empty = json::parse(exported({}, CallExportWriter::Format::Har).toStdString());
    QCOMPARE(empty["log"]["entries"].size(), std::size_t(0));
}

void TestCallExport::harImportsIntoDevTools()
{
    // What a person gets from File ▸ Export… as .har, dropped on a browser's Network panel: Chromium's
    // own DevTools importer (tests/har/devtools-har-import.mjs runs it in headless Chromium, Debian's
    // package from scripts/install-deps.sh --test) must take the file and make one request per call
    // with its URL, method, status, bodies and duration; the script says what differs.
    ToolCall ok = sampleCall(1, json{{"message", "Grüße, “quoted”\nline two"}});
    ok.status = CallStatus::Ok;
    ok.error.clear();
    const auto toolResult = [](qint64 id, const char* text) {
        return QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", id},
            {"result", {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}}}}
                                             .dump());
    };
    ToolCall toolError = sampleCall(2, json{{"suite", "unit"}});
    toolError.tool = QStringLiteral("run_tests");
    toolError.response = toolResult(2, "exit status 2: 3 tests failed");
    toolError.error = QStringLiteral("exit status 2: 3 tests failed");
    ToolCall denied = sampleCall(3, json{{"path", "notes.txt"}});
    denied.tool = QStringLiteral("write_file");
    denied.response
        = toolResult(3, "Tool \"write_file\" is denied by the Switchboard operator's policy; it did not run.");
    denied.decision = QByteArrayLiteral("{\"rule\":\"tools.write_file\",\"via\":\"rule\",\"what\":\"deny\"}");
    denied.durationUs = 412;
    denied.status = CallStatus::Denied;
    // Still waiting for a person: no response yet.
    ToolCall waiting = sampleCall(4, json{{"service", "github"}});
    waiting.tool = QStringLiteral("request_connection");
    waiting.response.clear();
    waiting.durationUs = -1;
    waiting.status = CallStatus::Paused;
    waiting.error.clear();

    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/tst_callexport-XXXXXX.har"));
    QVERIFY(file.open());
    const QByteArray har = exported({ok, toolError, denied, waiting}, CallExportWriter::Format::Har);
    QVERIFY(!har.isEmpty());
    QCOMPARE(file.write(har), qint64(har.size()));
    QVERIFY(file.flush());

    QProcess node;
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(TestPaths::nodeDir() + QStringLiteral("/node22"),
        {TestPaths::harDir() + QStringLiteral("/devtools-har-import.mjs"), file.fileName()});
    QVERIFY2(node.waitForStarted(30'000), qPrintable(node.errorString()));
    // The script gives Chromium 90 s at most.
    QVERIFY2(node.waitForFinished(150'000), "devtools-har-import.mjs did not finish");
    const QByteArray output = node.readAll();
    QVERIFY2(node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("imported 4 requests"), output.constData());
}

void TestCallExport::readerRefusesLinesBeyondTheLimits()
{
    // A file the user opens is read with the bounded parser: a line nested 200,000 levels or holding
    // millions of values is named and skipped, never built; the calls around it are read.
    QByteArray bytes = exported({sampleCall(1, json::object())}, CallExportWriter::Format::Ndjson); // line 1
    bytes += QByteArray(200'000, '[') + QByteArray(200'000, ']') + "\n"; // line 2
    QByteArray many = "[0";
    for (int i = 0; i < 1'000'000; ++i)
        many += ",0";
    bytes += many + "]\n"; // line 3
    bytes += exported({sampleCall(4, json::object())}, CallExportWriter::Format::Ndjson); // line 4
    const NdjsonCallReader::Result result = readBytes(bytes);
    QVERIFY(result.fatal.isEmpty());
    QCOMPARE(result.calls.size(), 2);
    QCOMPARE(result.badLines, 2);
    QCOMPARE(result.problems.at(0), QStringLiteral("line 2: not JSON (JSON is nested deeper than 128 levels)"));
    QCOMPARE(result.problems.at(1), QStringLiteral("line 3: not JSON (JSON has more than 1000000 values)"));
}

void TestCallExport::readerNamesBadLines()
{
    QByteArray bytes = exported({sampleCall(1, json::object())}, CallExportWriter::Format::Ndjson); // line 1
    bytes += "\n"; // line 2: blank, ignored
    bytes += "{not json\n"; // line 3
    bytes += "[1,2]\n"; // line 4
    bytes += "{\"id\":1}\n"; // line 5: lacks members
    json unknownStatus = sampleCall(6, json::object()).toJson();
    unknownStatus["status"] = "exploded";
    bytes += QByteArray::fromStdString(unknownStatus.dump()) + "\r\n"; // line 6, CRLF
    bytes += exported({sampleCall(7, json::object())}, CallExportWriter::Format::Ndjson); // line 7
    bytes.chop(1); // no newline at the end
    const NdjsonCallReader::Result result = readBytes(bytes);
    QVERIFY(result.fatal.isEmpty());
    QCOMPARE(result.calls.size(), 2);
    QCOMPARE(result.calls.at(1).id, qint64(7));
    QCOMPARE(result.badLines, 4);
    QCOMPARE(result.problems.size(), 4);
    QVERIFY2(result.problems.at(0).startsWith(QStringLiteral("line 3: not JSON")), qPrintable(result.problems.at(0)));
    QVERIFY2(result.problems.at(1).startsWith(QStringLiteral("line 4: ")), qPrintable(result.problems.at(1)));
    QVERIFY2(result.problems.at(2).startsWith(QStringLiteral("line 5: ")), qPrintable(result.problems.at(2)));
    QVERIFY2(
        result.problems.at(3).startsWith(QStringLiteral("line 6: ")) && result.problems.at(3).contains(u"exploded"),
        qPrintable(result.problems.at(3)));
    const QString summary = NdjsonCallReader::summary(result);
    QVERIFY2(
        summary.contains(QStringLiteral("2 calls")) && summary.contains(QStringLiteral("line 5")), qPrintable(summary));

    // Only the first problems are listed; the rest are counted.
    QByteArray many;
    for (int i = 0; i < NdjsonCallReader::MaxListedProblems + 5; ++i)
        many += "nonsense\n";
    const NdjsonCallReader::Result manyResult = readBytes(many);
    QCOMPARE(manyResult.badLines, NdjsonCallReader::MaxListedProblems + 5);
    QCOMPARE(manyResult.problems.size(), NdjsonCallReader::MaxListedProblems);
    QVERIFY(NdjsonCallReader::summary(manyResult).contains(QStringLiteral("and 5 more")));
}

void TestCallExport::readerRefusesWhatIsTooBig()
{
    const QByteArray line = exported({sampleCall(1, json::object())}, CallExportWriter::Format::Ndjson);
    // A line over the limit is skipped (and named), the lines around it still read.
    const QByteArray longLine = "{\"x\":\"" + QByteArray(4000, 'y') + "\"}\n";
    const NdjsonCallReader::Result skipped = readBytes(line + longLine + line, 1 << 20, 2000);
    QCOMPARE(skipped.calls.size(), 2);
    QCOMPARE(skipped.badLines, 1);
    QVERIFY2(skipped.problems.first().startsWith(QStringLiteral("line 2: longer than")),
        qPrintable(skipped.problems.first()));

    // A file over the limit is refused before anything is read.
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(line + line + line);
    file.flush();
    file.seek(0);
    const NdjsonCallReader::Result refused = NdjsonCallReader::read(&file, line.size() * 2);
    QVERIFY(!refused.fatal.isEmpty());
    QVERIFY(refused.calls.isEmpty());
    QCOMPARE(NdjsonCallReader::summary(refused), refused.fatal);

    // An unreadable path says so.
    const NdjsonCallReader::Result missing = NdjsonCallReader::readFile(QStringLiteral("/nonexistent/calls.ndjson"));
    QVERIFY(missing.fatal.contains(QStringLiteral("/nonexistent/calls.ndjson")));
}

void TestCallExport::readerStopsAtMaxCalls()
{
    ToolCallList calls;
    for (int i = 1; i <= 5; ++i)
        calls << sampleCall(i, json::object());
    const NdjsonCallReader::Result result = readBytes(exported(calls, CallExportWriter::Format::Ndjson),
        NdjsonCallReader::MaxFileBytes, NdjsonCallReader::MaxLineBytes, 3);
    QCOMPARE(result.calls.size(), 3);
    QVERIFY(result.stoppedAtMaxCalls);
    QVERIFY(NdjsonCallReader::summary(result).contains(QStringLiteral("stopped after the first 3")));
}

QTEST_GUILESS_MAIN(TestCallExport)
#include "tst_callexport.moc"
