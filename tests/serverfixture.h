#pragma once

// ServerFixture: a real McpHttpServer on port 0, on a thread of its own (as the Backend runs it),
// with the builtin tools plus test tools: "slow" finishes only when released, and counts the
// cancellations that aborted its work.

#include "backendevents.h"
#include "mcp/mcphttpserver.h"
#include "tools/builtintools.h"
#include "tools/toolregistry.h"

#include <QMutex>
#include <QThread>

#include <atomic>
#include <vector>

class ServerFixture
{
public:
    explicit ServerFixture(McpServerOptions options = defaultOptions())
    {
        m_context.moveToThread(&m_thread);
        m_thread.start();
        run([this, options] {
            m_events = new BackendEvents;
            m_registry = new ToolRegistry;
            registerBuiltinTools(*m_registry);
            RegisteredTool slow;
            slow.spec.name = QStringLiteral("slow");
            slow.spec.description = QStringLiteral("Finishes when the test releases it");
            slow.route = QStringLiteral("builtin");
            slow.handler = [this](const std::shared_ptr<ToolCallContext>& context) {
                m_slow.push_back(context);
                context->setCancellationHandler([this] { ++abortedWork; });
            };
            m_registry->add(slow);
            QObject::connect(m_events, &BackendEvents::callFinished, m_events, [this](const ToolCall& call) {
                QMutexLocker lock(&m_mutex);
                m_finished.append(call);
            });
            m_server = new McpHttpServer(options, m_registry, m_events, 1);
            QString error;
            if (m_server->listen(&error))
                port = m_server->port();
        });
    }

    ~ServerFixture()
    {
        run([this] {
            m_server->shutdown();
            delete m_server;
            delete m_registry;
            delete m_events;
        });
        m_thread.quit();
        m_thread.wait();
    }

    static McpServerOptions defaultOptions()
    {
        McpServerOptions options;
        options.port = 0;
        options.bearerToken = token();
        options.identity.version = QStringLiteral("test");
        return options;
    }
    static QByteArray token() { return QByteArrayLiteral("sb_test-token-0123456789"); }

    void run(const std::function<void()>& work)
    {
        QMetaObject::invokeMethod(&m_context, work, Qt::BlockingQueuedConnection);
    }

    // Finishes every pending "slow" call with `text`.
    void releaseSlow(const QString& text)
    {
        run([this, text] {
            for (const auto& context : m_slow)
                context->finish(ToolResult::text(text));
            m_slow.clear();
        });
    }
    int pendingSlow()
    {
        int count = 0;
        run([&] {
            for (const auto& context : m_slow)
                count += context->isCancelled() || context->isFinished() ? 0 : 1;
        });
        return count;
    }
    void addTool(const QString& name)
    {
        run([this, name] {
            RegisteredTool tool;
            tool.spec.name = name;
            tool.route = QStringLiteral("builtin");
            tool.handler = [](const std::shared_ptr<ToolCallContext>& c) { c->finish({}); };
            m_registry->add(tool);
        });
    }
    ToolCallList finishedCalls()
    {
        QMutexLocker lock(&m_mutex);
        return m_finished;
    }
    int sessionCount()
    {
        int count = 0;
        run([&] { count = m_server->sessionCount(); });
        return count;
    }

    quint16 port = 0;
    std::atomic<int> abortedWork{0};

private:
    QThread m_thread;
    QObject m_context;
    BackendEvents* m_events = nullptr;
    ToolRegistry* m_registry = nullptr;
    McpHttpServer* m_server = nullptr;
    std::vector<std::shared_ptr<ToolCallContext>> m_slow;
    QMutex m_mutex;
    ToolCallList m_finished;
};
