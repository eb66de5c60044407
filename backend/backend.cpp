#include "backend.h"

#include "backendevents.h"
#include "backgroundpriority.h"
#include "store/historyfeed.h"
#include "store/historystore.h"
#include "tools/builtintools.h"
#include "tools/toolregistry.h"

#include <QDir>

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
            m_server = new McpHttpServer(m_options.server, m_registry, m_events, m_history->lastCallId() + 1);
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
