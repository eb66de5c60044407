#include "store/workspacestatefile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QThread>

#include <fcntl.h>
#include <unistd.h>

bool WorkspaceStateFile::write(const QString& path, const QByteArray& contents, QString* error)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // Owner-only from the start: the temporary file gets the mode before any byte is written.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (file.write(contents) != contents.size()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    if (!file.commit()) { // fsync, then rename over the old file
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // QSaveFile syncs the file but not the directory: without this the rename itself could be lost
    // in a power cut, leaving the previous state.
    const int directory = ::open(QFile::encodeName(QFileInfo(path).absolutePath()).constData(), O_RDONLY | O_DIRECTORY);
    if (directory >= 0) {
        ::fsync(directory);
        ::close(directory);
    }
    return true;
}

bool WorkspaceStateFile::read(const QString& path, QByteArray* contents, QString* error)
{
    contents->clear();
    QFile file(path);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    *contents = file.readAll();
    return true;
}

QString WorkspaceStateFile::setAside(const QString& path)
{
    const QString target = path + QStringLiteral(".unreadable-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddThhmmss"));
    return QFile::rename(path, target) ? target : QString();
}

WorkspaceStateWriter::WorkspaceStateWriter(QString path, QObject* parent)
    : QObject(parent)
    , m_path(std::move(path))
{}

void WorkspaceStateWriter::submit(QByteArray snapshot)
{
    QMutexLocker lock(&m_mutex);
    m_pending = std::move(snapshot);
    m_dirty = true;
    if (m_scheduled)
        return;
    m_scheduled = true;
    QMetaObject::invokeMethod(this, &WorkspaceStateWriter::writePending, Qt::QueuedConnection);
}

void WorkspaceStateWriter::flush()
{
    if (thread() == QThread::currentThread() || !thread()->isRunning())
        writePending();
    else
        QMetaObject::invokeMethod(this, &WorkspaceStateWriter::writePending, Qt::BlockingQueuedConnection);
}

void WorkspaceStateWriter::writePending()
{
    QByteArray snapshot;
    {
        QMutexLocker lock(&m_mutex);
        m_scheduled = false;
        if (!m_dirty)
            return;
        m_dirty = false;
        snapshot = std::move(m_pending);
        m_pending.clear();
    }
    QString error;
    if (!WorkspaceStateFile::write(m_path, snapshot, &error)) {
        // Keep the snapshot so the next change or the shutdown flush tries again.
        QMutexLocker lock(&m_mutex);
        if (!m_dirty) {
            m_pending = snapshot;
            m_dirty = true;
        }
        m_failing = true;
        lock.unlock();
        Q_EMIT writeFailed(error);
        return;
    }
    if (m_failing) {
        m_failing = false;
        Q_EMIT writeRecovered();
    }
}
