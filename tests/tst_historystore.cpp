// HistoryStore and HistoryWriter: calls survive restarts, searches page through them, a busy
// writer holds calls back rather than lose them, a failing disk loses nothing it can keep and counts
// exactly what it cannot, and everything on disk is owner-only.

#include "store/callidsource.h"
#include "store/historystore.h"
#include "store/historywriter.h"
#include "store/sqlitehistory.h"

#include <QDir>
#include <QFileInfo>
#include <QSemaphore>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

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
    call.route = ToolRoute::builtin();
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

void write(HistoryStore& store, const ToolCallList& calls)
{
    QString error;
    QVERIFY2(store.write(calls, 0, &error), qPrintable(error));
}

int modeOf(const QString& path)
{
    struct stat info = {};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? int(info.st_mode & 07777) : -1;
}

// What a fresh connection (as after a restart) finds in the database.
ToolCallList storedCalls(const QString& path, qint64* leftOut = nullptr)
{
    HistoryStore store(path);
    QString error;
    if (!store.open(&error, HistoryStore::Role::Reader))
        return {};
    if (leftOut)
        *leftOut = store.callsLeftOut();
    return answer(store, 1, [&] { store.loadRecent(1, 1'000'000); });
}

// A writer's signals, counted on the test's thread (the writer emits them on its own).
struct WriterSignals : QObject
{
    explicit WriterSignals(HistoryWriter* writer)
    {
        connect(writer, &HistoryWriter::writeFailed, this, [this](const QString& error) { failed << error; });
        connect(writer, &HistoryWriter::writeRecovered, this, [this] { ++recovered; });
        connect(writer, &HistoryWriter::callsLeftOutChanged, this, [this](qint64 total) { leftOut << total; });
        connect(writer, &HistoryWriter::roomAvailable, this, [this] { ++room; });
    }
    QStringList failed;
    int recovered = 0;
    QList<qint64> leftOut;
    int room = 0;
};

// While set, chmod(2) of a -wal or -shm file in this process removes the file first, as another
// process's last connection may at any moment (see ownerOnlyModesDoNotDependOnFilesOthersRemove).
std::atomic<bool> removeBeforeChmod = false;

} // namespace

// Defined here, it stands in for the C library's for this process (Qt's calls included), and calls it.
extern "C" int chmod(const char* path, mode_t mode)
{
    using Chmod = int (*)(const char*, mode_t);
    static const Chmod real = reinterpret_cast<Chmod>(::dlsym(RTLD_NEXT, "chmod"));
    const std::size_t length = std::strlen(path);
    if (removeBeforeChmod && length > 4
        && (std::strcmp(path + length - 4, "-shm") == 0 || std::strcmp(path + length - 4, "-wal") == 0))
        ::unlink(path);
    return real(path, mode);
}

class TestHistoryStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void breakerTransitionsAreKeptBesideTheCalls();
    void survivesReopening();
    void updatesReplaceTheRunningRecord();
    void runningCallsAreMarkedInterruptedAfterACrash();
    void runningCallsOfAWriterThatRunsAreLeftRunning();
    void ownerOnlyModesDoNotDependOnFilesOthersRemove();
    void largeCallsAreKeptInPart();
    void historyIsBoundedInBytes();
    void everyStatusRoundTripsAndOldNamesStillLoad();
    void loadRecentIsOldestFirst();
    void previewsAreCutInSqliteAndKeepTheWholeSizes();
    void detailsAreKeptAndAnOlderHistoryGainsThem();
    void queryFiltersAndPages_data();
    void queryFiltersAndPages();
    void searchFindsWhatTheLogsFilterShows();
    void queryTextIsNotAWildcard();
    void queryByCallId();
    void prunesBeyondMaxCalls();
    void unopenableDatabaseIsAClearError();
    void readerDoesNotBlockWrites();
    void writerRunsAtNormalPriority();
    void busyWriterHoldsCallsBackAndLosesNone();
    void writerMergesRecordsOfOneCall();
    void failingDiskLeavesOutExactlyTheCallsBeyondTheBound();
    void filesAreOwnerOnlyWhateverTheUmask();
    void prunesByCountWhenIdsHaveGaps();
    void writersSharingAHistoryNeverShareAnId();
    void callIdSourceReservesAheadAndAcrossRestarts();
};

// Breaker transitions are kept beside the calls: across a restart, per adapter, oldest first, and
// only the newest MaxTransitions.
void TestHistoryStore::breakerTransitionsAreKeptBesideTheCalls()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    const BreakerTransitionRecord opened{
        QStringLiteral("fs"), BreakerPhase::Closed, BreakerPhase::Open, QStringLiteral("5 failures"), 1000, 41};
    const BreakerTransitionRecord probing{
        QStringLiteral("fs"), BreakerPhase::Open, BreakerPhase::HalfOpen, QStringLiteral("recovery"), 2000, 0};
    const BreakerTransitionRecord other{
        QStringLiteral("db"), BreakerPhase::Closed, BreakerPhase::Open, QStringLiteral("forced"), 1500, 0};
    {
        HistoryWriter writer(path, 1000);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        writer.recordTransition(opened);
        writer.recordTransition(other);
        writer.recordTransition(probing);
        writer.stop(); // everything handed over is written before the thread ends
    }
    HistoryWriter writer(path, 1000);
    QString error;
    QVERIFY2(writer.start(&error), qPrintable(error));
    BreakerTransitionList fs;
    BreakerTransitionList all;
    QVERIFY(writer.runOnWriterThread([&](HistoryDatabase& database) {
        fs = database.loadTransitions(QStringLiteral("fs"), 10);
        all = database.loadTransitions(QString(), 2);
    }));
    QCOMPARE(fs, (BreakerTransitionList{opened, probing}));
    QCOMPARE(all, (BreakerTransitionList{other, probing}));

    // Pruned to the newest MaxTransitions.
    BreakerTransitionList many;
    for (qint64 i = 0; i < HistoryDatabase::MaxTransitions + 5; ++i)
        many.append(BreakerTransitionRecord{
            QStringLiteral("flappy"), BreakerPhase::Closed, BreakerPhase::Open, QStringLiteral("n"), i, i});
    bool written = false;
    QVERIFY(writer.runOnWriterThread([&](HistoryDatabase& database) {
        written = database.writeTransitions(many, &error);
        all = database.loadTransitions(QString(), int(HistoryDatabase::MaxTransitions) + 100);
    }));
    QVERIFY2(written, qPrintable(error));
    QCOMPARE(all.size(), qsizetype(HistoryDatabase::MaxTransitions));
    QCOMPARE(all.last().atMs, HistoryDatabase::MaxTransitions + 4);
}

