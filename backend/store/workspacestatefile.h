#pragma once

// WorkspaceStateFile: the console's own state that must survive a restart (pending interactions
// and stored answers), kept as one owner-only JSON file. Every write is atomic: a temporary file
// in the same directory, fsync, then rename (QSaveFile), so a crash or a full disk leaves the
// previous state intact rather than half a file.
//
// A WorkspaceStateWriter lives on a bookkeeping thread so the fsync never blocks the server.

#include <QByteArray>
#include <QMutex>
#include <QObject>
#include <QString>

class WorkspaceStateFile
{
public:
    // Writes `contents` atomically with mode 0600.
    static bool write(const QString& path, const QByteArray& contents, QString* error);
    // Reads the file; a missing file is not an error (`contents` is left empty).
    static bool read(const QString& path, QByteArray* contents, QString* error);
    // Moves an unreadable file aside (path + ".unreadable-<time>") so it is kept for the operator
    // and not overwritten; returns the new path, or empty when the move failed.
    static QString setAside(const QString& path);
};

class WorkspaceStateWriter : public QObject
{
    Q_OBJECT
public:
    explicit WorkspaceStateWriter(QString path, QObject* parent = nullptr);

    // From any thread: the newest state. Bursts are coalesced; only the newest snapshot is
    // written.
    void submit(QByteArray snapshot);
    // From any thread: returns once the newest submitted snapshot is on disk (or failed).
    void flush();
    QString path() const { return m_path; }

Q_SIGNALS:
    void writeFailed(const QString& error);
    void writeRecovered();

private:
    void writePending();

    QString m_path;
    QMutex m_mutex;
    QByteArray m_pending; // guarded by m_mutex
    bool m_dirty = false; // m_pending is not on disk yet; guarded by m_mutex
    bool m_scheduled = false; // guarded by m_mutex
    bool m_failing = false;
};
