// The window against a test double of the OperatorInterface: what the window asks at start, how the
// backend's events show (calls, questions, status), and which commands the person's actions send.
// No server runs: the window knows only the interface.

#include "fakeoperator.h"

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "historydialog.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "repositoryview.h"
#include "statuswarning.h"

#include <QDateTime>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolBar>
#include <QToolButton>

class TestOperatorConsole : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void windowAsksForRecentCallsAndQuestionsAtStart();
    void callBatchesBecomeRows();
    void approvalIsAnsweredThroughTheInterface();
    void resolvedQuestionLeavesThePanel();
    void historySearchGoesThroughTheInterface();
    void statusBarShowsWhatTheBackendReports();
    void olderCallsAreCountedInHistory();
    void laterCapabilitiesAnswerWhenMissing();
    void selectingAGitCallSelectsItsRepository();
    void aRepositorysCallsLinkFiltersTheLog();
    void repositoriesDockShowsBelowTheLog();
};

namespace {

ToolCall call(qint64 id, const QString& tool, CallStatus status)
{
    ToolCall c;
    c.id = id;
    c.tool = tool;
    c.route = ToolRoute::builtin();
    c.clientName = QStringLiteral("tester");
    c.status = status;
    c.startedAtMs = 1'700'000'000'000 + id;
    c.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}})";
    return c;
}

PendingInteraction approval(const QString& id)
{
    PendingInteraction interaction;
    interaction.id = id;
    interaction.kind = InteractionKind::Approval;
    interaction.render = RenderHint::Approval;
    interaction.tool = QStringLiteral("write_file");
    interaction.route = ToolRoute::builtin();
    interaction.arguments = R"({"path":"/tmp/x"})";
    interaction.renderSpec = R"({"render":"approval","rule":"built-in default","description":"Writes"})";
    interaction.clientName = QStringLiteral("tester");
    interaction.key = id;
    interaction.waiting = true;
    return interaction;
}

ToolCall gitCall(qint64 id, const QByteArray& arguments)
{
    ToolCall c = call(id, QStringLiteral("git_status"), CallStatus::Ok);
    c.route = ToolRoute{RouteKind::Git, {}};
    c.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"git_status","arguments":)"
        + arguments + "}}";
    return c;
}

RepositoryFile changedFile(const QString& path, char index, char workTree)
{
    RepositoryFile file;
    file.path = path;
    file.indexStatus = QLatin1Char(index);
    file.workTreeStatus = QLatin1Char(workTree);
    return file;
}

RepositoryState repository(const QString& path, const QList<qint64>& callIds)
{
    RepositoryState state;
    state.path = path;
    state.branch = QStringLiteral("main");
    state.upstream = QStringLiteral("origin/main");
    state.ahead = 2;
    state.behind = 1;
    state.staged = 1;
    state.unstaged = 2;
    state.untracked = 1;
    state.headCommit = QStringLiteral("3f9a2c41d0b6e8f7a5c3b1d2e4f6a8b0c2d4e6f8");
    state.headSummary = QStringLiteral("Parse hunk headers before colouring diff lines");
    state.refreshedAtMs = QDateTime::currentMSecsSinceEpoch();
    state.files = {changedFile(QStringLiteral("README.md"), 'M', ' '),
        changedFile(QStringLiteral("src/diffparser.cpp"), ' ', 'M'),
        changedFile(QStringLiteral("src/diffparser.h"), ' ', 'M'),
        changedFile(QStringLiteral("notes/todo.txt"), '?', '?')};
    const QStringList summaries{QStringLiteral("Parse hunk headers before colouring diff lines"),
        QStringLiteral("Keep the selected file across refreshes"), QStringLiteral("Show ahead and behind counts"),
        QStringLiteral("Repository list sorted by path"), QStringLiteral("Initial import")};
    for (int i = 0; i < summaries.size(); ++i) {
        CommitSummary commit;
        commit.id = QStringLiteral("%1").arg(0x3f9a2c4 - i * 0x1111, 7, 16).leftJustified(40, QLatin1Char('0'));
        commit.summary = summaries.at(i);
        commit.author = i % 2 ? QStringLiteral("Grace Hopper <grace@example.org>")
                              : QStringLiteral("Ada Lovelace <ada@example.org>");
        commit.timeMs = state.refreshedAtMs - qint64(i + 1) * 5 * 3'600'000;
        state.commits.append(commit);
    }
    state.callIds = callIds;
    return state;
}

