#include "transport/sessionhost.h"

#include "protocol/sessionkind.h"
#include "tools/toolexecutor.h"
#include "tools/toolrouter.h"

#include <QRandomGenerator>

bool SessionHost::isLocalSessionId(const QString& sessionId)
{
    return sessionKindOf(sessionId) == SessionKind::Local;
}

QByteArray SessionHost::requestSessionId(const QByteArray& random)
{
    return sessionIdOf(SessionKind::Request, random);
}

bool SessionHost::isRequestSessionId(const QString& sessionId)
{
    return sessionKindOf(sessionId) == SessionKind::Request;
}

SessionHost::SessionHost(
    const McpServerOptions& options, ToolRegistry* registry, BackendEvents* events, qint64 firstCallId)
    : m_router(std::make_unique<ToolRouter>(registry))
    , m_executor(std::make_unique<ToolExecutor>(options.executor))
    , m_nextCallId(firstCallId)
{
    m_environment.executor = m_executor.get();
    m_environment.heartbeatIntervalMs = options.heartbeatIntervalMs;
    m_environment.registry = registry;
    m_environment.router = m_router.get();
    m_environment.events = events;
    if (options.nextCallId)
        m_environment.nextCallId = options.nextCallId;
    else
        m_environment.nextCallId = [this] { return m_nextCallId++; };
    m_environment.redactor = TokenRedactor(options.bearerToken);
    m_environment.identity = options.identity;
    m_environment.toolsPageSize = options.toolsPageSize;
    if (options.clock)
        m_environment.clock = options.clock;
}

SessionHost::~SessionHost()
{
    // Sessions publish their cancelled calls through m_environment, so they go first.
    m_localSessions.clear();
    m_executor->shutDown();
}

McpSession* SessionHost::openLocalSession(
    const QString& clientName, const QString& clientVersion, nlohmann::json invocation)
{
    auto session = std::make_unique<McpSession>(
        // Never sent anywhere: it only names the session in call records.
        sessionIdOf(SessionKind::Local, QByteArray::number(QRandomGenerator::global()->generate64(), 16)),
        &m_environment);
    session->setLocalCaller(clientName, clientVersion, std::move(invocation));
    McpSession* raw = session.get();
    m_localSessions.emplace(raw, std::move(session));
    return raw;
}

void SessionHost::closeLocalSession(McpSession* session, const QString& reason)
{
    const auto it = m_localSessions.find(session);
    if (it == m_localSessions.end())
        return;
    // Out of the map before it ends: ending publishes and may call back into this host.
    std::unique_ptr<McpSession> ending = std::move(it->second);
    m_localSessions.erase(it);
    ending->terminate(reason);
}

void SessionHost::shutdown()
{
    // Questions that local calls wait on stay pending; only the calls end.
    std::unordered_map<McpSession*, std::unique_ptr<McpSession>> sessions;
    sessions.swap(m_localSessions);
    for (auto& [raw, session] : sessions)
        session->shutDown();
    sessions.clear();
    m_executor->shutDown();
}
