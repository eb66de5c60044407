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
#include <unistd.h>

namespace {

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// Who wrote the lock file last: the holder when the lock is held (a holder writes its pid right
// after taking it), empty when the file says nothing useful.
QString holderOf(int fd)
{
    char text[32] = {};
    const ssize_t read = ::pread(fd, text, sizeof text - 1, 0);
    if (read <= 0)
        return QString();
    bool ok = false;
    const qint64 pid = QByteArray(text, int(read)).trimmed().toLongLong(&ok);
    if (!ok || pid <= 0)
        return QString();
    return pid == ::getpid() ? QStringLiteral("pid %1, this process").arg(pid) : QStringLiteral("pid %1").arg(pid);
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
