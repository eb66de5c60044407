#pragma once

// A figure of this process from /proc/self/status (VmPeak, VmHWM, VmRSS, ...), which Linux gives
// in kB, as bytes; -1 where it cannot be read. Read whole with readAll: /proc files have no size.

#include <QByteArray>
#include <QFile>
#include <QString>

inline qint64 processStatusBytes(const QByteArray& field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray prefix = field + ':';
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return -1;
}