void TestHistoryStore::survivesReopening()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        HistoryStore store(path);
        QString error;
        QVERIFY2(store.open(&error), qPrintable(error));
        write(store, {makeCall(1), makeCall(2)});
    }
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    // New ids start after every id written.
    qint64 first = 0;
    QVERIFY2(store.database().reserveCallIds(10, &first, &error), qPrintable(error));
    QCOMPARE(first, qint64(3));
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
    write(store, {makeCall(5, CallStatus::Running)});
    write(store, {makeCall(5, CallStatus::Error)});
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
        write(store, {makeCall(1, CallStatus::Running), makeCall(2, CallStatus::Ok)});
    }
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    const auto calls = answer(store, 1, [&] { store.loadRecent(1, 10); });
    QCOMPARE(calls.at(0).status, CallStatus::Error);
    QVERIFY(calls.at(0).error.startsWith(QStringLiteral("interrupted")));
    QCOMPARE(calls.at(1).status, CallStatus::Ok);
}

// Processes sharing one history (the console, runners, a second console) each run their calls: a
// writer that opens must not mark another's running calls interrupted, only those of writers that
// are gone (and rows of versions before writer ids).
void TestHistoryStore::runningCallsOfAWriterThatRunsAreLeftRunning()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    const auto statusOf = [&](qint64 id) {
        for (const ToolCall& call : storedCalls(path)) {
            if (call.id == id)
                return call.status;
        }
        return CallStatus::Cancelled; // not there
    };
    auto first = std::make_unique<HistoryStore>(path);
    QString error;
    QVERIFY2(first->open(&error), qPrintable(error));
    write(*first, {makeCall(1, CallStatus::Running)});
    {
        // A row a version before writer ids left running: its writer is gone for sure.
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("legacy"));
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY(q.exec(QStringLiteral("INSERT INTO calls (id, tool, status, started_at, duration_us) VALUES (2, 'old', "
                                      "'running', 0, -1)")));
        q.finish();
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("legacy"));

    {
        HistoryStore second(path);
        QVERIFY2(second.open(&error), qPrintable(error));
        write(second, {makeCall(3, CallStatus::Running)});
    }
    QCOMPARE(statusOf(1), CallStatus::Running); // its writer still runs
    QCOMPARE(statusOf(2), CallStatus::Error); // a writer from before writer ids: gone

    // The second writer ended with its call running; the first still runs.
    {
        HistoryStore third(path);
        QVERIFY2(third.open(&error), qPrintable(error));
    }
    QCOMPARE(statusOf(1), CallStatus::Running);
    QCOMPARE(statusOf(3), CallStatus::Error);

    first.reset();
    HistoryStore fourth(path);
    QVERIFY2(fourth.open(&error), qPrintable(error));
    QCOMPARE(statusOf(1), CallStatus::Error);
    // Only the writer that is open keeps a lock file; the others' are gone.
    QCOMPARE(QDir(path + QStringLiteral("-writers")).entryList(QDir::Files).size(), 1);
}

