// CallSearch's reading of a filter field: words, and the tool: and client: qualifiers whose names
// may be quoted; and the terms "Filter by Tool" and "Filter by Client" write, read back as the
// same name whatever it holds.

#include "callsearch.h"

#include <QTest>

namespace {

QStringList names(std::initializer_list<const char*> utf8)
{
    QStringList list;
    for (const char* name : utf8)
        list << QString::fromUtf8(name);
    return list;
}

} // namespace

class TestCallSearch : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsTheFilterField_data();
    void readsTheFilterField();
    void termsReadBackAsTheirName_data();
    void termsReadBackAsTheirName();
    void namesMatchWhole();
};

void TestCallSearch::readsTheFilterField_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QStringList>("tools");
    QTest::addColumn<QStringList>("clients");
    const QStringList none;
    QTest::newRow("words") << QStringLiteral("  echo\tclaude  ") << names({"echo", "claude"}) << none << none;
    QTest::newRow("a quote in a word is a character")
        << QStringLiteral(R"("path":"/etc" x)") << names({R"("path":"/etc")", "x"}) << none << none;
    QTest::newRow("qualifiers") << QStringLiteral("tool:echo Client:inspector ok") << names({"ok"}) << names({"echo"})
                                << names({"inspector"});
    QTest::newRow("quoted name") << QStringLiteral(R"(client:"Claude Desktop" echo)") << names({"echo"}) << none
                                 << names({"Claude Desktop"});
    QTest::newRow("escapes in quotes") << QStringLiteral(R"(client:"a \"b\" \\ c")") << none << none
                                       << names({R"(a "b" \ c)"});
    QTest::newRow("unclosed quote runs to the end")
        << QStringLiteral(R"(tool:"my tool)") << none << names({"my tool"}) << none;
    QTest::newRow("qualifier alone asks nothing") << QStringLiteral("tool: client:") << none << none << none;
    QTest::newRow("an unquoted name keeps its quotes")
        << QStringLiteral(R"(tool:a"b)") << none << names({R"(a"b)"}) << none;
    QTest::newRow("two tools") << QStringLiteral("tool:a tool:b") << none << names({"a", "b"}) << none;
}

void TestCallSearch::readsTheFilterField()
{
    QFETCH(QString, text);
    QFETCH(QStringList, words);
    QFETCH(QStringList, tools);
    QFETCH(QStringList, clients);
    const CallSearch search = CallSearch::fromText(text);
    QCOMPARE(search.words, words);
    QCOMPARE(search.tools, tools);
    QCOMPARE(search.clients, clients);
    QVERIFY(search.statuses.isEmpty());
    QVERIFY(search.adapter.isEmpty());
}

void TestCallSearch::termsReadBackAsTheirName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("term");
    QTest::newRow("plain") << QStringLiteral("git_status") << QStringLiteral("tool:git_status");
    QTest::newRow("space") << QStringLiteral("Claude Desktop") << QStringLiteral(R"(tool:"Claude Desktop")");
    QTest::newRow("quote and backslash") << QStringLiteral(R"(a "b" \c)") << QStringLiteral(R"(tool:"a \"b\" \\c")");
    QTest::newRow("tab and unicode") << QStringLiteral("ünï\tcode") << QStringLiteral("tool:\"ünï\tcode\"");
}

void TestCallSearch::termsReadBackAsTheirName()
{
    QFETCH(QString, name);
    QFETCH(QString, term);
    QCOMPARE(CallSearch::toolTerm(name), term);
    QCOMPARE(CallSearch::fromText(CallSearch::toolTerm(name) + QStringLiteral(" more")).tools, QStringList{name});
    QCOMPARE(CallSearch::fromText(CallSearch::clientTerm(name)).clients, QStringList{name});
}

void TestCallSearch::namesMatchWhole()
{
    ToolCall call;
    call.tool = QStringLiteral("echo");
    call.clientName = QStringLiteral("Claude Desktop");
    call.request = R"({"params":{"name":"echo_loud"}})";
    const auto matches = [&](const QString& text) { return CallSearch::fromText(text).matches(call); };
    QVERIFY(matches(QStringLiteral("tool:echo")));
    QVERIFY(matches(QStringLiteral("tool:ECHO"))); // ASCII letters without case, as SQLite's LIKE
    QVERIFY(!matches(QStringLiteral("tool:ech")));
    QVERIFY(!matches(QStringLiteral("tool:echo_loud"))); // in its arguments, not its name
    QVERIFY(matches(QStringLiteral("echo_loud"))); // a word is found in the arguments
    QVERIFY(matches(QStringLiteral(R"(client:"claude desktop")")));
    QVERIFY(!matches(QStringLiteral("client:Claude")));
    QVERIFY(!matches(QStringLiteral("tool:echo client:inspector")));
}

QTEST_GUILESS_MAIN(TestCallSearch)
#include "tst_callsearch.moc"
