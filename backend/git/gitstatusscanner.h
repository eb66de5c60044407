#pragma once

// GitStatusScanner: the changed paths of a working tree, as git_status_list_new reports them with
// untracked files and staged renames, sorted by path.
//
// libgit2 alone is slower than the git program on a large tree: it verifies the index file's
// SHA-1 before anything else, then stat()s every file by its full path on one thread. So for a
// large tree another thread starts at once on the working tree, comparing the index file's stat
// data (GitIndexFile, read without the checksum) with lstat() relative to each directory, while
// the calling thread reads the index with libgit2 and compares HEAD with it, then helps. libgit2
// then looks only at the paths that may have changed (and at untracked names: it knows the
// ignore rules); its answer for those is the answer. When the index changed between the two
// reads, or too many paths may have changed for this to pay, libgit2 scans the whole tree.

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
    // How a scan went (for tests and diagnostics).
    struct Outcome
    {
        bool quick = false; // compared with the index file first
        bool partialIndex = false; // nothing staged: libgit2 saw only the entries it was asked about
        std::size_t pathsAsked = 0; // then libgit2 looked at these paths only
        QString whyWhole; // why libgit2 scanned the whole tree instead, when it did
    };

    // Below this many index entries libgit2 alone is as quick.
    static constexpr std::size_t DefaultQuickThreshold = 4'000;
    // libgit2 scans the whole tree when more paths than this (or an eighth of the index) may
    // have changed.
    static constexpr std::size_t MinQuickPaths = 2'000;

    // `repository` is open on the calling thread at `workTree` (canonical). False with `error`
    // when libgit2 fails.
    static bool scan(git_repository* repository, const QString& workTree, std::vector<GitStatusEntry>* entries,
        QString* error, std::size_t quickThreshold = DefaultQuickThreshold, Outcome* outcome = nullptr);
};
