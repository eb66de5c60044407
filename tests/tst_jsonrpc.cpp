// JSON-RPC parsing and classification: every protocol error the server can produce starts here.

#include "protocol/jsonrpc.h"

#include "jsontestsupport.h"

#include <QTest>

using nlohmann::json;

class TestJsonRpc : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parse_data();
    void parse();
    void depthLimitIsInclusive();
    void valueLimitIsInclusive();
    void millionsOfEmptyObjectsStopEarly();
    void classify_data();
    void classify();
    void errorShape();
};

void TestJsonRpc::parse_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("errorContains");

    QTest::newRow("object") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") << true << QString();
    QTest::newRow("array") << QByteArray(R"([{"jsonrpc":"2.0","method":"a"}])") << true << QString();
    QTest::newRow("unicode escapes") << QByteArray(R"({"s":"\u00e9\ud83d\ude00"})") << true << QString();
    QTest::newRow("utf-8 text") << QByteArray("{\"s\":\"caf\xc3\xa9\"}") << true << QString();
    QTest::newRow("empty") << QByteArray() << false << QStringLiteral("parse error");
    QTest::newRow("truncated") << QByteArray(R"({"jsonrpc":"2.0")") << false << QStringLiteral("parse error");
    QTest::newRow("trailing garbage") << QByteArray(R"({"a":1} x)") << false << QStringLiteral("parse error");
    QTest::newRow("two documents") << QByteArray(R"({"a":1}{"b":2})") << false << QStringLiteral("parse error");
    QTest::newRow("single quotes") << QByteArray("{'a':1}") << false << QStringLiteral("parse error");
    QTest::newRow("invalid utf-8 in string") << QByteArray("{\"s\":\"\xff\xfe\"}") << false << QStringLiteral("UTF-8");
    QTest::newRow("overlong utf-8") << QByteArray("{\"s\":\"\xc0\xaf\"}") << false << QStringLiteral("UTF-8");
    QTest::newRow("lone surrogate escape") << QByteArray(R"({"s":"\ud800"})") << false << QStringLiteral("surrogate");
    QTest::newRow("invalid utf-8 outside strings") << QByteArray("\xff{}") << false << QStringLiteral("parse error");
    QTest::newRow("deep arrays") << QByteArray(100, '[') + QByteArray(100, ']') << false
                                 << QStringLiteral("nested deeper");
    QByteArray deepObjects;
    for (int i = 0; i < 70; ++i)
        deepObjects += "{\"a\":";
    deepObjects += "1" + QByteArray(70, '}');
    QTest::newRow("deep objects") << deepObjects << false << QStringLiteral("nested deeper");
    QTest::newRow("a million brackets") << QByteArray(1'000'000, '[') << false << QStringLiteral("nested deeper");
}

void TestJsonRpc::parse()
{
    QFETCH(QByteArray, body);
    QFETCH(bool, ok);
    QFETCH(QString, errorContains);
    const auto result = JsonRpc::parse(body, {64});
    QCOMPARE(result.ok, ok);
    if (!ok) {
        QVERIFY2(
            QString::fromStdString(result.error).contains(errorContains, Qt::CaseInsensitive), result.error.c_str());
        QVERIFY(result.value.is_null()); // nothing half-built is handed on
    }
}

void TestJsonRpc::depthLimitIsInclusive()
{
    const QByteArray atLimit = QByteArray(64, '[') + QByteArray(64, ']');
    QVERIFY(JsonRpc::parse(atLimit, {64}).ok);
    const QByteArray overLimit = QByteArray(65, '[') + QByteArray(65, ']');
    QVERIFY(!JsonRpc::parse(overLimit, {64}).ok);
}

void TestJsonRpc::valueLimitIsInclusive()
{
    // [{},{},{}] is four values: the array and three objects.
    QVERIFY(JsonRpc::parse("[{},{},{}]", {64, 4}).ok);
    const auto over = JsonRpc::parse("[{},{},{}]", {64, 3});
    QVERIFY(!over.ok);
    QCOMPARE(over.error, std::string("JSON has more than 3 values"));
    QVERIFY(over.value.is_null());
    // Every kind of value counts: keys do not.
    QVERIFY(JsonRpc::parse(R"({"a":1,"b":"x","c":null,"d":true,"e":1.5})", {64, 6}).ok);
    QVERIFY(!JsonRpc::parse(R"({"a":1,"b":"x","c":null,"d":true,"e":1.5})", {64, 5}).ok);
}

void TestJsonRpc::millionsOfEmptyObjectsStopEarly()
{
    // 4 MiB of "{}" is 1.4 million objects (about 440 MB as a DOM): the default limit refuses it.
    QByteArray body = "[";
    while (body.size() < 4 * 1024 * 1024 - 8)
        body += "{},";
    body += "{}]";
    const auto result = JsonRpc::parse(body);
    QVERIFY(!result.ok);
    QVERIFY2(result.error.find("more than 100000 values") != std::string::npos, result.error.c_str());
    QVERIFY(result.value.is_null());
}

