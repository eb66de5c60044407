#include "core/backend.h"
#include "boundedjson.h"
#include "clientanswer.h"

#include "adapters/adapterregistry.h"
#include "auth/oauthconnector.h"
#include "auth/oauthconnects.h"
#include "auth/secretstore.h"
#include "commands/commandtoolregistry.h"
#include "config/configsettings.h"
#include "events/backendevents.h"
#include "git/connectioncredentialsource.h"
#include "git/gitlibrary.h"
#include "git/gitstatuscache.h"
#include "git/gittoolenvironment.h"
#include "git/gittoolhandlers.h"
#include "git/gittools.h"
#include "git/repositorymonitor.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "operator/operatorapi.h"
#include "operator/operatorfeed.h"
#include "policy/gitpathpolicy.h"
#include "protocol/jsonrpc.h"
#include "sinks/sinkregistry.h"
#include "store/callidsource.h"
#include "store/historyfeed.h"
#include "store/historystore.h"
#include "store/historywriter.h"
#include "store/statedirectory.h"
#include "tools/builtintools.h"
#include "tools/debugtools.h"
#include "tools/homethread.h"
#include "tools/toolregistry.h"
#include "transport/responsechannel.h"
#include "transport/sessionhost.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <utility>

using nlohmann::json;

namespace {

InteractionBroker::Settings interactionSettings(const BackendOptions& options, const QString& statePath)
{
    const SwitchboardConfig& config = options.config;
    InteractionBroker::Settings settings;
    // "task" is for 2026-07-28 clients; a 2025 client under it is held (tasksRequired says the rest).
    const auto mode
        = [](const QString& name) { return name == QStringLiteral("park") ? PauseMode::Park : PauseMode::Hold; };
    const QString task = QStringLiteral("task");
    settings.defaultMode = mode(config.interactionMode);
    settings.tasksRequired = config.interactionMode == task;
    for (auto it = config.clientModes.cbegin(); it != config.clientModes.cend(); ++it) {
        settings.clientModes.insert(it.key(), mode(it.value()));
        if (it.value() == task)
            settings.taskClients.insert(it.key());
    }
    settings.tasks.ttlMs = qint64(config.taskTtlSeconds) * 1000;
    settings.tasks.pollIntervalMs = config.taskPollIntervalMs;
    settings.tasks.maxTasks = config.maxTasks;
    settings.tasks.maxBytes = config.maxTaskBytes;
    // The console's own calls wait for the person at the console, who made them, unless the
    // configuration names the console: parked, the call would end at once for no one to retry.
    if (!settings.clientModes.contains(OperatorInterface::consoleClientName()))
        settings.clientModes.insert(OperatorInterface::consoleClientName(), PauseMode::Hold);
    settings.maxWaitMs = config.maxWaitSeconds * 1000;
    settings.progressIntervalMs = config.progressIntervalSeconds * 1000;
    settings.policy = PermissionPolicy(ConfigSettings::permissionRules(config), options.configPath);
    settings.statePath = statePath;
    settings.redactor = TokenRedactor(options.server.bearerToken);
    settings.maxPending = config.maxPendingQuestions;
    settings.roots = GitPathPolicy(config.git.roots + GitPathPolicy::rootsFromEnvironment()).roots();
    return settings;
}

} // namespace

Backend::Backend(BackendOptions options, QObject* parent)
    : OperatorInterface(parent)
    , m_options(std::move(options))
{
    m_serverThread.setObjectName(QStringLiteral("switchboard-backend"));
    m_historyThread.setObjectName(QStringLiteral("switchboard-history-search"));
}

Backend::~Backend()
{
    stop();
}

QString Backend::workspaceStatePath() const
{
    return QDir(m_options.stateDirectory).filePath(QStringLiteral("workspace.json"));
}

QString Backend::adapterOverridesPath() const
{
    return QDir(m_options.stateDirectory).filePath(QStringLiteral("adapters.json"));
}

QString Backend::historyPath() const
{
    return QDir(m_options.stateDirectory).filePath(QStringLiteral("history.sqlite"));
}

