// The workspace state file shared by several processes (the console and one-shot runners): every
// write merges under the file's lock, so interleaved stores lose no update and bring back nothing
// another removed; stored answers taken stay taken; many writer processes at once all get in; writers
// killed at any moment leave a whole file and no lock behind; a console's broker sees a question
// another process parked, and a runner takes the answer given in the console. Tasks (the Tasks
// extension) are kept like questions, strictly read, and whenStored answers once they are on disk.
//
// The test executable is also its own child process: with --writer, --loop, --hold-lock or
// --read-peak as its first argument it does that instead of running the tests.

#include "clientanswer.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "processstatus.h"
#include "store/statefilelock.h"
#include "store/workspacestatefile.h"
#include "store/workspacestaterecords.h"
#include "store/workspacestatestore.h"
#include "taskrecord.h"
#include "tools/toolregistry.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>
#include <mutex>
#include <set>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;
using Verdict = InteractionBroker::Admission::Verdict;

namespace {

// A question record exactly as the broker writes one.
QByteArray questionRecord(const QString& id)
{
    PendingInteraction question;
    question.id = id;
    question.key = QStringLiteral("sha256:") + id;
    question.tool = QStringLiteral("write_file");
    question.mode = PauseMode::Park;
    question.arguments = R"({"path":"a.txt"})";
    question.renderSpec = R"({"render":"approval"})";
    question.createdAtMs = 1;
    return QByteArray::fromStdString(question.toJson().dump());
}

json outputItem(const std::string& interactionId)
{
    return json{{"output", R"({"connected":true})"}, {"interactionId", interactionId}, {"answeredAtMs", 7}};
}

json decisionItem(const std::string& interactionId)
{
    return json{{"allow", true}, {"reason", ""}, {"interactionId", interactionId}};
}

QByteArray outputsRecord(const std::map<std::string, std::vector<std::string>>& byKey)
{
    json list = json::array();
    for (const auto& [key, ids] : byKey) {
        json outputs = json::array();
        for (const std::string& id : ids)
            outputs.push_back(outputItem(id));
        list.push_back(json{{"key", key}, {"outputs", outputs}});
    }
    return QByteArray::fromStdString(list.dump());
}

QByteArray approvalsRecord(const std::vector<std::string>& always, const std::vector<std::string>& decisions)
{
    json items = json::array();
    for (const std::string& id : decisions)
        items.push_back(decisionItem(id));
    json list = json::array();
    if (!items.empty())
        list.push_back(json{{"key", "k-decision"}, {"decisions", items}});
    return QByteArray::fromStdString(json{{"alwaysAllow", always}, {"decisions", list}}.dump());
}

// A standing grant as ApprovalStore writes it: `client` empty for every client, `arguments` empty
// for any.
json grantItem(const std::string& id, const std::string& client, const std::string& arguments)
{
    return json{{"id", id}, {"tool", "write_file"}, {"client", client}, {"arguments", arguments},
        {"grantedBy", "alice"}, {"grantedAtMs", 1'700'000'000'000}};
}

QByteArray grantsRecord(const std::vector<json>& grants)
{
    return QByteArray::fromStdString(json{{"grants", grants}, {"decisions", json::array()}}.dump());
}

// A task as the server keeps one: a call still working, or one that ended with its result.
TaskRecord taskOf(const QString& id, TaskRecord::Status status = TaskRecord::Status::Working)
{
    TaskRecord task;
    task.id = id;
    task.owner = QStringLiteral("client:claude-code");
    task.clientName = QStringLiteral("claude-code");
    task.clientVersion = QStringLiteral("1.0");
    task.status = status;
    task.createdAtMs = 1'700'000'000'000;
    task.lastUpdatedAtMs = task.createdAtMs + 5;
    task.ttlMs = 3'600'000;
    task.tool = QStringLiteral("write_file");
    task.callId = 7;
    task.request = R"({"arguments":{"path":"a.txt"},"name":"write_file"})";
    if (status == TaskRecord::Status::Completed)
        task.result = R"({"content":[],"isError":false})";
    return task;
}

QByteArray taskRecord(const TaskRecord& task)
{
    return QByteArray::fromStdString(task.toJson().dump());
}

QByteArray taskRecord(const QString& id)
{
    return taskRecord(taskOf(id));
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The file as the next process would read it; fails the test unless it is a whole state.
WorkspaceStateRecords onDisk(const QString& path)
{
    WorkspaceStateRecords records;
    QString problem;
    const QByteArray contents = readFile(path);
    if (!WorkspaceStateRecords::parse(contents, &records, &problem))
        qWarning("not a whole state (%s): %s", qPrintable(problem), contents.left(200).constData());
    return records;
}

std::set<QString> questionsIn(const WorkspaceStateRecords& records)
{
    return std::set<QString>(records.questionIds().begin(), records.questionIds().end());
}

std::vector<std::string> itemIds(const QByteArray& record, const char* itemsField)
{
    std::vector<std::string> ids;
    for (const json& key : json::parse(record.toStdString()))
        for (const json& item : key.at(itemsField))
            ids.push_back(item.at("interactionId").get<std::string>());
    return ids;
}

// Child process modes. Each prints one line when it has done its part, for the parent to wait on.

// Puts one question of its own and flushes; a flush refused by the lock (many writers at once on a
// slow disk) is tried again, as a runner would.
int runWriter(const QString& path, const QString& id)
{
    WorkspaceStateStore store(path);
    InteractionState::Records records;
    QString problem;
    if (store.load(&records, &problem) == InteractionState::LoadResult::Unreadable) {
        qWarning("writer %s: %s", qPrintable(id), qPrintable(problem));
        return 2;
    }
    store.putQuestion(id, questionRecord(id));
    for (int attempt = 0; attempt < 20; ++attempt) {
        QString error;
        if (store.flush(&error)) {
            printf("written\n");
            return 0;
        }
        qWarning("writer %s: %s", qPrintable(id), qPrintable(error));
    }
    return 3;
}

// Writes for ever: a question of its own put, the previous one removed, flushed, again.
int runLoop(const QString& path, const QString& tag)
{
    WorkspaceStateStore store(path, WorkspaceStateWriteTiming{0, 10, 100, 5'000});
    InteractionState::Records records;
    QString problem;
    store.load(&records, &problem);
    for (qint64 round = 0;; ++round) {
        store.putQuestion(tag + QString::number(round), questionRecord(tag + QString::number(round)));
        if (round > 0)
            store.removeQuestion(tag + QString::number(round - 1));
        QString error;
        if (store.flush(&error) && round == 0) {
            printf("written\n");
            fflush(stdout);
        }
        QCoreApplication::processEvents(); // takes in what the others wrote
    }
}

// Holds the lock until killed.
int runHoldLock(const QString& path)
{
    QString error;
    const auto lock = StateFileLock::acquire(StateFileLock::lockPathFor(path), std::chrono::seconds(30), &error);
    if (!lock)
        return 2;
    printf("locked\n");
    fflush(stdout);
    for (;;)
        ::pause(); // until the test kills it
}

// Reads the state file once as the stores do and prints how much the peak address space grew
// meanwhile ("grew N"): an allocation is counted even where its pages are never touched.
int runReadPeak(const QString& path)
{
    QByteArray warmUp;
    QString error;
    WorkspaceStateFile::read(path, 4096, &warmUp, &error); // Qt's and the allocator's first costs
    const qint64 before = processStatusBytes("VmPeak"); // the peak address space
    QByteArray contents;
    if (WorkspaceStateFile::read(path, WorkspaceStateStore::MaxFileBytes, &contents, &error)
        != WorkspaceStateFile::ReadStatus::Read) {
        qWarning("read-peak: %s", qPrintable(error));
        return 2;
    }
    const qint64 after = processStatusBytes("VmPeak");
    if (before < 0 || after < 0)
        return 3;
    printf("grew %lld read %lld\n", static_cast<long long>(after - before), static_cast<long long>(contents.size()));
    return 0;
}

QString self()
{
    return QCoreApplication::applicationFilePath();
}

} // namespace

class TestWorkspaceState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void interleavedStoresLoseNothingAndResurrectNothing();
    void randomInterleavingsConverge();
    void consumedAnswersStayConsumed();
    void anotherStoresChangesArriveAsChangedElsewhere();
    void unreadableFileUnderTheLockIsSetAsideKeepingRecords();
    void lockWaitsAreBoundedAndNameTheHolder();
    void lockOfAKilledProcessIsReleased();
    void lockWaitNamesTheHolderNotAStalePid();
    void manyWriterProcessesAtOnce();
    void killedWritersLeaveAWholeFile();
    void consoleBrokerFollowsRunners();
    void scopedGrantsMergeByIdAcrossProcesses();
    void readingTakesMemoryForWhatTheFileHolds();
    void tasksAreWrittenAndLoadBackInOrder();
    void stateWithoutTasksIsWrittenAsBefore();
    void malformedTaskRecordsAreRefused_data();
    void malformedTaskRecordsAreRefused();
    void tasksOfTwoStoresMergeAndRemovedOnesStayGone();
    void whenStoredAnswersOnceTheTasksAreOnDisk();
    void whenStoredWaitsForARetryRatherThanFailing();
    void whenStoredWaitersAreAnsweredWhenTheStoreGoes_data();
    void whenStoredWaitersAreAnsweredWhenTheStoreGoes();
    void tenThousandTasksLoad();

private:
    QString statePath() const { return m_dir->filePath(QStringLiteral("workspace.json")); }

    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestWorkspaceState::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestWorkspaceState::interleavedStoresLoseNothingAndResurrectNothing()
{
    WorkspaceStateStore first(statePath());
    WorkspaceStateStore second(statePath());
    InteractionState::Records records;
    QString problem;
    QCOMPARE(first.load(&records, &problem), InteractionState::LoadResult::Empty);
    QCOMPARE(second.load(&records, &problem), InteractionState::LoadResult::Empty);

    first.putQuestion(QStringLiteral("ia-1"), questionRecord(QStringLiteral("ia-1")));
    QVERIFY(first.flush(nullptr));
    // The second has not read the file since: its write keeps the first's question.
    second.putQuestion(QStringLiteral("ia-2"), questionRecord(QStringLiteral("ia-2")));
    QVERIFY(second.flush(nullptr));
    QCOMPARE(questionsIn(onDisk(statePath())), (std::set<QString>{QStringLiteral("ia-1"), QStringLiteral("ia-2")}));
    // Its write found the first's question in the file: it learns of it when its events run.
    QTRY_VERIFY_WITH_TIMEOUT(second.records().hasQuestion(QStringLiteral("ia-1")), 10'000);

    first.removeQuestion(QStringLiteral("ia-1"));
    QVERIFY(first.flush(nullptr));
    // The second still holds ia-1 in memory (no event was processed): its next write must not bring
    // it back.
    QVERIFY(second.records().hasQuestion(QStringLiteral("ia-1")));
    second.putQuestion(QStringLiteral("ia-3"), questionRecord(QStringLiteral("ia-3")));
    QVERIFY(second.flush(nullptr));
    QCOMPARE(questionsIn(onDisk(statePath())), (std::set<QString>{QStringLiteral("ia-2"), QStringLiteral("ia-3")}));

    // A change to a question another store put is merged like any other.
    QByteArray changed = questionRecord(QStringLiteral("ia-2"));
    changed.replace("\"callId\":0", "\"callId\":42");
    first.putQuestion(QStringLiteral("ia-2"), changed);
    QVERIFY(first.flush(nullptr));
    QCOMPARE(onDisk(statePath()).question(QStringLiteral("ia-2")), changed);
    QCOMPARE(questionsIn(onDisk(statePath())), (std::set<QString>{QStringLiteral("ia-2"), QStringLiteral("ia-3")}));

    // Each learns what the other did once its events run: from its own writes, which read the file
    // first, and, when it watches, from the other's writes as they happen.
    QTRY_VERIFY_WITH_TIMEOUT(!second.records().hasQuestion(QStringLiteral("ia-1")), 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(first.records().sameContent(onDisk(statePath())), 10'000);
    QVERIFY(second.records().question(QStringLiteral("ia-2")) != changed); // nothing written since
    second.watch();
    QTRY_VERIFY_WITH_TIMEOUT(second.records().sameContent(onDisk(statePath())), 10'000);
}

// Two stores make random puts and removes, flushing at random, learning from each other only when
// events happen to run: whatever the interleaving, the file ends with every question put and none
// removed.
void TestWorkspaceState::randomInterleavingsConverge()
{
    WorkspaceStateStore a(statePath());
    WorkspaceStateStore b(statePath());
    WorkspaceStateStore* stores[] = {&a, &b};
    QRandomGenerator random(12); // the same interleaving every run
    std::set<QString> expected;
    int next = 0;
    for (int step = 0; step < 400; ++step) {
        WorkspaceStateStore& store = *stores[random.bounded(2)];
        const QStringList known = store.records().questionIds();
        if (known.isEmpty() || random.bounded(3) > 0) {
            const QString id = QStringLiteral("ia-%1").arg(next++);
            store.putQuestion(id, questionRecord(id));
            expected.insert(id);
        } else {
            const QString id = known.at(random.bounded(int(known.size())));
            store.removeQuestion(id);
            expected.erase(id);
        }
        if (random.bounded(4) == 0)
            QVERIFY(store.flush(nullptr));
        if (random.bounded(5) == 0)
            QCoreApplication::processEvents();
    }
    QVERIFY(a.flush(nullptr));
    QVERIFY(b.flush(nullptr));
    QCOMPARE(questionsIn(onDisk(statePath())), expected);
    QVERIFY(expected.size() > 50); // the walk did not just remove everything
}

void TestWorkspaceState::consumedAnswersStayConsumed()
{
    WorkspaceStateStore console(statePath());
    InteractionState::Records records;
    QString problem;
    console.load(&records, &problem);
    console.putClientOutputs(outputsRecord({{"k", {"ia-x", "ia-y"}}}));
    console.putApprovals(approvalsRecord({"echo", "write_file"}, {"ia-d1"}));
    QVERIFY(console.flush(nullptr));

    // A runner takes answer X and decision D1 and the rule for echo is revoked there.
    {
        WorkspaceStateStore runner(statePath());
        QCOMPARE(runner.load(&records, &problem), InteractionState::LoadResult::Loaded);
        runner.putClientOutputs(outputsRecord({{"k", {"ia-y"}}}));
        runner.putApprovals(approvalsRecord({"write_file"}, {}));
        QVERIFY(runner.flush(nullptr));
    }
    // The console has not heard of that and stores more: X, D1 and echo must stay gone.
    console.putClientOutputs(outputsRecord({{"k", {"ia-x", "ia-y", "ia-z"}}, {"other", {"ia-o"}}}));
    console.putApprovals(approvalsRecord({"echo", "write_file", "git_status"}, {"ia-d1", "ia-d2"}));
    QVERIFY(console.flush(nullptr));

    const WorkspaceStateRecords disk = onDisk(statePath());
    QCOMPARE(itemIds(disk.clientOutputsRecord(), "outputs"), (std::vector<std::string>{"ia-y", "ia-z", "ia-o"}));
    const json approvals = json::parse(disk.approvalsRecord().toStdString());
    // Rules from the older shape ("alwaysAllow") are written back as the grants they stand for.
    QVERIFY2(!approvals.contains("alwaysAllow"), approvals.dump().c_str());
    std::vector<std::string> granted;
    for (const json& grant : approvals.at("grants"))
        granted.push_back(grant.at("id").get<std::string>());
    QCOMPARE(granted, (std::vector<std::string>{"g-always-git_status", "g-always-write_file"}));
    QCOMPARE(itemIds(QByteArray::fromStdString(approvals.at("decisions").dump()), "decisions"),
        std::vector<std::string>{"ia-d2"});
    // The file reads as the broker reads it, and the console takes in the merged stores.
    InteractionBroker restarted({}, nullptr, std::make_unique<WorkspaceStateStore>(statePath()));
    QString warning;
    QCOMPARE(restarted.load(&warning), InteractionBroker::LoadResult::Loaded);
    QCOMPARE(restarted.clientOutputs().size(), 3);
    QCOMPARE(restarted.approvals().decisionCount(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(console.records().sameContent(disk), 10'000);
}

void TestWorkspaceState::anotherStoresChangesArriveAsChangedElsewhere()
{
    WorkspaceStateStore console(statePath());
    InteractionState::Records records;
    QString problem;
    console.load(&records, &problem);
    console.putQuestion(QStringLiteral("ia-own"), questionRecord(QStringLiteral("ia-own")));
    QVERIFY(console.flush(nullptr));
    std::vector<InteractionState::CompactRecords> seen;
    connect(&console, &InteractionState::changedElsewhere, this,
        [&](const InteractionState::CompactRecords& now) { seen.push_back(now); });
    console.watch();
    // Its own writes are not news.
    console.putQuestion(QStringLiteral("ia-own-2"), questionRecord(QStringLiteral("ia-own-2")));
    QVERIFY(console.flush(nullptr));
    {
        WorkspaceStateStore runner(statePath());
        runner.load(&records, &problem);
        runner.putQuestion(QStringLiteral("ia-runner"), questionRecord(QStringLiteral("ia-runner")));
        runner.removeQuestion(QStringLiteral("ia-own"));
        QVERIFY(runner.flush(nullptr));
    }
    QTRY_VERIFY_WITH_TIMEOUT(!seen.empty(), 20'000);
    const InteractionState::CompactRecords& now = seen.back();
    QStringList ids;
    for (const auto& [id, record] : now.questions) {
        ids << id;
        QCOMPARE(record, questionRecord(id));
    }
    ids.sort();
    QCOMPARE(ids, (QStringList{QStringLiteral("ia-own-2"), QStringLiteral("ia-runner")}));
    for (const InteractionState::CompactRecords& change : seen) {
        for (const auto& [id, record] : change.questions)
            QVERIFY(id != QStringLiteral("ia-own")); // never told of as there after its removal
    }
}

void TestWorkspaceState::unreadableFileUnderTheLockIsSetAsideKeepingRecords()
{
    WorkspaceStateStore store(statePath());
    InteractionState::Records records;
    QString problem;
    store.load(&records, &problem);
    std::mutex noticesMutex;
    QStringList notices;
    connect(
        &store, &InteractionState::notice, this,
        [&](const QString& message) {
            const std::lock_guard lock(noticesMutex);
            notices << message;
        },
        Qt::DirectConnection);
    store.putQuestion(QStringLiteral("ia-1"), questionRecord(QStringLiteral("ia-1")));
    QVERIFY(store.flush(nullptr));
    {
        QFile damaged(statePath());
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write("{ half a file");
    }
    store.putQuestion(QStringLiteral("ia-2"), questionRecord(QStringLiteral("ia-2")));
    QString error;
    QVERIFY2(store.flush(&error), qPrintable(error));
    // Nothing this process held is lost, and the damaged file is kept for the operator.
    QCOMPARE(questionsIn(onDisk(statePath())), (std::set<QString>{QStringLiteral("ia-1"), QStringLiteral("ia-2")}));
    const QStringList aside = QDir(m_dir->path()).entryList({QStringLiteral("workspace.json.unreadable-*")});
    QCOMPARE(aside.size(), 1);
    QCOMPARE(readFile(m_dir->filePath(aside.front())), QByteArray("{ half a file"));
    const std::lock_guard lock(noticesMutex);
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.front().contains(aside.front()) && notices.front().contains(QStringLiteral("not JSON")),
        qPrintable(notices.front()));
}

void TestWorkspaceState::lockWaitsAreBoundedAndNameTheHolder()
{
    const QString lockPath = StateFileLock::lockPathFor(statePath());
    QString error;
    auto held = StateFileLock::acquire(lockPath, std::chrono::milliseconds(0), &error);
    QVERIFY2(held, qPrintable(error));
    struct stat info = {};
    QCOMPARE(::stat(QFile::encodeName(lockPath).constData(), &info), 0);
    QCOMPARE(info.st_mode & 0777, mode_t(0600));

    WorkspaceStateStore store(statePath(), WorkspaceStateWriteTiming{0, 20, 200, 300});
    QStringList failures;
    int recoveries = 0;
    connect(&store, &InteractionState::writeFailed, this, [&](const QString& failure) { failures << failure; });
    connect(&store, &InteractionState::writeRecovered, this, [&] { ++recoveries; });
    store.putQuestion(QStringLiteral("ia-1"), questionRecord(QStringLiteral("ia-1")));
    QVERIFY(!store.flush(&error)); // returns: the wait is bounded
    QVERIFY2(error.contains(QStringLiteral("workspace state is locked by another process"))
            && error.contains(QStringLiteral("pid %1, this process").arg(::getpid())),
        qPrintable(error));
    QVERIFY(!QFile::exists(statePath()));
    QTRY_VERIFY_WITH_TIMEOUT(!failures.isEmpty(), 10'000); // reported, and retried
    QVERIFY(failures.front().contains(QStringLiteral("locked by another process")));

    held.reset();
    QTRY_COMPARE_WITH_TIMEOUT(recoveries, 1, 20'000); // the retry gets through without another change
    QVERIFY(store.flush(&error));
    QCOMPARE(questionsIn(onDisk(statePath())), std::set<QString>{QStringLiteral("ia-1")});
}

void TestWorkspaceState::lockOfAKilledProcessIsReleased()
{
    QProcess holder;
    holder.start(self(), {QStringLiteral("--hold-lock"), statePath()});
    QVERIFY(holder.waitForStarted(30'000));
    QVERIFY(holder.waitForReadyRead(30'000));
    QCOMPARE(holder.readLine().trimmed(), QByteArray("locked"));
    QString error;
    QVERIFY(!StateFileLock::acquire(StateFileLock::lockPathFor(statePath()), std::chrono::milliseconds(100), &error));
    QVERIFY2(error.contains(QStringLiteral("pid %1)").arg(holder.processId())), qPrintable(error));
    holder.kill(); // SIGKILL: no chance to let go itself
    QVERIFY(holder.waitForFinished(30'000));
    QVERIFY2(StateFileLock::acquire(StateFileLock::lockPathFor(statePath()), std::chrono::seconds(10), &error),
        qPrintable(error));
}

// The pid in the lock file is whoever wrote it last, which may be long gone: a wait that gives up
// names the process that holds the lock now (here one that writes no pid at all, as flock(1)).
void TestWorkspaceState::lockWaitNamesTheHolderNotAStalePid()
{
    const QString lockPath = StateFileLock::lockPathFor(statePath());
    {
        QFile stale(lockPath);
        QVERIFY(stale.open(QIODevice::WriteOnly));
        stale.write("999999\n");
    }
    QProcess holder;
    holder.start(QStringLiteral("python3"),
        {QStringLiteral("-c"),
            QStringLiteral("import fcntl, sys, time\nf = open(sys.argv[1], 'r+')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
                           "print('locked', flush=True)\ntime.sleep(120)\n"),
            lockPath});
    QVERIFY(holder.waitForStarted(30'000));
    QVERIFY(holder.waitForReadyRead(30'000));
    QCOMPARE(holder.readLine().trimmed(), QByteArray("locked"));
    const qint64 pid = holder.processId();
    QString error;
    QVERIFY(!StateFileLock::acquire(lockPath, std::chrono::milliseconds(100), &error));
    holder.kill();
    holder.waitForFinished(30'000);
    QVERIFY2(error.contains(QStringLiteral("(pid %1)").arg(pid)), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("999999")), qPrintable(error));
}

void TestWorkspaceState::manyWriterProcessesAtOnce()
{
    // One record before they start, which every writer must keep.
    {
        WorkspaceStateStore store(statePath());
        store.putQuestion(QStringLiteral("ia-before"), questionRecord(QStringLiteral("ia-before")));
        QVERIFY(store.flush(nullptr));
    }
    constexpr int Writers = 60;
    std::vector<std::unique_ptr<QProcess>> writers;
    for (int n = 0; n < Writers; ++n) {
        auto writer = std::make_unique<QProcess>();
        writer->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer->start(self(), {QStringLiteral("--writer"), statePath(), QStringLiteral("ia-writer-%1").arg(n)});
        writers.push_back(std::move(writer));
    }
    std::set<QString> expected{QStringLiteral("ia-before")};
    for (int n = 0; n < Writers; ++n) {
        QProcess& writer = *writers[std::size_t(n)];
        QVERIFY2(writer.waitForFinished(120'000), qPrintable(QStringLiteral("writer %1 did not finish").arg(n)));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
        QCOMPARE(writer.readAllStandardOutput().trimmed(), QByteArray("written"));
        expected.insert(QStringLiteral("ia-writer-%1").arg(n));
    }
    QCOMPARE(questionsIn(onDisk(statePath())), expected);
}

// Writers that never stop are killed (SIGKILL) at random moments, ~30 times: the file is always a
// whole state holding what was there before they started, and no lock outlives its holder.
void TestWorkspaceState::killedWritersLeaveAWholeFile()
{
    {
        WorkspaceStateStore store(statePath());
        store.putQuestion(QStringLiteral("ia-sentinel"), questionRecord(QStringLiteral("ia-sentinel")));
        store.putClientOutputs(outputsRecord({{"k-sentinel", {"ia-answer"}}}));
        QVERIFY(store.flush(nullptr));
    }
    QRandomGenerator random(30);
    constexpr int Rounds = 30;
    for (int round = 0; round < Rounds; ++round) {
        std::vector<std::unique_ptr<QProcess>> loops;
        for (int n = 0; n < 2; ++n) {
            auto loop = std::make_unique<QProcess>();
            loop->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            loop->start(
                self(), {QStringLiteral("--loop"), statePath(), QStringLiteral("ia-r%1-%2-").arg(round).arg(n)});
            loops.push_back(std::move(loop));
        }
        for (auto& loop : loops) {
            QVERIFY(loop->waitForStarted(30'000));
            // Killed only once it writes, so every round kills writers at work.
            QVERIFY(loop->waitForReadyRead(60'000));
        }
        for (auto& loop : loops) {
            QThread::msleep(random.bounded(60)); // the point: killed at a random moment of its work
            ::kill(pid_t(loop->processId()), SIGKILL);
        }
        for (auto& loop : loops) {
            QVERIFY(loop->waitForFinished(30'000));
            QCOMPARE(loop->exitStatus(), QProcess::CrashExit);
        }
        QString problem;
        WorkspaceStateRecords records;
        const QByteArray contents = readFile(statePath());
        QVERIFY2(WorkspaceStateRecords::parse(contents, &records, &problem),
            qPrintable(QStringLiteral("round %1: %2").arg(round).arg(problem)));
        QVERIFY(records.hasQuestion(QStringLiteral("ia-sentinel")));
        QCOMPARE(itemIds(records.clientOutputsRecord(), "outputs"), std::vector<std::string>{"ia-answer"});
        QString error;
        QVERIFY2(StateFileLock::acquire(StateFileLock::lockPathFor(statePath()), std::chrono::milliseconds(0), &error),
            qPrintable(QStringLiteral("round %1: %2").arg(round).arg(error)));
    }
    QVERIFY(QDir(m_dir->path()).entryList({QStringLiteral("workspace.json.unreadable-*")}).isEmpty());
    InteractionBroker broker({}, nullptr, std::make_unique<WorkspaceStateStore>(statePath()));
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::Loaded);
}

// The console's broker and runners (brokers of their own on the same file, gone after one call):
// the question a runner parks appears in the console as if raised there; the console's answer is
// stored in the file, where the runner's retry takes it; the console then forgets it; a question
// removed by another process resolves in the console.
void TestWorkspaceState::consoleBrokerFollowsRunners()
{
    ToolRegistry registry;
    registry.add(ClientTool::requestConnection({QStringLiteral("github")}));
    const auto connectTool = registry.find("request_connection");
    InteractionBroker::Settings settings;
    settings.statePath = statePath();
    InteractionBroker console(settings, &registry);
    QString warning;
    QCOMPARE(console.load(&warning), InteractionBroker::LoadResult::Loaded);
    console.watchState();
    QSignalSpy pending(&console, &InteractionBroker::interactionPending);
    QSignalSpy resolved(&console, &InteractionBroker::interactionResolved);

    const json arguments{{"provider", "github"}, {"kind", "api_key"}, {"reason", "to read issues"}};
    const InteractionBroker::CallOrigin origin{1, QStringLiteral("runner-session"), QStringLiteral("claude-code"),
        QStringLiteral("1.0"), QByteArray(), QString()};
    settings.defaultMode = PauseMode::Park;
    QString parked;
    {
        InteractionBroker runner(settings, &registry);
        QCOMPARE(runner.load(&warning), InteractionBroker::LoadResult::Loaded);
        const auto admission = runner.admit(*connectTool, arguments, origin);
        QCOMPARE(admission.verdict, Verdict::Pause);
        QCOMPARE(admission.mode, PauseMode::Park);
        bool duplicate = true;
        parked = runner.park(*connectTool, arguments, admission, origin, &duplicate);
        QVERIFY(!duplicate);
        QVERIFY(runner.flush());
    }
    QTRY_COMPARE_WITH_TIMEOUT(pending.count(), 1, 20'000);
    const auto shown = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(shown.id, parked);
    QCOMPARE(shown.mode, PauseMode::Park);
    QVERIFY(!shown.waiting);
    QCOMPARE(console.pending().size(), 1);

    QString error;
    QVERIFY2(
        console.answer(parked,
            InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat"))),
            &error),
        qPrintable(error));
    QCOMPARE(interactionOutcomeName(resolved.at(0).at(1).value<InteractionOutcome>()), QStringLiteral("stored"));
    QVERIFY(console.flush(&error));
    {
        InteractionBroker retry(settings, &registry);
        QCOMPARE(retry.load(&warning), InteractionBroker::LoadResult::Loaded);
        QVERIFY(retry.pending().isEmpty());
        InteractionBroker::CallOrigin again = origin;
        again.callId = 2;
        again.sessionId = QStringLiteral("another-runner-session");
        const auto admission = retry.admit(*connectTool, arguments, again);
        QCOMPARE(admission.verdict, Verdict::Answer);
        QVERIFY(admission.result.structuredContent.at("account") == "octocat");
        QVERIFY(retry.flush());
    }
    QTRY_VERIFY_WITH_TIMEOUT(console.clientOutputs().isEmpty(), 20'000); // taken: not handed out again

    // A question that leaves in another process, unanswered, resolves here as cancelled.
    {
        InteractionBroker runner(settings, &registry);
        runner.load(&warning);
        const json other{{"provider", "github"}, {"kind", "api_key"}, {"reason", "to push"}};
        bool duplicate = false;
        parked = runner.park(*connectTool, other, runner.admit(*connectTool, other, origin), origin, &duplicate);
        QVERIFY(runner.flush());
    }
    QTRY_COMPARE_WITH_TIMEOUT(pending.count(), 2, 20'000);
    {
        WorkspaceStateStore elsewhere(statePath());
        InteractionState::Records records;
        elsewhere.load(&records, &error);
        elsewhere.removeQuestion(parked);
        QVERIFY(elsewhere.flush(&error));
    }
    QTRY_COMPARE_WITH_TIMEOUT(resolved.count(), 2, 20'000);
    QCOMPARE(resolved.at(1).at(0).toString(), parked);
    QCOMPARE(interactionOutcomeName(resolved.at(1).at(1).value<InteractionOutcome>()), QStringLiteral("cancelled"));
    QVERIFY(console.pending().isEmpty());
}

int main(int argc, char** argv)
{
    if (argc >= 3 && (qstrcmp(argv[1], "--writer") == 0 || qstrcmp(argv[1], "--loop") == 0)) {
        QCoreApplication app(argc, argv);
        const QString path = QString::fromLocal8Bit(argv[2]);
        const QString id = argc >= 4 ? QString::fromLocal8Bit(argv[3]) : QStringLiteral("ia-child");
        return qstrcmp(argv[1], "--writer") == 0 ? runWriter(path, id) : runLoop(path, id);
    }
    if (argc >= 3 && qstrcmp(argv[1], "--hold-lock") == 0) {
        QCoreApplication app(argc, argv);
        return runHoldLock(QString::fromLocal8Bit(argv[2]));
    }
    if (argc >= 3 && qstrcmp(argv[1], "--read-peak") == 0) {
        QCoreApplication app(argc, argv);
        return runReadPeak(QString::fromLocal8Bit(argv[2]));
    }
    QCoreApplication app(argc, argv);
    TestWorkspaceState test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

// Scoped grants are one record per id: one process grants, another revokes a different grant
// meanwhile, and the file ends with exactly what both meant; the grant's scope survives the merge.
void TestWorkspaceState::scopedGrantsMergeByIdAcrossProcesses()
{
    const json onlyClaude = grantItem("g-1", "claude-code", R"({"path":"a.txt"})");
    const json everyone = grantItem("g-2", "", "");
    WorkspaceStateStore console(statePath());
    InteractionState::Records records;
    QString problem;
    console.load(&records, &problem);
    console.putApprovals(grantsRecord({onlyClaude, everyone}));
    QVERIFY(console.flush(nullptr));
    {
        // A runner revokes the widest grant.
        WorkspaceStateStore runner(statePath());
        QCOMPARE(runner.load(&records, &problem), InteractionState::LoadResult::Loaded);
        runner.putApprovals(grantsRecord({onlyClaude}));
        QVERIFY(runner.flush(nullptr));
    }
    // The console, not knowing, grants one more: g-2 must stay revoked, g-3 arrives.
    const json thirdGrant = grantItem("g-3", "inspector", "");
    console.putApprovals(grantsRecord({onlyClaude, everyone, thirdGrant}));
    QVERIFY(console.flush(nullptr));
    const json approvals = json::parse(onDisk(statePath()).approvalsRecord().toStdString());
    QVERIFY2(approvals.at("grants") == json::array({onlyClaude, thirdGrant}), approvals.dump().c_str());

    // The broker reads them back with their scopes.
    InteractionBroker restarted({}, nullptr, std::make_unique<WorkspaceStateStore>(statePath()));
    QString warning;
    QCOMPARE(restarted.load(&warning), InteractionBroker::LoadResult::Loaded);
    const QList<ApprovalStore::Grant> grants = restarted.approvals().grants();
    QCOMPARE(grants.size(), 2);
    QCOMPARE(grants.at(0).clientName, QStringLiteral("claude-code"));
    QCOMPARE(grants.at(0).arguments, QByteArray(R"({"path":"a.txt"})"));
    QCOMPARE(grants.at(0).grantedBy, QStringLiteral("alice"));
    QCOMPARE(grants.at(1).clientName, QStringLiteral("inspector"));
    QVERIFY(grants.at(1).arguments.isEmpty());
}

// Every flush and every change another process makes is read back: reading a file of a few
// kilobytes allocated the whole gibibyte a state file may hold (QIODevice::read(max + 1)), which
// under AddressSanitizer took a minute of this test's run in the kernel.
void TestWorkspaceState::readingTakesMemoryForWhatTheFileHolds()
{
    {
        WorkspaceStateStore store(statePath());
        for (int n = 0; n < 20; ++n)
            store.putQuestion(QStringLiteral("ia-%1").arg(n), questionRecord(QStringLiteral("ia-%1").arg(n)));
        QVERIFY(store.flush(nullptr));
    }
    const qint64 size = QFileInfo(statePath()).size();
    QVERIFY(size > 1000);
    QProcess reader;
    reader.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    reader.start(self(), {QStringLiteral("--read-peak"), statePath()});
    QVERIFY(reader.waitForFinished(60'000));
    QCOMPARE(reader.exitCode(), 0);
    const QList<QByteArray> words = reader.readAllStandardOutput().trimmed().split(' ');
    QCOMPARE(words.value(0), QByteArray("grew"));
    QCOMPARE(words.value(3).toLongLong(), size);
    const qint64 grew = words.value(1).toLongLong();
    QVERIFY2(grew < 16 * 1024 * 1024,
        qPrintable(QStringLiteral("reading %1 bytes grew the address space by %2 bytes").arg(size).arg(grew)));
}

void TestWorkspaceState::tasksAreWrittenAndLoadBackInOrder()
{
    const QByteArray working = taskRecord(QStringLiteral("task-b"));
    const QByteArray completed = taskRecord(taskOf(QStringLiteral("task-a"), TaskRecord::Status::Completed));
    TaskRecord unlimited = taskOf(QStringLiteral("task-c"));
    unlimited.ttlMs.reset();
    {
        WorkspaceStateStore store(statePath());
        InteractionState::Records records;
        QString problem;
        QCOMPARE(store.load(&records, &problem), InteractionState::LoadResult::Empty);
        store.putTask(QStringLiteral("task-b"), working);
        store.putTask(QStringLiteral("task-a"), completed);
        store.putTask(QStringLiteral("task-c"), taskRecord(unlimited));
        store.putQuestion(QStringLiteral("ia-1"), questionRecord(QStringLiteral("ia-1")));
        QString error;
        QVERIFY2(store.flush(&error), qPrintable(error));
    }
    const WorkspaceStateRecords disk = onDisk(statePath());
    // Creation order, not the order of the ids.
    QCOMPARE(
        disk.taskIds(), (QStringList{QStringLiteral("task-b"), QStringLiteral("task-a"), QStringLiteral("task-c")}));
    QCOMPARE(disk.task(QStringLiteral("task-a")), completed);
    QVERIFY(disk.hasQuestion(QStringLiteral("ia-1")));

    WorkspaceStateStore restarted(statePath());
    InteractionState::Records records;
    QString problem;
    QCOMPARE(restarted.load(&records, &problem), InteractionState::LoadResult::Loaded);
    QCOMPARE(records.tasks.size(), std::size_t(3));
    QVERIFY(records.tasks.at(0) == json::parse(working.toStdString()));
    QVERIFY(records.tasks.at(1) == json::parse(completed.toStdString()));
    TaskRecord read;
    QVERIFY2(
        TaskRecord::fromJson(records.tasks.at(2), QStringLiteral("tasks[2]"), &read, &problem), qPrintable(problem));
    QCOMPARE(read.id, QStringLiteral("task-c"));
    QVERIFY(!read.ttlMs); // unlimited stays unlimited
    QCOMPARE(records.questions.size(), std::size_t(1));

    // A changed task keeps its place; a removed one is gone; a put of the same record changes nothing.
    const QByteArray cancelled = taskRecord(taskOf(QStringLiteral("task-b"), TaskRecord::Status::Cancelled));
    restarted.putTask(QStringLiteral("task-b"), cancelled);
    restarted.removeTask(QStringLiteral("task-a"));
    QVERIFY(restarted.flush(nullptr));
    const int writes = restarted.writer()->writeCount();
    restarted.putTask(QStringLiteral("task-b"), cancelled);
    restarted.removeTask(QStringLiteral("task-a"));
    QVERIFY(restarted.flush(nullptr));
    QCOMPARE(restarted.writer()->writeCount(), writes);
    const WorkspaceStateRecords after = onDisk(statePath());
    QCOMPARE(after.taskIds(), (QStringList{QStringLiteral("task-b"), QStringLiteral("task-c")}));
    QCOMPARE(after.task(QStringLiteral("task-b")), cancelled);
}

// A file written before tasks existed reads as it is, and a state without tasks is written byte for
// byte as it was then: no "tasks" key, not even an empty one.
void TestWorkspaceState::stateWithoutTasksIsWrittenAsBefore()
{
    const QByteArray question = questionRecord(QStringLiteral("ia-1"));
    const QByteArray expected = QByteArrayLiteral(R"({"version":2,"pending":[)") + question
        + QByteArrayLiteral(R"(],"clientOutputs":[{"key":"k","outputs":[)")
        + QByteArray::fromStdString(outputItem("ia-x").dump())
        + QByteArrayLiteral(R"(]}],"approvals":{"decisions":[],"grants":[]}})") + '\n';
    WorkspaceStateRecords parsed;
    QString problem;
    QVERIFY2(WorkspaceStateRecords::parse(expected, &parsed, &problem), qPrintable(problem));
    QVERIFY(parsed.taskIds().isEmpty());
    QCOMPARE(parsed.toBytes(), expected);

    WorkspaceStateStore store(statePath());
    store.putQuestion(QStringLiteral("ia-1"), question);
    store.putClientOutputs(outputsRecord({{"k", {"ia-x"}}}));
    QVERIFY(store.flush(nullptr));
    QCOMPARE(readFile(statePath()), expected);
    // A task that comes and goes leaves the file as it was.
    store.putTask(QStringLiteral("task-1"), taskRecord(QStringLiteral("task-1")));
    QVERIFY(store.flush(nullptr));
    QVERIFY(readFile(statePath()).contains(R"(]},"tasks":[{)"));
    store.removeTask(QStringLiteral("task-1"));
    QVERIFY(store.flush(nullptr));
    QCOMPARE(readFile(statePath()), expected);
}

void TestWorkspaceState::malformedTaskRecordsAreRefused_data()
{
    QTest::addColumn<QByteArray>("tasks"); // the file's "tasks" value
    QTest::addColumn<QString>("problem"); // what the refusal says, in part

    const json good = taskOf(QStringLiteral("task-1")).toJson();
    const auto text = [](const json& value) { return QByteArray::fromStdString(value.dump()); };
    json unknownField = good;
    unknownField["priority"] = 1;
    json unknownStatus = good;
    unknownStatus["status"] = "paused";
    json completedWithoutResult = good;
    completedWithoutResult["status"] = "completed";
    json negativeTtl = good;
    negativeTtl["ttlMs"] = -5;
    json resultNotAnObject = taskOf(QStringLiteral("task-1"), TaskRecord::Status::Completed).toJson();
    resultNotAnObject["result"] = "[1,2]";
    json second = taskOf(QStringLiteral("task-2")).toJson();
    second["status"] = "paused";

    QTest::newRow("unknown field") << text(json::array({unknownField}))
                                   << QStringLiteral("tasks[0] has an unknown field \"priority\"");
    QTest::newRow("unknown status") << text(json::array({unknownStatus}))
                                    << QStringLiteral("tasks[0] has an unknown status \"paused\"");
    QTest::newRow("completed without result")
        << text(json::array({completedWithoutResult})) << QStringLiteral("tasks[0] is completed without its result");
    QTest::newRow("duplicate id") << text(json::array({good, good}))
                                  << QStringLiteral("tasks[1] repeats the id task-1");
    QTest::newRow("negative ttlMs") << text(json::array({negativeTtl}))
                                    << QStringLiteral("tasks[0] has a negative \"ttlMs\"");
    QTest::newRow("result not an object") << text(json::array({resultNotAnObject}))
                                          << QStringLiteral("tasks[0] has a \"result\" that is not a JSON object");
    QTest::newRow("second record") << text(json::array({good, second}))
                                   << QStringLiteral("tasks[1] has an unknown status \"paused\"");
    QTest::newRow("not a record") << text(json::array({"task-1"})) << QStringLiteral("tasks[0] is not an object");
    QTest::newRow("not an array") << text(json::object({{"task-1", good}}))
                                  << QStringLiteral("\"tasks\" is missing or not an array");
}

void TestWorkspaceState::malformedTaskRecordsAreRefused()
{
    QFETCH(QByteArray, tasks);
    QFETCH(QString, problem);
    const QByteArray contents
        = QByteArrayLiteral(R"({"version":2,"pending":[],"clientOutputs":[],"approvals":{"decisions":[],"grants":[]},)")
        + QByteArrayLiteral(R"("tasks":)") + tasks + QByteArrayLiteral("}\n");
    WorkspaceStateRecords records;
    QString said;
    QVERIFY(!WorkspaceStateRecords::parse(contents, &records, &said));
    QVERIFY2(said.contains(problem), qPrintable(said));

    // The store refuses it the same way, so the broker sets the file aside instead of half reading it.
    {
        QFile file(statePath());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }
    WorkspaceStateStore store(statePath());
    InteractionState::Records loaded;
    said.clear();
    QCOMPARE(store.load(&loaded, &said), InteractionState::LoadResult::Unreadable);
    QVERIFY2(said.contains(problem), qPrintable(said));
}

// Two processes (two stores on one file, each learning of the other only through the file) create
// tasks of their own: both survive every merge, and a task one removes is not brought back by a
// write of the other, which still holds it in memory.
void TestWorkspaceState::tasksOfTwoStoresMergeAndRemovedOnesStayGone()
{
    WorkspaceStateStore first(statePath());
    WorkspaceStateStore second(statePath());
    InteractionState::Records records;
    QString problem;
    QCOMPARE(first.load(&records, &problem), InteractionState::LoadResult::Empty);
    QCOMPARE(second.load(&records, &problem), InteractionState::LoadResult::Empty);
    std::vector<InteractionState::CompactRecords> seen;
    connect(&second, &InteractionState::changedElsewhere, this,
        [&](const InteractionState::CompactRecords& now) { seen.push_back(now); });

    first.putTask(QStringLiteral("task-1"), taskRecord(QStringLiteral("task-1")));
    QVERIFY(first.flush(nullptr));
    second.putTask(QStringLiteral("task-2"), taskRecord(QStringLiteral("task-2")));
    QVERIFY(second.flush(nullptr));
    QCOMPARE(onDisk(statePath()).taskIds(), (QStringList{QStringLiteral("task-1"), QStringLiteral("task-2")}));
    // The second's write found the first's task: it comes out as a change made elsewhere.
    QTRY_VERIFY_WITH_TIMEOUT(second.records().hasTask(QStringLiteral("task-1")), 10'000);
    QVERIFY(!seen.empty());
    std::vector<QString> told;
    for (const auto& [id, record] : seen.back().tasks) {
        told.push_back(id);
        QCOMPARE(record, taskRecord(id));
    }
    QCOMPARE(told, (std::vector<QString>{QStringLiteral("task-1"), QStringLiteral("task-2")}));

    const std::size_t toldBeforeRemoval = seen.size();
    first.removeTask(QStringLiteral("task-1"));
    QVERIFY(first.flush(nullptr));
    QVERIFY(second.records().hasTask(QStringLiteral("task-1"))); // no event processed: still held here
    second.putTask(QStringLiteral("task-3"), taskRecord(QStringLiteral("task-3")));
    QVERIFY(second.flush(nullptr));
    QCOMPARE(onDisk(statePath()).taskIds(), (QStringList{QStringLiteral("task-2"), QStringLiteral("task-3")}));

    // A change to the other's task is merged like any other, and both end with what the file holds.
    const QByteArray completed = taskRecord(taskOf(QStringLiteral("task-2"), TaskRecord::Status::Completed));
    first.putTask(QStringLiteral("task-2"), completed);
    QVERIFY(first.flush(nullptr));
    const WorkspaceStateRecords disk = onDisk(statePath());
    QCOMPARE(disk.taskIds(), (QStringList{QStringLiteral("task-2"), QStringLiteral("task-3")}));
    QCOMPARE(disk.task(QStringLiteral("task-2")), completed);
    QTRY_VERIFY_WITH_TIMEOUT(first.records().sameContent(disk), 10'000);
    second.watch();
    QTRY_VERIFY_WITH_TIMEOUT(second.records().sameContent(disk), 10'000);
    QVERIFY(!second.records().hasTask(QStringLiteral("task-1")));
    QVERIFY(seen.size() > toldBeforeRemoval);
    for (std::size_t index = toldBeforeRemoval; index < seen.size(); ++index) {
        for (const auto& [id, record] : seen[index].tasks)
            QVERIFY(id != QStringLiteral("task-1")); // never told of as there after its removal
    }
}

// The server hands out a task's handle only once the task is durable: whenStored answers true only
// when the file holds what was put before it, in the order it was asked, and never from inside the
// call itself.
void TestWorkspaceState::whenStoredAnswersOnceTheTasksAreOnDisk()
{
    // Writes at most every 1.5 s: after the flush below, what is put waits that long for the file.
    WorkspaceStateStore store(statePath(), WorkspaceStateWriteTiming{1'500, 1'000, 30'000, 5'000});
    InteractionState::Records records;
    QString problem;
    store.load(&records, &problem);
    store.putQuestion(QStringLiteral("ia-1"), questionRecord(QStringLiteral("ia-1")));
    QVERIFY(store.flush(nullptr));
    QStringList answers; // "<n> <stored> <what the file held at that moment>"
    const auto waiter = [&](int n, QStringList wanted) {
        return [&answers, this, n, wanted](bool stored) {
            const WorkspaceStateRecords disk = onDisk(statePath());
            bool there = true;
            for (const QString& id : wanted)
                there = there && disk.hasTask(id);
            answers << QStringLiteral("%1 %2 %3")
                           .arg(n)
                           .arg(stored ? 1 : 0)
                           .arg(there ? QStringLiteral("there") : QStringLiteral("missing"));
        };
    };

    store.putTask(QStringLiteral("task-1"), taskRecord(QStringLiteral("task-1")));
    store.whenStored(waiter(1, {QStringLiteral("task-1")}));
    QVERIFY(answers.isEmpty()); // not from inside the call
    store.putTask(QStringLiteral("task-2"), taskRecord(QStringLiteral("task-2")));
    store.whenStored(waiter(2, {QStringLiteral("task-1"), QStringLiteral("task-2")}));
    store.whenStored(waiter(3, {QStringLiteral("task-1"), QStringLiteral("task-2")})); // nothing new since 2
    store.putTask(QStringLiteral("task-3"), taskRecord(QStringLiteral("task-3")));
    store.whenStored(waiter(4, {QStringLiteral("task-3")}));
    QVERIFY(answers.isEmpty());
    // The events run (the flush's sync among them) while the write waits: nobody is told yet.
    QTest::qWait(300);
    QVERIFY(!onDisk(statePath()).hasTask(QStringLiteral("task-1")));
    QVERIFY(answers.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 4, 10'000);
    QCOMPARE(answers,
        (QStringList{QStringLiteral("1 1 there"), QStringLiteral("2 1 there"), QStringLiteral("3 1 there"),
            QStringLiteral("4 1 there")}));

    // With everything on disk already the answer still comes from the event loop, not the call.
    store.whenStored(waiter(5, {QStringLiteral("task-3")}));
    QCOMPARE(answers.size(), 4);
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), 5, 10'000);
    QCOMPARE(answers.back(), QStringLiteral("5 1 there"));

    // A removal is stored like a put: the answer comes once the task is gone from the file.
    store.removeTask(QStringLiteral("task-1"));
    bool removed = false;
    store.whenStored([&](bool stored) { removed = stored && !onDisk(statePath()).hasTask(QStringLiteral("task-1")); });
    QVERIFY(!removed);
    QTRY_VERIFY_WITH_TIMEOUT(removed, 10'000);

    // A store that never had a change answers too.
    WorkspaceStateStore idle(m_dir->filePath(QStringLiteral("idle.json")));
    int idleAnswers = 0;
    idle.whenStored([&](bool stored) { idleAnswers += stored ? 1 : 100; });
    QCOMPARE(idleAnswers, 0);
    QTRY_COMPARE_WITH_TIMEOUT(idleAnswers, 1, 10'000);
}

// A write that fails (here: another process holds the lock) is retried; whoever waits is answered
// once the retry gets through, never told false meanwhile.
void TestWorkspaceState::whenStoredWaitsForARetryRatherThanFailing()
{
    QString error;
    auto held = StateFileLock::acquire(StateFileLock::lockPathFor(statePath()), std::chrono::milliseconds(0), &error);
    QVERIFY2(held, qPrintable(error));
    WorkspaceStateStore store(statePath(), WorkspaceStateWriteTiming{0, 20, 200, 100});
    int failures = 0;
    connect(&store, &InteractionState::writeFailed, this, [&] { ++failures; });
    std::vector<bool> answers;
    bool onDiskWhenAnswered = false;
    store.putTask(QStringLiteral("task-1"), taskRecord(QStringLiteral("task-1")));
    store.whenStored([&](bool stored) {
        answers.push_back(stored);
        onDiskWhenAnswered = onDisk(statePath()).hasTask(QStringLiteral("task-1"));
    });
    QTRY_VERIFY_WITH_TIMEOUT(failures >= 1, 10'000);
    QTest::qWait(300); // a few retries fail meanwhile
    QVERIFY(answers.empty());
    QVERIFY(!QFile::exists(statePath()));
    held.reset();
    QTRY_COMPARE_WITH_TIMEOUT(answers.size(), std::size_t(1), 20'000);
    QVERIFY(answers.front());
    QVERIFY(onDiskWhenAnswered);
}

void TestWorkspaceState::whenStoredWaitersAreAnsweredWhenTheStoreGoes_data()
{
    QTest::addColumn<bool>("locked"); // another process holds the file's lock throughout
    QTest::newRow("written") << false;
    QTest::newRow("cannot be written") << true;
}

// Destroyed before its event loop ran again: each waiter still gets its answer, from the last write
// (true when it got there, false when it could not).
void TestWorkspaceState::whenStoredWaitersAreAnsweredWhenTheStoreGoes()
{
    QFETCH(bool, locked);
    QString error;
    std::optional<StateFileLock> held;
    if (locked) {
        held = StateFileLock::acquire(StateFileLock::lockPathFor(statePath()), std::chrono::milliseconds(0), &error);
        QVERIFY2(held, qPrintable(error));
    }
    std::vector<bool> answers;
    {
        WorkspaceStateStore store(statePath(), WorkspaceStateWriteTiming{10'000, 20, 200, 200});
        store.putTask(QStringLiteral("task-1"), taskRecord(QStringLiteral("task-1")));
        store.whenStored([&](bool stored) { answers.push_back(stored); });
        store.putTask(QStringLiteral("task-2"), taskRecord(QStringLiteral("task-2")));
        store.whenStored([&](bool stored) { answers.push_back(stored); });
        QVERIFY(answers.empty());
    }
    QCOMPARE(answers, (std::vector<bool>{!locked, !locked}));
    if (locked)
        QVERIFY(!QFile::exists(statePath()));
    else
        QCOMPARE(onDisk(statePath()).taskIds(), (QStringList{QStringLiteral("task-1"), QStringLiteral("task-2")}));
}

// Many tasks: all are written in one flush and read back in order (how long it took is printed,
// not asserted: machines differ).
void TestWorkspaceState::tenThousandTasksLoad()
{
    constexpr int Tasks = 10'000;
    QElapsedTimer clock;
    {
        WorkspaceStateStore store(statePath());
        clock.start();
        for (int n = 0; n < Tasks; ++n) {
            TaskRecord task = taskOf(QStringLiteral("task-%1").arg(n),
                n % 2 == 0 ? TaskRecord::Status::Completed : TaskRecord::Status::Working);
            task.callId = n;
            store.putTask(task.id, taskRecord(task));
        }
        const qint64 putMs = clock.restart();
        QString error;
        QVERIFY2(store.flush(&error), qPrintable(error));
        qInfo("%d tasks: put in %lld ms, flushed in %lld ms (%lld bytes)", Tasks, static_cast<long long>(putMs),
            static_cast<long long>(clock.elapsed()), static_cast<long long>(QFileInfo(statePath()).size()));
    }
    WorkspaceStateStore restarted(statePath());
    InteractionState::Records records;
    QString problem;
    clock.restart();
    QCOMPARE(restarted.load(&records, &problem), InteractionState::LoadResult::Loaded);
    qInfo("%d tasks: loaded in %lld ms", Tasks, static_cast<long long>(clock.elapsed()));
    QCOMPARE(records.tasks.size(), std::size_t(Tasks));
    for (int n : {0, 1, Tasks / 2, Tasks - 1}) {
        const json& task = records.tasks.at(std::size_t(n));
        QCOMPARE(task.at("id").get<std::string>(), QStringLiteral("task-%1").arg(n).toStdString());
        QCOMPARE(task.at("callId").get<qint64>(), qint64(n));
    }
    QCOMPARE(restarted.records().taskIds().size(), Tasks);
}

#include "tst_workspacestate.moc"
