// The console's view of MCP 2026-07-28's shapes, through a test double of the OperatorInterface: the
// Health dock's sessions tab lists stateless clients grouped by the client they name, with no session
// to end; and the inspector of an input_required retry links to the call it answers, which the
// window then selects in the live log.

#include "callinspector.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "dashboardview.h"
#include "fakeoperator.h"
#include "mainwindow.h"
#include "sessionlistmodel.h"

#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

namespace {

ToolCall statelessCall(qint64 id, const QString& client, const QByteArray& params = {})
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("request-%1").arg(id);
    call.clientName = client;
    call.clientVersion = QStringLiteral("1");
    call.tool = QStringLiteral("echo");
    call.route = ToolRoute::builtin();
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},)" + params
        + R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})";
    call.startedAtMs = QDateTime::currentMSecsSinceEpoch();
    call.status = CallStatus::Ok;
    call.durationUs = 1000;
    call.response = R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})";
    return call;
}

} // namespace

class TestConsoleShapes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statelessClientsAreListedByClientWithNoSessionToEnd()
    {
        FakeOperator backend;
        DashboardView view(&backend);
        view.resize(1000, 320);
        view.show();
        QApplication::setActiveWindow(&view);
        QVERIFY(QTest::qWaitForWindowActive(&view));
        view.tabs()->setCurrentIndex(1);
        const QDateTime now = QDateTime::currentDateTime();
        Q_EMIT backend.sessionsListed(
            {SessionState{QStringLiteral("s-one"), QStringLiteral("claude-code"), QStringLiteral("2.0"),
                QStringLiteral("2025-11-25"), now.toMSecsSinceEpoch(), now.toMSecsSinceEpoch(), 1, false, QString()}});
        Q_EMIT backend.callsUpdated({statelessCall(1, QStringLiteral("agent")),
            statelessCall(2, QStringLiteral("agent")), statelessCall(3, QStringLiteral("runner"))});
        QTableView* table = view.sessionTable();
        QCOMPARE(table->model()->rowCount(), 3);
        QCOMPARE(view.tabs()->tabText(1), QStringLiteral("Sessions (1) and stateless clients (2)"));
        QCOMPARE(table->model()->index(1, SessionListModel::CallsColumn).data().toLongLong(), 2);

        // A stateless client's row: nothing to end, by button or by Delete, and the button says why.
        QTest::mouseClick(
            table->viewport(), Qt::LeftButton, {}, table->visualRect(table->model()->index(1, 0)).center());
        QCOMPARE(table->currentIndex().row(), 1);
        QVERIFY(!view.endSessionButton()->isEnabled());
        QVERIFY(view.endSessionButton()->toolTip().contains(QStringLiteral("no session to end")));
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Delete);
        QVERIFY(backend.sessionEnds.isEmpty());
        // The session's row still ends its session.
        QTest::mouseClick(
            table->viewport(), Qt::LeftButton, {}, table->visualRect(table->model()->index(0, 0)).center());
        QVERIFY(view.endSessionButton()->isEnabled());
        QTest::mouseClick(view.endSessionButton(), Qt::LeftButton);
        QCOMPARE(backend.sessionEnds, QStringList{QStringLiteral("s-one")});
    }

    void aRetryLinksToTheCallItAnswers()
    {
        FakeOperator backend;
        MainWindow window(&backend, 500, false);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        ToolCall asked = statelessCall(41, QStringLiteral("agent"));
        asked.timeline = R"([{"atMs":2,"method":"switchboard/input","params":{"event":"asked","round":1,)"
                         R"("keys":["github_login"],"requestKinds":["elicitation/create"]}}])";
        ToolCall retry = statelessCall(42, QStringLiteral("agent"), R"("inputResponses":{"github_login":{}},)");
        retry.timeline = R"([{"atMs":1,"method":"switchboard/input","params":{"event":"answered","round":2,)"
                         R"("previousCallId":41}}])";
        Q_EMIT backend.callsUpdated({asked, retry});
        QTRY_COMPARE(window.callLogModel()->rowCount(), 2);
        QVERIFY(window.callLogView()->showCall(42));
        QTRY_COMPARE(window.inspector()->call().id, qint64(42));
        auto* input = window.inspector()->findChild<QLabel*>(QStringLiteral("inputLabel"));
        QVERIFY(input && input->isVisible());
        Q_EMIT input->linkActivated(QStringLiteral("call:41"));
        QTRY_COMPARE(window.inspector()->call().id, qint64(41));
        QVERIFY2(input->text().contains(QStringLiteral("asked the client's user for github_login")),
            qPrintable(input->text()));
    }
};

QTEST_MAIN(TestConsoleShapes)
#include "tst_consoleshapes.moc"