// Another process's last connection removes the -wal and -shm files whenever it closes; making them
// owner-only must not fail because one vanished between being seen and being changed (one call in a
// thousand of 50 runners started at once on a new state directory failed so, exit 3). The other
// process is played by chmod(2) itself (removeBeforeChmod), which removes such a file right before
// changing it: the worst moment, every time.
void TestHistoryStore::ownerOnlyModesDoNotDependOnFilesOthersRemove()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    QString error;
    QVERIFY2(SqliteHistory::makeOwnerOnly(path, &error), qPrintable(error));
    for (const QString& name : QStringList{path + QStringLiteral("-wal"), path + QStringLiteral("-shm")}) {
        // As an older version left them: readable by others.
        const int fd = ::open(QFile::encodeName(name).constData(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        ::fchmod(fd, 0644);
        ::close(fd);
    }
    removeBeforeChmod = true;
    const bool made = SqliteHistory::makeOwnerOnly(path, &error);
    removeBeforeChmod = false;
    QVERIFY2(made, qPrintable(error));
    QVERIFY(!QFile::exists(path + QStringLiteral("-shm")));
    QCOMPARE(modeOf(path), 0600);

    // A history that opens meanwhile still gets owner-only files (SQLite makes -wal and -shm with
    // the database's mode).
    {
        HistoryStore store(path);
        QVERIFY2(store.open(&error), qPrintable(error));
        write(store, {makeCall(1)});
        QCOMPARE(modeOf(path + QStringLiteral("-wal")), 0600);
        QCOMPARE(modeOf(path + QStringLiteral("-shm")), 0600);
    }
}

// History keeps at most MaxStoredBodyBytes of each body (one 4 MiB echo kept 12.6 MB before): the
// start of the request and response, the details with their long strings cut, and the whole sizes,
// read back as a preview's are.
void TestHistoryStore::largeCallsAreKeptInPart()
{
    constexpr qsizetype Max = HistoryWriter::MaxStoredBodyBytes;
    ToolCall call = makeCall(7);
    const QByteArray text(4 * 1024 * 1024, 'x');
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":")"
        + text + "\"}}}";
    // A character of two bytes across the cut: it is not split.
    call.response = QByteArray(Max - 1, 'r') + "\xc3\xa9" + QByteArray(4 * 1024 * 1024, 'r');
    call.details = QByteArray(R"({"exit":"exit status 0","pid":42,"stdout":")") + text + R"(","stderr":""})";

    const ToolCall kept = HistoryWriter::keptPart(call);
    QCOMPARE(kept.request, call.request.left(Max));
    QCOMPARE(kept.response, call.response.left(Max - 1));
    QCOMPARE(kept.wholeRequestBytes, call.request.size());
    QCOMPARE(kept.wholeResponseBytes, call.response.size());
    QVERIFY(kept.details.size() <= Max);
    const auto details = nlohmann::json::parse(kept.details.toStdString(), nullptr, false);
    QVERIFY2(details.is_object(), kept.details.left(200).constData());
    QCOMPARE(details.value("exit", std::string()), std::string("exit status 0"));
    QCOMPARE(details.value("pid", 0), 42);
    QVERIFY(details.value("stdout", std::string()).rfind(std::string(1000, 'x'), 0) == 0);
    QVERIFY(details.value("stdout", std::string()).find("history keeps the first") != std::string::npos);

    // Details too many to cut string by string: an object saying so, with the start of their text.
    nlohmann::json many = nlohmann::json::object();
    for (int i = 0; i < 60'000; ++i)
        many["k" + std::to_string(i)] = i;
    call.details = QByteArray::fromStdString(many.dump());
    const ToolCall standIn = HistoryWriter::keptPart(call);
    QVERIFY(standIn.details.size() <= Max);
    const auto cut = nlohmann::json::parse(standIn.details.toStdString(), nullptr, false);
    QVERIFY2(cut.is_object() && cut.contains("cut") && cut.contains("start"), standIn.details.left(300).constData());

    // A small call is kept whole and says nothing.
    const ToolCall small = HistoryWriter::keptPart(makeCall(8));
    QVERIFY(!small.hasBodyPreviews());

    // Stored and read back: the kept start, and the whole sizes, whole or as a preview.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        HistoryWriter writer(path, 1000);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        writer.record(call);
        writer.record(makeCall(8));
        writer.stop();
    }
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error, HistoryStore::Role::Reader));
    HistoryQuery byId;
    byId.callId = 7;
    ToolCallList read = answer(store, 1, [&] { store.query(1, byId); });
    QCOMPARE(read.size(), 1);
    QCOMPARE(read.first().request, kept.request);
    QCOMPARE(read.first().wholeRequestBytes, call.request.size());
    QCOMPARE(read.first().wholeResponseBytes, call.response.size());
    byId.bodyPreviewBytes = 4096;
    read = answer(store, 2, [&] { store.query(2, byId); });
    QCOMPARE(read.first().request.size(), 4096);
    QCOMPARE(read.first().wholeRequestBytes, call.request.size());
    QCOMPARE(read.first().wholeResponseBytes, call.response.size());
    byId.callId = 8;
    byId.bodyPreviewBytes = 0;
    read = answer(store, 3, [&] { store.query(3, byId); });
    QCOMPARE(read.first().wholeRequestBytes, qint64(-1));
    // The database holds the kept part, not the call.
    QVERIFY2(QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size() < 2 * 1024 * 1024,
        qPrintable(QString::number(QFileInfo(path).size())));
}

// Beyond history.maxBytes the oldest calls go, counted by what their rows hold.
void TestHistoryStore::historyIsBoundedInBytes()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    constexpr qint64 MaxBytes = qint64(16) << 20;
    qint64 prunedTold = 0;
    {
        HistoryWriter writer(path, 1'000'000);
        writer.setMaxBytes(MaxBytes);
        QSignalSpy pruned(&writer, &HistoryWriter::callsPruned);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        for (int i = 1; i <= 120; ++i) {
            ToolCall call = makeCall(i);
            call.response = QByteArray(500 * 1024, char('a' + i % 26));
            writer.record(call);
        }
        writer.stop();
        QTRY_VERIFY(!pruned.isEmpty()); // queued from the writer's thread
        prunedTold = pruned.last().at(0).toLongLong();
    }
    const ToolCallList calls = storedCalls(path);
    // The writer told how many went: every call not kept.
    QCOMPARE(prunedTold, 120 - calls.size());
    QVERIFY(!calls.isEmpty());
    qint64 held = 0;
    for (const ToolCall& call : calls)
        held += call.request.size() + call.response.size();
    QVERIFY2(held <= MaxBytes, qPrintable(QString::number(held)));
    QVERIFY2(calls.size() >= 20, qPrintable(QString::number(calls.size()))); // pruned to three quarters, not to nothing
    QCOMPARE(calls.last().id, 120); // the newest stay
    QVERIFY(calls.first().id > 1);
    // The file itself stays near the bound (freed pages are used again).
    QVERIFY2(QFileInfo(path).size() < 2 * MaxBytes, qPrintable(QString::number(QFileInfo(path).size())));
}

