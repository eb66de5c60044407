// Argument validation against inputSchema: what a model is told when its arguments are wrong.

#include "tools/schemavalidator.h"

#include <QTest>

using nlohmann::json;

class TestSchemaValidator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void validate_data();
    void validate();
    void errorCountIsBounded();
    void uncheckableSchemasAreRefused_data();
    void uncheckableSchemasAreRefused();
    void longStringsAgainstPatterns();
    void longPropertyNamesAgainstPatternProperties();
};

void TestSchemaValidator::validate_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QStringList>("expected"); // substrings, one per expected error; empty: valid

    const QByteArray person
        = R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name"],"additionalProperties":false})";
    QTest::newRow("valid object") << person << QByteArray(R"({"name":"Ada","age":36})") << QStringList();
    QTest::newRow("missing required") << person << QByteArray(R"({"age":3})")
                                      << QStringList{QStringLiteral("missing required property \"name\"")};
    QTest::newRow("wrong type") << person << QByteArray(R"({"name":5})")
                                << QStringList{QStringLiteral("/name: expected string, got integer")};
    QTest::newRow("additional property") << person << QByteArray(R"({"name":"a","extra":1})")
                                         << QStringList{QStringLiteral("unexpected property \"extra\"")};
    QTest::newRow("integer accepts 2.0") << person << QByteArray(R"({"name":"a","age":2.0})") << QStringList();
    QTest::newRow("integer rejects 2.5") << person << QByteArray(R"({"name":"a","age":2.5})")
                                         << QStringList{QStringLiteral("/age: expected integer, got number")};
    QTest::newRow("minimum") << person << QByteArray(R"({"name":"a","age":-1})")
                             << QStringList{QStringLiteral("/age: must be at least 0")};
    QTest::newRow("several errors") << person << QByteArray(R"({"age":"x","extra":true})")
                                    << QStringList{QStringLiteral("missing required"),
                                           QStringLiteral("/age: expected integer"),
                                           QStringLiteral("unexpected property")};
    QTest::newRow("top-level type") << person << QByteArray("[]")
                                    << QStringList{QStringLiteral("arguments: expected object, got array")};

    const QByteArray enumSchema = R"({"type":"object","properties":{"kind":{"enum":["oauth","api_key","either"]}}})";
    QTest::newRow("enum ok") << enumSchema << QByteArray(R"({"kind":"oauth"})") << QStringList();
    QTest::newRow("enum bad") << enumSchema << QByteArray(R"({"kind":"password"})")
                              << QStringList{
                                     QStringLiteral("/kind: must be one of \"oauth\", \"api_key\", \"either\"")};

    const QByteArray additionalSchema = R"({"type":"object","additionalProperties":{"type":"number"}})";
    QTest::newRow("additional schema ok") << additionalSchema << QByteArray(R"({"a":1,"b":2.5})") << QStringList();
    QTest::newRow("additional schema bad") << additionalSchema << QByteArray(R"({"a":"x"})")
                                           << QStringList{QStringLiteral("/a: expected number, got string")};
    // multipleOf on numbers of any size (fuzz_schemavalidator: valijson converted 1e300 to a 64-bit
    // integer, which is undefined behaviour).
    const QByteArray three = R"({"properties":{"n":{"multipleOf":3}}})";
    QTest::newRow("multipleOf integer ok") << three << QByteArray(R"({"n":-9})") << QStringList();
    QTest::newRow("multipleOf integer bad")
        << three << QByteArray(R"({"n":10})") << QStringList{QStringLiteral("/n: must be a multiple of 3")};
    QTest::newRow("multipleOf smallest integer")
        << three << QByteArray(R"({"n":-9223372036854775808})") << QStringList{QStringLiteral("multiple of 3")};
    // 1e300 and 3e300 are exact integers as doubles, and multiples of 3; 2^1000 is not.
    QTest::newRow("multipleOf 1e300 of 3") << three << QByteArray(R"({"n":1e300})") << QStringList();
    QTest::newRow("multipleOf 3e300 of 3") << three << QByteArray(R"({"n":3e300})") << QStringList();
    QTest::newRow("multipleOf 2^1000 of 3")
        << three << QByteArray(R"({"n":1.0715086071862673e301})") << QStringList{QStringLiteral("multiple of 3")};
    QTest::newRow("multipleOf 2.5 of 3") << three << QByteArray(R"({"n":2.5})")
                                         << QStringList{QStringLiteral("multiple of 3")};
    QTest::newRow("multipleOf 1e308 of 0.5")
        << QByteArray(R"({"multipleOf":0.5})") << QByteArray("1e308") << QStringList();
    QTest::newRow("multipleOf 0.0075 of 0.0001")
        << QByteArray(R"({"multipleOf":0.0001})") << QByteArray("0.0075") << QStringList();
    QTest::newRow("additional allowed by default")
        << QByteArray(R"({"type":"object","properties":{}})") << QByteArray(R"({"z":null})") << QStringList();

    const QByteArray arraySchema
        = R"({"type":"object","properties":{"scopes":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}}})";
    QTest::newRow("array ok") << arraySchema << QByteArray(R"({"scopes":["repo"]})") << QStringList();
    QTest::newRow("array item") << arraySchema << QByteArray(R"({"scopes":["repo",3]})")
                                << QStringList{QStringLiteral("/scopes/1: expected string")};
    QTest::newRow("array too short") << arraySchema << QByteArray(R"({"scopes":[]})")
                                     << QStringList{QStringLiteral("at least 1 items")};
    QTest::newRow("array too long") << arraySchema << QByteArray(R"({"scopes":["a","b","c"]})")
                                    << QStringList{QStringLiteral("at most 2 items")};

    const QByteArray stringSchema
        = R"({"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-z]+$"}}})";
    QTest::newRow("string ok") << stringSchema << QByteArray(R"({"s":"ab"})") << QStringList();
    QTest::newRow("string length counts characters") << stringSchema << QByteArray("{\"s\":\"\xc3\xa9\xc3\xa9\"}")
                                                     << QStringList{QStringLiteral("must match the pattern")};
    QTest::newRow("string too short") << stringSchema << QByteArray(R"({"s":"a"})")
                                      << QStringList{QStringLiteral("at least 2 characters")};
    QTest::newRow("string pattern") << stringSchema << QByteArray(R"({"s":"AB"})")
                                    << QStringList{QStringLiteral("must match the pattern")};

    QTest::newRow("type list") << QByteArray(R"({"type":"object","properties":{"v":{"type":["string","null"]}}})")
                               << QByteArray(R"({"v":null})") << QStringList();
    QTest::newRow("type list bad") << QByteArray(R"({"type":"object","properties":{"v":{"type":["string","null"]}}})")
                                   << QByteArray(R"({"v":1})")
                                   << QStringList{QStringLiteral("expected string or null")};
    QTest::newRow("const") << QByteArray(R"({"properties":{"v":{"const":"x"}}})") << QByteArray(R"({"v":"y"})")
                           << QStringList{QStringLiteral("/v: must be \"x\"")};
    QTest::newRow("anyOf ok") << QByteArray(R"({"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}})")
                              << QByteArray(R"({"v":3})") << QStringList();
    QTest::newRow("anyOf bad") << QByteArray(R"({"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}})")
                               << QByteArray(R"({"v":true})")
                               << QStringList{QStringLiteral("any of the allowed forms")};
    QTest::newRow("false schema") << QByteArray(R"({"properties":{"v":false}})") << QByteArray(R"({"v":1})")
                                  << QStringList{QStringLiteral("/v: no value is allowed")};
    QTest::newRow("pointer escaping") << QByteArray(R"({"additionalProperties":{"type":"string"}})")
                                      << QByteArray(R"({"a/b~c":1})") << QStringList{QStringLiteral("/a~1b~0c:")};
    // Keywords the hand-written validator skipped (issue 8, item 18).
    const QByteArray oneOf = R"({"properties":{"v":{"oneOf":[{"type":"string"},{"minLength":1}]}}})";
    QTest::newRow("oneOf one") << oneOf << QByteArray(R"({"v":""})") << QStringList();
    QTest::newRow("oneOf both") << oneOf << QByteArray(R"({"v":"ab"})")
                                << QStringList{QStringLiteral("/v: Failed to validate against exactly one")};
    QTest::newRow("not") << QByteArray(R"({"properties":{"v":{"not":{"type":"string"}}}})")
                         << QByteArray(R"({"v":"x"})") << QStringList{QStringLiteral("/v: Target should not validate")};
    QTest::newRow("not with a pattern") << QByteArray(R"({"properties":{"p":{"not":{"pattern":"^/etc"}}}})")
                                        << QByteArray(R"({"p":"/etc/passwd"})") << QStringList{QStringLiteral("/p:")};
    const QByteArray ref
        = R"({"definitions":{"n":{"type":"integer","minimum":1}},"properties":{"v":{"$ref":"#/definitions/n"}}})";
    QTest::newRow("$ref ok") << ref << QByteArray(R"({"v":3})") << QStringList();
    QTest::newRow("$ref bad") << ref << QByteArray(R"({"v":0})") << QStringList{QStringLiteral("/v:")};
    QTest::newRow("recursive $ref") << QByteArray(R"({"properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}})")
                                    << QByteArray(R"({"child":{"child":{"n":"x"}}})")
                                    << QStringList{QStringLiteral("/child/child/n")};
    QTest::newRow("supplementary characters count once") << QByteArray(R"({"properties":{"s":{"maxLength":1}}})")
                                                         << QByteArray("{\"s\":\"\xf0\x9f\x98\x80\"}") << QStringList();
    QTest::newRow("uniqueItems") << QByteArray(R"({"properties":{"a":{"uniqueItems":true}}})")
                                 << QByteArray(R"({"a":[1,2,1]})") << QStringList{QStringLiteral("/a:")};
    QTest::newRow("date-time") << QByteArray(R"({"properties":{"t":{"format":"date-time"}}})")
                               << QByteArray(R"({"t":"yesterday"})")
                               << QStringList{QStringLiteral("/t: must be a date-time")};
    QTest::newRow("unknown keywords ignored")
        << QByteArray(R"({"type":"object","x-custom":1,"format":"uri"})") << QByteArray(R"({})") << QStringList();
}

