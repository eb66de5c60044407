#include "store/statefilelock.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// The process holding the flock on `fd`'s file, as the kernel lists it in /proc/locks ("1: FLOCK
// ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"; a waiter's line has "->" and is skipped);
// 0 when it lists none (the lock was let go meanwhile) or cannot be read.
qint64 kernelHolderOf(int fd)
{
    struct stat file = {};
    if (::fstat(fd, &file) != 0)
        return 0;
    QFile locks(QStringLiteral("/proc/locks"));
    if (!locks.open(QIODevice::ReadOnly | QIODevice::Text))
        return 0;
    const QByteArray device = QByteArray::number(major(file.st_dev), 16).rightJustified(2, '0') + ':'
        + QByteArray::number(minor(file.st_dev), 16).rightJustified(2, '0') + ':'
        + QByteArray::number(quint64(file.st_ino));
    // Bounded: a system with a million locks is not read to its end for a message. Read until a
    // line comes back empty: QFile's atEnd() is true from the start for /proc files, whose size
    // is 0.
    for (int line = 0; line < 100'000; ++line) {
        const QByteArray text = locks.readLine(512);
        if (text.isEmpty())
            break;
        const QList<QByteArray> fields = text.simplified().split(' ');
        if (fields.size() < 6 || fields.at(1) != "FLOCK" || fields.at(5) != device)
            continue;
        bool ok = false;
        const qint64 pid = fields.at(4).toLongLong(&ok);
        if (ok && pid > 0)
            return pid;
    }
    return 0;
}

// Who holds the lock: the process the kernel names, else the pid the lock file holds (each holder
// writes its own right after taking the lock; it may be a holder's that let go since, so it is
// named as the last one to take it); empty when neither says.
QString holderOf(int fd)
{
    const auto named = [](qint64 pid) {
        return pid == ::getpid() ? QStringLiteral("pid %1, this process").arg(pid) : QStringLiteral("pid %1").arg(pid);
    };
    if (const qint64 holder = kernelHolderOf(fd); holder > 0)
        return named(holder);
    char text[32] = {};
    const ssize_t read = ::pread(fd, text, sizeof text - 1, 0);
    if (read <= 0)
        return QString();
    bool ok = false;
    const qint64 pid = QByteArray(text, int(read)).trimmed().toLongLong(&ok);
    if (!ok || pid <= 0)
        return QString();
    return QStringLiteral("%1 took it last").arg(named(pid));
}

} // namespace

std::optional<StateFileLock> StateFileLock::acquire(
    const QString& lockPath, std::chrono::milliseconds timeout, QString* error, const QString& what)
{
    const QString directory = QFileInfo(lockPath).absolutePath();
    if (!QDir().mkpath(directory)) {
        *error = QStringLiteral("cannot lock %1: cannot create the directory %2").arg(lockPath, directory);
        return std::nullopt;
    }
    // O_CLOEXEC: a process this one starts (a command tool) must not inherit the lock and hold it
    // after this process has let go. O_NOFOLLOW: the lock is this file, not wherever a link points.
    int fd = -1;
    do {
        fd = ::open(QFile::encodeName(lockPath).constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *error = QStringLiteral("cannot open the lock file %1: %2").arg(lockPath, systemError(errno));
        return std::nullopt;
    }
    StateFileLock lock(fd);
    QElapsedTimer clock;
    clock.start();
    // Polled rather than a blocking flock: a blocking call cannot be given a deadline without a
    // signal. Short sleeps first (holders keep it for one write), longer ones while it stays held.
    int sleepMs = 1;
    for (;;) {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
            break;
        const int failure = errno;
        if (failure == EINTR)
            continue;
        if (failure != EWOULDBLOCK) {
            *error = QStringLiteral("cannot lock %1: %2").arg(lockPath, systemError(failure));
            return std::nullopt;
        }
        const qint64 left = timeout.count() - clock.elapsed();
        if (left <= 0) {
            const QString holder = holderOf(fd);
            *error = QStringLiteral("%1 is locked by another process (%2) and stayed locked for %3 ms (%4)")
                         .arg(what, holder.isEmpty() ? QStringLiteral("pid unknown") : holder)
                         .arg(timeout.count())
                         .arg(lockPath);
            return std::nullopt;
        }
        QThread::msleep(ulong(std::min<qint64>(sleepMs, left)));
        sleepMs = std::min(sleepMs * 2, 50);
    }
    // The pid is for the message of whoever waits next; failing to write it changes nothing else.
    const QByteArray pid = QByteArray::number(qint64(::getpid())) + '\n';
    if (::ftruncate(fd, 0) == 0) {
        const ssize_t written = ::pwrite(fd, pid.constData(), size_t(pid.size()), 0);
        Q_UNUSED(written)
    }
    return lock;
}

StateFileLock::StateFileLock(StateFileLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
{}

StateFileLock& StateFileLock::operator=(StateFileLock&& other) noexcept
{
    if (this != &other) {
        release();
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

StateFileLock::~StateFileLock()
{
    release();
}

void StateFileLock::release()
{
    if (m_fd < 0)
        return;
    // Closing the only descriptor of this open file releases the flock.
    ::close(m_fd);
    m_fd = -1;
}
