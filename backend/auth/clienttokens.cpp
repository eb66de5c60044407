#include "auth/clienttokens.h"

#include "boundedjson.h"
#include "store/statedirectory.h"
#include "store/statefilelock.h"
#include "store/workspacestatefile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

using nlohmann::ordered_json;

namespace {

constexpr char NameKey[] = "name";
constexpr char HashKey[] = "sha256";
constexpr char CreatedKey[] = "createdAtMs";

// A token as the file keeps it.
struct Stored
{
    QString name;
    QByteArray sha256; // the 32 bytes of the digest
    qint64 createdAtMs = 0;
};

QByteArray digestOf(QByteArrayView token)
{
    return QCryptographicHash::hash(token, QCryptographicHash::Sha256);
}

// What identifies one version of the file: an atomic replace gives it a new inode, an edit in place
// changes its size or modification time, a chmod its change time. A version that matches all of
// these and still differs would need the inode of a replaced file reused, with the same size and
// times to the nanosecond.
struct FileIdentity
{
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    timespec modified{};
    timespec changed{};

    bool operator==(const FileIdentity& other) const
    {
        if (exists != other.exists)
            return false;
        return !exists
            || (device == other.device && inode == other.inode && size == other.size
                && modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec
                && changed.tv_sec == other.changed.tv_sec && changed.tv_nsec == other.changed.tv_nsec);
    }
};

// Stats the file and checks it may be trusted: a file others can write could hold a digest of their
// own making. False with `problem` when it cannot be used; a missing file is fine (no tokens).
bool identify(const QString& path, FileIdentity* identity, QString* problem)
{
    *identity = {};
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0) {
        if (errno == ENOENT)
            return true;
        *problem = QStringLiteral("cannot read it: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        *problem = QStringLiteral("it is not a regular file");
        return false;
    }
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || info.st_uid != ::geteuid()) {
        *problem = QStringLiteral("others than its owner may write it (mode %1, owner %2), so it may hold tokens "
                                  "no one here issued; check it, then make it yours and owner-only (chmod 600)")
                       .arg(QString::number(info.st_mode & 07777, 8))
                       .arg(info.st_uid);
        return false;
    }
    identity->exists = true;
    identity->device = info.st_dev;
    identity->inode = info.st_ino;
    identity->size = info.st_size;
    identity->modified = info.st_mtim;
    identity->changed = info.st_ctim;
    return true;
}

// The file's tokens. Anything but what toBytes() writes (a version 1 object whose "tokens" is an
// array of at most MaxTokens entries, each a valid and unique name, a digest and a time) is
// refused: an entry skipped would be a token silently revoked, one guessed at a token let in.
bool parse(const QByteArray& contents, QList<Stored>* tokens, QString* error)
{
    tokens->clear();
    // A few values per entry: the limit refuses a hostile file long before MaxFileBytes would.
    constexpr BoundedJson::Limits limits{8, 10 * ClientTokens::MaxTokens + 10, ClientTokens::MaxFileBytes};
    const BoundedJson::Result<ordered_json> file = BoundedJson::parseOrdered(contents, limits);
    if (!file.ok) {
        *error = QStringLiteral("it is not JSON (%1)").arg(QString::fromStdString(file.error));
        return false;
    }
    const ordered_json& root = file.value;
    if (!root.is_object()) {
        *error = QStringLiteral("it is not a JSON object");
        return false;
    }
    const auto version = root.find("version");
    if (version == root.end() || !version->is_number_integer() || version->get<qint64>() != ClientTokens::Version) {
        *error = QStringLiteral("its version is not %1").arg(ClientTokens::Version);
        return false;
    }
    const auto entries = root.find("tokens");
    if (entries == root.end() || !entries->is_array()) {
        *error = QStringLiteral("\"tokens\" is not an array");
        return false;
    }
    if (entries->size() > std::size_t(ClientTokens::MaxTokens)) {
        *error = QStringLiteral("it holds %1 tokens, more than the %2 Switchboard keeps")
                     .arg(entries->size())
                     .arg(ClientTokens::MaxTokens);
        return false;
    }
    QList<Stored> parsed;
    QHash<QString, int> names;
    QHash<QByteArray, int> digests;
    for (const ordered_json& entry : *entries) {
        const int index = int(parsed.size()) + 1;
        if (!entry.is_object()) {
            *error = QStringLiteral("token %1 is not an object").arg(index);
            return false;
        }
        const auto name = entry.find(NameKey);
        const auto hash = entry.find(HashKey);
        const auto created = entry.find(CreatedKey);
        if (name == entry.end() || !name->is_string() || hash == entry.end() || !hash->is_string()
            || created == entry.end() || !created->is_number_integer()) {
            *error = QStringLiteral("token %1 is not an object with a string \"%2\", a string \"%3\" and an integer "
                                    "\"%4\"")
                         .arg(index)
                         .arg(QLatin1String(NameKey), QLatin1String(HashKey), QLatin1String(CreatedKey));
            return false;
        }
        Stored token;
        token.name = QString::fromStdString(name->get<std::string>());
        if (const QString problem = ClientTokens::problemWithName(token.name); !problem.isEmpty()) {
            *error = QStringLiteral("token %1: %2").arg(index).arg(problem);
            return false;
        }
        const QByteArray hex = QByteArray::fromStdString(hash->get<std::string>());
        token.sha256 = QByteArray::fromHex(hex);
        // fromHex skips what is not a digit: only a round trip tells the digest is exactly what was written.
        if (hex.size() != 64 || token.sha256.toHex() != hex) {
            *error = QStringLiteral("the \"%1\" of token %2 is not 64 lower-case hex digits")
                         .arg(QLatin1String(HashKey), token.name);
            return false;
        }
        token.createdAtMs = created->get<qint64>();
        if (names.contains(token.name)) {
            *error = QStringLiteral("the name %1 is given twice").arg(token.name);
            return false;
        }
        if (digests.contains(token.sha256)) {
            *error = QStringLiteral("tokens %1 and %2 are the same token")
                         .arg(parsed.at(digests.value(token.sha256)).name, token.name);
            return false;
        }
        names.insert(token.name, int(parsed.size()));
        digests.insert(token.sha256, int(parsed.size()));
        parsed.append(std::move(token));
    }
    *tokens = std::move(parsed);
    return true;
}

