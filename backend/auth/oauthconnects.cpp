#include "auth/oauthconnects.h"

#include "auth/oauthconnector.h"
#include "auth/oauthresult.h"
#include "auth/secretstore.h"

#include <QPointer>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <chrono>

OAuthConnects::OAuthConnects(QList<OAuthProvider> providers, SecretStore* secrets, Settings settings, QObject* parent)
    : QObject(parent)
    , m_providers(std::move(providers))
    , m_secrets(secrets)
    , m_settings(settings)
{}

OAuthConnects::~OAuthConnects()
{
    std::vector<quint64> serials;
    for (const auto& flow : m_flows)
        serials.push_back(flow.first);
    for (quint64 serial : serials)
        erase(serial);
}

const OAuthProvider* OAuthConnects::provider(const QString& name) const
{
    for (const OAuthProvider& candidate : m_providers) {
        if (candidate.name == name)
            return &candidate;
    }
    return nullptr;
}

OAuthConnects::Flow* OAuthConnects::flowOfCall(qint64 callId) const
{
    const auto filed = m_byCall.find(callId);
    if (filed == m_byCall.end())
        return nullptr;
    const auto flow = m_flows.find(filed->second);
    return flow == m_flows.end() ? nullptr : flow->second.get();
}

QUrl OAuthConnects::start(
    qint64 callId, const QString& identity, const OAuthProvider& provider, const QStringList& scopes, QString* error)
{
    if (int(m_flows.size()) >= m_settings.maxFlows) {
        *error = QStringLiteral("too many sign-ins are running for clients (%1)").arg(m_settings.maxFlows);
        return {};
    }
    auto flow = std::make_unique<Flow>();
    const quint64 serial = m_nextSerial++;
    flow->serial = serial;
    flow->callId = callId;
    flow->identity = identity;
    flow->outcome.provider = provider.name;
    auto* connector = new OAuthConnector(provider, this);
    flow->connector = connector;
    if (!scopes.isEmpty())
        connector->setScopes(scopes);
    connector->setTimeout(std::chrono::milliseconds(m_settings.lifetimeMs));
    flow->expiry = new QTimer(this);
    flow->expiry->setSingleShot(true);
    connect(flow->expiry, &QTimer::timeout, this, [this, serial] { erase(serial); });
    flow->expiry->start(std::chrono::milliseconds(m_settings.lifetimeMs));
    connect(connector, &OAuthConnector::connected, this, [this, serial](const OAuthResult& result) {
        // The same secret the console's connect widget keeps; the client hears only who signed in.
        const nlohmann::json tokens{{"access_token", result.accessToken.toStdString()},
            {"refresh_token", result.refreshToken.toStdString()},
            {"expires_at", result.expiresAt.isValid() ? result.expiresAt.toString(Qt::ISODate).toStdString() : ""},
            {"scopes", result.scopes.join(QLatin1Char(' ')).toStdString()}};
        keepConnection(serial, result.provider, result.account,
            QStringLiteral("oauth/%1/%2").arg(result.provider, result.account),
            QByteArray::fromStdString(tokens.dump()));
    });
    connect(connector, &OAuthConnector::failed, this, [this, serial](const OAuthFailure& failure) {
        Outcome outcome;
        outcome.state = Outcome::State::Failed;
        outcome.reason = OAuthFailure::reasonName(failure.reason);
        outcome.message = failure.message;
        settle(serial, std::move(outcome));
    });
    m_flows.emplace(serial, std::move(flow));
    m_byCall[callId] = serial;
    connector->start(); // the URL comes at once, or the flow failed at once
    const auto it = m_flows.find(serial);
    if (it == m_flows.end() || it->second->outcome.state == Outcome::State::Failed
        || connector->authorizationUrl().isEmpty()) {
        *error = it != m_flows.end() && !it->second->outcome.message.isEmpty()
            ? it->second->outcome.message
            : QStringLiteral("the sign-in could not start");
        erase(serial);
        return {};
    }
    it->second->url = connector->authorizationUrl();
    return it->second->url;
}

