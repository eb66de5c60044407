#pragma once

// WorkspaceStateFile: the console's own state that must survive a restart (pending questions and
// stored answers), kept as one owner-only JSON file. Every write is atomic: a temporary file in the
// same directory, fsync, rename (QSaveFile), then an fsync of the directory, so a crash, a full disk
// or a write that fails midway leaves the previous state intact rather than half a file.
//
// WorkspaceStateWriter writes it on a thread of its own, at normal priority: never the server
// thread, never a thread shared with history searches, never idle priority. The server thread only
// hands over the newest snapshot; bursts are coalesced, and failed writes are retried.

#include <QByteArray>
#include <QByteArrayList>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <condition_variable>
#include <mutex>
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
};

class WorkspaceStateWriter : public QObject
{
    Q_OBJECT
public:
    using Timing = WorkspaceStateWriteTiming;

    explicit WorkspaceStateWriter(QString path, Timing timing = {}, QObject* parent = nullptr);
    // Writes the newest snapshot (one attempt), then ends the writer thread.
    ~WorkspaceStateWriter() override;

    // From any thread: the newest state, as parts that are concatenated on the writer thread.
    void submit(QByteArrayList snapshot);
    // From any thread: returns once the newest submitted snapshot is on disk (true) or an attempt to
    // write it failed (false, with `error`). Skips the interval and any retry delay.
    bool flush(QString* error = nullptr);
    QString path() const { return m_path; }
    // Snapshots that reached the disk (fewer than submitted when bursts were coalesced).
    int writeCount() const;

Q_SIGNALS:
    // Emitted from the writer thread: connect with a context object (queued). writeFailed comes
    // with the first failure and whenever the reason changes while retrying; writeRecovered once
    // the state is on disk again.
    void writeFailed(const QString& error);
    void writeRecovered();

private:
    void run();

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
    QByteArrayList m_pending; // the newest snapshot, kept until it is on disk
    quint64 m_submitted = 0; // generation of m_pending
    quint64 m_attempted = 0; // newest generation a write was attempted for
    quint64 m_written = 0; // newest generation on disk
    quint64 m_attempts = 0; // writes attempted, for flush() to wait for one of its own
    qint64 m_nextWriteAt = 0; // m_clock time before which the next write waits (interval, retry)
    int m_retryMs = 0;
    int m_flushWaiters = 0;
    int m_writeCount = 0;
    bool m_failing = false;
    bool m_stopping = false;
    QString m_lastError;
};