bool Backend::start(QString* error)
{
    if (m_running)
        return true;

    if (!StateDirectory::prepare(m_options.stateDirectory, error))
        return false;
    // Writes on a thread of their own at normal priority; searches on another with a connection of
    // their own, so that no search ever delays a write.
    m_historyWriter = new HistoryWriter(historyPath(), m_options.historyMaxCalls);
    m_historyWriter->setMaxBytes(m_options.config.historyMaxBytes);
    if (!m_historyWriter->start(error)) {
        stop();
        return false;
    }
    // Call ids come in blocks reserved in history, so other writers of it (one-shot runners, another
    // console) never reuse one.
    m_callIds = std::make_unique<CallIdSource>(m_historyWriter);
    if (!m_callIds->start(error)) {
        stop();
        return false;
    }
    connect(m_historyWriter, &HistoryWriter::writeFailed, this, &Backend::historyWriteFailed);
    connect(m_historyWriter, &HistoryWriter::writeRecovered, this, &Backend::historyWriteRecovered);
    connect(m_historyWriter, &HistoryWriter::callsLeftOutChanged, this, &Backend::historyCallsLeftOut);
    connect(m_historyWriter, &HistoryWriter::callsPruned, this, &Backend::historyPruned);
    if (const qint64 leftOut = m_historyWriter->callsLeftOut(); leftOut > 0) {
        // Said once the event loop runs, when the window and the headless log listen.
        QMetaObject::invokeMethod(
            this,
            [this, leftOut] {
                Q_EMIT historyCallsLeftOut(leftOut);
                Q_EMIT historyNotice(QStringLiteral("%1 calls are not in history: they were left out while the disk "
                                                    "failed (%2).")
                                         .arg(leftOut)
                                         .arg(historyPath()));
            },
            Qt::QueuedConnection);
    }
    if (m_options.listen) { // a one-shot runner searches nothing
        m_history = new HistoryStore(historyPath());
        m_history->moveToThread(&m_historyThread);
        m_historyThread.start();
        bool opened = false;
        QMetaObject::invokeMethod(
            m_history, [&] { opened = m_history->open(error, HistoryStore::Role::Reader); },
            Qt::BlockingQueuedConnection);
        if (!opened) {
            stop();
            return false;
        }
        connect(m_history, &HistoryStore::queryFinished, this, &Backend::historyLoaded);
        connect(m_history, &HistoryStore::countFinished, this, &Backend::historyCounted);
    }

    bool listening = false;
    m_serverContext = new QObject;
    m_serverContext->moveToThread(&m_serverThread);
    m_serverThread.start();
    QMetaObject::invokeMethod(
        m_serverContext,
        [&] {
            m_events = new BackendEvents;
            // Follows the hub from its first batch, so that the states published while starting
            // (adapters, repositories) are in what an operator sees first.
            m_feed = new OperatorFeed(m_events,
                OperatorFeed::Sources{
                    [this] { return m_interactions ? m_interactions->pending() : PendingInteractionList(); },
                    [this] { return m_server ? m_server->sessionStates() : SessionStateList(); },
                    [this] { return m_interactions ? m_interactions->permissionEntries() : PermissionEntryList(); },
                    [this, startedAtMs = QDateTime::currentMSecsSinceEpoch()] {
                        return json{{"name", m_options.server.identity.name.toStdString()},
                            {"version", m_options.server.identity.version.toStdString()},
                            {"mcpUrl", m_url.toString().toStdString()}, {"startedAtMs", startedAtMs},
                            {"pid", QCoreApplication::applicationPid()},
                            {"secretStorage", m_secretStorage.toStdString()},
                            // An attached window says whether clients need a token, as this one does.
                            {"requiresToken", requiresToken()},
                            {"stateDirectory", m_options.stateDirectory.toStdString()}};
                    }});
            {
                const std::lock_guard lock(m_serverOutbox->mutex);
                m_serverOutbox->context = m_serverContext;
            }
            m_registry = new ToolRegistry;
            registerBuiltinTools(*m_registry);
            if (m_options.debugTools)
                m_registry->replaceSource(QStringLiteral("debug"), debugTools());
            if (!registerClientTools(error))
                return;
            m_secrets = new SecretStore(ConfigSettings::secretStore(m_options.config), m_options.stateDirectory);
            m_secretStorage = m_secrets->description();
            // The broker writes its state on a thread of its own (WorkspaceStateWriter), never this one
            // and never the history thread, and retries a write that fails.
            m_interactions = new InteractionBroker(interactionSettings(m_options, workspaceStatePath()), m_registry);
            connect(m_interactions, &InteractionBroker::stateWriteFailed, this, [this](const QString& problem) {
                Q_EMIT workspaceStateProblem(
                    QStringLiteral("pending questions and stored answers could not be saved (retrying): %1")
                        .arg(problem));
            });
            connect(m_interactions, &InteractionBroker::stateWriteRecovered, this, &Backend::workspaceStateRecovered);
            connect(m_interactions, &InteractionBroker::stateNotice, this, &Backend::workspaceStateNotice);
            // The stores change with every stored answer taken; the window hears of grants only when
            // they changed.
            connect(m_interactions, &InteractionBroker::storesChanged, m_interactions,
                [this, sent = std::make_shared<PermissionEntryList>()] {
                    PermissionEntryList entries = m_interactions->permissionEntries();
                    if (entries == *sent)
                        return;
                    *sent = entries;
                    m_feed->publishGrants(entries);
                    QMetaObject::invokeMethod(this, [this, entries] { Q_EMIT grantsChanged(entries); });
                });
            registerGitTools();
            registerSinks(m_options.config.sinks);
            registerCommandTools(m_options.config.commandTools);
            registerAdapters();
            QString stateWarning;
            const InteractionBroker::LoadResult loaded = m_interactions->load(&stateWarning);
            if (loaded == InteractionBroker::LoadResult::SetAside)
                QMetaObject::invokeMethod(this, [this, stateWarning] { Q_EMIT workspaceStateNotice(stateWarning); });
            else if (loaded == InteractionBroker::LoadResult::NotSaved)
                QMetaObject::invokeMethod(this, [this, stateWarning] { Q_EMIT workspaceStateProblem(stateWarning); });
            // Questions go through the event hub like calls: a burst of changes to one question is
            // one update for the window.
            connect(m_interactions, &InteractionBroker::interactionPending, m_events,
                &BackendEvents::publishQuestionRaised);
            connect(m_interactions, &InteractionBroker::interactionChanged, m_events,
                &BackendEvents::publishQuestionChanged);
            connect(m_interactions, &InteractionBroker::interactionResolved, m_events,
                &BackendEvents::publishQuestionResolved);
            // One-shot runners (switchboard tool) share the state file: the console shows the
            // questions they park and forgets the answers they take as it happens. A runner itself
            // learns what others did when it writes.
            if (m_options.listen)
                m_interactions->watchState();
            McpServerOptions serverOptions = m_options.server;
            serverOptions.nextCallId = [ids = m_callIds.get()] { return ids->next(); };
            if (!m_options.stateDirectory.isEmpty()) {
                serverOptions.requestStateKeyPath
                    = QDir(m_options.stateDirectory).filePath(QStringLiteral("request-state.key"));
                // /mcp also opens to the named client tokens, and a client's identity is its token's name.
                serverOptions.clientTokens = m_clientTokens;
            }
            if (m_options.listen) {
                m_server = new McpHttpServer(serverOptions, m_registry, m_events, 0);
                m_sessionHost = &m_server->host();
            } else {
                m_ownSessionHost = std::make_unique<SessionHost>(serverOptions, m_registry, m_events, 0);
                m_sessionHost = m_ownSessionHost.get();
            }
            m_sessionHost->setInteractionBroker(m_interactions);
            // request_connection answered by the client's own user signs in through URL mode: the
            // console's flow, kept with the secret store (which outlives every session).
            m_sessionHost->environment().oauthConnects
                = new OAuthConnects(m_options.config.oauthProviders, m_secrets, OAuthConnects::Settings{}, m_secrets);
            auto* feed = new HistoryFeed(m_historyWriter, m_events, m_events);
            connect(feed, &HistoryFeed::callsHeld, this, [this] {
                Q_EMIT historyNotice(QStringLiteral("History is behind the server: new calls wait until it has "
                                                    "caught up (none are lost)."));
            });
            connect(feed, &HistoryFeed::callsResumed, this,
                [this] { Q_EMIT historyNotice(QStringLiteral("History has caught up; waiting calls go on.")); });
            m_sessionHost->setHistoryFeed(feed);
            if (m_server && !m_options.operatorTokens.isEmpty())
                startOperatorApi();
            listening = !m_server || m_server->listen(error);
            if (listening && m_server) {
                m_url = m_server->url();
                if (m_operatorApi) {
                    QUrl api = m_url;
                    if (m_server->operatorPort() != 0)
                        api.setPort(m_server->operatorPort());
                    api.setPath(QStringLiteral("/operator/v1/"));
                    m_operatorUrl = api;
                }
            }
        },
        Qt::BlockingQueuedConnection);
    if (!listening) {
        stop();
        return false;
    }
    if (m_server)
        connect(m_server, &McpHttpServer::sessionsChanged, this, &Backend::sessionsChanged);
    // The hub's batches, queued to this object's thread, are what the window hears.
    connect(m_events, &BackendEvents::callsUpdated, this, &Backend::callsUpdated);
    connect(m_events, &BackendEvents::questionsUpdated, this, &Backend::applyQuestionUpdates);
    connect(m_events, &BackendEvents::breakerStatesChanged, this, &Backend::breakerStatesChanged);
    connect(m_events, &BackendEvents::adapterStatusesChanged, this, &Backend::adapterStatusesChanged);
    connect(m_events, &BackendEvents::repositoryStatesChanged, this, &Backend::repositoryStatesChanged);
    connect(m_events, &BackendEvents::transfersChanged, this, &Backend::transfersChanged);
    connect(m_events, &BackendEvents::sessionStatesChanged, this, &Backend::sessionStatesChanged);
    connect(m_events, &BackendEvents::securityEventsRecorded, this, &Backend::securityEventsRecorded);
    // Every source that replaces its tools (configuration reloaded, an adapter connecting) says so.
    connect(m_registry, &ToolRegistry::toolsChanged, this, &Backend::toolsChanged);
    // What the window hears as notices, operators hear on the feed (queued to the server thread).
    OperatorFeed* operatorFeed = m_feed;
    connect(m_registry, &ToolRegistry::toolsChanged, m_feed, [operatorFeed] { operatorFeed->publishToolsChanged(); });
    // Each by the name of the signal it is, so that an attached window tells them apart as this one does.
    const auto notice = [this, operatorFeed](const char* kind, const char* level, auto signal) {
        connect(this, signal, operatorFeed, [operatorFeed, kind, level](const QString& message) {
            operatorFeed->publishNotice(QLatin1String(kind), QLatin1String(level), message);
        });
    };
    notice("workspaceStateProblem", "warning", &Backend::workspaceStateProblem);
    notice("workspaceStateNotice", "info", &Backend::workspaceStateNotice);
    notice("historyWriteFailed", "warning", &Backend::historyWriteFailed);
    notice("historyNotice", "info", &Backend::historyNotice);
    const auto recovery = [this, operatorFeed](const char* kind, auto signal, const char* message) {
        connect(this, signal, operatorFeed, [operatorFeed, kind, message] {
            operatorFeed->publishNotice(QLatin1String(kind), QStringLiteral("info"), QLatin1String(message));
        });
    };
    recovery("historyWriteRecovered", &Backend::historyWriteRecovered, "History is written again.");
    recovery("workspaceStateRecovered", &Backend::workspaceStateRecovered,
        "Pending questions and stored answers are saved again.");
    connect(this, &Backend::historyCallsLeftOut, m_feed, [operatorFeed](qint64 count) {
        operatorFeed->publishNotice(QStringLiteral("historyCallsLeftOut"), QStringLiteral("info"),
            QStringLiteral("%1 calls in all are not in history: they were left out while the disk failed.").arg(count),
            count);
    });
    connect(this, &Backend::historyPruned, m_feed, &OperatorFeed::publishHistoryPruned);
    connect(this, &Backend::configurationReloaded, m_feed, [operatorFeed](bool ok, const QString& message) {
        operatorFeed->publishNotice(
            QStringLiteral("configurationReloaded"), ok ? QStringLiteral("info") : QStringLiteral("warning"), message);
    });
    if (m_options.listen)
        watchConfiguration();
    m_running = true;
    return true;
}

