#pragma once

// ConnectionCredentialSource: the GitCredentialSource of a running backend. A remote's host maps
// to a connection provider (git.credentials: {github.com: github}); the token is, in this order:
// a credential in the call's verified invocation metadata ({"credentials": {HOST: {"token",
// "username"}}}); the connection a person made for that provider (request_connection's answer,
// kept in the SecretStore); otherwise, for a client in hold mode, a connect question for the
// provider in the console, which the call waits on; once the person connects, the new connection
// is used. In park mode, or when the person declines, obtain() fails with a message naming the
// request_connection call to make.
//
// obtain() runs on a ToolExecutor worker and blocks it; everything it asks of the SecretStore and
// the InteractionBroker runs on their thread (the backend thread) through a HomeThread. shutdown()
// (on that thread) wakes every waiting worker with an error.

#include "git/gitcredentialsource.h"
#include "tools/toolcallcontext.h"

#include <QMap>
#include <QString>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

class HomeThread;
class InteractionBroker;
class SecretStore;
class ToolRegistry;
struct CallMetadata;

class ConnectionCredentialSource : public GitCredentialSource,
                                   public std::enable_shared_from_this<ConnectionCredentialSource>
{
public:
    // SecretStore::connectionPointerKey: the key that names the newest connection of `provider`.
    static QString connectionPointerKey(const QString& provider);

    // `secrets`, `broker` and `registry` live on `home`'s thread and must outlive shutdown().
    ConnectionCredentialSource(std::shared_ptr<HomeThread> home, SecretStore* secrets, InteractionBroker* broker,
        const ToolRegistry* registry, QMap<QString, QString> providersByHost, QString configPath);

    std::optional<GitCredential> obtain(
        ToolCallContext& context, const Request& request, int attempt, QString* error, bool* personNeeded) override;

    // Home thread: no more credentials; waiting workers return with an error.
    void shutdown();

private:
    struct Pending;
    // Runs `work` on the home thread and blocks until it calls `done` (or the call is cancelled,
    // or the source shuts down). The answer is a credential or an error.
    struct Outcome
    {
        std::optional<GitCredential> credential;
        QString error;
        bool answered = false;
    };
    Outcome waitOnHome(ToolCallContext& context,
        std::function<void(std::function<void(Outcome)> done, std::shared_ptr<Pending> pending)> work);

    // Home thread.
    void loadConnection(const QString& provider, std::function<void(Outcome)> done);
    void askPerson(const QString& provider, const Request& request, const CallMetadata& metadata, bool storedRefused,
        std::shared_ptr<Pending> pending, std::function<void(Outcome)> done);

    std::shared_ptr<HomeThread> m_home;
    SecretStore* m_secrets;
    InteractionBroker* m_broker;
    const ToolRegistry* m_registry;
    const QMap<QString, QString> m_providersByHost;
    const QString m_configPath;

    std::mutex m_mutex; // guards m_closed and every Pending's fields; m_changed wakes waiters
    std::condition_variable m_changed;
    bool m_closed = false;
};
