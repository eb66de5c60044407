// The window against a test double of the OperatorInterface: what the window asks at start, how the
// backend's events show (calls, questions, status), and which commands the person's actions send.
// No server runs: the window knows only the interface.

#include "fakeoperator.h"

#include "calllogmodel.h"
#include "historydialog.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "statuswarning.h"

#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

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
    void laterCapabilitiesAnswerWhenMissing();
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
    QCOMPARE(backend.queries.last().text, QStringLiteral("debug.block"));
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

void TestOperatorConsole::laterCapabilitiesAnswerWhenMissing()
{
    FakeOperator backend;
    QSignalSpy failed(&backend, &OperatorInterface::commandFailed);
    backend.resetBreaker(QStringLiteral("github"));
    // The double records the repository commands; the interface's own answer is what this checks.
    backend.OperatorInterface::refreshRepository(QStringLiteral("/srv/repo"));
    backend.OperatorInterface::addRepository(QStringLiteral("/srv/repo"));
    QCOMPARE(failed.size(), 3);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("resetBreaker"));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("github")));
    QCOMPARE(failed.at(2).at(0).toString(), QStringLiteral("addRepository"));
    QVERIFY(backend.repositoryRefreshes.isEmpty());
}

QTEST_MAIN(TestOperatorConsole)
#include "tst_operatorconsole.moc"
