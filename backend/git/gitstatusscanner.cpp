#include "git/gitstatusscanner.h"

#include "git/gitindexfile.h"
#include "git/gitlibrary.h"
#include "git/gitptr.h"

#include <git2/sys/repository.h>

#include <QFile>
#include <QScopeGuard>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>

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
void collect(git_repository* repository, git_status_show_t show, const std::vector<std::string>* paths, Part* part,
    unsigned moreFlags = 0)
{
    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = show;
    options.flags = StatusFlags | moreFlags;
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

// What libgit2 is asked about. libgit2 1.5 reports nothing for an untracked file or directory
// below the top level named by its exact path, unless it recurses into untracked directories
// (which lists an untracked directory's files, where git shows the directory): such names are
// asked about separately, recursing, and what is found inside a directory is shown as it.
struct Asked
{
    std::vector<std::string> paths; // changed tracked paths, names the index lacks at the top
    std::vector<std::string> nested; // names the index lacks below the top
    std::vector<std::string> nestedDirectories; // those of them that are directories
    std::size_t size() const { return paths.size() + nested.size(); }
};

// Untracked entries found by recursing into `directories` become one "directory/" entry each.
void collapseUntrackedDirectories(std::vector<std::string> directories, Part* part)
{
    std::sort(directories.begin(), directories.end());
    std::vector<GitStatusEntry> kept;
    std::set<std::string> shown;
    for (GitStatusEntry& entry : part->entries) {
        auto it = std::upper_bound(directories.begin(), directories.end(), entry.path);
        if (it != directories.begin()) {
            const std::string& directory = *std::prev(it);
            if (entry.path.size() > directory.size() && entry.path.compare(0, directory.size(), directory) == 0
                && entry.path[directory.size()] == '/') {
                if (shown.insert(directory).second)
                    kept.push_back(GitStatusEntry{directory + '/', {}, GIT_STATUS_WT_NEW});
                continue;
            }
        }
        kept.push_back(std::move(entry));
    }
    part->entries = std::move(kept);
}

// The working tree against the index file's stat data, directory by directory, on any number of
// threads: what cannot be shown unchanged goes to libgit2 by path. A tracked file is unchanged
// when its lstat() data equal the index's (as git trusts them) and it was not modified in the
// index file's own second or later (racily clean: content could differ behind equal data).
// Everything else is sent: differing, missing or racily clean files; names the index does not
// have (untracked or ignored: libgit2 reads the ignore rules); a directory that cannot be opened
// without following a symbolic link; entries in conflict, submodules, intent-to-add,
// skip-worktree and assume-valid entries. Stricter than libgit2 is only slower, never wrong.
class TreeComparison
{
public:
    TreeComparison(const GitIndexFile& index, const QByteArray& workTree)
        : m_index(index)
        , m_root(::open(workTree.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC))
    {
        plan();
    }
    ~TreeComparison()
    {
        if (m_root >= 0)
            ::close(m_root);
    }
    TreeComparison(const TreeComparison&) = delete;
    TreeComparison& operator=(const TreeComparison&) = delete;

    bool isUsable() const { return m_root >= 0 && !m_failed; }

    // Compares directories until none is left; adds what libgit2 must look at to `asked`.
    void work(Asked* asked)
    {
        for (std::size_t next = m_next++; next < m_directories.size(); next = m_next++)
            compare(m_directories[next], asked);
    }

    // Paths that are always libgit2's to judge (found while planning).
    const std::vector<std::string>& alwaysAsked() const { return m_alwaysAsked; }

private:
    struct File
    {
        std::string_view name;
        const GitIndexFile::Entry* entry;
    };
    struct Directory
    {
        std::string path; // "" for the root, else "a/b/"
        std::vector<File> files; // sorted by name
        std::vector<std::string_view> subdirectories; // sorted, unique
    };

    void plan()
    {
        std::unordered_map<std::string_view, std::size_t> byPath;
        const auto directoryOf = [&](std::string_view path, auto& self) -> std::size_t {
            if (auto it = byPath.find(path); it != byPath.end())
                return it->second;
            const std::size_t at = m_directories.size();
            m_directories.push_back(Directory{std::string(path), {}, {}});
            byPath.emplace(path, at); // a view into an index entry's path: stable
            if (!path.empty()) { // "a/b/": "b" is a subdirectory of "a/"
                const std::size_t slash = path.rfind('/', path.size() - 2);
                const std::string_view parent
                    = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1);
                const std::string_view name = path.substr(parent.size(), path.size() - parent.size() - 1);
                const std::size_t parentAt = self(parent, self);
                m_directories[parentAt].subdirectories.push_back(name);
            }
            return at;
        };
        m_directories.reserve(m_index.entries().size() / 8 + 1);
        directoryOf(std::string_view(), directoryOf);
        std::string_view lastPath;
        std::size_t lastAt = 0;
        for (const GitIndexFile::Entry& entry : m_index.entries()) {
            const std::string_view path = entry.path;
            const std::size_t slash = path.rfind('/');
            const std::string_view directory
                = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash + 1);
            // Consecutive entries mostly share their directory.
            const std::size_t at = directory == lastPath ? lastAt : directoryOf(directory, directoryOf);
            lastPath = directory;
            lastAt = at;
            m_directories[at].files.push_back(File{path.substr(directory.size()), &entry});
            const bool gitlink = (entry.mode & 0170000) == 0160000;
            if (entry.stage() != 0 || entry.assumeValid() || entry.skipWorktree() || entry.intentToAdd() || gitlink)
                m_alwaysAsked.push_back(entry.path);
        }
        // Paths keep their directory's entries in order; a directory's names come sorted with them.
        for (Directory& directory : m_directories) {
            std::stable_sort(directory.files.begin(), directory.files.end(),
                [](const File& a, const File& b) { return a.name < b.name; });
            std::sort(directory.subdirectories.begin(), directory.subdirectories.end());
            directory.subdirectories.erase(
                std::unique(directory.subdirectories.begin(), directory.subdirectories.end()),
                directory.subdirectories.end());
        }
    }

    // The directory at `path` ("a/b/"), reached without following any symbolic link.
    int openDirectory(const std::string& path) const
    {
        if (path.empty())
            return ::fcntl(m_root, F_DUPFD_CLOEXEC, 0);
        const std::string relative = path.substr(0, path.size() - 1);
        open_how how{};
        how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, m_root, relative.c_str(), &how, sizeof how);
        if (fd >= 0 || errno != ENOSYS)
            return int(fd);
        // A kernel before 5.6: one component at a time.
        int current = ::fcntl(m_root, F_DUPFD_CLOEXEC, 0);
        std::size_t begin = 0;
        while (current >= 0 && begin < relative.size()) {
            std::size_t slash = relative.find('/', begin);
            if (slash == std::string::npos)
                slash = relative.size();
            const std::string component = relative.substr(begin, slash - begin);
            const int child = ::openat(current, component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            ::close(current);
            current = child;
            begin = slash + 1;
        }
        return current;
    }

    bool unchanged(const GitIndexFile::Entry& entry, const struct stat& info) const
    {
        if (m_index.isRacilyClean(entry))
            return false;
        std::uint32_t mode = 0;
        if (S_ISLNK(info.st_mode))
            mode = 0120000;
        else if (S_ISREG(info.st_mode))
            mode = (info.st_mode & S_IXUSR) ? 0100755 : 0100644;
        return mode == entry.mode && std::uint32_t(info.st_mtim.tv_sec) == entry.mtimeSeconds
            && std::uint32_t(info.st_mtim.tv_nsec) == entry.mtimeNanoseconds
            && std::uint32_t(info.st_ctim.tv_sec) == entry.ctimeSeconds
            && std::uint32_t(info.st_ctim.tv_nsec) == entry.ctimeNanoseconds && std::uint32_t(info.st_ino) == entry.ino
            && info.st_uid == entry.uid && info.st_gid == entry.gid && std::uint32_t(info.st_size) == entry.size;
    }

    // A directory entry that is a directory (not a link to one).
    static bool isDirectoryEntry(DIR* handle, const dirent* item)
    {
        if (item->d_type != DT_UNKNOWN)
            return item->d_type == DT_DIR;
        struct stat info;
        return ::fstatat(::dirfd(handle), item->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
    }

    void compare(const Directory& directory, Asked* asked) const
    {
        std::vector<std::string>* paths = &asked->paths;
        const int fd = openDirectory(directory.path);
        DIR* handle = fd >= 0 ? ::fdopendir(fd) : nullptr;
        if (!handle) {
            if (fd >= 0)
                ::close(fd);
            if (directory.path.empty())
                m_failed = true; // the working tree itself: libgit2 must say what is wrong
            else // gone, replaced by a file or a link: libgit2 reports all of it
                paths->push_back(directory.path.substr(0, directory.path.size() - 1));
            return;
        }
        std::vector<char> seen(directory.files.size(), 0);
        while (const dirent* item = ::readdir(handle)) {
            const std::string_view name = item->d_name;
            if (name == "." || name == ".." || (directory.path.empty() && name == ".git"))
                continue;
            const auto first = std::lower_bound(directory.files.begin(), directory.files.end(), name,
                [](const File& file, std::string_view value) { return file.name < value; });
            auto last = first;
            while (last != directory.files.end() && last->name == name)
                ++last; // more than one: stages of a conflict
            if (first != last) {
                for (auto it = first; it != last; ++it)
                    seen[std::size_t(it - directory.files.begin())] = 1;
                struct stat info;
                if (std::next(first) != last
                    || ::fstatat(::dirfd(handle), item->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0
                    || !unchanged(*first->entry, info))
                    paths->push_back(directory.path + std::string(name));
                continue;
            }
            const bool isDirectory = isDirectoryEntry(handle, item);
            if (std::binary_search(directory.subdirectories.begin(), directory.subdirectories.end(), name)) {
                if (!isDirectory) // a file or a link where the index has a directory
                    paths->push_back(directory.path + std::string(name));
                continue; // a directory: compared as one of its own
            }
            // Untracked or ignored.
            if (directory.path.empty()) {
                paths->push_back(std::string(name));
            } else {
                asked->nested.push_back(directory.path + std::string(name));
                if (isDirectory)
                    asked->nestedDirectories.push_back(asked->nested.back());
            }
        }
        ::closedir(handle);
        for (std::size_t i = 0; i < seen.size(); ++i) {
            if (!seen[i]) // deleted
                paths->push_back(directory.path + std::string(directory.files[i].name));
        }
    }

    const GitIndexFile& m_index;
    const int m_root;
    std::vector<Directory> m_directories;
    std::vector<std::string> m_alwaysAsked;
    std::atomic<std::size_t> m_next{0};
    mutable std::atomic<bool> m_failed{false};
};

// Whether the index holds exactly HEAD's tree (nothing staged), as its cache-tree says: then
// comparing HEAD with the index entry by entry can be skipped. Asked only of an index without
// conflicts or intent-to-add entries (TreeComparison::alwaysAsked() is empty).
bool indexMatchesHead(git_repository* repository, const GitIndexFile& file)
{
    if (file.rootTree().size() != GIT_OID_RAWSZ)
        return false;
    git_object* rawTree = nullptr;
    if (git_revparse_single(&rawTree, repository, "HEAD^{tree}") != 0) {
        git_error_clear();
        return false;
    }
    GitObjectPtr tree(rawTree);
    return std::memcmp(git_object_id(tree.get())->id, file.rootTree().data(), GIT_OID_RAWSZ) == 0;
}

// An index in memory holding only the entries at or below `paths` (the tracked paths that may
// have changed), for libgit2 to compare with the working tree instead of reading the whole file.
// An entry modified in the index file's second or later has its size and time cleared, as git
// does with racily clean entries: libgit2 (which has no file time for an index in memory to
// tell it) then compares its content.
GitIndexPtr partialIndex(const GitIndexFile& file, std::vector<std::string> paths, QString* error)
{
    git_index* rawIndex = nullptr;
    if (git_index_new(&rawIndex) != 0) {
        *error = GitLibrary::lastErrorMessage();
        return GitIndexPtr();
    }
    GitIndexPtr index(rawIndex);
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    const std::vector<GitIndexFile::Entry>& entries = file.entries();
    std::string_view lastAdded;
    for (const std::string& path : paths) {
        // Sorted as git sorts: "a", "a-b", "a.c", "a/d": everything from "a" on that begins with it.
        auto it = std::lower_bound(entries.begin(), entries.end(), path,
            [](const GitIndexFile::Entry& entry, const std::string& value) { return entry.path < value; });
        for (; it != entries.end() && it->path.compare(0, path.size(), path) == 0; ++it) {
            if (it->path.size() != path.size() && it->path[path.size()] != '/')
                continue;
            if (it->path == lastAdded) // below two asked paths
                continue;
            git_index_entry entry{};
            entry.ctime.seconds = it->ctimeSeconds;
            entry.ctime.nanoseconds = it->ctimeNanoseconds;
            const bool racy = file.isRacilyClean(*it);
            entry.mtime.seconds = racy ? 0 : it->mtimeSeconds;
            entry.mtime.nanoseconds = racy ? 0 : it->mtimeNanoseconds;
            entry.dev = it->dev;
            entry.ino = it->ino;
            entry.mode = it->mode;
            entry.uid = it->uid;
            entry.gid = it->gid;
            entry.file_size = racy ? 0 : it->size;
            std::memcpy(entry.id.id, it->id, GIT_OID_RAWSZ);
            entry.path = it->path.c_str();
            if (git_index_add(index.get(), &entry) != 0) {
                *error = GitLibrary::lastErrorMessage();
                return GitIndexPtr();
            }
            lastAdded = it->path;
        }
    }
    return index;
}

// Whether libgit2 read the same index file as GitIndexFile did.
bool sameIndex(git_repository* repository, const GitIndexFile& file)
{
    git_index* rawIndex = nullptr;
    if (git_repository_index(&rawIndex, repository) != 0)
        return false;
    GitIndexPtr index(rawIndex);
    const git_oid* checksum = git_index_checksum(index.get());
    return checksum && file.checksum().size() == GIT_OID_RAWSZ
        && std::memcmp(checksum->id, file.checksum().data(), GIT_OID_RAWSZ) == 0;
}

} // namespace

