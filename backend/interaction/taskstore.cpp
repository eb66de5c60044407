#include "interaction/taskstore.h"

#include "boundedjson.h"

#include <QDateTime>
#include <QRandomGenerator>

#include <array>

using nlohmann::json;

TaskStore::TaskStore(Settings settings, InteractionState* state, QObject* parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_state(state)
{
    m_sweeper.setInterval(m_settings.sweepIntervalMs);
    connect(&m_sweeper, &QTimer::timeout, this, &TaskStore::sweep);
}

qint64 TaskStore::now() const
{
    return m_settings.clock ? m_settings.clock() : QDateTime::currentMSecsSinceEpoch();
}

QString TaskStore::newId()
{
    // 128 bits from the operating system's generator: a task id is as good as a bearer token for
    // whoever holds it (the extension's "unguessable").
    std::array<quint32, 4> words{};
    QRandomGenerator::system()->fillRange(words.data(), qsizetype(words.size()));
    QByteArray bytes(reinterpret_cast<const char*>(words.data()), qsizetype(sizeof(words)));
    return QStringLiteral("task-") + QString::fromLatin1(bytes.toHex());
}

bool TaskStore::restore(const std::vector<json>& records, QString* problem)
{
    QHash<QString, Entry> tasks;
    std::map<quint64, QString> order;
    quint64 sequence = 0;
    qint64 bytes = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        Entry entry;
        if (!TaskRecord::fromJson(records[i], QStringLiteral("tasks[%1]").arg(qulonglong(i)), &entry.task, problem))
            return false;
        if (tasks.contains(entry.task.id)) {
            *problem = QStringLiteral("tasks[%1] repeats the id %2").arg(qulonglong(i)).arg(entry.task.id);
            return false;
        }
        entry.bytes = qint64(records[i].dump().size());
        entry.sequence = ++sequence;
        bytes += entry.bytes;
        order.emplace(entry.sequence, entry.task.id);
        tasks.insert(entry.task.id, std::move(entry));
    }
    m_tasks = std::move(tasks);
    m_order = std::move(order);
    m_nextSequence = sequence;
    m_bytes = bytes;
    startSweeping();
    return true;
}

void TaskStore::adoptExternal(const std::vector<std::pair<QString, QByteArray>>& records)
{
    QSet<QString> seen;
    for (const auto& [id, record] : records) {
        seen.insert(id);
        const auto it = m_tasks.find(id);
        const BoundedJson::Result<json> parsed = BoundedJson::parse(record, BoundedJson::Limits::record());
        Entry entry;
        QString problem;
        if (!parsed.ok
            || !TaskRecord::fromJson(parsed.value, QStringLiteral("task %1").arg(id), &entry.task, &problem)) {
            qWarning("switchboard: a task another process wrote cannot be read: %s", qPrintable(problem));
            continue;
        }
        entry.bytes = record.size();
        if (it != m_tasks.end()) {
            if (it->task.toJson() == entry.task.toJson())
                continue;
            m_bytes += entry.bytes - it->bytes;
            entry.sequence = it->sequence;
            *it = entry;
        } else {
            entry.sequence = ++m_nextSequence;
            m_order.emplace(entry.sequence, id);
            m_bytes += entry.bytes;
            m_tasks.insert(id, entry);
        }
        Q_EMIT taskChanged(entry.task);
    }
    QStringList gone;
    for (auto it = m_tasks.cbegin(); it != m_tasks.cend(); ++it) {
        if (!seen.contains(it.key()))
            gone.append(it.key());
    }
    for (const QString& id : gone) {
        const auto it = m_tasks.find(id);
        m_bytes -= it->bytes;
        m_order.erase(it->sequence);
        m_tasks.erase(it);
        Q_EMIT taskRemoved(id);
    }
    startSweeping();
}

std::optional<TaskRecord> TaskStore::create(TaskRecord task, QString* refusal)
{
    if (task.id.isEmpty())
        task.id = newId();
    if (task.createdAtMs == 0)
        task.createdAtMs = now();
    // The store's lifetime and poll interval, whatever the caller set: one policy for every task.
    task.ttlMs = m_settings.ttlMs;
    task.pollIntervalMs = m_settings.pollIntervalMs;
    task.lastUpdatedAtMs = std::max(task.lastUpdatedAtMs, task.createdAtMs);
    if (m_tasks.contains(task.id)) {
        *refusal = QStringLiteral("a task with the id %1 exists already").arg(task.id);
        return std::nullopt;
    }
    Entry entry;
    entry.task = std::move(task);
    entry.bytes = entry.task.sizeInState();
    if (count() >= m_settings.maxTasks || m_bytes + entry.bytes > m_settings.maxBytes) {
        sweep(); // tasks past their lifetime make room first
        if (count() >= m_settings.maxTasks || m_bytes + entry.bytes > m_settings.maxBytes) {
            *refusal = QStringLiteral("Switchboard holds as many tasks as it may (%1 tasks, %2 MiB of them)")
                           .arg(m_settings.maxTasks)
                           .arg(m_settings.maxBytes / (1024 * 1024));
            return std::nullopt;
        }
    }
    entry.sequence = ++m_nextSequence;
    const QString id = entry.task.id;
    m_order.emplace(entry.sequence, id);
    m_bytes += entry.bytes;
    Entry& stored = *m_tasks.insert(id, std::move(entry));
    if (m_state)
        m_state->putTask(id, QByteArray::fromStdString(stored.task.toJson().dump()));
    startSweeping();
    const TaskRecord created = stored.task;
    Q_EMIT taskChanged(created);
    return created;
}

