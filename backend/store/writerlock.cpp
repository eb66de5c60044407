#include "store/writerlock.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

QByteArray lockFileOf(const QString& directory, qint64 id)
{
    return QFile::encodeName(QDir(directory).filePath(QString::number(id) + QStringLiteral(".lock")));
}

int openLockFile(const QByteArray& path, int flags)
{
    int fd = -1;
    do {
        // O_CLOEXEC: a process this one starts (a command tool) must not hold the lock after it.
        fd = ::open(path.constData(), flags | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

// Takes the lock of `path`'s writer when it is free: its writer has ended, and its file goes.
// True when it was free (or gone).
bool takeOverIfFree(const QByteArray& path)
{
    const int fd = openLockFile(path, 0);
    if (fd < 0)
        return errno == ENOENT;
    const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (free)
        ::unlink(path.constData()); // while locked: no writer claims a file it cannot lock
    ::close(fd);
    return free;
}

} // namespace

std::optional<WriterLock> WriterLock::claim(const QString& directory, QString* error)
{
    const QByteArray encodedDirectory = QFile::encodeName(directory);
    if (::mkdir(encodedDirectory.constData(), 0700) != 0 && errno != EEXIST) {
        *error = QStringLiteral("cannot create %1: %2").arg(directory, QString::fromLocal8Bit(std::strerror(errno)));
        return std::nullopt;
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        const qint64 id = qint64(QRandomGenerator::system()->generate64() >> 2) + 1; // positive
        const QByteArray path = lockFileOf(directory, id);
        const int fd = openLockFile(path, O_CREAT | O_EXCL);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            *error = QStringLiteral("cannot create a writer's lock in %1: %2")
                         .arg(directory, QString::fromLocal8Bit(std::strerror(errno)));
            return std::nullopt;
        }
        // A sweep may have found the new file unlocked and removed it: then this lock is of no file.
        struct stat held = {};
        struct stat named = {};
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::fstat(fd, &held) == 0 && ::stat(path.constData(), &named) == 0
            && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
            return WriterLock(id, fd, QFile::decodeName(path));
        ::close(fd);
    }
    *error = QStringLiteral("cannot take a writer's lock in %1").arg(directory);
    return std::nullopt;
}

bool WriterLock::isHeld(const QString& directory, qint64 id)
{
    return !takeOverIfFree(lockFileOf(directory, id));
}

void WriterLock::sweep(const QString& directory)
{
    const QStringList files = QDir(directory).entryList({QStringLiteral("*.lock")}, QDir::Files | QDir::Hidden);
    for (const QString& name : files)
        takeOverIfFree(QFile::encodeName(QDir(directory).filePath(name)));
}

WriterLock::WriterLock(qint64 id, int fd, QString path)
    : m_id(id)
    , m_fd(fd)
    , m_path(std::move(path))
{}

WriterLock::WriterLock(WriterLock&& other) noexcept
    : m_id(std::exchange(other.m_id, 0))
    , m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
{}

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept
{
    if (this != &other) {
        release();
        m_id = std::exchange(other.m_id, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

WriterLock::~WriterLock()
{
    release();
}

void WriterLock::release()
{
    if (m_fd < 0)
        return;
    ::unlink(QFile::encodeName(m_path).constData()); // still locked: a sweep cannot be between
    ::close(m_fd);
    m_fd = -1;
}
