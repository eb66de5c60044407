// git_status's answers against the git program's after random edits, fresh and from the cache
// (GitStatusCache with its TreeWatcher): every edit makes the cached answer stale at once, and a
// cached answer is always the fresh one. The seed is printed; SWITCHBOARD_GIT_SEED=<seed> replays.

#include "git/gitrepositoryhandle.h"
#include "git/gitstatuscache.h"
#include "git/gitstatusscanner.h"
#include "git/gittoolhandlers.h"
#include "git/treewatcher.h"
#include "gitprogram.h"
#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <condition_variable>
#include <mutex>

#include <nlohmann/json.hpp>

using nlohmann::json;

class TestGitStatus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void randomEditsMatchGitFreshAndCached();
    void quickScanAsksLibgit2OnlyAboutWhatChanged();
    void watcherCountsChangesDeepInTheTree();
    void cacheIsBounded();
    void backgroundWarmingNeitherKeepsNorRevivesAnEvictedRepository();
    void missingTreeIsNotWatched();

private:
    QString git(const QStringList& arguments, int* exitCode = nullptr);
    QStringList gitPorcelain();
    QStringList porcelainOf(const std::optional<json>& fields);
    void write(const QString& relative, const QByteArray& content);
    // Sets the modification time of `files` (all of the working tree's when empty) a minute and a
    // half back: what was refreshed into the index then is no longer racily clean.
    // Sets the files' times into the past: a second of their own at every call, and never the
    // same one twice.
    void backdate(const QStringList& files = {});
    QStringList workTreeFiles();

    QTemporaryDir m_dir;
    QStringList m_written; // what write() wrote since it was last cleared
    qint64 m_backdateBase = 0;
    int m_backdates = 0;
    QString m_root;
    QString m_repo;
};

QString TestGitStatus::git(const QStringList& arguments, int* exitCode)
{
    return GitProgram::run(m_repo, arguments, exitCode);
}

QStringList TestGitStatus::gitPorcelain()
{
    QProcess process;
    process.setWorkingDirectory(m_repo);
    process.start(
        QStringLiteral("git"), {QStringLiteral("status"), QStringLiteral("--porcelain"), QStringLiteral("-z")});
    process.waitForFinished(60'000);
    const QList<QByteArray> fields = process.readAllStandardOutput().split('\0');
    QStringList lines;
    for (qsizetype i = 0; i < fields.size() && !fields[i].isEmpty(); ++i) {
        const QString entry = QString::fromUtf8(fields[i]);
        if (entry.startsWith(QLatin1Char('R')) || entry.startsWith(QLatin1Char('C'))) {
            lines << entry.left(3) + QString::fromUtf8(fields[i + 1]) + QStringLiteral(" -> ") + entry.mid(3);
            ++i;
        } else {
            lines << entry;
        }
    }
    lines.sort();
    return lines;
}

QStringList TestGitStatus::porcelainOf(const std::optional<json>& fields)
{
    QStringList lines;
    if (!fields)
        return {QStringLiteral("<no answer>")};
    for (const json& line : (*fields)["porcelain"])
        lines << QString::fromStdString(line.get<std::string>());
    lines.sort();
    return lines;
}

void TestGitStatus::write(const QString& relative, const QByteArray& content)
{
    QVERIFY(GitProgram::write(m_repo, relative, content));
    m_written << relative;
}

QStringList TestGitStatus::workTreeFiles()
{
    QStringList files;
    QDirIterator it(m_repo, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!path.contains(QLatin1String("/.git/")))
            files << QDir(m_repo).relativeFilePath(path);
    }
    return files;
}

void TestGitStatus::backdate(const QStringList& files)
{
    // A time "now - 90 s" would repeat within a second: a rewritten file of the same size would
    // then get the very size, mtime and ctime seconds the index recorded for it (Debian's git
    // compares no nanoseconds), which blinds the git program itself, the oracle here: it calls the
    // changed file clean. Seed 757907127 did that, and git_status rightly disagreed.
    timespec now;
    ::clock_gettime(CLOCK_REALTIME, &now);
    if (m_backdateBase == 0)
        m_backdateBase = now.tv_sec - 10'000;
    const time_t second = time_t(m_backdateBase + ++m_backdates);
    const timespec times[2] = {{second, 0}, {second, 123'456'789}};
    for (const QString& file : files.isEmpty() ? workTreeFiles() : files) {
        const QByteArray path = QFile::encodeName(m_repo + QLatin1Char('/') + file);
        ::utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW);
    }
}

