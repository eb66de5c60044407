#include "git/gitstatusscanner.h"

#include "git/gitlibrary.h"
#include "git/gitptr.h"

#include <QFile>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <thread>

namespace {

constexpr unsigned StatusFlags
    = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX | GIT_STATUS_OPT_SORT_CASE_SENSITIVELY;

struct Part
{
    std::vector<GitStatusEntry> entries;
    QString error;
    bool ok = true;
};

// One status list, as entries. `paths` empty means the whole tree.
void collect(git_repository* repository, git_status_show_t show, const std::vector<std::string>* paths, Part* part)
{
    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = show;
    options.flags = StatusFlags;
    std::vector<char*> pointers;
    if (paths) {
        for (const std::string& path : *paths)
            pointers.push_back(const_cast<char*>(path.c_str()));
        options.pathspec = git_strarray{pointers.data(), pointers.size()};
        options.flags |= GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
    }
    git_status_list* rawList = nullptr;
    if (git_status_list_new(&rawList, repository, &options) != 0) {
        part->ok = false;
        part->error = GitLibrary::lastErrorMessage();
        return;
    }
    GitStatusListPtr list(rawList);
    const std::size_t count = git_status_list_entrycount(list.get());
    part->entries.reserve(part->entries.size() + count);
    for (std::size_t i = 0; i < count; ++i) {
        const git_status_entry* entry = git_status_byindex(list.get(), i);
        const git_diff_delta* delta = entry->head_to_index ? entry->head_to_index : entry->index_to_workdir;
        if (!delta)
            continue;
        GitStatusEntry item;
        item.path = delta->new_file.path ? delta->new_file.path : "";
        if (entry->head_to_index && (entry->status & GIT_STATUS_INDEX_RENAMED) && entry->head_to_index->old_file.path)
            item.oldPath = entry->head_to_index->old_file.path;
        item.flags = entry->status;
        part->entries.push_back(std::move(item));
    }
}

} // namespace

bool GitStatusScanner::scan(git_repository* repository, const QString& workTree, std::vector<GitStatusEntry>* entries,
    QString* error, std::size_t parallelThreshold)
{
    entries->clear();
    git_index* rawIndex = nullptr;
    if (git_repository_index(&rawIndex, repository) != 0) {
        *error = GitLibrary::lastErrorMessage();
        return false;
    }
    GitIndexPtr index(rawIndex);

    // The working tree's top-level directories, half of them for the second thread.
    const QByteArray top = QFile::encodeName(workTree);
    std::vector<std::string> directories;
    std::set<std::string> names;
    if (git_index_entrycount(index.get()) >= parallelThreshold) {
        if (DIR* handle = ::opendir(top.constData())) {
            while (const dirent* entry = ::readdir(handle)) {
                const std::string name = entry->d_name;
                if (name == "." || name == ".." || name == ".git")
                    continue;
                names.insert(name);
                bool isDirectory = entry->d_type == DT_DIR;
                if (entry->d_type == DT_UNKNOWN) {
                    struct stat info;
                    isDirectory = ::fstatat(dirfd(handle), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0
                        && S_ISDIR(info.st_mode);
                }
                if (isDirectory)
                    directories.push_back(name);
            }
            ::closedir(handle);
        }
    }
    if (directories.size() < 4) {
        Part whole;
        collect(repository, GIT_STATUS_SHOW_INDEX_AND_WORKDIR, nullptr, &whole);
        if (!whole.ok) {
            *error = whole.error;
            return false;
        }
        *entries = std::move(whole.entries);
        return true;
    }
    std::sort(directories.begin(), directories.end());
    // The calling thread also compares HEAD with the whole index (about a tenth of the work), so
    // the second thread takes a little more than half of the directories: 11 of every 20.
    std::vector<std::string> second;
    std::set<std::string> secondSet;
    for (std::size_t i = 0; i < directories.size(); ++i) {
        if (i % 20 < 11) {
            second.push_back(directories[i]);
            secondSet.insert(directories[i]);
        }
    }
    Part secondPart;
    std::thread worker([&workTree, &second, &secondPart] {
        git_repository* rawOwn = nullptr;
        const QByteArray path = QFile::encodeName(workTree);
        if (git_repository_open_ext(&rawOwn, path.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
            secondPart.ok = false;
            secondPart.error = GitLibrary::lastErrorMessage();
            return;
        }
        GitRepositoryPtr own(rawOwn);
        collect(own.get(), GIT_STATUS_SHOW_WORKDIR_ONLY, &second, &secondPart);
    });

    // This thread: every top-level name the index or the disk has, but the second thread's.
    const std::size_t count = git_index_entrycount(index.get());
    for (std::size_t i = 0; i < count; ++i) {
        const git_index_entry* entry = git_index_get_byindex(index.get(), i);
        const char* path = entry->path;
        const char* slash = std::strchr(path, '/');
        names.insert(slash ? std::string(path, std::size_t(slash - path)) : std::string(path));
    }
    std::vector<std::string> first;
    for (const std::string& name : names) {
        if (!secondSet.count(name))
            first.push_back(name);
    }
    Part firstPart;
    collect(repository, GIT_STATUS_SHOW_INDEX_ONLY, nullptr, &firstPart);
    if (firstPart.ok && !first.empty())
        collect(repository, GIT_STATUS_SHOW_WORKDIR_ONLY, &first, &firstPart);
    worker.join();
    if (!firstPart.ok || !secondPart.ok) {
        *error = firstPart.ok ? secondPart.error : firstPart.error;
        return false;
    }
    // One entry per path, the index's and the working tree's flags together.
    std::map<std::string, GitStatusEntry> merged;
    for (Part* part : {&firstPart, &secondPart}) {
        for (GitStatusEntry& entry : part->entries) {
            auto [it, inserted] = merged.try_emplace(entry.path, entry);
            if (!inserted) {
                it->second.flags |= entry.flags;
                if (it->second.oldPath.empty())
                    it->second.oldPath = std::move(entry.oldPath);
            }
        }
    }
    entries->reserve(merged.size());
    for (auto& [path, entry] : merged)
        entries->push_back(std::move(entry));
    return true;
}
