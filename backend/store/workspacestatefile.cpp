#include "store/workspacestatefile.h"

#include "store/backgroundpriority.h"
#include "store/statefilelock.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <utility>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

bool WorkspaceStateFile::write(const QString& path, const QByteArrayList& parts, QString* error)
{
    const QString directory = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(directory)) {
        *error = QStringLiteral("cannot write %1: cannot create the directory %2").arg(path, directory);
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // Owner-only from the start: the temporary file gets the mode before any byte is written.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    for (const QByteArray& part : parts) {
        if (file.write(part) != part.size()) {
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
            file.cancelWriting();
            return false;
        }
    }
    if (!file.commit()) { // fsync, then rename over the old file
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // QSaveFile syncs the file but not the directory: without this the rename itself could be lost
    // in a power cut, leaving the previous state.
    const int directoryFd = ::open(QFile::encodeName(directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directoryFd >= 0) {
        ::fsync(directoryFd);
        ::close(directoryFd);
    }
    return true;
}

WorkspaceStateFile::ReadStatus WorkspaceStateFile::read(
    const QString& path, qint64 maxBytes, QByteArray* contents, QString* error)
{
    contents->clear();
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return ReadStatus::Missing;
    QFile file(path);
    if (info.isDir() || !file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2")
                     .arg(path, info.isDir() ? QStringLiteral("it is a directory") : file.errorString());
        return ReadStatus::Unreadable;
    }
    if (file.size() > maxBytes) {
        *error = QStringLiteral("%1 is %2 bytes, more than the %3 a state file can be")
                     .arg(path)
                     .arg(file.size())
                     .arg(maxBytes);
        return ReadStatus::Unreadable;
    }
    // What the file holds, read a piece at a time: QIODevice::read(maxBytes + 1) allocates all of
    // maxBytes first (a gibibyte for the workspace state, on every read of a file of a few
    // kilobytes), and the file may still grow while it is read.
    constexpr qint64 Piece = 1024 * 1024;
    contents->reserve(qsizetype(std::min(file.size(), maxBytes) + 1));
    bool failed = false;
    while (contents->size() <= maxBytes) {
        const QByteArray piece = file.read(std::min(Piece, maxBytes + 1 - contents->size()));
        if (piece.isEmpty()) {
            failed = file.error() != QFileDevice::NoError;
            break;
        }
        contents->append(piece);
    }
    if (failed || contents->size() > maxBytes) {
        *error = QStringLiteral("cannot read %1: %2")
                     .arg(path,
                         contents->size() > maxBytes ? QStringLiteral("it grew past %1 bytes").arg(maxBytes)
                                                     : file.errorString());
        contents->clear();
        return ReadStatus::Unreadable;
    }
    return ReadStatus::Read;
}

QString WorkspaceStateFile::setAside(const QString& path, QString* error)
{
    const QString stem = path + QStringLiteral(".unreadable-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddTHHmmssZ"));
    // QFile::rename never replaces an existing file (on Linux it renames with RENAME_NOREPLACE),
    // so two set-asides in the same second get their own names and a race cannot overwrite either.
    for (int attempt = 1; attempt <= 100; ++attempt) {
        const QString target = attempt == 1 ? stem : stem + QStringLiteral("-%1").arg(attempt);
        if (QFileInfo::exists(target) || QFileInfo(target).isSymLink())
            continue;
        QFile file(path);
        if (file.rename(target))
            return target;
        if (QFileInfo::exists(target) || QFileInfo(target).isSymLink())
            continue; // taken between the check and the rename
        *error = QStringLiteral("cannot move %1 to %2: %3").arg(path, target, file.errorString());
        return QString();
    }
    *error = QStringLiteral("cannot move %1 aside: every name %2-<n> is taken").arg(path, stem);
    return QString();
}

