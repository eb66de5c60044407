#pragma once

// TreeWatcher: tells whether anything changed in a working tree since a moment ago, exactly and
// cheaply, with Linux's inotify: every directory of the tree is watched (and the git directory's
// HEAD, index, refs and info), new directories are watched as they appear, and each change
// counts. inotify queues an event inside the system call that made the change, so a change made
// before generation() is called is always counted by it: a result computed after reading
// generation() g is still true while generation() returns g.
//
// Not seen: writes through a shared memory mapping, and changes on network file systems; a tree
// of more than MaxDirectories directories, or one where a watch cannot be added (the
// fs.inotify.max_user_watches limit), is not complete() and its users must not cache.
//
// Thread-safe.

#include <QString>

#include <mutex>
#include <unordered_map>

class TreeWatcher
{
public:
    static constexpr int MaxDirectories = 20'000;

    // Walks `root` (canonical) and watches it. Blocking: about a millisecond per hundred directories.
    explicit TreeWatcher(QString root);
    ~TreeWatcher();
    TreeWatcher(const TreeWatcher&) = delete;
    TreeWatcher& operator=(const TreeWatcher&) = delete;

    const QString& root() const { return m_root; }
    bool isComplete() const;
    // The descriptor to wait on for changes (a QSocketNotifier's), or -1.
    int descriptor() const { return m_fd; }
    // Reads every queued event and returns how many changes were seen so far.
    quint64 generation();

private:
    void watchTree(const QByteArray& directory); // m_mutex held
    void watchDirectory(const QByteArray& directory); // m_mutex held
    void drain(); // m_mutex held

    const QString m_root;
    const QByteArray m_gitDirectory; // root + "/.git"
    int m_fd = -1;
    mutable std::mutex m_mutex;
    std::unordered_map<int, QByteArray> m_directories; // watch descriptor → directory
    quint64 m_generation = 0;
    bool m_complete = true;
};