// With SWITCHBOARD_SCREENSHOT_DIR set, saves what the widget shows there (for looking at the UI
// without a display; the test does not depend on it).
void saveScreenshot(QWidget* widget, const char* name)
{
    const QString directory = qEnvironmentVariable("SWITCHBOARD_SCREENSHOT_DIR");
    if (directory.isEmpty())
        return;
    // Layouts and header sizes settle on posted and timer events; a person sees the window after.
    QTest::qWait(200);
    widget->grab().save(directory + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

} // namespace

void TestOperatorConsole::windowAsksForRecentCallsAndQuestionsAtStart()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    QCOMPARE(backend.recentLoads.size(), 1);
    QCOMPARE(backend.recentLoads.first().first, 500);
    QCOMPARE(backend.recentLoads.first().second, CallLogModel::PreviewBytes);
    QCOMPARE(backend.interactionLists, 1);
}

void TestOperatorConsole::callBatchesBecomeRows()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    Q_EMIT backend.callsUpdated({call(1, QStringLiteral("echo"), CallStatus::Running),
        call(2, QStringLiteral("debug.block"), CallStatus::Running)});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 2);
    Q_EMIT backend.callsUpdated({call(1, QStringLiteral("echo"), CallStatus::Ok)});
    QTRY_COMPARE(window.callLogModel()->callAt(0).status, CallStatus::Ok);
    QCOMPARE(window.callLogModel()->rowCount(), 2);
}

void TestOperatorConsole::approvalIsAnsweredThroughTheInterface()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    window.show();
    Q_EMIT backend.interactionPending(approval(QStringLiteral("ia-1")));
    QTRY_COMPARE(window.interactionPanel()->count(), 1);
    QPushButton* allow = nullptr;
    QTRY_VERIFY((allow = window.findChild<QPushButton*>(QStringLiteral("allowOnceButton"))) != nullptr);
    QTRY_VERIFY(allow->isVisible());
    QTest::mouseClick(allow, Qt::LeftButton);
    QCOMPARE(backend.answers.size(), 1);
    QCOMPARE(backend.answers.first().interactionId, QStringLiteral("ia-1"));
    QCOMPARE(backend.answers.first().answer.decision, InteractionAnswer::Decision::AllowOnce);
}

void TestOperatorConsole::resolvedQuestionLeavesThePanel()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    Q_EMIT backend.interactionsListed({approval(QStringLiteral("ia-1")), approval(QStringLiteral("ia-2"))});
    QTRY_COMPARE(window.interactionPanel()->count(), 2);
    Q_EMIT backend.interactionResolved(QStringLiteral("ia-1"), InteractionOutcome::Timeout);
    QTRY_COMPARE(window.interactionPanel()->count(), 1);
}

void TestOperatorConsole::historySearchGoesThroughTheInterface()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    window.showHistoryDialog();
    HistoryDialog* dialog = window.historyDialog();
    QVERIFY(dialog);
    auto* search = dialog->findChild<QLineEdit*>(QStringLiteral("historySearch"));
    QVERIFY(search);
    const qsizetype before = backend.queries.size();
    search->setText(QStringLiteral("debug.block"));
    QTest::mouseClick(dialog->findChild<QPushButton*>(QStringLiteral("historySearchButton")), Qt::LeftButton);
    QTRY_VERIFY(backend.queries.size() > before);
    QCOMPARE(backend.queries.last().search.words, QStringList{QStringLiteral("debug.block")});
    // The answer comes back as historyLoaded with the request id the command returned.
    Q_EMIT backend.historyLoaded(
        backend.lastRequestId, {call(7, QStringLiteral("debug.block"), CallStatus::Ok)}, false);
    auto* table = dialog->findChild<QTableView*>(QStringLiteral("historyTable"));
    QTRY_COMPARE(table->model()->rowCount(), 1);
}

