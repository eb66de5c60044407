#pragma once

// ConfinedLooseBackend: libgit2's backend for loose objects (objects/ab/cdef...) with one check
// before every object it reads, freshens or writes: the object's file, and the directory it is in,
// must lie inside the allowed roots. A repository has tens of thousands of loose objects at times,
// too many to look at when it is opened, and a link in place of one would let the git tools read
// an object of a repository outside the roots; so each is looked at when it is used (an lstat, its
// directory once). libgit2's own loose backend does the work; this one only refuses.

#include <QString>

#include <git2/sys/odb_backend.h>

class GitPathPolicy;

class ConfinedLooseBackend
{
public:
    // A backend for the loose objects in `objectsDirectory` (canonical), refusing those that lead
    // outside `policy`'s roots; `shownAs` names the directory in refusals (".git/objects").
    // Returns libgit2's error code (negative) when its loose backend cannot be made.
    static int create(git_odb_backend** out, const GitPathPolicy& policy, const QString& objectsDirectory,
        const QString& shownAs, bool fsync);

    // What the last refusal on this thread said, until cleared: libgit2 reports a failed read in
    // words of its own ("the reference cannot be peeled"), and GitLibrary adds this to them.
    static QString lastRefusal();
    static void clearLastRefusal();
};
