#include "git/connectioncredentialsource.h"

#include "auth/secretstore.h"
#include "boundedjson.h"
#include "clientanswer.h"
#include "interaction/interactionbroker.h"
#include "protocol/jsonrpc.h"
#include "tools/homethread.h"
#include "tools/toolregistry.h"

using nlohmann::json;

// What one waiting worker shares with the home thread.
struct ConnectionCredentialSource::Pending
{
    Outcome outcome; // guarded by the source's m_mutex
    QString interactionId; // home thread: the question raised for this call, if any
};

namespace {

// A stored secret as a token: an OAuth connection's secret is its token JSON, an API key is itself.
QByteArray tokenFromSecret(const QByteArray& secret)
{
    if (secret.startsWith('{')) {
        const json value = BoundedJson::parse(secret, BoundedJson::Limits::message()).value;
        if (value.is_object() && value.contains("access_token") && value["access_token"].is_string())
            return QByteArray::fromStdString(value["access_token"].get<std::string>());
    }
    return secret;
}

} // namespace

QString ConnectionCredentialSource::connectionPointerKey(const QString& provider)
{
    return SecretStore::connectionPointerKey(provider);
}

ConnectionCredentialSource::ConnectionCredentialSource(std::shared_ptr<HomeThread> home, SecretStore* secrets,
    InteractionBroker* broker, const ToolRegistry* registry, QMap<QString, QString> providersByHost, QString configPath)
    : m_home(std::move(home))
    , m_secrets(secrets)
    , m_broker(broker)
    , m_registry(registry)
    , m_providersByHost(std::move(providersByHost))
    , m_configPath(std::move(configPath))
{}

std::optional<GitCredential> ConnectionCredentialSource::obtain(
    ToolCallContext& context, const Request& request, int attempt, QString* error, bool* personNeeded)
{
    if (personNeeded)
        *personNeeded = false;
    int skip = attempt;
    // 1. The invocation's own credential, which the caller verified before handing the call over.
    const json& invocation = context.metadata().invocation;
    if (invocation.is_object() && invocation.contains("credentials") && invocation["credentials"].is_object()) {
        const json& credentials = invocation["credentials"];
        const auto it = credentials.find(request.host.toStdString());
        if (it != credentials.end() && it->is_object()) {
            const std::string token = it->value("token", it->value("password", std::string()));
            if (!token.empty()) {
                if (skip == 0)
                    return GitCredential{QString::fromStdString(it->value("username", std::string())),
                        QByteArray::fromStdString(token), QStringLiteral("the invocation's credential")};
                --skip;
            }
        }
    }
    // 2. The connection a person made for the host's provider.
    const QString provider = m_providersByHost.value(request.host);
    if (provider.isEmpty()) {
        *error = QStringLiteral("%1 needs credentials, and no connection provider is configured for %2. Ask the "
                                "operator to map it (git: {credentials: {%2: PROVIDER}} in %3).")
                     .arg(request.url, request.host,
                         m_configPath.isEmpty() ? QStringLiteral("the configuration") : m_configPath);
        return std::nullopt;
    }
    Outcome stored
        = waitOnHome(context, [this, provider](auto done, auto) { loadConnection(provider, std::move(done)); });
    const bool storedRefused = stored.credential && skip > 0;
    if (stored.credential) {
        if (skip == 0)
            return stored.credential;
        --skip;
    } else if (!stored.error.isEmpty()) {
        *error = stored.error;
        return std::nullopt;
    }
    const QString requestCall = QStringLiteral("request_connection with {\"provider\": \"%1\", \"kind\": \"either\", "
                                               "\"reason\": \"…\"}")
                                    .arg(provider);
    if (skip > 0) {
        *error = QStringLiteral("the remote refused the token of the %1 connection. Ask the person to connect again "
                                "(%2), then call %3 again.")
                     .arg(provider, requestCall, request.tool);
        return std::nullopt;
    }
    // 3. Ask the person, when the client waits for answers (again, when the remote refused the
    // stored connection: the person may have revoked or replaced its token).
    if (!request.mayAskPerson) {
        if (personNeeded)
            *personNeeded = true;
        *error = QStringLiteral("a connection to %1 is needed from a person.").arg(provider);
        return std::nullopt;
    }
    const CallMetadata metadata = context.metadata();
    Outcome asked = waitOnHome(context, [this, provider, request, metadata, storedRefused](auto done, auto pending) {
        askPerson(provider, request, metadata, storedRefused, std::move(pending), std::move(done));
    });
    if (asked.credential)
        return asked.credential;
    *error = asked.error.isEmpty() ? QStringLiteral("no connection to %1.").arg(provider) : asked.error;
    if (context.isCancelled())
        *error = QStringLiteral("the call was cancelled while it waited for a connection to %1.").arg(provider);
    return std::nullopt;
}

