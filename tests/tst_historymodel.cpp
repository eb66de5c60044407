// HistoryModel: each page of results replaces the previous one with a model reset.

#include "historymodel.h"
#include "modelroles.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

namespace {

ToolCallList makeCalls(const QList<qint64>& ids)
{
    ToolCallList calls;
    for (qint64 id : ids) {
        ToolCall call;
        call.id = id;
        call.tool = QStringLiteral("tool_%1").arg(id);
        call.route = ToolRoute::builtin();
        call.status = id % 2 ? CallStatus::Ok : CallStatus::Error;
        call.durationUs = 10;
        calls.append(call);
    }
    return calls;
}

} // namespace

class TestHistoryModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void setResultsReplacesThePage()
    {
        HistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.oldestId(), qint64(0));
        QVERIFY(!model.hasMore());

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setResults(makeCalls({9, 7, 5}), true);
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(CallColumns::NumColumns));
        QVERIFY(model.hasMore());
        QCOMPARE(model.index(0, CallColumns::ToolColumn).data().toString(), QStringLiteral("tool_9"));
        QCOMPARE(model.index(2, 0).data(CallIdRole).toLongLong(), qint64(5));
        QCOMPARE(model.callAt(1).id, qint64(7));
        // Newest first: the next page continues below the last row's id.
        QCOMPARE(model.oldestId(), qint64(5));

        model.setResults(makeCalls({4, 3}), false);
        QCOMPARE(reset.size(), 2);
        QCOMPARE(model.rowCount(), 2);
        QVERIFY(!model.hasMore());
        QCOMPARE(model.oldestId(), qint64(3));
        QCOMPARE(model.index(1, CallColumns::StatusColumn).data().toString(), QStringLiteral("OK"));
        QCOMPARE(model.index(0, CallColumns::StatusColumn).data().toString(), QStringLiteral("Error"));

        model.clear();
        QCOMPARE(reset.size(), 3);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.oldestId(), qint64(0));
        QVERIFY(!model.hasMore());
    }

    void headers()
    {
        HistoryModel model;
        QCOMPARE(model.headerData(CallColumns::TimeColumn, Qt::Horizontal).toString(), QStringLiteral("Time"));
        QCOMPARE(model.headerData(CallColumns::DurationColumn, Qt::Horizontal).toString(), QStringLiteral("Duration"));
        QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    }
};

QTEST_GUILESS_MAIN(TestHistoryModel)
#include "tst_historymodel.moc"
