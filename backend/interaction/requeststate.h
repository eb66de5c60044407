#pragma once

// RequestStates: the `requestState` of MCP 2026-07-28's input_required results (multi round-trip
// requests). A call whose question the client's own user answers ends with input_required and a
// requestState; the client retries the same call with the answers and that state, byte for byte.
// The state is attacker-controlled on its way back, so it is protected: an HMAC-SHA-256 (key in
// the state directory, owner-only, made on first use) over what it binds: the client identity, the
// tool, a digest of the call's arguments, an expiry, the round, the keys it asked and a nonce. A
// state that is tampered with, expired, another client's, another call's, or used already is
// refused with a clear message; a state answers once (its nonce is remembered until it expires).
//
// Form: base64url(payload JSON) "." base64url(MAC). Lives on the server thread.

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <variant>

class RequestStates
{
public:
    struct Claims
    {
        QString identity; // the client it was given to
        QString tool;
        QByteArray argumentsDigest; // digestOf(arguments), hex
        qint64 expiresAtMs = 0;
        int round = 1;
        qint64 callId = 0; // the call that asked
        QStringList keys; // the inputRequests' keys it asked
        QString nonce;
    };

    struct Settings
    {
        qint64 lifetimeMs = 600'000; // a short expiry, as the revision recommends
        int maxRemembered = 100'000; // answered nonces kept until they expire; more refuse new states
        std::function<qint64()> clock; // ms since the epoch; the system clock when empty
    };

    // Keeps its key in `keyPath` (created 0600 with 32 random bytes when missing); an empty path
    // keeps a random key in memory (tests; a restart then invalidates every state given out).
    // Nullopt with `error` when the key file exists but cannot be read or is not a key.
    static std::optional<RequestStates> open(const QString& keyPath, Settings settings, QString* error);

    static QByteArray digestOf(const nlohmann::json& arguments);

    // A new state for these claims (nonce, expiry set here); empty when too many answered states
    // are remembered to take another (the caller asks at the console instead).
    QByteArray issue(Claims claims);
    // The claims of `state`, when it is this server's, unexpired, for `identity`, `tool` and these
    // arguments, and not answered before; otherwise why not, in words a client's developer can act on.
    std::variant<Claims, QString> verify(
        const QByteArray& state, const QString& identity, const QString& tool, const QByteArray& argumentsDigest);
    // The state answered its call: it cannot be used again.
    void consume(const Claims& claims);

    qint64 now() const;

private:
    RequestStates(QByteArray key, Settings settings);
    QByteArray mac(const QByteArray& payload) const;
    void forgetExpired();

    QByteArray m_key;
    Settings m_settings;
    std::multimap<qint64, QString> m_expiries; // answered nonces by expiry
    QHash<QString, qint64> m_answered; // nonce → expiry
};