ConnectionCredentialSource::Outcome ConnectionCredentialSource::waitOnHome(ToolCallContext& context,
    std::function<void(std::function<void(Outcome)> done, std::shared_ptr<Pending> pending)> work)
{
    auto pending = std::make_shared<Pending>();
    std::weak_ptr<ConnectionCredentialSource> weakSelf = weak_from_this();
    auto done = [weakSelf, pending](Outcome outcome) {
        const auto self = weakSelf.lock();
        if (!self)
            return;
        std::lock_guard lock(self->m_mutex);
        if (pending->outcome.answered)
            return;
        pending->outcome = std::move(outcome);
        pending->outcome.answered = true;
        self->m_changed.notify_all();
    };
    {
        std::lock_guard lock(m_mutex);
        if (m_closed)
            return Outcome{std::nullopt, QStringLiteral("Switchboard is shutting down."), true};
    }
    if (!m_home->post([work, done, pending] { work(done, pending); }))
        return Outcome{std::nullopt, QStringLiteral("Switchboard is shutting down."), true};
    std::unique_lock lock(m_mutex);
    while (!pending->outcome.answered && !m_closed && !context.isCancelled())
        m_changed.wait_for(lock, std::chrono::milliseconds(100));
    if (pending->outcome.answered)
        return pending->outcome;
    pending->outcome.answered = true; // a late answer is dropped
    lock.unlock();
    if (context.isCancelled()) {
        // The question (if one was raised) goes with the call.
        m_home->post([this, pending] {
            if (!pending->interactionId.isEmpty() && m_broker)
                m_broker->withdraw(pending->interactionId, QStringLiteral("the git call was cancelled"));
        });
        return Outcome{std::nullopt, QStringLiteral("cancelled"), true};
    }
    return Outcome{std::nullopt, QStringLiteral("Switchboard is shutting down."), true};
}

void ConnectionCredentialSource::loadConnection(const QString& provider, std::function<void(Outcome)> done)
{
    if (!m_secrets) {
        done(Outcome{std::nullopt, QStringLiteral("no secret store is available."), true});
        return;
    }
    std::weak_ptr<ConnectionCredentialSource> weakSelf = weak_from_this();
    m_secrets->load(connectionPointerKey(provider),
        [weakSelf, provider, done](std::optional<QByteArray> pointer, const QString& error) {
            const auto self = weakSelf.lock();
            if (!self || !self->m_secrets) {
                done(Outcome{std::nullopt, QStringLiteral("Switchboard is shutting down."), true});
                return;
            }
            if (!error.isEmpty()) {
                done(Outcome{std::nullopt,
                    QStringLiteral("the stored %1 connection could not be read: %2").arg(provider, error), true});
                return;
            }
            if (!pointer || pointer->isEmpty()) {
                done(Outcome{}); // no connection: not an error
                return;
            }
            const QString secretKey = QString::fromUtf8(*pointer);
            // "apikey/PROVIDER/ACCOUNT" or "oauth/PROVIDER/ACCOUNT": the account is the user name.
            const QString account = secretKey.section(QLatin1Char('/'), 2);
            self->m_secrets->load(
                secretKey, [provider, account, done](std::optional<QByteArray> secret, const QString& secretError) {
                    if (!secretError.isEmpty()) {
                        done(Outcome{std::nullopt,
                            QStringLiteral("the stored %1 connection could not be read: %2").arg(provider, secretError),
                            true});
                        return;
                    }
                    if (!secret || secret->isEmpty()) {
                        done(Outcome{});
                        return;
                    }
                    const QString user = account == QLatin1String("api key") ? QString() : account;
                    done(Outcome{GitCredential{user, tokenFromSecret(*secret),
                                     QStringLiteral("the %1 connection (%2)").arg(provider, account)},
                        QString(), true});
                });
        });
}

