// GitIndexFile against libgit2's reading of the same index files: versions 2, 3 (extended flags
// from intent-to-add) and 4 (compressed paths), conflicts; and files it must refuse without
// reading past their end: every truncation, flipped bytes, a split index.

#include "git/gitindexfile.h"
#include "gitprogram.h"

#include <git2.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

class TestGitIndexFile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void readsAsLibgit2Does_data();
    void readsAsLibgit2Does();
    void refusesDamagedFiles();
    void refusesSplitIndex();
    void refusesMissingFile();

private:
    QString git(const QStringList& arguments, int* exitCode = nullptr);
    void write(const QString& relative, const QByteArray& content);
    void compareWithLibgit2();

    QTemporaryDir m_dir;
    QString m_repo;
};

QString TestGitIndexFile::git(const QStringList& arguments, int* exitCode)
{
    return GitProgram::run(m_repo, arguments, exitCode);
}

void TestGitIndexFile::write(const QString& relative, const QByteArray& content)
{
    QVERIFY(GitProgram::write(m_repo, relative, content));
}

void TestGitIndexFile::initTestCase()
{
    QVERIFY(m_dir.isValid());
    git_libgit2_init();
    m_repo = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/repo");
    QVERIFY(QDir().mkpath(m_repo));
    qputenv("HOME", QFile::encodeName(m_dir.path()));
    qputenv("GIT_CONFIG_NOSYSTEM", "1");
    QVERIFY(GitProgram::initRepository(m_repo));
    int code = 0;
    // Paths long and short, sharing prefixes (version 4 compresses them), with spaces and UTF-8.
    for (int d = 0; d < 6; ++d) {
        for (int f = 0; f < 7; ++f)
            write(QStringLiteral("dir%1/a rather long sub directory name %2/file-%3.txt").arg(d).arg(f % 2).arg(f),
                QByteArray::number(d * 10 + f));
    }
    write(QStringLiteral("t\u00e9l\u00e9phone.txt"), "x");
    write(QStringLiteral("a"), "short");
    QFile::link(QStringLiteral("a"), m_repo + QStringLiteral("/link"));
    write(QStringLiteral("run.sh"), "#!/bin/sh\n");
    QFile::setPermissions(m_repo + QStringLiteral("/run.sh"),
        QFile::permissions(m_repo + QStringLiteral("/run.sh")) | QFileDevice::ExeOwner);
    git({QStringLiteral("add"), QStringLiteral("-A")}, &code);
    QCOMPARE(code, 0);
    git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("start")}, &code);
    QCOMPARE(code, 0);
}

void TestGitIndexFile::cleanupTestCase()
{
    git_libgit2_shutdown();
}

void TestGitIndexFile::compareWithLibgit2()
{
    GitIndexFile file;
    QString error;
    QVERIFY2(file.read(m_repo + QStringLiteral("/.git/index"), &error), qPrintable(error));
    git_index* index = nullptr;
    QCOMPARE(git_index_open(&index, QFile::encodeName(m_repo + QStringLiteral("/.git/index")).constData()), 0);
    const auto release = qScopeGuard([index] { git_index_free(index); });
    QCOMPARE(file.entries().size(), git_index_entrycount(index));
    QCOMPARE(QByteArray::fromStdString(file.checksum()),
        QByteArray(reinterpret_cast<const char*>(git_index_checksum(index)->id), GIT_OID_RAWSZ));
    for (std::size_t i = 0; i < file.entries().size(); ++i) {
        const GitIndexFile::Entry& mine = file.entries()[i];
        const git_index_entry* theirs = git_index_get_byindex(index, i);
        QCOMPARE(QByteArray::fromStdString(mine.path), QByteArray(theirs->path));
        QCOMPARE(mine.ctimeSeconds, std::uint32_t(theirs->ctime.seconds));
        QCOMPARE(mine.ctimeNanoseconds, theirs->ctime.nanoseconds);
        QCOMPARE(mine.mtimeSeconds, std::uint32_t(theirs->mtime.seconds));
        QCOMPARE(mine.mtimeNanoseconds, theirs->mtime.nanoseconds);
        QCOMPARE(mine.dev, theirs->dev);
        QCOMPARE(mine.ino, theirs->ino);
        QCOMPARE(mine.mode, theirs->mode);
        QCOMPARE(mine.uid, theirs->uid);
        QCOMPARE(mine.gid, theirs->gid);
        QCOMPARE(mine.size, theirs->file_size);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(mine.id), GIT_OID_RAWSZ),
            QByteArray(reinterpret_cast<const char*>(theirs->id.id), GIT_OID_RAWSZ));
        QCOMPARE(mine.stage(), git_index_entry_stage(theirs));
        QCOMPARE(mine.intentToAdd(), bool(theirs->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD));
        QCOMPARE(mine.skipWorktree(), bool(theirs->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE));
    }
}

void TestGitIndexFile::readsAsLibgit2Does_data()
{
    QTest::addColumn<QString>("setUp");
    QTest::newRow("version 2") << QStringLiteral("2");
    QTest::newRow("version 3, intent to add") << QStringLiteral("3");
    QTest::newRow("version 4, compressed paths") << QStringLiteral("4");
    QTest::newRow("skip-worktree") << QStringLiteral("skip");
    QTest::newRow("a conflict") << QStringLiteral("conflict");
}

