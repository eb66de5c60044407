#include "launch.h"

#include "events/backendevents.h"
#include "headlessreporter.h"
#include "store/statedirectory.h"

#include <QCoreApplication>
#include <QFile>
#include <QSocketNotifier>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

#include <csignal>
#include <cstdio>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

int signalPipe[2] = {-1, -1};

} // namespace

// The handler only writes a byte; `handle` runs in the event loop, where anything may be done.
void Launch::onTerminationSignal(QCoreApplication& app, std::function<void()> handle)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signalPipe) != 0)
        return;
    auto* notifier = new QSocketNotifier(signalPipe[1], QSocketNotifier::Read, &app);
    QObject::connect(notifier, &QSocketNotifier::activated, &app, [notifier, handle = std::move(handle)] {
        notifier->setEnabled(false);
        char byte = 0;
        [[maybe_unused]] const auto ignored = ::read(signalPipe[1], &byte, 1);
        handle();
    });
    struct sigaction action = {};
    action.sa_handler = [](int) {
        const char byte = 1;
        [[maybe_unused]] const auto ignored = ::write(signalPipe[0], &byte, 1);
    };
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

namespace {

// Every connection costs a file descriptor, and the usual soft limit (1,024) is far below the hard
// one: raise it, so that the server's connection cap, not the descriptor table, is what a crowd of
// idle clients runs into. The server keeps a reserve below whatever limit results.
void raiseFileDescriptorLimit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max)
        return;
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? rlim_t(1) << 20 : limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
        std::perror("switchboard: warning: cannot raise the open-files limit");
}

bool isLoopback(const QHostAddress& address)
{
    return address.isLoopback();
}

} // namespace

void Launch::prepareProcess()
{
    // Qt's own poll-based event dispatcher rather than GLib's: GLib wakes its loop through an
    // eventfd whenever a socket notifier is switched on or off, which costs the backend thread two
    // extra system calls per HTTP request. Set QT_NO_GLIB yourself to choose otherwise.
    if (!qEnvironmentVariableIsSet("QT_NO_GLIB"))
        qputenv("QT_NO_GLIB", "1");
    raiseFileDescriptorLimit();
}

bool Launch::hasArgument(int argc, char** argv, std::initializer_list<const char*> names)
{
    for (int i = 1; i < argc; ++i) {
        for (const char* name : names) {
            if (qstrcmp(argv[i], name) == 0)
                return true;
        }
    }
    return false;
}

