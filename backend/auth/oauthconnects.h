#pragma once

// OAuthConnects: the OAuth sign-ins a 2026-07-28 client's own user runs for request_connection
// (input_required in URL mode). Each is the console's flow (OAuthConnector: authorization code with
// PKCE, loopback redirect), filed under the call that asked for it and the client identity that
// made that call; a sign-in that succeeds is kept in the SecretStore exactly as the console's is
// (oauth/<provider>/<account>, and the provider's newest-connection pointer), and only the provider
// and account are ever told. Bounded in number; a flow ends when its round's requestState expires.
// Lives on the server thread.

#include "auth/oauthprovider.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class OAuthConnector;
class QTimer;
class SecretStore;

class OAuthConnects : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int maxFlows = 16; // sign-ins in flight at once, for every client together
        qint64 lifetimeMs = 600'000; // a requestState's lifetime: a flow no retry asks about ends then
        int settleWaitMs = 30'000; // how long a retry waits for a sign-in still running
    };

    struct Outcome
    {
        enum class State {
            Pending, // the browser step (or saving the secret) is not done
            Connected,
            Failed,
        };
        State state = State::Pending;
        QString provider; // OAuthProvider::name
        QString account; // Connected: who signed in
        QString reason; // Failed: declined, cancelled, timeout or error (OAuthFailure::reasonName)
        QString message; // Failed: for the person; never a secret
    };

    OAuthConnects(QList<OAuthProvider> providers, SecretStore* secrets, Settings settings, QObject* parent = nullptr);
    ~OAuthConnects() override;

    const Settings& settings() const { return m_settings; }
    // The configured provider of this name; null when there is none.
    const OAuthProvider* provider(const QString& name) const;
    int count() const { return int(m_flows.size()); }

    // Starts a sign-in for call `callId` of `identity`: the authorization URL the user opens, or an
    // empty URL with `error` (too many sign-ins, no loopback port, an unusable provider).
    QUrl start(qint64 callId, const QString& identity, const OAuthProvider& provider, const QStringList& scopes,
        QString* error);
    // The sign-in filed under `callId` when it is `identity`'s; nullopt when there is none (never
    // started, expired, another client's).
    std::optional<Outcome> outcome(qint64 callId, const QString& identity) const;
    QUrl authorizationUrl(qint64 callId) const;
    // `settled` runs once when the sign-in filed under `callId` stops being pending (at once when it
    // has); never when the flow is gone first.
    void whenSettled(qint64 callId, std::function<void()> settled);
    // A new round of the same sign-in: it is filed under the call `to` from now on, and lives for
    // another requestState's lifetime.
    void refile(qint64 from, qint64 to);
    // The user declined, or the round is over: a running sign-in is cancelled, and the flow forgotten.
    void forget(qint64 callId);

private:
    struct Flow
    {
        quint64 serial = 0;
        qint64 callId = 0;
        QString identity;
        QUrl url;
        Outcome outcome;
        OAuthConnector* connector = nullptr; // owned; null once it ended
        QTimer* expiry = nullptr; // owned
        std::vector<std::function<void()>> waiters;
    };

    Flow* flowOfCall(qint64 callId) const;
    void settle(quint64 serial, Outcome outcome);
    void keepConnection(quint64 serial, const QString& provider, const QString& account, const QString& secretKey,
        const QByteArray& secret);
    void erase(quint64 serial);

    QList<OAuthProvider> m_providers;
    SecretStore* m_secrets;
    Settings m_settings;
    quint64 m_nextSerial = 1;
    std::map<quint64, std::unique_ptr<Flow>> m_flows; // by serial
    std::map<qint64, quint64> m_byCall; // the call a flow is filed under → its serial
};
