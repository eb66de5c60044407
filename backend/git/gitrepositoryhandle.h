#pragma once

// GitRepositoryHandle: an open repository that a git tool may work on. Opening resolves the path
// through the path policy, opens exactly that directory (no search upwards, which could leave the
// roots), and checks that libgit2's own idea of the repository (its git directory, its common
// directory for worktrees, its working tree) lies inside the roots too, so a .git file or a
// `commondir` pointing elsewhere is refused even when the path itself is fine; and that nothing
// libgit2 opens for it leads outside either (GitDataConfinement: links in its git data,
// alternates, the paths its config names, each loose object as it is read). libgit2's ownership
// check applies: a repository owned by another user is refused with a message saying so.

#include "git/gitdataconfinement.h"
#include "git/gitptr.h"

#include <QString>
#include <QStringList>

#include <optional>

class GitPathPolicy;

class GitRepositoryHandle
{
public:
    // `what` names the argument in messages ("repo_path"). A repository that libgit2 will open
    // again by itself (a local remote) has its loose objects checked now.
    static std::optional<GitRepositoryHandle> open(const GitPathPolicy& policy, const QString& path,
        const QString& what, QString* error,
        GitDataConfinement::LooseObjects looseObjects = GitDataConfinement::LooseObjects::CheckedWhenRead);
    // Opens a repository just created at `canonicalPath` (a clone's destination).
    static std::optional<GitRepositoryHandle> openCreated(const QString& canonicalPath, QString* error);

    git_repository* get() const { return m_repository.get(); }
    // The canonical path the tool named: the working tree, or a bare repository's directory.
    const QString& path() const { return m_path; }
    // The working tree, canonical, without a trailing slash; empty for a bare repository.
    const QString& workTree() const { return m_workTree; }
    bool isBare() const { return m_workTree.isEmpty(); }
    // The object directories its object database reads (canonical): its own, then its alternates.
    const QStringList& objectDirectories() const { return m_objectDirectories; }

private:
    GitRepositoryPtr m_repository;
    QString m_path;
    QString m_workTree;
    QStringList m_objectDirectories;
};
