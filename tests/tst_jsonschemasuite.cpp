// SchemaValidator against the official JSON Schema Test Suite (Debian's json-schema-test-suite),
// draft 7: every file of a keyword MCP tool schemas use, every case in it.

#include "tools/schemavalidator.h"

#include <QDir>
#include <QFile>
#include <QTest>

using nlohmann::json;

namespace {

// Files of tests/draft7 left out, and why.
const QMap<QString, QString>& excludedFiles()
{
    static const QMap<QString, QString> files = {
        {QStringLiteral("refRemote.json"),
            QStringLiteral("references to other documents (http://localhost:1234/…); SchemaValidator refuses them "
                           "at registration, which tst_schemavalidator checks")},
        {QStringLiteral("definitions.json"),
            QStringLiteral("validates schemas against the draft 7 metaschema, a remote document")},
        {QStringLiteral("optional/bignum.json"),
            QStringLiteral("numbers beyond 64 bits, which the JSON parser reads as doubles")},
        {QStringLiteral("optional/ecmascript-regex.json"),
            QStringLiteral("ECMA 262 regex dialect details; pattern runs on PCRE2 (QRegularExpression)")},
        {QStringLiteral("optional/content.json"),
            QStringLiteral("contentMediaType and contentEncoding are annotations in draft 7, not checked")},
        {QStringLiteral("optional/zeroTerminatedFloats.json"),
            QStringLiteral("optional: 1.0 is an integer here, as draft 6 and later say")},
    };
    return files;
}

// Formats are annotations except these (see SchemaValidator).
const QStringList& checkedFormats()
{
    static const QStringList formats
        = {QStringLiteral("date.json"), QStringLiteral("time.json"), QStringLiteral("date-time.json")};
    return formats;
}

// Single cases left out within files that are otherwise run, and why: "file: group: case".
const QMap<QString, QString>& excludedCases()
{
    static const QMap<QString, QString> cases = {
        {QStringLiteral("ref.json: remote ref, containing refs itself: remote ref valid"),
            QStringLiteral("refers to the draft 7 metaschema, another document")},
        {QStringLiteral("ref.json: remote ref, containing refs itself: remote ref invalid"),
            QStringLiteral("refers to the draft 7 metaschema, another document")},
        {QStringLiteral("ref.json: Recursive references between schemas: valid tree"),
            QStringLiteral("refers by $id (\"tree\", \"node\"); only #-pointers within the schema are supported, "
                           "and the schema is refused at registration")},
        {QStringLiteral("ref.json: Recursive references between schemas: invalid tree"),
            QStringLiteral("refers by $id, as above")},
    };
    return cases;
}

} // namespace

class TestJsonSchemaSuite : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void suite_data();
    void suite();
    void schemasOutsideDraft7AreRefused();
};

void TestJsonSchemaSuite::initTestCase()
{
    QVERIFY2(QDir(QStringLiteral(JSON_SCHEMA_TEST_SUITE_DIR)).exists(),
        "the JSON Schema Test Suite is missing: install json-schema-test-suite (scripts/install-deps.sh --test)");
}

void TestJsonSchemaSuite::suite_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<bool>("valid");

    const QDir root(QStringLiteral(JSON_SCHEMA_TEST_SUITE_DIR));
    QStringList files = root.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    files << QStringLiteral("optional/bignum.json") << QStringLiteral("optional/ecmascript-regex.json")
          << QStringLiteral("optional/content.json") << QStringLiteral("optional/zeroTerminatedFloats.json");
    for (const QString& format : checkedFormats())
        files << QStringLiteral("optional/format/") + format;
    int rows = 0;
    for (const QString& name : std::as_const(files)) {
        if (excludedFiles().contains(name))
            continue;
        QFile file(root.filePath(name));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        const json groups = json::parse(file.readAll().toStdString());
        for (const auto& group : groups) {
            const std::string groupName = group.at("description").get<std::string>();
            for (const auto& test : group.at("tests")) {
                const QString row = name + QStringLiteral(": ") + QString::fromStdString(groupName)
                    + QStringLiteral(": ") + QString::fromStdString(test.at("description").get<std::string>());
                if (excludedCases().contains(row))
                    continue;
                QTest::newRow(qPrintable(row))
                    << QByteArray::fromStdString(group.at("schema").dump())
                    << QByteArray::fromStdString(test.at("data").dump()) << test.at("valid").get<bool>();
                ++rows;
            }
        }
    }
    QVERIFY2(rows > 400, qPrintable(QStringLiteral("only %1 cases found").arg(rows)));
}

void TestJsonSchemaSuite::suite()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, data);
    QFETCH(bool, valid);
    const SchemaValidator validator(json::parse(schema.toStdString()));
    QVERIFY2(validator.isUsable(), qPrintable(validator.schemaError()));
    const QStringList errors = validator.check(json::parse(data.toStdString()));
    QVERIFY2(errors.isEmpty() == valid,
        qPrintable(valid ? QStringLiteral("refused: ") + errors.join(QStringLiteral("; "))
                         : QStringLiteral("accepted a value the suite says is invalid")));
    if (!valid)
        QVERIFY(!errors.first().isEmpty());
}

// What the suite for draft 7 cannot show: keywords of later drafts are refused, not skipped.
void TestJsonSchemaSuite::schemasOutsideDraft7AreRefused()
{
    for (const char* keyword :
        {"$dynamicRef", "unevaluatedProperties", "unevaluatedItems", "prefixItems", "dependentRequired"}) {
        const SchemaValidator validator(json{{"type", "object"}, {"properties", {{"a", {{keyword, true}}}}}});
        QVERIFY(!validator.isUsable());
        QVERIFY2(validator.schemaError().contains(QString::fromLatin1(keyword)), qPrintable(validator.schemaError()));
        QVERIFY(validator.schemaError().contains(QStringLiteral("/properties/a")));
    }
}

QTEST_GUILESS_MAIN(TestJsonSchemaSuite)
#include "tst_jsonschemasuite.moc"