void TestJsonRpc::classify_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QByteArray>("id"); // the id as JSON, "null" when unreadable
    QTest::addColumn<QString>("reasonContains");

    using K = JsonRpc::Kind;
    QTest::newRow("request") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") << int(K::Request)
                             << QByteArray("1") << QString();
    QTest::newRow("string id") << QByteArray(R"({"jsonrpc":"2.0","id":"a","method":"ping","params":{}})")
                               << int(K::Request) << QByteArray("\"a\"") << QString();
    QTest::newRow("notification") << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
                                  << int(K::Notification) << QByteArray("null") << QString();
    QTest::newRow("response result") << QByteArray(R"({"jsonrpc":"2.0","id":3,"result":{}})") << int(K::Response)
                                     << QByteArray("3") << QString();
    QTest::newRow("response error") << QByteArray(R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}})")
                                    << int(K::Response) << QByteArray("3") << QString();
    QTest::newRow("not an object") << QByteArray("42") << int(K::Invalid) << QByteArray("null")
                                   << QStringLiteral("object");
    QTest::newRow("array element scalar")
        << QByteArray("\"x\"") << int(K::Invalid) << QByteArray("null") << QStringLiteral("object");
    QTest::newRow("missing jsonrpc") << QByteArray(R"({"id":1,"method":"ping"})") << int(K::Invalid) << QByteArray("1")
                                     << QStringLiteral("jsonrpc");
    QTest::newRow("wrong jsonrpc") << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << int(K::Invalid)
                                   << QByteArray("1") << QStringLiteral("jsonrpc");
    QTest::newRow("numeric jsonrpc") << QByteArray(R"({"jsonrpc":2.0,"id":1,"method":"ping"})") << int(K::Invalid)
                                     << QByteArray("1") << QStringLiteral("jsonrpc");
    QTest::newRow("null id") << QByteArray(R"({"jsonrpc":"2.0","id":null,"method":"ping"})") << int(K::Invalid)
                             << QByteArray("null") << QStringLiteral("id");
    QTest::newRow("fractional id") << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") << int(K::Invalid)
                                   << QByteArray("null") << QStringLiteral("id");
    QTest::newRow("object id") << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"ping"})") << int(K::Invalid)
                               << QByteArray("null") << QStringLiteral("id");
    QTest::newRow("boolean id") << QByteArray(R"({"jsonrpc":"2.0","id":true,"method":"ping"})") << int(K::Invalid)
                                << QByteArray("null") << QStringLiteral("id");
    QTest::newRow("numeric method") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":5})") << int(K::Invalid)
                                    << QByteArray("1") << QStringLiteral("method");
    QTest::newRow("empty method") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":""})") << int(K::Invalid)
                                  << QByteArray("1") << QStringLiteral("method");
    QTest::newRow("array params") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")
                                  << int(K::Invalid) << QByteArray("1") << QStringLiteral("params");
    QTest::newRow("string params") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":"x"})")
                                   << int(K::Invalid) << QByteArray("1") << QStringLiteral("params");
    QTest::newRow("neither method nor result")
        << QByteArray(R"({"jsonrpc":"2.0","id":1})") << int(K::Invalid) << QByteArray("1") << QStringLiteral("method");
    QTest::newRow("result and error") << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{},"error":{}})")
                                      << int(K::Invalid) << QByteArray("1") << QStringLiteral("exactly one");
    QTest::newRow("result without id") << QByteArray(R"({"jsonrpc":"2.0","result":{}})") << int(K::Invalid)
                                       << QByteArray("null") << QStringLiteral("method");
}

void TestJsonRpc::classify()
{
    QFETCH(QByteArray, message);
    QFETCH(int, kind);
    QFETCH(QByteArray, id);
    QFETCH(QString, reasonContains);
    const auto parsed = JsonRpc::parse(message);
    QVERIFY(parsed.ok);
    const auto classified = JsonRpc::classify(parsed.value);
    QCOMPARE(int(classified.kind), kind);
    QCOMPARE(QByteArray::fromStdString(classified.id.dump()), id);
    if (!reasonContains.isEmpty())
        QVERIFY2(QString::fromStdString(classified.invalidReason).contains(reasonContains),
            classified.invalidReason.c_str());
}

void TestJsonRpc::errorShape()
{
    const json error = JsonRpc::makeError(nullptr, JsonRpc::ParseError, "Parse error");
    QCOMPARE(QString::fromStdString(error.dump()),
        QStringLiteral(R"({"error":{"code":-32700,"message":"Parse error"},"id":null,"jsonrpc":"2.0"})"));
    const json withData = JsonRpc::makeError(7, JsonRpc::InvalidParams, "bad", json{{"field", "x"}});
    QCOMPARE_JSON(withData["error"]["data"]["field"], json("x"));
    QCOMPARE(JsonRpc::serialize(JsonRpc::makeResult("a", json::object())),
        QByteArray(R"({"id":"a","jsonrpc":"2.0","result":{}})"));
}

QTEST_GUILESS_MAIN(TestJsonRpc)
#include "tst_jsonrpc.moc"
