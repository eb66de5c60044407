#pragma once

// SessionHost: what every session of one server shares, whichever way its messages come: the
// router, the executor and the SessionEnvironment; and the sessions of callers inside the process
// (the one-shot runner), which need no HTTP. McpHttpServer serves its sessions over HTTP through
// one; a Backend that does not listen has one of its own (an HTTP server's construction alone
// loads Qt's TLS backend, which a one-shot process should not pay for). Lives on the backend thread.

#include "transport/mcpserveroptions.h"
#include "transport/mcpsession.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <unordered_map>

class BackendEvents;
class HistoryFeed;
class InteractionBroker;
class ToolExecutor;
class ToolRegistry;
class ToolRouter;

class SessionHost
{
public:
    SessionHost(const McpServerOptions& options, ToolRegistry* registry, BackendEvents* events, qint64 firstCallId);
    // Ends the local sessions (their calls are cancelled) and the executor.
    ~SessionHost();
    SessionHost(const SessionHost&) = delete;
    SessionHost& operator=(const SessionHost&) = delete;

    // Whether a session id names one of openLocalSession()'s sessions (the one-shot runner's): such
    // a session ends with its process, so nothing can be granted to it for later calls. The kind
    // is read by sessionKindOf (protocol/sessionkind.h), which layers below the transport use.
    static bool isLocalSessionId(const QString& sessionId);
    // The session of one stateless (2026-07-28) request: it ends with the request's answer, so
    // nothing can be granted to it either. `random` is McpHttpServer's random part.
    static QByteArray requestSessionId(const QByteArray& random);
    static bool isRequestSessionId(const QString& sessionId);

    SessionEnvironment& environment() { return m_environment; }
    ToolExecutor& executor() { return *m_executor; }
    void setInteractionBroker(InteractionBroker* broker) { m_environment.interactions = broker; }
    void setHistoryFeed(HistoryFeed* feed) { m_environment.history = feed; }

    // A session for a caller inside this process: no transport and no session id a client could
    // use; its calls go through the same router, permissions, executor and call log as a client's
    // and carry `invocation` (McpSession::setLocalCaller). Ends with closeLocalSession() or shutdown().
    McpSession* openLocalSession(const QString& clientName, const QString& clientVersion, nlohmann::json invocation);
    // Ends the session: its calls in flight are cancelled and the questions they wait on withdrawn.
    void closeLocalSession(McpSession* session, const QString& reason);
    // The server stops: local calls in flight are cancelled (their questions stay pending), then the
    // executor stops, waiting a bounded time for workers.
    void shutdown();

private:
    std::unique_ptr<ToolRouter> m_router;
    std::unique_ptr<ToolExecutor> m_executor;
    SessionEnvironment m_environment;
    qint64 m_nextCallId;
    std::unordered_map<McpSession*, std::unique_ptr<McpSession>> m_localSessions;
};
