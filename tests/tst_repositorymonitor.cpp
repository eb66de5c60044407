// RepositoryMonitor: the repositories the repository view shows, read off the backend thread and
// published through BackendEvents: after a tool touched one, after an edit anywhere in its tree
// (its TreeWatcher), and on the operator's commands; a path outside the roots is refused; the
// list is bounded.

#include "events/backendevents.h"
#include "git/repositorymonitor.h"
#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace {

constexpr int TimeoutMs = 20'000; // a loaded two-core machine

} // namespace

class TestRepositoryMonitor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void touchedRepositoryIsPublishedWithItsCalls();
    void editDeepInTheTreeIsPublished();
    void operatorCommands();
    void fileDiffIsLoaded();
    void repositoriesAreBounded();
    void listSurvivesARestart();
    void commitsComeInTopologicalOrderAndBranchesAreListed();

private:
    void makeRepository(const QString& path);
    void write(const QString& path, const QByteArray& content);
    // The newest state published for `path` by `spy` (a repositoryStatesChanged spy), if any.
    static std::optional<RepositoryState> newestFor(const QSignalSpy& spy, const QString& path);

    QTemporaryDir m_dir;
    QString m_root;
    QString m_repo;
    BackendEvents m_events;
};

void TestRepositoryMonitor::write(const QString& path, const QByteArray& content)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(content);
}

void TestRepositoryMonitor::makeRepository(const QString& path)
{
    QDir().mkpath(path);
    const auto run = [&](const QStringList& arguments) {
        QProcess process;
        process.setWorkingDirectory(path);
        process.start(QStringLiteral("git"), arguments);
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 0);
    };
    run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")});
    write(path + QStringLiteral("/deep/er/file.txt"), "one\n");
    run({QStringLiteral("add"), QStringLiteral("-A")});
    run({QStringLiteral("-c"), QStringLiteral("user.name=T"), QStringLiteral("-c"), QStringLiteral("user.email=t@e"),
        QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("first commit")});
}

std::optional<RepositoryState> TestRepositoryMonitor::newestFor(const QSignalSpy& spy, const QString& path)
{
    std::optional<RepositoryState> newest;
    for (const QList<QVariant>& emission : spy) {
        const auto states = emission.at(0).value<RepositoryStateList>();
        for (const RepositoryState& state : states) {
            if (state.path == path)
                newest = state;
        }
    }
    return newest;
}

void TestRepositoryMonitor::initTestCase()
{
    qRegisterMetaType<RepositoryStateList>();
    qRegisterMetaType<FileDiff>();
    QVERIFY(m_dir.isValid());
    m_root = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/root");
    m_repo = m_root + QStringLiteral("/repo");
    makeRepository(m_repo);
}

void TestRepositoryMonitor::touchedRepositoryIsPublishedWithItsCalls()
{
    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy states(&m_events, &BackendEvents::repositoryStatesChanged);
    monitor.touch(m_repo, 41, false);
    monitor.touch(m_repo, 42, true);
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo) && newestFor(states, m_repo)->callIds.size() == 2, TimeoutMs);
    const RepositoryState state = *newestFor(states, m_repo);
    QCOMPARE(state.branch, QStringLiteral("main"));
    QCOMPARE(state.callIds, (QList<qint64>{41, 42}));
    QCOMPARE(state.commits.size(), 1);
    QCOMPARE(state.commits.first().summary, QStringLiteral("first commit"));
    QCOMPARE(state.headSummary, QStringLiteral("first commit"));
    QVERIFY(state.files.isEmpty());
    QVERIFY(state.error.isEmpty());
    QCOMPARE(monitor.repositories(), QStringList{m_repo});
}

