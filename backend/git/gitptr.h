#pragma once

// Owning pointers for libgit2's objects: each frees its object with the matching git_*_free, so an
// early return on an error never leaks a repository, a reference or a diff.

#include <git2.h>

#include <memory>

template<typename T, void (*Free)(T*)>
struct GitDeleter
{
    void operator()(T* object) const
    {
        if (object)
            Free(object);
    }
};

template<typename T, void (*Free)(T*)>
using GitOwned = std::unique_ptr<T, GitDeleter<T, Free>>;

using GitRepositoryPtr = GitOwned<git_repository, git_repository_free>;
using GitReferencePtr = GitOwned<git_reference, git_reference_free>;
using GitObjectPtr = GitOwned<git_object, git_object_free>;
using GitCommitPtr = GitOwned<git_commit, git_commit_free>;
using GitTreePtr = GitOwned<git_tree, git_tree_free>;
using GitIndexPtr = GitOwned<git_index, git_index_free>;
using GitDiffPtr = GitOwned<git_diff, git_diff_free>;
using GitPatchPtr = GitOwned<git_patch, git_patch_free>;
using GitStatusListPtr = GitOwned<git_status_list, git_status_list_free>;
using GitRevwalkPtr = GitOwned<git_revwalk, git_revwalk_free>;
using GitRemotePtr = GitOwned<git_remote, git_remote_free>;
using GitSignaturePtr = GitOwned<git_signature, git_signature_free>;
using GitBranchIteratorPtr = GitOwned<git_branch_iterator, git_branch_iterator_free>;
using GitConfigPtr = GitOwned<git_config, git_config_free>;
using GitAnnotatedCommitPtr = GitOwned<git_annotated_commit, git_annotated_commit_free>;
using GitDiffStatsPtr = GitOwned<git_diff_stats, git_diff_stats_free>;

// A git_buf that is disposed of when it goes out of scope.
struct GitBuffer
{
    git_buf buf = GIT_BUF_INIT;
    GitBuffer() = default;
    GitBuffer(const GitBuffer&) = delete;
    GitBuffer& operator=(const GitBuffer&) = delete;
    ~GitBuffer() { git_buf_dispose(&buf); }
};
