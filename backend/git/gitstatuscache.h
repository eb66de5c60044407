#pragma once

// GitStatusCache: git_status's answer for a working tree that has not changed since it was
// computed. Each cached repository has a TreeWatcher; an answer is kept with the watcher's
// generation read before it was computed and served while the generation (and the git
// configuration files outside the tree that can change the answer) stay the same, so a cached
// answer is always what a fresh one would be. A repository's first answer is computed without the
// cache, and the watcher is built and the answer computed again in the background, so the first
// call never waits for the watching to be set up.
//
// Bounded: at most MaxRepositories repositories (the one used longest ago goes) and answers of at
// most MaxAnswerBytes. Thread-safe.

#include "tools/workerpool.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>

class TreeWatcher;

class GitStatusCache
{
public:
    static constexpr int MaxRepositories = 32;
    static constexpr std::size_t MaxAnswerBytes = 16 * 1024 * 1024;

    // Computes a repository's status fields from scratch (on any thread); nullopt when it could not.
    using Compute = std::function<std::optional<nlohmann::json>(const QString& repository)>;

    explicit GitStatusCache(Compute compute);
    ~GitStatusCache();

    // The cached answer when the tree has not changed since it was computed.
    std::optional<nlohmann::json> find(const QString& repository);
    // A fresh answer, computed now (and cached when the tree is watched); starts watching the tree
    // in the background when it is not watched yet.
    std::optional<nlohmann::json> compute(const QString& repository);
    // Both: what a status call does.
    std::optional<nlohmann::json> status(const QString& repository, bool* fromCache = nullptr);

    // Stops the background work (shutdown); later calls compute without caching.
    void shutDown();

private:
    struct Entry
    {
        QString repository;
        std::shared_ptr<TreeWatcher> watcher; // null until built
        bool watching = false; // being built in the background
        std::optional<nlohmann::json> answer;
        quint64 generation = 0;
        QByteArray configStamp;
    };

    // m_mutex held. A call's use moves the entry to the front (most recently used); the
    // background's work looks it up in place, so it never keeps a repository nobody asks about.
    Entry* use(const QString& repository);
    Entry* lookup(const QString& repository);
    // Computes and keeps the answer when nothing changed meanwhile and the entry still has this
    // watcher (it may have been evicted).
    std::optional<nlohmann::json> computeAndKeep(
        const QString& repository, const std::shared_ptr<TreeWatcher>& watcher);
    void watchInBackground(const QString& repository);
    static QByteArray configStamp();

    Compute m_compute;
    std::mutex m_mutex;
    std::list<Entry> m_entries; // most recently used first
    bool m_shutDown = false;
    WorkerPool m_background{1, QByteArrayLiteral("git-status-watch")};
};
