// The repository view's models: the repository list (states replace rows by path, new paths insert
// in path order, removal, the git call's repository), the changed files and the commits (whole lists
// with a reset, bounded), and the call log's id filter the "Show calls" link uses. Every model runs
// under QAbstractItemModelTester.

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "commitlistmodel.h"
#include "modelroles.h"
#include "repositoryfilesmodel.h"
#include "repositorylistmodel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTest>

namespace {

constexpr qint64 Now = 1'700'000'000'000;
// Out here: moc reads a digit separator inside a class as the start of a character literal.
constexpr qint64 MinuteMs = 60'000;
constexpr qint64 HourMs = 60 * MinuteMs;
constexpr qint64 DayMs = 24 * HourMs;

RepositoryFile makeFile(const QString& path, char index, char workTree)
{
    RepositoryFile file;
    file.path = path;
    file.indexStatus = QLatin1Char(index);
    file.workTreeStatus = QLatin1Char(workTree);
    return file;
}

CommitSummary makeCommit(int n, qint64 timeMs = Now)
{
    CommitSummary commit;
    commit.id = QStringLiteral("%1").arg(n, 40, 16, QLatin1Char('a'));
    commit.summary = QStringLiteral("Commit %1").arg(n);
    commit.author = QStringLiteral("Ada Lovelace <ada@example.org>");
    commit.timeMs = timeMs;
    return commit;
}

RepositoryState makeState(const QString& path, QList<qint64> callIds = {})
{
    RepositoryState state;
    state.path = path;
    state.branch = QStringLiteral("main");
    state.upstream = QStringLiteral("origin/main");
    state.ahead = 1;
    state.behind = 2;
    state.staged = 1;
    state.unstaged = 1;
    state.untracked = 1;
    state.headCommit = makeCommit(1).id;
    state.headSummary = QStringLiteral("Commit 1");
    state.refreshedAtMs = Now;
    state.files = {makeFile(QStringLiteral("a.txt"), 'M', ' '), makeFile(QStringLiteral("b.txt"), ' ', 'M'),
        makeFile(QStringLiteral("new.txt"), '?', '?')};
    state.commits = {makeCommit(1), makeCommit(2)};
    state.callIds = std::move(callIds);
    return state;
}

QStringList pathsOf(const RepositoryListModel& model)
{
    QStringList paths;
    for (int row = 0; row < model.rowCount(); ++row)
        paths.append(model.index(row, 0).data(RepositoryPathRole).toString());
    return paths;
}

ToolCall gitCall(qint64 id, const QByteArray& arguments)
{
    ToolCall call;
    call.id = id;
    call.tool = QStringLiteral("git_status");
    call.route = ToolRoute{RouteKind::Git, {}};
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"git_status","arguments":)"
        + arguments + "}}";
    return call;
}

struct CallCase
{
    const char* name;
    qint64 callId;
    QByteArray arguments;
    QString expected;
};

// Out here: moc reads raw strings as plain ones, so a "//" or an odd number of quotes in one would
// end its parse before the test class.
QList<CallCase> callCases()
{
    const QString a = QStringLiteral("/srv/roots/a");
    const QString b = QStringLiteral("/srv/roots/b");
    return {
        {"call id", 7, "{}", b},
        {"call id beats arguments", 7, R"({"repo_path":"/srv/roots/a"})", b},
        {"exact path", 99, R"({"repo_path":"/srv/roots/a"})", a},
        {"trailing slash", 99, R"({"repo_path":"/srv/roots/a/"})", a},
        {"inside a repository", 99, R"({"repo_path":"/srv/roots/a/src/lib"})", a},
        {"nested: the deepest", 99, R"({"repo_path":"/srv/roots/a/vendor/x/lib"})", a + QStringLiteral("/vendor/x")},
        {"relative", 99, R"({"repo_path":"b"})", b},
        {"relative with ./", 99, R"({"repo_path":"./b"})", b},
        {"clone destination", 99, R"({"url":"git@example.org:y.git","local_path":"/srv/roots/b"})", b},
        // "b" must end in a whole component: /srv/roots/b does not end in the component "oots/b".
        {"not a component", 99, R"({"repo_path":"oots/b"})", QString()},
        {"outside every repository", 99, R"({"repo_path":"/srv/other"})", QString()},
        {"no path", 99, R"({"message":"x"})", QString()},
        {"cut preview", 99, "{\"repo_path\":\"/srv/ro", QString()},
    };
}

} // namespace

class TestRepositoryModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statesInsertInPathOrder()
    {
        RepositoryListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy counts(&model, &RepositoryListModel::countChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        model.applyStates({makeState(QStringLiteral("/srv/b")), makeState(QStringLiteral("/srv/d"))});
        model.applyStates({makeState(QStringLiteral("/srv/c")), makeState(QStringLiteral("/srv/a"))});
        QCOMPARE(pathsOf(model),
            (QStringList{QStringLiteral("/srv/a"), QStringLiteral("/srv/b"), QStringLiteral("/srv/c"),
                QStringLiteral("/srv/d")}));
        QCOMPARE(inserted.size(), 4);
        QCOMPARE(counts.size(), 2);
        QCOMPARE(counts.last().at(0).toInt(), 4);
        QCOMPARE(model.indexOfRepository(QStringLiteral("/srv/c")).row(), 2);
        QVERIFY(!model.indexOfRepository(QStringLiteral("/srv/e")).isValid());
    }

    void aStateReplacesItsRowInPlace()
    {
        RepositoryListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyStates({makeState(QStringLiteral("/srv/a")), makeState(QStringLiteral("/srv/b"))});
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy counts(&model, &RepositoryListModel::countChanged);

        RepositoryState newer = makeState(QStringLiteral("/srv/b"));
        newer.branch = QStringLiteral("feature");
        newer.files.clear();
        newer.staged = newer.unstaged = newer.untracked = 0;
        model.applyStates({newer});

        QCOMPARE(inserted.size(), 0);
        QCOMPARE(counts.size(), 0);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex(), model.index(1, 0));
        QCOMPARE(changed.first().at(1).toModelIndex(), model.index(1, RepositoryListModel::NumColumns - 1));
        // The whole value: every field is the new state's, none is merged from the old one.
        QCOMPARE(model.index(1, 0).data(RepositoryRole).value<RepositoryState>(), newer);
        QCOMPARE(model.stateAt(1), newer);
        QCOMPARE(model.index(1, RepositoryListModel::BranchColumn).data().toString(), QStringLiteral("feature"));
        QCOMPARE(model.index(1, RepositoryListModel::ChangesColumn).data().toString(), QStringLiteral("clean"));
    }

    void removalTakesTheRowAway()
    {
        RepositoryListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyStates({makeState(QStringLiteral("/srv/a")), makeState(QStringLiteral("/srv/b"))});
        QSignalSpy counts(&model, &RepositoryListModel::countChanged);
        model.removeRepository(QStringLiteral("/srv/unknown"));
        QCOMPARE(model.count(), 2);
        QCOMPARE(counts.size(), 0);
        model.removeRepository(QStringLiteral("/srv/a"));
        QCOMPARE(pathsOf(model), QStringList{QStringLiteral("/srv/b")});
        QCOMPARE(counts.size(), 1);
        model.clear();
        QCOMPARE(model.count(), 0);
        QCOMPARE(counts.last().at(0).toInt(), 0);
    }

    void columnsSayWhatAPersonReads()
    {
        RepositoryListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RepositoryState detached = makeState(QStringLiteral("/srv/roots/detached/"));
        detached.branch.clear();
        detached.upstream.clear();
        RepositoryState broken = makeState(QStringLiteral("/srv/roots/broken"));
        broken.error = QStringLiteral("could not find repository\nat /srv/roots/broken");
        model.applyStates({makeState(QStringLiteral("/srv/roots/switchboard")), detached, broken});

        const auto text = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role).toString();
        };
        // Sorted: broken, detached/, switchboard.
        QCOMPARE(text(2, RepositoryListModel::NameColumn), QStringLiteral("switchboard"));
        QCOMPARE(text(2, RepositoryListModel::NameColumn, Qt::ToolTipRole), QStringLiteral("/srv/roots/switchboard"));
        QCOMPARE(text(2, RepositoryListModel::BranchColumn), QStringLiteral("main"));
        QCOMPARE(text(2, RepositoryListModel::UpstreamColumn), QStringLiteral("origin/main ↑1 ↓2"));
        QCOMPARE(text(2, RepositoryListModel::UpstreamColumn, Qt::ToolTipRole),
            QStringLiteral("1 commit ahead of and 2 commits behind origin/main"));
        QCOMPARE(text(2, RepositoryListModel::ChangesColumn), QStringLiteral("1 staged · 1 unstaged · 1 untracked"));
        QVERIFY(!text(2, RepositoryListModel::RefreshedColumn).isEmpty());
        QCOMPARE(model.index(2, RepositoryListModel::RefreshedColumn).data(SortRole).toLongLong(), Now);

        QCOMPARE(text(1, RepositoryListModel::NameColumn), QStringLiteral("detached"));
        QCOMPARE(text(1, RepositoryListModel::BranchColumn), QStringLiteral("detached at aaaaaaa"));
        QCOMPARE(text(1, RepositoryListModel::UpstreamColumn), QString());

        // An unreadable repository says why, in red, instead of counts it does not have.
        QCOMPARE(text(0, RepositoryListModel::ChangesColumn), QStringLiteral("unreadable: could not find repository"));
        QCOMPARE(text(0, RepositoryListModel::ChangesColumn, Qt::ToolTipRole), broken.error);
        QCOMPARE(model.index(0, RepositoryListModel::ChangesColumn).data(Qt::ForegroundRole).value<QColor>(),
            QColor(0xc0, 0x1c, 0x28));
        QVERIFY(!model.index(2, RepositoryListModel::ChangesColumn).data(Qt::ForegroundRole).isValid());
        QCOMPARE(text(0, 0, RepositoryPathRole), QStringLiteral("/srv/roots/broken"));
        QVERIFY(text(0, 0, FilterRole).contains(QStringLiteral("/srv/roots/broken")));
        QCOMPARE(model.headerData(RepositoryListModel::UpstreamColumn, Qt::Horizontal).toString(),
            QStringLiteral("Upstream"));
    }

    void aGitCallFindsItsRepository_data()
    {
        QTest::addColumn<qint64>("callId");
        QTest::addColumn<QByteArray>("arguments");
        QTest::addColumn<QString>("expected");
        for (const CallCase& row : callCases())
            QTest::newRow(row.name) << row.callId << row.arguments << row.expected;
    }

    void aGitCallFindsItsRepository()
    {
        QFETCH(qint64, callId);
        QFETCH(QByteArray, arguments);
        QFETCH(QString, expected);
        RepositoryListModel model;
        model.applyStates(
            {makeState(QStringLiteral("/srv/roots/a"), {1, 2}), makeState(QStringLiteral("/srv/roots/a/vendor/x")),
                makeState(QStringLiteral("/srv/roots/ab")), makeState(QStringLiteral("/srv/roots/b"), {5, 7})});
        const QModelIndex found = model.indexForCall(gitCall(callId, arguments));
        QCOMPARE(found.data(RepositoryPathRole).toString(), expected);
    }

    void filesAreReplacedWholeAndDescribed()
    {
        RepositoryFilesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setFiles({makeFile(QStringLiteral("a.txt"), 'M', ' '), makeFile(QStringLiteral("b.txt"), 'A', 'M'),
                           makeFile(QStringLiteral("c.txt"), ' ', 'D'), makeFile(QStringLiteral("dir/"), '?', '?')},
            false);
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.count(), 4);
        QVERIFY(!model.isTruncated());

        const auto text = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role).toString();
        };
        QCOMPARE(text(0, RepositoryFilesModel::StagedColumn), QStringLiteral("M"));
        QCOMPARE(text(0, RepositoryFilesModel::UnstagedColumn), QString());
        QCOMPARE(text(0, RepositoryFilesModel::ChangeColumn), QStringLiteral("staged: modified"));
        QCOMPARE(text(1, RepositoryFilesModel::ChangeColumn), QStringLiteral("staged: added; unstaged: modified"));
        QCOMPARE(text(2, RepositoryFilesModel::StagedColumn), QString());
        QCOMPARE(text(2, RepositoryFilesModel::UnstagedColumn), QStringLiteral("D"));
        QCOMPARE(text(2, RepositoryFilesModel::ChangeColumn), QStringLiteral("unstaged: deleted"));
        QCOMPARE(text(3, RepositoryFilesModel::UnstagedColumn), QStringLiteral("?"));
        QCOMPARE(text(3, RepositoryFilesModel::ChangeColumn), QStringLiteral("untracked"));
        QCOMPARE(text(3, RepositoryFilesModel::PathColumn), QStringLiteral("dir/"));
        QCOMPARE(text(1, 0, FilePathRole), QStringLiteral("b.txt"));
        QCOMPARE(model.indexOfFile(QStringLiteral("c.txt")).row(), 2);
        QVERIFY(!model.indexOfFile(QStringLiteral("d.txt")).isValid());
        // git status's colours: staged green, unstaged red.
        QCOMPARE(model.index(0, RepositoryFilesModel::StagedColumn).data(Qt::ForegroundRole).value<QColor>(),
            QColor(0x1a, 0x7f, 0x37));
        QCOMPARE(model.index(2, RepositoryFilesModel::UnstagedColumn).data(Qt::ForegroundRole).value<QColor>(),
            QColor(0xc0, 0x1c, 0x28));

        model.setFiles({makeFile(QStringLiteral("z.txt"), ' ', 'M')}, true);
        QCOMPARE(resets.size(), 2);
        QCOMPARE(model.count(), 1);
        QVERIFY(model.isTruncated());
        model.clear();
        QCOMPARE(model.count(), 0);
        QVERIFY(!model.isTruncated());
    }

    void filesAreBounded()
    {
        RepositoryFilesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<RepositoryFile> files;
        for (int i = 0; i < RepositoryState::MaxFiles + 5; ++i)
            files.append(makeFile(QStringLiteral("f%1").arg(i, 5, 10, QLatin1Char('0')), ' ', 'M'));
        model.setFiles(files, false);
        QCOMPARE(model.count(), RepositoryState::MaxFiles);
        // A remote backend that sends more than a state holds: the list is cut and says so.
        QVERIFY(model.isTruncated());
    }

    void commitsAreReplacedWholeAndBounded()
    {
        CommitListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setClock([] { return Now; });
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setCommits({makeCommit(1, Now - 3 * HourMs), makeCommit(2, Now - 2 * DayMs)});
        QCOMPARE(resets.size(), 1);
        QCOMPARE(model.count(), 2);

        const auto text = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role).toString();
        };
        QCOMPARE(text(0, CommitListModel::IdColumn), QStringLiteral("aaaaaaa"));
        QCOMPARE(text(0, CommitListModel::IdColumn, Qt::ToolTipRole), makeCommit(1).id);
        QCOMPARE(text(0, 0, CommitIdRole), makeCommit(1).id);
        QCOMPARE(text(0, CommitListModel::SummaryColumn), QStringLiteral("Commit 1"));
        QCOMPARE(text(0, CommitListModel::AuthorColumn), QStringLiteral("Ada Lovelace"));
        QCOMPARE(
            text(0, CommitListModel::AuthorColumn, Qt::ToolTipRole), QStringLiteral("Ada Lovelace <ada@example.org>"));
        QCOMPARE(text(0, CommitListModel::TimeColumn).size(), qsizetype(16)); // yyyy-MM-dd HH:mm
        QVERIFY(text(0, CommitListModel::TimeColumn, Qt::ToolTipRole).startsWith(QStringLiteral("3 hours ago")));
        QVERIFY(text(1, CommitListModel::TimeColumn, Qt::ToolTipRole).startsWith(QStringLiteral("2 days ago")));
        QCOMPARE(model.index(1, CommitListModel::TimeColumn).data(SortRole).toLongLong(), Now - 2 * DayMs);

        QList<CommitSummary> many;
        for (int i = 0; i < RepositoryState::MaxCommits + 10; ++i)
            many.append(makeCommit(i));
        model.setCommits(many);
        QCOMPARE(model.count(), RepositoryState::MaxCommits);
        QCOMPARE(text(0, CommitListModel::SummaryColumn), QStringLiteral("Commit 0")); // the newest stay
        model.clear();
        QCOMPARE(model.count(), 0);
    }

    void agesReadLikeGit_data()
    {
        QTest::addColumn<qint64>("ageMs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("seconds") << qint64(30) * 1000 << QStringLiteral("just now");
        QTest::newRow("a minute") << MinuteMs << QStringLiteral("1 minute ago");
        QTest::newRow("minutes") << 59 * MinuteMs << QStringLiteral("59 minutes ago");
        QTest::newRow("an hour") << HourMs << QStringLiteral("1 hour ago");
        QTest::newRow("days") << 3 * DayMs << QStringLiteral("3 days ago");
        QTest::newRow("months") << 90 * DayMs << QStringLiteral("3 months ago");
        QTest::newRow("years") << 800 * DayMs << QStringLiteral("2 years ago");
        QTest::newRow("clock skew") << qint64(-5000) << QStringLiteral("just now");
    }

    void agesReadLikeGit()
    {
        QFETCH(qint64, ageMs);
        QFETCH(QString, expected);
        QCOMPARE(CommitListModel::formatAge(ageMs), expected);
    }

    void callIdFilterShowsOnlyThoseCalls()
    {
        CallLogModel calls;
        ToolCallList batch;
        for (qint64 id = 1; id <= 6; ++id) {
            ToolCall call = gitCall(id, "{}");
            call.status = CallStatus::Ok;
            batch.append(call);
        }
        calls.applyUpdates(batch);
        CallLogFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&calls);
        QCOMPARE(proxy.rowCount(), 6);

        proxy.setCallIdFilter({2, 5, 42});
        QCOMPARE(proxy.rowCount(), 2);
        QCOMPARE(proxy.index(0, 0).data(CallIdRole).toLongLong(), qint64(2));
        QCOMPARE(proxy.index(1, 0).data(CallIdRole).toLongLong(), qint64(5));
        // It narrows the other filters, never widens them.
        proxy.setStatusFilter(CallStatus::Error);
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setStatusFilter(std::nullopt);
        proxy.setCallIdFilter({});
        QCOMPARE(proxy.rowCount(), 6);
    }
};

QTEST_GUILESS_MAIN(TestRepositoryModels)
#include "tst_repositorymodels.moc"