void ConnectionCredentialSource::askPerson(const QString& provider, const Request& request,
    const CallMetadata& metadata, bool storedRefused, std::shared_ptr<Pending> pending,
    std::function<void(Outcome)> done)
{
    const QString requestCall
        = QStringLiteral("call request_connection with {\"provider\": \"%1\", \"kind\": \"either\", \"reason\": \"…\"}")
              .arg(provider);
    const auto tool = m_registry ? m_registry->find("request_connection") : nullptr;
    if (!m_broker || !tool) {
        done(Outcome{std::nullopt,
            QStringLiteral("there is no stored connection to %1, and this backend cannot ask for one. Connect %1 "
                           "in the console first.")
                .arg(provider),
            true});
        return;
    }
    if (m_broker->modeFor(metadata.clientName) == PauseMode::Park) {
        done(Outcome{std::nullopt,
            QStringLiteral("there is no stored connection to %1. First %2 (the person connects in the Switchboard "
                           "console), then call %3 again.")
                .arg(provider, requestCall, request.tool),
            true});
        return;
    }
    const json arguments{{"provider", provider.toStdString()}, {"kind", "either"},
        {"reason",
            QString(QStringLiteral("%1 needs a connection to %2 (%3)").arg(request.tool, request.host, request.url)
                + (storedRefused
                        ? QStringLiteral("; the remote refused the token of the stored %1 connection").arg(provider)
                        : QString()))
                .toStdString()}};
    const json call{{"jsonrpc", "2.0"}, {"method", "tools/call"},
        {"params", {{"name", "request_connection"}, {"arguments", arguments}}}};
    const InteractionBroker::CallOrigin origin{metadata.callId, metadata.sessionId, metadata.clientName,
        metadata.clientVersion, QByteArray::fromStdString(call.dump()), QString()};
    InteractionBroker::Admission admission = m_broker->admit(*tool, arguments, origin);
    if (admission.verdict == InteractionBroker::Admission::Verdict::Answer) {
        // An earlier answer of this client's: connected already (the secret is stored) or declined.
        const json output = admission.result.structuredContent;
        if (output.is_object() && output.value("connected", false)) {
            loadConnection(provider, done);
            return;
        }
        done(Outcome{std::nullopt,
            QStringLiteral("the person declined to connect %1. Ask them again (%2), then call %3 again.")
                .arg(provider, requestCall, request.tool),
            true});
        return;
    }
    if (admission.verdict != InteractionBroker::Admission::Verdict::Pause) {
        done(Outcome{std::nullopt, admission.result.firstText(), true});
        return;
    }
    admission.mode = PauseMode::Hold;
    InteractionBroker::Waiter waiter;
    std::weak_ptr<ConnectionCredentialSource> weakSelf = weak_from_this();
    waiter.answered
        = [weakSelf, provider, request, requestCall, done](const InteractionAnswer& answer, const QByteArray&) {
              const auto self = weakSelf.lock();
              if (!self)
                  return;
              const json output = BoundedJson::parse(answer.output, BoundedJson::Limits::message()).value;
              if (answer.decision == InteractionAnswer::Decision::Respond && output.is_object()
                  && output.value("connected", false)) {
                  self->loadConnection(provider, [provider, request, done](Outcome outcome) {
                      if (!outcome.credential && outcome.error.isEmpty())
                          outcome.error
                              = QStringLiteral("the person connected %1, but its secret was not found.").arg(provider);
                      done(std::move(outcome));
                  });
                  return;
              }
              done(Outcome{std::nullopt,
                  QStringLiteral("the person declined to connect %1. Ask them again (%2), then call %3 again.")
                      .arg(provider, requestCall, request.tool),
                  true});
          };
    waiter.timedOut = [provider, request, requestCall, done] {
        done(Outcome{std::nullopt,
            QStringLiteral("no one connected %1 in time. %2, then call %3 again.")
                .arg(provider, requestCall, request.tool),
            true});
    };
    pending->interactionId = m_broker->hold(*tool, arguments, admission, origin, std::move(waiter));
}

void ConnectionCredentialSource::shutdown()
{
    std::lock_guard lock(m_mutex);
    m_closed = true;
    m_secrets = nullptr;
    m_broker = nullptr;
    m_registry = nullptr;
    m_changed.notify_all();
}