void TestOperatorConsole::statusBarShowsWhatTheBackendReports()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    Q_EMIT backend.historyWriteFailed(QStringLiteral("database or disk is full"));
    QCOMPARE(window.historyStatus()->state(), StatusWarning::State::Problem);
    Q_EMIT backend.historyWriteRecovered();
    QCOMPARE(window.historyStatus()->state(), StatusWarning::State::Recovered);
    Q_EMIT backend.workspaceStateProblem(QStringLiteral("cannot write state.json"));
    QCOMPARE(window.workspaceStateStatus()->state(), StatusWarning::State::Problem);
    QVERIFY(window.workspaceStateStatus()->events().last().contains(QStringLiteral("cannot write state.json")));
}

// "N older calls are in History" is what History holds, asked of it: after rows leave the log, and
// again after history prunes its oldest (before, the figure was the rows the log had let go, even
// when history had pruned them or never had them).
void TestOperatorConsole::olderCallsAreCountedInHistory()
{
    FakeOperator backend;
    MainWindow window(&backend, 10, false);
    auto* label = window.findChild<QLabel*>(QStringLiteral("droppedLabel"));
    QVERIFY(label);
    ToolCallList calls;
    for (qint64 id = 1; id <= 15; ++id)
        calls << call(id, QStringLiteral("echo"), CallStatus::Ok);
    Q_EMIT backend.callsUpdated(calls);
    QTRY_COMPARE(window.callLogModel()->droppedCount(), qint64(5));
    // Asked once, for the calls older than the log's oldest live row.
    QTRY_COMPARE(backend.counts.size(), 1);
    QCOMPARE(backend.counts.last().second.beforeId, window.callLogModel()->oldestLiveId());
    QCOMPARE(backend.counts.last().second.beforeId, qint64(6));
    QVERIFY(backend.counts.last().second.search.isEmpty());
    QVERIFY(label->isHidden()); // nothing said before history answers
    // An answer to another request changes nothing.
    Q_EMIT backend.historyCounted(backend.counts.last().first + 100, 99);
    QVERIFY(label->isHidden());
    Q_EMIT backend.historyCounted(backend.counts.last().first, 5);
    QVERIFY(!label->isHidden());
    QCOMPARE(label->text(), QStringLiteral("<a href=\"history\">5 older calls are in History</a>"));

    // History pruned its oldest: counted again.
    Q_EMIT backend.historyPruned(3);
    QTRY_COMPARE(backend.counts.size(), 2);
    Q_EMIT backend.historyCounted(backend.counts.last().first, 2);
    QCOMPARE(label->text(), QStringLiteral("<a href=\"history\">2 older calls are in History</a>"));
    Q_EMIT backend.historyPruned(5);
    QTRY_COMPARE(backend.counts.size(), 3);
    Q_EMIT backend.historyCounted(backend.counts.last().first, 1);
    QCOMPARE(label->text(), QStringLiteral("<a href=\"history\">1 older call is in History</a>"));
    // None left (or no history at all): the log says what it let go, and History still opens.
    Q_EMIT backend.historyPruned(6);
    QTRY_COMPARE(backend.counts.size(), 4);
    Q_EMIT backend.historyCounted(backend.counts.last().first, -1);
    QCOMPARE(label->text(), QStringLiteral("<a href=\"history\">5 older calls left the log</a>"));
    QVERIFY(label->toolTip().contains(QStringLiteral("History holds 0 calls older")));

    // A burst of rows leaving asks once per interval, not once per batch.
    for (qint64 id = 16; id <= 40; ++id)
        Q_EMIT backend.callsUpdated({call(id, QStringLiteral("echo"), CallStatus::Ok)});
    QTRY_COMPARE(window.callLogModel()->droppedCount(), qint64(30));
    QTRY_COMPARE(backend.counts.size(), 5);
    QTest::qWait(2 * MainWindow::OlderCallsCountIntervalMs);
    QVERIFY2(backend.counts.size() <= 6, qPrintable(QString::number(backend.counts.size())));
    QCOMPARE(backend.counts.last().second.beforeId, qint64(31));
}

