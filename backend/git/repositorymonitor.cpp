#include "git/repositorymonitor.h"

#include "boundedjson.h"
#include "events/backendevents.h"
#include "git/repositoryinspector.h"
#include "git/treewatcher.h"
#include "store/workspacestatefile.h"
#include "tools/homethread.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSocketNotifier>

#include <nlohmann/json.hpp>

RepositoryMonitor::RepositoryMonitor(GitPathPolicy policy, BackendEvents* events, QString listPath, QObject* parent)
    : QObject(parent)
    , m_policy(std::move(policy))
    , m_listPath(std::move(listPath))
    , m_events(events)
    , m_home(HomeThread::create(this))
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(DebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &RepositoryMonitor::readDirty);
    loadList();
}

void RepositoryMonitor::loadList()
{
    if (m_listPath.isEmpty())
        return;
    // A few kilobytes at most; anything larger is not what this class writes.
    QByteArray bytes;
    QString error;
    switch (WorkspaceStateFile::read(m_listPath, 1024 * 1024, &bytes, &error)) {
    case WorkspaceStateFile::ReadStatus::Missing:
        return; // none yet
    case WorkspaceStateFile::ReadStatus::Unreadable:
        qWarning("switchboard: %s; the repository view starts empty", qPrintable(error));
        return;
    case WorkspaceStateFile::ReadStatus::Read:
        break;
    }
    const nlohmann::json list = BoundedJson::parse(bytes, BoundedJson::Limits::record()).value;
    if (!list.is_object() || !list.contains("repositories") || !list["repositories"].is_array()) {
        qWarning("switchboard: %s is not a repository list; the repository view starts empty", qPrintable(m_listPath));
        return;
    }
    for (const nlohmann::json& item : list["repositories"]) {
        if (!item.is_string() || int(m_repositories.size()) >= MaxRepositories)
            continue;
        QString ignored;
        const auto resolved
            = m_policy.resolveRepository(QString::fromStdString(item.get<std::string>()), QString(), &ignored);
        if (!resolved || m_repositories.count(*resolved))
            continue;
        m_repositories.emplace(*resolved, Watched{});
        watchFiles(*resolved);
        startRead(*resolved);
    }
}

void RepositoryMonitor::saveList() const
{
    if (m_listPath.isEmpty())
        return;
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& [path, entry] : m_repositories)
        paths.push_back(path.toStdString());
    QString error;
    const QByteArray text = QByteArray::fromStdString(nlohmann::json{{"version", 1}, {"repositories", paths}}.dump(1));
    if (!WorkspaceStateFile::write(m_listPath, text, &error))
        qWarning("switchboard: the repository list cannot be written: %s", qPrintable(error));
}

RepositoryMonitor::~RepositoryMonitor()
{
    shutDown();
}