void Backend::stop()
{
    if (m_serverThread.isRunning()) {
        QMetaObject::invokeMethod(
            m_serverContext,
            [this] {
                // Local calls are told they were cancelled: those in flight are ended with their
                // sessions below as well, but one still waiting for the adapters to settle has no
                // session call yet and would never hear.
                const auto localCalls = std::exchange(m_localSessions, {});
                for (const std::shared_ptr<ResponseChannel>& channel : localCalls)
                    channel->skipResponse();
                {
                    // Work on other threads finishing from now on tells no one.
                    const std::lock_guard lock(m_serverOutbox->mutex);
                    m_serverOutbox->context = nullptr;
                }
                if (m_operatorApi)
                    m_operatorApi->closeStreams();
                if (m_server)
                    m_server->shutdown();
                if (m_ownSessionHost)
                    m_ownSessionHost->shutdown();
                if (m_adapters)
                    m_adapters->shutDown();
                if (m_events)
                    m_events->flush();
                delete m_server;
                delete m_operatorApi;
                m_operatorApi = nullptr;
                m_ownSessionHost.reset();
                m_sessionHost = nullptr;
                delete m_adapters;
                m_adapters = nullptr;
                QString stateError;
                if (m_interactions && !m_interactions->flush(&stateError)) {
                    // The last state could not be written: the event loop that would carry a signal
                    // may already be gone, so this goes straight to the log.
                    qWarning("switchboard: pending questions and stored answers could not be saved at shutdown: %s",
                        qPrintable(stateError));
                }
                // Git workers waiting for a connection give up; the repository reader stops.
                if (m_gitCredentials)
                    m_gitCredentials->shutdown();
                if (m_repositories)
                    m_repositories->shutDown();
                if (m_gitStatusCache)
                    m_gitStatusCache->shutDown();
                delete m_repositories;
                m_repositories = nullptr;
                delete m_interactions; // ends the state writer's thread
                m_interactions = nullptr;
                qDeleteAll(m_oauthFlows);
                m_oauthFlows.clear();
                delete m_secrets;
                m_secrets = nullptr;
                delete m_registry;
                delete m_feed;
                m_feed = nullptr;
                delete m_events;
                m_server = nullptr;
                m_registry = nullptr;
                m_events = nullptr;
            },
            Qt::BlockingQueuedConnection);
        m_serverThread.quit();
        m_serverThread.wait();
    }
    delete m_serverContext;
    m_serverContext = nullptr;
    // The server is gone, so every record is with the writer: it writes them all, then ends.
    m_callIds.reset();
    delete m_historyWriter;
    m_historyWriter = nullptr;
    if (m_historyThread.isRunning()) {
        QMetaObject::invokeMethod(
            m_history,
            [this] {
                delete m_history;
                m_history = nullptr;
            },
            Qt::BlockingQueuedConnection);
        m_historyThread.quit();
        m_historyThread.wait();
    } else {
        delete m_history;
        m_history = nullptr;
    }
    m_running = false;
}

quint64 Backend::loadRecentCalls(int limit, qsizetype bodyPreviewBytes)
{
    const quint64 id = m_nextRequestId++;
    if (m_history) {
        QMetaObject::invokeMethod(m_history,
            [history = m_history, id, limit, bodyPreviewBytes] { history->loadRecent(id, limit, bodyPreviewBytes); });
    }
    return id;
}

quint64 Backend::queryHistory(const HistoryQuery& query)
{
    const quint64 id = m_nextRequestId++;
    if (m_history)
        QMetaObject::invokeMethod(m_history, [history = m_history, id, query] { history->query(id, query); });
    return id;
}

quint64 Backend::countHistory(const HistoryQuery& query)
{
    const quint64 id = m_nextRequestId++;
    if (m_history) {
        QMetaObject::invokeMethod(m_history, [history = m_history, id, query] { history->count(id, query); });
    } else {
        // Answered later, as with history: the caller has the id before the answer comes.
        QMetaObject::invokeMethod(
            this, [this, id] { Q_EMIT historyCounted(id, -1); }, Qt::QueuedConnection);
    }
    return id;
}

namespace {

// Where a local call's replies go: posted to the Backend's thread as the caller's callbacks. The
// outcome is told once.
class LocalResponseChannel : public ResponseChannel
{
public:
    LocalResponseChannel(QObject* target, std::function<void(const QByteArray&)> notified,
        std::function<void(const LocalCallOutcome&)> done)
        : m_target(target)
        , m_notified(std::move(notified))
        , m_done(std::move(done))
    {}

    bool isOpen() const override { return !m_finished; }
    void sendNotification(const QByteArray& message) override
    {
        if (m_finished || !m_notified)
            return;
        QMetaObject::invokeMethod(m_target, [notified = m_notified, message] { notified(message); });
    }
    void sendResponse(const QByteArray& message) override
    {
        finish({LocalCallOutcome::Kind::Answered, message, QString(), std::nullopt});
    }
    void sendCallResponse(const QByteArray& message, CallStatus status) override
    {
        finish({LocalCallOutcome::Kind::Answered, message, QString(), status});
    }
    void skipResponse() override
    {
        finish(
            {LocalCallOutcome::Kind::Cancelled, QByteArray(), QStringLiteral("the call was cancelled"), std::nullopt});
    }
    void abandon(const QString& reason) override
    {
        finish({LocalCallOutcome::Kind::Parked, QByteArray(), reason, std::nullopt});
    }

private:
    void finish(const LocalCallOutcome& outcome)
    {
        if (m_finished)
            return;
        m_finished = true;
        QMetaObject::invokeMethod(m_target, [done = m_done, outcome] { done(outcome); });
    }

    QPointer<QObject> m_target;
    std::function<void(const QByteArray&)> m_notified;
    std::function<void(const LocalCallOutcome&)> m_done;
    bool m_finished = false;
};

} // namespace