QByteArray toBytes(const QList<Stored>& tokens)
{
    ordered_json entries = ordered_json::array();
    for (const Stored& token : tokens) {
        entries.push_back({{NameKey, token.name.toStdString()}, {HashKey, token.sha256.toHex().toStdString()},
            {CreatedKey, token.createdAtMs}});
    }
    // Indented, one entry a few lines: the operator may read it (it holds no secret).
    const ordered_json root{{"version", ClientTokens::Version}, {"tokens", std::move(entries)}};
    return QByteArray::fromStdString(root.dump(2)) + '\n';
}

// The tokens of the file `identity` describes (as identify() accepted it); a missing file holds
// none. False with `problem` (what is wrong with it, not yet naming it) when it cannot be used.
bool load(const QString& path, const FileIdentity& identity, QList<Stored>* tokens, QString* problem)
{
    tokens->clear();
    if (!identity.exists)
        return true;
    QByteArray contents;
    switch (WorkspaceStateFile::read(path, ClientTokens::MaxFileBytes, &contents, problem)) {
    case WorkspaceStateFile::ReadStatus::Missing: // removed since the stat: the next stat tells
        return true;
    case WorkspaceStateFile::ReadStatus::Unreadable:
        return false;
    case WorkspaceStateFile::ReadStatus::Read:
        break;
    }
    return parse(contents, tokens, problem);
}

// What the operator reads when the file cannot be used: what fails, and what to do.
QString unusable(const QString& path, const QString& problem)
{
    return QStringLiteral("the client tokens in %1 cannot be used (%2): no named client token is accepted until the "
                          "file is fixed or removed (removing it revokes every named token); the shared token still "
                          "works")
        .arg(path, problem);
}

} // namespace

struct ClientTokens::Cache
{
    std::mutex mutex;
    bool filled = false;
    FileIdentity seen; // the file the rest was read from (when filled)
    QList<Entry> entries;
    QHash<QByteArray, QString> names; // by digest
    QString problem;
};

QString ClientTokens::defaultPath(const QString& stateDirectory)
{
    return QDir(stateDirectory).filePath(QStringLiteral("client-tokens.json"));
}

QString ClientTokens::problemWithName(const QString& name)
{
    static const QRegularExpression allowed(QStringLiteral("\\A[A-Za-z0-9][A-Za-z0-9._-]*\\z"));
    if (name.isEmpty())
        return QStringLiteral("a client token needs a name");
    if (name.size() > MaxNameLength)
        return QStringLiteral("the name is %1 characters long; at most %2 are allowed")
            .arg(name.size())
            .arg(MaxNameLength);
    if (!allowed.match(name).hasMatch())
        return QStringLiteral("\"%1\" cannot name a client token: use letters, digits, '.', '_' and '-', starting with "
                              "a letter or digit")
            .arg(name.left(MaxNameLength));
    return {};
}

QByteArray ClientTokens::generate()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return prefix()
        + QByteArray(reinterpret_cast<const char*>(words.data()), qsizetype(sizeof(words)))
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

ClientTokens::ClientTokens(QString path, std::chrono::milliseconds lockTimeout)
    : m_path(std::move(path))
    , m_lockTimeout(lockTimeout)
    , m_cache(std::make_unique<Cache>())
{}

ClientTokens::~ClientTokens() = default;

QString ClientTokens::path() const
{
    return m_path;
}

