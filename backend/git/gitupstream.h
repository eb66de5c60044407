#pragma once

// GitUpstream: a local branch's upstream, read from branch.<name>.remote and branch.<name>.merge
// as git reads them, mapped through the standard fetch refspec (refs/heads/X of remote R is
// refs/remotes/R/X; remote "." is the local branch itself). Used instead of git_branch_upstream,
// which looks the remote up, and libgit2 1.5 leaks memory on every remote lookup (PCRE2 match
// data; see tests/lsan.supp): git_status and the repository view ask for the upstream on every
// read of a long-running server.

#include "git/gitptr.h"

namespace GitUpstream {

// Null when the branch has no upstream or its ref does not exist. `branch` is a local branch's
// reference (refs/heads/…).
GitReferencePtr of(git_repository* repository, git_reference* branch);

} // namespace GitUpstream