const TaskRecord* TaskStore::find(const QString& id) const
{
    const auto it = m_tasks.constFind(id);
    return it == m_tasks.cend() ? nullptr : &it->task;
}

const TaskRecord* TaskStore::findOwned(const QString& id, const QString& owner) const
{
    const TaskRecord* task = find(id);
    return task && task->owner == owner ? task : nullptr;
}

bool TaskStore::update(const QString& id, const std::function<void(TaskRecord&)>& change)
{
    const auto it = m_tasks.find(id);
    if (it == m_tasks.end())
        return false;
    TaskRecord changed = it->task;
    change(changed);
    changed.id = id; // never another task's
    changed.lastUpdatedAtMs = std::max(now(), changed.createdAtMs);
    if (changed.status == TaskRecord::Status::Completed && changed.result.size() > m_settings.maxResultBytes) {
        const qint64 size = changed.result.size();
        changed.status = TaskRecord::Status::Failed;
        changed.result.clear();
        changed.error = QByteArray::fromStdString(json{{"code", -32603},
            {"message",
                QStringLiteral("The call's result (%1 bytes) is larger than a task may keep (%2 bytes)")
                    .arg(size)
                    .arg(m_settings.maxResultBytes)
                    .toStdString()}}.dump());
        changed.statusMessage = QStringLiteral("the call ended, but its result was too large to keep");
    }
    Entry& entry = *it;
    entry.task = std::move(changed);
    const QByteArray record = QByteArray::fromStdString(entry.task.toJson().dump());
    m_bytes += record.size() - entry.bytes;
    entry.bytes = record.size();
    if (m_state)
        m_state->putTask(id, record);
    const TaskRecord updated = entry.task;
    Q_EMIT taskChanged(updated);
    return true;
}

void TaskStore::remove(const QString& id)
{
    if (!m_tasks.contains(id))
        return;
    erase(id);
    Q_EMIT taskRemoved(id);
}

void TaskStore::erase(const QString& id)
{
    const auto it = m_tasks.find(id);
    m_bytes -= it->bytes;
    m_order.erase(it->sequence);
    m_tasks.erase(it);
    if (m_state)
        m_state->removeTask(id);
}

void TaskStore::whenStored(std::function<void(bool stored)> done)
{
    if (m_state) {
        m_state->whenStored(std::move(done));
        return;
    }
    // Nothing to wait for, but never re-entering the caller.
    QMetaObject::invokeMethod(
        this, [done = std::move(done)] { done(true); }, Qt::QueuedConnection);
}

QList<TaskRecord> TaskStore::all() const
{
    QList<TaskRecord> tasks;
    tasks.reserve(count());
    for (const auto& [sequence, id] : m_order)
        tasks.append(m_tasks.value(id).task);
    return tasks;
}

void TaskStore::sweep()
{
    const qint64 time = now();
    QStringList ended;
    QStringList gone;
    for (const auto& [sequence, id] : m_order) {
        const TaskRecord& task = m_tasks.value(id).task;
        const std::optional<qint64> expires = task.expiresAtMs();
        if (!expires || time < *expires)
            continue;
        if (!task.isTerminal())
            ended.append(id);
        else if (time >= std::max(*expires, task.lastUpdatedAtMs) + m_settings.keepAfterExpiryMs)
            gone.append(id);
    }
    // Each change emits a signal whose receivers may change the store: ids first, looked up again.
    for (const QString& id : std::as_const(ended)) {
        const TaskRecord* task = find(id);
        if (!task || task->isTerminal())
            continue;
        update(id, [](TaskRecord& expired) {
            expired.status = TaskRecord::Status::Failed;
            expired.waitsOn.clear();
            expired.inputRequests.clear();
            expired.error = QByteArray::fromStdString(
                json{{"code", -32603}, {"message", "Failed to complete the task: its lifetime (ttlMs) ended"}}.dump());
            expired.statusMessage
                = QStringLiteral("the task's lifetime ended before its call did; the call was stopped");
        });
        Q_EMIT lifetimeEnded(id);
    }
    for (const QString& id : std::as_const(gone))
        remove(id);
    if (m_tasks.isEmpty())
        m_sweeper.stop();
}

void TaskStore::startSweeping()
{
    if (!m_tasks.isEmpty() && !m_sweeper.isActive())
        m_sweeper.start();
}
