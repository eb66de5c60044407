#include "git/gitrepositoryhandle.h"

#include "git/confinedloosebackend.h"
#include "git/gitlibrary.h"
#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QFileInfo>

#include <unistd.h>

namespace {

QString canonical(const char* path)
{
    if (!path)
        return {};
    const QString text = QString::fromUtf8(path);
    const QString resolved = QFileInfo(text).canonicalFilePath();
    return resolved.isEmpty() ? QDir::cleanPath(text) : resolved;
}

QString openFailure(int code, const QString& path, const QString& what)
{
    // libgit2 says GIT_EOWNER; Debian's 1.5.1 instead fails looking up safe.directory when none is
    // configured and reports that ("config value 'safe.directory' was not found", GIT_ENOTFOUND),
    // so the owner is looked at here too.
    const QFileInfo gitDirectory(path + QStringLiteral("/.git"));
    const QFileInfo top(path);
    const bool foreign = (gitDirectory.exists() && gitDirectory.ownerId() != ::geteuid())
        || (top.exists() && top.ownerId() != ::geteuid());
    if (code == GIT_EOWNER || (foreign && GitLibrary::lastErrorMessage().contains(QLatin1String("safe.directory"))))
        return QStringLiteral("%1 %2 is owned by another user, so git refuses to work in it (as git does since "
                              "2.35.2). Ask the operator to fix its ownership.")
            .arg(what, path);
    return QStringLiteral("%1 %2 is not a git repository (%3). Give the top directory of a repository, or clone one "
                          "first with git_clone_repository.")
        .arg(what, path, GitLibrary::lastErrorMessage());
}

} // namespace

std::optional<GitRepositoryHandle> GitRepositoryHandle::open(const GitPathPolicy& policy, const QString& path,
    const QString& what, QString* error, GitDataConfinement::LooseObjects looseObjects)
{
    GitLibrary::ensureInitialized();
    ConfinedLooseBackend::clearLastRefusal(); // a new call on this thread
    const std::optional<QString> resolved = policy.resolveRepository(path, what, error);
    if (!resolved)
        return std::nullopt;
    git_repository* raw = nullptr;
    const QByteArray native = QFile::encodeName(*resolved);
    if (const int code = git_repository_open_ext(&raw, native.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
        code != 0) {
        *error = openFailure(code, *resolved, what);
        return std::nullopt;
    }
    GitRepositoryHandle handle;
    handle.m_repository.reset(raw);
    handle.m_path = *resolved;
    handle.m_workTree = git_repository_is_bare(raw) ? QString() : canonical(git_repository_workdir(raw));
    const QString gitDirectory = canonical(git_repository_path(raw));
    const QString commonDirectory = canonical(git_repository_commondir(raw));
    for (const QString& location : {gitDirectory, commonDirectory, handle.m_workTree}) {
        if (!location.isEmpty() && !policy.contains(location)) {
            *error = QStringLiteral("%1 %2 keeps its git data at %3, outside the allowed roots (%4), so it is "
                                    "refused.")
                         .arg(what, *resolved, location, policy.roots().join(QLatin1String(", ")));
            return std::nullopt;
        }
    }
    if (!handle.m_workTree.isEmpty() && handle.m_workTree != *resolved) {
        *error = QStringLiteral("%1 %2 is not the top of a working tree (that is %3): give the repository's top "
                                "directory.")
                     .arg(what, *resolved, handle.m_workTree);
        return std::nullopt;
    }
    if (!GitDataConfinement::confine(policy, raw, *resolved, what, looseObjects, error, &handle.m_objectDirectories))
        return std::nullopt;
    return handle;
}

std::optional<GitRepositoryHandle> GitRepositoryHandle::openCreated(const QString& canonicalPath, QString* error)
{
    GitLibrary::ensureInitialized();
    git_repository* raw = nullptr;
    const QByteArray native = QFile::encodeName(canonicalPath);
    if (const int code = git_repository_open_ext(&raw, native.constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
        code != 0) {
        *error = openFailure(code, canonicalPath, QStringLiteral("local_path"));
        return std::nullopt;
    }
    GitRepositoryHandle handle;
    handle.m_repository.reset(raw);
    handle.m_path = canonicalPath;
    handle.m_workTree = git_repository_is_bare(raw) ? QString() : canonical(git_repository_workdir(raw));
    return handle;
}
