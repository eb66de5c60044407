#pragma once

// WriterLock: how processes sharing a store tell whether the writer of a record still runs. Each
// writer takes, for its whole life, a flock(2) on a file of its own, `<id>.lock` in a directory of
// such files, and marks what it writes with its id. The kernel lets the lock go when the writer
// ends, however it ends (kill -9 included), so a record whose writer's lock is free (or whose file
// is gone) was left by a writer that is gone; a held lock is a writer that runs, in this process
// or another, whatever its pid namespace. Used by history: only calls whose writer is gone are
// marked interrupted.
//
// A writer removes its file when it ends normally; files of writers that were killed are removed
// by the next writer that finds their lock free (sweep()). A claim checks, after locking, that its
// file is still the one under its name, so such a sweep can never leave a writer holding the lock
// of a removed file.

#include <QString>

#include <optional>

class WriterLock
{
public:
    // Creates `directory` (0700) if needed and takes the lock of a new, random id there.
    static std::optional<WriterLock> claim(const QString& directory, QString* error);
    // Whether the writer `id` still holds its lock. One that does not (its file is free, or gone)
    // has ended: its file is removed. When the file cannot be looked at, the writer is taken to run.
    static bool isHeld(const QString& directory, qint64 id);
    // Removes the files of writers that have ended.
    static void sweep(const QString& directory);

    WriterLock(WriterLock&& other) noexcept;
    WriterLock& operator=(WriterLock&& other) noexcept;
    WriterLock(const WriterLock&) = delete;
    WriterLock& operator=(const WriterLock&) = delete;
    ~WriterLock(); // removes the file and lets the lock go

    qint64 id() const { return m_id; }

private:
    WriterLock(qint64 id, int fd, QString path);
    void release();

    qint64 m_id = 0;
    int m_fd = -1;
    QString m_path;
};
