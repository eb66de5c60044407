// BoundedJson, the one parser for JSON that enters the process: depth, value and byte limits at and
// over their bounds, malformed text, the ceiling on depth whatever a caller asks, the measure of a
// value built in code, and that a document at the deepest allowed level is safe to copy, serialise,
// compare and hash on a thread with a stack far smaller than the default.

#include "boundedjson.h"
#include "sanitizers.h"

#include <QTest>
#include <QThread>

#include <functional>

using nlohmann::json;
using nlohmann::ordered_json;

Q_DECLARE_METATYPE(BoundedJson::Problem)

namespace {

QByteArray nestedArrays(int depth)
{
    return QByteArray(depth, '[') + QByteArray(depth, ']');
}

QByteArray nestedObjects(int depth)
{
    QByteArray text;
    for (int i = 0; i < depth; ++i)
        text += "{\"a\":";
    return text + "1" + QByteArray(depth, '}');
}

// [{},{},…]: count + 1 values.
QByteArray emptyObjects(int count)
{
    QByteArray text = "[";
    for (int i = 0; i < count; ++i)
        text += i == 0 ? "{}" : ",{}";
    return text + "]";
}

// A value built in code, `depth` arrays deep, without copying (json::array({…}) would copy it).
json builtDeep(int depth)
{
    json root = json::array();
    json* innermost = &root;
    for (int i = 1; i < depth; ++i) {
        innermost->push_back(json::array());
        innermost = &innermost->back();
    }
    return root;
}

} // namespace

class TestBoundedJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void orderedKeepsTheOrderOfKeys();
    void noLimitGoesBeyondMaxDepth();
    void presetsBoundEverySource();
    void exceeded_data();
    void exceeded();
    void deepestAllowedDocumentIsSafeOnASmallStack();
};

void TestBoundedJson::parse_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("maxDepth");
    QTest::addColumn<int>("maxValues");
    QTest::addColumn<qint64>("maxBytes");
    QTest::addColumn<BoundedJson::Problem>("problem");
    QTest::addColumn<QString>("errorContains");

    using P = BoundedJson::Problem;
    const qint64 gib = qint64(1) << 30;
    QTest::newRow("an object") << QByteArray(R"({"a":[1,2.5,"x",true,null]})") << 64 << 100'000 << gib << P::None
                               << QString();
    QTest::newRow("a scalar") << QByteArray("42") << 64 << 100'000 << gib << P::None << QString();
    QTest::newRow("white space around") << QByteArray(" \n{}\r\n ") << 64 << 100'000 << gib << P::None << QString();

    QTest::newRow("arrays at the depth limit") << nestedArrays(64) << 64 << 100'000 << gib << P::None << QString();
    QTest::newRow("arrays one over the depth limit")
        << nestedArrays(65) << 64 << 100'000 << gib << P::TooDeep << QStringLiteral("nested deeper than 64 levels");
    QTest::newRow("objects at the depth limit") << nestedObjects(64) << 64 << 100'000 << gib << P::None << QString();
    QTest::newRow("objects one over the depth limit")
        << nestedObjects(65) << 64 << 100'000 << gib << P::TooDeep << QStringLiteral("nested deeper than 64 levels");
    QTest::newRow("200,000 levels") << nestedArrays(200'000) << 64 << 100'000 << gib << P::TooDeep
                                    << QStringLiteral("nested deeper than 64 levels");
    QTest::newRow("a million unclosed brackets")
        << QByteArray(1'000'000, '[') << 64 << 100'000 << gib << P::TooDeep << QStringLiteral("nested deeper");

    // [{},{},{}] is four values: the array and three objects.
    QTest::newRow("values at the limit") << emptyObjects(3) << 64 << 4 << gib << P::None << QString();
    QTest::newRow("values one over the limit")
        << emptyObjects(3) << 64 << 3 << gib << P::TooManyValues << QStringLiteral("JSON has more than 3 values");
    QTest::newRow("every kind of value counts, keys do not")
        << QByteArray(R"({"a":1,"b":"x","c":null,"d":true,"e":1.5,"f":-2})") << 64 << 7 << gib << P::None << QString();
    QTest::newRow("every kind of value counts, one over")
        << QByteArray(R"({"a":1,"b":"x","c":null,"d":true,"e":1.5,"f":-2})") << 64 << 6 << gib << P::TooManyValues
        << QStringLiteral("more than 6 values");
    QTest::newRow("8 MB of {}") << emptyObjects(2'700'000) << 64 << 100'000 << gib << P::TooManyValues
                                << QStringLiteral("more than 100000 values");

    QTest::newRow("bytes at the limit") << QByteArray("[1,2]") << 64 << 100 << qint64(5) << P::None << QString();
    QTest::newRow("bytes one over the limit")
        << QByteArray("[1,2] ") << 64 << 100 << qint64(5) << P::TooLarge << QStringLiteral("larger than 5 bytes");

    QTest::newRow("invalid UTF-8 in a string")
        << QByteArray("{\"s\":\"\xff\xfe\"}") << 64 << 100 << gib << P::Malformed << QStringLiteral("UTF-8");
    QTest::newRow("overlong UTF-8") << QByteArray("{\"s\":\"\xc0\xaf\"}") << 64 << 100 << gib << P::Malformed
                                    << QStringLiteral("UTF-8");
    QTest::newRow("a lone surrogate escape")
        << QByteArray(R"({"s":"\ud800"})") << 64 << 100 << gib << P::Malformed << QStringLiteral("surrogate");
    QTest::newRow("invalid UTF-8 outside strings")
        << QByteArray("\xff{}") << 64 << 100 << gib << P::Malformed << QStringLiteral("parse error");
    QTest::newRow("trailing garbage") << QByteArray(R"({"a":1} x)") << 64 << 100 << gib << P::Malformed
                                      << QStringLiteral("parse error");
    QTest::newRow("two documents") << QByteArray(R"({"a":1}{"b":2})") << 64 << 100 << gib << P::Malformed
                                   << QStringLiteral("parse error");
    QTest::newRow("truncated") << QByteArray(R"({"a":[1,2)") << 64 << 100 << gib << P::Malformed
                               << QStringLiteral("parse error");
    QTest::newRow("empty") << QByteArray() << 64 << 100 << gib << P::Malformed << QStringLiteral("parse error");
}

