#include "git/gitstatuscache.h"

#include "git/treewatcher.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <sys/stat.h>

GitStatusCache::GitStatusCache(Compute compute)
    : m_compute(std::move(compute))
{}

GitStatusCache::~GitStatusCache()
{
    shutDown();
}

void GitStatusCache::shutDown()
{
    {
        std::lock_guard lock(m_mutex);
        m_shutDown = true;
    }
    m_background.shutDown(5'000);
}

QByteArray GitStatusCache::configStamp()
{
    // Files outside the tree that change what status reports (excludes, status settings): their
    // size and modification time, as git reads them.
    const QByteArray home = qgetenv("HOME");
    QByteArray xdg = qgetenv("XDG_CONFIG_HOME");
    if (xdg.isEmpty())
        xdg = home + "/.config";
    QByteArray stamp;
    const QByteArray files[]
        = {home + "/.gitconfig", xdg + "/git/config", xdg + "/git/ignore", QByteArray("/etc/gitconfig")};
    for (const QByteArray& path : files) {
        struct stat info;
        if (::stat(path.constData(), &info) == 0)
            stamp += QByteArray::number(qint64(info.st_size)) + ':' + QByteArray::number(qint64(info.st_mtim.tv_sec))
                + '.' + QByteArray::number(qint64(info.st_mtim.tv_nsec)) + ';';
        else
            stamp += "-;";
    }
    return stamp;
}

GitStatusCache::Entry* GitStatusCache::use(const QString& repository)
{
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->repository == repository) {
            m_entries.splice(m_entries.begin(), m_entries, it);
            return &m_entries.front();
        }
    }
    return nullptr;
}

GitStatusCache::Entry* GitStatusCache::lookup(const QString& repository)
{
    for (Entry& cached : m_entries) {
        if (cached.repository == repository)
            return &cached;
    }
    return nullptr;
}

std::optional<nlohmann::json> GitStatusCache::find(const QString& repository)
{
    std::shared_ptr<TreeWatcher> watcher;
    quint64 generation = 0;
    std::optional<nlohmann::json> answer;
    QByteArray stamp;
    {
        std::lock_guard lock(m_mutex);
        Entry* cached = use(repository);
        if (!cached || !cached->watcher || !cached->answer)
            return std::nullopt;
        watcher = cached->watcher;
        generation = cached->generation;
        answer = cached->answer;
        stamp = cached->configStamp;
    }
    // Reading the watcher's events may take a moment after a large change: outside the lock.
    if (!watcher->isComplete() || watcher->generation() != generation || configStamp() != stamp)
        return std::nullopt;
    return answer;
}

std::optional<nlohmann::json> GitStatusCache::compute(const QString& repository)
{
    std::shared_ptr<TreeWatcher> watcher;
    bool startWatching = false;
    {
        std::lock_guard lock(m_mutex);
        if (!m_shutDown) {
            Entry* cached = use(repository);
            if (!cached) {
                m_entries.push_front(Entry{repository, nullptr, false, std::nullopt, 0, {}});
                while (int(m_entries.size()) > MaxRepositories)
                    m_entries.pop_back();
                cached = &m_entries.front();
            }
            watcher = cached->watcher;
            if (!watcher && !cached->watching) {
                cached->watching = true;
                startWatching = true;
            }
        }
    }
    if (!watcher || !watcher->isComplete()) {
        std::optional<nlohmann::json> answer = m_compute(repository);
        // Only now: walking the tree at the same time would slow this first answer down.
        if (startWatching)
            watchInBackground(repository);
        return answer;
    }
    return computeAndKeep(repository, watcher);
}

std::optional<nlohmann::json> GitStatusCache::computeAndKeep(
    const QString& repository, const std::shared_ptr<TreeWatcher>& watcher)
{
    // The generation before computing: a change made while the answer is computed makes it stale.
    const QByteArray stamp = configStamp();
    const quint64 generation = watcher->generation();
    std::optional<nlohmann::json> answer = m_compute(repository);
    // Kept only when nothing changed while it was computed: then it is the answer for the tree as
    // it is now, and a slower computation that started earlier can never replace a newer answer
    // with an older one.
    if (answer && watcher->generation() == generation && answer->dump().size() <= MaxAnswerBytes) {
        std::lock_guard lock(m_mutex);
        if (Entry* cached = lookup(repository); cached && cached->watcher == watcher) {
            cached->answer = answer;
            cached->generation = generation;
            cached->configStamp = stamp;
        }
    }
    return answer;
}

std::optional<nlohmann::json> GitStatusCache::status(const QString& repository, bool* fromCache)
{
    if (auto cached = find(repository)) {
        if (fromCache)
            *fromCache = true;
        return cached;
    }
    if (fromCache)
        *fromCache = false;
    return compute(repository);
}

void GitStatusCache::watchInBackground(const QString& repository)
{
    m_background.start([this, repository] {
        {
            std::lock_guard lock(m_mutex);
            if (m_shutDown)
                return;
        }
        auto watcher = std::make_shared<TreeWatcher>(repository);
        {
            std::lock_guard lock(m_mutex);
            Entry* cached = lookup(repository);
            if (!cached || m_shutDown)
                return;
            cached->watching = false;
            cached->watcher = watcher;
        }
        // Warm: the next call is answered from the cache. Not a use: an evicted entry stays gone.
        if (watcher->isComplete())
            computeAndKeep(repository, watcher);
    });
}
