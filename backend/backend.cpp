#include "backend.h"

#include "backendevents.h"
#include "backgroundpriority.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "store/historyfeed.h"
#include "store/historystore.h"
#include "store/workspacestatefile.h"
#include "tools/builtintools.h"
#include "tools/toolregistry.h"

#include <QDir>

namespace {

InteractionBroker::Settings interactionSettings(const BackendOptions& options, const QString& statePath)
{
    const SwitchboardConfig& config = options.config;
    InteractionBroker::Settings settings;
    const auto mode
        = [](const QString& name) { return name == QStringLiteral("park") ? PauseMode::Park : PauseMode::Hold; };
    settings.defaultMode = mode(config.interactionMode);
    for (auto it = config.clientModes.cbegin(); it != config.clientModes.cend(); ++it)
        settings.clientModes.insert(it.key(), mode(it.value()));
    settings.maxWaitMs = config.maxWaitSeconds * 1000;
    settings.progressIntervalMs = config.progressIntervalSeconds * 1000;
    settings.policy = PermissionPolicy(config, options.configPath);
    settings.statePath = statePath;
    return settings;
}

} // namespace

Backend::Backend(BackendOptions options, QObject* parent)
    : QObject(parent)
    , m_options(std::move(options))
{
    m_serverThread.setObjectName(QStringLiteral("switchboard-backend"));
    m_historyThread.setObjectName(QStringLiteral("switchboard-history"));
}

Backend::~Backend()
{
    stop();
}

QString Backend::workspaceStatePath() const
{
    return QDir(m_options.stateDirectory).filePath(QStringLiteral("workspace.json"));
}

QString Backend::historyPath() const
{
    return QDir(m_options.stateDirectory).filePath(QStringLiteral("history.sqlite"));
}

bool Backend::start(QString* error)
{
    if (m_running)
        return true;

    m_history = new HistoryStore(historyPath());
    m_history->setMaxCalls(m_options.historyMaxCalls);
    m_history->moveToThread(&m_historyThread);
    m_historyThread.start();
    bool opened = false;
    QMetaObject::invokeMethod(
        m_history,
        [&] {
            // History is bookkeeping: written when serving calls leaves the CPU idle.
            BackgroundPriority::applyToCurrentThread();
            opened = m_history->open(error);
        },
        Qt::BlockingQueuedConnection);
    if (!opened) {
        stop();
        return false;
    }
    connect(m_history, &HistoryStore::queryFinished, this, &Backend::historyLoaded);
    connect(m_history, &HistoryStore::writeFailed, this, &Backend::historyWriteFailed);
    connect(m_history, &HistoryStore::writeRecovered, this, &Backend::historyWriteRecovered);
    m_stateWriter = new WorkspaceStateWriter(workspaceStatePath());
    m_stateWriter->moveToThread(&m_historyThread);
    connect(m_stateWriter, &WorkspaceStateWriter::writeFailed, this, [this](const QString& problem) {
        Q_EMIT workspaceStateProblem(
            QStringLiteral("pending questions and stored answers could not be saved: %1").arg(problem));
    });

    bool listening = false;
    m_serverContext = new QObject;
    m_serverContext->moveToThread(&m_serverThread);
    m_serverThread.start();
    QMetaObject::invokeMethod(
        m_serverContext,
        [&] {
            m_events = new BackendEvents;
            m_registry = new ToolRegistry;
            registerBuiltinTools(*m_registry);
            if (!registerClientTools(error))
                return;
            m_interactions = new InteractionBroker(interactionSettings(m_options, workspaceStatePath()), m_registry);
            m_interactions->setWriter(m_stateWriter);
            QString stateWarning;
            m_interactions->load(&stateWarning);
            if (!stateWarning.isEmpty())
                QMetaObject::invokeMethod(this, [this, stateWarning] { Q_EMIT workspaceStateProblem(stateWarning); });
            connect(m_interactions, &InteractionBroker::interactionPending, this, &Backend::interactionPending);
            connect(m_interactions, &InteractionBroker::interactionChanged, this, &Backend::interactionChanged);
            connect(m_interactions, &InteractionBroker::interactionResolved, this, &Backend::interactionResolved);
            m_server = new McpHttpServer(m_options.server, m_registry, m_events, m_history->lastCallId() + 1);
            m_server->setInteractionBroker(m_interactions);
            listening = m_server->listen(error);
            if (listening)
                m_url = m_server->url();
        },
        Qt::BlockingQueuedConnection);
    if (!listening) {
        stop();
        return false;
    }
    QMetaObject::invokeMethod(
        m_serverContext,
        [this] {
            auto* feed = new HistoryFeed(m_history, MaxHistoryBacklog, m_events);
            connect(m_events, &BackendEvents::callsUpdated, feed, &HistoryFeed::feed);
            connect(feed, &HistoryFeed::fellBehind, this, &Backend::historyWriteFailed);
            connect(feed, &HistoryFeed::caughtUp, this, &Backend::historyWriteRecovered);
            connect(feed, &HistoryFeed::caughtUp, this, &Backend::historyNotice);
        },
        Qt::BlockingQueuedConnection);
    connect(m_server, &McpHttpServer::sessionsChanged, this, &Backend::sessionsChanged);
    m_running = true;
    return true;
}

void Backend::stop()
{
    if (m_serverThread.isRunning()) {
        QMetaObject::invokeMethod(
            m_serverContext,
            [this] {
                if (m_server)
                    m_server->shutdown();
                if (m_events)
                    m_events->flush();
                delete m_server;
                if (m_interactions)
                    m_interactions->flush(); // the workspace state is on disk before the process ends
                delete m_interactions;
                m_interactions = nullptr;
                delete m_registry;
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
    if (m_historyThread.isRunning()) {
        // Queued record() calls from the last batch are ahead of this one in the history thread's
        // queue, so they are written before the store closes.
        QMetaObject::invokeMethod(
            m_history,
            [this] {
                m_history->flush();
                delete m_history;
                m_history = nullptr;
                delete m_stateWriter;
                m_stateWriter = nullptr;
            },
            Qt::BlockingQueuedConnection);
        m_historyThread.quit();
        m_historyThread.wait();
    } else {
        delete m_history;
        m_history = nullptr;
        delete m_stateWriter;
        m_stateWriter = nullptr;
    }
    m_running = false;
}

quint64 Backend::loadRecentCalls(int limit)
{
    const quint64 id = m_nextRequestId++;
    if (m_history)
        QMetaObject::invokeMethod(m_history, [history = m_history, id, limit] { history->loadRecent(id, limit); });
    return id;
}

quint64 Backend::queryHistory(const HistoryQuery& query)
{
    const quint64 id = m_nextRequestId++;
    if (m_history)
        QMetaObject::invokeMethod(m_history, [history = m_history, id, query] { history->query(id, query); });
    return id;
}

bool Backend::registerClientTools(QString* error)
{
    // OAuth providers come with the connect flow; until the configuration names some, OAuth asks are
    // refused with a message saying so.
    m_registry->add(ClientTool::requestConnection(QStringList()));
    for (const ClientToolConfig& config : m_options.config.clientTools) {
        RegisteredTool tool;
        QString problem;
        if (!ClientTool::fromConfig(config, &tool, &problem)) {
            *error = QStringLiteral("%1: clientTools: %2").arg(m_options.configPath, problem);
            return false;
        }
        if (m_registry->find(tool.spec.name.toStdString())) {
            *error = QStringLiteral("%1: clientTools: a tool named \"%2\" already exists")
                         .arg(m_options.configPath, tool.spec.name);
            return false;
        }
        m_registry->add(std::move(tool));
    }
    return true;
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