void Backend::callLocally(const QByteArray& request, const LocalCaller& caller,
    std::function<void(const QByteArray& notification)> notified, std::function<void(const LocalCallOutcome&)> done)
{
    runLocally(request, caller, 0, {}, std::move(notified), std::move(done));
}

void Backend::runLocally(const QByteArray& request, const LocalCaller& caller, qint64 replayOf,
    std::function<void(qint64 callId)> started, std::function<void(const QByteArray& notification)> notified,
    std::function<void(const LocalCallOutcome&)> done)
{
    if (!m_serverContext) {
        done({LocalCallOutcome::Kind::Cancelled, QByteArray(), QStringLiteral("the backend is not running"),
            std::nullopt});
        return;
    }
    QMetaObject::invokeMethod(m_serverContext, [this, request, caller, replayOf, started, notified, done] {
        JsonRpc::ParseResult parsed = JsonRpc::parse(request);
        const JsonRpc::Message message = parsed.ok ? JsonRpc::classify(parsed.value) : JsonRpc::Message();
        if (!parsed.ok || message.kind != JsonRpc::Kind::Request
            || (message.method != "tools/call" && message.method != "tools/list")) {
            const QString why = parsed.ok ? QStringLiteral("a local call must be a tools/call or tools/list request")
                                          : QString::fromStdString(parsed.error);
            QMetaObject::invokeMethod(this, [done, why] {
                done({LocalCallOutcome::Kind::Cancelled, QByteArray(), why, std::nullopt});
            });
            return;
        }
        McpSession* session
            = m_sessionHost->openLocalSession(caller.clientName, caller.clientVersion, caller.invocation);
        if (replayOf != 0 || started) {
            session->setLocalCallHooks(replayOf, [this, started](qint64 callId) {
                if (started)
                    QMetaObject::invokeMethod(this, [started, callId] { started(callId); });
            });
        }

        // The session ends with its call: the server keeps no idle session for a process that is gone.
        auto ended
            = [this, context = QPointer<QObject>(m_serverContext), session, done](const LocalCallOutcome& outcome) {
                  if (!context)
                      return done(outcome);
                  QMetaObject::invokeMethod(context, [this, session] {
                      if (m_localSessions.remove(session) && m_sessionHost)
                          m_sessionHost->closeLocalSession(session, QStringLiteral("the local call ended"));
                  });
                  done(outcome);
              };
        auto channel = std::make_shared<LocalResponseChannel>(this, notified, std::move(ended));
        m_localSessions.insert(session, channel);
        // Once the adapters have listed their tools (or failed to), so that `adapter.tool` is known.
        // Kept for the call, which may wait for the adapters; the message is classified from it again.
        auto document = std::make_shared<json>(std::move(parsed.value));
        auto handle = [this, session, request, channel, document, admitted = caller.admitted] {
            if (m_localSessions.contains(session)) // not cancelled meanwhile
                session->handleMessage(JsonRpc::classify(*document), request, channel);
            if (!admitted)
                return;
            // What the admission took or parked is on disk before others may admit theirs.
            QString stateError;
            if (m_interactions && !m_interactions->flush(&stateError))
                qWarning("switchboard: the workspace state could not be saved after admitting a local call: %s",
                    qPrintable(stateError));
            admitted();
        };
        if (m_adapters)
            m_adapters->whenSettled(std::move(handle));
        else
            handle();
    });
}

void Backend::cancelLocalCalls(const QString& reason)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, reason] {
        const auto sessions = m_localSessions;
        m_localSessions.clear();
        for (auto it = sessions.cbegin(); it != sessions.cend(); ++it) {
            if (m_sessionHost)
                m_sessionHost->closeLocalSession(it.key(), reason);
            it.value()->skipResponse(); // a call still waiting for the adapters had no response to skip
        }
    });
}

quint64 Backend::callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf)
{
    const quint64 requestId = m_nextRequestId++;
    consoleCall(
        tool, arguments, replayOf, m_options.server.identity.version,
        [this, requestId](qint64 callId) { Q_EMIT toolCallStarted(requestId, callId); },
        [this, tool](const QString& why) {
            Q_EMIT commandFailed(QStringLiteral("callTool"), QStringLiteral("%1 was not called: %2").arg(tool, why));
        });
    return requestId;
}

void Backend::consoleCall(const QString& tool, const QByteArray& arguments, qint64 replayOf,
    const QString& clientVersion, std::function<void(qint64 callId)> started,
    std::function<void(const QString&)> failed)
{
    // Queued, so that the caller knows what it asked for before it hears about it.
    const auto fail = [this, failed](const QString& why) {
        QMetaObject::invokeMethod(
            this, [failed, why] { failed(why); }, Qt::QueuedConnection);
    };
    // Arguments that are JSON but not an object go to the router, which records them as invalid
    // arguments like a client's; text that is not JSON cannot even make a request.
    BoundedJson::Result<json> parsed = BoundedJson::parse(
        arguments.trimmed().isEmpty() ? QByteArrayLiteral("{}") : arguments, BoundedJson::Limits::message());
    if (!parsed.ok) {
        fail(QStringLiteral("the arguments are not valid JSON (%1)").arg(QString::fromStdString(parsed.error)));
        return;
    }
    const json request{{"jsonrpc", "2.0"}, {"id", "console-" + std::to_string(m_nextRequestId++)},
        {"method", "tools/call"}, {"params", {{"name", tool.toStdString()}, {"arguments", std::move(parsed.value)}}}};
    LocalCaller caller{consoleClientName(), clientVersion, nullptr, {}};
    auto startedCallId = std::make_shared<qint64>(0);
    runLocally(
        QByteArray::fromStdString(request.dump()), caller, replayOf,
        [started, startedCallId](qint64 callId) {
            *startedCallId = callId;
            started(callId);
        },
        {},
        [fail, startedCallId](const LocalCallOutcome& outcome) {
            // A call that started is in the log with its outcome; only one that never did is told here.
            if (*startedCallId != 0)
                return;
            if (outcome.kind != LocalCallOutcome::Kind::Answered)
                fail(outcome.reason);
            else
                fail(QStringLiteral("it was refused before it started: %1").arg(QString::fromUtf8(outcome.response)));
        });
}

void Backend::listTools()
{
    if (!m_serverContext) {
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT toolsListed({}); }, Qt::QueuedConnection);
        return;
    }
    QMetaObject::invokeMethod(m_serverContext, [this] {
        const ToolInfoList tools = offeredTools();
        QMetaObject::invokeMethod(this, [this, tools] { Q_EMIT toolsListed(tools); });
    });
}

ToolInfoList Backend::offeredTools() const
{
    ToolInfoList tools;
    {
        if (m_registry) {
            for (const ToolRegistry::ToolPtr& tool : m_registry->tools()) {
                if (!tool->refusal.isEmpty())
                    continue; // not offered: tools/list leaves it out too
                const ToolSpec& spec = tool->spec;
                ToolInfo info;
                info.name = spec.name;
                info.title = spec.title;
                info.route = tool->route;
                info.description = spec.description;
                info.inputSchema = QByteArray::fromStdString(spec.inputSchema.dump());
                if (!spec.outputSchema.is_null())
                    info.outputSchema = QByteArray::fromStdString(spec.outputSchema.dump());
                info.annotations = QByteArray::fromStdString(
                    spec.annotations.is_object() ? spec.annotations.dump() : json::object().dump());
                tools.append(info);
            }
        }
    }
    return tools;
}

