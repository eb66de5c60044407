#pragma once

// StateFileLock: an exclusive advisory lock that processes sharing a state file take around each
// read-merge-write (flock(2) on `<file>.lock`, opened O_CLOEXEC, created 0600). flock rather than a
// lock file whose existence is the lock: the kernel releases a flock when its holder dies, even by
// SIGKILL, so a crashed runner never leaves the console locked out; and rather than fcntl record
// locks, which belong to the process and vanish when any of its descriptors of the file closes.
// The lock file stays in place once created: unlinking it would let a waiter lock a file that is
// no longer the one others lock.
//
// Waits are bounded: acquire() gives up after `timeout`, naming the process that holds the lock as
// the kernel lists it (/proc/locks), so a stuck holder is reported, never waited on for ever. The
// pid each holder writes into the lock file is only the fallback: it is stale once its writer let
// go, and a holder that is no Switchboard (flock(1)) writes none.

#include <QString>

#include <chrono>
#include <optional>

class StateFileLock
{
public:
    // The lock file for `statePath`.
    static QString lockPathFor(const QString& statePath) { return statePath + QStringLiteral(".lock"); }

    // Takes the lock on `lockPath` (created if missing, its directory too), trying until `timeout`
    // has passed; nothing with `error` when it is held elsewhere that long ("<what> is locked by
    // another process (pid …)") or cannot be opened.
    static std::optional<StateFileLock> acquire(const QString& lockPath, std::chrono::milliseconds timeout,
        QString* error, const QString& what = QStringLiteral("the file"));

    StateFileLock(StateFileLock&& other) noexcept;
    StateFileLock& operator=(StateFileLock&& other) noexcept;
    StateFileLock(const StateFileLock&) = delete;
    StateFileLock& operator=(const StateFileLock&) = delete;
    ~StateFileLock(); // releases

private:
    explicit StateFileLock(int fd)
        : m_fd(fd)
    {}
    void release();

    int m_fd = -1;
};
