#include "git/gitdataconfinement.h"

#include "git/confinedloosebackend.h"
#include "git/gitptr.h"
#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <git2/sys/repository.h>

#include <map>
#include <vector>

namespace {

// A git directory holds a few hundred entries besides its loose objects (hooks, refs, reflogs,
// packs); far more (unpacked tags, say) is still looked at, up to this many.
constexpr int MaximumEntries = 200'000;
// As git and libgit2 read alternates: an alternate's own alternates, five deep.
constexpr int MaximumAlternateDepth = 5;
constexpr qint64 MaximumAlternatesBytes = 64 * 1024;
// libgit2's priorities for a repository's backends (GIT_OPT_SET_ODB_*_PRIORITY, never set here):
// packs are asked before loose objects.
constexpr int LoosePriority = 1;
constexpr int PackedPriority = 2;

bool isLooseDirectoryName(const QString& name)
{
    const auto hex = [](QChar c) {
        return (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
    };
    return name.size() == 2 && hex(name.at(0)) && hex(name.at(1));
}

QString quoted(const QString& text)
{
    return QLatin1Char('\'') + text + QLatin1Char('\'');
}

QString itemPath(git_repository* repository, git_repository_item_t item)
{
    GitBuffer buffer;
    if (git_repository_item_path(&buffer.buf, repository, item) != 0 || !buffer.buf.ptr)
        return {};
    QString path = QFile::decodeName(buffer.buf.ptr);
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    return path;
}

class Confinement
{
public:
    Confinement(const GitPathPolicy& policy, const QString& repositoryPath, const QString& what,
        GitDataConfinement::LooseObjects looseObjects)
        : m_policy(policy)
        , m_repositoryPath(repositoryPath)
        , m_what(what)
        , m_looseObjects(looseObjects)
    {}

    QString error;

    // Where a path is named in messages: relative to the repository when inside it.
    QString shown(const QString& path) const
    {
        if (path.startsWith(m_repositoryPath + QLatin1Char('/')))
            return path.mid(m_repositoryPath.size() + 1);
        return path;
    }

    // Every entry below `directory` (canonical), links followed to where they lead, each inside the
    // roots; loose objects only when they are checked now.
    bool walk(const QString& directory, bool isObjectsDirectory)
    {
        struct Pending
        {
            QString path;
            bool objects;
        };
        if (m_walked.contains(directory))
            return true;
        m_walked.insert(directory);
        std::vector<Pending> pending{{directory, isObjectsDirectory}};
        while (!pending.empty()) {
            const Pending current = pending.back();
            pending.pop_back();
            QDirIterator it(current.path, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
            while (it.hasNext()) {
                const QFileInfo entry = it.nextFileInfo();
                if (++m_entries > MaximumEntries)
                    return fail(
                        QStringLiteral(": its git data holds more than %1 entries (besides loose objects), too many "
                                       "to check; pack its refs (git pack-refs --all) and prune its reflogs.")
                            .arg(MaximumEntries));
                QString next;
                if (entry.isSymLink()) {
                    const QString target = GitPathPolicy::whereLeads(entry.absoluteFilePath());
                    if (!m_policy.contains(target))
                        return leadsOut(
                            shown(entry.absoluteFilePath()) + QStringLiteral(" leads to ") + quoted(target));
                    if (QFileInfo(target).isDir())
                        next = target;
                } else if (entry.isDir()) {
                    next = entry.absoluteFilePath();
                }
                if (next.isEmpty() || m_walked.contains(next))
                    continue;
                if (current.objects && isLooseDirectoryName(entry.fileName())
                    && m_looseObjects == GitDataConfinement::LooseObjects::CheckedWhenRead)
                    continue; // ConfinedLooseBackend looks at each object as it is read
                m_walked.insert(next);
                pending.push_back({next, entry.fileName() == QLatin1String("objects")});
            }
        }
        return true;
    }

    // The object directories `objectsDirectory` borrows from, as git reads objects/info/alternates:
    // one path a line, '#' comments, a relative path taken from the objects directory (and only
    // in the repository's own file), five deep. Each must lie inside the roots; each is walked.
    bool alternates(const QString& objectsDirectory, int depth, QStringList* found)
    {
        if (depth > MaximumAlternateDepth)
            return true;
        const QString file = objectsDirectory + QStringLiteral("/info/alternates");
        const QFileInfo info(file);
        if (!info.isFile())
            return true;
        if (info.size() > MaximumAlternatesBytes)
            return fail(QStringLiteral(": %1 is larger than %2 KiB; it is not a list of alternates git wrote.")
                            .arg(shown(file))
                            .arg(MaximumAlternatesBytes / 1024));
        QFile content(file);
        if (!content.open(QIODevice::ReadOnly))
            return fail(QStringLiteral(": %1 cannot be read (%2).").arg(shown(file), content.errorString()));
        const QByteArray bytes = content.read(MaximumAlternatesBytes);
        for (QByteArray line : bytes.split('\n')) {
            if (line.endsWith('\r'))
                line.chop(1);
            if (line.isEmpty() || line.startsWith('#'))
                continue;
            const QString entry = QFile::decodeName(line);
            QString path = entry;
            if (QDir::isRelativePath(entry)) {
                if (depth > 0)
                    continue; // git ignores it, and so does the object database made here
                path = objectsDirectory + QLatin1Char('/') + entry;
            }
            const QString target = GitPathPolicy::whereLeads(path);
            if (!m_policy.contains(target))
                return leadsOut(shown(file) + QStringLiteral(" names ") + quoted(entry)
                    + QStringLiteral(", which leads to ") + quoted(target));
            if (!QFileInfo(target).isDir() || target == objectsDirectory || found->contains(target))
                continue; // a missing alternate is skipped, as libgit2 skips it
            found->append(target);
            if (!walk(target, true) || !alternates(target, depth + 1, found))
                return false;
        }
        return true;
    }

    // The paths the repository's own config names (the operator's global and system files are
    // trusted): files it includes, ignore and attribute files. Includes are resolved as libgit2
    // does (relative to the including file, "~/" from home); one in an included file may be in any
    // of the files included at the level above, so each of those places is checked.
    bool configPaths(git_repository* repository, git_config* config)
    {
        git_config* rawLocal = nullptr;
        if (git_config_open_level(&rawLocal, config, GIT_CONFIG_LEVEL_LOCAL) != 0) {
            git_error_clear();
            return true; // no config of its own
        }
        GitConfigPtr local(rawLocal);
        struct Entry
        {
            QString name;
            QString value;
        };
        std::map<unsigned, std::vector<Entry>> includes; // by the depth of the file they are in
        std::vector<Entry> files;
        git_config_iterator* rawIterator = nullptr;
        if (git_config_iterator_new(&rawIterator, local.get()) != 0)
            return fail(QStringLiteral(": its config cannot be read."));
        git_config_entry* entry = nullptr;
        while (git_config_next(&entry, rawIterator) == 0) {
            const QString name = QString::fromUtf8(entry->name);
            const QString value = entry->value ? QString::fromUtf8(entry->value) : QString();
            if (value.isEmpty())
                continue;
            if (name == QLatin1String("include.path")
                || (name.startsWith(QLatin1String("includeif.")) && name.endsWith(QLatin1String(".path"))))
                includes[entry->include_depth].push_back({name, value});
            else if (name == QLatin1String("core.excludesfile") || name == QLatin1String("core.attributesfile"))
                files.push_back({name, value});
        }
        git_config_iterator_free(rawIterator);
        git_error_clear();

        const QString configFile = itemPath(repository, GIT_REPOSITORY_ITEM_CONFIG);
        QStringList bases{QFileInfo(configFile).path()};
        for (unsigned depth = 0; !includes[depth].empty() || includes.upper_bound(depth) != includes.end(); ++depth) {
            QStringList nextBases;
            for (const Entry& include : includes[depth]) {
                QStringList candidates;
                if (include.value.startsWith(QLatin1String("~/")))
                    candidates << QDir::homePath() + include.value.mid(1);
                else if (QDir::isAbsolutePath(include.value))
                    candidates << include.value;
                else
                    for (const QString& base : std::as_const(bases))
                        candidates << base + QLatin1Char('/') + include.value;
                for (const QString& candidate : std::as_const(candidates)) {
                    const QString target = GitPathPolicy::whereLeads(candidate);
                    if (!m_policy.contains(target))
                        return configLeadsOut(include, target);
                    nextBases << QFileInfo(target).path();
                }
            }
            if (!nextBases.isEmpty())
                bases = nextBases;
        }
        for (const Entry& file : files) {
            // libgit2 opens these as given ("~/" from home), a relative one from the process's directory.
            const QString path = file.value.startsWith(QLatin1String("~/"))
                ? QDir::homePath() + file.value.mid(1)
                : QDir::current().absoluteFilePath(file.value);
            const QString target = GitPathPolicy::whereLeads(path);
            if (!m_policy.contains(target))
                return configLeadsOut(file, target);
        }
        return true;
    }

private:
    template<typename Entry>
    bool configLeadsOut(const Entry& entry, const QString& target)
    {
        return leadsOut(QStringLiteral("its config's ") + entry.name + QStringLiteral(" names ") + quoted(entry.value)
            + QStringLiteral(", which leads to ") + quoted(target));
    }

    bool leadsOut(const QString& what)
    {
        return fail(QStringLiteral(": ") + what + QStringLiteral(", outside the allowed roots (")
            + m_policy.roots().join(QStringLiteral(", "))
            + QStringLiteral("). Such a repository is refused: git tools read and write only inside the roots."));
    }

    bool fail(const QString& why)
    {
        error = m_what + QLatin1Char(' ') + quoted(m_repositoryPath) + why;
        return false;
    }

    const GitPathPolicy& m_policy;
    QString m_repositoryPath;
    QString m_what;
    GitDataConfinement::LooseObjects m_looseObjects;
    QSet<QString> m_walked;
    int m_entries = 0;
};

// Adds `objectsDirectory`'s loose objects (checked as they are read) and packs to `odb`.
bool addObjectDirectory(git_odb* odb, const GitPathPolicy& policy, const QString& objectsDirectory,
    const QString& shownAs, bool fsync, bool alternate)
{
    const auto add = [&](git_odb_backend* backend, int priority) {
        const int code
            = alternate ? git_odb_add_alternate(odb, backend, priority) : git_odb_add_backend(odb, backend, priority);
        if (code != 0)
            backend->free(backend); // not taken
        return code == 0;
    };
    git_odb_backend* loose = nullptr;
    if (ConfinedLooseBackend::create(&loose, policy, objectsDirectory, shownAs, fsync) != 0
        || !add(loose, LoosePriority))
        return false;
    git_odb_backend* packs = nullptr;
    const QByteArray path = QFile::encodeName(objectsDirectory);
    return git_odb_backend_pack(&packs, path.constData()) == 0 && add(packs, PackedPriority);
}

} // namespace

bool GitDataConfinement::confine(const GitPathPolicy& policy, git_repository* repository, const QString& repositoryPath,
    const QString& what, LooseObjects looseObjects, QString* error, QStringList* objectDirectories)
{
    Confinement confinement(policy, repositoryPath, what, looseObjects);
    const auto failed = [&] {
        *error = confinement.error;
        return false;
    };
    const auto canonical = [](const QString& path) {
        const QString resolved = QFileInfo(path).canonicalFilePath();
        return resolved.isEmpty() ? QDir::cleanPath(path) : resolved;
    };
    const QString gitDirectory = canonical(QFile::decodeName(git_repository_path(repository)));
    const QString commonDirectory = canonical(QFile::decodeName(git_repository_commondir(repository)));
    const QString objectsDirectory = canonical(itemPath(repository, GIT_REPOSITORY_ITEM_OBJECTS));
    // Both inside the roots (GitRepositoryHandle checked them): everything in them must be too.
    for (const QString& directory : {gitDirectory, commonDirectory}) {
        if (!confinement.walk(directory, false))
            return failed();
    }
    git_config* rawConfig = nullptr;
    if (git_repository_config(&rawConfig, repository) != 0) {
        *error = QStringLiteral("%1 '%2': its config cannot be read (%3).")
                     .arg(what, repositoryPath, QString::fromUtf8(git_error_last() ? git_error_last()->message : ""));
        return false;
    }
    GitConfigPtr config(rawConfig);
    if (!confinement.configPaths(repository, config.get()))
        return failed();
    if (!policy.contains(objectsDirectory)) {
        *error = QStringLiteral("%1 '%2': its objects are in '%3', outside the allowed roots (%4). Such a repository "
                                "is refused: git tools read and write only inside the roots.")
                     .arg(what, repositoryPath, objectsDirectory, policy.roots().join(QStringLiteral(", ")));
        return false;
    }
    if (!confinement.walk(objectsDirectory, true))
        return failed();
    QStringList alternates;
    if (!confinement.alternates(objectsDirectory, 0, &alternates))
        return failed();

    // The repository's object database, as libgit2 would make it, but with loose objects checked
    // as they are read and only the alternates accepted above.
    int fsync = 0;
    if (git_config_get_bool(&fsync, config.get(), "core.fsyncobjectfiles") != 0)
        fsync = 0;
    git_error_clear();
    git_odb* rawOdb = nullptr;
    if (git_odb_new(&rawOdb) != 0) {
        *error = QStringLiteral("%1 '%2': its object database cannot be opened.").arg(what, repositoryPath);
        return false;
    }
    const GitOwned<git_odb, git_odb_free> odb(rawOdb);
    bool made
        = addObjectDirectory(odb.get(), policy, objectsDirectory, confinement.shown(objectsDirectory), fsync, false);
    for (const QString& alternate : std::as_const(alternates))
        made = made && addObjectDirectory(odb.get(), policy, alternate, confinement.shown(alternate), fsync, true);
    if (!made || git_repository_set_odb(repository, odb.get()) != 0) {
        *error = QStringLiteral("%1 '%2': its object database cannot be opened (%3).")
                     .arg(what, repositoryPath, QString::fromUtf8(git_error_last() ? git_error_last()->message : ""));
        return false;
    }
    if (objectDirectories)
        *objectDirectories = QStringList{objectsDirectory} + alternates;
    return true;
}