void TestRepositoryMonitor::editDeepInTheTreeIsPublished()
{
    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy states(&m_events, &BackendEvents::repositoryStatesChanged);
    monitor.touch(m_repo, 1, true);
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo).has_value(), TimeoutMs);
    // The watcher is built on the reader's thread; an edit after that is seen without any call.
    QTRY_VERIFY_WITH_TIMEOUT(monitor.followsChanges(m_repo), TimeoutMs);
    write(m_repo + QStringLiteral("/deep/er/file.txt"), "two\n");
    write(m_repo + QStringLiteral("/deep/er/new.txt"), "new\n");
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo) && newestFor(states, m_repo)->unstaged == 1
            && newestFor(states, m_repo)->untracked == 1,
        TimeoutMs);
    const RepositoryState state = *newestFor(states, m_repo);
    QCOMPARE(state.files.size(), 2);
    QCOMPARE(state.files.at(0).path, QStringLiteral("deep/er/file.txt"));
    QCOMPARE(state.files.at(0).workTreeStatus, QLatin1Char('M'));
    QVERIFY(state.files.at(1).isUntracked());
    QFile::remove(m_repo + QStringLiteral("/deep/er/new.txt"));
    write(m_repo + QStringLiteral("/deep/er/file.txt"), "one\n");
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo) && newestFor(states, m_repo)->files.isEmpty(), TimeoutMs);
}

void TestRepositoryMonitor::operatorCommands()
{
    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy states(&m_events, &BackendEvents::repositoryStatesChanged);
    QSignalSpy removed(&monitor, &RepositoryMonitor::repositoryRemoved);
    QString error;
    QVERIFY(!monitor.add(m_dir.path(), &error)); // the temporary directory is outside the root
    QVERIFY2(error.contains(QLatin1String("outside the allowed roots")), qPrintable(error));
    QVERIFY(!monitor.add(m_root + QStringLiteral("/absent"), &error));
    QVERIFY(!monitor.refresh(m_repo, &error)); // not shown yet
    QVERIFY2(monitor.add(m_repo, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo).has_value(), TimeoutMs);
    states.clear();
    QVERIFY2(monitor.refresh(m_repo, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo).has_value(), TimeoutMs);
    monitor.remove(m_repo);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.first().at(0).toString(), m_repo);
    QVERIFY(monitor.repositories().isEmpty());
    // A directory inside the root that is not a repository is shown with its error.
    QDir().mkpath(m_root + QStringLiteral("/plain"));
    QVERIFY(monitor.add(m_root + QStringLiteral("/plain"), &error));
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_root + QStringLiteral("/plain")).has_value(), TimeoutMs);
    QVERIFY(
        newestFor(states, m_root + QStringLiteral("/plain"))->error.contains(QLatin1String("not a git repository")));
}

void TestRepositoryMonitor::fileDiffIsLoaded()
{
    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy diffs(&monitor, &RepositoryMonitor::fileDiffLoaded);
    write(m_repo + QStringLiteral("/deep/er/file.txt"), "one\nmore\n");
    monitor.loadFileDiff(m_repo, QStringLiteral("deep/er/file.txt")); // not shown: refused
    QTRY_COMPARE_WITH_TIMEOUT(diffs.count(), 1, TimeoutMs);
    QVERIFY(!diffs.takeFirst().at(0).value<FileDiff>().error.isEmpty());
    QString error;
    QVERIFY(monitor.add(m_repo, &error));
    monitor.loadFileDiff(m_repo, QStringLiteral("deep/er/file.txt"));
    QTRY_COMPARE_WITH_TIMEOUT(diffs.count(), 1, TimeoutMs);
    const FileDiff diff = diffs.takeFirst().at(0).value<FileDiff>();
    QVERIFY2(diff.error.isEmpty(), qPrintable(diff.error));
    QVERIFY2(diff.unstaged.contains(QLatin1String("+more")), qPrintable(diff.unstaged));
    QVERIFY(diff.staged.isEmpty());
    // A path leading out of the working tree is refused.
    monitor.loadFileDiff(m_repo, QStringLiteral("../../etc/passwd"));
    QTRY_COMPARE_WITH_TIMEOUT(diffs.count(), 1, TimeoutMs);
    QVERIFY(!diffs.takeFirst().at(0).value<FileDiff>().error.isEmpty());
    write(m_repo + QStringLiteral("/deep/er/file.txt"), "one\n");
}

void TestRepositoryMonitor::repositoriesAreBounded()
{
    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy removed(&monitor, &RepositoryMonitor::repositoryRemoved);
    for (int i = 0; i < RepositoryMonitor::MaxRepositories + 3; ++i) {
        const QString path = m_root + QStringLiteral("/many/r%1").arg(i);
        QDir().mkpath(path);
        monitor.touch(path, i + 1, false);
    }
    QCOMPARE(monitor.repositories().size(), RepositoryMonitor::MaxRepositories);
    QCOMPARE(removed.count(), 3);
}