void TestGitStatus::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/root");
    m_repo = m_root + QStringLiteral("/repo");
    QVERIFY(QDir().mkpath(m_repo));
    qputenv("HOME", QFile::encodeName(m_dir.path()));
    qputenv("GIT_CONFIG_NOSYSTEM", "1");
    QVERIFY(GitProgram::initRepository(m_repo));
    int code = 0;
    for (int d = 0; d < 8; ++d) {
        for (int f = 0; f < 12; ++f)
            write(QStringLiteral("dir%1/sub%2/file%3.txt").arg(d).arg(f % 3).arg(f),
                QByteArray::number(d * 100 + f) + '\n');
    }
    write(QStringLiteral("top.txt"), "top\n");
    git({QStringLiteral("add"), QStringLiteral("-A")});
    git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("start")}, &code);
    QCOMPARE(code, 0);
}

void TestGitStatus::randomEditsMatchGitFreshAndCached()
{
    const quint32 seed = qEnvironmentVariableIsSet("SWITCHBOARD_GIT_SEED")
        ? quint32(qEnvironmentVariableIntValue("SWITCHBOARD_GIT_SEED"))
        : QRandomGenerator::global()->generate();
    qInfo("seed %u (SWITCHBOARD_GIT_SEED=%u replays it)", seed, seed);
    QRandomGenerator random(seed);
    const GitPathPolicy policy({m_root});
    GitStatusCache cache([&policy](const QString& repository) {
        QString error;
        return GitToolHandlers::statusFields(policy, repository, &error);
    });
    const auto anyFile = [&] {
        QStringList files;
        QDirIterator it(m_repo, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (!path.contains(QLatin1String("/.git/")))
                files << QDir(m_repo).relativeFilePath(path);
        }
        return files.isEmpty() ? QString() : files.at(random.bounded(int(files.size())));
    };
    for (int round = 0; round < 25; ++round) {
        // Half the rounds start from an index whose stat data are not racily clean, and end with
        // the files written back-dated too: then only lstat() data tell what changed.
        const bool backdated = random.bounded(2);
        if (backdated) {
            backdate();
            git({QStringLiteral("update-index"), QStringLiteral("-q"), QStringLiteral("--refresh")});
        }
        m_written.clear();
        // Warm the cache and wait until it answers from the watched tree.
        const QStringList expectedNow = gitPorcelain();
        QCOMPARE(porcelainOf(cache.status(m_repo)), expectedNow);
        // The git program may rewrite the index (a change like any other): asked first.
        const QStringList before = gitPorcelain();
        QTRY_VERIFY_WITH_TIMEOUT(cache.find(m_repo).has_value() || (cache.compute(m_repo), false), 30'000);
        QCOMPARE(porcelainOf(cache.find(m_repo)), before);

        const int edits = 1 + random.bounded(6);
        QStringList done;
        for (int e = 0; e < edits; ++e) {
            const QString file = anyFile();
            switch (random.bounded(10)) {
            case 0: // change a file's content
                if (!file.isEmpty())
                    write(file, QByteArray::number(random.generate()) + '\n');
                done << QStringLiteral("modify ") + file;
                break;
            case 1: // delete a file
                if (!file.isEmpty())
                    QFile::remove(m_repo + QLatin1Char('/') + file);
                done << QStringLiteral("delete ") + file;
                break;
            case 2: { // a new file: at the top, in a tracked directory, in a new directory there or at the top
                const int where = random.bounded(4);
                const QString path = where == 0 ? QStringLiteral("new%1.txt").arg(random.bounded(1000))
                    : where == 1                ? QStringLiteral("dir%1/sub%2/new%3.txt")
                                       .arg(random.bounded(8))
                                       .arg(random.bounded(3))
                                       .arg(random.bounded(100))
                    : where == 2
                    ? QStringLiteral("dir%1/newsub%2/deep/n.txt").arg(random.bounded(8)).arg(random.bounded(10))
                    : QStringLiteral("newdir%1/deep/n.txt").arg(random.bounded(100));
                write(path, "new\n");
                done << QStringLiteral("create ") + path;
                break;
            }
            case 3: // stage everything under a directory or one file
                if (!file.isEmpty())
                    git({QStringLiteral("add"), QStringLiteral("-A"), QStringLiteral("--"), file});
                done << QStringLiteral("add ") + file;
                break;
            case 4: // unstage
                git({QStringLiteral("reset"), QStringLiteral("-q"), QStringLiteral("--"), QStringLiteral(".")});
                done << QStringLiteral("reset");
                break;
            case 5: { // a rename, staged
                if (file.isEmpty())
                    break;
                int code = 0;
                git({QStringLiteral("mv"), QStringLiteral("-k"), file, file + QStringLiteral(".moved")}, &code);
                done << QStringLiteral("mv ") + file;
                break;
            }
            case 6: // an ignore rule
                write(QStringLiteral(".gitignore"), (random.bounded(2) ? "*.moved\n" : "new*\n"));
                done << QStringLiteral("ignore");
                break;
            case 7: // the same content written again (only the time changes)
                if (!file.isEmpty()) {
                    QFile original(m_repo + QLatin1Char('/') + file);
                    QByteArray content;
                    if (original.open(QIODevice::ReadOnly))
                        content = original.readAll();
                    original.close();
                    write(file, content);
                }
                done << QStringLiteral("rewrite ") + file;
                break;
            case 8: // commit what is staged
                git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("round %1").arg(round)});
                done << QStringLiteral("commit");
                break;
            default: // a file's mode
                if (!file.isEmpty())
                    QFile::setPermissions(m_repo + QLatin1Char('/') + file,
                        QFile::permissions(m_repo + QLatin1Char('/') + file) ^ QFileDevice::ExeOwner);
                done << QStringLiteral("chmod ") + file;
                break;
            }
        }
        if (backdated)
            backdate(m_written);
        // Every edit is seen before anything else runs: the cached answer is stale now.
        const std::optional<json> cachedAfterEdits = cache.find(m_repo);
        const QStringList expected = gitPorcelain();
        QVERIFY2(!cachedAfterEdits || porcelainOf(cachedAfterEdits) == expected,
            qPrintable(QStringLiteral("a stale answer was served after: ") + done.join(QStringLiteral(", "))));
        QString error;
        QCOMPARE(porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error)), expected);
        // The same tree compared with the index file first, as large trees are.
        QCOMPARE(porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error, 0)), expected);
        QCOMPARE(porcelainOf(cache.status(m_repo)), expected);
    }
}