bool Launch::displayAvailable()
{
    // Set but empty (DISPLAY= in a script) names no display either: QApplication would abort on it.
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

std::optional<BackendOptions> Launch::backendOptions(
    const CommandLine& line, const SwitchboardConfig& config, QString* error)
{
    BackendOptions options;
    options.stateDirectory = line.stateDirectory;
    options.historyMaxCalls = config.historyMaxCalls;
    options.config = config;
    options.configPath = line.configFile;
    McpServerOptions& server = options.server;
    server.port = line.port.value_or(config.port);
    server.operatorPort = line.operatorPort ? line.operatorPort : config.operatorPort;
    const QString bind = line.bindAddress.isEmpty() ? config.bindAddress : line.bindAddress;
    if (!server.address.setAddress(bind)) {
        *error = QStringLiteral("%1 is not an IP address to listen on").arg(bind);
        return std::nullopt;
    }
    if (!config.tlsCertificate.isEmpty()) {
        std::optional<QSslConfiguration> tls = Launch::tlsConfiguration(config.tlsCertificate, config.tlsKey, error);
        if (!tls)
            return std::nullopt;
        server.tls = *tls;
    }
    server.allowedOrigins = config.allowedOrigins;
    server.allowedHosts = config.allowedHosts;
    server.limits.maxBodyBytes = config.maxBodyBytes;
    server.toolsPageSize = config.toolsPageSize;
    server.maxSessions = config.maxSessions;
    server.heartbeatIntervalMs = config.heartbeatSeconds * 1000;
    server.taskPromoteAfterMs = config.taskPromoteAfterMs;
    server.executor.workerThreads = config.executionWorkers;
    server.executor.maxQueuedCalls = config.executionMaxQueuedCalls;
    server.executor.defaultDeadlineMs = qint64(config.defaultDeadlineSeconds) * 1000;
    for (auto it = config.toolDeadlineSeconds.cbegin(); it != config.toolDeadlineSeconds.cend(); ++it)
        server.executor.toolDeadlinesMs.insert(it.key(), qint64(it.value()) * 1000);
    options.debugTools = line.debugTools;
    server.identity.version = QStringLiteral(SWITCHBOARD_VERSION);
    server.identity.instructions
        = QStringLiteral("Switchboard is an operator console: every tool call you make here is shown live to a person. "
                         "Call echo to check that your wiring works.");

    return options;
}

std::optional<QSslConfiguration> Launch::tlsConfiguration(
    const QString& certificatePath, const QString& keyPath, QString* error)
{
    const QList<QSslCertificate> chain = QSslCertificate::fromPath(certificatePath, QSsl::Pem);
    if (chain.isEmpty()) {
        *error = QStringLiteral("server.tls.certificate: %1 holds no PEM certificate").arg(certificatePath);
        return std::nullopt;
    }
    QFile keyFile(keyPath);
    if (!keyFile.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("server.tls.key: cannot read %1: %2").arg(keyPath, keyFile.errorString());
        return std::nullopt;
    }
    const QByteArray pem = keyFile.readAll();
    QSslKey key(pem, QSsl::Rsa, QSsl::Pem);
    if (key.isNull())
        key = QSslKey(pem, QSsl::Ec, QSsl::Pem);
    if (key.isNull()) {
        *error = QStringLiteral("server.tls.key: %1 holds no unencrypted PEM key (RSA or EC)").arg(keyPath);
        return std::nullopt;
    }
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificateChain(chain);
    tls.setPrivateKey(key);
    tls.setPeerVerifyMode(QSslSocket::VerifyNone); // clients prove themselves with tokens, not certificates
    tls.setProtocol(QSsl::TlsV1_2OrLater);
    return tls;
}

std::optional<int> Launch::start(QCoreApplication& app, bool noDisplay)
{
    commandLine = CommandLine::parse(app);
    if (!commandLine.attach.isEmpty()) {
        // Only the window attaches; without a display there is none to open.
        std::fprintf(stderr,
            "switchboard: --attach opens a window, and there is no display. From a terminal, answer with "
            "`switchboard questions --attach URL` and `switchboard answer ID ANSWER --attach URL`\n");
        return 2;
    }

    QString error;
    if (!SwitchboardConfig::load(commandLine.configFile, &config, &error)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 2;
    }
    for (const QString& warning : std::as_const(config.warnings))
        std::fprintf(stderr, "switchboard: warning: %s\n", qPrintable(warning));

    std::optional<BackendOptions> built = backendOptions(commandLine, config, &error);
    if (!built) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 2;
    }
    BackendOptions& options = *built;
    McpServerOptions& server = options.server;

    // Before anything is written into it (the token comes first): the state is the operator's alone.
    if (!StateDirectory::prepare(options.stateDirectory, &error)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 2;
    }

    ServerToken token;
    if (!commandLine.noAuth) {
        if (!ServerToken::resolve(options.stateDirectory, qgetenv("SWITCHBOARD_TOKEN"), &token, &error)) {
            std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
            return 2;
        }
        server.bearerToken = token.value;
    }
    // The operator's own credential, never the clients': an agent with the MCP token cannot answer
    // its own questions.
    ServerToken operatorToken;
    if (!ServerToken::resolve(options.stateDirectory, qgetenv(ServerToken::Operator.variable), &operatorToken, &error,
            ServerToken::Operator)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 2;
    }
    if (!server.bearerToken.isEmpty() && operatorToken.value == server.bearerToken) {
        std::fprintf(stderr,
            "switchboard: the operator token is the MCP clients' token: anyone who can call tools could answer "
            "their questions. Give %s a value of its own.\n",
            ServerToken::Operator.variable);
        return 2;
    }
    QList<OperatorTokens::Named> namedOperators;
    for (const OperatorTokenConfig& entry : std::as_const(config.operatorTokens))
        namedOperators.append({entry.name, *operatorRoleFromName(entry.role), entry.sha256});
    options.operatorTokens = OperatorTokens(operatorToken.value, namedOperators);
    options.operatorMaxStreams = config.operatorMaxStreams;

    backend = std::make_unique<Backend>(options);
    if (!backend->start(&error)) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(error));
        return 1;
    }
    // SIGINT and SIGTERM end the event loop normally, so history is written and sessions are closed.
    // exit(), not quit(): a QGuiApplication's quit() closes the windows first, and the window asks
    // before closing with questions pending, so a signal left the process running behind a dialog.
    onTerminationSignal(app, [] { QCoreApplication::exit(0); });
    QObject::connect(&app, &QCoreApplication::aboutToQuit, backend.get(), &Backend::stop);

    std::printf("listening on %s\n", backend->serverUrl().toString().toUtf8().constData());
    std::fflush(stdout);
    if (noDisplay)
        std::fprintf(
            stderr, "switchboard: no display found (DISPLAY and WAYLAND_DISPLAY are unset): running headless\n");
    if (commandLine.noAuth)
        std::fprintf(stderr,
            "switchboard: WARNING: --no-auth: any local program can call tools without a token. "
            "Use this for local experiments only.\n");
    else
        std::fprintf(stderr, "switchboard: clients must send 'Authorization: Bearer <token>'; token %s\n",
            qPrintable(token.describeSource()));
    std::fprintf(stderr, "switchboard: operators answer at %s with the operator token %s\n",
        backend->operatorUrl().toString().toUtf8().constData(), qPrintable(operatorToken.describeSource()));
    if (server.tls)
        std::fprintf(stderr, "switchboard: serving https with the certificate %s\n", qPrintable(config.tlsCertificate));
    else if (!isLoopback(server.address))
        std::fprintf(stderr,
            "switchboard: WARNING: listening on %s, not loopback: other machines can reach this "
            "server%s, and its tokens and answers cross the network in clear text (no TLS): put it behind a "
            "TLS-terminating proxy or an SSH tunnel.\n",
            qPrintable(server.address.toString()), commandLine.noAuth ? " without any token" : "");

    return std::nullopt;
}

