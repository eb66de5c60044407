#pragma once

// ClientTokens: the named bearer tokens that open /mcp beside the shared one (ServerToken). A
// client's identity is its token's name, where its self-declared clientInfo.name is only a label:
// tasks, requestState and stored answers are bound to it. Issued and revoked in the window and by
// `switchboard client-token`, kept in the state directory as client-tokens.json (owner-only):
//
//   {"version": 1, "tokens": [{"name": "ci-runner", "sha256": "<64 hex digits>", "createdAtMs": 1718000000000}]}
//
// The file holds a SHA-256 of each token, never the token: whoever reads it (a backup, a support
// bundle) learns no credential. A token is shown once, when it is issued.
//
// Shared by processes: the console and command-line runs issue and revoke at once, so every change
// is a read-modify-write under the file's lock (StateFileLock) with an atomic replace
// (WorkspaceStateFile::write), and no process loses another's token. Checking a token reads no
// file unless it changed: nameFor() stats the file (one stat per call) and parses it again only
// when its identity, size or times changed, so a revocation by another process takes effect on the
// next request, without a restart.
//
// Fails closed: a file that cannot be used (malformed, larger than MaxFileBytes, more than
// MaxTokens entries, writable by others, not a regular file) lets no named token in, and problem()
// says why; issuing and revoking refuse to write over it. The shared token is not affected.
//
// Thread-safe; issue() and revoke() block on the lock (bounded) and an fsync: not for an event loop.

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <chrono>
#include <memory>
#include <optional>

class ClientTokens
{
public:
    struct Entry
    {
        QString name;
        qint64 createdAtMs = 0; // ms since the Unix epoch
        friend bool operator==(const Entry&, const Entry&) = default;
    };

    static constexpr int MaxTokens = 1000;
    static constexpr int MaxNameLength = 64;
    static constexpr int Version = 1;
    // MaxTokens entries take about 150 KB; a larger file is not one Switchboard wrote.
    static constexpr qint64 MaxFileBytes = 1024 * 1024;
    // A holder keeps the lock for one small write.
    static constexpr std::chrono::milliseconds DefaultLockTimeout{5'000};

    // The file in `stateDirectory`.
    static QString defaultPath(const QString& stateDirectory);
    // What every named token starts with, so it can be told from the shared token ("sb_…") at a glance.
    static QByteArray prefix() { return QByteArrayLiteral("sbc_"); }
    // Why `name` cannot name a token (1-64 letters, digits, '.', '_' and '-', starting with a letter or
    // digit, so it never reads as a command-line option); empty when it can.
    static QString problemWithName(const QString& name);
    // A new token: the prefix and 32 bytes of the system's CSPRNG in base64url (47 characters).
    static QByteArray generate();

    // The named tokens kept in `path`.
    explicit ClientTokens(QString path, std::chrono::milliseconds lockTimeout = DefaultLockTimeout);
    ~ClientTokens();
    ClientTokens(const ClientTokens&) = delete;
    ClientTokens& operator=(const ClientTokens&) = delete;

    // Issues a token for `name` (unique among the live tokens): returns the token, which is never
    // stored in clear and cannot be shown again, or empty with `error`.
    QByteArray issue(const QString& name, QString* error);
    // Revokes the token of `name`: its next request is refused. False with `error` when there is none.
    bool revoke(const QString& name, QString* error);
    // The live tokens, oldest first; empty when the file cannot be used (problem() says why).
    QList<Entry> list() const;
    QList<Entry> list(QString* problem) const;
    // The name of the client whose token `presented` is (the bearer token as sent); nullopt when it is
    // no live named token, or the file cannot be used.
    std::optional<QString> nameFor(QByteArrayView presented) const;
    // Why no named token is accepted now (the file cannot be used); empty when the file is fine or
    // there is none.
    QString problem() const;
    QString path() const;

private:
    struct Cache;

    // Reads the file again when it changed since the cache was filled; m_cache's mutex held.
    void refresh() const;
    // Under the lock: reads the file, applies `change` to its tokens and writes it when `change`
    // returns true. False with `error` when the lock, the file or the change fails.
    template<typename Change>
    bool modify(const QString& what, Change change, QString* error);

    const QString m_path;
    const std::chrono::milliseconds m_lockTimeout;
    const std::unique_ptr<Cache> m_cache;
};
