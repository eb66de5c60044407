// HistoryStore: calls survive restarts, searches page through them, a full disk loses nothing.

#include "blockingcall.h"
#include "store/historyfeed.h"
#include "store/historystore.h"

#include <QSemaphore>
#include <QThread>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace {

ToolCall makeCall(qint64 id, CallStatus status = CallStatus::Ok, const QString& tool = QStringLiteral("echo"))
{
    ToolCall call;
    call.id = id;
    call.sessionId = QStringLiteral("s-%1").arg(id % 3);
    call.clientName = id % 2 ? QStringLiteral("claude-code") : QStringLiteral("inspector");
    call.clientVersion = QStringLiteral("1.0");
    call.tool = tool;
    call.route = QStringLiteral("builtin");
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":)"
        + QByteArray::number(id) + "}}}";
    call.response = status == CallStatus::Running ? QByteArray() : QByteArray(R"({"result":{}})");
    call.startedAtMs = 1'700'000'000'000 + id;
    call.durationUs = status == CallStatus::Running ? -1 : 42;
    call.status = status;
    if (status == CallStatus::Error)
        call.error = QStringLiteral("went wrong %1").arg(id);
    return call;
}

ToolCallList answer(HistoryStore& store, quint64 requestId, const std::function<void()>& ask, bool* hasMore = nullptr)
{
    QSignalSpy spy(&store, &HistoryStore::queryFinished);
    ask();
    if (spy.isEmpty() || spy.last().at(0).toULongLong() != requestId)
        return {};
    if (hasMore)
        *hasMore = spy.last().at(2).toBool();
    return spy.last().at(1).value<ToolCallList>();
}

} // namespace

class TestHistoryStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void survivesReopening();
    void updatesReplaceTheRunningRecord();
    void runningCallsAreMarkedInterruptedAfterACrash();
    void loadRecentIsOldestFirst();
    void queryFiltersAndPages_data();
    void queryFiltersAndPages();
    void queryTextIsNotAWildcard();
    void fullDiskKeepsCallsAndRecovers();
    void prunesBeyondMaxCalls();
    void unopenableDatabaseIsAClearError();
    void feedBoundsTheBacklog();
};

void TestHistoryStore::survivesReopening()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        HistoryStore store(path);
        QString error;
        QVERIFY2(store.open(&error), qPrintable(error));
        QCOMPARE(store.lastCallId(), qint64(0));
        store.record({makeCall(1), makeCall(2)});
    }
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    QCOMPARE(store.lastCallId(), qint64(2));
    const auto calls = answer(store, 7, [&] { store.loadRecent(7, 10); });
    QCOMPARE(calls.size(), 2);
    const ToolCall expected = makeCall(2);
    const ToolCall& got = calls.at(1);
    QCOMPARE(got.id, expected.id);
    QCOMPARE(got.sessionId, expected.sessionId);
    QCOMPARE(got.clientName, expected.clientName);
    QCOMPARE(got.clientVersion, expected.clientVersion);
    QCOMPARE(got.tool, expected.tool);
    QCOMPARE(got.route, expected.route);
    QCOMPARE(got.request, expected.request);
    QCOMPARE(got.response, expected.response);
    QCOMPARE(got.startedAtMs, expected.startedAtMs);
    QCOMPARE(got.durationUs, expected.durationUs);
    QCOMPARE(got.status, expected.status);
}

void TestHistoryStore::updatesReplaceTheRunningRecord()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    store.record({makeCall(5, CallStatus::Running)});
    store.record({makeCall(5, CallStatus::Error)});
    const auto calls = answer(store, 1, [&] { store.loadRecent(1, 10); });
    QCOMPARE(calls.size(), 1);
    QCOMPARE(calls.first().status, CallStatus::Error);
    QCOMPARE(calls.first().error, QStringLiteral("went wrong 5"));
}