void ClientTokens::refresh() const
{
    Cache& cache = *m_cache;
    FileIdentity now;
    QString problem;
    if (!identify(m_path, &now, &problem)) {
        // Checked again on every call (a stat, nothing read), and read once it is fixed.
        cache.filled = false;
        cache.entries.clear();
        cache.names.clear();
        cache.problem = unusable(m_path, problem);
        return;
    }
    // A file that could not be used is cached as such too: a client sending named tokens at a damaged
    // file costs a stat per request, not a read and a parse.
    if (cache.filled && now == cache.seen)
        return;
    cache.entries.clear();
    cache.names.clear();
    cache.problem.clear();
    // `now` is the file as it was before reading: if it was replaced meanwhile, the next call sees
    // another identity and reads it again.
    cache.seen = now;
    cache.filled = true;
    QList<Stored> tokens;
    if (!load(m_path, now, &tokens, &problem)) {
        cache.problem = unusable(m_path, problem);
        return;
    }
    for (const Stored& token : std::as_const(tokens)) {
        cache.entries.append(Entry{token.name, token.createdAtMs});
        cache.names.insert(token.sha256, token.name);
    }
}

std::optional<QString> ClientTokens::nameFor(QByteArrayView presented) const
{
    // Not one of ours (the shared token, a guess): no stat, no digest.
    constexpr qsizetype MaxTokenLength = 128;
    if (!presented.startsWith(prefix()) || presented.size() > MaxTokenLength)
        return std::nullopt;
    // Looked up by digest: the time a lookup takes says something about the digest of what was sent,
    // nothing about a token.
    const QByteArray digest = digestOf(presented);
    const std::lock_guard lock(m_cache->mutex);
    refresh();
    const auto found = m_cache->names.constFind(digest);
    if (found == m_cache->names.constEnd())
        return std::nullopt;
    return *found;
}

QList<ClientTokens::Entry> ClientTokens::list() const
{
    return list(nullptr);
}

QList<ClientTokens::Entry> ClientTokens::list(QString* problem) const
{
    const std::lock_guard lock(m_cache->mutex);
    refresh();
    if (problem)
        *problem = m_cache->problem;
    return m_cache->entries;
}

QString ClientTokens::problem() const
{
    const std::lock_guard lock(m_cache->mutex);
    refresh();
    return m_cache->problem;
}

template<typename Change>
bool ClientTokens::modify(const QString& what, Change change, QString* error)
{
    QString problem;
    if (!StateDirectory::prepare(QFileInfo(m_path).absolutePath(), &problem)) {
        *error = QStringLiteral("cannot %1: %2").arg(what, problem);
        return false;
    }
    // Between reading the file and renaming the result over it no other process may write, or the
    // token it issued meanwhile would be lost (or the one it revoked brought back).
    const std::optional<StateFileLock> lock = StateFileLock::acquire(
        StateFileLock::lockPathFor(m_path), m_lockTimeout, &problem, QStringLiteral("the client tokens"));
    if (!lock) {
        *error = QStringLiteral("cannot %1: %2").arg(what, problem);
        return false;
    }
    QList<Stored> tokens;
    FileIdentity identity;
    if (!identify(m_path, &identity, &problem) || !load(m_path, identity, &tokens, &problem)) {
        // Never written over: what the file held would be lost, or kept as if this process had
        // checked it.
        *error = QStringLiteral("cannot %1: %2").arg(what, unusable(m_path, problem));
        return false;
    }
    if (!change(tokens, error))
        return false;
    if (!WorkspaceStateFile::write(m_path, toBytes(tokens), error))
        return false;
    const std::lock_guard cacheLock(m_cache->mutex);
    m_cache->filled = false;
    return true;
}

QByteArray ClientTokens::issue(const QString& name, QString* error)
{
    if (const QString problem = problemWithName(name); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    const QByteArray token = generate();
    const bool issued = modify(
        QStringLiteral("issue a client token for %1").arg(name),
        [&](QList<Stored>& tokens, QString* refusal) {
            if (std::any_of(tokens.cbegin(), tokens.cend(), [&](const Stored& live) { return live.name == name; })) {
                *refusal = QStringLiteral("there is a client token named %1 already: revoke it first, or choose "
                                          "another name")
                               .arg(name);
                return false;
            }
            if (tokens.size() >= MaxTokens) {
                *refusal = QStringLiteral("there are %1 client tokens, as many as Switchboard keeps: revoke one first")
                               .arg(tokens.size());
                return false;
            }
            tokens.append(Stored{name, digestOf(token), QDateTime::currentMSecsSinceEpoch()});
            return true;
        },
        error);
    return issued ? token : QByteArray();
}

bool ClientTokens::revoke(const QString& name, QString* error)
{
    return modify(
        QStringLiteral("revoke the client token %1").arg(name),
        [&](QList<Stored>& tokens, QString* refusal) {
            if (tokens.removeIf([&](const Stored& live) { return live.name == name; }) > 0)
                return true;
            *refusal = QStringLiteral("there is no client token named %1").arg(name);
            return false;
        },
        error);
}
