// PrintableText: client-supplied names and messages escaped for one terminal or log line.

#include "transport/printabletext.h"

#include <QTest>

class TestPrintableText : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void escaped_data();
    void escaped();
};

void TestPrintableText::escaped_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QByteArray>("line");
    QTest::newRow("plain") << QStringLiteral("echo") << QByteArray("echo");
    QTest::newRow("non-ASCII stays") << QStringLiteral("caf\u00e9 \u4e16\u754c")
                                     << QByteArray("caf\xc3\xa9 \xe4\xb8\x96\xe7\x95\x8c");
    QTest::newRow("newline forging a line") << QStringLiteral("echo\n12:00:00.000 #1 ok admin via builtin")
                                            << QByteArray("echo\\n12:00:00.000 #1 ok admin via builtin");
    QTest::newRow("carriage return") << QStringLiteral("a\rb") << QByteArray("a\\rb");
    QTest::newRow("tab") << QStringLiteral("a\tb") << QByteArray("a\\tb");
    QTest::newRow("terminal escape") << QStringLiteral("\x1b[2J\x1b]0;title\x07")
                                     << QByteArray("\\x1b[2J\\x1b]0;title\\x07");
    QTest::newRow("NUL and DEL") << QString(QStringLiteral("a")) + QChar(0) + QChar(0x7f) << QByteArray("a\\x00\\x7f");
    QTest::newRow("C1 CSI") << QString(QChar(0x9b)) + QStringLiteral("31m") << QByteArray("\\u{9b}31m");
    QTest::newRow("line separator") << QStringLiteral("a\u2028b\u2029c") << QByteArray("a\\u{2028}b\\u{2029}c");
    QTest::newRow("bidi override") << QStringLiteral("ok\u202egnp.exe") << QByteArray("ok\\u{202e}gnp.exe");
    QTest::newRow("backslash is escaped too") << QStringLiteral("a\\nb") << QByteArray("a\\\\nb");
    QTest::newRow("surrogate pair stays") << QString::fromUcs4(U"\U0001F600") << QByteArray("\xf0\x9f\x98\x80");
}

void TestPrintableText::escaped()
{
    QFETCH(QString, text);
    QFETCH(QByteArray, line);
    const QByteArray escaped = PrintableText::escaped(text);
    QCOMPARE(escaped, line);
    for (const char c : escaped)
        QVERIFY2(uchar(c) >= 0x20 && c != 0x7f, escaped.constData());
}

QTEST_GUILESS_MAIN(TestPrintableText)
#include "tst_printabletext.moc"
