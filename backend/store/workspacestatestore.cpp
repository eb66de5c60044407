#include "store/workspacestatestore.h"

#include "boundedjson.h"
#include "store/statefilelock.h"
#include "store/workspacestatewatcher.h"

#include <QtDebug>

#include <algorithm>
#include <utility>

using nlohmann::json;

WorkspaceStateStore::WorkspaceStateStore(QString path, WorkspaceStateWriteTiming timing, QObject* parent)
    : InteractionState(parent)
    , m_path(std::move(path))
    , m_timing(timing)
    , m_writer(new WorkspaceStateWriter(m_path, timing, this))
{
    // Direct: the writer emits from its own thread; whoever listens connects with a context object,
    // so the signal crosses threads there.
    connect(m_writer, &WorkspaceStateWriter::writeFailed, this, &InteractionState::writeFailed, Qt::DirectConnection);
    connect(
        m_writer, &WorkspaceStateWriter::writeRecovered, this, &InteractionState::writeRecovered, Qt::DirectConnection);
    connect(m_writer, &WorkspaceStateWriter::setAside, this, &InteractionState::notice, Qt::DirectConnection);
    // Queued: what a sync found is taken in on this store's thread, between the broker's changes.
    connect(m_writer, &WorkspaceStateWriter::synced, this, &WorkspaceStateStore::takeSynced, Qt::QueuedConnection);
}

WorkspaceStateStore::~WorkspaceStateStore()
{
    submitBatch();
    // Whoever still waits in whenStored() learns whether the last write got the changes there: a
    // flush is that write and says how it went, where the writer's own attempt when deleted does not
    // (after a failed flush the writer tries once more; its success then goes unreported).
    const bool stored = !m_storedWaiters.empty() && m_writer->flush(nullptr);
    delete m_writer; // writes the newest changes and ends its thread while this store is still whole
    m_writer = nullptr;
    // Taken out first: the store is going, and `done` must not find it half there.
    std::deque<StoredWaiter> waiters = std::exchange(m_storedWaiters, {});
    for (StoredWaiter& waiter : waiters)
        waiter.done(stored || waiter.sequence <= m_stored);
}

InteractionState::LoadResult WorkspaceStateStore::load(Records* records, QString* problem)
{
    // No lock: every write replaces the file whole, so this reads one state, never half of one.
    QByteArray contents;
    const WorkspaceStateFile::ReadStatus status = WorkspaceStateFile::read(m_path, MaxFileBytes, &contents, problem);
    if (status == WorkspaceStateFile::ReadStatus::Missing)
        return LoadResult::Empty;
    if (status == WorkspaceStateFile::ReadStatus::Unreadable)
        return LoadResult::Unreadable;
    const BoundedJson::Result<json> parsed = BoundedJson::parse(contents, BoundedJson::Limits::stateFile());
    if (!parsed.ok) {
        *problem = QStringLiteral("it is not JSON (%1)").arg(QString::fromStdString(parsed.error));
        return LoadResult::Unreadable;
    }
    const json& state = parsed.value;
    WorkspaceStateRecords read;
    if (!WorkspaceStateRecords::fromJson(state, &read, problem))
        return LoadResult::Unreadable;
    Records loaded;
    loaded.questions.assign(state.at("pending").begin(), state.at("pending").end());
    loaded.clientOutputs = state.at("clientOutputs");
    loaded.approvals = state.at("approvals");
    if (state.contains("tasks")) // files written before tasks existed have none
        loaded.tasks.assign(state.at("tasks").begin(), state.at("tasks").end());
    *records = std::move(loaded);
    // The base of this process's changes, and what the writer compares the file with before it
    // parses it again.
    m_current = read;
    m_unconfirmed = WorkspaceStateChanges();
    m_batch.clear();
    m_writer->setKnown(std::move(read), std::move(contents));
    return LoadResult::Loaded;
}

QString WorkspaceStateStore::setAside(QString* error)
{
    m_current = WorkspaceStateRecords();
    m_unconfirmed = WorkspaceStateChanges();
    m_batch.clear();
    m_writer->setKnown(WorkspaceStateRecords(), QByteArray());
    // Under the lock, as writers set a file aside: a runner may have found the same damaged file,
    // set it aside itself and written a good one since load() looked. That one is not moved.
    const std::optional<StateFileLock> lock = StateFileLock::acquire(StateFileLock::lockPathFor(m_path),
        std::chrono::milliseconds(m_timing.lockTimeoutMs), error, QStringLiteral("workspace state"));
    if (!lock)
        return QString();
    QByteArray contents;
    QString problem;
    WorkspaceStateRecords now;
    if (WorkspaceStateFile::read(m_path, MaxFileBytes, &contents, &problem) == WorkspaceStateFile::ReadStatus::Read
        && WorkspaceStateRecords::parse(contents, &now, &problem)) {
        *error = QStringLiteral("another Switchboard process replaced it with a readable state meanwhile (start again "
                                "to load that one)");
        return QString();
    }
    return WorkspaceStateFile::setAside(m_path, error);
}

