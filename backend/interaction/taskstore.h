#pragma once

// TaskStore: the tasks of the Tasks extension (MCP 2026-07-28) that this process knows, kept with
// the interaction state (the workspace state file), so a restart keeps them and another process
// sharing the state sees them. Knows nothing of calls or HTTP: whoever runs a task's call (the
// TaskHost) creates the task, changes it as the call goes on, and hears when its lifetime ends.
//
// Bounded by count and by bytes (every record as the state keeps it): creating a task past either
// bound is refused, and the caller keeps the call on its open response instead. A task past its
// TTL is failed (and its runner told to stop the call); a failed or ended task past its TTL is
// removed a little later, so a client polling at the last moment still sees why it ended.
//
// Lives on the server thread, like the InteractionBroker that owns it.

#include "store/interactionstate.h"
#include "taskrecord.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <map>
#include <optional>

class TaskStore : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        // A task's lifetime from its creation; nullopt: unlimited. Longer than the longest wait for
        // a person (InteractionBroker::Settings::maxWaitMs), so an unanswered question ends the
        // call (with its timeout result) before the task expires.
        std::optional<qint64> ttlMs = 3'600'000;
        qint64 pollIntervalMs = 1'000; // suggested to clients with every task
        int maxTasks = 10'000; // in this process's state, every client together
        qint64 maxBytes = 256LL * 1024 * 1024; // their records in the state, together
        // A result larger than this is not kept: the task fails, saying so.
        qint64 maxResultBytes = 8LL * 1024 * 1024;
        // How long a task stays after its TTL, failed or ended, before it is removed.
        qint64 keepAfterExpiryMs = 60'000;
        int sweepIntervalMs = 1'000;
        std::function<qint64()> clock; // ms since the epoch; the system clock when empty
    };

    // `state` (null: memory only) must outlive the store.
    TaskStore(Settings settings, InteractionState* state, QObject* parent = nullptr);

    const Settings& settings() const { return m_settings; }
    // The state cannot be written this run: tasks are kept in memory only from now on.
    void keepInMemoryOnly() { m_state = nullptr; }
    qint64 now() const;

    // The tasks load() found, in creation order (each already checked by TaskRecord::fromJson).
    // False, saying why, when one cannot be read after all; nothing is restored then.
    bool restore(const std::vector<nlohmann::json>& records, QString* problem);
    // The tasks as another process left the state (this process's own changes included): new ones
    // are taken in, changed ones replaced, gone ones removed (taskChanged / taskRemoved).
    void adoptExternal(const std::vector<std::pair<QString, QByteArray>>& records);

    // A new, unguessable task id.
    static QString newId();
    // Adds `task` (its id and creation time as the caller set them, newId() and now() when empty;
    // the TTL and poll interval the settings say) and puts it in the state. Nullopt with `refusal` when the
    // store is full.
    std::optional<TaskRecord> create(TaskRecord task, QString* refusal);
    const TaskRecord* find(const QString& id) const;
    // The task, only for the identity that created it: another identity's task is as unknown as a
    // task that never was.
    const TaskRecord* findOwned(const QString& id, const QString& owner) const;
    // Changes a task and puts it in the state (lastUpdatedAt set to now). A completed result larger
    // than Settings::maxResultBytes fails the task instead. False when there is no such task.
    bool update(const QString& id, const std::function<void(TaskRecord&)>& change);
    void remove(const QString& id);
    // `done` runs on this thread once every change so far is stored (see InteractionState).
    void whenStored(std::function<void(bool stored)> done);

    QList<TaskRecord> all() const; // creation order
    int count() const { return int(m_order.size()); }
    qint64 bytes() const { return m_bytes; }

    // Fails the tasks past their TTL and removes those past it by keepAfterExpiryMs (the timer
    // does this every sweepIntervalMs; tests call it).
    void sweep();

Q_SIGNALS:
    void taskChanged(const TaskRecord& task); // created or changed
    void taskRemoved(const QString& id);
    // A task that had not ended reached its TTL: it is failed now; whoever runs its call stops it.
    void lifetimeEnded(const QString& id);

private:
    struct Entry
    {
        TaskRecord task;
        qint64 bytes = 0;
        quint64 sequence = 0; // its place in m_order
    };
    void put(Entry& entry);
    void erase(const QString& id);
    void startSweeping();

    Settings m_settings;
    InteractionState* m_state;
    QHash<QString, Entry> m_tasks;
    std::map<quint64, QString> m_order; // ids by creation, oldest first
    quint64 m_nextSequence = 0;
    qint64 m_bytes = 0;
    QTimer m_sweeper;
};
