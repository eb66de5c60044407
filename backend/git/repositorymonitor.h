#pragma once

// RepositoryMonitor: the repositories the repository view shows: those git tools touched and those
// the operator added, always inside the allowed roots, at most MaxRepositories (the one used
// longest ago goes first). Each is read again (RepositoryInspector, on a thread of its own, never
// the backend thread) after a git tool changed it and, debounced, when its files change on disk
// (its top directory, git directory, index, HEAD and branch refs are watched); the newest state
// goes out through BackendEvents, coalesced per path.
//
// The list itself (paths only) is kept in a small file, `listPath`, when one is given, so the view
// shows the same repositories after a restart: read at start (paths no longer inside the roots are
// dropped), written (atomically) whenever the list changes.
//
// Lives on the backend thread. Git tools call in from their workers through home().

#include "backendstates.h"
#include "policy/gitpathpolicy.h"
#include "tools/workerpool.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <map>
#include <memory>

class BackendEvents;
class HomeThread;
class QSocketNotifier;
class TreeWatcher;

class RepositoryMonitor : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxRepositories = 64;
    static constexpr int DebounceMs = 300;
    static constexpr int MaxDelayMs = 2'000;

    RepositoryMonitor(GitPathPolicy policy, BackendEvents* events, QString listPath = {}, QObject* parent = nullptr);
    ~RepositoryMonitor() override;

    // Where workers post what they tell the monitor.
    std::shared_ptr<HomeThread> home() const { return m_home; }

    // A git tool read (`changed` false) or changed the repository at `path` (canonical) in call
    // `callId`: it is shown from now on, remembers the call, and is read again when it changed (or
    // was not shown before).
    void touch(const QString& path, qint64 callId, bool changed);
    // The operator's commands. add() refuses (saying why) a path outside the roots or one that does
    // not exist; a path that is not a repository is shown with its error.
    bool add(const QString& path, QString* error);
    void remove(const QString& path);
    bool refresh(const QString& path, QString* error);
    void loadFileDiff(const QString& path, const QString& file);

    QStringList repositories() const;
    // Whether changes inside the repository at `path` are followed as they happen: its tree watcher,
    // built on the reader's thread after it is first shown, is in place.
    bool followsChanges(const QString& path) const;
    // Stops reading; later results are dropped. Called before the backend's thread ends.
    void shutDown();

Q_SIGNALS:
    void repositoryRemoved(const QString& path);
    void fileDiffLoaded(const FileDiff& diff);

private:
    struct Watched
    {
        QList<qint64> callIds;
        qint64 lastUsedMs = 0;
        bool reading = false;
        bool readAgain = false;
        std::shared_ptr<TreeWatcher> watcher; // null until built
        QSocketNotifier* notifier = nullptr;
        quint64 generation = 0;
    };

    Watched& watched(const QString& path);
    void watchFiles(const QString& path);
    void watcherReady(const QString& path, std::shared_ptr<TreeWatcher> watcher);
    void filesChanged(const QString& path);
    void readDirty();
    void startRead(const QString& path);
    void published(RepositoryState state);
    void loadList();
    void saveList() const;

    const GitPathPolicy m_policy;
    const QString m_listPath;
    BackendEvents* m_events;
    std::map<QString, Watched> m_repositories;
    QTimer m_debounce;
    QSet<QString> m_dirty;
    qint64 m_firstDirtyMs = 0;
    std::shared_ptr<HomeThread> m_home;
    WorkerPool m_reader{1, QByteArrayLiteral("repository-reader")};
    bool m_shutDown = false;
};