bool GitStatusScanner::scan(git_repository* repository, const QString& workTree, std::vector<GitStatusEntry>* entries,
    QString* error, std::size_t quickThreshold, Outcome* outcome)
{
    entries->clear();
    Outcome ignored;
    if (!outcome)
        outcome = &ignored;
    *outcome = Outcome();
    const auto whole = [&](const QString& why) {
        outcome->quick = false;
        outcome->whyWhole = why;
        Part part;
        collect(repository, GIT_STATUS_SHOW_INDEX_AND_WORKDIR, nullptr, &part);
        if (!part.ok) {
            *error = part.error;
            return false;
        }
        *entries = std::move(part.entries);
        return true;
    };
    const QString indexPath = QFile::decodeName(git_repository_path(repository)) + QStringLiteral("index");
    // An entry takes at least 62 bytes: a smaller file cannot hold quickThreshold entries.
    struct stat indexInfo;
    if (::stat(QFile::encodeName(indexPath).constData(), &indexInfo) != 0)
        return whole(QStringLiteral("no index file"));
    if (std::uint64_t(indexInfo.st_size) / 62 < quickThreshold)
        return whole(QStringLiteral("a small index"));

    // The other thread reads the index file and starts on the working tree at once; this one
    // reads the index with libgit2 meanwhile (it verifies the file's checksum first), compares
    // HEAD with it when something is staged, then helps with what is left of the tree.
    GitIndexFile indexFile;
    std::optional<TreeComparison> comparison;
    std::promise<QString> planned; // empty when the comparison can go on
    Asked workerAsked;
    std::thread worker([&] {
        QString why;
        if (!indexFile.read(indexPath, &why)) {
            planned.set_value(why);
            return;
        }
        if (indexFile.entries().size() < quickThreshold) {
            planned.set_value(QStringLiteral("a small index"));
            return;
        }
        comparison.emplace(indexFile, QFile::encodeName(workTree));
        if (!comparison->isUsable()) {
            planned.set_value(QStringLiteral("the working tree cannot be opened"));
            return;
        }
        planned.set_value(QString());
        comparison->work(&workerAsked);
    });
    if (const QString why = planned.get_future().get(); !why.isEmpty()) {
        worker.join();
        return whole(why);
    }
    // Nothing staged and no entry that needs more than its stat data: libgit2 never needs the
    // whole index (HEAD's tree is the index's; the working tree is compared below). Otherwise
    // libgit2 reads it and compares HEAD with it while the other thread goes on.
    const bool partial = comparison->alwaysAsked().empty() && indexMatchesHead(repository, indexFile);
    Part headToIndex;
    if (!partial)
        collect(repository, GIT_STATUS_SHOW_INDEX_ONLY, nullptr, &headToIndex);
    Asked asked;
    asked.paths = comparison->alwaysAsked();
    comparison->work(&asked);
    worker.join();
    if (!headToIndex.ok) {
        *error = headToIndex.error;
        return false;
    }
    if (!comparison->isUsable())
        return whole(QStringLiteral("the working tree cannot be read"));
    for (auto [from, to] : {std::pair(&workerAsked.paths, &asked.paths), std::pair(&workerAsked.nested, &asked.nested),
             std::pair(&workerAsked.nestedDirectories, &asked.nestedDirectories)})
        to->insert(to->end(), std::make_move_iterator(from->begin()), std::make_move_iterator(from->end()));

    Part indexToWorkTree;
    const std::size_t maxPaths = std::max<std::size_t>(MinQuickPaths, indexFile.entries().size() / 8);
    if (asked.size() > maxPaths) {
        outcome->whyWhole = QStringLiteral("%1 paths may have changed").arg(asked.size());
        collect(repository, GIT_STATUS_SHOW_WORKDIR_ONLY, nullptr, &indexToWorkTree);
    } else {
        outcome->quick = true;
        outcome->partialIndex = partial;
        outcome->pathsAsked = asked.size();
        unsigned refresh = 0;
        GitIndexPtr smallIndex;
        if (partial) {
            smallIndex = partialIndex(indexFile, asked.paths, error);
            if (!smallIndex)
                return false;
            // The repository handle answers with it until the scan ends (the handle is the
            // caller's; it reads the whole index again when asked after that).
            git_repository_set_index(repository, smallIndex.get());
            refresh = GIT_STATUS_OPT_NO_REFRESH; // an index in memory has no file to read again
        }
        const auto restore = qScopeGuard([&] {
            if (partial)
                git_repository_set_index(repository, nullptr);
        });
        if (!asked.paths.empty())
            collect(repository, GIT_STATUS_SHOW_WORKDIR_ONLY, &asked.paths, &indexToWorkTree, refresh);
        Part nested;
        if (indexToWorkTree.ok && !asked.nested.empty()) {
            collect(repository, GIT_STATUS_SHOW_WORKDIR_ONLY, &asked.nested, &nested,
                GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | refresh);
            if (!nested.ok) {
                *error = nested.error;
                return false;
            }
            collapseUntrackedDirectories(std::move(asked.nestedDirectories), &nested);
            indexToWorkTree.entries.insert(indexToWorkTree.entries.end(),
                std::make_move_iterator(nested.entries.begin()), std::make_move_iterator(nested.entries.end()));
        }
    }
    if (!indexToWorkTree.ok) {
        *error = indexToWorkTree.error;
        return false;
    }
    // The index changed while it was read twice: the stat data compared may not be libgit2's.
    // (An index in memory was made from the file as read: nothing to check.)
    if (!partial && !sameIndex(repository, indexFile))
        return whole(QStringLiteral("the index changed while it was read"));

    // One entry per path, the index's and the working tree's flags together.
    std::map<std::string, GitStatusEntry> merged;
    for (Part* part : {&headToIndex, &indexToWorkTree}) {
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
