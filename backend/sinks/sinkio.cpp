#include "sinks/sinkio.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

QString SinkIo::describe(int code)
{
    switch (code) {
    case ENOSPC:
        return QStringLiteral("the disk is full");
    case EDQUOT:
        return QStringLiteral("the disk quota is exceeded");
    case EACCES:
    case EPERM:
        return QStringLiteral("permission denied");
    case EROFS:
        return QStringLiteral("the file system is read-only");
    case EISDIR:
        return QStringLiteral("it is a directory");
    case ENOTDIR:
        return QStringLiteral("a component of the path is not a directory");
    case ELOOP:
        return QStringLiteral("a symbolic link is in the way");
    case ENAMETOOLONG:
        return QStringLiteral("the name is too long");
    case EFBIG:
        return QStringLiteral("the file would grow past the system's limit");
    case EIO:
        return QStringLiteral("an input/output error occurred on the device");
    case EINVAL:
        return QStringLiteral("it is not a regular file");
    case ENOENT:
        return QStringLiteral("a directory on the way does not exist");
    case EEXIST:
        return QStringLiteral("it already exists");
    }
    return QString::fromLocal8Bit(std::strerror(code));
}

int SinkIo::writeAll(int fd, const QByteArray& data, qint64* written)
{
    *written = 0;
    const char* next = data.constData();
    qint64 left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, next, size_t(left));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EIO;
        next += n;
        left -= n;
        *written += n;
    }
    return 0;
}

int SinkIo::openForAppend(int directoryFd, const QByteArray& name, bool noFollow, int* code)
{
    // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader; on a regular file it
    // changes nothing.
    const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | (noFollow ? O_NOFOLLOW : 0);
    int fd = -1;
    do {
        fd = ::openat(directoryFd, name.constData(), flags, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *code = errno;
        return -1;
    }
    struct stat info;
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        *code = EINVAL;
        ::close(fd);
        return -1;
    }
    return fd;
}
