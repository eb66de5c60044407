#pragma once

// GitPathPolicy: where git tools may work. Every repository path and clone destination must lie
// inside one of the allowed roots (from the configuration's git.roots and the environment variables
// ASSISTOS_FS_ROOT, WORKSPACE_ROOT and PLOINKY_WORKSPACE_ROOT). Paths are compared canonically
// (symlinks resolved) and component by component, so /srv/root-evil is not inside /srv/root and a
// link leading out of a root is refused; relative paths are resolved against the first root. A
// repository whose .git is a file pointing (gitdir:) outside the roots is refused too.
//
// What counts is where a path leads, not how it is spelled: a path outside the roots that leads
// (through a link) into one is accepted, as its canonical form is inside.
//
// Immutable after construction and safe to share between threads.

#include <QString>
#include <QStringList>

#include <optional>

class GitPathPolicy
{
public:
    // The environment variables whose values are roots, in this order after the configured ones.
    static QStringList rootVariables();
    // The roots the environment names (non-empty values of rootVariables(), in that order).
    static QStringList rootsFromEnvironment();

    // `roots` as configured (absolute, or relative to the current directory); duplicates are dropped.
    // A root that does not exist or is not a directory is left out and described in problems().
    explicit GitPathPolicy(const QStringList& roots = {});

    bool hasRoots() const { return !m_roots.isEmpty(); }
    // Canonical, in the order given.
    const QStringList& roots() const { return m_roots; }
    const QStringList& problems() const { return m_problems; }

    // Whether `canonicalPath` (already canonical) is a root or lies below one, component by component.
    bool contains(const QString& canonicalPath) const;

    // An existing repository's top directory (its working tree, or a bare repository's directory):
    // the canonical path inside a root. Refuses, with a message a model can act on, a path outside
    // every root (after resolving symlinks), one that does not exist, and a .git file whose gitdir
    // lies outside the roots (or a linked worktree whose commondir does). It does not open the
    // repository; open it without searching upwards (GIT_REPOSITORY_OPEN_NO_SEARCH), or libgit2 may
    // find an enclosing repository above the root. `what` names the argument in messages ("repo_path").
    std::optional<QString> resolveRepository(const QString& path, const QString& what, QString* error) const;

    // A clone destination, which may not exist yet: the absolute path with its deepest existing
    // ancestor canonicalized, inside a root, and never a root itself. Refuses ".." among the
    // components that do not exist yet, a dangling symlink on the way, and an existing file. Does
    // not create anything and does not check whether the destination is empty.
    std::optional<QString> resolveDestination(const QString& path, const QString& what, QString* error) const;

    // A path a tool names inside a repository's working tree (git_add, git_commit, git_diff):
    // relative to `workTree` (canonical) or absolute inside it. Returns it relative to the working
    // tree, '/'-separated, without "./"; "." and the working tree itself give ".". Refuses ".."
    // that leaves the tree, a path through a symlinked directory leading outside it, the .git
    // directory and anything inside it. The last component itself is not followed (git stores a
    // symlink as a link) and need not exist (a deleted file can be staged). ".." is taken
    // lexically, as git does. Messages name the argument "path".
    static std::optional<QString> resolveInsideWorkTree(const QString& workTree, const QString& path, QString* error);

    // Where `absolutePath` leads: its deepest existing ancestor with symlinks resolved, and the rest
    // as written. A link on the way that leads nowhere yet is followed to where a file created
    // through it would be (a chain of them too, up to 40). Compare the result with contains().
    static QString whereLeads(const QString& absolutePath);

    // The message for tools called while no root is configured: how to configure one.
    static QString noRootsMessage();

private:
    QString absoluteFor(const QString& path) const;
    QString outsideMessage(const QString& path, const QString& resolved, const QString& what) const;
    bool checkGitLinks(const QString& repository, const QString& path, const QString& what, QString* error) const;

    QStringList m_roots;
    QStringList m_problems;
};