WorkspaceStateWriter::WorkspaceStateWriter(QString path, Timing timing, QObject* parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_timing(timing)
    , m_retryMs(timing.firstRetryMs)
{
    m_clock.start();
    // A thread of its own at the process's normal priority: pending questions and stored answers
    // are data that must not be lost, so their writer never waits behind history or a search.
    m_thread = std::thread([this] {
        BackgroundPriority::applyNormalToCurrentThread(); // whatever its creator runs at
#ifdef Q_OS_LINUX
        pthread_setname_np(pthread_self(), "state-writer"); // as top and perf show it
#endif
        run();
    });
}

WorkspaceStateWriter::~WorkspaceStateWriter()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void WorkspaceStateWriter::setKnown(WorkspaceStateRecords records, QByteArray contents)
{
    const std::lock_guard lock(m_mutex);
    m_known = std::move(records);
    m_knownContents = std::move(contents);
}

void WorkspaceStateWriter::submit(quint64 sequence, const QList<Change>& changes)
{
    {
        const std::lock_guard lock(m_mutex);
        for (const Change& change : changes)
            m_pending.add(sequence, change);
        m_submitted = std::max(m_submitted, sequence);
    }
    m_wake.notify_all();
}

void WorkspaceStateWriter::requestRead()
{
    {
        const std::lock_guard lock(m_mutex);
        m_readRequested = true;
    }
    m_wake.notify_all();
}

bool WorkspaceStateWriter::flush(QString* error)
{
    std::unique_lock lock(m_mutex);
    const quint64 target = m_submitted;
    if (m_written >= target)
        return true;
    ++m_flushWaiters;
    m_wake.notify_all();
    // An attempt that started before this flush may be for older changes, and a failed one is
    // tried again now rather than after its retry delay: wait for a new attempt that covers `target`.
    const quint64 attemptsBefore = m_attempts;
    while (m_attempts == attemptsBefore || m_attempted < target)
        m_done.wait(lock);
    --m_flushWaiters;
    if (m_written >= target)
        return true;
    if (error)
        *error = m_lastError;
    return false;
}

void WorkspaceStateWriter::keepSynced(bool external)
{
    // Only the newest is kept, but whether another process wrote is kept across syncs not yet taken:
    // a later sync of this process's own may not hide that an earlier one found something new.
    const bool earlierExternal = m_synced && m_synced->external;
    m_synced = Synced{m_written, m_known, external || earlierExternal};
}

std::optional<WorkspaceStateWriter::Synced> WorkspaceStateWriter::takeSynced()
{
    const std::lock_guard lock(m_mutex);
    return std::exchange(m_synced, std::nullopt);
}

int WorkspaceStateWriter::writeCount() const
{
    const std::lock_guard lock(m_mutex);
    return m_writeCount;
}

WorkspaceStateWriter::Outcome WorkspaceStateWriter::sync(
    const WorkspaceStateChanges& changes, const WorkspaceStateRecords& known, const QByteArray& knownContents) const
{
    Outcome outcome;
    const bool writing = !changes.isEmpty();
    // Reading alone needs no lock: every write replaces the file whole (a rename), so a reader sees
    // one state or the next, never half. Writing does: between reading the file and renaming the
    // result over it, no other process may write, or its update would be lost.
    std::optional<StateFileLock> lock;
    if (writing) {
        QString lockError;
        lock = StateFileLock::acquire(StateFileLock::lockPathFor(m_path),
            std::chrono::milliseconds(m_timing.lockTimeoutMs), &lockError, QStringLiteral("workspace state"));
        if (!lock) {
            outcome.error = QStringLiteral("cannot write %1: %2").arg(m_path, lockError);
            return outcome;
        }
    }
    QByteArray contents;
    QString problem;
    const WorkspaceStateFile::ReadStatus status = WorkspaceStateFile::read(m_path, MaxFileBytes, &contents, &problem);
    WorkspaceStateRecords disk;
    bool readable = false;
    if (status == WorkspaceStateFile::ReadStatus::Read) {
        if (contents == knownContents) {
            disk = known; // what this process wrote or read last: no other process wrote since
            readable = true;
        } else {
            readable = WorkspaceStateRecords::parse(contents, &disk, &problem);
            outcome.external = readable;
        }
    }
    if (!writing) {
        outcome.ok = true;
        if (!readable) {
            // A file that is missing or cannot be read is left to the next write, which sets it
            // aside under the lock; until then this process keeps what it knows.
            outcome.records = known;
            outcome.contents = knownContents;
            return outcome;
        }
        outcome.changed = !disk.sameContent(known);
        outcome.records = std::move(disk);
        outcome.contents = std::move(contents);
        return outcome;
    }
    if (status == WorkspaceStateFile::ReadStatus::Missing) {
        disk = known; // never written yet, or deleted by hand: this process's records are all there is
        contents.clear();
    } else if (!readable) {
        // Kept for the operator, never overwritten; what this process holds is written in its place,
        // so a damaged file loses nothing this process knew.
        QString moveError;
        const QString aside = WorkspaceStateFile::setAside(m_path, &moveError);
        if (aside.isEmpty()) {
            outcome.error = QStringLiteral("cannot write %1: the file there cannot be read (%2) and cannot be moved "
                                           "aside (%3); it is left as it is")
                                .arg(m_path, problem, moveError);
            return outcome;
        }
        outcome.setAsideMessage = QStringLiteral("the workspace state %1 could not be read (%2); it was kept as %3 "
                                                 "and written again from what this process holds")
                                      .arg(m_path, problem, aside);
        disk = known;
        contents.clear();
    }
    WorkspaceStateRecords result = std::move(disk);
    changes.applyTo(&result);
    QByteArray written = result.toBytes();
    if (written != contents) {
        if (!WorkspaceStateFile::write(m_path, written, &outcome.error))
            return outcome;
        outcome.wrote = true;
    }
    outcome.ok = true;
    outcome.changed = true; // the changes are in; the owner drops them from its own log
    outcome.records = std::move(result);
    outcome.contents = std::move(written);
    return outcome;
}

void WorkspaceStateWriter::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        const bool dirty = m_submitted > m_attempted || (m_submitted > m_written && m_failing);
        if (!dirty && (!m_readRequested || m_stopping)) {
            if (m_stopping)
                return;
            m_wake.wait(lock);
            continue;
        }
        if (dirty) {
            // A read waits with the write: the write reads the file too.
            const bool urgent = m_stopping || m_flushWaiters > 0;
            const qint64 now = m_clock.elapsed();
            if (!urgent && now < m_nextWriteAt) {
                m_wake.wait_for(lock, std::chrono::milliseconds(m_nextWriteAt - now));
                continue;
            }
        }
        // Copies (the records are implicitly shared bytes): the owner may submit more meanwhile.
        const WorkspaceStateChanges changes = m_pending;
        const WorkspaceStateRecords known = m_known;
        const QByteArray knownContents = m_knownContents;
        const quint64 generation = m_submitted;
        m_readRequested = false;
        lock.unlock();
        Outcome outcome = sync(changes, known, knownContents);
        lock.lock();
        if (!outcome.setAsideMessage.isEmpty()) {
            lock.unlock();
            Q_EMIT setAside(outcome.setAsideMessage);
            lock.lock();
        }
        if (!dirty) {
            // Kept even when only the bytes differ (the same records in another order): the next
            // read of the same file then needs no parsing.
            m_known = std::move(outcome.records);
            m_knownContents = std::move(outcome.contents);
            if (outcome.changed) {
                keepSynced(true);
                lock.unlock();
                Q_EMIT synced();
                lock.lock();
            }
            continue;
        }
        m_attempted = generation;
        ++m_attempts;
        if (outcome.ok) {
            m_known = std::move(outcome.records);
            m_knownContents = std::move(outcome.contents);
            m_written = generation;
            m_pending.confirm(generation);
            if (outcome.wrote)
                ++m_writeCount;
            keepSynced(outcome.external);
            m_nextWriteAt = m_clock.elapsed() + m_timing.minIntervalMs;
            m_retryMs = m_timing.firstRetryMs;
            const bool recovered = m_failing;
            m_failing = false;
            m_lastError.clear();
            m_done.notify_all();
            lock.unlock();
            Q_EMIT synced();
            if (recovered)
                Q_EMIT writeRecovered();
            lock.lock();
            continue;
        }
        // The changes stay in m_pending (with newer ones): retried after a delay that grows while the
        // disk keeps failing or the lock stays held, or at once by a flush.
        m_nextWriteAt = m_clock.elapsed() + m_retryMs;
        m_retryMs = std::min(m_retryMs * 2, m_timing.maxRetryMs);
        m_failing = true;
        const bool report = outcome.error != m_lastError;
        m_lastError = outcome.error;
        m_done.notify_all();
        if (m_stopping)
            return; // the shutdown attempt failed; it was reported to flush()
        if (report) {
            lock.unlock();
            Q_EMIT writeFailed(outcome.error);
            lock.lock();
        }
    }
}
