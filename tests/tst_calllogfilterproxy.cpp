// CallLogFilterProxy: every word must match (case-insensitively) somewhere in the call; the status
// filter narrows further; the adapter filter keeps the calls routed to one adapter; live inserts and
// updates are filtered as they arrive.

#include "calllogfilterproxy.h"
#include "calllogmodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QTest>

namespace {

ToolCall makeCall(
    qint64 id, const QString& tool, const QString& client, CallStatus status, const QString& error = QString())
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("sess-%1").arg(id);
    call.clientName = client;
    call.clientVersion = QStringLiteral("2.1");
    call.tool = tool;
    call.route
        = tool.startsWith(QLatin1String("gh.")) ? ToolRoute::adapter(QStringLiteral("github")) : ToolRoute::builtin();
    call.status = status;
    call.error = error;
    call.durationUs = status == CallStatus::Running ? -1 : 100;
    return call;
}

ToolCallList sampleCalls()
{
    return {
        makeCall(1, QStringLiteral("echo"), QStringLiteral("claude-code"), CallStatus::Ok),
        makeCall(2, QStringLiteral("git_status"), QStringLiteral("Cursor"), CallStatus::Error,
            QStringLiteral("Repository not found")),
        makeCall(3, QStringLiteral("gh.create_issue"), QStringLiteral("claude-code"), CallStatus::Running),
        makeCall(4, QStringLiteral("echo"), QStringLiteral("mcp-inspector"), CallStatus::Cancelled,
            QStringLiteral("cancelled by the client")),
        makeCall(5, QStringLiteral("request_connection"), QStringLiteral("Cursor"), CallStatus::Paused),
    };
}

QList<qint64> visibleIds(const QAbstractItemModel& proxy)
{
    QList<qint64> ids;
    for (int row = 0; row < proxy.rowCount(); ++row)
        ids.append(proxy.index(row, 0).data(CallIdRole).toLongLong());
    return ids;
}

using OptionalStatus = std::optional<CallStatus>;

} // namespace

Q_DECLARE_METATYPE(OptionalStatus)

class TestCallLogFilterProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void filters_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<OptionalStatus>("status");
        QTest::addColumn<QList<qint64>>("expectedIds");

        QTest::newRow("nothing") << QString() << OptionalStatus() << QList<qint64>{1, 2, 3, 4, 5};
        QTest::newRow("blank words") << QStringLiteral("   ") << OptionalStatus() << QList<qint64>{1, 2, 3, 4, 5};
        QTest::newRow("tool") << QStringLiteral("echo") << OptionalStatus() << QList<qint64>{1, 4};
        QTest::newRow("case-insensitive") << QStringLiteral("ECHO") << OptionalStatus() << QList<qint64>{1, 4};
        QTest::newRow("client") << QStringLiteral("cursor") << OptionalStatus() << QList<qint64>{2, 5};
        QTest::newRow("two words, both match") << QStringLiteral("echo claude") << OptionalStatus() << QList<qint64>{1};
        QTest::newRow("two words, order free")
            << QStringLiteral("Claude  echo") << OptionalStatus() << QList<qint64>{1};
        QTest::newRow("two words, one misses") << QStringLiteral("echo cursor") << OptionalStatus() << QList<qint64>{};
        QTest::newRow("route") << QStringLiteral("adapter:github") << OptionalStatus() << QList<qint64>{3};
        QTest::newRow("status word") << QStringLiteral("paused") << OptionalStatus() << QList<qint64>{5};
        QTest::newRow("session") << QStringLiteral("sess-2") << OptionalStatus() << QList<qint64>{2};
        QTest::newRow("error text") << QStringLiteral("not found") << OptionalStatus() << QList<qint64>{2};
        QTest::newRow("no match") << QStringLiteral("zzz") << OptionalStatus() << QList<qint64>{};
        QTest::newRow("status only") << QString() << OptionalStatus(CallStatus::Error) << QList<qint64>{2};
        QTest::newRow("status running") << QString() << OptionalStatus(CallStatus::Running) << QList<qint64>{3};
        QTest::newRow("text and status") << QStringLiteral("echo") << OptionalStatus(CallStatus::Cancelled)
                                         << QList<qint64>{4};
        QTest::newRow("text and status, none")
            << QStringLiteral("echo") << OptionalStatus(CallStatus::Error) << QList<qint64>{};
    }

    void filters()
    {
        QFETCH(QString, text);
        QFETCH(OptionalStatus, status);
        QFETCH(QList<qint64>, expectedIds);

        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(sampleCalls());

        proxy.setFilterText(text);
        proxy.setStatusFilter(status);
        QCOMPARE(visibleIds(proxy), expectedIds);
        QCOMPARE(proxy.filterText(), text);
        QCOMPARE(proxy.statusFilter(), status);

        // Filtering before the rows arrive gives the same answer.
        CallLogModel model2;
        CallLogFilterProxy proxy2;
        proxy2.setSourceModel(&model2);
        QAbstractItemModelTester tester2(&proxy2, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy2.setFilterText(text);
        proxy2.setStatusFilter(status);
        model2.applyUpdates(sampleCalls());
        QCOMPARE(visibleIds(proxy2), expectedIds);
    }

    void clearingFiltersShowsEverything()
    {
        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(sampleCalls());
        proxy.setFilterText(QStringLiteral("echo"));
        proxy.setStatusFilter(CallStatus::Ok);
        QCOMPARE(visibleIds(proxy), QList<qint64>{1});
        proxy.setStatusFilter(std::nullopt);
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 4}));
        proxy.setFilterText(QString());
        QCOMPARE(proxy.rowCount(), 5);
    }

    void liveInsertsWhileFiltered()
    {
        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setFilterText(QStringLiteral("echo"));
        model.applyUpdates(sampleCalls());
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 4}));

        model.applyUpdates({makeCall(6, QStringLiteral("echo"), QStringLiteral("zed"), CallStatus::Running),
            makeCall(7, QStringLiteral("git_log"), QStringLiteral("zed"), CallStatus::Running)});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 4, 6}));

        // An update that makes a call match shows it; one that stops it matching hides it.
        proxy.setFilterText(QString());
        proxy.setStatusFilter(CallStatus::Running);
        QCOMPARE(visibleIds(proxy), (QList<qint64>{3, 6, 7}));
        model.applyUpdates({makeCall(6, QStringLiteral("echo"), QStringLiteral("zed"), CallStatus::Ok),
            makeCall(8, QStringLiteral("echo"), QStringLiteral("zed"), CallStatus::Running)});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{3, 7, 8}));
        proxy.setStatusFilter(CallStatus::Ok);
        model.applyUpdates({makeCall(7, QStringLiteral("git_log"), QStringLiteral("zed"), CallStatus::Ok)});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 6, 7}));
    }

    void adapterFilterKeepsThatAdaptersCalls()
    {
        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ToolCall git = makeCall(6, QStringLiteral("git.log"), QStringLiteral("zed"), CallStatus::Ok);
        git.route = ToolRoute::adapter(QStringLiteral("git"));
        // A sink with the adapter's name is not the adapter.
        ToolCall sink = makeCall(7, QStringLiteral("github.notify"), QStringLiteral("zed"), CallStatus::Ok);
        sink.route = ToolRoute::sink(QStringLiteral("github"));
        model.applyUpdates(sampleCalls() + ToolCallList{git, sink});

        proxy.setAdapterFilter(QStringLiteral("github"));
        QCOMPARE(proxy.adapterFilter(), QStringLiteral("github"));
        QCOMPARE(visibleIds(proxy), QList<qint64>{3});
        // The route's owner exactly: "git" is not a prefix match of "github", nor the other way.
        proxy.setAdapterFilter(QStringLiteral("git"));
        QCOMPARE(visibleIds(proxy), QList<qint64>{6});
        proxy.setAdapterFilter(QStringLiteral("gith"));
        QCOMPARE(visibleIds(proxy), QList<qint64>{});

        // Combined with the other filters, and applied to calls as they arrive.
        proxy.setAdapterFilter(QStringLiteral("github"));
        model.applyUpdates({makeCall(8, QStringLiteral("gh.search"), QStringLiteral("zed"), CallStatus::Error)});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{3, 8}));
        proxy.setStatusFilter(CallStatus::Error);
        QCOMPARE(visibleIds(proxy), QList<qint64>{8});
        proxy.setStatusFilter(std::nullopt);
        proxy.setFilterText(QStringLiteral("search"));
        QCOMPARE(visibleIds(proxy), QList<qint64>{8});
        proxy.setFilterText(QString());

        proxy.setAdapterFilter(QString());
        QCOMPARE(proxy.rowCount(), 8);
    }

    void severalStatuses()
    {
        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(sampleCalls());
        proxy.setStatusesFilter({CallStatus::Error, CallStatus::Paused});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{2, 5}));
        QCOMPARE(proxy.statusFilter(), std::nullopt); // not one status
        QVERIFY(proxy.isFiltering());
        proxy.setFilterText(QStringLiteral("cursor"));
        QCOMPARE(visibleIds(proxy), (QList<qint64>{2, 5}));
        proxy.setStatusesFilter({CallStatus::Paused});
        QCOMPARE(proxy.statusFilter(), OptionalStatus(CallStatus::Paused));
        QCOMPARE(visibleIds(proxy), QList<qint64>{5});
        proxy.setFilterText(QString());
        proxy.setStatusesFilter({});
        QVERIFY(!proxy.isFiltering());
        QCOMPARE(proxy.rowCount(), 5);
    }

    // Sorting on SortRole while calls arrive and change; sort(-1) gives the log's order back.
    void sortsOnSortRoleWhileLive()
    {
        CallLogModel model;
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ToolCallList calls = sampleCalls();
        for (qsizetype i = 0; i < calls.size(); ++i)
            calls[i].durationUs = (10 - i) * 100;
        model.applyUpdates(calls);
        proxy.sort(CallColumns::DurationColumn, Qt::AscendingOrder);
        QCOMPARE(visibleIds(proxy), (QList<qint64>{5, 4, 3, 2, 1}));
        ToolCall late = makeCall(6, QStringLiteral("echo"), QStringLiteral("zed"), CallStatus::Ok);
        late.durationUs = 750;
        model.applyUpdates({late});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{5, 4, 6, 3, 2, 1}));
        calls[0].durationUs = 1; // 1 is updated and moves to the front
        model.applyUpdates({calls[0]});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 5, 4, 6, 3, 2}));
        proxy.sort(CallColumns::ToolColumn, Qt::DescendingOrder);
        QCOMPARE(visibleIds(proxy).first(), qint64(5)); // request_connection
        proxy.sort(-1);
        QCOMPARE(visibleIds(proxy), (QList<qint64>{1, 2, 3, 4, 5, 6}));
    }

    void trimmingWhileFiltered()
    {
        CallLogModel model(3);
        CallLogFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setFilterText(QStringLiteral("echo"));
        model.applyUpdates(sampleCalls()); // the ring keeps 3, 4, 5; the error 2 is kept above it
        QCOMPARE(visibleIds(proxy), QList<qint64>{4});
        model.applyUpdates({makeCall(6, QStringLiteral("echo"), QStringLiteral("zed"), CallStatus::Ok)});
        QCOMPARE(visibleIds(proxy), (QList<qint64>{4, 6}));
    }
};

QTEST_GUILESS_MAIN(TestCallLogFilterProxy)
#include "tst_calllogfilterproxy.moc"