// Every status is stored by its name and read back as itself, and filtered on; rows an older
// version wrote still load: "error" as Error, a "paused" row with a duration (a call that stopped
// waiting, before "parked" existed) as Parked, a name no version knows as Error.
void TestHistoryStore::everyStatusRoundTripsAndOldNamesStillLoad()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (const CallStatus status : allCallStatuses()) {
        calls.append(makeCall(int(status) + 1, status));
        if (!calls.last().isFinished())
            calls.last().durationUs = -1; // as a running or waiting call's record has
    }
    write(store, calls);
    const auto loaded = answer(store, 1, [&] { store.loadRecent(1, 100); });
    QCOMPARE(loaded.size(), calls.size());
    for (const ToolCall& call : loaded)
        QCOMPARE(call.status, CallStatus(call.id - 1));
    HistoryQuery byStatus;
    byStatus.search.statuses = {CallStatus::UpstreamError};
    const auto upstream = answer(store, 2, [&] { store.query(2, byStatus); });
    QCOMPARE(upstream.size(), 1);
    QCOMPARE(upstream.first().status, CallStatus::UpstreamError);

    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("old-rows"));
        database.setDatabaseName(path);
        QVERIFY(database.open());
        QSqlQuery insert(database);
        QVERIFY(insert.exec(QStringLiteral("INSERT INTO calls (id, tool, route, request, response, error, started_at, "
                                           "duration_us, status) VALUES (50, 'a', 'builtin', '', '', 'old', 1, 10, "
                                           "'error'), (51, 'b', 'client', '', '', 'left', 2, 20, 'paused'), (52, 'c', "
                                           "'client', '', '', '', 3, -1, 'paused'), (53, 'd', 'builtin', '', '', '', "
                                           "4, 5, 'exploded')")));
        database.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("old-rows"));
    const auto old = answer(store, 3, [&] { store.loadRecent(3, 100); });
    QMap<QString, CallStatus> byTool;
    for (const ToolCall& call : old)
        byTool.insert(call.tool, call.status);
    QCOMPARE(byTool.value(QStringLiteral("a")), CallStatus::Error);
    QCOMPARE(byTool.value(QStringLiteral("b")), CallStatus::Parked);
    QCOMPARE(byTool.value(QStringLiteral("c")), CallStatus::Paused); // still waiting: no duration yet
    QCOMPARE(byTool.value(QStringLiteral("d")), CallStatus::Error);
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
    write(store, calls);
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
    write(store, calls);

    HistoryQuery query;
    query.search.words = CallSearch::wordsOf(text);
    if (status >= 0)
        query.search.statuses = {CallStatus(status)};
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

// One definition of a match: for every search, history finds exactly the calls CallSearch::matches
// (which the live log's filter uses), field by field, case and status words included.
void TestHistoryStore::searchFindsWhatTheLogsFilterShows()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    const QList<CallStatus> statuses = allCallStatuses();
    ToolCallList calls;
    for (int i = 1; i <= 60; ++i) {
        ToolCall call = makeCall(i, statuses.at(i % statuses.size()),
            i % 4 == 0 ? QStringLiteral("debug.progress")
                       : (i % 4 == 1 ? QStringLiteral("git_log") : QStringLiteral("echo")));
        if (i % 5 == 0)
            call.route = ToolRoute{RouteKind::Adapter, i % 10 == 0 ? QStringLiteral("github") : QStringLiteral("git")};
        if (i % 7 == 0)
            call.error = QStringLiteral("Upstream said NO to %1").arg(i);
        if (call.status == CallStatus::Paused && i % 2 == 0)
            call.durationUs = -1; // still waiting; the odd ones read back as parked
        if (i % 6 == 0)
            call.clientName = QStringLiteral("Claude Desktop");
        if (i % 11 == 0)
            call.clientName = QStringLiteral("inspector-dev");
        calls << call;
    }
    write(store, calls);
    // What history holds, read back: the calls as any search returns them.
    HistoryQuery all;
    all.limit = 1000;
    const ToolCallList stored = answer(store, 1, [&] { store.query(1, all); });
    QCOMPARE(stored.size(), calls.size());

    // A search as the filter field and the status and adapter choices make it.
    const auto searchOf = [](const QString& text, const QList<CallStatus>& chosen = {}, const QString& adapter = {}) {
        CallSearch search = CallSearch::fromText(text);
        search.statuses = chosen;
        search.adapter = adapter;
        return search;
    };
    const QList<CallSearch> searches = {
        searchOf(QStringLiteral("debug.progress")),
        searchOf(QStringLiteral("DEBUG.Progress claude")),
        searchOf(QStringLiteral("inspector 1.0")),
        searchOf(QStringLiteral("timed")), // a status's label
        searchOf(QStringLiteral("timed_out")), // its name
        searchOf(QStringLiteral("parked")),
        searchOf(QStringLiteral("waiting")),
        searchOf(QStringLiteral("adapter:git")),
        searchOf({}, {}, QStringLiteral("git")), // the route, not a text match: not github
        searchOf(QStringLiteral("no"), {CallStatus::Ok, CallStatus::UpstreamError, CallStatus::Parked}),
        searchOf(QStringLiteral("\"n\":13}")), // arguments, quotes and all
        searchOf(QStringLiteral("s-2 echo"), {CallStatus::Paused}),
        searchOf({}, {CallStatus::Paused}),
        searchOf({}, {CallStatus::Parked}),
        // A tool or client whole: not git_log for "git", not the inspector for "inspect".
        searchOf(QStringLiteral("tool:echo")),
        searchOf(QStringLiteral("tool:GIT_LOG")),
        searchOf(QStringLiteral("tool:git")),
        searchOf(QStringLiteral("tool:debug_progress")), // _ is no wildcard
        searchOf(QStringLiteral("client:inspect")),
        searchOf(QStringLiteral("client:\"Claude Desktop\" echo")),
        searchOf(QStringLiteral("client:%")), // nor is %
        searchOf(QStringLiteral("tool:echo client:inspector"), {CallStatus::Ok}),
    };
    // These find some calls and leave out others (the comparison below would hold for nothing too).
    const QList<int> telling = {0, 14, 15, 19, 21};
    quint64 request = 2;
    for (const CallSearch& search : searches) {
        QList<qint64> expected;
        for (const ToolCall& call : stored) {
            if (search.matches(call))
                expected << call.id;
        }
        if (telling.contains(int(request - 2)))
            QVERIFY2(!expected.isEmpty() && expected.size() < stored.size(), qPrintable(QString::number(request - 2)));
        HistoryQuery query;
        query.search = search;
        query.limit = 1000;
        const quint64 id = request++;
        QList<qint64> found;
        for (const ToolCall& call : answer(store, id, [&] { store.query(id, query); }))
            found << call.id;
        QVERIFY2(found == expected,
            qPrintable(search.words.join(QLatin1Char(' ')) + QStringLiteral(" / ") + search.adapter
                + QStringLiteral(" / tools ") + search.tools.join(QLatin1Char(',')) + QStringLiteral(" / clients ")
                + search.clients.join(QLatin1Char(','))
                + QStringLiteral(": found %1, the filter shows %2").arg(found.size()).arg(expected.size())));
    }
}