void TestOperatorConsole::laterCapabilitiesAnswerWhenMissing()
{
    FakeOperator backend;
    QSignalSpy failed(&backend, &OperatorInterface::commandFailed);
    // The double records these commands; the interface's own answer is what this checks.
    backend.OperatorInterface::resetBreaker(QStringLiteral("github"));
    backend.OperatorInterface::refreshRepository(QStringLiteral("/srv/repo"));
    backend.OperatorInterface::addRepository(QStringLiteral("/srv/repo"));
    QCOMPARE(failed.size(), 3);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("resetBreaker"));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("github")));
    QCOMPARE(failed.at(2).at(0).toString(), QStringLiteral("addRepository"));
    QVERIFY(backend.repositoryRefreshes.isEmpty());
}

void TestOperatorConsole::selectingAGitCallSelectsItsRepository()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    const QString alpha = QStringLiteral("/srv/roots/alpha");
    const QString beta = QStringLiteral("/srv/roots/beta");
    Q_EMIT backend.repositoryStatesChanged({repository(alpha, {1}), repository(beta, {2})});
    Q_EMIT backend.callsUpdated({gitCall(1, "{}"), gitCall(2, "{}"), call(3, QStringLiteral("echo"), CallStatus::Ok),
        gitCall(4, R"({"repo_path":"alpha"})")});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 4);
    RepositoryView* view = window.repositoryView();
    QCOMPARE(view->currentRepository(), alpha); // the first, until a call says otherwise

    QVERIFY(window.showCall(2)); // by the repository's call ids
    QCOMPARE(view->currentRepository(), beta);
    QVERIFY(window.showCall(3)); // not a git call: the view stays
    QCOMPARE(view->currentRepository(), beta);
    QVERIFY(window.showCall(4)); // by its relative repo_path
    QCOMPARE(view->currentRepository(), alpha);

    // The person picks another repository while the call stays selected: the call's updates leave
    // their choice alone.
    QVERIFY(view->selectRepository(beta));
    Q_EMIT backend.callsUpdated({gitCall(4, R"({"repo_path":"alpha"})")});
    QTRY_COMPARE(window.callLogModel()->rowCount(), 4);
    QCOMPARE(view->currentRepository(), beta);
}

void TestOperatorConsole::aRepositorysCallsLinkFiltersTheLog()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    ToolCallList calls;
    for (qint64 id = 1; id <= 6; ++id)
        calls.append(id % 2 == 0 ? gitCall(id, "{}") : call(id, QStringLiteral("echo"), CallStatus::Ok));
    Q_EMIT backend.callsUpdated(calls);
    QTRY_COMPARE(window.callLogModel()->rowCount(), 6);
    // Call 99 left the live log long ago; the link still shows the rest.
    Q_EMIT backend.repositoryStatesChanged({repository(QStringLiteral("/srv/roots/alpha"), {2, 4, 99})});

    auto* link = window.repositoryView()->callsLink();
    QVERIFY(link->text().contains(QStringLiteral("Show 3 calls")));
    Q_EMIT link->linkActivated(QStringLiteral("calls"));
    CallLogView* log = window.callLogView();
    QCOMPARE(log->proxy()->rowCount(), 2);
    QCOMPARE(log->tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(4)); // the newest
    QVERIFY(log->callIdFilterBar()->isVisibleTo(&window));
    QVERIFY(window.findChild<QLabel*>(QStringLiteral("callIdFilterLabel"))->text().contains(QStringLiteral("alpha")));

    QTest::mouseClick(window.findChild<QToolButton*>(QStringLiteral("showAllCallsButton")), Qt::LeftButton);
    QCOMPARE(log->proxy()->rowCount(), 6);
    QVERIFY(!log->callIdFilterBar()->isVisibleTo(&window));
    QCOMPARE(log->tableView()->currentIndex().data(CallIdRole).toLongLong(), qint64(4));

    // None of them in the log any more: the log stays whole and the status bar says why.
    Q_EMIT backend.repositoryStatesChanged({repository(QStringLiteral("/srv/roots/alpha"), {99})});
    Q_EMIT link->linkActivated(QStringLiteral("calls"));
    QCOMPARE(log->proxy()->rowCount(), 6);
    QVERIFY(!log->callIdFilterBar()->isVisibleTo(&window));
}

