// TaskStore: tasks kept with the interaction state: unguessable ids, ownership, bounds by count
// and by bytes, the lifetime (failed at the TTL, removed a little later), a result too large to
// keep, restore in creation order, and ten thousand tasks.

#include "interaction/taskstore.h"

#include <QElapsedTimer>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using nlohmann::json;

namespace {

TaskRecord seed(const QString& owner = QStringLiteral("declared:agent"))
{
    TaskRecord task;
    task.owner = owner;
    task.clientName = QStringLiteral("agent");
    task.tool = QStringLiteral("write");
    task.request = R"({"name":"write","arguments":{"path":"a"}})";
    return task;
}

} // namespace

class TestTaskStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idsAreUnguessable();
    void aTaskIsItsOwnersOnly();
    void theStoreIsBoundedByCountAndBytes();
    void aTaskPastItsLifetimeFailsThenGoes();
    void aResultTooLargeToKeepFailsTheTask();
    void restoreKeepsTheOrderAndRefusesRepeats();
    void tenThousandTasks();

private:
    qint64 m_now = 1'000'000;
    TaskStore::Settings settings()
    {
        TaskStore::Settings settings;
        settings.clock = [this] { return m_now; };
        return settings;
    }
};

void TestTaskStore::idsAreUnguessable()
{
    QSet<QString> ids;
    for (int i = 0; i < 1000; ++i) {
        const QString id = TaskStore::newId();
        QVERIFY(id.startsWith(QStringLiteral("task-")));
        QCOMPARE(id.size(), 5 + 32); // 128 bits in hex
        ids.insert(id);
    }
    QCOMPARE(ids.size(), 1000);
}

void TestTaskStore::aTaskIsItsOwnersOnly()
{
    TaskStore store(settings(), nullptr);
    QString refusal;
    const std::optional<TaskRecord> task = store.create(seed(), &refusal);
    QVERIFY2(task, qPrintable(refusal));
    QCOMPARE(task->createdAtMs, m_now);
    QCOMPARE(task->ttlMs, std::optional<qint64>(3'600'000));
    QVERIFY(store.findOwned(task->id, QStringLiteral("declared:agent")));
    QVERIFY(!store.findOwned(task->id, QStringLiteral("declared:other")));
    QVERIFY(!store.findOwned(QStringLiteral("task-unknown"), QStringLiteral("declared:agent")));
}

void TestTaskStore::theStoreIsBoundedByCountAndBytes()
{
    TaskStore::Settings bounded = settings();
    bounded.maxTasks = 3;
    TaskStore byCount(bounded, nullptr);
    QString refusal;
    for (int i = 0; i < 3; ++i)
        QVERIFY(byCount.create(seed(), &refusal));
    QVERIFY(!byCount.create(seed(), &refusal));
    QVERIFY(refusal.contains(QStringLiteral("3 tasks")));
    QCOMPARE(byCount.count(), 3);

    TaskStore::Settings small = settings();
    TaskRecord big = seed();
    big.request
        = QByteArray::fromStdString(json{{"name", "write"}, {"arguments", {{"text", std::string(4000, 'x')}}}}.dump());
    small.maxBytes = 10'000;
    TaskStore byBytes(small, nullptr);
    QVERIFY(byBytes.create(big, &refusal));
    QVERIFY(byBytes.create(big, &refusal));
    QVERIFY(!byBytes.create(big, &refusal));
    QVERIFY(byBytes.bytes() <= small.maxBytes);
    // Removing one makes room again.
    byBytes.remove(byBytes.all().front().id);
    QVERIFY(byBytes.create(big, &refusal));
}

