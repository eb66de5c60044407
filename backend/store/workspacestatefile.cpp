#include "store/workspacestatefile.h"

#include "backgroundpriority.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>

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
    *contents = file.read(maxBytes + 1);
    if (file.error() != QFileDevice::NoError || contents->size() > maxBytes) {
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

void WorkspaceStateWriter::submit(QByteArrayList snapshot)
{
    {
        const std::lock_guard lock(m_mutex);
        m_pending = std::move(snapshot);
        ++m_submitted;
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
    // An attempt that started before this flush may be for an older snapshot, and a failed one is
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

int WorkspaceStateWriter::writeCount() const
{
    const std::lock_guard lock(m_mutex);
    return m_writeCount;
}

void WorkspaceStateWriter::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        const bool dirty = m_submitted > m_attempted || (m_submitted > m_written && m_failing);
        if (!dirty) {
            if (m_stopping)
                return;
            m_wake.wait(lock);
            continue;
        }
        const bool urgent = m_stopping || m_flushWaiters > 0;
        const qint64 now = m_clock.elapsed();
        if (!urgent && now < m_nextWriteAt) {
            m_wake.wait_for(lock, std::chrono::milliseconds(m_nextWriteAt - now));
            continue;
        }
        const QByteArrayList snapshot = m_pending; // implicitly shared: a cheap copy
        const quint64 generation = m_submitted;
        lock.unlock();
        QString error;
        const bool written = WorkspaceStateFile::write(m_path, snapshot, &error);
        lock.lock();
        m_attempted = generation;
        ++m_attempts;
        if (written) {
            m_written = generation;
            ++m_writeCount;
            m_nextWriteAt = m_clock.elapsed() + m_timing.minIntervalMs;
            m_retryMs = m_timing.firstRetryMs;
            if (m_written == m_submitted)
                m_pending.clear(); // on disk: no need to hold the memory
            const bool recovered = m_failing;
            m_failing = false;
            m_lastError.clear();
            m_done.notify_all();
            if (recovered) {
                lock.unlock();
                Q_EMIT writeRecovered();
                lock.lock();
            }
            continue;
        }
        // The snapshot stays in m_pending (or a newer one replaced it): retried after a delay that
        // grows while the disk keeps failing, or at once by a flush.
        m_nextWriteAt = m_clock.elapsed() + m_retryMs;
        m_retryMs = std::min(m_retryMs * 2, m_timing.maxRetryMs);
        m_failing = true;
        const bool report = error != m_lastError;
        m_lastError = error;
        m_done.notify_all();
        if (m_stopping)
            return; // the shutdown attempt failed; it was reported to flush()
        if (report) {
            lock.unlock();
            Q_EMIT writeFailed(error);
            lock.lock();
        }
    }
}
