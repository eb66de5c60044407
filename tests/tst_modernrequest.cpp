// The 2026-07-28 rules for a request before it runs (ModernRequest): which POSTs are of that era,
// the Base64 sentinel of header values, and each refusal with the HTTP status, code and data the
// official SDK v2 server gives for it (docs/protocol/reference-v2-observed.md).

#include "protocol/jsonrpc.h"
#include "protocol/modernrequest.h"

#include <QTest>

#include <nlohmann/json.hpp>

using nlohmann::json;

Q_DECLARE_METATYPE(json)

class TestModernRequest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tellsTheEras_data();
    void tellsTheEras();
    void decodesHeaderValues_data();
    void decodesHeaderValues();
    void refusesAsTheReferenceServerDoes_data();
    void refusesAsTheReferenceServerDoes();
    void acceptsAWholeRequest();
    void paramHeadersMirrorTheArguments_data();
    void paramHeadersMirrorTheArguments();
};

namespace {

json envelope(const char* version = "2026-07-28")
{
    return json{{"io.modelcontextprotocol/protocolVersion", version},
        {"io.modelcontextprotocol/clientInfo", {{"name", "c"}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

json callBody(json meta = envelope())
{
    json params{{"name", "echo"}, {"arguments", json::object()}};
    if (!meta.is_null())
        params["_meta"] = std::move(meta);
    return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"}, {"params", std::move(params)}};
}

} // namespace

void TestModernRequest::tellsTheEras_data()
{
    QTest::addColumn<QByteArray>("versionHeader");
    QTest::addColumn<bool>("sessionId");
    QTest::addColumn<json>("body");
    QTest::addColumn<bool>("modern");
    QTest::newRow("2026 header") << QByteArray("2026-07-28") << false << callBody() << true;
    QTest::newRow("a future version is answered by 2026 rules")
        << QByteArray("2027-01-01") << false << callBody() << true;
    QTest::newRow("2025 header with a 2026 body is legacy") << QByteArray("2025-11-25") << false << callBody() << false;
    QTest::newRow("no header, an envelope, no session") << QByteArray() << false << callBody() << true;
    QTest::newRow("no header, an envelope, a session") << QByteArray() << true << callBody() << false;
    QTest::newRow("an unknown version on a session is the session's")
        << QByteArray("1999-01-01") << true << callBody() << false;
    QTest::newRow("no header, no envelope: legacy") << QByteArray() << false << callBody(json()) << false;
    QTest::newRow("2025 initialize") << QByteArray() << false
                                     << json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
                                            {"params", {{"protocolVersion", "2025-11-25"}}}}
                                     << false;
    QTest::newRow("a batch without header") << QByteArray() << false << json::array({callBody()}) << false;
}

void TestModernRequest::tellsTheEras()
{
    QFETCH(QByteArray, versionHeader);
    QFETCH(bool, sessionId);
    QFETCH(json, body);
    QFETCH(bool, modern);
    QCOMPARE(ModernRequest::isModern(versionHeader, sessionId, body), modern);
}

void TestModernRequest::decodesHeaderValues_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("decodes");
    QTest::addColumn<QByteArray>("value");
    // The specification's examples.
    QTest::newRow("plain") << QByteArray("get_weather") << true << QByteArray("get_weather");
    QTest::newRow("unicode") << QByteArray("=?base64?SGVsbG8sIOS4lueVjA==?=") << true << QByteArray("Hello, 世界");
    QTest::newRow("padded") << QByteArray("=?base64?IHBhZGRlZCA=?=") << true << QByteArray(" padded ");
    QTest::newRow("newline") << QByteArray("=?base64?bGluZTEKbGluZTI=?=") << true << QByteArray("line1\nline2");
    QTest::newRow("a literal sentinel") << QByteArray("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=") << true
                                        << QByteArray("=?base64?literal?=");
    QTest::newRow("not Base64") << QByteArray("=?base64?not base64!?=") << false << QByteArray();
    // SEP-2243: the padding is required (the conformance suite's ServerRejectsInvalidBase64Padding).
    QTest::newRow("padding missing") << QByteArray("=?base64?SGVsbG8?=") << false << QByteArray();
    QTest::newRow("a name without its padding") << QByteArray("=?base64?aGVhZGVyX2VjaG8?=") << false << QByteArray();
    QTest::newRow("the same name padded")
        << QByteArray("=?base64?aGVhZGVyX2VjaG8=?=") << true << QByteArray("header_echo");
    QTest::newRow("prefix alone") << QByteArray("=?base64?") << true << QByteArray("=?base64?");
    QTest::newRow("empty sentinel") << QByteArray("=?base64?"
                                                  "?=")
                                    << true << QByteArray();
}

void TestModernRequest::decodesHeaderValues()
{
    QFETCH(QByteArray, header);
    QFETCH(bool, decodes);
    QFETCH(QByteArray, value);
    const std::optional<std::string> decoded = ModernRequest::decodeHeaderValue(header);
    QCOMPARE(decoded.has_value(), decodes);
    if (decodes)
        QCOMPARE(QByteArray::fromStdString(*decoded), value);
}

void TestModernRequest::refusesAsTheReferenceServerDoes_data()
{
    QTest::addColumn<json>("body");
    QTest::addColumn<QByteArray>("versionHeader");
    QTest::addColumn<QByteArray>("methodHeader"); // "-": absent
    QTest::addColumn<QByteArray>("nameHeader"); // "-": absent
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("code");
    QTest::addColumn<json>("data"); // compared where not null
    const json mismatchOf = json::object();
    QTest::newRow("Mcp-Method absent") << callBody() << QByteArray("2026-07-28") << QByteArray("-")
                                       << QByteArray("echo") << 400 << -32020 << json();
    QTest::newRow("Mcp-Method another") << callBody() << QByteArray("2026-07-28") << QByteArray("tools/list")
                                        << QByteArray("echo") << 400 << -32020
                                        << json{{"mismatch", {{"header", "tools/list"}}}};
    QTest::newRow("Mcp-Name absent") << callBody() << QByteArray("2026-07-28") << QByteArray("tools/call")
                                     << QByteArray("-") << 400 << -32020
                                     << json{{"mismatch", {{"header", "(missing)"}}}};
    QTest::newRow("Mcp-Name another") << callBody() << QByteArray("2026-07-28") << QByteArray("tools/call")
                                      << QByteArray("other") << 400 << -32020
                                      << json{{"mismatch", {{"header", "other"}}}};
    QTest::newRow("Mcp-Name Base64 of another")
        << callBody() << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray("=?base64?ZWNobzI=?=")
        << 400 << -32020 << json{{"mismatch", {{"header", "echo2"}}}};
    QTest::newRow("Mcp-Name broken Base64") << callBody() << QByteArray("2026-07-28") << QByteArray("tools/call")
                                            << QByteArray("=?base64?%%%?=") << 400 << -32020 << json();
    QTest::newRow("version header and envelope differ")
        << callBody() << QByteArray("2027-01-01") << QByteArray("tools/call") << QByteArray("echo") << 400 << -32020
        << json{{"mismatch", {{"header", "2027-01-01"}}}};
    QTest::newRow("version header absent")
        << callBody() << QByteArray() << QByteArray("tools/call") << QByteArray("echo") << 400 << -32020
        << json{{"mismatch", {{"header", "(missing)"}}}};
    QTest::newRow("initialize under a 2026 header")
        << json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}}
        << QByteArray("2026-07-28") << QByteArray("initialize") << QByteArray("-") << 400 << -32020 << json();
    QTest::newRow("initialize with an envelope is no mismatch (a removed method: 404 elsewhere)")
        << json{{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"},
               {"params", {{"_meta", envelope("2027-01-01")}}}}
        << QByteArray("2027-01-01") << QByteArray("initialize") << QByteArray("-") << 400 << -32022 << json();
    QTest::newRow("no envelope") << callBody(json()) << QByteArray("2026-07-28") << QByteArray("tools/call")
                                 << QByteArray("echo") << 400 << -32602 << json{{"envelope", {{"missing", {"_meta"}}}}};
    json noCapabilities = envelope();
    noCapabilities.erase("io.modelcontextprotocol/clientCapabilities");
    QTest::newRow("no client capabilities")
        << callBody(noCapabilities) << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray("echo") << 400
        << -32602
        << json{{"envelope", {{"key", "io.modelcontextprotocol/clientCapabilities"}, {"problem", "missing"}}}};
    json badInfo = envelope();
    badInfo["io.modelcontextprotocol/clientInfo"] = "me";
    QTest::newRow("client info not an object")
        << callBody(badInfo) << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray("echo") << 400
        << -32602 << json{{"envelope", {{"key", "io.modelcontextprotocol/clientInfo"}}}};
    json badLevel = envelope();
    badLevel["io.modelcontextprotocol/logLevel"] = "verbose";
    QTest::newRow("an unknown log level")
        << callBody(badLevel) << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray("echo") << 400
        << -32602 << json{{"envelope", {{"key", "io.modelcontextprotocol/logLevel"}}}};
    json noVersion = envelope();
    noVersion.erase("io.modelcontextprotocol/protocolVersion");
    QTest::newRow("no version in the envelope")
        << callBody(noVersion) << QByteArray("2026-07-28") << QByteArray("tools/call") << QByteArray("echo") << 400
        << -32602 << json{{"envelope", {{"key", "io.modelcontextprotocol/protocolVersion"}}}};
    QTest::newRow("unsupported version") << callBody(envelope("2027-01-01")) << QByteArray("2027-01-01")
                                         << QByteArray("tools/call") << QByteArray("echo") << 400 << -32022
                                         << json{{"supported", {"2026-07-28"}}, {"requested", "2027-01-01"}};
    QTest::newRow("a 2025 version in the envelope")
        << callBody(envelope("2025-11-25")) << QByteArray("2025-11-25") << QByteArray("tools/call")
        << QByteArray("echo") << 400 << -32022 << json{{"requested", "2025-11-25"}};
}

void TestModernRequest::refusesAsTheReferenceServerDoes()
{
    QFETCH(json, body);
    QFETCH(QByteArray, versionHeader);
    QFETCH(QByteArray, methodHeader);
    QFETCH(QByteArray, nameHeader);
    QFETCH(int, status);
    QFETCH(int, code);
    QFETCH(json, data);
    const JsonRpc::Message message = JsonRpc::classify(body);
    ModernRequest::Headers headers;
    headers.protocolVersion = versionHeader;
    if (methodHeader != "-")
        headers.method = methodHeader;
    if (nameHeader != "-")
        headers.name = nameHeader;
    const auto checked = ModernRequest::check(message, headers);
    QVERIFY(std::holds_alternative<ModernRequest::Refusal>(checked));
    const auto& refusal = std::get<ModernRequest::Refusal>(checked);
    QCOMPARE(refusal.httpStatus, status);
    QCOMPARE(refusal.code, code);
    QVERIFY(!refusal.message.empty());
    // Every key the row names has its value (the refusal may say more).
    if (!data.is_null()) {
        const json flatWanted = data.flatten();
        const json flatGot = refusal.data.flatten();
        for (const auto& [key, value] : flatWanted.items())
            QVERIFY2(flatGot.contains(key) && flatGot[key] == value, (key + " in " + refusal.data.dump()).c_str());
    }
}

void TestModernRequest::acceptsAWholeRequest()
{
    const json body = callBody();
    ModernRequest::Headers headers{"2026-07-28", QByteArray("tools/call"), QByteArray("=?base64?ZWNobw==?=")};
    const auto checked = ModernRequest::check(JsonRpc::classify(body), headers);
    QVERIFY(std::holds_alternative<ModernRequest::Envelope>(checked));
    const auto& request = std::get<ModernRequest::Envelope>(checked);
    QCOMPARE(request.version, std::string("2026-07-28"));
    QCOMPARE(request.clientInfo.value("name", ""), std::string("c"));
    QVERIFY(request.logLevel.empty());
    json withLevel = callBody();
    withLevel["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug";
    const auto leveled = ModernRequest::check(JsonRpc::classify(withLevel), headers);
    QVERIFY(std::holds_alternative<ModernRequest::Envelope>(leveled));
    QCOMPARE(std::get<ModernRequest::Envelope>(leveled).logLevel, std::string("debug"));
    QVERIFY(request.clientCapabilities.is_object());
    // tools/list has no Mcp-Name; server/discover neither.
    for (const char* method : {"tools/list", "server/discover"}) {
        const json list{{"jsonrpc", "2.0"}, {"id", 2}, {"method", method}, {"params", {{"_meta", envelope()}}}};
        const auto listed = ModernRequest::check(JsonRpc::classify(list), {"2026-07-28", QByteArray(method), {}});
        QVERIFY2(std::holds_alternative<ModernRequest::Envelope>(listed), method);
    }
}

void TestModernRequest::paramHeadersMirrorTheArguments_data()
{
    QTest::addColumn<json>("arguments");
    QTest::addColumn<QStringList>("headers"); // "Name: value"
    QTest::addColumn<bool>("agree");
    QTest::newRow("all there") << json{{"region", "eu-west"}, {"count", 42}, {"options", {{"dry", true}}}}
                               << QStringList{QStringLiteral("Mcp-Param-Region: eu-west"),
                                      QStringLiteral("Mcp-Param-Count: 42"), QStringLiteral("Mcp-Param-Dry: true")}
                               << true;
    QTest::newRow("an integer compared as a number")
        << json{{"count", 42}} << QStringList{QStringLiteral("Mcp-Param-Count: 42.0")} << true;
    QTest::newRow("absent and null arguments want no header") << json{{"region", nullptr}} << QStringList{} << true;
    QTest::newRow("Base64") << json{{"region", "Zürich"}}
                            << QStringList{QStringLiteral("Mcp-Param-Region: =?base64?WsO8cmljaA==?=")} << true;
    QTest::newRow("header missing") << json{{"region", "eu-west"}} << QStringList{} << false;
    QTest::newRow("header another") << json{{"region", "eu-west"}}
                                    << QStringList{QStringLiteral("Mcp-Param-Region: us-east")} << false;
    QTest::newRow("nested boolean another")
        << json{{"options", {{"dry", false}}}} << QStringList{QStringLiteral("Mcp-Param-Dry: true")} << false;
    QTest::newRow("through items: not an annotation a client follows")
        << json{{"list", json::array({{{"tag", "x"}}})}} << QStringList{} << true;
    QTest::newRow("a number property asks for nothing") << json{{"ratio", 0.5}} << QStringList{} << true;
}

void TestModernRequest::paramHeadersMirrorTheArguments()
{
    QFETCH(json, arguments);
    QFETCH(QStringList, headers);
    QFETCH(bool, agree);
    const json schema{{"type", "object"},
        {"properties",
            {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                {"count", {{"type", "integer"}, {"x-mcp-header", "Count"}}},
                {"ratio", {{"type", "number"}, {"x-mcp-header", "Ratio"}}},
                {"options",
                    {{"type", "object"}, {"properties", {{"dry", {{"type", "boolean"}, {"x-mcp-header", "Dry"}}}}}}},
                {"list",
                    {{"type", "array"},
                        {"items",
                            {{"type", "object"},
                                {"properties", {{"tag", {{"type", "string"}, {"x-mcp-header", "Tag"}}}}}}}}}}}};
    const auto header = [&headers](const QByteArray& name) -> std::optional<QByteArray> {
        for (const QString& line : headers) {
            if (line.section(QLatin1String(": "), 0, 0).toUtf8().compare(name, Qt::CaseInsensitive) == 0)
                return line.section(QLatin1String(": "), 1).toUtf8();
        }
        return std::nullopt;
    };
    const std::optional<ModernRequest::Refusal> refusal = ModernRequest::checkParamHeaders(schema, arguments, header);
    QCOMPARE(!refusal.has_value(), agree);
    if (refusal) {
        QCOMPARE(refusal->httpStatus, 400);
        QCOMPARE(refusal->code, -32020);
        QVERIFY(refusal->data.contains("mismatch"));
    }
}

QTEST_GUILESS_MAIN(TestModernRequest)
#include "tst_modernrequest.moc"
