// ServerToken: where the bearer token comes from, and that its file is owner-only.

#include "auth/servertoken.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {
mode_t modeOf(const QString& path)
{
    struct stat info = {};
    ::stat(QFile::encodeName(path).constData(), &info);
    return info.st_mode & 0777;
}
} // namespace

class TestServerToken : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void environmentWins();
    void generatedOnceOwnerOnlyThenReused();
    void loosenedFileIsTightened();
    void unusableEnvironmentTokenIsRefused_data();
    void unusableEnvironmentTokenIsRefused();
    void unusableStoredTokenIsRefused();
    void generatedTokensDiffer();
};

void TestServerToken::environmentWins()
{
    QTemporaryDir dir;
    ServerToken token;
    QString error;
    QVERIFY(ServerToken::resolve(dir.path(), "from-env-0123456789abcdefghijklmnop", &token, &error));
    QCOMPARE(token.value, QByteArray("from-env-0123456789abcdefghijklmnop"));
    QCOMPARE(token.source, ServerToken::Source::Environment);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("token"))));
    QVERIFY(token.describeSource().contains(QStringLiteral("SWITCHBOARD_TOKEN")));
}

void TestServerToken::generatedOnceOwnerOnlyThenReused()
{
    QTemporaryDir dir;
    const QString state = dir.filePath(QStringLiteral("nested/state"));
    ServerToken first;
    QString error;
    QVERIFY2(ServerToken::resolve(state, {}, &first, &error), qPrintable(error));
    QCOMPARE(first.source, ServerToken::Source::Generated);
    QVERIFY(first.value.startsWith("sb_"));
    QVERIFY(first.value.size() >= 40);
    QCOMPARE(modeOf(first.filePath), mode_t(0600));

    ServerToken second;
    QVERIFY(ServerToken::resolve(state, {}, &second, &error));
    QCOMPARE(second.source, ServerToken::Source::StoredFile);
    QCOMPARE(second.value, first.value);
}

void TestServerToken::loosenedFileIsTightened()
{
    QTemporaryDir dir;
    ServerToken token;
    QString error;
    QVERIFY(ServerToken::resolve(dir.path(), {}, &token, &error));
    ::chmod(QFile::encodeName(token.filePath).constData(), 0644);
    ServerToken again;
    QVERIFY(ServerToken::resolve(dir.path(), {}, &again, &error));
    QCOMPARE(again.value, token.value);
    QCOMPARE(modeOf(token.filePath), mode_t(0600));
}

void TestServerToken::unusableEnvironmentTokenIsRefused_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("reason");
    const QByteArray long32 = "0123456789abcdefghijklmnopqrstuv";
    QTest::newRow("31 characters") << long32.left(31) << QStringLiteral("is 31 characters long");
    QTest::newRow("short") << QByteArray("sb_short") << QStringLiteral("at least 32");
    QTest::newRow("inner space") << QByteArray("0123456789abcdef 0123456789abcdef") << QStringLiteral("whitespace");
    QTest::newRow("leading space") << " " + long32 << QStringLiteral("whitespace");
    QTest::newRow("trailing newline") << long32 + "\n" << QStringLiteral("whitespace");
    QTest::newRow("tab") << long32 + "\tx" << QStringLiteral("whitespace");
    QTest::newRow("control character") << long32 + "\x01" << QStringLiteral("not printable ASCII");
    QTest::newRow("not ASCII") << long32 + "\xc3\xa9" << QStringLiteral("not printable ASCII");
}

void TestServerToken::unusableEnvironmentTokenIsRefused()
{
    QFETCH(QByteArray, value);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    ServerToken token;
    QString error;
    QVERIFY(!ServerToken::resolve(dir.path(), value, &token, &error));
    QVERIFY2(error.startsWith(QStringLiteral("SWITCHBOARD_TOKEN ")), qPrintable(error));
    QVERIFY2(error.contains(reason), qPrintable(error));
    QVERIFY(token.value.isEmpty());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("token")))); // no silent fallback either

    // Exactly the minimum is enough.
    QVERIFY2(ServerToken::resolve(dir.path(), "0123456789abcdefghijklmnopqrstuv", &token, &error), qPrintable(error));
}

void TestServerToken::unusableStoredTokenIsRefused()
{
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("token")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("sb_short\n");
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    ServerToken token;
    QString error;
    QVERIFY(!ServerToken::resolve(dir.path(), {}, &token, &error));
    QVERIFY2(error.contains(file.fileName()) && error.contains(QStringLiteral("at least 32")), qPrintable(error));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("sb_short\n")); // kept for the operator to see, not replaced
}

void TestServerToken::generatedTokensDiffer()
{
    QSet<QByteArray> tokens;
    for (int i = 0; i < 100; ++i)
        tokens.insert(ServerToken::generate());
    QCOMPARE(tokens.size(), 100);
}

QTEST_GUILESS_MAIN(TestServerToken)
#include "tst_servertoken.moc"
