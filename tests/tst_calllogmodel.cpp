// CallLogModel: batches insert in one go, known calls update in place, the capacity and the byte
// budget trim the oldest rows, rows keep previews of large bodies, and calls older than the shown
// ones (history loaded after live calls) land sorted.

#include "calllogmodel.h"
#include "callsearch.h"
#include "modelroles.h"
#include "statuscolours.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QTest>

namespace {

ToolCall makeCall(qint64 id, CallStatus status = CallStatus::Ok, const QString& tool = QStringLiteral("echo"))
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("session-1");
    call.clientName = QStringLiteral("claude-code");
    call.clientVersion = QStringLiteral("1.0");
    call.tool = tool;
    call.route = ToolRoute::builtin();
    call.startedAtMs = 1'700'000'000'000 + id;
    call.durationUs = status == CallStatus::Running ? -1 : 1500;
    call.status = status;
    return call;
}

ToolCallList makeCalls(const QList<qint64>& ids)
{
    ToolCallList calls;
    for (qint64 id : ids)
        calls.append(makeCall(id));
    return calls;
}

// A finished call whose request and response are each `bytes` long (a tools/call and its answer).
ToolCall makeLargeCall(qint64 id, qsizetype bytes)
{
    ToolCall call = makeCall(id);
    const QByteArray head
        = QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                     "\"arguments\":{\"message\":\"");
    call.request = head + QByteArray(bytes - head.size() - 4, 'q') + "\"}}}";
    call.response = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"" + QByteArray(bytes - 43, 'r') + "\"}}";
    return call;
}

QList<qint64> idsOf(const CallLogModel& model)
{
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids.append(model.index(row, 0).data(CallIdRole).toLongLong());
    return ids;
}

} // namespace

class TestCallLogModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void insertsABatchInOneGo()
    {
        CallLogModel model(100);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

        model.applyUpdates(makeCalls({1, 2, 3}));
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(inserted.at(0).at(2).toInt(), 2);
        QCOMPARE(idsOf(model), (QList<qint64>{1, 2, 3}));

        model.applyUpdates(makeCalls({4, 5}));
        QCOMPARE(inserted.size(), 2);
        QCOMPARE(inserted.at(1).at(1).toInt(), 3);
        QCOMPARE(inserted.at(1).at(2).toInt(), 4);
        QCOMPARE(model.columnCount(), int(CallColumns::NumColumns));
        QCOMPARE(model.index(0, CallColumns::ToolColumn).data().toString(), QStringLiteral("echo"));
        QCOMPARE(model.index(0, CallColumns::ClientColumn).data().toString(), QStringLiteral("claude-code 1.0"));
        QCOMPARE(model.index(0, CallColumns::StatusColumn).data().toString(), QStringLiteral("OK"));
    }

    void updatesARunningCallInPlace()
    {
        CallLogModel model(100);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates({makeCall(1), makeCall(2, CallStatus::Running)});
        QCOMPARE(model.index(1, CallColumns::StatusColumn).data().toString(), QStringLiteral("Running"));
        QCOMPARE(model.index(1, CallColumns::DurationColumn).data().toString(), QStringLiteral("…"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        ToolCall finished = makeCall(2, CallStatus::Ok);
        finished.response = R"({"jsonrpc":"2.0","id":2,"result":{}})";
        // A batch mixing an update with a new call.
        model.applyUpdates({finished, makeCall(3)});

        QCOMPARE(changed.size(), 1);
        const QModelIndex topLeft = changed.at(0).at(0).value<QModelIndex>();
        const QModelIndex bottomRight = changed.at(0).at(1).value<QModelIndex>();
        QCOMPARE(topLeft.row(), 1);
        QCOMPARE(bottomRight.row(), 1);
        QCOMPARE(topLeft.column(), 0);
        QCOMPARE(bottomRight.column(), CallColumns::NumColumns - 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, CallColumns::StatusColumn).data().toString(), QStringLiteral("OK"));
        QCOMPARE(model.index(1, 0).data(CallRole).value<ToolCall>().response, finished.response);
        QCOMPARE(model.index(1, CallColumns::StatusColumn).data(StatusRole).toInt(), int(CallStatus::Ok));
    }

    void trimsToCapacity_data()
    {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<QList<QList<qint64>>>("batches");
        QTest::addColumn<QList<qint64>>("expectedIds");
        QTest::addColumn<qint64>("expectedDropped");

        QTest::newRow("under capacity") << 5 << QList<QList<qint64>>{{1, 2, 3}} << QList<qint64>{1, 2, 3} << qint64(0);
        QTest::newRow("exactly full") << 3 << QList<QList<qint64>>{{1, 2, 3}} << QList<qint64>{1, 2, 3} << qint64(0);
        QTest::newRow("one batch over") << 3 << QList<QList<qint64>>{{1, 2, 3, 4, 5}} << QList<qint64>{3, 4, 5}
                                        << qint64(2);
        QTest::newRow("several batches") << 3 << QList<QList<qint64>>{{1, 2}, {3, 4}, {5, 6, 7}}
                                         << QList<qint64>{5, 6, 7} << qint64(4);
        QTest::newRow("capacity one") << 1 << QList<QList<qint64>>{{1}, {2}, {3}} << QList<qint64>{3} << qint64(2);
    }

    void trimsToCapacity()
    {
        QFETCH(int, capacity);
        QFETCH(QList<QList<qint64>>, batches);
        QFETCH(QList<qint64>, expectedIds);
        QFETCH(qint64, expectedDropped);

        CallLogModel model(capacity);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy dropped(&model, &CallLogModel::rowsDropped);
        for (const QList<qint64>& batch : std::as_const(batches))
            model.applyUpdates(makeCalls(batch));

        QCOMPARE(idsOf(model), expectedIds);
        QCOMPARE(model.droppedCount(), expectedDropped);
        if (expectedDropped == 0) {
            QVERIFY(dropped.isEmpty());
        } else {
            QVERIFY(!dropped.isEmpty());
            QCOMPARE(dropped.last().at(0).toLongLong(), expectedDropped);
        }
        // Trimmed calls are no longer found.
        for (const QList<qint64>& batch : std::as_const(batches)) {
            for (qint64 id : batch)
                QCOMPARE(model.indexOfCall(id).isValid(), expectedIds.contains(id));
        }
    }

    void insertsOlderCallsSorted_data()
    {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<QList<qint64>>("live");
        QTest::addColumn<QList<qint64>>("late");
        QTest::addColumn<QList<qint64>>("expectedIds");

        QTest::newRow("history before live")
            << 100 << QList<qint64>{10, 11} << QList<qint64>{3, 4, 5} << QList<qint64>{3, 4, 5, 10, 11};
        QTest::newRow("history newest-first")
            << 100 << QList<qint64>{10, 11} << QList<qint64>{5, 4, 3} << QList<qint64>{3, 4, 5, 10, 11};
        QTest::newRow("interleaved") << 100 << QList<qint64>{2, 6, 10} << QList<qint64>{1, 4, 8}
                                     << QList<qint64>{1, 2, 4, 6, 8, 10};
        QTest::newRow("mixed with newer")
            << 100 << QList<qint64>{5, 6} << QList<qint64>{1, 7, 2} << QList<qint64>{1, 2, 5, 6, 7};
        QTest::newRow("no room for older")
            << 3 << QList<qint64>{10, 11, 12} << QList<qint64>{1, 2} << QList<qint64>{10, 11, 12};
        QTest::newRow("room for the newest older")
            << 4 << QList<qint64>{10, 11} << QList<qint64>{1, 2, 3} << QList<qint64>{2, 3, 10, 11};
        QTest::newRow("into an empty log")
            << 100 << QList<qint64>{} << QList<qint64>{3, 1, 2} << QList<qint64>{1, 2, 3};
    }

    void insertsOlderCallsSorted()
    {
        QFETCH(int, capacity);
        QFETCH(QList<qint64>, live);
        QFETCH(QList<qint64>, late);
        QFETCH(QList<qint64>, expectedIds);

        CallLogModel model(capacity);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(makeCalls(live));
        model.applyUpdates(makeCalls(late));
        QCOMPARE(idsOf(model), expectedIds);
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.indexOfCall(expectedIds.at(row)).row(), row);
    }

    void indexOfCall()
    {
        CallLogModel model(100);
        model.applyUpdates(makeCalls({4, 8, 15, 16, 23, 42}));
        QCOMPARE(model.indexOfCall(4).row(), 0);
        QCOMPARE(model.indexOfCall(23).row(), 4);
        QCOMPARE(model.indexOfCall(42, CallColumns::StatusColumn).column(), int(CallColumns::StatusColumn));
        QVERIFY(!model.indexOfCall(5).isValid());
        QVERIFY(!model.indexOfCall(0).isValid());
        QVERIFY(!model.indexOfCall(1000).isValid());
        QCOMPARE(model.callAt(2).id, qint64(15));
    }

    void keepsPreviewsOfLargeBodies()
    {
        CallLogModel model(100);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ToolCall large = makeLargeCall(1, 1024 * 1024);
        large.status = CallStatus::Error;
        large.error = QString(100'000, QLatin1Char('e'));
        ToolCall small = makeCall(2);
        small.request = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}})";
        model.applyUpdates({large, small});

        const ToolCall& kept = model.callAt(0);
        QCOMPARE(kept.request, large.request.left(CallLogModel::PreviewBytes));
        QCOMPARE(kept.response, large.response.left(CallLogModel::PreviewBytes));
        QCOMPARE(kept.error, large.error.left(CallLogModel::PreviewBytes));
        const CallPreview preview = model.previewAt(0);
        QVERIFY(preview.truncated);
        QCOMPARE(preview.requestBytes, large.request.size());
        QCOMPARE(preview.responseBytes, large.response.size());
        QCOMPARE(preview.errorChars, large.error.size());
        QCOMPARE(model.index(0, CallColumns::ToolColumn).data().toString(), QStringLiteral("echo"));

        // Small calls are kept whole and say so.
        QCOMPARE(model.callAt(1).request, small.request);
        QVERIFY(!model.previewAt(1).truncated);

        // A timeline (up to 64 KiB of notifications) is counted, and a large one left to history
        // like large details: the row says it is cut, so the inspector loads the whole call.
        const qint64 withoutTimeline = model.retainedBytes();
        ToolCall progressed = small;
        progressed.timeline = R"([{"atMs":1,"method":"notifications/progress","params":{"progress":1}}])";
        model.applyUpdates({progressed});
        QCOMPARE(model.callAt(1).timeline, progressed.timeline);
        QCOMPARE(model.retainedBytes(), withoutTimeline + progressed.timeline.size());
        ToolCall chatty = small;
        chatty.timeline = "[" + QByteArray(60 * 1024, ' ') + "]";
        model.applyUpdates({chatty});
        QVERIFY(model.callAt(1).timeline.isEmpty());
        QVERIFY(model.previewAt(1).truncated);
        QCOMPARE(model.previewAt(1).timelineBytes, chatty.timeline.size());
        QCOMPARE(model.retainedBytes(), withoutTimeline);
        model.applyUpdates({small});

        // An update of a large call is cut again; the accounting follows.
        const qint64 before = model.retainedBytes();
        ToolCall finished = large;
        finished.status = CallStatus::Ok;
        finished.error.clear();
        model.applyUpdates({finished});
        QCOMPARE(model.callAt(0).status, CallStatus::Ok);
        QCOMPARE(model.callAt(0).request.size(), CallLogModel::PreviewBytes);
        QCOMPARE(model.retainedBytes(), before - CallLogModel::PreviewBytes * qint64(sizeof(QChar)));
    }

    void previewsFromHistoryKeepTheirWholeSizes()
    {
        // History sends previews already cut (HistoryQuery::bodyPreviewBytes) with the whole sizes:
        // the row is a preview of the whole call, not a whole call of four kilobytes.
        CallLogModel model(100);
        ToolCall fromHistory = makeCall(1);
        fromHistory.request = QByteArray(CallLogModel::PreviewBytes, 'q');
        fromHistory.response = R"({"result":{}})";
        fromHistory.wholeRequestBytes = 3 * 1024 * 1024;
        fromHistory.wholeResponseBytes = fromHistory.response.size();
        model.applyUpdates({fromHistory});
        const CallPreview preview = model.previewAt(0);
        QVERIFY(preview.truncated);
        QCOMPARE(preview.requestBytes, qint64(3 * 1024 * 1024));
        QCOMPARE(preview.responseBytes, fromHistory.response.size());
        QCOMPARE(model.callAt(0).request, fromHistory.request);
    }

    void boundedByBytes()
    {
        // 300 one-megabyte calls (the issue's case): what the rows retain stays far below the
        // bodies' size and within the budget.
        CallLogModel model(10'000);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.byteBudget(), CallLogModel::DefaultByteBudget);
        for (qint64 id = 1; id <= 300; ++id)
            model.applyUpdates({makeLargeCall(id, 1024 * 1024)});
        QCOMPARE(model.rowCount(), 300);
        QVERIFY(model.retainedBytes() <= model.byteBudget());
        QVERIFY2(model.retainedBytes() < 300 * (2 * CallLogModel::PreviewBytes + 1024),
            qPrintable(QString::number(model.retainedBytes())));
        for (int row = 0; row < model.rowCount(); ++row) {
            QVERIFY(model.callAt(row).request.size() <= CallLogModel::PreviewBytes);
            QVERIFY(model.callAt(row).response.size() <= CallLogModel::PreviewBytes);
        }
    }

    void byteBudgetDropsTheOldestRows()
    {
        CallLogModel model(10'000);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setByteBudget(1); // raised to the smallest budget
        QCOMPARE(model.byteBudget(), CallLogModel::MinByteBudget);
        QSignalSpy dropped(&model, &CallLogModel::rowsDropped);
        ToolCallList batch;
        for (qint64 id = 1; id <= 1000; ++id)
            batch.append(makeLargeCall(id, 64 * 1024));
        model.applyUpdates(batch);
        QVERIFY(model.retainedBytes() <= model.byteBudget());
        QVERIFY(model.rowCount() < 1000);
        QVERIFY(model.rowCount() > 50);
        QCOMPARE(model.droppedCount(), qint64(1000 - model.rowCount()));
        QVERIFY(!dropped.isEmpty());
        // The newest calls stay, in order.
        QCOMPARE(model.callAt(model.rowCount() - 1).id, qint64(1000));
        QCOMPARE(model.callAt(0).id, qint64(1000 - model.rowCount() + 1));

        // A larger budget keeps more; a smaller one trims at once.
        model.setByteBudget(4 * CallLogModel::MinByteBudget);
        model.applyUpdates({makeLargeCall(1001, 64 * 1024)});
        const int rows = model.rowCount();
        model.setByteBudget(CallLogModel::MinByteBudget);
        QVERIFY(model.rowCount() < rows);
        QVERIFY(model.retainedBytes() <= CallLogModel::MinByteBudget);

        model.clear();
        QCOMPARE(model.retainedBytes(), qint64(0));
    }

    // Every status is a row of its own look: its words in the status column, a tint across the
    // whole row (not only coloured text), and a text colour that reads on that tint.
    void everyStatusHasItsWordsTintAndTextColour()
    {
        CallLogModel model(100);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QList<CallStatus> statuses = allCallStatuses();
        ToolCallList calls;
        for (int i = 0; i < statuses.size(); ++i)
            calls.append(makeCall(i + 1, statuses.at(i)));
        model.applyUpdates(calls);
        QSet<QRgb> tints;
        QSet<QString> words;
        for (int row = 0; row < statuses.size(); ++row) {
            const CallStatus status = statuses.at(row);
            const QString label = model.index(row, CallColumns::StatusColumn).data().toString();
            QCOMPARE(label, callStatusLabel(status));
            words.insert(label);
            const QColor tint = model.index(row, CallColumns::ToolColumn).data(Qt::BackgroundRole).value<QColor>();
            QVERIFY(tint.isValid());
            // The same tint in every column of the row.
            for (int column = 0; column < CallColumns::NumColumns; ++column)
                QCOMPARE(model.index(row, column).data(Qt::BackgroundRole).value<QColor>(), tint);
            tints.insert(tint.rgb());
            const QColor text = model.index(row, CallColumns::StatusColumn).data(Qt::ForegroundRole).value<QColor>();
            QVERIFY2(StatusColours::contrast(text, tint) >= StatusColours::MinimumContrast,
                qPrintable(callStatusName(status)));
            // The tooltip names the status as history and the headless log write it.
            QVERIFY(model.index(row, CallColumns::StatusColumn)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .startsWith(callStatusName(status)));
            // Searchable by its name and its words.
            CallSearch byName;
            byName.words = {callStatusName(status)};
            const CallSearch byLabel = CallSearch::fromText(callStatusLabel(status).toUpper());
            QVERIFY(byName.matches(model.callAt(row)));
            QVERIFY(byLabel.matches(model.callAt(row)));
        }
        QCOMPARE(words.size(), statuses.size());
        QCOMPARE(tints.size(), statuses.size());
    }

    // Failures and calls still running or waiting leave the ring as kept rows above it, in id
    // order, bounded by their own count; everything else leaves as before.
    void keepsFailuresAndWaitingCallsPastTheRing()
    {
        CallLogModel model(10);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates({makeCall(1), makeCall(2, CallStatus::Denied), makeCall(3), makeCall(4, CallStatus::Paused),
            makeCall(5, CallStatus::Running), makeCall(6, CallStatus::Declined), makeCall(7, CallStatus::TimedOut)});
        model.applyUpdates(makeCalls({8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
        QCOMPARE(idsOf(model), (QList<qint64>{2, 4, 5, 7, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
        QCOMPARE(model.keptCount(), 4);
        QCOMPARE(model.droppedCount(), qint64(6)); // 1, 3, 6 (declined is no failure), 8, 9, 10
        QCOMPARE(model.index(0, 0).data(OriginRole).toInt(), int(CallLogModel::Origin::Kept));
        QCOMPARE(model.index(4, 0).data(OriginRole).toInt(), int(CallLogModel::Origin::Live));
        // A kept call's update lands in place.
        model.applyUpdates({makeCall(5, CallStatus::Ok)});
        QCOMPARE(model.index(2, CallColumns::StatusColumn).data(StatusRole).toInt(), int(CallStatus::Ok));
        QVERIFY(model.keptBytes() > 0);

        // Bounded by count: the oldest kept rows leave first.
        QCOMPARE(model.keptCapacity(), 100);
        for (qint64 id = 21; id < 321; id += 30) {
            ToolCallList failures;
            for (qint64 i = id; i < id + 30; ++i)
                failures << makeCall(i, CallStatus::ToolError);
            model.applyUpdates(failures);
        }
        QCOMPARE(model.keptCount(), 100);
        QCOMPARE(model.rowCount(), 110);
        QCOMPARE(model.index(0, 0).data(CallIdRole).toLongLong(), qint64(211));
        QCOMPARE(model.index(109, 0).data(CallIdRole).toLongLong(), qint64(320));
        QVERIFY(!model.indexOfCall(7).isValid());
    }

    void keptRowsAreBoundedByBytes()
    {
        CallLogModel model(4);
        model.setByteBudget(CallLogModel::MinByteBudget);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (qint64 id = 1; id <= 200; ++id) {
            ToolCall call = makeLargeCall(id, 100 * 1024);
            call.status = CallStatus::UpstreamError;
            model.applyUpdates({call});
        }
        QVERIFY(model.keptCount() > 0);
        QVERIFY(model.keptCount() < 100); // the bytes, not the count, bound them
        QVERIFY(model.keptBytes() <= model.keptByteBudget());
        QCOMPARE(model.rowCount(), 4 + model.keptCount());
        QCOMPARE(model.index(model.rowCount() - 1, 0).data(CallIdRole).toLongLong(), qint64(200));
    }

    // History matches go above every row, newest of them last, at most HistoryCapacity; in italics.
    void historyMatchesGoAboveTheLog()
    {
        CallLogModel model(10);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(makeCalls({100, 101, 102}));
        QCOMPARE(model.oldestId(), qint64(100));
        // Newest first, as history answers; a call the log has is not added again.
        QCOMPARE(model.addHistoryMatches(makeCalls({100, 60, 50, 40})), 3);
        QCOMPARE(idsOf(model), (QList<qint64>{40, 50, 60, 100, 101, 102}));
        QCOMPARE(model.historyCount(), 3);
        QCOMPARE(model.originAt(0), CallLogModel::Origin::History);
        QCOMPARE(model.originAt(3), CallLogModel::Origin::Live);
        QVERIFY(model.index(0, 0).data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("From history")));
        QCOMPARE(model.receivedCount(), qint64(3));
        // New calls keep arriving below; the ring's trim leaves history rows alone.
        model.applyUpdates(makeCalls({103, 104, 105, 106, 107, 108, 109, 110, 111}));
        QCOMPARE(model.historyCount(), 3);
        QCOMPARE(model.rowCount(), 13);
        model.clearHistoryMatches();
        QCOMPARE(model.historyCount(), 0);
        QCOMPARE(idsOf(model).first(), qint64(102));

        // At most HistoryCapacity: the newest of them.
        CallLogModel full(10);
        full.applyUpdates(makeCalls({5000}));
        ToolCallList many;
        for (qint64 id = 1; id <= CallLogModel::HistoryCapacity + 50; ++id)
            many << makeCall(id);
        QCOMPARE(full.addHistoryMatches(many), CallLogModel::HistoryCapacity);
        QCOMPARE(full.index(0, 0).data(CallIdRole).toLongLong(), qint64(51));
        QCOMPARE(full.addHistoryMatches(makeCalls({1})), 0);
    }

    // A failure kept past the ring can be far older than the calls that left the ring after it:
    // history matches between them go among the kept rows, in id order, and the kept rows' own
    // trim and the matches' removal leave the other kind where it is.
    void historyMatchesGoAmongKeptRows()
    {
        CallLogModel model(3);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates({makeCall(10, CallStatus::ToolError)});
        model.applyUpdates(makeCalls({20, 21, 22, 23}));
        model.applyUpdates({makeCall(30, CallStatus::ToolError)});
        model.applyUpdates(makeCalls({40, 41, 42}));
        QCOMPARE(idsOf(model), (QList<qint64>{10, 30, 40, 41, 42}));
        QCOMPARE(model.keptCount(), 2);
        // History search starts at the ring, not at the oldest kept row.
        QCOMPARE(model.oldestLiveId(), qint64(40));
        QCOMPARE(model.oldestId(), qint64(10));
        QCOMPARE(model.addHistoryMatches(makeCalls({41, 31, 30, 23, 21, 5})), 4);
        QCOMPARE(idsOf(model), (QList<qint64>{5, 10, 21, 23, 30, 31, 40, 41, 42}));
        QCOMPARE(model.originAt(2), CallLogModel::Origin::History);
        QCOMPARE(model.originAt(4), CallLogModel::Origin::Kept);
        QCOMPARE(model.historyCount(), 4);
        // The ring goes on; a new kept row lands after the history rows, in id order.
        model.applyUpdates({makeCall(50, CallStatus::ToolError), makeCall(51), makeCall(52), makeCall(53)});
        QCOMPARE(idsOf(model), (QList<qint64>{5, 10, 21, 23, 30, 31, 50, 51, 52, 53}));
        QCOMPARE(model.keptCount(), 3);
        // The matches leave, the kept rows stay, bytes and all.
        const qint64 keptBytes = model.keptBytes();
        model.clearHistoryMatches();
        QCOMPARE(idsOf(model), (QList<qint64>{10, 30, 50, 51, 52, 53}));
        QCOMPARE(model.keptBytes(), keptBytes);
        // The kept rows' own trim takes the oldest kept rows and leaves history rows between them.
        model.addHistoryMatches(makeCalls({25, 8}));
        QCOMPARE(idsOf(model), (QList<qint64>{8, 10, 25, 30, 50, 51, 52, 53}));
        ToolCallList failures;
        for (qint64 id = 100; id < 100 + model.keptCapacity(); ++id)
            failures << makeCall(id, CallStatus::ToolError);
        model.applyUpdates(failures);
        model.applyUpdates(makeCalls({1000, 1001, 1002}));
        QCOMPARE(model.keptCount(), model.keptCapacity());
        QCOMPARE(model.historyCount(), 2);
        const QList<qint64> ids = idsOf(model);
        QVERIFY(ids.contains(8) && ids.contains(25));
        QVERIFY(!ids.contains(10) && !ids.contains(30) && !ids.contains(50));
        QVERIFY(std::is_sorted(ids.begin(), ids.end()));
    }

    // A paused view's snapshot: the rows of the moment, their newer states, no new rows.
    void snapshotTakesUpdatesButNoNewRows()
    {
        CallLogModel live(5);
        CallLogModel snapshot(5);
        QAbstractItemModelTester tester(&snapshot, QAbstractItemModelTester::FailureReportingMode::QtTest);
        live.applyUpdates({makeCall(1), makeCall(2, CallStatus::Running), makeCall(3)});
        snapshot.snapshotFrom(live);
        QCOMPARE(idsOf(snapshot), (QList<qint64>{1, 2, 3}));
        live.applyUpdates(makeCalls({4, 5, 6, 7, 8, 9}));
        QCOMPARE(idsOf(snapshot), (QList<qint64>{1, 2, 3}));
        live.applyUpdates({makeCall(2, CallStatus::Ok)});
        const int row = live.indexOfCall(2).row();
        snapshot.refreshFrom(live, row);
        QCOMPARE(snapshot.index(1, 0).data(StatusRole).toInt(), int(CallStatus::Ok));
        snapshot.refreshFrom(live, live.indexOfCall(9).row()); // not in the snapshot: nothing
        QCOMPARE(snapshot.rowCount(), 3);
        QCOMPARE(live.receivedCount(), qint64(9));
    }

    void clearResets()
    {
        CallLogModel model(2);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.applyUpdates(makeCalls({1, 2, 3}));
        QCOMPARE(model.droppedCount(), qint64(1));
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.clear();
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.droppedCount(), qint64(0));
        model.applyUpdates(makeCalls({4}));
        QCOMPARE(idsOf(model), QList<qint64>{4});
    }
};

QTEST_GUILESS_MAIN(TestCallLogModel)
#include "tst_calllogmodel.moc"