void TestHistoryStore::runningCallsAreMarkedInterruptedAfterACrash()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        HistoryStore store(path);
        QString error;
        QVERIFY(store.open(&error));
        store.record({makeCall(1, CallStatus::Running), makeCall(2, CallStatus::Ok)});
    }
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    const auto calls = answer(store, 1, [&] { store.loadRecent(1, 10); });
    QCOMPARE(calls.at(0).status, CallStatus::Error);
    QVERIFY(calls.at(0).error.startsWith(QStringLiteral("interrupted")));
    QCOMPARE(calls.at(1).status, CallStatus::Ok);
}

void TestHistoryStore::loadRecentIsOldestFirst()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 30; ++i)
        calls << makeCall(i);
    store.record(calls);
    bool hasMore = false;
    const auto recent = answer(
        store, 3, [&] { store.loadRecent(3, 10); }, &hasMore);
    QCOMPARE(recent.size(), 10);
    QCOMPARE(recent.first().id, qint64(21));
    QCOMPARE(recent.last().id, qint64(30));
    QVERIFY(hasMore);
}

void TestHistoryStore::queryFiltersAndPages_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("status"); // -1: any
    QTest::addColumn<qint64>("beforeId");
    QTest::addColumn<int>("limit");
    QTest::addColumn<QList<qint64>>("ids");
    QTest::addColumn<bool>("hasMore");

    QTest::newRow("newest page") << QString() << -1 << qint64(0) << 3 << QList<qint64>{20, 19, 18} << true;
    QTest::newRow("next page") << QString() << -1 << qint64(18) << 3 << QList<qint64>{17, 16, 15} << true;
    QTest::newRow("last page") << QString() << -1 << qint64(3) << 5 << QList<qint64>{2, 1} << false;
    QTest::newRow("by status") << QString() << int(CallStatus::Error) << qint64(0) << 100
                               << QList<qint64>{20, 15, 10, 5} << false;
    QTest::newRow("by client") << QStringLiteral("inspector") << -1 << qint64(0) << 3 << QList<qint64>{20, 18, 16}
                               << true;
    QTest::newRow("by tool") << QStringLiteral("git_log") << -1 << qint64(0) << 100 << QList<qint64>{14, 7} << false;
    QTest::newRow("by error text") << QStringLiteral("wrong 15") << -1 << qint64(0) << 100 << QList<qint64>{15}
                                   << false;
    QTest::newRow("by argument in request")
        << QStringLiteral("\"n\":13}") << -1 << qint64(0) << 100 << QList<qint64>{13} << false;
    QTest::newRow("text and status") << QStringLiteral("claude") << int(CallStatus::Error) << qint64(0) << 100
                                     << QList<qint64>{15, 5} << false;
    QTest::newRow("nothing") << QStringLiteral("zebra") << -1 << qint64(0) << 100 << QList<qint64>{} << false;
}

void TestHistoryStore::queryFiltersAndPages()
{
    QFETCH(QString, text);
    QFETCH(int, status);
    QFETCH(qint64, beforeId);
    QFETCH(int, limit);
    QFETCH(QList<qint64>, ids);
    QFETCH(bool, hasMore);

    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 20; ++i)
        calls << makeCall(i, i % 5 == 0 ? CallStatus::Error : CallStatus::Ok,
            i % 7 == 0 ? QStringLiteral("git_log") : QStringLiteral("echo"));
    store.record(calls);

    HistoryQuery query;
    query.text = text;
    if (status >= 0)
        query.status = CallStatus(status);
    query.beforeId = beforeId;
    query.limit = limit;
    bool more = false;
    const auto found = answer(
        store, 9, [&] { store.query(9, query); }, &more);
    QList<qint64> foundIds;
    for (const auto& call : found)
        foundIds << call.id;
    QCOMPARE(foundIds, ids);
    QCOMPARE(more, hasMore);
}

void TestHistoryStore::queryTextIsNotAWildcard()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    store.record({makeCall(1), makeCall(2, CallStatus::Ok, QStringLiteral("a_b")),
        makeCall(3, CallStatus::Ok, QStringLiteral("100%"))});
    HistoryQuery query;
    query.text = QStringLiteral("%");
    QCOMPARE(answer(store, 1, [&] { store.query(1, query); }).size(), 1);
    query.text = QStringLiteral("_");
    QCOMPARE(answer(store, 2, [&] { store.query(2, query); }).size(), 1);
}