// The hub's question batch, on this object's thread, told as the interface's three signals in the
// order things happened to each question.
void Backend::applyQuestionUpdates(const QuestionUpdateList& updates)
{
    for (const QuestionUpdate& update : updates) {
        if (update.state) {
            if (update.raised)
                Q_EMIT interactionPending(*update.state);
            else
                Q_EMIT interactionChanged(*update.state);
        }
        if (update.resolved)
            Q_EMIT interactionResolved(update.id, *update.resolved);
    }
}

// Server thread, after the broker exists: the upstream adapters of mcp_endpoints, their states
// published through the event hub.
void Backend::registerAdapters()
{
    m_adapters = new AdapterRegistry(m_registry, m_interactions);
    m_registry->setUnavailableExplainer(
        [adapters = m_adapters](const QString& owner) { return adapters->unavailability(owner); });
    // mcp__ADAPTER__TOOL names that adapter's tool even while it offers none (disabled, connecting).
    m_registry->setOwnerCheck([adapters = m_adapters](const QString& owner) { return adapters->contains(owner); });
    connect(m_adapters, &AdapterRegistry::statusChanged, m_events, &BackendEvents::publishAdapterStatus);
    connect(m_adapters, &AdapterRegistry::breakerChanged, m_events, &BackendEvents::publishBreakerState);
    // Transitions are kept in history beside the calls, and shown again after a restart.
    HistoryWriter* history = m_historyWriter;
    connect(m_adapters, &AdapterRegistry::breakerTransition, m_events,
        [history](const BreakerTransitionRecord& transition) { history->recordTransition(transition); });
    m_adapters->setTransitionSource([history](const QString& adapter) {
        BreakerTransitionList transitions;
        history->runOnWriterThread([&](HistoryDatabase& database) {
            transitions = database.loadTransitions(adapter, AdapterStatus::MaxTransitions);
        });
        return transitions;
    });
    // The operator's overrides, shared with every process on the state directory: read before the
    // adapters start, so that a one-shot runner never contacts an adapter the operator disabled; the
    // console follows other processes' changes.
    connect(m_adapters, &AdapterRegistry::overridesNotice, this, [this](const QString& message) {
        if (m_options.listen)
            Q_EMIT workspaceStateNotice(message);
        else
            qWarning("switchboard: %s", qPrintable(message)); // a runner's stderr
    });
    m_adapters->useOverridesFile(adapterOverridesPath(), m_options.listen);
    const QList<AdapterConfig>& adapters = m_options.config.adapters;
    m_adapters->apply(std::vector<AdapterConfig>(adapters.begin(), adapters.end()));
}

// Editors save by writing the file in place or by renaming a new one over it; the directory is
// watched too so that a renamed file is noticed and watched again.
void Backend::watchConfiguration()
{
    if (m_options.configPath.isEmpty() || m_configWatcher)
        return;
    const QFileInfo file(m_options.configPath);
    m_configWatcher = new QFileSystemWatcher(this);
    m_configReload = new QTimer(this);
    m_configReload->setSingleShot(true);
    m_configReload->setInterval(300);
    connect(m_configReload, &QTimer::timeout, this, [this] {
        const QString path = QFileInfo(m_options.configPath).absoluteFilePath();
        if (!m_configWatcher->files().contains(path) && QFileInfo::exists(path))
            m_configWatcher->addPath(path);
        // A file that is gone for now (in the middle of a save) is read when it is back.
        if (QFileInfo::exists(path))
            reloadConfiguration();
    });
    const auto changed = [this] { m_configReload->start(); };
    connect(m_configWatcher, &QFileSystemWatcher::fileChanged, this, changed);
    connect(m_configWatcher, &QFileSystemWatcher::directoryChanged, this, [this, changed] {
        // Only a change of the configuration file itself counts; other files in its folder do not.
        const QFileInfo now(m_options.configPath);
        const QDateTime modified = now.exists() ? now.lastModified() : QDateTime();
        if (modified != m_configModified) {
            m_configModified = modified;
            changed();
        }
    });
    m_configModified = file.lastModified();
    m_configWatcher->addPath(file.absoluteFilePath());
    m_configWatcher->addPath(file.absolutePath());
}

// Server thread: the sinks of `sinks:` offered as sink.op tools (the tools keep their sinks alive);
// called again with a reloaded configuration.
void Backend::registerSinks(const std::vector<SinkConfig>& configs)
{
    const SinkRegistry sinks(configs);
    QStringList problems = sinks.problems();
    m_registry->replaceSource(SinkRegistry::SourceName, sinks.tools(), &problems);
    for (const QString& problem : std::as_const(problems))
        qWarning("switchboard: sinks: %s", qPrintable(problem));
}

// Server thread: the tools of `command_tools:`, a process per call; called again with a reloaded
// configuration (calls in flight keep the tool they started with).
void Backend::registerCommandTools(const std::vector<CommandToolConfig>& configs)
{
    const CommandToolRegistry commands(configs);
    QStringList problems;
    m_registry->replaceSource(CommandToolRegistry::SourceName, commands.tools(), &problems);
    for (const QString& problem : std::as_const(problems))
        qWarning("switchboard: command tool left out: %s", qPrintable(problem));
}

void Backend::adapterCommand(const QString& command, std::function<bool(AdapterRegistry&, QString*)> run)
{
    if (!m_serverContext) {
        Q_EMIT commandFailed(command, QStringLiteral("The backend is not running."));
        return;
    }
    QMetaObject::invokeMethod(m_serverContext, [this, command, run = std::move(run)] {
        QString error;
        if (!m_adapters) {
            error = QStringLiteral("The backend is stopping.");
        } else if (run(*m_adapters, &error)) {
            return;
        }
        QMetaObject::invokeMethod(this, [this, command, error] { Q_EMIT commandFailed(command, error); });
    });
}

void Backend::resetBreaker(const QString& adapter)
{
    adapterCommand(QStringLiteral("resetBreaker"),
        [adapter](AdapterRegistry& adapters, QString* error) { return adapters.resetBreaker(adapter, error); });
}

void Backend::forceOpenBreaker(const QString& adapter)
{
    // Who forced it is recorded with the breaker: the name this console's answers are recorded under.
    adapterCommand(QStringLiteral("forceOpenBreaker"), [this, adapter](AdapterRegistry& adapters, QString* error) {
        const QString by = m_interactions ? m_interactions->settings().operatorName : InteractionBroker::consoleUser();
        return adapters.forceOpenBreaker(adapter, error, by);
    });
}

void Backend::setAdapterEnabled(const QString& adapter, bool enabled)
{
    adapterCommand(QStringLiteral("setAdapterEnabled"), [adapter, enabled](AdapterRegistry& adapters, QString* error) {
        return adapters.setEnabled(adapter, enabled, error);
    });
}

void Backend::reloadConfiguration()
{
    if (m_options.configPath.isEmpty()) {
        OperatorInterface::reloadConfiguration();
        return;
    }
    QString message;
    const bool ok = applyConfigurationFile(&message);
    Q_EMIT configurationReloaded(ok, message);
}