// The quick scan on a tree whose index is not racily clean: unchanged files are never shown to
// libgit2, and every kind of change still is: content of the same size under an old time, a
// deletion, untracked files and directories, an ignored file, a mode, a directory replaced by a
// link to a copy of itself (lstat() data of the files behind it all equal) and a file replaced by
// a directory.
void TestGitStatus::quickScanAsksLibgit2OnlyAboutWhatChanged()
{
    const QString savedRepo = m_repo;
    const auto restore = qScopeGuard([&] { m_repo = savedRepo; });
    m_repo = m_root + QStringLiteral("/quick");
    QVERIFY(QDir().mkpath(m_repo));
    QVERIFY(GitProgram::initRepository(m_repo));
    int code = 0;
    for (int d = 0; d < 30; ++d) {
        for (int f = 0; f < 10; ++f)
            write(QStringLiteral("dir%1/file%2.txt").arg(d).arg(f), QByteArray::number(d * 100 + f) + '\n');
    }
    write(QStringLiteral("deep/a/b/c/leaf.txt"), "leaf\n");
    write(QStringLiteral("keep/x.txt"), "x\n");
    write(QStringLiteral("linked/y.txt"), "y\n");
    git({QStringLiteral("add"), QStringLiteral("-A")}, &code);
    QCOMPARE(code, 0);
    git({QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("start")}, &code);
    QCOMPARE(code, 0);
    backdate();
    git({QStringLiteral("update-index"), QStringLiteral("-q"), QStringLiteral("--refresh")});

    const GitPathPolicy policy({m_root});
    const auto scan = [&](GitStatusScanner::Outcome* outcome) {
        QString error;
        auto repository = GitRepositoryHandle::open(policy, m_repo, QStringLiteral("repo_path"), &error);
        std::vector<GitStatusEntry> entries;
        const bool ok = repository
            && GitStatusScanner::scan(repository->get(), repository->workTree(), &entries, &error, 0, outcome);
        return ok ? QString() : error;
    };
    GitStatusScanner::Outcome outcome;
    QCOMPARE(scan(&outcome), QString());
    QVERIFY2(outcome.quick, qPrintable(outcome.whyWhole));
    QCOMPARE(outcome.pathsAsked, std::size_t(0));

    write(QStringLiteral("dir1/file1.txt"), "999\n"); // same size as "101\n"
    // Back-dated, but not to the second it had (git itself compares only seconds of the ctime).
    timespec now;
    ::clock_gettime(CLOCK_REALTIME, &now);
    const timespec earlier[2] = {{now.tv_sec - 60, 0}, {now.tv_sec - 60, 0}};
    ::utimensat(AT_FDCWD, QFile::encodeName(m_repo + QStringLiteral("/dir1/file1.txt")).constData(), earlier, 0);
    QVERIFY(QFile::remove(m_repo + QStringLiteral("/dir2/file2.txt")));
    write(QStringLiteral("dir3/new.txt"), "new\n");
    write(QStringLiteral("fresh/inner/n.txt"), "n\n");
    write(QStringLiteral("dir5/build.log"), "ignored\n");
    write(QStringLiteral(".git/info/exclude"), "*.log\n");
    QFile::setPermissions(m_repo + QStringLiteral("/dir4/file4.txt"),
        QFile::permissions(m_repo + QStringLiteral("/dir4/file4.txt")) | QFileDevice::ExeOwner);
    QVERIFY(QDir().rename(m_repo + QStringLiteral("/linked"), m_root + QStringLiteral("/linked-elsewhere")));
    QVERIFY(QFile::link(m_root + QStringLiteral("/linked-elsewhere"), m_repo + QStringLiteral("/linked")));
    write(QStringLiteral("dir6/sub/nested-new.txt"), "nested\n");

    QString error;
    const QStringList ours = porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error, 0));
    QCOMPARE(scan(&outcome), QString());
    QVERIFY2(outcome.quick, qPrintable(outcome.whyWhole));
    QVERIFY2(outcome.pathsAsked >= 9 && outcome.pathsAsked <= 12, qPrintable(QString::number(outcome.pathsAsked)));
    QVERIFY(outcome.partialIndex); // nothing staged: libgit2 never read the whole index
    QCOMPARE(ours, gitPorcelain());
    // Something staged: libgit2 reads the whole index and compares HEAD with it.
    write(QStringLiteral("dir7/file7.txt"), "staged\n");
    git({QStringLiteral("add"), QStringLiteral("dir7/file7.txt")}, &code);
    QCOMPARE(code, 0);
    const QStringList withStaged = porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error, 0));
    QCOMPARE(scan(&outcome), QString());
    QVERIFY2(outcome.quick && !outcome.partialIndex, qPrintable(outcome.whyWhole));
    QCOMPARE(withStaged, gitPorcelain());
    QVERIFY(withStaged.contains(QStringLiteral("M  dir7/file7.txt")));
    // A tracked file replaced by a directory: libgit2 also lists the directory as untracked, where
    // git does not; the quick scan answers as libgit2's whole scan does.
    QVERIFY(QFile::remove(m_repo + QStringLiteral("/keep/x.txt")));
    write(QStringLiteral("keep/x.txt/inner.txt"), "inner\n");
    const QStringList quick = porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error, 0));
    QCOMPARE(quick, porcelainOf(GitToolHandlers::statusFields(policy, m_repo, &error, std::size_t(-1))));
    QVERIFY(quick.contains(QStringLiteral(" D keep/x.txt")));
    QVERIFY(ours.contains(QStringLiteral(" M dir1/file1.txt")));
    QVERIFY(ours.contains(QStringLiteral(" T linked")) || ours.contains(QStringLiteral(" D linked/y.txt")));
}