void TestHistoryStore::previewsAreCutInSqliteAndKeepTheWholeSizes()
{
    // A page of large calls costs a page of previews: the bodies are cut before they leave SQLite,
    // and each cut call says how long its bodies are.
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 4; ++i)
        calls << makeCall(i);
    calls[1].request = QByteArray(3 * 1024 * 1024, 'q');
    calls[2].response = QByteArray(2 * 1024 * 1024, 'r');
    write(store, calls);

    constexpr qsizetype preview = 4096;
    const auto check = [&](const ToolCallList& found) {
        QCOMPARE(found.size(), 4);
        for (const ToolCall& call : found) {
            const ToolCall& stored = calls.at(call.id - 1);
            QCOMPARE(call.request, stored.request.left(preview));
            QCOMPARE(call.response, stored.response.left(preview));
            if (stored.request.size() > preview || stored.response.size() > preview) {
                QVERIFY(call.hasBodyPreviews());
                QCOMPARE(call.wholeRequestBytes, stored.request.size());
                QCOMPARE(call.wholeResponseBytes, stored.response.size());
            } else {
                QVERIFY(!call.hasBodyPreviews()); // small calls come whole, as they are
                QCOMPARE(call.wholeRequestBytes, qint64(-1));
            }
            QCOMPARE(call.tool, stored.tool);
            QCOMPARE(call.status, stored.status);
        }
    };
    HistoryQuery query;
    query.bodyPreviewBytes = preview;
    check(answer(store, 2, [&] { store.query(2, query); }));
    check(answer(store, 3, [&] { store.loadRecent(3, 10, preview); }));
    // Without a preview size, the bodies come whole.
    const auto whole = answer(store, 4, [&] { store.loadRecent(4, 10); });
    QCOMPARE(whole.size(), 4);
    QCOMPARE(whole.at(1).request.size(), calls.at(1).request.size());
    QVERIFY(!whole.at(1).hasBodyPreviews());
}

