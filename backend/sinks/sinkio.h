#pragma once

// SinkIo: the system calls the file and jsonl sinks share, with errno turned into words an
// operator or a model can act on ("the disk is full", not "errno 28").

#include <QByteArray>
#include <QString>

class SinkIo
{
public:
    // What went wrong, for errno `code`: "the disk is full", "permission denied", …
    static QString describe(int code);

    // Writes `data` with one write() (retried only after EINTR or a short write, which a regular
    // file gives only when the disk fills), so O_APPEND writers never interleave. Returns 0 or the
    // errno of the failure; `written` gets the bytes that reached the file.
    static int writeAll(int fd, const QByteArray& data, qint64* written);

    // Opens `name` (relative to `directoryFd`, or absolute with AT_FDCWD) for appending, creating it
    // with 0666 minus the umask. `noFollow` refuses a symbolic link as the last component. Anything
    // but a regular file is refused (a FIFO would block the worker, a device is no log): returns -1
    // and sets `code` to an errno (EINVAL for "not a regular file").
    static int openForAppend(int directoryFd, const QByteArray& name, bool noFollow, int* code);
};
