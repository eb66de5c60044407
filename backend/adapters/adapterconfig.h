#pragma once

// AdapterConfig: one upstream MCP server ("adapter") as the configuration's `mcp_endpoints` list
// declares it. Its tools are offered as `name.tool`; `read_only` lets only tools annotated
// readOnlyHint through; the breaker's settings say when it stops sending calls upstream.
//
//   mcp_endpoints:
//     - name: filesystem             # letters, digits, '_' and '-' (no '.': it separates the tool)
//       endpoint: http://mcp-filesystem:8080   # no path: /mcp, the Streamable HTTP endpoint's usual one
//       auth_token: ${MCP_FS_TOKEN}  # ${VAR} from the environment; an unset one is an error
//       read_only: true              # default false
//       enabled: true                # default true
//       timeout: 30                  # seconds per upstream request, default 30
//       circuit_breaker:
//         failure_threshold: 5       # consecutive failures that open it, default 5
//         recovery_timeout: 30       # seconds open before trial calls, default 30
//         half_open_max_calls: 1     # trial calls at a time, default 1

#include "adapters/circuitbreaker.h"

#include <QString>
#include <QUrl>

struct AdapterConfig
{
    static constexpr int DefaultTimeoutSeconds = 30;

    QString name;
    QUrl endpoint;
    QString authToken; // sent as "Authorization: Bearer"; never shown
    bool readOnly = false;
    bool enabled = true;
    // elicitation: client: what the upstream asks (an elicitation, an input_required) goes to the
    // calling client's own user when it can be asked (a 2026-07-28 client carried by a task that
    // declared elicitation); otherwise, and with console (the default), to the Questions queue.
    bool elicitationByClient = false;
    std::chrono::milliseconds timeout{DefaultTimeoutSeconds * 1000};
    CircuitBreaker::Settings breaker;

    // Whether `name` can name an adapter: non-empty, at most 64 of [A-Za-z0-9_-].
    static bool isValidName(const QString& name);
    // The URL requests go to: `endpoint`, with the path /mcp when it has none (`http://host:port`,
    // as configurations usually write it; `http://host:port/` names the root itself).
    static QUrl effectiveEndpoint(const QUrl& endpoint);
};
