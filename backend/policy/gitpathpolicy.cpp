#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

namespace {

// A .git file holds one line; anything much longer is not one git wrote.
constexpr qint64 MaximumGitFileSize = 4096;

// A control character (NUL, newline, escape, DEL, C1) in a path is never a name anyone meant: NUL
// would cut the path short in the C APIs below Qt and libgit2, and a newline would forge lines in
// messages and logs.
bool hasControlCharacter(const QString& path)
{
    for (const QChar c : path) {
        if (c.category() == QChar::Other_Control)
            return true;
    }
    return false;
}

QString joined(const QString& directory, const QString& rest)
{
    if (rest.isEmpty())
        return directory;
    return directory.endsWith(QLatin1Char('/')) ? QString(directory + rest)
                                                : QString(directory + QLatin1Char('/') + rest);
}

// Whether `path` is `directory` or lies below it, component by component (both canonical).
bool isAtOrBelow(const QString& path, const QString& directory)
{
    if (path == directory)
        return true;
    if (directory == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path.size() > directory.size() && path.startsWith(directory)
        && path.at(directory.size()) == QLatin1Char('/');
}

// A path with its deepest existing ancestor canonicalized (symlinks resolved by the system, ".."
// taken physically) and the components that do not exist yet appended as given.
struct ResolvedPath
{
    enum class Problem { None, DotDotInMissingPart, DanglingLink, NotADirectory };

    QString path; // best estimate even when there is a problem, so callers can tell outside from inside
    bool exists = false;
    Problem problem = Problem::None;
    QString missingComponent; // the first component that does not exist (for DanglingLink, NotADirectory)
    QString existing; // the deepest existing ancestor, canonical
    QStringList missing; // the components below it that do not exist, as given
};

ResolvedPath resolveWithMissingPart(const QString& absolute)
{
    QStringList components;
    for (const QString& component : absolute.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        if (component != QLatin1String("."))
            components.append(component);
    }
    // The prefix is walked as written: the system resolves each link and ".." on the way, which a
    // lexical clean-up (QDir::cleanPath) would get wrong after a symlinked directory.
    QString existing = QStringLiteral("/");
    qsizetype present = 0;
    for (; present < components.size(); ++present) {
        const QString next = joined(existing, components.at(present));
        if (!QFileInfo::exists(next))
            break;
        existing = next;
    }
    ResolvedPath resolved;
    QString canonical = QFileInfo(existing).canonicalFilePath();
    if (canonical.isEmpty()) // removed between the two looks: the lexical form is the best guess
        canonical = QDir::cleanPath(existing);
    if (present == components.size()) {
        resolved.path = canonical;
        resolved.exists = true;
        return resolved;
    }
    const QStringList missing = components.mid(present);
    resolved.existing = canonical;
    resolved.missing = missing;
    resolved.missingComponent = missing.first();
    resolved.path = QDir::cleanPath(joined(canonical, missing.join(QLatin1Char('/'))));
    if (missing.contains(QLatin1String("..")))
        resolved.problem = ResolvedPath::Problem::DotDotInMissingPart;
    else if (QFileInfo(joined(existing, missing.first())).isSymLink())
        resolved.problem = ResolvedPath::Problem::DanglingLink;
    else if (!QFileInfo(canonical).isDir())
        resolved.problem = ResolvedPath::Problem::NotADirectory;
    return resolved;
}

QString quoted(const QString& path)
{
    return QLatin1Char('\'') + path + QLatin1Char('\'');
}

bool refuse(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

std::nullopt_t refused(QString* error, const QString& message)
{
    refuse(error, message);
    return std::nullopt;
}

// Why a path is unusable, or an empty string.
QString textProblem(const QString& path, const QString& what)
{
    if (path.isEmpty())
        return what + QStringLiteral(" is empty; give a path");
    if (hasControlCharacter(path))
        return what + QStringLiteral(" contains a control character (a newline, NUL, escape, ...); give a plain path");
    return {};
}

} // namespace

QStringList GitPathPolicy::rootVariables()
{
    return {
        QStringLiteral("ASSISTOS_FS_ROOT"), QStringLiteral("WORKSPACE_ROOT"), QStringLiteral("PLOINKY_WORKSPACE_ROOT")};
}

QStringList GitPathPolicy::rootsFromEnvironment()
{
    QStringList roots;
    for (const QString& variable : rootVariables()) {
        const QString value = qEnvironmentVariable(variable.toLatin1().constData());
        if (!value.isEmpty())
            roots.append(value);
    }
    return roots;
}

GitPathPolicy::GitPathPolicy(const QStringList& roots)
{
    for (const QString& root : roots) {
        if (root.isEmpty()) {
            m_problems.append(QStringLiteral("An empty git root was left out."));
            continue;
        }
        if (hasControlCharacter(root)) {
            m_problems.append(QStringLiteral("A git root containing a control character was left out."));
            continue;
        }
        const QFileInfo info(root);
        if (!info.exists()) {
            m_problems.append(
                QStringLiteral("The git root ") + quoted(root) + QStringLiteral(" does not exist; it was left out."));
            continue;
        }
        if (!info.isDir()) {
            m_problems.append(QStringLiteral("The git root ") + quoted(root)
                + QStringLiteral(" is not a directory; it was left out."));
            continue;
        }
        const QString canonical = info.canonicalFilePath();
        if (!canonical.isEmpty() && !m_roots.contains(canonical))
            m_roots.append(canonical);
    }
}

bool GitPathPolicy::contains(const QString& canonicalPath) const
{
    if (canonicalPath.isEmpty())
        return false;
    for (const QString& root : m_roots) {
        if (isAtOrBelow(canonicalPath, root))
            return true;
    }
    return false;
}

QString GitPathPolicy::whereLeads(const QString& absolutePath)
{
    // A link may lead to another that leads nowhere yet; the kernel gives up after 40 of them.
    constexpr int MaximumLinks = 40;
    QString path = absolutePath;
    for (int link = 0; link < MaximumLinks; ++link) {
        const ResolvedPath resolved = resolveWithMissingPart(path);
        if (resolved.problem != ResolvedPath::Problem::DanglingLink)
            return resolved.path;
        // Read as written (not cleaned up lexically): ".." after a linked directory is taken physically.
        const QByteArray linkPath = QFile::encodeName(joined(resolved.existing, resolved.missing.first()));
        QByteArray target(4096, Qt::Uninitialized);
        const ssize_t length = ::readlink(linkPath.constData(), target.data(), std::size_t(target.size()));
        if (length <= 0)
            return resolved.path;
        target.truncate(length);
        const QString next = QFile::decodeName(target);
        const QString rest = resolved.missing.mid(1).join(QLatin1Char('/'));
        path = joined(QDir::isAbsolutePath(next) ? next : joined(resolved.existing, next), rest);
    }
    return resolveWithMissingPart(path).path;
}

QString GitPathPolicy::noRootsMessage()
{
    return QStringLiteral("Git tools are switched off: no directory is allowed for them. Configure at least one root: "
                          "in the YAML file given with --config, `git: {roots: [/path/to/workspace]}`, or set one of "
                          "the environment variables ")
        + rootVariables().join(QStringLiteral(", "))
        + QStringLiteral(" to an existing directory; then restart switchboard.");
}

QString GitPathPolicy::outsideMessage(const QString& path, const QString& resolved, const QString& what) const
{
    QString message = what + QLatin1Char(' ') + quoted(path);
    if (resolved != path)
        message += QStringLiteral(" resolves to ") + quoted(resolved) + QStringLiteral(", which");
    message += QStringLiteral(" is outside the allowed roots (") + m_roots.join(QStringLiteral(", "))
        + QStringLiteral("). Give a path inside one of them");
    if (QDir::isRelativePath(path))
        message
            += QStringLiteral(" (a relative path is taken from the first root, ") + m_roots.first() + QLatin1Char(')');
    return message + QLatin1Char('.');
}

QString GitPathPolicy::absoluteFor(const QString& path) const
{
    return QDir::isAbsolutePath(path) ? path : joined(m_roots.first(), path);
}

std::optional<QString> GitPathPolicy::resolveRepository(const QString& path, const QString& what, QString* error) const
{
    if (const QString problem = textProblem(path, what); !problem.isEmpty())
        return refused(error, problem + QStringLiteral(" to a repository inside the allowed roots."));
    if (!hasRoots())
        return refused(error, noRootsMessage());
    // Outside before missing: whether something exists outside the roots is none of the caller's business.
    const ResolvedPath resolved = resolveWithMissingPart(absoluteFor(path));
    if (!contains(resolved.path))
        return refused(error, outsideMessage(path, resolved.path, what));
    if (!resolved.exists) {
        return refused(error,
            what + QLatin1Char(' ') + quoted(path) + QStringLiteral(" does not exist. Give an existing repository")
                + QStringLiteral(" inside the allowed roots (") + m_roots.join(QStringLiteral(", "))
                + QStringLiteral("), or clone one there first."));
    }
    if (!QFileInfo(resolved.path).isDir()) {
        return refused(error,
            what + QLatin1Char(' ') + quoted(path)
                + QStringLiteral(" is a file, not a directory; give the repository's top directory."));
    }
    if (!checkGitLinks(resolved.path, path, what, error))
        return std::nullopt;
    return resolved.path;
}

// A repository's metadata may live elsewhere: a .git file names its git directory (gitdir:), a
// .git link points at one, and a linked worktree's git directory names the main one (commondir).
// Each must stay inside the roots, or the tools would read and write a repository outside them.
bool GitPathPolicy::checkGitLinks(
    const QString& repository, const QString& path, const QString& what, QString* error) const
{
    const QString prefix = what + QLatin1Char(' ') + quoted(path);
    const QString dotGitPath = joined(repository, QStringLiteral(".git"));
    const QFileInfo dotGit(dotGitPath);
    QString gitDirectory = repository; // a bare repository is its own git directory
    if (dotGit.isSymLink() || dotGit.exists()) {
        const QString target = dotGit.canonicalFilePath();
        if (target.isEmpty())
            return refuse(
                error, prefix + QStringLiteral(" has a .git link that leads nowhere; it is not a usable repository."));
        if (!contains(target)) {
            return refuse(error,
                prefix + QStringLiteral(" has a .git link leading to ") + quoted(target)
                    + QStringLiteral(", outside the allowed roots (") + m_roots.join(QStringLiteral(", "))
                    + QStringLiteral("); such a repository is refused."));
        }
        gitDirectory = target;
        if (dotGit.isFile()) {
            // libgit2 reads it so: "gitdir:", then whitespace skipped, trailing whitespace trimmed, and a
            // relative path is taken from the directory holding the .git file.
            QFile file(dotGitPath);
            if (dotGit.size() > MaximumGitFileSize || !file.open(QIODevice::ReadOnly)) {
                return refuse(error, prefix + QStringLiteral(" has a .git file that cannot be read as a gitdir link."));
            }
            const QString content = QString::fromUtf8(file.read(MaximumGitFileSize)).trimmed();
            const QLatin1String marker("gitdir:");
            if (!content.startsWith(marker)) {
                return refuse(error,
                    prefix
                        + QStringLiteral(" has a .git file that is not a gitdir link; it is not a usable repository."));
            }
            const QString gitdir = content.mid(marker.size()).trimmed();
            if (gitdir.isEmpty() || hasControlCharacter(gitdir))
                return refuse(error, prefix + QStringLiteral(" has a .git file with an unusable gitdir line."));
            const ResolvedPath linked
                = resolveWithMissingPart(QDir::isAbsolutePath(gitdir) ? gitdir : joined(repository, gitdir));
            if (!contains(linked.path)) {
                return refuse(error,
                    prefix + QStringLiteral(" has a .git file whose gitdir ") + quoted(gitdir)
                        + (linked.path != gitdir ? QStringLiteral(" (") + linked.path + QLatin1Char(')') : QString())
                        + QStringLiteral(" lies outside the allowed roots (") + m_roots.join(QStringLiteral(", "))
                        + QStringLiteral("); such a repository is refused."));
            }
            gitDirectory = linked.path;
        }
    }
    // A linked worktree's git directory names the repository it belongs to.
    QFile commonDirFile(joined(gitDirectory, QStringLiteral("commondir")));
    if (QFileInfo(commonDirFile.fileName()).isFile() && commonDirFile.open(QIODevice::ReadOnly)) {
        const QString commonDir = QString::fromUtf8(commonDirFile.read(MaximumGitFileSize)).trimmed();
        if (!commonDir.isEmpty()) {
            const ResolvedPath common
                = resolveWithMissingPart(QDir::isAbsolutePath(commonDir) ? commonDir : joined(gitDirectory, commonDir));
            if (!contains(common.path)) {
                return refuse(error,
                    prefix + QStringLiteral(" is a worktree of the repository at ") + quoted(common.path)
                        + QStringLiteral(", outside the allowed roots (") + m_roots.join(QStringLiteral(", "))
                        + QStringLiteral("); such a repository is refused."));
            }
        }
    }
    return true;
}

std::optional<QString> GitPathPolicy::resolveDestination(const QString& path, const QString& what, QString* error) const
{
    if (const QString problem = textProblem(path, what); !problem.isEmpty())
        return refused(error, problem + QStringLiteral(" for the new repository inside the allowed roots."));
    if (!hasRoots())
        return refused(error, noRootsMessage());
    const ResolvedPath resolved = resolveWithMissingPart(absoluteFor(path));
    if (!contains(resolved.path))
        return refused(error, outsideMessage(path, resolved.path, what));
    const QString prefix = what + QLatin1Char(' ') + quoted(path);
    switch (resolved.problem) {
    case ResolvedPath::Problem::None:
        break;
    case ResolvedPath::Problem::DotDotInMissingPart:
        return refused(error,
            prefix
                + QStringLiteral(
                    " has '..' after a directory that does not exist; give the destination without '..'."));
    case ResolvedPath::Problem::DanglingLink:
        return refused(error,
            prefix + QStringLiteral(": ") + quoted(resolved.missingComponent)
                + QStringLiteral(" is a symbolic link that leads nowhere; give another destination."));
    case ResolvedPath::Problem::NotADirectory:
        return refused(
            error, prefix + QStringLiteral(" lies below a file, not a directory; give another destination."));
    }
    if (m_roots.contains(resolved.path)) {
        return refused(error,
            prefix + QStringLiteral(" is an allowed root itself; clone into a new directory below it, such as ")
                + quoted(joined(resolved.path, QStringLiteral("<name>"))) + QLatin1Char('.'));
    }
    if (resolved.exists && !QFileInfo(resolved.path).isDir()) {
        return refused(error, prefix + QStringLiteral(" is an existing file; give a new or empty directory."));
    }
    return resolved.path;
}

std::optional<QString> GitPathPolicy::resolveInsideWorkTree(
    const QString& workTree, const QString& path, QString* error)
{
    const QString what = QStringLiteral("path");
    if (const QString problem = textProblem(path, what); !problem.isEmpty()) {
        return refused(
            error, problem + QStringLiteral(" inside the repository's working tree (relative to it, or absolute)."));
    }
    // A bare repository has no working tree: with an empty one, every absolute path would lie below it.
    if (workTree.isEmpty() || QDir::isRelativePath(workTree))
        return refused(error, what + QStringLiteral(" cannot be used: the repository has no working tree."));
    QString tree = QFileInfo(workTree).canonicalFilePath();
    if (tree.isEmpty())
        tree = QDir::cleanPath(workTree);
    const QString prefix = what + QLatin1Char(' ') + quoted(path);
    const QString leaves = prefix + QStringLiteral(" leaves the repository's working tree ") + quoted(tree)
        + QStringLiteral("; give a path inside it (relative to it, or absolute).");

    // Git takes ".." in a path lexically (sub/../x is x), so it is cleaned up so before anything
    // on disk is looked at.
    const QString cleaned = QDir::cleanPath(QDir::isAbsolutePath(path) ? path : joined(tree, path));
    QString relative;
    if (cleaned == tree) {
        return QStringLiteral(".");
    } else if (isAtOrBelow(cleaned, tree)) {
        relative = cleaned.mid(tree == QLatin1String("/") ? 1 : tree.size() + 1);
    } else if (QDir::isAbsolutePath(path)) {
        // An absolute path may name the tree through a link to it: where its directory leads decides.
        if (QFileInfo(cleaned).canonicalFilePath() == tree)
            return QStringLiteral(".");
        const QFileInfo info(cleaned);
        const ResolvedPath directory = resolveWithMissingPart(info.path());
        if (info.fileName().isEmpty() || directory.problem != ResolvedPath::Problem::None
            || !isAtOrBelow(directory.path, tree))
            return refused(error, leaves);
        relative = directory.path == tree ? info.fileName()
                                          : directory.path.mid(tree.size() + 1) + QLatin1Char('/') + info.fileName();
    } else {
        return refused(error, leaves);
    }

    const QStringList components = relative.split(QLatin1Char('/'));
    for (const QString& component : components) {
        // Case-blind: on a case-insensitive file system .GIT is the same directory.
        if (component.compare(QLatin1String(".git"), Qt::CaseInsensitive) == 0) {
            return refused(error,
                prefix
                    + QStringLiteral(
                        " is inside a .git directory; git tools work on the working tree, never on git's own files."));
        }
    }
    // The last component is not followed (git stores a link as a link, and a deleted file has no
    // target); every directory above it is, and must stay inside the tree.
    if (components.size() > 1) {
        const ResolvedPath directory
            = resolveWithMissingPart(joined(tree, components.mid(0, components.size() - 1).join(QLatin1Char('/'))));
        if (directory.problem == ResolvedPath::Problem::DanglingLink) {
            return refused(error,
                prefix + QStringLiteral(" passes through ") + quoted(directory.missingComponent)
                    + QStringLiteral(", a symbolic link that leads nowhere."));
        }
        if (!isAtOrBelow(directory.path, tree)) {
            return refused(error,
                prefix + QStringLiteral(" passes through a symbolic link leading to ") + quoted(directory.path)
                    + QStringLiteral(", outside the repository's working tree ") + quoted(tree)
                    + QStringLiteral("; give a path inside it."));
        }
        if (isAtOrBelow(directory.path, joined(tree, QStringLiteral(".git")))) {
            return refused(error,
                prefix + QStringLiteral(" leads into the .git directory through a symbolic link; git tools work")
                    + QStringLiteral(" on the working tree, never on git's own files."));
        }
    }
    return relative;
}