void TestGitStatus::watcherCountsChangesDeepInTheTree()
{
    TreeWatcher watcher(m_repo);
    QVERIFY(watcher.isComplete());
    const quint64 before = watcher.generation();
    QCOMPARE(watcher.generation(), before); // nothing changed
    write(QStringLiteral("dir3/sub1/file4.txt"), "deep change\n");
    QVERIFY(watcher.generation() > before);
    // A directory made after the watcher started is watched too.
    const quint64 afterMkdir = [&] {
        QDir().mkpath(m_repo + QStringLiteral("/brand/new"));
        return watcher.generation();
    }();
    write(QStringLiteral("brand/new/leaf.txt"), "leaf\n");
    QVERIFY(watcher.generation() > afterMkdir);
    // The index and HEAD, in the git directory.
    const quint64 beforeIndex = watcher.generation();
    git({QStringLiteral("add"), QStringLiteral("brand/new/leaf.txt")});
    QVERIFY(watcher.generation() > beforeIndex);
    git({QStringLiteral("reset"), QStringLiteral("-q")});
}

void TestGitStatus::cacheIsBounded()
{
    std::mutex mutex;
    QSet<QString> computed; // the cache may compute again in the background: counted by path
    GitStatusCache cache([&](const QString& repository) {
        const std::lock_guard lock(mutex);
        computed.insert(repository);
        return std::optional<json>(json{{"porcelain", json::array()}});
    });
    const int count = GitStatusCache::MaxRepositories + 10;
    for (int i = 0; i < count; ++i) {
        const QString path = m_root + QStringLiteral("/bounded/r%1").arg(i);
        QDir().mkpath(path);
        cache.compute(path);
    }
    {
        const std::lock_guard lock(mutex);
        QCOMPARE(computed.size(), count);
    }
    // The oldest went: nothing is answered for it from anything kept.
    QVERIFY(!cache.find(m_root + QStringLiteral("/bounded/r0")).has_value());
    cache.shutDown();
}

