#pragma once

// WorkspaceStateStore: the InteractionState in the workspace state file (workspace.json, owner-only,
// written atomically by WorkspaceStateWriter on a thread of its own). The file is compact JSON
// assembled from the records as they are: {"version": 2, "pending": [question records in order],
// "clientOutputs": […], "approvals": {…}, "tasks": [task records in order, when there are any]}; a
// change costs the backend thread the record that changed.
//
// Several processes share the file: the console and any number of one-shot runners. Each put
// becomes changes (WorkspaceStateRecords::Change) that the writer merges, under the file's lock,
// into whatever the file holds when it writes, so interleaved processes lose no update and a record
// one of them removed is not brought back by another. This store keeps what the process holds (the
// file as last read or written, with its own changes since on top); when a sync shows that another
// process changed the file, the merged whole comes out as changedElsewhere. watch() makes the
// console look without waiting for a write of its own.

#include "store/interactionstate.h"
#include "store/workspacestatechanges.h"
#include "store/workspacestatefile.h"
#include "store/workspacestaterecords.h"

#include <QList>

#include <deque>
#include <functional>

class WorkspaceStateWatcher;

class WorkspaceStateStore : public InteractionState
{
    Q_OBJECT
public:
    static constexpr qint64 StateVersion = WorkspaceStateRecords::Version;
    // Larger than any state the limits on pending questions allow; a larger file is set aside.
    static constexpr qint64 MaxFileBytes = WorkspaceStateWriter::MaxFileBytes;

    explicit WorkspaceStateStore(QString path, WorkspaceStateWriteTiming timing = {}, QObject* parent = nullptr);
    ~WorkspaceStateStore() override;

    LoadResult load(Records* records, QString* problem) override;
    QString setAside(QString* error) override;
    void putQuestion(const QString& id, const QByteArray& record) override;
    void removeQuestion(const QString& id) override;
    void putClientOutputs(const QByteArray& record) override;
    void putApprovals(const QByteArray& record) override;
    void putTask(const QString& id, const QByteArray& record) override;
    void removeTask(const QString& id) override;
    // Answered from takeSynced() once the writer has written the sequence of the newest change (a
    // failed write is retried, and `done` waits for the retry), always from the event loop, never
    // from inside this call. Still waiting when the store is destroyed: answered by its last write.
    void whenStored(std::function<void(bool stored)> done) override;
    // Merged into the file under its lock, on disk when this returns true.
    bool flush(QString* error) override;
    void watch() override;

    QString path() const { return m_path; }
    const WorkspaceStateWriter* writer() const { return m_writer; }
    // What this process holds: the file as last read or written, with its own changes since.
    const WorkspaceStateRecords& records() const { return m_current; }

private:
    using Change = WorkspaceStateRecords::Change;

    // Changes go to the writer together once the current event is handled (or at a flush): one
    // broker operation (a question removed and its answer stored) reaches the file in one write, so
    // no other process reads the file halfway through it.
    void submit(const QList<Change>& changes);
    void submitBatch();
    // The writer synced: drop the changes the file now has, and take in what other processes wrote.
    void takeSynced();
    CompactRecords compact() const;
    // Answers, in the order they asked, the whenStored() callers whose changes are on disk.
    void answerStored();

    struct StoredWaiter
    {
        quint64 sequence = 0; // on disk once a sync reaches it
        std::function<void(bool stored)> done;
    };

    const QString m_path;
    const WorkspaceStateWriteTiming m_timing;
    WorkspaceStateWriter* m_writer = nullptr; // owned
    WorkspaceStateWatcher* m_watcher = nullptr; // after watch()
    WorkspaceStateRecords m_current;
    WorkspaceStateChanges m_unconfirmed; // made here, not yet known to be in the file
    quint64 m_sequence = 0; // of the newest batch
    QList<Change> m_batch; // made under m_sequence, not yet handed to the writer
    quint64 m_stored = 0; // the newest sequence a sync showed to be on disk
    std::deque<StoredWaiter> m_storedWaiters; // in the order whenStored() was called
};