void TestHistoryStore::fullDiskKeepsCallsAndRecovers()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    store.record({makeCall(1)});
    QVERIFY(store.limitDatabasePages(1)); // far smaller than the file already is: every write fails

    QSignalSpy failed(&store, &HistoryStore::writeFailed);
    QSignalSpy recovered(&store, &HistoryStore::writeRecovered);
    ToolCallList big;
    for (int i = 2; i <= 200; ++i) {
        ToolCall call = makeCall(i);
        call.response = QByteArray(2000, 'r');
        big << call;
    }
    store.record(big);
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("full")),
        qPrintable(failed.first().first().toString()));
    store.record({makeCall(201)}); // queued behind the failure, not a second warning
    QCOMPARE(failed.size(), 1);

    QVERIFY(store.limitDatabasePages(0));
    QVERIFY(recovered.wait(HistoryStore::RetryIntervalMs * 3));
    const auto calls = answer(store, 1, [&] { store.loadRecent(1, 1000); });
    QCOMPARE(calls.size(), 201);
    QCOMPARE(calls.last().id, qint64(201));
}

void TestHistoryStore::prunesBeyondMaxCalls()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    store.setMaxCalls(1000);
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 12'000; ++i)
        calls << makeCall(i);
    store.record(calls);
    bool hasMore = true;
    const auto all = answer(
        store, 1, [&] { store.loadRecent(1, 100'000); }, &hasMore);
    QVERIFY(!hasMore);
    QCOMPARE(all.size(), 1000);
    QCOMPARE(all.first().id, qint64(11'001));
}

void TestHistoryStore::unopenableDatabaseIsAClearError()
{
    QTemporaryDir dir;
    // A directory where the database file should be.
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("h.sqlite")));
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(!store.open(&error));
    QVERIFY2(error.contains(QStringLiteral("h.sqlite")), qPrintable(error));
}

void TestHistoryStore::feedBoundsTheBacklog()
{
    QTemporaryDir dir;
    QThread thread;
    auto* store = new HistoryStore(dir.filePath(QStringLiteral("h.sqlite")));
    store->moveToThread(&thread);
    thread.start();
    bool opened = false;
    QString error;
    runBlocking(store, [&] { opened = store->open(&error); });
    QVERIFY(opened);

    // Hold the store's thread, as a saturated machine would.
    QSemaphore gate;
    QMetaObject::invokeMethod(store, [&gate] { gate.acquire(); });
    HistoryFeed feed(store, 100);
    QSignalSpy behind(&feed, &HistoryFeed::fellBehind);
    QSignalSpy caughtUp(&feed, &HistoryFeed::caughtUp);
    qint64 id = 0;
    auto batch = [&id](int size) {
        ToolCallList calls;
        for (int i = 0; i < size; ++i)
            calls << makeCall(++id);
        return calls;
    };
    feed.feed(batch(60));
    feed.feed(batch(30));
    QCOMPARE(feed.backlog(), qint64(90));
    feed.feed(batch(20)); // would exceed 100: left out
    feed.feed(batch(20));
    QCOMPARE(behind.size(), 1);
    QCOMPARE(feed.leftOut(), qint64(40));
    QCOMPARE(feed.backlog(), qint64(90));

    gate.release();
    QTRY_COMPARE_WITH_TIMEOUT(feed.backlog(), qint64(0), 10'000);
    feed.feed(batch(5));
    QCOMPARE(caughtUp.size(), 1);
    QVERIFY(caughtUp.first().first().toString().contains(QStringLiteral("40 calls")));
    QTRY_COMPARE_WITH_TIMEOUT(feed.backlog(), qint64(0), 10'000);

    ToolCallList stored;
    runBlocking(store, [&] { stored = answer(*store, 1, [&] { store->loadRecent(1, 1000); }); });
    QCOMPARE(stored.size(), 95);
    runBlocking(store, [store] { delete store; });
    thread.quit();
    thread.wait();
}

QTEST_GUILESS_MAIN(TestHistoryStore)
#include "tst_historystore.moc"