// Regression: the background's warm-up computation used to count as a use of the repository (moved
// it to the front of the eviction order) and could add it back after it was evicted, so the cache
// kept a repository nobody asked about and evicted one in use (tst_gitstatus::cacheIsBounded failed
// in CI when the background caught up at the wrong moment). Here the warm-up of r0 is held until
// the cache is full, so that moment is forced.
void TestGitStatus::backgroundWarmingNeitherKeepsNorRevivesAnEvictedRepository()
{
    const auto path = [&](int i) -> QString { // not a QStringBuilder of a temporary
        return m_root + QStringLiteral("/evicted/r%1").arg(i);
    };
    const QString first = path(0);
    const QString second = path(1);
    // The background works in order on one thread; each warm-up is a repository's second
    // computation. r0's is held until the cache is full; r1's is held so that nothing else in the
    // background touches the cache while the test looks.
    std::mutex mutex;
    std::condition_variable changed;
    QHash<QString, int> computations;
    bool releaseFirst = false;
    bool releaseSecond = false;
    GitStatusCache cache([&](const QString& repository) {
        std::unique_lock lock(mutex);
        if (++computations[repository] == 2) {
            changed.notify_all();
            if (repository == first)
                changed.wait(lock, [&] { return releaseFirst; });
            else if (repository == second)
                changed.wait(lock, [&] { return releaseSecond; });
        }
        return std::optional<json>(json{{"porcelain", json::array()}});
    });
    const auto waitForWarmUp = [&](const QString& repository) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, std::chrono::seconds(30), [&] { return computations.value(repository) == 2; });
    };
    const auto release = [&](bool& flag) {
        {
            const std::lock_guard lock(mutex);
            flag = true;
        }
        changed.notify_all();
    };
    // A failed check returns early: the held warm-ups must not keep the cache's destructor waiting.
    const auto releaseAll = qScopeGuard([&] {
        release(releaseFirst);
        release(releaseSecond);
    });
    for (int i = 0; i <= GitStatusCache::MaxRepositories; ++i)
        QDir().mkpath(path(i));
    cache.compute(first);
    QVERIFY(waitForWarmUp(first));
    // r0 is the oldest of a full cache when its warm-up finishes.
    for (int i = 1; i < GitStatusCache::MaxRepositories; ++i)
        cache.compute(path(i));
    release(releaseFirst);
    // r1's warm-up starts only after r0's has finished and r1's watcher was built.
    QVERIFY(waitForWarmUp(second));
    // One more repository evicts the least recently used one: r0, whatever the background did.
    cache.compute(path(GitStatusCache::MaxRepositories));
    QVERIFY(!cache.find(first).has_value());
    release(releaseSecond);
    QTRY_VERIFY_WITH_TIMEOUT(cache.find(second).has_value(), 30'000);
    cache.shutDown();
}

// A tree that cannot be watched is never answered from the cache.
void TestGitStatus::missingTreeIsNotWatched()
{
    TreeWatcher watcher(m_root + QStringLiteral("/absent"));
    QVERIFY(!watcher.isComplete());
}

QTEST_GUILESS_MAIN(TestGitStatus)
#include "tst_gitstatus.moc"
