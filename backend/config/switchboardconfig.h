#pragma once

// SwitchboardConfig: the operator's configuration file (YAML). Every key is optional; a missing
// file means the defaults. Unknown keys are reported (they are usually typos), never silently
// ignored.
//
//   server:
//     port: 8765
//     bind: 127.0.0.1
//     allowedOrigins: [https://inspector.example]
//     allowedHosts: [switchboard.local]
//     maxBodyBytes: 4194304
//     toolsPageSize: 100
//     maxSessions: 256
//   console:
//     callLogRows: 10000
//     callLogBytes: 67108864
//   history:
//     maxCalls: 500000
//     maxBytes: 1073741824       # what the stored calls may hold together (16 MiB-1 TiB)
//   interaction:                 # calls that wait for a person (client tools, approvals)
//     mode: hold                 # hold (keep the call open), park (close it; answer the retry) or
//                                # task (2026-07-28 clients must declare the Tasks extension)
//     clients: {agent-runner: park}   # per client, by the name in its clientInfo
//   tasks:                       # 2026-07-28 calls carried by the Tasks extension
//     promoteAfterMs: 1000       # a call still running this long becomes a task
//     ttlSeconds: 3600           # a task's lifetime from its creation; then failed, then removed
//     pollIntervalMs: 1000       # suggested to clients polling tasks/get
//     maxTasks: 10000            # kept at once, every client together
//     maxBytes: 268435456        # their records in the workspace state, together
//     maxWaitSeconds: 600
//     progressIntervalSeconds: 10
//     maxPendingQuestions: 1000  # more are refused with a tool error
//   execution:                   # how tools run (ToolExecutor)
//     workers: 16                # blocking tool calls that run at once; more wait in a queue
//     maxQueuedCalls: 1000       # blocking calls waiting for a worker; more get a tool error
//     defaultDeadlineSeconds: 600   # a call running longer ends with a tool error
//     heartbeatSeconds: 5        # a silent running call gets progress or a keep-alive comment
//     deadlines: {git_clone_repository: 1800}   # per tool, in seconds
//   permissions:                 # allow, ask or deny; default: read-only tools allow, others ask
//     default: ask
//     tools: {echo: allow}
//     adapters: {github: ask}
//     sinks: {slack: deny}
//   clientTools:                 # more tools a person answers, besides request_connection
//     - name: choose_branch
//       description: Ask the operator which branch to use
//       inputSchema: {type: object, properties: {question: {type: string}}}
//       render: choice           # connect, confirm, choice or form
//       choices: [main, develop]
//       answeredBy: console      # or client: the client's own user, through input_required
//   oauthProviders:              # what the connect widget offers for OAuth (see OAuthProvider)
//     - name: github
//       title: GitHub
//       authorizationUrl: https://github.com/login/oauth/authorize
//       tokenUrl: https://github.com/login/oauth/access_token
//       clientId: Iv1.0123456789abcdef
//       clientSecret: …          # optional: public clients have none and rely on PKCE
//       scopes: [read:user]
//       userinfoUrl: https://api.github.com/user
//       accountField: login      # default: email, preferred_username, login, name, sub
//       authorizationParameters: {allow_signup: "false"}
//   git:                         # the git tools (see GitSettings)
//     roots: [/srv/work]         # where repositories may be; plus ASSISTOS_FS_ROOT, WORKSPACE_ROOT,
//                                # PLOINKY_WORKSPACE_ROOT from the environment
//     schemes: [https, ssh, git] # remote URL schemes (http only when listed)
//     allowLocalRemotes: false   # file:// URLs and absolute local paths (inside the roots) as remotes
//     timeoutSeconds: 300        # clone, push and pull end with an error after this long
//     credentials: {github.com: github}   # remote host → the provider whose connection is used
//   mcp_endpoints:               # upstream MCP servers (see AdapterConfig); snake_case keys
//     - name: filesystem
//       endpoint: http://mcp-filesystem:8080
//       auth_token: ${MCP_FS_TOKEN}
//       read_only: true
//       elicitation: console     # or client: what it asks goes to a 2026-07-28 task client's user
//   sinks:                       # where tools send output, as `name.op` (see SinkConfig)
//     - name: notes
//       type: file                 # file, jsonl or webhook; each type has keys of its own
//       root: /srv/notes
//   command_tools:               # tools backed by an executable, a process per call (see CommandToolConfig)
//     - name: word_count
//       command: /usr/local/bin/wc-tool
//       args: [--json]
//       env: {LANG: C.UTF-8}
//       timeout: 60
//   secrets:                     # where credentials entered in the console go (SecretStore);
//     store: keychain            # keychain (default) or file: an owner-only (0600) JSON file, not
//     file: /path/secrets.json   # encrypted, default <state-dir>/secrets.json. `secrets: file` is short.

