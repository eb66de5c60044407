#pragma once

// WorkspaceStateWatcher: tells when the workspace state file may have been written by another
// process (a one-shot runner parking a question or taking a stored answer). Writes are atomic
// renames, which replace the file's inode: a watch on the file alone would follow the old inode and
// go quiet, so the directory is watched. A burst of events (temporary file, rename, lock file) is
// one check after a short delay, and a check only reports when the file's identity (inode, size,
// times) differs from the last it saw. A slow poll covers file systems that send no events (and a
// directory that was replaced).
//
// The report is a hint: the reader compares what it reads with what it knows, so a change of this
// process's own costs one read and nothing else.

#include <QObject>
#include <QString>

#include <sys/types.h>

class QFileSystemWatcher;
class QTimer;

class WorkspaceStateWatcher : public QObject
{
    Q_OBJECT
public:
    explicit WorkspaceStateWatcher(QString path, int settleMs = 100, int pollMs = 2'000, QObject* parent = nullptr);

    QString path() const { return m_path; }

Q_SIGNALS:
    void changed();

private:
    struct Identity
    {
        bool exists = false;
        dev_t device = 0;
        ino_t inode = 0;
        off_t size = 0;
        qint64 modifiedNs = 0;
        qint64 changedNs = 0;
        bool operator==(const Identity&) const = default;
    };

    static Identity identityOf(const QString& path);
    void check();
    void watchPaths();

    const QString m_path;
    QFileSystemWatcher* m_watcher;
    QTimer* m_settle;
    QTimer* m_poll;
    Identity m_seen;
};
