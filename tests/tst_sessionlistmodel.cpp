// SessionListModel's stateless clients (MCP 2026-07-28): they have no session, so their calls are
// grouped by the client they name (clientInfo name and version), after the sessions' rows, with the
// revision they named; each call counts once however often it changes; a 2025 call and a call of a
// listed session make no row; the list is bounded. Under QAbstractItemModelTester throughout.

#include "modelroles.h"
#include "sessionlistmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

namespace {

// A call as a 2026-07-28 client sends it: a session of its own (request-…), the revision in _meta.
ToolCall statelessCall(qint64 id, const QString& client, const QString& version, qint64 startedAtMs)
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("request-%1").arg(id);
    call.clientName = client;
    call.clientVersion = version;
    call.tool = QStringLiteral("echo");
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},)"
                   R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                   R"("io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}})";
    call.startedAtMs = startedAtMs;
    return call;
}

ToolCall finished(ToolCall call, qint64 durationMs)
{
    call.status = CallStatus::Ok;
    call.durationUs = durationMs * 1000;
    return call;
}

SessionState session(const QString& id, const QString& client)
{
    return SessionState{id, client, QStringLiteral("1.0"), QStringLiteral("2025-11-25"), 100, 100, 2, false, QString()};
}

} // namespace

class TestSessionListModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statelessCallsAreGroupedByTheirClient()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSessions({session(QStringLiteral("s-one"), QStringLiteral("claude-code"))});

        // Three requests of one client, one of another; a 2025 call of the listed session; a 2025
        // call of no listed session (the console's own): two rows, after the session's.
        ToolCall sessionCall = finished(statelessCall(5, QStringLiteral("claude-code"), QStringLiteral("1.0"), 50), 1);
        sessionCall.sessionId = QStringLiteral("s-one");
        ToolCall consoleCall = sessionCall;
        consoleCall.id = 6;
        consoleCall.sessionId = QStringLiteral("local-1");
        consoleCall.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}})";
        model.addCalls({statelessCall(10, QStringLiteral("agent"), QStringLiteral("1"), 1000),
            statelessCall(11, QStringLiteral("agent"), QStringLiteral("1"), 1100), sessionCall, consoleCall,
            statelessCall(12, QStringLiteral("runner"), QStringLiteral("0.3"), 1200)});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.sessionCount(), 1);
        QCOMPARE(model.statelessClientCount(), 2);
        QVERIFY(!model.isStateless(0));
        QVERIFY(model.isStateless(1));
        const auto cell
            = [&model](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
        QCOMPARE(cell(1, SessionListModel::ClientColumn).toString(), QStringLiteral("agent"));
        QCOMPARE(cell(1, SessionListModel::VersionColumn).toString(), QStringLiteral("1"));
        QCOMPARE(cell(1, SessionListModel::CallsColumn).toLongLong(), 2);
        QCOMPARE(cell(1, SessionListModel::ProtocolColumn).toString(), QStringLiteral("2026-07-28"));
        QCOMPARE(cell(1, SessionListModel::SessionColumn).toString(), QStringLiteral("none (stateless)"));
        QCOMPARE(cell(1, 0, SessionIdRole).toString(), QString());
        QCOMPARE(cell(1, SessionListModel::StartedColumn, SortRole).toLongLong(), 1000);
        QCOMPARE(cell(1, SessionListModel::LastActivityColumn, SortRole).toLongLong(), 1100);
        QVERIFY(cell(1, 0, Qt::ToolTipRole).toString().contains(QStringLiteral("no session")));
        QCOMPARE(cell(2, SessionListModel::ClientColumn).toString(), QStringLiteral("runner"));
        QCOMPARE(model.rowOfClient(QStringLiteral("runner"), QStringLiteral("0.3")), 2);
        QCOMPARE(model.session(0).calls, 2); // the session's own count, untouched

        // The same calls again, finished: counted once, the activity their end.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.addCalls({finished(statelessCall(10, QStringLiteral("agent"), QStringLiteral("1"), 1000), 5000),
            finished(statelessCall(11, QStringLiteral("agent"), QStringLiteral("1"), 1100), 100)});
        QCOMPARE(cell(1, SessionListModel::CallsColumn).toLongLong(), 2);
        QCOMPARE(cell(1, SessionListModel::LastActivityColumn, SortRole).toLongLong(), 6000);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 1);

        // Another version of the same client is another row; a nameless client is named so.
        model.addCalls({statelessCall(13, QStringLiteral("agent"), QStringLiteral("2"), 1300),
            statelessCall(14, QString(), QString(), 1400)});
        QCOMPARE(model.statelessClientCount(), 4);
        QCOMPARE(cell(4, SessionListModel::ClientColumn).toString(), QStringLiteral("(unnamed client)"));

        // Sessions come and go before the clients' rows; a reset of the sessions keeps the clients.
        model.applySessionStates({session(QStringLiteral("s-two"), QStringLiteral("inspector"))});
        QCOMPARE(model.rowOf(QStringLiteral("s-two")), 1);
        QCOMPARE(model.rowOfClient(QStringLiteral("agent"), QStringLiteral("1")), 2);
        SessionState ended = session(QStringLiteral("s-one"), QStringLiteral("claude-code"));
        ended.ended = true;
        model.applySessionStates({ended});
        QCOMPARE(model.rowOfClient(QStringLiteral("agent"), QStringLiteral("1")), 1);
        model.setSessions({});
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.rowOfClient(QStringLiteral("agent"), QStringLiteral("1")), 0);
        QCOMPARE(model.session(0).clientName, QStringLiteral("agent"));
    }

    // Names are whatever a client declares: a client that sends a new one with every request keeps
    // the list at its bound, the least recently active client leaving first.
    void theListOfStatelessClientsIsBounded()
    {
        SessionListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ToolCallList calls;
        for (int i = 0; i < SessionListModel::MaxStatelessClients; ++i)
            calls << statelessCall(i + 1, QStringLiteral("client-%1").arg(i), QStringLiteral("1"), 1000 + i);
        model.addCalls(calls);
        QCOMPARE(model.rowCount(), SessionListModel::MaxStatelessClients);
        // client-0 calls again: client-1 is now the least recently active, and goes.
        model.addCalls({statelessCall(5000, QStringLiteral("client-0"), QStringLiteral("1"), 9000),
            statelessCall(5001, QStringLiteral("newcomer"), QStringLiteral("1"), 9001)});
        QCOMPARE(model.rowCount(), SessionListModel::MaxStatelessClients);
        QVERIFY(model.rowOfClient(QStringLiteral("client-0"), QStringLiteral("1")) >= 0);
        QCOMPARE(model.rowOfClient(QStringLiteral("client-1"), QStringLiteral("1")), -1);
        QCOMPARE(model.rowOfClient(QStringLiteral("newcomer"), QStringLiteral("1")), model.rowCount() - 1);
        QCOMPARE(model.session(model.rowOfClient(QStringLiteral("client-0"), QStringLiteral("1"))).calls, 2);
    }

    // A call is counted once, even when it changes again after thousands of others (a task's call
    // that waits for a person while other calls come and go).
    void aLongCallIsCountedOnce()
    {
        SessionListModel model;
        const ToolCall waiting = statelessCall(1, QStringLiteral("agent"), QStringLiteral("1"), 1000);
        model.addCalls({waiting});
        ToolCallList others;
        for (int i = 0; i < SessionListModel::RememberedCalls + 10; ++i)
            others << statelessCall(i + 2, QStringLiteral("busy"), QStringLiteral("1"), 1000);
        model.addCalls(others);
        model.addCalls({finished(waiting, 60'000)});
        QCOMPARE(model.session(model.rowOfClient(QStringLiteral("agent"), QStringLiteral("1"))).calls, 1);
        QCOMPARE(model.session(model.rowOfClient(QStringLiteral("agent"), QStringLiteral("1"))).lastActivityMs, 61'000);
        QCOMPARE(model.session(model.rowOfClient(QStringLiteral("busy"), QStringLiteral("1"))).calls,
            SessionListModel::RememberedCalls + 10);
    }
};

QTEST_GUILESS_MAIN(TestSessionListModel)
#include "tst_sessionlistmodel.moc"