// A call's details are kept whole; a preview brings them only when they fit (a cut would break
// their JSON) and otherwise says the call is cut. A history written before calls had details
// gains the column when opened, its calls without details.
void TestHistoryStore::detailsAreKeptAndAnOlderHistoryGainsThem()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        QSqlDatabase old = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("old-history"));
        old.setDatabaseName(path);
        QVERIFY(old.open());
        QSqlQuery q(old);
        QVERIFY(q.exec(QStringLiteral("CREATE TABLE calls (id INTEGER PRIMARY KEY, session TEXT, client_name TEXT, "
                                      "client_version TEXT, tool TEXT, route TEXT, request BLOB, response BLOB, "
                                      "error TEXT, started_at INTEGER, duration_us INTEGER, status TEXT)")));
        QVERIFY(q.exec(QStringLiteral("INSERT INTO calls VALUES (1, 's', 'c', '1', 'echo', 'builtin', '{}', '{}', "
                                      "'', 1700000000000, 5, 'ok')")));
        q.finish();
        old.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("old-history"));

    HistoryStore store(path);
    QString error;
    QVERIFY2(store.open(&error), qPrintable(error));
    ToolCall small = makeCall(2);
    small.route = ToolRoute::command();
    small.details = R"({"exit":"exit status 0","stdout":"{}\n"})";
    ToolCall large = makeCall(3);
    large.details = R"({"stdout":")" + QByteArray(10'000, 'x') + R"("})";
    // The columns added after details (decision, replayOf, timeline) come back as written.
    small.decision = R"({"by":"ada","answer":"allow_once"})";
    small.replayOf = 1;
    small.durationUs = 21'003'000;
    small.waitedUs = 21'000'000; // and the time it waited for a person, apart from its running time
    small.timeline = R"([{"atMs":5,"method":"notifications/progress","params":{"progress":1}}])";
    large.timeline
        = R"([{"atMs":5,"method":"notifications/message","params":{"data":")" + QByteArray(10'000, 'y') + R"("}}])";
    write(store, {small, large});

    const ToolCallList whole = answer(store, 1, [&] { store.loadRecent(1, 10); });
    QCOMPARE(whole.size(), 3);
    QVERIFY(whole.at(0).details.isEmpty());
    QCOMPARE(whole.at(1).details, small.details);
    QCOMPARE(whole.at(1).route, ToolRoute::command());
    QCOMPARE(whole.at(2).details, large.details);
    QVERIFY(whole.at(0).decision.isEmpty());
    QCOMPARE(whole.at(0).replayOf, qint64(0));
    QCOMPARE(whole.at(1).decision, small.decision);
    QCOMPARE(whole.at(1).replayOf, qint64(1));
    QCOMPARE(whole.at(1).timeline, small.timeline);
    QCOMPARE(whole.at(2).timeline, large.timeline);
    QCOMPARE(whole.at(0).waitedUs, qint64(0)); // a row of a version before it waited for no one
    QCOMPARE(whole.at(1).waitedUs, small.waitedUs);
    QCOMPARE(whole.at(1).ranUs(), qint64(3'000));
    QCOMPARE(whole.at(2).waitedUs, qint64(0));

    const ToolCallList previews = answer(store, 2, [&] { store.loadRecent(2, 10, 4096); });
    QCOMPARE(previews.size(), 3);
    QCOMPARE(previews.at(1).details, small.details);
    QVERIFY(!previews.at(1).hasBodyPreviews());
    QVERIFY(previews.at(2).details.isEmpty());
    QVERIFY(previews.at(2).hasBodyPreviews());
    QCOMPARE(previews.at(1).timeline, small.timeline);
    QCOMPARE(previews.at(1).decision, small.decision);
    QVERIFY(previews.at(2).timeline.isEmpty());
    QCOMPARE(previews.at(1).waitedUs, small.waitedUs);
    QVERIFY(previews.at(2).hasBodyPreviews());
}

void TestHistoryStore::queryByCallId()
{
    // The inspector's whole call behind a live-log preview: one call by id, bodies complete.
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 5; ++i)
        calls << makeCall(i, CallStatus::Ok, QStringLiteral("echo"));
    calls[2].response = QByteArray(1024 * 1024, 'r');
    write(store, calls);

    HistoryQuery query;
    query.callId = 3;
    query.limit = 1;
    bool more = true;
    const auto found = answer(
        store, 4, [&] { store.query(4, query); }, &more);
    QCOMPARE(found.size(), 1);
    QCOMPARE(found.first().id, qint64(3));
    QCOMPARE(found.first().response, calls.at(2).response);
    QVERIFY(!more);

    query.callId = 99;
    QVERIFY(answer(
        store, 5, [&] { store.query(5, query); }, &more)
                .isEmpty());
}

void TestHistoryStore::queryTextIsNotAWildcard()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    QString error;
    QVERIFY(store.open(&error));
    write(store,
        {makeCall(1), makeCall(2, CallStatus::Ok, QStringLiteral("a_b")),
            makeCall(3, CallStatus::Ok, QStringLiteral("100%"))});
    HistoryQuery query;
    query.search.words = {QStringLiteral("%")};
    QCOMPARE(answer(store, 1, [&] { store.query(1, query); }).size(), 1);
    query.search.words = {QStringLiteral("_")};
    QCOMPARE(answer(store, 2, [&] { store.query(2, query); }).size(), 1);
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
    write(store, calls);
    bool hasMore = true;
    const auto all = answer(
        store, 1, [&] { store.loadRecent(1, 100'000); }, &hasMore);
    QVERIFY(!hasMore);
    QCOMPARE(all.size(), 1000);
    QCOMPARE(all.first().id, qint64(11'001));
    // What went is counted, and a count asks the database what it holds now.
    QCOMPARE(store.database().callsPruned(), qint64(11'000));
    HistoryQuery older;
    older.beforeId = 11'501;
    QCOMPARE(store.database().count(older), qint64(500));
    QCOMPARE(store.database().count(HistoryQuery()), qint64(1000));
    older.search = CallSearch::fromText(QStringLiteral("tool:echo"));
    QCOMPARE(store.database().count(older), qint64(500));
    older.search = CallSearch::fromText(QStringLiteral("tool:nothing"));
    QCOMPARE(store.database().count(older), qint64(0));
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

void TestHistoryStore::readerDoesNotBlockWrites()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryStore writer(path);
    QString error;
    QVERIFY(writer.open(&error));
    write(writer, {makeCall(1), makeCall(2)});

    // A search in the middle of reading its rows (SQLite holds a read snapshot meanwhile).
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("reader"));
    db.setDatabaseName(path);
    QVERIFY(db.open());
    {
        QSqlQuery search(db);
        search.setForwardOnly(true);
        QVERIFY(search.exec(QStringLiteral("SELECT id FROM calls ORDER BY id")));
        QVERIFY(search.next());

        ToolCallList more;
        for (int i = 3; i <= 500; ++i)
            more << makeCall(i);
        QVERIFY2(writer.write(more, 0, &error), qPrintable(error)); // neither waits nor fails
        QVERIFY(search.next());
    }
    db.close();
    db = QSqlDatabase();
    QSqlDatabase::removeDatabase(QStringLiteral("reader"));
    QCOMPARE(storedCalls(path).size(), 500);
}

void TestHistoryStore::writerRunsAtNormalPriority()
{
    // Started from an idle-priority thread, the writer must not inherit idle priority: on a busy
    // core it would starve.
    QTemporaryDir dir;
    int policy = -1;
    std::thread starter([&] {
        sched_param parameters = {};
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &parameters);
        HistoryWriter writer(dir.filePath(QStringLiteral("h.sqlite")), 1000);
        QString error;
        if (!writer.start(&error))
            return;
        writer.runOnWriterThread([&](HistoryDatabase&) { policy = sched_getscheduler(0); });
    });
    starter.join();
    QCOMPARE(policy, int(SCHED_OTHER));
}

void TestHistoryStore::busyWriterHoldsCallsBackAndLosesNone()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryWriterLimits limits;
    limits.maxQueuedCalls = 100;
    HistoryWriter writer(path, 1'000'000, limits);
    QString error;
    QVERIFY2(writer.start(&error), qPrintable(error));
    WriterSignals seen(&writer);

    // Hold the writer, as a saturated core or a stalled disk would.
    QSemaphore gate;
    QSemaphore held;
    std::thread holder([&] {
        writer.runOnWriterThread([&](HistoryDatabase&) {
            held.release();
            gate.acquire();
        });
    });
    held.acquire();
    for (int i = 1; i <= 60; ++i)
        writer.record(makeCall(i));
    QVERIFY(writer.hasRoom());
    for (int i = 61; i <= 1000; ++i)
        writer.record(makeCall(i)); // past the bound: told to hold back, yet nothing is dropped
    QVERIFY(!writer.hasRoom());
    QCOMPARE(writer.queuedCalls(), qsizetype(1000));

    gate.release();
    holder.join();
    QTRY_VERIFY_WITH_TIMEOUT(writer.hasRoom(), 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(seen.room, 1, 30'000);
    writer.stop();
    QCoreApplication::processEvents();
    QCOMPARE(seen.leftOut.size(), 0);
    QCOMPARE(writer.callsLeftOut(), qint64(0));
    const ToolCallList stored = storedCalls(path);
    QCOMPARE(stored.size(), 1000);
    QCOMPARE(stored.first().id, qint64(1));
    QCOMPARE(stored.last().id, qint64(1000));
}

void TestHistoryStore::writerMergesRecordsOfOneCall()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryWriter writer(path, 1000);
    QString error;
    QVERIFY(writer.start(&error));
    QSemaphore gate;
    QSemaphore held;
    std::thread holder([&] {
        writer.runOnWriterThread([&](HistoryDatabase&) {
            held.release();
            gate.acquire();
        });
    });
    held.acquire();
    writer.record(makeCall(7, CallStatus::Running));
    writer.record(makeCall(7, CallStatus::Paused));
    writer.record(makeCall(7, CallStatus::Error));
    QCOMPARE(writer.queuedCalls(), qsizetype(1));
    gate.release();
    holder.join();
    writer.stop();
    const ToolCallList stored = storedCalls(path);
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().status, CallStatus::Error);
}

void TestHistoryStore::failingDiskLeavesOutExactlyTheCallsBeyondTheBound()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    HistoryWriterLimits limits;
    limits.maxRetainedCalls = 50;
    limits.retryIntervalMs = 50;
    {
        HistoryWriter writer(path, 1'000'000, limits);
        QString error;
        QVERIFY(writer.start(&error));
        WriterSignals seen(&writer);
        // Far smaller than the file already is: every write fails with "database or disk is full".
        bool capped = false;
        writer.runOnWriterThread(
            [&](HistoryDatabase& store) { capped = dynamic_cast<SqliteHistory&>(store).limitDatabasePages(1); });
        QVERIFY(capped);

        ToolCall big = makeCall(1);
        big.response = QByteArray(4000, 'r');
        writer.record(big);
        QTRY_COMPARE_WITH_TIMEOUT(seen.failed.size(), 1, 30'000);
        QVERIFY2(seen.failed.first().contains(QStringLiteral("full")), qPrintable(seen.failed.first()));
        for (int i = 2; i <= 80; ++i)
            writer.record(makeCall(i));
        // Calls 81-90 are left out while they run; each counts once, although its end comes too.
        for (int i = 81; i <= 90; ++i)
            writer.record(makeCall(i, CallStatus::Running));
        for (int i = 81; i <= 90; ++i)
            writer.record(makeCall(i, CallStatus::Ok));
        QTRY_COMPARE_WITH_TIMEOUT(writer.callsLeftOut(), qint64(40), 30'000);
        QVERIFY(writer.hasRoom()); // a failed disk never holds the server back
        QTRY_COMPARE_WITH_TIMEOUT(seen.leftOut.value(seen.leftOut.size() - 1), qint64(40), 30'000);
        QCOMPARE(seen.failed.size(), 1);

        writer.runOnWriterThread(
            [&](HistoryDatabase& store) { dynamic_cast<SqliteHistory&>(store).limitDatabasePages(0); });
        QTRY_COMPARE_WITH_TIMEOUT(seen.recovered, 1, 30'000);
        writer.record(makeCall(91));
    }
    qint64 leftOut = 0;
    const ToolCallList stored = storedCalls(path, &leftOut);
    QCOMPARE(stored.size(), 51); // the 50 kept in memory while the disk failed, and the one after
    QCOMPARE(stored.at(49).id, qint64(50));
    QCOMPARE(stored.last().id, qint64(91));
    QCOMPARE(leftOut, qint64(40)); // kept across a restart

    HistoryWriter reopened(path, 1000);
    QString error;
    QVERIFY(reopened.start(&error));
    QCOMPARE(reopened.callsLeftOut(), qint64(40));
}

void TestHistoryStore::filesAreOwnerOnlyWhateverTheUmask()
{
    const mode_t previous = ::umask(022);
    QTemporaryDir dir;
    const QString state = dir.filePath(QStringLiteral("state"));
    const QString path = QDir(state).filePath(QStringLiteral("history.sqlite"));
    {
        HistoryStore store(path);
        QString error;
        QVERIFY2(store.open(&error), qPrintable(error));
        write(store, {makeCall(1)});
        QCOMPARE(modeOf(state), 0700);
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(modeOf(path + QStringLiteral("-wal")), 0600);
        QCOMPARE(modeOf(path + QStringLiteral("-shm")), 0600);
        // The writers' locks (WriterLock) too.
        const QString writers = path + QStringLiteral("-writers");
        QCOMPARE(modeOf(writers), 0700);
        const QStringList locks = QDir(writers).entryList(QDir::Files);
        QCOMPARE(locks.size(), 1);
        QCOMPARE(modeOf(QDir(writers).filePath(locks.first())), 0600);
    }
    // Files an older version left readable by others are tightened when history opens.
    for (const QString& name : QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")})
        QFile(name).setPermissions(
            QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther);
    HistoryStore store(path);
    QString error;
    QVERIFY(store.open(&error));
    ::umask(previous);
    for (const QString& name : QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")}) {
        if (QFile::exists(name))
            QCOMPARE(modeOf(name), 0600);
    }
}

// Each writer reserves blocks of ids, so ids have gaps; pruning keeps the newest maxCalls calls by
// count, not by "largest id minus maxCalls" (which kept far fewer).
void TestHistoryStore::prunesByCountWhenIdsHaveGaps()
{
    QTemporaryDir dir;
    HistoryStore store(dir.filePath(QStringLiteral("h.sqlite")));
    store.setMaxCalls(1000);
    QString error;
    QVERIFY(store.open(&error));
    ToolCallList calls;
    for (int i = 1; i <= 12'000; ++i)
        calls << makeCall(qint64(i) * 65'536); // one call per block
    write(store, calls);
    const auto all = answer(store, 1, [&] { store.loadRecent(1, 100'000); });
    QCOMPARE(all.size(), 1000);
    QCOMPARE(all.first().id, qint64(11'001) * 65'536);
}

// Two writers of one history file (the console and a one-shot runner, each with its own
// connection), reserving at the same moment from two threads: SQLite's write lock orders them and
// every id is handed out once.
void TestHistoryStore::writersSharingAHistoryNeverShareAnId()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    {
        SqliteHistory first(path);
        QString error;
        QVERIFY2(first.open(HistoryDatabase::Role::Writer, &error), qPrintable(error));
        QVERIFY(first.write({makeCall(41)}, 0, &error));
    }
    constexpr int Reservations = 200;
    std::vector<qint64> firsts[2];
    std::atomic<int> failures{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < 2; ++w) {
        writers.emplace_back([&, w] {
            SqliteHistory history(path);
            QString error;
            if (!history.open(HistoryDatabase::Role::Writer, &error)) {
                ++failures;
                return;
            }
            for (int i = 0; i < Reservations; ++i) {
                qint64 first = 0;
                if (!history.reserveCallIds(100, &first, &error)) {
                    ++failures;
                    continue;
                }
                firsts[w].push_back(first);
                // Each writer's own blocks grow.
                if (firsts[w].size() > 1 && first <= firsts[w][firsts[w].size() - 2])
                    ++failures;
            }
        });
    }
    for (auto& writer : writers)
        writer.join();
    QCOMPARE(failures.load(), 0);
    std::vector<qint64> all = firsts[0];
    all.insert(all.end(), firsts[1].begin(), firsts[1].end());
    std::sort(all.begin(), all.end());
    QCOMPARE(all.size(), std::size_t(2 * Reservations));
    QCOMPARE(all.front(), qint64(42)); // after every id written
    for (std::size_t i = 1; i < all.size(); ++i)
        QVERIFY2(all[i] >= all[i - 1] + 100, "two blocks overlap");
}

void TestHistoryStore::callIdSourceReservesAheadAndAcrossRestarts()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.sqlite"));
    qint64 last = 0;
    {
        HistoryWriter writer(path, 1000);
        QString error;
        QVERIFY2(writer.start(&error), qPrintable(error));
        CallIdSource ids(&writer, 8);
        QVERIFY2(ids.start(&error), qPrintable(error));
        std::set<qint64> seen;
        for (int i = 0; i < 100; ++i) {
            const qint64 id = ids.next();
            QVERIFY(id > last);
            QVERIFY(seen.insert(id).second);
            last = id;
        }
    }
    // A second writer after a restart, and a third alongside it: every id is new.
    HistoryWriter writer(path, 1000);
    HistoryWriter other(path, 1000);
    QString error;
    QVERIFY(writer.start(&error));
    QVERIFY(other.start(&error));
    CallIdSource ids(&writer, 8);
    CallIdSource otherIds(&other, 8);
    QVERIFY(ids.start(&error));
    QVERIFY(otherIds.start(&error));
    std::set<qint64> seen;
    for (int i = 0; i < 100; ++i) {
        for (const qint64 id : {ids.next(), otherIds.next()}) {
            QVERIFY(id > last);
            QVERIFY2(seen.insert(id).second, "an id was handed out twice");
        }
    }
}

QTEST_GUILESS_MAIN(TestHistoryStore)
#include "tst_historystore.moc"