void TestOperatorConsole::repositoriesDockShowsBelowTheLog()
{
    FakeOperator backend;
    MainWindow window(&backend, 500, false);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RepositoryView* view = window.repositoryView();
    QCOMPARE(window.dockWidgetArea(view), Qt::BottomDockWidgetArea);
    QVERIFY(view->isVisible());
    // Across the bottom, below the questions too; on a narrow screen (the offscreen platform's
    // 800x800) the questions are a tab beside it.
    if (window.isCompact())
        QVERIFY(window.tabifiedDockWidgets(view).contains(window.interactionPanel()));
    else
        QVERIFY(view->geometry().top() > window.interactionPanel()->geometry().bottom());
    QVERIFY(view->width() > window.width() * 3 / 4);
    auto* toggle = window.findChild<QAction*>(QStringLiteral("repositoriesAction"));
    QVERIFY(toggle);
    QVERIFY(window.findChild<QToolBar*>(QStringLiteral("mainToolBar"))->actions().contains(toggle));
    view->raise(); // in front of the questions' tab, if it shares one
    QTRY_VERIFY(!view->visibleRegion().isEmpty());
    toggle->trigger();
    QVERIFY(!view->isVisible());
    toggle->trigger();
    QVERIFY(view->isVisible());

    // What a person sees with a repository, a selected file and its diff.
    ToolCallList calls;
    for (qint64 id = 1; id <= 12; ++id)
        calls.append(id % 3 == 0 ? call(id, QStringLiteral("echo"), CallStatus::Ok)
                                 : gitCall(id, R"({"repo_path":"/srv/roots/switchboard"})"));
    Q_EMIT backend.callsUpdated(calls);
    RepositoryState broken = repository(QStringLiteral("/srv/roots/legacy"), {});
    broken.error = QStringLiteral("could not find repository at '/srv/roots/legacy'");
    broken.files.clear();
    broken.commits.clear();
    broken.branch.clear();
    broken.upstream.clear();
    broken.headCommit.clear();
    broken.staged = broken.unstaged = broken.untracked = 0;
    RepositoryState clean = repository(QStringLiteral("/srv/roots/docs"), {});
    clean.files.clear();
    clean.staged = clean.unstaged = clean.untracked = 0;
    clean.upstream.clear();
    Q_EMIT backend.repositoryStatesChanged(
        {repository(QStringLiteral("/srv/roots/switchboard"), {1, 2, 4, 5, 7, 8, 10, 11}), broken, clean});
    QVERIFY(view->selectRepository(QStringLiteral("/srv/roots/switchboard")));
    view->fileList()->setCurrentIndex(view->fileList()->model()->index(1, 0)); // src/diffparser.cpp
    FileDiff diff;
    diff.repository = QStringLiteral("/srv/roots/switchboard");
    diff.file = QStringLiteral("src/diffparser.cpp");
    diff.unstaged
        = QStringLiteral("diff --git a/src/diffparser.cpp b/src/diffparser.cpp\n"
                         "index 4b1d2e0..9c3f7a1 100644\n"
                         "--- a/src/diffparser.cpp\n"
                         "+++ b/src/diffparser.cpp\n"
                         "@@ -12,9 +12,12 @@ bool parseHunkHeader(const QString& text, Hunk* hunk)\n"
                         "     const QRegularExpressionMatch match = header.match(text);\n"
                         "     if (!match.hasMatch())\n"
                         "         return false;\n"
                         "-    hunk->oldLines = match.captured(1).toLongLong();\n"
                         "-    hunk->newLines = match.captured(2).toLongLong();\n"
                         "+    // A missing count means one line.\n"
                         "+    hunk->oldLines = match.capturedLength(1) > 0 ? match.captured(1).toLongLong() : 1;\n"
                         "+    hunk->newLines = match.capturedLength(2) > 0 ? match.captured(2).toLongLong() : 1;\n"
                         "+    hunk->context = match.captured(3);\n"
                         "+    hunk->valid = true;\n"
                         "     return true;\n"
                         " }\n"
                         " \n"
                         " } // namespace\n");
    Q_EMIT backend.fileDiffLoaded(diff);
    QVERIFY(view->unstagedDiff()->isVisible());
    QVERIFY(window.showCall(5));
    saveScreenshot(&window, "repoview");
}

QTEST_MAIN(TestOperatorConsole)
#include "tst_operatorconsole.moc"