#include "adapters/adapterconfig.h"
#include "auth/oauthprovider.h"
#include "commands/commandtoolconfig.h"
#include "git/gitsettings.h"
#include "interaction/clienttoolconfig.h"
#include "sinks/sinkconfig.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

// An operator credential of `operator.tokens`: who answers through the operator API, and what they
// may do there. Only the token's digest is in the file.
struct OperatorTokenConfig
{
    QString name; // recorded with every answer it gives, as "operator:<name>"
    QString role; // viewer, answerer or admin
    QByteArray sha256; // the 32 bytes of the token's SHA-256
};

struct SwitchboardConfig
{
    quint16 port = 8765;
    QString bindAddress = QStringLiteral("127.0.0.1");
    QStringList allowedOrigins;
    QStringList allowedHosts;
    // server.tls: both listeners (MCP and operator API) speak TLS with this PEM certificate (chain)
    // and key; empty: plain HTTP.
    QString tlsCertificate;
    QString tlsKey;
    qint64 maxBodyBytes = 4 * 1024 * 1024;
    int toolsPageSize = 100;
    int maxSessions = 256;
    int callLogRows = 10'000;
    qint64 callLogBytes = qint64(64) * 1024 * 1024; // what the live log's rows may hold in memory
    qint64 historyMaxCalls = 500'000;
    qint64 historyMaxBytes = qint64(1) << 30;

    // interaction
    QString interactionMode = QStringLiteral("hold");
    QMap<QString, QString> clientModes; // client name → hold | park | task
    // tasks
    int taskPromoteAfterMs = 1'000;
    int taskTtlSeconds = 3'600;
    int taskPollIntervalMs = 1'000;
    int maxTasks = 10'000;
    qint64 maxTaskBytes = qint64(256) * 1024 * 1024;
    int maxWaitSeconds = 600;
    int progressIntervalSeconds = 10;
    int maxPendingQuestions = 1'000;
    // execution
    int executionWorkers = 16;
    int executionMaxQueuedCalls = 1'000;
    int defaultDeadlineSeconds = 600;
    int heartbeatSeconds = 5;
    QMap<QString, int> toolDeadlineSeconds;
    // permissions: allow | ask | deny; an empty default means "by the tool's readOnlyHint"
    QString defaultPermission;
    QMap<QString, QString> toolPermissions;
    QMap<QString, QString> adapterPermissions;
    QMap<QString, QString> sinkPermissions;
    std::vector<ClientToolConfig> clientTools;
    QList<OAuthProvider> oauthProviders;

    // secrets: the desktop keychain, or the owner-only file the operator chose instead.
    enum class SecretStorage { Keychain, OwnerOnlyFile };
    SecretStorage secretStorage = SecretStorage::Keychain;
    QString secretsFile; // absolute; empty means <state-dir>/secrets.json

    GitSettings git;
    QList<AdapterConfig> adapters; // mcp_endpoints, in the file's order
    std::vector<SinkConfig> sinks; // in the file's order
    std::vector<CommandToolConfig> commandTools; // command_tools, in the file's order

    // operator: the operator API's credentials beyond the default one (SWITCHBOARD_OPERATOR_TOKEN or
    // <state-dir>/operator-token, an admin) and its event streams open at most at once.
    QList<OperatorTokenConfig> operatorTokens;
    int operatorMaxStreams = 64;
    std::optional<quint16> operatorPort; // operator.port: the API's own port; unset: /operator/ on the MCP port

    QStringList warnings; // unknown keys and the like, for the operator

    // Reads `path`. A file that does not exist yields the defaults; a file that cannot be read or
    // parsed, or holds a value of the wrong type, is an error naming the file, line and key.
    static bool load(const QString& path, SwitchboardConfig* config, QString* error);
};
