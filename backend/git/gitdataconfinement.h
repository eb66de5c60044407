#pragma once

// GitDataConfinement: the git tools' confinement extended from a repository's path to everything
// libgit2 opens for it. A repository inside the roots can lead out through its own git data: a
// link in place of .git/objects, .git/refs, a ref, the index, the config or a reflog, an
// objects/info/alternates entry, or a path its config names (include.path, includeIf.*.path,
// core.excludesFile, core.attributesFile). Reading through them would show another repository's
// data; writing (a commit's objects and refs, a reflog appended through a link) would change it.
//
// Checked when a repository is opened: every link in its git directory and common directory
// (recursively, loose objects aside) and in every object directory it borrows from through
// alternates (as git reads them: relative to the objects directory, five deep), and the paths its
// own config names. Loose objects are too many to look at each time: the repository is given an
// object database of its own, with a loose backend that checks each object as it is read
// (ConfinedLooseBackend), and alternates this check accepted (libgit2 does not load any itself).
// Where git does not look (hooks, which libgit2 never runs) nothing is checked.

#include <QString>
#include <QStringList>

#include <git2.h>

class GitPathPolicy;

class GitDataConfinement
{
public:
    // Loose objects: looked at as they are read (an open repository's own object database), or
    // all now, for a repository libgit2 will open again by itself (a local remote).
    enum class LooseObjects { CheckedWhenRead, CheckedNow };

    // Refuses, with `error` naming what leads out and where, a repository whose git data leads
    // outside `policy`'s roots; otherwise gives it its confined object database. `repository` was
    // opened at `repositoryPath` (canonical) and nothing has been read from it yet; messages begin
    // with `what` and name entries relative to the repository's path. `objectDirectories`, when
    // given, gets the object directories its database reads: its own, then its alternates.
    static bool confine(const GitPathPolicy& policy, git_repository* repository, const QString& repositoryPath,
        const QString& what, LooseObjects looseObjects, QString* error, QStringList* objectDirectories = nullptr);
};