void RepositoryMonitor::shutDown()
{
    if (m_shutDown)
        return;
    m_shutDown = true;
    m_debounce.stop();
    m_home->close();
    m_reader.shutDown(5'000);
}

RepositoryMonitor::Watched& RepositoryMonitor::watched(const QString& path)
{
    auto it = m_repositories.find(path);
    if (it == m_repositories.end()) {
        if (int(m_repositories.size()) >= MaxRepositories) {
            auto oldest = std::min_element(m_repositories.begin(), m_repositories.end(),
                [](const auto& a, const auto& b) { return a.second.lastUsedMs < b.second.lastUsedMs; });
            const QString gone = oldest->first;
            remove(gone);
        }
        it = m_repositories.emplace(path, Watched{}).first;
        watchFiles(path);
        saveList();
    }
    it->second.lastUsedMs = QDateTime::currentMSecsSinceEpoch();
    return it->second;
}

void RepositoryMonitor::touch(const QString& path, qint64 callId, bool changed)
{
    if (m_shutDown)
        return;
    const bool isNew = m_repositories.find(path) == m_repositories.end();
    Watched& entry = watched(path);
    if (callId > 0 && !entry.callIds.contains(callId)) {
        entry.callIds.append(callId);
        while (entry.callIds.size() > RepositoryState::MaxCallIds)
            entry.callIds.removeFirst();
    }
    // A read-only call changes nothing to show but its id: the next read carries it, and one is
    // started for a repository shown for the first time.
    if (changed || isNew)
        startRead(path);
    else {
        m_dirty.insert(path);
        if (!m_debounce.isActive())
            m_debounce.start();
    }
}

bool RepositoryMonitor::add(const QString& path, QString* error)
{
    if (!m_policy.hasRoots()) {
        *error = GitPathPolicy::noRootsMessage();
        return false;
    }
    const auto resolved = m_policy.resolveRepository(path, QStringLiteral("The repository"), error);
    if (!resolved)
        return false;
    watched(*resolved);
    startRead(*resolved);
    return true;
}

void RepositoryMonitor::remove(const QString& path)
{
    const auto it = m_repositories.find(path);
    if (it == m_repositories.end())
        return;
    delete it->second.notifier;
    m_repositories.erase(it);
    m_dirty.remove(path);
    saveList();
    Q_EMIT repositoryRemoved(path);
}

bool RepositoryMonitor::refresh(const QString& path, QString* error)
{
    if (m_repositories.find(path) == m_repositories.end()) {
        *error = QStringLiteral("%1 is not among the repositories shown; add it first.").arg(path);
        return false;
    }
    startRead(path);
    return true;
}

void RepositoryMonitor::loadFileDiff(const QString& path, const QString& file)
{
    if (m_shutDown)
        return;
    if (m_repositories.find(path) == m_repositories.end()) {
        FileDiff diff;
        diff.repository = path;
        diff.file = file;
        diff.error = QStringLiteral("%1 is not among the repositories shown.").arg(path);
        Q_EMIT fileDiffLoaded(diff);
        return;
    }
    std::weak_ptr<HomeThread> home = m_home;
    m_reader.start([this, home, policy = m_policy, path, file] {
        FileDiff diff = RepositoryInspector::fileDiff(policy, path, file);
        if (auto target = home.lock())
            target->post([this, diff = std::move(diff)] { Q_EMIT fileDiffLoaded(diff); });
    });
}

QStringList RepositoryMonitor::repositories() const
{
    QStringList paths;
    for (const auto& [path, entry] : m_repositories)
        paths.append(path);
    return paths;
}

void RepositoryMonitor::watchFiles(const QString& path)
{
    // Walking a large tree takes a while: on the reader's thread, handed back when ready.
    std::weak_ptr<HomeThread> home = m_home;
    m_reader.start([this, home, path] {
        auto watcher = std::make_shared<TreeWatcher>(path);
        if (auto target = home.lock())
            target->post([this, path, watcher] { watcherReady(path, watcher); });
    });
}

bool RepositoryMonitor::followsChanges(const QString& path) const
{
    const auto it = m_repositories.find(path);
    return it != m_repositories.end() && it->second.notifier;
}

void RepositoryMonitor::watcherReady(const QString& path, std::shared_ptr<TreeWatcher> watcher)
{
    const auto it = m_repositories.find(path);
    if (it == m_repositories.end() || m_shutDown)
        return; // removed meanwhile
    Watched& entry = it->second;
    entry.watcher = std::move(watcher);
    entry.generation = entry.watcher->generation();
    if (entry.watcher->descriptor() < 0)
        return;
    entry.notifier = new QSocketNotifier(qintptr(entry.watcher->descriptor()), QSocketNotifier::Read, this);
    connect(entry.notifier, &QSocketNotifier::activated, this, [this, path] { filesChanged(path); });
    // Anything that changed while the watcher was being built is read now.
    m_dirty.insert(path);
    m_debounce.start();
}

void RepositoryMonitor::filesChanged(const QString& path)
{
    const auto it = m_repositories.find(path);
    if (it == m_repositories.end() || !it->second.watcher)
        return;
    const quint64 generation = it->second.watcher->generation(); // reads the events
    if (generation == it->second.generation)
        return;
    it->second.generation = generation;
    m_dirty.insert(path);
    // Debounced, but a tree that never stops changing is still read every MaxDelayMs.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (!m_debounce.isActive())
        m_firstDirtyMs = now;
    if (now - m_firstDirtyMs < MaxDelayMs)
        m_debounce.start();
}

void RepositoryMonitor::readDirty()
{
    const QSet<QString> dirty = std::exchange(m_dirty, {});
    for (const QString& path : dirty)
        startRead(path);
}

void RepositoryMonitor::startRead(const QString& path)
{
    if (m_shutDown)
        return;
    auto it = m_repositories.find(path);
    if (it == m_repositories.end())
        return;
    if (it->second.reading) {
        it->second.readAgain = true;
        return;
    }
    it->second.reading = true;
    std::weak_ptr<HomeThread> home = m_home;
    m_reader.start([this, home, policy = m_policy, path] {
        RepositoryState state = RepositoryInspector::read(policy, path);
        if (auto target = home.lock())
            target->post([this, state = std::move(state)]() mutable { published(std::move(state)); });
    });
}

void RepositoryMonitor::published(RepositoryState state)
{
    auto it = m_repositories.find(state.path);
    if (it == m_repositories.end())
        return; // removed meanwhile
    it->second.reading = false;
    state.callIds = it->second.callIds;
    if (m_events)
        m_events->publishRepositoryState(state);
    if (std::exchange(it->second.readAgain, false))
        startRead(state.path);
}