void WorkspaceStateStore::putQuestion(const QString& id, const QByteArray& record)
{
    if (m_current.hasQuestion(id) && m_current.question(id) == record)
        return;
    submit({Change{WorkspaceStateRecords::Kind::Question, id, record, true}});
}

void WorkspaceStateStore::removeQuestion(const QString& id)
{
    if (!m_current.hasQuestion(id))
        return;
    submit({Change{WorkspaceStateRecords::Kind::Question, id, QByteArray(), false}});
}

void WorkspaceStateStore::putClientOutputs(const QByteArray& record)
{
    QList<Change> changes;
    QString problem;
    if (!m_current.clientOutputChanges(record, &changes, &problem)) {
        // The broker's own toJson(): a bug, not something a person can fix; nothing is written.
        qWarning("switchboard: stored answers not saved: %s", qPrintable(problem));
        return;
    }
    if (!changes.isEmpty())
        submit(changes);
}

void WorkspaceStateStore::putApprovals(const QByteArray& record)
{
    QList<Change> changes;
    QString problem;
    if (!m_current.approvalChanges(record, &changes, &problem)) {
        qWarning("switchboard: approvals not saved: %s", qPrintable(problem));
        return;
    }
    if (!changes.isEmpty())
        submit(changes);
}

void WorkspaceStateStore::putTask(const QString& id, const QByteArray& record)
{
    if (m_current.hasTask(id) && m_current.task(id) == record)
        return;
    submit({Change{WorkspaceStateRecords::Kind::Task, id, record, true}});
}

void WorkspaceStateStore::removeTask(const QString& id)
{
    if (!m_current.hasTask(id))
        return;
    submit({Change{WorkspaceStateRecords::Kind::Task, id, QByteArray(), false}});
}

void WorkspaceStateStore::whenStored(std::function<void(bool stored)> done)
{
    // The writer gets the batch now: the wait is for its next write, not for the batch's turn too.
    submitBatch();
    // Nothing made here waits for the file (every change a sync confirmed): stored already.
    const quint64 sequence = m_unconfirmed.isEmpty() ? m_stored : m_sequence;
    m_storedWaiters.push_back({sequence, std::move(done)});
    // Queued even then: the caller is not re-entered from inside its own call.
    if (sequence <= m_stored)
        QMetaObject::invokeMethod(this, &WorkspaceStateStore::answerStored, Qt::QueuedConnection);
}

bool WorkspaceStateStore::flush(QString* error)
{
    submitBatch();
    return m_writer->flush(error);
}

void WorkspaceStateStore::watch()
{
    if (m_watcher)
        return;
    m_watcher = new WorkspaceStateWatcher(m_path, 100, 2'000, this);
    connect(m_watcher, &WorkspaceStateWatcher::changed, m_writer, &WorkspaceStateWriter::requestRead);
    m_writer->requestRead(); // whatever changed between load() and now
}

void WorkspaceStateStore::submit(const QList<Change>& changes)
{
    if (m_batch.isEmpty()) {
        ++m_sequence;
        QMetaObject::invokeMethod(this, &WorkspaceStateStore::submitBatch, Qt::QueuedConnection);
    }
    for (const Change& change : changes) {
        m_current.apply(change);
        m_unconfirmed.add(m_sequence, change);
        m_batch.append(change);
    }
}

void WorkspaceStateStore::submitBatch()
{
    if (m_batch.isEmpty())
        return;
    m_writer->submit(m_sequence, std::exchange(m_batch, {}));
}

void WorkspaceStateStore::takeSynced()
{
    std::optional<WorkspaceStateWriter::Synced> synced = m_writer->takeSynced();
    if (!synced)
        return;
    m_unconfirmed.confirm(synced->sequence);
    m_stored = std::max(m_stored, synced->sequence);
    // Without `external` the file holds what this process wrote: nothing new.
    if (synced->external) {
        // Theirs with ours on top: the changes made here since are not in the file yet, and they win
        // for the records they change, as they will when they are written.
        WorkspaceStateRecords merged = std::move(synced->records);
        m_unconfirmed.applyTo(&merged);
        if (!merged.sameContent(m_current)) {
            m_current = std::move(merged);
            Q_EMIT changedElsewhere(compact());
        }
    }
    answerStored(); // last: `done` may change the state the merge above works on
}

void WorkspaceStateStore::answerStored()
{
    // One at a time, the front looked up again after each: `done` may put more, or wait again.
    while (!m_storedWaiters.empty() && m_storedWaiters.front().sequence <= m_stored) {
        std::function<void(bool stored)> done = std::move(m_storedWaiters.front().done);
        m_storedWaiters.pop_front();
        done(true);
    }
}

InteractionState::CompactRecords WorkspaceStateStore::compact() const
{
    CompactRecords records;
    records.questions.reserve(std::size_t(m_current.questionIds().size()));
    for (const QString& id : m_current.questionIds())
        records.questions.emplace_back(id, m_current.question(id));
    records.clientOutputs = m_current.clientOutputsRecord();
    records.approvals = m_current.approvalsRecord();
    records.tasks.reserve(std::size_t(m_current.taskIds().size()));
    for (const QString& id : m_current.taskIds())
        records.tasks.emplace_back(id, m_current.task(id));
    return records;
}