int Launch::runHeadless(QCoreApplication& app)
{
    HeadlessReporter reporter;
    // Directly on the server thread: the reporter only appends to its bounded buffer, so a slow
    // terminal or pipe never piles call batches up in this thread's event queue.
    QObject::connect(
        backend->events(), &BackendEvents::callsUpdated, &reporter, &HeadlessReporter::report, Qt::DirectConnection);
    QObject::connect(backend.get(), &Backend::historyWriteFailed, &reporter,
        [](const QString& message) { std::fprintf(stderr, "switchboard: warning: %s\n", qPrintable(message)); });
    QObject::connect(backend.get(), &Backend::historyCallsLeftOut, &reporter, [](qint64 total) {
        std::fprintf(stderr,
            "switchboard: warning: %lld calls in all are not in history: they were left out while the disk "
            "failed\n",
            static_cast<long long>(total));
    });
    QObject::connect(backend.get(), &Backend::historyNotice, &reporter,
        [](const QString& message) { std::fprintf(stderr, "switchboard: %s\n", qPrintable(message)); });
    QObject::connect(backend.get(), &Backend::workspaceStateProblem, &reporter,
        [](const QString& message) { std::fprintf(stderr, "switchboard: warning: %s\n", qPrintable(message)); });
    QObject::connect(backend.get(), &Backend::workspaceStateNotice, &reporter,
        [](const QString& message) { std::fprintf(stderr, "switchboard: %s\n", qPrintable(message)); });
    QObject::connect(backend.get(), &Backend::workspaceStateRecovered, &reporter,
        [] { std::fprintf(stderr, "switchboard: pending questions and stored answers are saved again\n"); });
    QObject::connect(backend.get(), &Backend::interactionPending, &reporter, &HeadlessReporter::reportPending);
    QObject::connect(backend.get(), &Backend::interactionResolved, &reporter, &HeadlessReporter::reportResolved);
    QObject::connect(backend.get(), &Backend::interactionsListed, &reporter, &HeadlessReporter::reportRestored);
    backend->listInteractions();
    return app.exec();
}
