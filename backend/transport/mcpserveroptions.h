#pragma once

// McpServerOptions: how the MCP server serves: where it listens, whom it lets in, its limits, and
// what its sessions share (executor, identity, call ids). Read by McpHttpServer and SessionHost.

#include "tools/toolexecutor.h"
#include "transport/httplimits.h"
#include "transport/mcpsession.h"

#include <QHostAddress>
#include <QSslConfiguration>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

class ClientTokens;

struct McpServerOptions
{
    static constexpr quint16 DefaultPort = 8765;

    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = DefaultPort; // 0 picks a free port
    // The operator API's own port on the same address (0 picks a free one); unset: it shares `port`
    // under /operator/.
    std::optional<quint16> operatorPort;
    // Both listeners speak TLS with this certificate and key (server.tls); unset: plain HTTP.
    std::optional<QSslConfiguration> tls;
    QByteArray bearerToken; // empty: no authentication (--no-auth)
    QStringList allowedOrigins; // beyond the loopback origins, e.g. "https://inspector.example"
    QStringList allowedHosts; // beyond localhost, 127.0.0.1 and [::1]
    HttpLimits limits;
    int maxJsonDepth = 64;
    int maxJsonValues = 100'000; // values in one request body (objects, arrays, strings, numbers, ...)
    int maxSessions = 256;
    int toolsPageSize = 100;
    int keepAliveIntervalMs = 25'000; // comment lines on idle event streams
    // A call silent for this long gets a heartbeat: progress when its client asked for progress, an
    // event-stream comment otherwise, so proxies and client timeouts do not end it.
    int heartbeatIntervalMs = 5'000;
    ToolExecutor::Settings executor;
    ServerIdentity identity;
    std::function<qint64()> clock; // milliseconds, for session activity; empty: the system clock
    // A 2026-07-28 call of a client that declared the Tasks extension becomes a task when it waits
    // for a person, or when it is still running after this long.
    int taskPromoteAfterMs = 1'000;
    // The key that signs input_required rounds' requestState (created owner-only when missing);
    // empty: a random key in memory, so a restart ends the rounds in progress.
    QString requestStateKeyPath;
    // Named client tokens (beside bearerToken, which stays the shared one); null: none. A request
    // with one is its client's: tasks and input_required rounds belong to the token's name.
    std::shared_ptr<ClientTokens> clientTokens;
    // Gives each call its id (the Backend's CallIdSource); empty: counting up from firstCallId.
    std::function<qint64()> nextCallId;
};
