#include "git/confinedloosebackend.h"

#include "policy/gitpathpolicy.h"

#include <QByteArray>
#include <QFile>
#include <QSet>

#include <git2.h>

#include <sys/stat.h>

#include <mutex>
#include <string>

namespace {

struct Backend
{
    git_odb_backend parent; // first: libgit2 hands this struct's address back as a git_odb_backend
    git_odb_backend* inner = nullptr;
    GitPathPolicy policy;
    QString directory; // canonical
    QString shownAs;
    std::mutex mutex; // guards checkedDirectories: one repository may be read by several threads
    QSet<QString> checkedDirectories; // objects/ab directories found inside the roots
};

thread_local QString t_lastRefusal;

Backend* self(git_odb_backend* backend)
{
    return reinterpret_cast<Backend*>(backend);
}

// The inner backend works for the same object database as this one.
git_odb_backend* inner(git_odb_backend* backend)
{
    Backend* outer = self(backend);
    outer->inner->odb = outer->parent.odb;
    return outer->inner;
}

int refuse(const Backend* backend, const QString& object, const QString& target, bool report)
{
    if (!report)
        return GIT_ERROR;
    t_lastRefusal = backend->shownAs + QLatin1Char('/') + object + QStringLiteral(" leads to '") + target
        + QStringLiteral("', outside the allowed roots (") + backend->policy.roots().join(QStringLiteral(", "))
        + QStringLiteral("); git tools do not read or write it");
    git_error_set_str(GIT_ERROR_ODB, t_lastRefusal.toStdString().c_str());
    return GIT_ERROR;
}

// 0 when the object's file (if it exists) and its directory lie inside the roots; otherwise an
// error, set for libgit2 to report when `report`.
int check(Backend* backend, const git_oid* id, bool report = true)
{
    char hex[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(hex, sizeof hex, id);
    const QString name = QString::fromLatin1(hex, 2) + QLatin1Char('/') + QString::fromLatin1(hex + 2);
    const QString directory = backend->directory + QLatin1Char('/') + QString::fromLatin1(hex, 2);
    const QString file = backend->directory + QLatin1Char('/') + name;
    struct stat status
    {};
    if (::lstat(QFile::encodeName(file).constData(), &status) == 0 && S_ISLNK(status.st_mode)) {
        const QString target = GitPathPolicy::whereLeads(file);
        if (!backend->policy.contains(target))
            return refuse(backend, name, target, report);
    }
    const std::lock_guard lock(backend->mutex);
    if (backend->checkedDirectories.contains(directory))
        return 0;
    const QString target = GitPathPolicy::whereLeads(directory);
    if (!backend->policy.contains(target))
        return refuse(backend, QString::fromLatin1(hex, 2), target, report);
    backend->checkedDirectories.insert(directory);
    return 0;
}

int readObject(void** data, size_t* length, git_object_t* type, git_odb_backend* backend, const git_oid* id)
{
    if (const int refused = check(self(backend), id))
        return refused;
    git_odb_backend* loose = inner(backend);
    return loose->read(data, length, type, loose, id);
}

int readPrefix(git_oid* found, void** data, size_t* length, git_object_t* type, git_odb_backend* backend,
    const git_oid* prefix, size_t prefixLength)
{
    // The whole id first, so an object outside is refused before it is read.
    git_odb_backend* loose = inner(backend);
    git_oid full;
    if (const int code = loose->exists_prefix(&full, loose, prefix, prefixLength); code != 0)
        return code;
    if (const int refused = check(self(backend), &full))
        return refused;
    return loose->read_prefix(found, data, length, type, loose, prefix, prefixLength);
}

int readHeader(size_t* length, git_object_t* type, git_odb_backend* backend, const git_oid* id)
{
    if (const int refused = check(self(backend), id))
        return refused;
    git_odb_backend* loose = inner(backend);
    return loose->read_header(length, type, loose, id);
}

int readStream(git_odb_stream** stream, size_t* length, git_object_t* type, git_odb_backend* backend, const git_oid* id)
{
    if (const int refused = check(self(backend), id))
        return refused;
    git_odb_backend* loose = inner(backend);
    return loose->readstream(stream, length, type, loose, id);
}

int writeObject(git_odb_backend* backend, const git_oid* id, const void* data, size_t length, git_object_t type)
{
    // Written beside its name and renamed over whatever is there (a link is replaced, never
    // written through); its directory must not lead out.
    if (const int refused = check(self(backend), id))
        return refused;
    git_odb_backend* loose = inner(backend);
    return loose->write(loose, id, data, length, type);
}

int writeStream(git_odb_stream** stream, git_odb_backend* backend, git_object_size_t length, git_object_t type)
{
    // The id is known only when the stream finishes. libgit2 then renames the written file over
    // whatever has its name (a link is replaced, never written through), in an objects/ab
    // directory that was looked at when the repository was opened (GitDataConfinement).
    git_odb_backend* loose = inner(backend);
    return loose->writestream(stream, loose, length, type);
}

int exists(git_odb_backend* backend, const git_oid* id)
{
    // An object outside does not exist here: libgit2 writes it anew when it needs it.
    if (check(self(backend), id, false) != 0)
        return 0;
    git_odb_backend* loose = inner(backend);
    return loose->exists(loose, id);
}

int existsPrefix(git_oid* found, git_odb_backend* backend, const git_oid* prefix, size_t prefixLength)
{
    git_odb_backend* loose = inner(backend);
    if (const int code = loose->exists_prefix(found, loose, prefix, prefixLength); code != 0)
        return code;
    return check(self(backend), found);
}

int forEach(git_odb_backend* backend, git_odb_foreach_cb callback, void* payload)
{
    git_odb_backend* loose = inner(backend);
    return loose->foreach (loose, callback, payload);
}

int freshen(git_odb_backend* backend, const git_oid* id)
{
    // Freshening sets the file's time through a link; one outside is not there for libgit2.
    if (check(self(backend), id, false) != 0)
        return GIT_ENOTFOUND;
    git_odb_backend* loose = inner(backend);
    return loose->freshen(loose, id);
}

void release(git_odb_backend* backend)
{
    Backend* outer = self(backend);
    outer->inner->free(outer->inner);
    delete outer;
}

} // namespace

QString ConfinedLooseBackend::lastRefusal()
{
    return t_lastRefusal;
}

void ConfinedLooseBackend::clearLastRefusal()
{
    t_lastRefusal.clear();
}

int ConfinedLooseBackend::create(git_odb_backend** out, const GitPathPolicy& policy, const QString& objectsDirectory,
    const QString& shownAs, bool fsync)
{
    git_odb_backend* loose = nullptr;
    const QByteArray path = QFile::encodeName(objectsDirectory);
    // As libgit2 makes it for a repository: its default compression and file modes.
    if (const int code = git_odb_backend_loose(&loose, path.constData(), -1, fsync ? 1 : 0, 0, 0); code != 0)
        return code;
    // Value-initialised: parent zeroed, policy made by its (explicit) default constructor.
    auto* backend = new Backend();
    git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION);
    backend->inner = loose;
    backend->policy = policy;
    backend->directory = objectsDirectory;
    backend->shownAs = shownAs;
    // Only what libgit2's loose backend itself offers.
    backend->parent.read = loose->read ? &readObject : nullptr;
    backend->parent.read_prefix = loose->read_prefix && loose->exists_prefix ? &readPrefix : nullptr;
    backend->parent.read_header = loose->read_header ? &readHeader : nullptr;
    backend->parent.readstream = loose->readstream ? &readStream : nullptr;
    backend->parent.write = loose->write ? &writeObject : nullptr;
    backend->parent.writestream = loose->writestream ? &writeStream : nullptr;
    backend->parent.exists = loose->exists ? &exists : nullptr;
    backend->parent.exists_prefix = loose->exists_prefix ? &existsPrefix : nullptr;
    backend->parent.foreach = loose->foreach ? &forEach : nullptr;
    backend->parent.freshen = loose->freshen ? &freshen : nullptr;
    backend->parent.free = &release;
    *out = &backend->parent;
    return 0;
}