void TestSchemaValidator::validate()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, value);
    QFETCH(QStringList, expected);
    const QStringList errors
        = SchemaValidator::validate(json::parse(value.toStdString()), json::parse(schema.toStdString()));
    QCOMPARE(errors.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        QVERIFY2(errors.at(i).contains(expected.at(i)), qPrintable(errors.join(QStringLiteral(" | "))));
}

void TestSchemaValidator::errorCountIsBounded()
{
    json value = json::object();
    for (int i = 0; i < 100; ++i)
        value["p" + std::to_string(i)] = i;
    const json schema{{"type", "object"}, {"additionalProperties", false}};
    QCOMPARE(SchemaValidator::validate(value, schema, 5).size(), 5);
}

void TestSchemaValidator::uncheckableSchemasAreRefused_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QString>("errorContains");
    QTest::newRow("$dynamicRef") << QByteArray(R"({"properties":{"a":{"$dynamicRef":"#x"}}})")
                                 << QStringLiteral("keyword \"$dynamicRef\" at /properties/a cannot be checked");
    QTest::newRow("prefixItems") << QByteArray(R"({"prefixItems":[{"type":"string"}]})")
                                 << QStringLiteral("keyword \"prefixItems\" at the schema's root");
    QTest::newRow("unevaluatedProperties") << QByteArray(R"({"allOf":[{"unevaluatedProperties":false}]})")
                                           << QStringLiteral("unevaluatedProperties\" at /allOf/0");
    QTest::newRow("remote $ref") << QByteArray(R"({"$ref":"https://example.com/schema.json"})")
                                 << QStringLiteral("refers to another document");
    QTest::newRow("dangling $ref") << QByteArray(R"({"properties":{"a":{"$ref":"#/definitions/missing"}}})")
                                   << QStringLiteral("points to nothing in the schema");
    // valijson recursed until the stack overflowed on these.
    QTest::newRow("$ref cycle") << QByteArray(
        R"({"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"})")
                                << QStringLiteral("leads back to itself");
    QTest::newRow("$ref to itself") << QByteArray(R"({"properties":{"a":{"$ref":"#/properties/a"}}})")
                                    << QStringLiteral("leads back to itself");
    QTest::newRow("$ref cycle through allOf")
        << QByteArray(R"({"allOf":[{"$ref":"#"}]})") << QStringLiteral("$ref at /allOf/0 leads back to itself");
    QTest::newRow("$ref cycle through not and anyOf") << QByteArray(
        R"({"definitions":{"a":{"not":{"anyOf":[{"$ref":"#/definitions/a"}]}}},"$ref":"#/definitions/a"})")
                                                      << QStringLiteral("leads back to itself");
    // valijson threw and, built without exceptions, aborted.
    QTest::newRow("malformed keyword") << QByteArray(R"({"type":5})") << QStringLiteral("not a valid JSON schema");
    // A divisor of 0 made valijson divide by zero (found by fuzz_schemavalidator).
    QTest::newRow("multipleOf 0") << QByteArray(R"({"anyOf":[{"type":"integer","multipleOf":0}]})")
                                  << QStringLiteral("\"multipleOf\" must be a number greater than 0");
    QTest::newRow("multipleOf negative") << QByteArray(R"({"multipleOf":-1})")
                                         << QStringLiteral("\"multipleOf\" must be a number greater than 0");
    QTest::newRow("multipleOf not a number")
        << QByteArray(R"({"multipleOf":"3"})") << QStringLiteral("\"multipleOf\" must be a number greater than 0");
    // valijson compiled these with std::regex on every call, and an invalid one ended the process
    // (found by fuzz_schemavalidator).
    QTest::newRow("invalid patternProperties name")
        << QByteArray(R"({"type":"object","patternProperties":{"^(((x-":{"type":"string"}}})")
        << QStringLiteral("the patternProperties name at /patternProperties/^(((x- is not a valid regular expression");
    QTest::newRow("deeply nested patternProperties name")
        << QByteArray("{\"patternProperties\":{\"" + QByteArray(40, '(') + "a" + QByteArray(40, ')') + "\":{}}}")
        << QStringLiteral("nests groups deeper than 32 levels");
    QTest::newRow("long patternProperties name")
        << QByteArray("{\"patternProperties\":{\"" + QByteArray(2000, 'a') + "\":{}}}")
        << QStringLiteral("is longer than 1024 bytes");
    // Found by fuzz_schemavalidator: libstdc++ overflowed a long reading this count (UBSan).
    QTest::newRow("huge repetition count in a patternProperties name")
        << QByteArray(R"({"patternProperties":{"a{9000000000000000000}":{}}})")
        << QStringLiteral("has a repetition count or back-reference longer than 6 digits");
    QTest::newRow("huge range in a patternProperties name")
        << QByteArray(R"({"patternProperties":{"a{1,90000000000000000000}":{}}})")
        << QStringLiteral("has a repetition count or back-reference longer than 6 digits");
    QTest::newRow("huge back-reference in a patternProperties name")
        << QByteArray(R"({"patternProperties":{"(a)\\90000000000000000000":{}}})")
        << QStringLiteral("has a repetition count or back-reference longer than 6 digits");
    QTest::newRow("malformed pattern") << QByteArray(R"({"properties":{"a":{"pattern":"(unclosed"}}})")
                                       << QStringLiteral("not a valid regular expression");
}

void TestSchemaValidator::uncheckableSchemasAreRefused()
{
    QFETCH(QByteArray, schema);
    QFETCH(QString, errorContains);
    const SchemaValidator validator(json::parse(schema.toStdString()));
    QVERIFY(!validator.isUsable());
    QVERIFY2(validator.schemaError().contains(errorContains), qPrintable(validator.schemaError()));
    // Nothing passes a schema that cannot be checked.
    const QStringList errors = validator.check(json::object());
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().contains(QStringLiteral("cannot be checked")), qPrintable(errors.first()));
}

// std::regex (valijson's own pattern check) recurses once per character and overflows the stack
// on strings like these; pattern runs on QRegularExpression instead.
void TestSchemaValidator::longStringsAgainstPatterns()
{
    const json schema = json::parse(
        R"({"properties":{"s":{"pattern":"^[a-z]+$"},"g":{"pattern":"^(a|b)*$"},"t":{"format":"date-time"}}})");
    const SchemaValidator validator(schema);
    QVERIFY2(validator.isUsable(), qPrintable(validator.schemaError()));
    const std::string megabyte(1 << 20, 'a');
    QVERIFY(validator.check(json{{"s", megabyte}}).isEmpty());
    QCOMPARE(validator.check(json{{"s", megabyte + "C"}}).size(), 1);
    QCOMPARE(validator.check(json{{"t", std::string(1 << 20, '1')}}).size(), 1);
    // A match that would exceed PCRE2's backtracking limits counts as no match: refused, with the
    // pattern named, rather than let through unchecked.
    const QStringList errors = validator.check(json{{"g", megabyte}});
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().contains(QStringLiteral("/g: must match the pattern")), qPrintable(errors.first()));
}

void TestSchemaValidator::longPropertyNamesAgainstPatternProperties()
{
    const SchemaValidator validator(json::parse(R"({"patternProperties":{"^[a-z]+$":{"type":"string"}}})"));
    QVERIFY(validator.check(json{{"abc", 1}}).size() == 1);
    QVERIFY(validator.check(json{{"abc", "x"}}).isEmpty());
    const QStringList errors = validator.check(json{{"nested", {{std::string(1 << 20, 'a'), "x"}}}});
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().contains(QStringLiteral("a property name of 1048576 bytes")), qPrintable(errors.first()));
}

QTEST_GUILESS_MAIN(TestSchemaValidator)
#include "tst_schemavalidator.moc"
