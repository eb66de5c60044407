#pragma once

// RepositoryInspector: reads what the repository view shows of one repository with libgit2: its
// RepositoryState (branch, upstream, ahead/behind, the changed files and the newest commits, each
// bounded) and one file's diff. Blocking; called off the backend thread. The repository must have
// been checked against the path policy already (its path is canonical and inside a root).

#include "backendstates.h"

class GitPathPolicy;

class RepositoryInspector
{
public:
    static RepositoryState read(const GitPathPolicy& policy, const QString& path);
    // `file` is relative to the working tree; it is resolved inside it (GitPathPolicy).
    static FileDiff fileDiff(const GitPathPolicy& policy, const QString& path, const QString& file);
};
