#pragma once

// GitLibrary: libgit2's process-wide set-up, done once before any git tool runs, and its errors in
// words a model can act on.
//
// Set-up keeps libgit2's repository ownership check on (a repository owned by another user is
// refused, as git does since 2.35.2) and verifies objects as they are created. libgit2 itself
// never runs hooks or external filter drivers (`filter.<name>.clean`); the git tools rely on that
// and tests/tst_gittools proves it with a repository whose hooks and filter would leave a marker.

#include <QString>

class GitLibrary
{
public:
    // Initialises libgit2 once per process (thread-safe); later calls do nothing.
    static void ensureInitialized();

    // The message of the last libgit2 error on this thread ("unknown error" when there is none),
    // with credentials in URLs removed.
    static QString lastErrorMessage();
    // The error class of the last libgit2 error on this thread (GIT_ERROR_*), or 0.
    static int lastErrorClass();
};
