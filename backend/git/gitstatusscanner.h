#pragma once

// GitStatusScanner: the changed paths of a working tree, as git_status_list_new reports them with
// untracked files and staged renames, sorted by path; a large tree is scanned on two threads.
// libgit2 compares the index with the working tree on one thread, stat()ing every file, where
// the git program spreads that over several (core.preloadIndex): so the working tree's top-level
// entries are split in two, each half compared on a repository handle of its own (libgit2 objects
// must not be shared between threads), while the calling thread also compares HEAD with the
// index for the whole tree (renames need all of it). Paths only the index knows (deleted from
// disk) go to the calling thread's half.

#include <git2.h>

#include <QString>

#include <string>
#include <vector>

struct GitStatusEntry
{
    std::string path; // the path now (the new path of a rename)
    std::string oldPath; // a staged rename's old path; empty otherwise
    unsigned flags = 0; // git_status_t
};

class GitStatusScanner
{
public:
    // Below this many index entries one thread is quicker than two.
    static constexpr std::size_t DefaultParallelThreshold = 4'000;

    // `repository` is open on the calling thread at `workTree` (canonical). False with `error`
    // when libgit2 fails.
    static bool scan(git_repository* repository, const QString& workTree, std::vector<GitStatusEntry>* entries,
        QString* error, std::size_t parallelThreshold = DefaultParallelThreshold);
};
