#include "git/treewatcher.h"

#include <QFile>

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace {

constexpr uint32_t DirectoryEvents = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM
    | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

bool isDotOrDotDot(const char* name)
{
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

} // namespace

TreeWatcher::TreeWatcher(QString root)
    : m_root(std::move(root))
    , m_gitDirectory(QFile::encodeName(m_root) + "/.git")
{
    m_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    std::lock_guard lock(m_mutex);
    if (m_fd < 0) {
        m_complete = false;
        return;
    }
    watchTree(QFile::encodeName(m_root));
    // A root that could not be watched (gone, not a directory) tells nothing.
    if (m_directories.empty())
        m_complete = false;
    // The git directory: HEAD, index and packed-refs live at its top, refs below; objects and logs
    // change only with something else that is watched.
    watchDirectory(m_gitDirectory);
    watchTree(m_gitDirectory + "/refs");
    watchDirectory(m_gitDirectory + "/info");
}

TreeWatcher::~TreeWatcher()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool TreeWatcher::isComplete() const
{
    std::lock_guard lock(m_mutex);
    return m_complete;
}

quint64 TreeWatcher::generation()
{
    std::lock_guard lock(m_mutex);
    drain();
    return m_generation;
}

void TreeWatcher::watchDirectory(const QByteArray& directory)
{
    if (!m_complete)
        return;
    if (int(m_directories.size()) >= MaxDirectories) {
        m_complete = false;
        return;
    }
    const int watch = inotify_add_watch(m_fd, directory.constData(), DirectoryEvents);
    if (watch < 0) {
        // Gone already (a race with its removal, which is itself a change) or not a directory:
        // nothing to watch. Out of watches: the tree cannot be watched whole.
        if (errno != ENOENT && errno != ENOTDIR)
            m_complete = false;
        return;
    }
    m_directories[watch] = directory;
}

void TreeWatcher::watchTree(const QByteArray& directory)
{
    // Depth first with an explicit stack: a deep tree must not exhaust the thread's stack.
    std::vector<QByteArray> pending{directory};
    while (!pending.empty() && m_complete) {
        const QByteArray current = std::move(pending.back());
        pending.pop_back();
        watchDirectory(current);
        DIR* handle = ::opendir(current.constData());
        if (!handle)
            continue;
        while (const dirent* entry = ::readdir(handle)) {
            if (isDotOrDotDot(entry->d_name))
                continue;
            bool isDirectory = entry->d_type == DT_DIR;
            if (entry->d_type == DT_UNKNOWN) {
                struct stat info;
                isDirectory
                    = ::fstatat(dirfd(handle), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
            }
            if (!isDirectory)
                continue;
            QByteArray child = current + '/' + entry->d_name;
            if (child == m_gitDirectory)
                continue; // watched on its own terms
            pending.push_back(std::move(child));
        }
        ::closedir(handle);
    }
}

void TreeWatcher::drain()
{
    if (m_fd < 0)
        return;
    alignas(inotify_event) char buffer[64 * 1024];
    for (;;) {
        const ssize_t length = ::read(m_fd, buffer, sizeof buffer);
        if (length <= 0)
            return; // EAGAIN: nothing more queued
        for (ssize_t offset = 0; offset < length;) {
            const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
            offset += ssize_t(sizeof(inotify_event) + event->len);
            ++m_generation;
            if (event->mask & IN_Q_OVERFLOW) {
                // Events were lost, new directories among them: nothing can be trusted any more.
                m_complete = false;
                continue;
            }
            if (event->mask & IN_IGNORED) {
                m_directories.erase(event->wd);
                continue;
            }
            if ((event->mask & IN_ISDIR) && (event->mask & (IN_CREATE | IN_MOVED_TO)) && event->len > 0) {
                const auto parent = m_directories.find(event->wd);
                if (parent != m_directories.end()) {
                    const QByteArray child = parent->second + '/' + QByteArray(event->name);
                    if (child != m_gitDirectory)
                        watchTree(child);
                }
            }
        }
    }
}