bool Backend::applyConfigurationFile(QString* message)
{
    if (m_options.configPath.isEmpty()) {
        *message = QStringLiteral("this Switchboard was started without a configuration file");
        return false;
    }
    SwitchboardConfig config;
    QString error;
    if (!SwitchboardConfig::load(m_options.configPath, &config, &error)) {
        *message = QStringLiteral("%1 was not applied; the previous configuration stays in force: %2")
                       .arg(m_options.configPath, error);
        return false;
    }
    const QList<AdapterConfig> adapters = config.adapters;
    const auto sinks = config.sinks;
    const auto commandTools = config.commandTools;
    m_options.config.adapters = adapters;
    m_options.config.sinks = sinks;
    m_options.config.commandTools = commandTools;
    if (m_serverContext) {
        QMetaObject::invokeMethod(m_serverContext, [this, adapters, sinks, commandTools] {
            if (!m_registry || !m_adapters)
                return;
            registerSinks(sinks);
            registerCommandTools(commandTools);
            m_adapters->apply(std::vector<AdapterConfig>(adapters.begin(), adapters.end()));
        });
    }
    *message = QStringLiteral("%1 reloaded: %2 adapters, %3 sinks, %4 command tools.")
                   .arg(m_options.configPath)
                   .arg(adapters.size())
                   .arg(qsizetype(sinks.size()))
                   .arg(qsizetype(commandTools.size()));
    return true;
}

// Server thread, after the secret store and the broker exist: the git tools, with their path and
// URL policies, credentials from the person's connections, and the repository monitor.
void Backend::registerGitTools()
{
    const GitSettings& settings = m_options.config.git;
    auto environment = std::make_shared<GitToolEnvironment>(
        GitToolEnvironment{GitPathPolicy(settings.roots + GitPathPolicy::rootsFromEnvironment()),
            GitUrlPolicy(settings.schemes, settings.allowLocalRemotes), settings, nullptr, {}, nullptr});
    for (const QString& problem : environment->paths.problems())
        qWarning("switchboard: git: %s", qPrintable(problem));
    m_repositories = new RepositoryMonitor(environment->paths, m_events,
        m_options.stateDirectory.isEmpty()
            ? QString()
            : QDir(m_options.stateDirectory).filePath(QStringLiteral("repositories.json")));
    // Through the hub, so that a state of it waiting for the next batch never follows its removal.
    connect(m_repositories, &RepositoryMonitor::repositoryRemoved, m_events, &BackendEvents::publishRepositoryRemoved);
    connect(m_events, &BackendEvents::repositoryRemoved, this, &Backend::repositoryRemoved);
    connect(m_events, &BackendEvents::repositoryRemoved, m_feed, &OperatorFeed::publishRepositoryRemoved);
    connect(m_repositories, &RepositoryMonitor::fileDiffLoaded, this, &Backend::fileDiffLoaded);
    m_gitCredentials = std::make_shared<ConnectionCredentialSource>(m_repositories->home(), m_secrets, m_interactions,
        m_registry, settings.credentialProviders, m_options.configPath);
    environment->credentials = m_gitCredentials;
    environment->statusCache
        = std::make_shared<GitStatusCache>([paths = environment->paths](const QString& repository) {
              QString ignored;
              return GitToolHandlers::statusFields(paths, repository, &ignored);
          });
    m_gitStatusCache = environment->statusCache;
    // libgit2 loads its TLS certificates once, at start rather than in the first call; a one-shot
    // runner leaves that to the git tool it runs (most of its calls are no git call at all).
    if (m_options.listen)
        GitLibrary::ensureInitialized();
    environment->repositoryTouched = [home = std::weak_ptr<HomeThread>(m_repositories->home()),
                                         monitor = m_repositories](const QString& path, qint64 callId, bool changed) {
        if (auto target = home.lock())
            target->post([monitor, path, callId, changed] { monitor->touch(path, callId, changed); });
    };
    QStringList problems;
    m_registry->replaceSource(QStringLiteral("git"), gitTools(environment), &problems);
    for (const QString& problem : std::as_const(problems))
        qWarning("switchboard: git tool left out: %s", qPrintable(problem));
}

void Backend::addRepository(const QString& path)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, path] {
        QString error;
        if (m_repositories && !m_repositories->add(path, &error))
            announce(&OperatorInterface::commandFailed, QStringLiteral("addRepository"), error);
    });
}

void Backend::removeRepository(const QString& path)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, path] {
        if (m_repositories)
            m_repositories->remove(path);
    });
}

void Backend::refreshRepository(const QString& path)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, path] {
        QString error;
        if (m_repositories && !m_repositories->refresh(path, &error))
            announce(&OperatorInterface::commandFailed, QStringLiteral("refreshRepository"), error);
    });
}

void Backend::loadFileDiff(const QString& repositoryPath, const QString& file)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, repositoryPath, file] {
        if (m_repositories)
            m_repositories->loadFileDiff(repositoryPath, file);
    });
}

bool Backend::registerClientTools(QString* error)
{
    QStringList oauthProviders;
    QHash<QString, QString> providerTitles;
    for (const OAuthProvider& provider : m_options.config.oauthProviders) {
        oauthProviders << provider.name;
        providerTitles.insert(provider.name, provider.displayTitle());
    }
    std::vector<RegisteredTool> tools;
    tools.push_back(ClientTool::requestConnection(oauthProviders, providerTitles));
    for (const ClientToolConfig& config : m_options.config.clientTools) {
        // `- {name: request_connection, answeredBy: client}` is not a tool of its own: it says who
        // answers the built-in one (an OAuth sign-in in URL mode for a client that can open one).
        if (config.spec.value("name", std::string()) == "request_connection") {
            auto connect = std::make_shared<ClientTool>(*tools.front().clientTool);
            connect->answeredByClient = config.answeredBy == QStringLiteral("client");
            tools.front().clientTool = std::move(connect);
            continue;
        }
        RegisteredTool tool;
        QString problem;
        if (!ClientTool::fromConfig(config, &tool, &problem)) {
            *error = QStringLiteral("%1: clientTools: %2").arg(m_options.configPath, problem);
            return false;
        }
        tools.push_back(std::move(tool));
    }
    // One source, one step: clients hear one tools/list_changed for the whole set.
    QStringList problems;
    m_registry->replaceSource(QStringLiteral("client"), std::move(tools), &problems);
    if (!problems.isEmpty()) {
        *error = QStringLiteral("%1: clientTools: %2").arg(m_options.configPath, problems.join(QStringLiteral("; ")));
        return false;
    }
    return true;
}

void Backend::listSessions()
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this] {
        const SessionStateList sessions = m_server ? m_server->sessionStates() : SessionStateList();
        QMetaObject::invokeMethod(this, [this, sessions] { Q_EMIT sessionsListed(sessions); });
    });
}

void Backend::endSession(const QString& sessionId)
{
    if (!m_serverContext) {
        Q_EMIT commandFailed(QStringLiteral("endSession"), QStringLiteral("The backend is not running."));
        return;
    }
    QMetaObject::invokeMethod(m_serverContext, [this, sessionId] {
        if (m_server && m_server->endSession(sessionId.toLatin1()))
            return;
        QMetaObject::invokeMethod(this, [this, sessionId] {
            Q_EMIT commandFailed(QStringLiteral("endSession"),
                QStringLiteral("There is no session %1: it has ended already.").arg(sessionId));
        });
    });
}

void Backend::listGrants()
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this] {
        if (m_interactions) {
            const PermissionEntryList entries = m_interactions->permissionEntries();
            QMetaObject::invokeMethod(this, [this, entries] { Q_EMIT grantsListed(entries); });
        }
    });
}

void Backend::revokeGrant(const QString& grantId)
{
    if (!m_serverContext) {
        Q_EMIT commandFailed(QStringLiteral("revokeGrant"), QStringLiteral("The backend is not running."));
        return;
    }
    QMetaObject::invokeMethod(m_serverContext, [this, grantId] {
        if (m_interactions && m_interactions->revokeGrant(grantId))
            return; // grantsChanged follows
        QMetaObject::invokeMethod(this, [this, grantId] {
            Q_EMIT commandFailed(QStringLiteral("revokeGrant"),
                QStringLiteral("There is no grant %1: it was revoked already, or its session ended.").arg(grantId));
        });
    });
}

