#include "store/workspacestatewatcher.h"

#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include <sys/stat.h>

WorkspaceStateWatcher::WorkspaceStateWatcher(QString path, int settleMs, int pollMs, QObject* parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_watcher(new QFileSystemWatcher(this))
    , m_settle(new QTimer(this))
    , m_poll(new QTimer(this))
{
    m_seen = identityOf(m_path);
    // Started by the first event of a burst and not restarted by the others: writes that never stop
    // (many runners) still get a check every settleMs, rather than none until they pause.
    m_settle->setSingleShot(true);
    m_settle->setInterval(settleMs);
    connect(m_settle, &QTimer::timeout, this, &WorkspaceStateWatcher::check);
    const auto settle = [this] {
        if (!m_settle->isActive())
            m_settle->start();
    };
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, settle);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, settle);
    m_poll->setInterval(pollMs);
    connect(m_poll, &QTimer::timeout, this, &WorkspaceStateWatcher::check);
    m_poll->start();
    watchPaths();
}

WorkspaceStateWatcher::Identity WorkspaceStateWatcher::identityOf(const QString& path)
{
    Identity identity;
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return identity;
    identity.exists = true;
    identity.device = status.st_dev;
    identity.inode = status.st_ino;
    identity.size = status.st_size;
    identity.modifiedNs = qint64(status.st_mtim.tv_sec) * 1'000'000'000 + status.st_mtim.tv_nsec;
    identity.changedNs = qint64(status.st_ctim.tv_sec) * 1'000'000'000 + status.st_ctim.tv_nsec;
    return identity;
}

void WorkspaceStateWatcher::watchPaths()
{
    // The directory for renames over the file; the file itself for writes in place (an editor). A
    // watch on a path that is gone is dropped by the watcher, so both are added again after each
    // check; adding a path already watched does nothing.
    const QString directory = QFileInfo(m_path).absolutePath();
    QStringList wanted;
    if (!m_watcher->directories().contains(directory) && QFileInfo(directory).isDir())
        wanted << directory;
    if (!m_watcher->files().contains(m_path) && QFileInfo::exists(m_path))
        wanted << m_path;
    if (!wanted.isEmpty())
        m_watcher->addPaths(wanted); // what cannot be watched is left to the poll
}

void WorkspaceStateWatcher::check()
{
    watchPaths();
    const Identity now = identityOf(m_path);
    if (now == m_seen)
        return;
    m_seen = now;
    Q_EMIT changed();
}