void TestRepositoryMonitor::listSurvivesARestart()
{
    const QString list = m_dir.filePath(QStringLiteral("repositories.json"));
    QDir().mkpath(m_root + QStringLiteral("/plain"));
    {
        RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events, list);
        monitor.touch(m_repo, 5, false);
        QString error;
        QVERIFY(monitor.add(m_root + QStringLiteral("/plain"), &error));
    }
    {
        QSignalSpy states(&m_events, &BackendEvents::repositoryStatesChanged);
        RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events, list);
        QCOMPARE(monitor.repositories(), (QStringList{m_root + QStringLiteral("/plain"), m_repo}));
        QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, m_repo).has_value(), TimeoutMs);
        monitor.remove(m_root + QStringLiteral("/plain"));
    }
    // Read again with narrower roots: what is no longer inside them is dropped.
    RepositoryMonitor narrower(GitPathPolicy({m_repo}), &m_events, list);
    QCOMPARE(narrower.repositories(), QStringList{m_repo});
    RepositoryMonitor elsewhere(GitPathPolicy({m_root + QStringLiteral("/plain")}), &m_events, list);
    QVERIFY(elsewhere.repositories().isEmpty());
    // A file that is not a list is warned about and ignored.
    QFile broken(list);
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write("[1, 2");
    broken.close();
    RepositoryMonitor fresh(GitPathPolicy({m_root}), &m_events, list);
    QVERIFY(fresh.repositories().isEmpty());
}

QTEST_GUILESS_MAIN(TestRepositoryMonitor)
// A commit is never listed below one of its parents, whatever its date says (a skewed clock, a
// rebase keeping the author's date): sorted by time alone, the base came above the commit made on
// it. And the local branches are listed.
void TestRepositoryMonitor::commitsComeInTopologicalOrderAndBranchesAreListed()
{
    const QString path = m_root + QStringLiteral("/ordered");
    QDir().mkpath(path);
    const auto run = [&](const QStringList& arguments, const QString& date = {}) {
        QProcess process;
        process.setWorkingDirectory(path);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        if (!date.isEmpty()) {
            environment.insert(QStringLiteral("GIT_AUTHOR_DATE"), date);
            environment.insert(QStringLiteral("GIT_COMMITTER_DATE"), date);
        }
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral("git"),
            QStringList{QStringLiteral("-c"), QStringLiteral("user.name=T"), QStringLiteral("-c"),
                QStringLiteral("user.email=t@e")}
                + arguments);
        QVERIFY(process.waitForFinished(60'000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    };
    const auto commit = [&](const char* file, const char* message, const char* date) {
        write(path + QLatin1Char('/') + QLatin1String(file), QByteArray(message) + '\n');
        run({QStringLiteral("add"), QStringLiteral("-A")});
        run({QStringLiteral("commit"), QStringLiteral("-qm"), QLatin1String(message)}, QLatin1String(date));
    };
    run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")});
    commit("a", "base", "2025-01-10T12:00:00Z");
    run({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("topic")});
    commit("b", "topic work", "2025-01-20T12:00:00Z");
    run({QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("main")});
    commit("c", "made on base, dated before it", "2025-01-05T12:00:00Z");
    run({QStringLiteral("merge"), QStringLiteral("-q"), QStringLiteral("--no-ff"), QStringLiteral("-m"),
            QStringLiteral("merge topic"), QStringLiteral("topic")},
        QStringLiteral("2025-01-30T12:00:00Z"));

    RepositoryMonitor monitor(GitPathPolicy({m_root}), &m_events);
    QSignalSpy states(&m_events, &BackendEvents::repositoryStatesChanged);
    monitor.touch(path, 7, false);
    QTRY_VERIFY_WITH_TIMEOUT(newestFor(states, path).has_value(), TimeoutMs);
    const RepositoryState state = *newestFor(states, path);
    QStringList summaries;
    for (const CommitSummary& each : state.commits)
        summaries << each.summary;
    QCOMPARE(summaries.size(), 4);
    QCOMPARE(summaries.first(), QStringLiteral("merge topic"));
    QCOMPARE(summaries.last(), QStringLiteral("base")); // below both commits made on it
    QCOMPARE(state.branches, (QStringList{QStringLiteral("main"), QStringLiteral("topic")}));
    QVERIFY(!state.branchesTruncated);
}

#include "tst_repositorymonitor.moc"