void Backend::listInteractions()
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this] {
        if (m_interactions) {
            const PendingInteractionList list = m_interactions->pending();
            QMetaObject::invokeMethod(this, [this, list] { Q_EMIT interactionsListed(list); });
        }
    });
}

void Backend::answerInteraction(const QString& interactionId, const InteractionAnswer& answer)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, interactionId, answer] {
        QString error;
        if (m_interactions && !m_interactions->answer(interactionId, answer, &error)) {
            QMetaObject::invokeMethod(
                this, [this, interactionId, error] { Q_EMIT interactionAnswerFailed(interactionId, error); });
        }
    });
}

QString Backend::secretStorage() const
{
    return m_secretStorage;
}

void Backend::saveSecretAndConnect(const QString& interactionId, const QString& provider, const QString& account,
    const QString& secretKey, const QByteArray& secret, const QString& by,
    std::function<void(bool ok, const QString& error)> done)
{
    m_secrets->save(secretKey, secret,
        [this, interactionId, provider, account, secretKey, by, done](bool ok, const QString& error) {
            if (!ok) {
                const QString why = QStringLiteral("Not connected: the secret could not be saved. %1").arg(error);
                announce(&OperatorInterface::connectFailed, interactionId, why);
                if (done)
                    done(false, why);
                return;
            }
            // The provider's newest connection, for tools that use it later (git push over HTTPS): the
            // key of the secret, not the secret.
            m_secrets->save(ConnectionCredentialSource::connectionPointerKey(provider), secretKey.toUtf8(),
                [this, interactionId, provider, account, by, done](bool pointerSaved, const QString& pointerError) {
                    if (!pointerSaved)
                        qWarning("The %s connection was saved, but not marked as the newest: %s", qPrintable(provider),
                            qPrintable(pointerError));
                    QString problem = QStringLiteral("the backend is stopping");
                    const bool answered = m_interactions
                        && m_interactions->answer(interactionId,
                            InteractionAnswer::respond(ClientAnswer::connected(provider, account)), &problem, by);
                    if (!answered)
                        announce(&OperatorInterface::interactionAnswerFailed, interactionId, problem);
                    if (done)
                        done(answered, answered ? QString() : problem);
                });
        });
}

void Backend::connectWithApiKey(
    const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext,
        [this, interactionId, provider, account, apiKey] { connectApiKey(interactionId, provider, account, apiKey); });
}

void Backend::connectApiKey(const QString& interactionId, const QString& provider, const QString& account,
    const QByteArray& apiKey, const QString& by, std::function<void(bool ok, const QString& error)> done)
{
    if (!m_secrets) {
        if (done)
            done(false, QStringLiteral("the backend is stopping"));
        return;
    }
    if (apiKey.trimmed().isEmpty()) {
        announce(&OperatorInterface::connectFailed, interactionId, QStringLiteral("Enter the API key first."));
        if (done)
            done(false, QStringLiteral("the API key is empty"));
        return;
    }
    const QString name = account.trimmed().isEmpty() ? QStringLiteral("api key") : account.trimmed();
    saveSecretAndConnect(interactionId, provider, name, QStringLiteral("apikey/%1/%2").arg(provider, name),
        apiKey.trimmed(), by, std::move(done));
}

void Backend::startOperatorApi()
{
    OperatorApi::Hooks hooks;
    hooks.questions = [this] { return m_interactions ? m_interactions->pending() : PendingInteractionList(); };
    hooks.grants = [this] { return m_interactions ? m_interactions->permissionEntries() : PermissionEntryList(); };
    hooks.sessions = [this] { return m_server ? m_server->sessionStates() : SessionStateList(); };
    hooks.answer = [this](const QString& id, const InteractionAnswer& answer, const QString& by, QString* error,
                       InteractionOutcome* outcome) {
        if (!m_interactions) {
            *error = QStringLiteral("the backend is stopping");
            return false;
        }
        return m_interactions->answer(id, answer, error, by, outcome);
    };
    hooks.connect = [this](const QString& id, const QString& provider, const QString& account, const QByteArray& apiKey,
                        const QString& by, std::function<void(bool, const QString&)> done) {
        connectApiKey(id, provider, account, apiKey, by, std::move(done));
    };
    hooks.adapterExists = [this](const QString& adapter) { return m_adapters && m_adapters->contains(adapter); };
    hooks.adapterCommand = [this](const QString& verb, const QString& adapter, const QString& by, QString* error) {
        if (!m_adapters) {
            *error = QStringLiteral("the backend is stopping");
            return false;
        }
        if (verb == QLatin1String("reset"))
            return m_adapters->resetBreaker(adapter, error);
        if (verb == QLatin1String("force-open"))
            return m_adapters->forceOpenBreaker(adapter, error, by);
        return m_adapters->setEnabled(adapter, verb == QLatin1String("enable"), error);
    };
    hooks.revokeGrant
        = [this](const QString& grantId) { return m_interactions && m_interactions->revokeGrant(grantId); };
    hooks.endSession
        = [this](const QString& sessionId) { return m_server && m_server->endSession(sessionId.toLatin1()); };
    // Searched on the history thread, never here; the answer comes back through the outbox.
    hooks.history = [this](const HistoryQuery& query, std::function<void(bool, const ToolCallList&, bool)> done) {
        if (!m_history) {
            done(false, {}, false);
            return;
        }
        QMetaObject::invokeMethod(m_history, [history = m_history, outbox = m_serverOutbox, query, done] {
            const HistoryDatabase::Page page = history->database().query(query);
            outbox->post([done, page] { done(true, page.calls, page.hasMore); });
        });
    };
    hooks.countHistory = [this](const HistoryQuery& query, std::function<void(qint64)> done) {
        if (!m_history) {
            done(-1);
            return;
        }
        QMetaObject::invokeMethod(m_history, [history = m_history, outbox = m_serverOutbox, query, done] {
            const qint64 count = history->database().count(query);
            outbox->post([done, count] { done(count); });
        });
    };
    hooks.tools = [this] { return offeredTools(); };
    // As the window's own calls, made on this object's thread, recorded with the operator's name as
    // the client's version; told back on the server thread through the outbox.
    hooks.callTool = [this](const QString& tool, const QByteArray& arguments, qint64 replayOf, const QString& by,
                         std::function<void(qint64, const QString&)> started) {
        const auto tell = [outbox = m_serverOutbox, started](qint64 callId, const QString& error) {
            outbox->post([started, callId, error] { started(callId, error); });
        };
        QMetaObject::invokeMethod(this, [this, tool, arguments, replayOf, by, tell] {
            consoleCall(
                tool, arguments, replayOf, by, [tell](qint64 callId) { tell(callId, {}); },
                [tell, tool](const QString& why) { tell(0, QStringLiteral("%1 was not called: %2").arg(tool, why)); });
        });
    };
    hooks.addRepository
        = [this](const QString& path, QString* error) { return m_repositories && m_repositories->add(path, error); };
    hooks.removeRepository = [this](const QString& path) {
        if (m_repositories)
            m_repositories->remove(path);
    };
    hooks.refreshRepository = [this](const QString& path, QString* error) {
        return m_repositories && m_repositories->refresh(path, error);
    };
    // The monitor tells every diff it loads; each asked-for one is answered by the first that fits.
    hooks.loadFileDiff = [this](const QString& path, const QString& file, std::function<void(const FileDiff&)> done) {
        if (!m_repositories) {
            FileDiff none;
            none.repository = path;
            none.file = file;
            none.error = QStringLiteral("the backend is stopping");
            done(none);
            return;
        }
        const QString canonical = QFileInfo(path).canonicalFilePath();
        auto answered = std::make_shared<bool>(false);
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(m_repositories, &RepositoryMonitor::fileDiffLoaded, m_serverContext,
            [path, canonical, file, done, answered, connection](const FileDiff& diff) {
                if (*answered || diff.file != file || (diff.repository != path && diff.repository != canonical))
                    return;
                *answered = true;
                QObject::disconnect(*connection);
                done(diff);
            });
        // A diff that never comes (a repository no longer shown) is answered with why, not held.
        QTimer::singleShot(30'000, m_serverContext, [path, file, done, answered, connection] {
            if (std::exchange(*answered, true))
                return;
            QObject::disconnect(*connection);
            FileDiff none;
            none.repository = path;
            none.file = file;
            none.error = QStringLiteral("no diff came within 30 s: is the repository still shown?");
            done(none);
        });
        m_repositories->loadFileDiff(path, file);
    };
    // The file is read on the Backend's thread, where the window's reloads run too.
    hooks.reloadConfiguration = [this](std::function<void(bool, const QString&)> done) {
        QMetaObject::invokeMethod(this, [this, outbox = m_serverOutbox, done] {
            QString message;
            const bool ok = applyConfigurationFile(&message);
            Q_EMIT configurationReloaded(ok, message);
            outbox->post([done, ok, message] { done(ok, message); });
        });
    };
    OperatorApi::Settings settings;
    settings.maxStreams = m_options.operatorMaxStreams;
    settings.maxUnsentStreamBytes = m_options.operatorMaxUnsentStreamBytes;
    m_operatorApi = new OperatorApi(settings, m_options.operatorTokens, std::move(hooks), m_feed);
    m_server->setOperatorEndpoint(m_operatorApi);
}

