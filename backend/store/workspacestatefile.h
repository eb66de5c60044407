#pragma once

// WorkspaceStateFile: the console's own state that must survive a restart (pending questions and
// stored answers), kept as one owner-only JSON file. Every write is atomic: a temporary file in the
// same directory, fsync, rename (QSaveFile), then an fsync of the directory, so a crash, a full disk
// or a write that fails midway leaves the previous state intact rather than half a file.
//
// WorkspaceStateWriter writes it on a thread of its own, at normal priority: never the server
// thread, never a thread shared with history searches, never idle priority. The file is shared by
// processes (the console and one-shot runners), so each write is a merge: under the file's lock
// (StateFileLock) the writer reads what is there, applies the changes this process made since its
// last write (WorkspaceStateChanges) and writes the result, which becomes what this process knows.
// The owner's thread only hands over changes; bursts are coalesced, and failed writes (a full disk,
// a lock held too long) are retried.

#include "store/workspacestatechanges.h"
#include "store/workspacestaterecords.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

class WorkspaceStateFile
{
public:
    enum class ReadStatus {
        Missing, // no file: a first start
        Read,
        Unreadable, // cannot be opened or read, or larger than the limit; `error` says why
    };

    // Writes the concatenation of `parts` atomically with mode 0600.
    static bool write(const QString& path, const QByteArrayList& parts, QString* error);
    static bool write(const QString& path, const QByteArray& contents, QString* error)
    {
        return write(path, QByteArrayList{contents}, error);
    }
    static ReadStatus read(const QString& path, qint64 maxBytes, QByteArray* contents, QString* error);
    // Moves the file aside as `<path>.unreadable-<UTC time>` (with `-2`, `-3`, … when that name is
    // taken), so it is kept for the operator and never overwritten; never replaces an existing file.
    // Returns the new path, or empty with `error` when the move failed.
    static QString setAside(const QString& path, QString* error);
};

// How often WorkspaceStateWriter writes, and how it retries.
struct WorkspaceStateWriteTiming
{
    int minIntervalMs = 100; // at most one write per interval; changes in between are coalesced
    int firstRetryMs = 1'000; // after a failed write; doubles up to maxRetryMs
    int maxRetryMs = 30'000;
    // How long a write waits for another process's lock on the file before it fails (and is retried
    // like any failed write): bounded, so a stuck holder is reported rather than waited on.
    int lockTimeoutMs = 5'000;
};

class WorkspaceStateWriter : public QObject
{
    Q_OBJECT
public:
    using Timing = WorkspaceStateWriteTiming;
    using Change = WorkspaceStateRecords::Change;
    // Larger than any state the limits on pending questions allow; a larger file is unreadable.
    static constexpr qint64 MaxFileBytes = 1024LL * 1024 * 1024;

    // The file as a sync left it: every change up to `sequence` is in `records`. `external`: another
    // process wrote it since this one last read or wrote it, so it may hold what this one lacks.
    struct Synced
    {
        quint64 sequence = 0;
        WorkspaceStateRecords records;
        bool external = false;
    };

    explicit WorkspaceStateWriter(QString path, Timing timing = {}, QObject* parent = nullptr);
    // Writes the newest changes (one attempt), then ends the writer thread.
    ~WorkspaceStateWriter() override;

    // Before the first change: what the owner read from the file (`contents`, parsed as `records`),
    // the base its changes apply to when the file cannot be read again.
    void setKnown(WorkspaceStateRecords records, QByteArray contents);
    // From any thread: changes made under `sequence`, larger than any submitted before.
    void submit(quint64 sequence, const QList<Change>& changes);
    // From any thread: read the file again soon (another process may have written it); when it holds
    // something new, synced() follows.
    void requestRead();
    // From any thread: returns once every change submitted so far is merged into the file on disk
    // (true) or an attempt to write them failed (false, with `error`). Skips the interval and any
    // retry delay.
    bool flush(QString* error = nullptr);
    // What the newest sync found, once: nothing when there was nothing new since the last call.
    std::optional<Synced> takeSynced();
    QString path() const { return m_path; }
    // Writes that reached the disk (fewer than submissions when bursts were coalesced).
    int writeCount() const;

Q_SIGNALS:
    // Emitted from the writer thread: connect with a context object (queued). writeFailed comes
    // with the first failure and whenever the reason changes while retrying; writeRecovered once
    // the state is on disk again.
    void writeFailed(const QString& error);
    void writeRecovered();
    // takeSynced() has something new.
    void synced();
    // A file that could not be read was found under the lock and set aside to write this process's
    // state; `message` names where it was kept.
    void setAside(const QString& message);

private:
    struct Outcome
    {
        bool ok = false;
        QString error;
        bool wrote = false;
        bool changed = false; // the records differ from what was known before
        bool external = false; // another process wrote the file since it was last known
        WorkspaceStateRecords records;
        QByteArray contents; // the file's bytes after the sync
        QString setAsideMessage;
    };

    void run();
    // One read (and, with changes, write) under the lock; on the writer thread, without m_mutex.
    Outcome sync(const WorkspaceStateChanges& changes, const WorkspaceStateRecords& known,
        const QByteArray& knownContents) const;
    // Keeps what a sync found for takeSynced(); m_mutex held.
    void keepSynced(bool external);

    const QString m_path;
    const Timing m_timing;
    // The standard library's thread, mutex and condition variables rather than Qt's: Debian's Qt is
    // not built for ThreadSanitizer, which then cannot see QWaitCondition release and retake the
    // mutex and reports a lock held by two threads.
    std::thread m_thread;
    QElapsedTimer m_clock;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake; // the writer thread waits for work
    std::condition_variable m_done; // flush() waits for an attempt
    // Guarded by m_mutex:
    WorkspaceStateChanges m_pending; // submitted, not yet on disk
    WorkspaceStateRecords m_known; // the file as this process last read or wrote it
    QByteArray m_knownContents; // its bytes: a file still equal to them needs no parsing
    std::optional<Synced> m_synced; // for takeSynced()
    quint64 m_submitted = 0; // newest sequence submitted
    quint64 m_attempted = 0; // newest sequence a write was attempted for
    quint64 m_written = 0; // newest sequence on disk
    quint64 m_attempts = 0; // writes attempted, for flush() to wait for one of its own
    qint64 m_nextWriteAt = 0; // m_clock time before which the next write waits (interval, retry)
    int m_retryMs = 0;
    int m_flushWaiters = 0;
    int m_writeCount = 0;
    bool m_readRequested = false;
    bool m_failing = false;
    bool m_stopping = false;
    QString m_lastError;
};