void TestBoundedJson::parse()
{
    QFETCH(QByteArray, text);
    QFETCH(int, maxDepth);
    QFETCH(int, maxValues);
    QFETCH(qint64, maxBytes);
    QFETCH(BoundedJson::Problem, problem);
    QFETCH(QString, errorContains);
    const BoundedJson::Limits limits{maxDepth, maxValues, maxBytes};

    const BoundedJson::Result<json> parsed = BoundedJson::parse(text, limits);
    const BoundedJson::Result<ordered_json> ordered = BoundedJson::parseOrdered(text, limits);
    QCOMPARE(parsed.ok, problem == BoundedJson::Problem::None);
    QCOMPARE(parsed.problem, problem);
    QCOMPARE(ordered.ok, parsed.ok);
    QCOMPARE(ordered.problem, problem);
    QCOMPARE(ordered.error, parsed.error);
    if (parsed.ok) {
        QVERIFY(parsed.error.empty());
        QCOMPARE(QByteArray::fromStdString(parsed.value.dump()), QByteArray::fromStdString(json::parse(text).dump()));
        return;
    }
    QVERIFY2(QString::fromStdString(parsed.error).contains(errorContains), parsed.error.c_str());
    // nlohmann's prefix ("[json.exception.parse_error.101] ") is not for people.
    QVERIFY2(parsed.error.find("[json.exception") == std::string::npos, parsed.error.c_str());
    QVERIFY(parsed.value.is_null()); // nothing half-built is handed on
    QVERIFY(ordered.value.is_null());
    if (problem == BoundedJson::Problem::Malformed)
        QVERIFY(parsed.position > 0);
}

void TestBoundedJson::orderedKeepsTheOrderOfKeys()
{
    const auto parsed
        = BoundedJson::parseOrdered(R"({"zebra":1,"apple":{"y":2,"b":3}})", BoundedJson::Limits::message());
    QVERIFY(parsed.ok);
    QCOMPARE(QByteArray::fromStdString(parsed.value.dump()), QByteArray(R"({"zebra":1,"apple":{"y":2,"b":3}})"));
}

void TestBoundedJson::noLimitGoesBeyondMaxDepth()
{
    // A caller asking for more than MaxDepth gets MaxDepth: no document anywhere is deeper.
    const BoundedJson::Limits generous{1'000'000, 100'000'000, qint64(1) << 30};
    QVERIFY(BoundedJson::parse(nestedArrays(BoundedJson::MaxDepth), generous).ok);
    const auto over = BoundedJson::parse(nestedArrays(BoundedJson::MaxDepth + 1), generous);
    QCOMPARE(over.problem, BoundedJson::Problem::TooDeep);
    QCOMPARE(over.error, "JSON is nested deeper than " + std::to_string(BoundedJson::MaxDepth) + " levels");
    QVERIFY(!BoundedJson::exceeded(builtDeep(BoundedJson::MaxDepth + 1), generous).empty());
}

