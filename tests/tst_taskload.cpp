// Tasks in bulk over real HTTP: ten thousand tasks and a poll flood (the store's bound holding at
// the ten-thousand-and-first), and a restart with a thousand durable tasks pending. Apart from
// tst_taskhttp so that the sanitizer builds, which run that one, are spared the volume.

#include "tasktestsupport.h"

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>

class TestTaskLoad : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tenThousandTasksAndAPollFlood();
    void aRestartWithAThousandTasksPending();
};

namespace {

// Starts `count` long calls that become tasks at once, in batches sent all together as many clients
// would (no client holding more connections waiting than it may, 64): their task ids, in call order.
std::vector<std::string> startLongTasks(quint16 port, int count)
{
    constexpr int Batch = 300;
    std::vector<std::string> ids;
    ids.reserve(std::size_t(count));
    for (int first = 0; first < count; first += Batch) {
        std::vector<std::unique_ptr<RawHttpClient>> callers;
        for (int i = first; i < std::min(first + Batch, count); ++i)
            callers.push_back(call(port, i, "slow", json::object(), "client-" + std::to_string(i % 10)));
        for (auto& caller : callers) {
            const json handle = responseIn(caller->read(60'000));
            if (!handle.is_object() || !handle.contains("result")
                || handle.at("result").value("resultType", "") != "task")
                return {};
            ids.push_back(handle.at("result").at("taskId"));
        }
    }
    return ids;
}

} // namespace

void TestTaskLoad::tenThousandTasksAndAPollFlood()
{
    // Ten thousand long calls become tasks, each polled once by its owner and a hundred by another
    // client; the bound holds at the ten-thousand-and-first. Figures are printed, not asserted:
    // the benchmark measures speed.
    constexpr int Tasks = 10'000;
    ServerFixture server(options(0), interactionSettings());
    QElapsedTimer timer;
    timer.start();
    const std::vector<std::string> ids = startLongTasks(server.port, Tasks);
    QCOMPARE(int(ids.size()), Tasks);
    const qint64 createMs = timer.restart();
    QCOMPARE(server.tasks().size(), Tasks);
    QCOMPARE(server.pendingSlow(), Tasks);
    for (int i = 0; i < Tasks; ++i) {
        const json task = taskGet(server.port, ids[std::size_t(i)], "client-" + std::to_string(i % 10));
        QVERIFY2(task.at("result").at("status") == "working", task.dump().c_str());
    }
    const qint64 pollMs = timer.restart();
    int leaked = 0;
    for (int i = 0; i < 100; ++i)
        leaked += taskGet(server.port, ids[std::size_t(i)], "client-other").contains("result") ? 1 : 0;
    QCOMPARE(leaked, 0);
    // One more stays on its open response: the store is full.
    auto extra = call(server.port, Tasks, "slow", json::object(), "client-extra");
    QTRY_COMPARE_WITH_TIMEOUT(server.pendingSlow(), Tasks + 1, 10'000);
    QTest::qWait(100);
    QCOMPARE(server.tasks().size(), Tasks);
    server.releaseSlow(QStringLiteral("done"));
    const json answer = responseIn(extra->read());
    QVERIFY2(answer.at("result").at("resultType") == "complete", answer.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(
        taskGet(server.port, ids.back(), "client-" + std::to_string((Tasks - 1) % 10)).at("result").at("status")
            == "completed",
        30'000);
    qInfo("%d tasks over HTTP: handed out in %lld ms, each polled in %lld ms in all", Tasks, createMs, pollMs);
}

void TestTaskLoad::aRestartWithAThousandTasksPending()
{
    // Each handle goes out only once its task is in the state file; the restart finds them all and
    // fails them, since their calls were running.
    constexpr int Tasks = 1'000;
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString statePath = directory.filePath(QStringLiteral("workspace.json"));
    std::vector<std::string> ids;
    QElapsedTimer timer;
    {
        ServerFixture server(options(0), interactionSettings(statePath));
        timer.start();
        ids = startLongTasks(server.port, Tasks);
        QCOMPARE(int(ids.size()), Tasks);
        qInfo("%d durable tasks over HTTP: handed out in %lld ms", Tasks, timer.elapsed());
    } // Switchboard stops with every task running
    timer.restart();
    ServerFixture server(options(0), interactionSettings(statePath));
    const qint64 restartMs = timer.elapsed();
    const TaskRecordList restored = server.tasks();
    QCOMPARE(restored.size(), Tasks);
    QVERIFY(std::all_of(restored.cbegin(), restored.cend(),
        [](const TaskRecord& task) { return task.status == TaskRecord::Status::Failed; }));
    QVERIFY(taskGet(server.port, ids.back(), "client-" + std::to_string((Tasks - 1) % 10)).at("result").at("status")
        == "failed");
    qInfo("restart with %d tasks in the state: serving again after %lld ms", Tasks, restartMs);
}

QTEST_GUILESS_MAIN(TestTaskLoad)
#include "tst_taskload.moc"