void TestTaskStore::aTaskPastItsLifetimeFailsThenGoes()
{
    TaskStore::Settings shortLived = settings();
    shortLived.ttlMs = 1'000;
    shortLived.keepAfterExpiryMs = 500;
    TaskStore store(shortLived, nullptr);
    QSignalSpy ended(&store, &TaskStore::lifetimeEnded);
    QSignalSpy removed(&store, &TaskStore::taskRemoved);
    QString refusal;
    const QString running = store.create(seed(), &refusal)->id;
    const QString done = store.create(seed(), &refusal)->id;
    store.update(done, [](TaskRecord& task) {
        task.status = TaskRecord::Status::Completed;
        task.result = R"({"content":[]})";
    });
    m_now += 999;
    store.sweep();
    QCOMPARE(ended.count(), 0);
    m_now += 1;
    store.sweep();
    QCOMPARE(ended.count(), 1);
    QCOMPARE(ended.front().front().toString(), running);
    QCOMPARE(store.find(running)->status, TaskRecord::Status::Failed);
    QVERIFY(store.find(running)->toWire(true).at("error").at("message").get<std::string>().find("lifetime")
        != std::string::npos);
    QVERIFY(store.find(done)); // ended tasks stay a while after their TTL
    m_now += 500;
    store.sweep();
    QVERIFY(!store.find(done));
    QVERIFY(!store.find(running));
    QCOMPARE(removed.count(), 2);
}

void TestTaskStore::aResultTooLargeToKeepFailsTheTask()
{
    TaskStore::Settings small = settings();
    small.maxResultBytes = 100;
    TaskStore store(small, nullptr);
    QString refusal;
    const QString id = store.create(seed(), &refusal)->id;
    store.update(id, [](TaskRecord& task) {
        task.status = TaskRecord::Status::Completed;
        task.result = QByteArray::fromStdString(
            json{{"content", {{{"type", "text"}, {"text", std::string(200, 'y')}}}}}.dump());
    });
    const TaskRecord* task = store.find(id);
    QCOMPARE(task->status, TaskRecord::Status::Failed);
    QVERIFY(task->result.isEmpty());
    QVERIFY(task->toWire(true).at("error").at("message").get<std::string>().find("larger than") != std::string::npos);
}

void TestTaskStore::restoreKeepsTheOrderAndRefusesRepeats()
{
    TaskStore source(settings(), nullptr);
    QString refusal;
    std::vector<json> records;
    QStringList ids;
    for (int i = 0; i < 5; ++i) {
        const TaskRecord task = *source.create(seed(), &refusal);
        records.push_back(task.toJson());
        ids.append(task.id);
    }
    TaskStore restored(settings(), nullptr);
    QString problem;
    QVERIFY2(restored.restore(records, &problem), qPrintable(problem));
    QStringList order;
    for (const TaskRecord& task : restored.all())
        order.append(task.id);
    QCOMPARE(order, ids);
    QCOMPARE(restored.bytes(), source.bytes());

    records.push_back(records.front());
    TaskStore repeated(settings(), nullptr);
    QVERIFY(!repeated.restore(records, &problem));
    QVERIFY2(problem.contains(QStringLiteral("repeats")), qPrintable(problem));
    QCOMPARE(repeated.count(), 0); // nothing half-restored
}

void TestTaskStore::tenThousandTasks()
{
    TaskStore store(settings(), nullptr);
    QString refusal;
    QElapsedTimer timer;
    timer.start();
    QStringList ids;
    for (int i = 0; i < 10'000; ++i) {
        const std::optional<TaskRecord> task
            = store.create(seed(QStringLiteral("declared:client-%1").arg(i % 10)), &refusal);
        QVERIFY2(task, qPrintable(refusal));
        ids.append(task->id);
    }
    const qint64 createMs = timer.restart();
    for (int i = 0; i < ids.size(); ++i)
        QVERIFY(store.findOwned(ids[i], QStringLiteral("declared:client-%1").arg(i % 10)));
    const qint64 findMs = timer.restart();
    // The bound holds at ten thousand (the default).
    QVERIFY(!store.create(seed(), &refusal));
    m_now += 3'600'000 + 60'000;
    store.sweep();
    QCOMPARE(store.count(), 10'000); // failed at the TTL, kept a while
    m_now += 60'000;
    store.sweep();
    QCOMPARE(store.count(), 0);
    QCOMPARE(store.bytes(), 0);
    qInfo("10,000 tasks: created in %lld ms, each found by its owner in %lld ms in all", createMs, findMs);
}

QTEST_GUILESS_MAIN(TestTaskStore)
#include "tst_taskstore.moc"