void TestBoundedJson::presetsBoundEverySource()
{
    for (const auto& [name, limits] :
        {std::pair{"message", BoundedJson::Limits::message()}, std::pair{"record", BoundedJson::Limits::record()},
            std::pair{"stateFile", BoundedJson::Limits::stateFile()}}) {
        QVERIFY2(limits.maxDepth > 0 && limits.maxDepth <= BoundedJson::MaxDepth, name);
        QVERIFY2(limits.maxValues > 0 && limits.maxValues <= 4'000'000, name);
        QVERIFY2(limits.maxBytes > 0 && limits.maxBytes <= qint64(1) << 30, name);
    }
    // What Switchboard reads back holds what it took in, plus the levels it wraps that in (a tool's
    // output in a response in a record).
    QVERIFY(BoundedJson::Limits::record().maxDepth >= BoundedJson::Limits::message().maxDepth + 8);
    QVERIFY(BoundedJson::Limits::record().maxValues >= 3 * BoundedJson::Limits::message().maxValues);
    QCOMPARE(BoundedJson::Limits().maxDepth, BoundedJson::Limits::message().maxDepth);
    QCOMPARE(BoundedJson::Limits().maxValues, BoundedJson::Limits::message().maxValues);
}

void TestBoundedJson::exceeded_data()
{
    QTest::addColumn<int>("depth"); // of builtDeep, or 0 for a flat array
    QTest::addColumn<int>("elements"); // of the flat array
    QTest::addColumn<QString>("expected");

    QTest::newRow("depth at the limit") << 64 << 0 << QString();
    QTest::newRow("depth one over") << 65 << 0 << QStringLiteral("JSON is nested deeper than 64 levels");
    QTest::newRow("200,000 levels built in code")
        << 200'000 << 0 << QStringLiteral("JSON is nested deeper than 64 levels");
    QTest::newRow("values at the limit") << 0 << 99'999 << QString();
    QTest::newRow("values one over") << 0 << 100'000 << QStringLiteral("JSON has more than 100000 values");
}

void TestBoundedJson::exceeded()
{
    QFETCH(int, depth);
    QFETCH(int, elements);
    QFETCH(QString, expected);
    json value = depth > 0 ? builtDeep(depth) : json::array();
    for (int i = 0; i < elements; ++i)
        value.push_back(i);
    QCOMPARE(QString::fromStdString(BoundedJson::exceeded(value, BoundedJson::Limits::message())), expected);
    const ordered_json ordered = depth > 0 ? ordered_json::array() : ordered_json::array({1, 2});
    QCOMPARE(BoundedJson::exceeded(ordered, BoundedJson::Limits::message()), std::string());
}

void TestBoundedJson::deepestAllowedDocumentIsSafeOnASmallStack()
{
    // nlohmann copies, serialises, compares and hashes recursively. A document at MaxDepth, wrapped a
    // few levels more as a response and a record wrap it, must survive all of that on a stack an
    // eighth of the default (the measured cost is about 150 bytes a level, 3 KB under ASan).
    const QByteArray deepest = nestedObjects(BoundedJson::MaxDepth);
    const auto parsed = BoundedJson::parse(deepest, BoundedJson::Limits::record());
    QVERIFY2(parsed.ok, parsed.error.c_str());
    const auto orderedParsed = BoundedJson::parseOrdered(deepest, BoundedJson::Limits::record());
    QVERIFY(orderedParsed.ok);
    bool done = false;
    std::size_t dumped = 0;
    const std::function<void()> work = [&] {
        const json wrapped{{"result", {{"structuredContent", {{"result", parsed.value}}}}}};
        const json copy = wrapped;
        const bool same = copy == wrapped && !(copy < wrapped);
        const std::size_t hash = std::hash<json>{}(copy);
        const ordered_json ordered{{"response", orderedParsed.value}};
        dumped = copy.dump(2).size() + ordered.dump().size() + (same ? 0 : 1) + (hash == 0 ? 1 : 0);
        done = same;
    };
    QThread* thread = QThread::create(work);
    // Under AddressSanitizer in clang's unoptimised build each level's frames hold their redzones:
    // there the stack is half the default instead.
    thread->setStackSize(SWITCHBOARD_UNDER_ASAN ? 4 * 1024 * 1024 : 1024 * 1024);
    thread->start();
    QVERIFY(thread->wait(60'000));
    delete thread;
    QVERIFY(done);
    QVERIFY(dumped > std::size_t(deepest.size()));
}

QTEST_GUILESS_MAIN(TestBoundedJson)
#include "tst_boundedjson.moc"
