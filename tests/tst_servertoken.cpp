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
    void unprintableEnvironmentTokenIsRefused();
    void generatedTokensDiffer();
};

void TestServerToken::environmentWins()
{
    QTemporaryDir dir;
    ServerToken token;
    QString error;
    QVERIFY(ServerToken::resolve(dir.path(), "  from-env-123  ", &token, &error));
    QCOMPARE(token.value, QByteArray("from-env-123"));
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

void TestServerToken::unprintableEnvironmentTokenIsRefused()
{
    QTemporaryDir dir;
    ServerToken token;
    QString error;
    QVERIFY(!ServerToken::resolve(dir.path(), "has space", &token, &error));
    QVERIFY(error.contains(QStringLiteral("SWITCHBOARD_TOKEN")));
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