void OAuthConnects::keepConnection(
    quint64 serial, const QString& provider, const QString& account, const QString& secretKey, const QByteArray& secret)
{
    const auto fail = [this, serial](const QString& message) {
        Outcome outcome;
        outcome.state = Outcome::State::Failed;
        outcome.reason = QStringLiteral("error");
        outcome.message = message;
        settle(serial, std::move(outcome));
    };
    if (!m_secrets) {
        fail(QStringLiteral("Not connected: there is no secret store to keep the connection in."));
        return;
    }
    QPointer<OAuthConnects> self(this);
    m_secrets->save(
        secretKey, secret, [self, serial, provider, account, secretKey, fail](bool ok, const QString& error) {
            if (!self)
                return;
            if (!ok) {
                fail(QStringLiteral("Not connected: the secret could not be saved. %1").arg(error));
                return;
            }
            // The provider's newest connection, for tools that use it later: the key of the secret.
            self->m_secrets->save(SecretStore::connectionPointerKey(provider), secretKey.toUtf8(),
                [self, serial, provider, account](bool pointerSaved, const QString& pointerError) {
                    if (!pointerSaved)
                        qWarning("The %s connection was saved, but not marked as the newest: %s", qPrintable(provider),
                            qPrintable(pointerError));
                    if (!self)
                        return;
                    Outcome outcome;
                    outcome.state = Outcome::State::Connected;
                    outcome.provider = provider;
                    outcome.account = account;
                    self->settle(serial, std::move(outcome));
                });
        });
}

void OAuthConnects::settle(quint64 serial, Outcome outcome)
{
    const auto it = m_flows.find(serial);
    if (it == m_flows.end() || it->second->outcome.state != Outcome::State::Pending)
        return;
    Flow& flow = *it->second;
    if (outcome.provider.isEmpty())
        outcome.provider = flow.outcome.provider;
    flow.outcome = std::move(outcome);
    if (flow.connector) {
        flow.connector->disconnect(this);
        flow.connector->deleteLater();
        flow.connector = nullptr;
    }
    // A waiter may forget this flow: they are taken out before any runs.
    const std::vector<std::function<void()>> waiters = std::exchange(flow.waiters, {});
    for (const auto& waiter : waiters)
        waiter();
}

std::optional<OAuthConnects::Outcome> OAuthConnects::outcome(qint64 callId, const QString& identity) const
{
    const Flow* flow = flowOfCall(callId);
    if (!flow || flow->identity != identity)
        return std::nullopt;
    return flow->outcome;
}

QUrl OAuthConnects::authorizationUrl(qint64 callId) const
{
    const Flow* flow = flowOfCall(callId);
    return flow ? flow->url : QUrl();
}

void OAuthConnects::whenSettled(qint64 callId, std::function<void()> settled)
{
    Flow* flow = flowOfCall(callId);
    if (!flow)
        return;
    if (flow->outcome.state != Outcome::State::Pending) {
        settled();
        return;
    }
    flow->waiters.push_back(std::move(settled));
}

void OAuthConnects::refile(qint64 from, qint64 to)
{
    const auto filed = m_byCall.find(from);
    if (filed == m_byCall.end())
        return;
    const quint64 serial = filed->second;
    m_byCall.erase(filed);
    m_byCall[to] = serial;
    if (Flow* flow = flowOfCall(to)) {
        flow->callId = to;
        flow->expiry->start(std::chrono::milliseconds(m_settings.lifetimeMs));
    }
}

void OAuthConnects::forget(qint64 callId)
{
    const auto filed = m_byCall.find(callId);
    if (filed != m_byCall.end())
        erase(filed->second);
}

void OAuthConnects::erase(quint64 serial)
{
    const auto it = m_flows.find(serial);
    if (it == m_flows.end())
        return;
    std::unique_ptr<Flow> flow = std::move(it->second);
    m_flows.erase(it);
    m_byCall.erase(flow->callId);
    if (flow->connector) {
        flow->connector->disconnect(this);
        flow->connector->cancel(); // closes the loopback listener, aborts requests in flight
        flow->connector->deleteLater();
    }
    flow->expiry->deleteLater();
}