void Backend::startOAuth(const QString& interactionId, const QString& providerName, const QStringList& scopes)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, interactionId, providerName, scopes] {
        if (!m_secrets)
            return;
        const auto& providers = m_options.config.oauthProviders;
        const auto provider = std::find_if(providers.cbegin(), providers.cend(),
            [&](const OAuthProvider& candidate) { return candidate.name == providerName; });
        if (provider == providers.cend()) {
            announce(&OperatorInterface::connectFailed, interactionId,
                QStringLiteral("No OAuth provider named \"%1\" is configured (oauthProviders in %2).")
                    .arg(providerName, m_options.configPath));
            return;
        }
        delete m_oauthFlows.take(interactionId); // a second attempt replaces the first
        auto* flow = new OAuthConnector(*provider);
        m_oauthFlows.insert(interactionId, flow);
        if (!scopes.isEmpty())
            flow->setScopes(scopes);
        // Contexts on the server thread: the flow, the secret store and the broker live there.
        connect(flow, &OAuthConnector::authorizationUrlReady, m_serverContext, [this, interactionId](const QUrl& url) {
            announce(&OperatorInterface::oauthAuthorizationUrl, interactionId, url);
        });
        connect(
            flow, &OAuthConnector::connected, m_serverContext, [this, interactionId, flow](const OAuthResult& result) {
                m_oauthFlows.remove(interactionId);
                flow->deleteLater();
                const json tokens{{"access_token", result.accessToken.toStdString()},
                    {"refresh_token", result.refreshToken.toStdString()},
                    {"expires_at",
                        result.expiresAt.isValid() ? result.expiresAt.toString(Qt::ISODate).toStdString() : ""},
                    {"scopes", result.scopes.join(QLatin1Char(' ')).toStdString()}};
                saveSecretAndConnect(interactionId, result.provider, result.account,
                    QStringLiteral("oauth/%1/%2").arg(result.provider, result.account),
                    QByteArray::fromStdString(tokens.dump()));
            });
        connect(
            flow, &OAuthConnector::failed, m_serverContext, [this, interactionId, flow](const OAuthFailure& failure) {
                m_oauthFlows.remove(interactionId);
                flow->deleteLater();
                // The question stays open: the person may try again, use an API key, or decline.
                announce(&OperatorInterface::connectFailed, interactionId, failure.message);
            });
        flow->start();
    });
}

void Backend::cancelOAuth(const QString& interactionId)
{
    if (!m_serverContext)
        return;
    QMetaObject::invokeMethod(m_serverContext, [this, interactionId] {
        if (OAuthConnector* flow = m_oauthFlows.value(interactionId))
            flow->cancel();
    });
}

namespace {

ClientTokenInfoList listedTokens(const ClientTokens& tokens, QString* problem)
{
    ClientTokenInfoList listed;
    for (const ClientTokens::Entry& entry : tokens.list(problem))
        listed.append(ClientTokenInfo{entry.name, entry.createdAtMs});
    return listed;
}

} // namespace

Backend::ClientTokenWork::~ClientTokenWork()
{
    const std::lock_guard lock(outbox->mutex);
    outbox->backend = nullptr;
}

void Backend::clientTokenWork(std::function<ClientTokenTell(ClientTokens&)> work)
{
    m_clientTokenWork.pool.start([outbox = m_clientTokenWork.outbox, tokens = m_clientTokens, work = std::move(work)] {
        {
            const std::lock_guard lock(outbox->mutex);
            if (!outbox->backend)
                return;
        }
        const ClientTokenTell tell = work(*tokens);
        // Held while telling: the Backend cannot go between the check and the queued call.
        const std::lock_guard lock(outbox->mutex);
        if (outbox->backend)
            tell(*outbox->backend);
    });
}

void Backend::listClientTokens()
{
    clientTokenWork([](ClientTokens& tokens) -> ClientTokenTell {
        QString problem;
        const ClientTokenInfoList listed = listedTokens(tokens, &problem);
        return [listed, problem](
                   Backend& backend) { backend.announce(&OperatorInterface::clientTokensListed, listed, problem); };
    });
}

void Backend::issueClientToken(const QString& name)
{
    clientTokenWork([name](ClientTokens& tokens) -> ClientTokenTell {
        QString error;
        const QByteArray token = tokens.issue(name, &error);
        if (token.isEmpty()) {
            return [error](Backend& backend) {
                backend.announce(&OperatorInterface::commandFailed, QStringLiteral("issueClientToken"), error);
            };
        }
        QString problem;
        const ClientTokenInfoList listed = listedTokens(tokens, &problem);
        return [name, token, listed, problem](Backend& backend) {
            backend.announce(&OperatorInterface::clientTokenIssued, name, token);
            backend.announce(&OperatorInterface::clientTokensListed, listed, problem);
        };
    });
}

void Backend::revokeClientToken(const QString& name)
{
    clientTokenWork([name](ClientTokens& tokens) -> ClientTokenTell {
        QString error;
        if (!tokens.revoke(name, &error)) {
            return [error](Backend& backend) {
                backend.announce(&OperatorInterface::commandFailed, QStringLiteral("revokeClientToken"), error);
            };
        }
        QString problem;
        const ClientTokenInfoList listed = listedTokens(tokens, &problem);
        return [name, listed, problem](Backend& backend) {
            backend.announce(&OperatorInterface::clientTokenRevoked, name);
            backend.announce(&OperatorInterface::clientTokensListed, listed, problem);
        };
    });
}