void TestGitIndexFile::readsAsLibgit2Does()
{
    QFETCH(QString, setUp);
    int code = 0;
    git({QStringLiteral("reset"), QStringLiteral("-q"), QStringLiteral("--hard")});
    git({QStringLiteral("update-index"), QStringLiteral("--index-version"), QStringLiteral("2")}, &code);
    QCOMPARE(code, 0);
    if (setUp == QLatin1String("3")) {
        write(QStringLiteral("intended.txt"), "later\n");
        git({QStringLiteral("add"), QStringLiteral("-N"), QStringLiteral("intended.txt")}, &code);
        QCOMPARE(code, 0);
        GitIndexFile file;
        QString error;
        QVERIFY2(file.read(m_repo + QStringLiteral("/.git/index"), &error), qPrintable(error));
        QCOMPARE(file.version(), 3u);
    } else if (setUp == QLatin1String("4")) {
        git({QStringLiteral("update-index"), QStringLiteral("--index-version"), QStringLiteral("4")}, &code);
        QCOMPARE(code, 0);
    } else if (setUp == QLatin1String("skip")) {
        git({QStringLiteral("update-index"), QStringLiteral("--skip-worktree"), QStringLiteral("a")}, &code);
        QCOMPARE(code, 0);
    } else if (setUp == QLatin1String("conflict")) {
        git({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("other")});
        write(QStringLiteral("a"), "theirs\n");
        git({QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("other")});
        git({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")});
        write(QStringLiteral("a"), "ours\n");
        git({QStringLiteral("commit"), QStringLiteral("-qam"), QStringLiteral("ours")});
        git({QStringLiteral("merge"), QStringLiteral("-q"), QStringLiteral("other")}, &code);
        QVERIFY(code != 0); // the conflict
    }
    compareWithLibgit2();
    if (setUp == QLatin1String("conflict")) {
        git({QStringLiteral("merge"), QStringLiteral("--abort")});
        git({QStringLiteral("reset"), QStringLiteral("-q"), QStringLiteral("--hard"), QStringLiteral("HEAD~1")});
    }
    git({QStringLiteral("rm"), QStringLiteral("-q"), QStringLiteral("--cached"), QStringLiteral("--ignore-unmatch"),
        QStringLiteral("intended.txt")});
    QFile::remove(m_repo + QStringLiteral("/intended.txt"));
    git({QStringLiteral("update-index"), QStringLiteral("--no-skip-worktree"), QStringLiteral("a")});
}

// Every prefix of a real index, and bytes flipped at random, read without a crash (the sanitizer
// builds check every access) and without a result that claims more than the file holds.
void TestGitIndexFile::refusesDamagedFiles()
{
    git({QStringLiteral("update-index"), QStringLiteral("--index-version"), QStringLiteral("4")});
    QFile original(m_repo + QStringLiteral("/.git/index"));
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray bytes = original.readAll();
    original.close();
    const QString damagedPath = m_dir.path() + QStringLiteral("/damaged-index");
    const auto writeDamaged = [&](const QByteArray& content) {
        QFile damaged(damagedPath);
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write(content);
    };
    for (qsizetype length = 0; length < bytes.size(); ++length) {
        writeDamaged(bytes.left(length));
        GitIndexFile file;
        QString error;
        // A prefix may still parse when it only cuts extensions, but never with more entries.
        if (file.read(damagedPath, &error))
            QVERIFY(file.entries().size() <= 52);
        else
            QVERIFY(!error.isEmpty());
    }
    QRandomGenerator random(7);
    for (int round = 0; round < 2'000; ++round) {
        QByteArray damaged = bytes;
        for (int flips = 1 + random.bounded(4); flips > 0; --flips)
            damaged[random.bounded(int(damaged.size()))] = char(random.bounded(256));
        writeDamaged(damaged);
        GitIndexFile file;
        QString error;
        if (!file.read(damagedPath, &error))
            QVERIFY(!error.isEmpty());
    }
    writeDamaged(QByteArray("DIRC\0\0\0\x07\0\0\0\0", 12) + QByteArray(20, '\0'));
    GitIndexFile file;
    QString error;
    QVERIFY(!file.read(damagedPath, &error));
    QVERIFY2(error.contains(QLatin1String("version 7")), qPrintable(error));
    git({QStringLiteral("update-index"), QStringLiteral("--index-version"), QStringLiteral("2")});
}

void TestGitIndexFile::refusesSplitIndex()
{
    int code = 0;
    git({QStringLiteral("update-index"), QStringLiteral("--split-index")}, &code);
    QCOMPARE(code, 0);
    GitIndexFile file;
    QString error;
    QVERIFY(!file.read(m_repo + QStringLiteral("/.git/index"), &error));
    QVERIFY2(error.contains(QLatin1String("split index")), qPrintable(error));
    git({QStringLiteral("update-index"), QStringLiteral("--no-split-index")}, &code);
    QCOMPARE(code, 0);
    QVERIFY2(file.read(m_repo + QStringLiteral("/.git/index"), &error), qPrintable(error));
}

void TestGitIndexFile::refusesMissingFile()
{
    GitIndexFile file;
    QString error;
    QVERIFY(!file.read(m_dir.path() + QStringLiteral("/no-such-index"), &error));
    QVERIFY2(error.contains(QLatin1String("cannot open")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestGitIndexFile)
#include "tst_gitindexfile.moc"
