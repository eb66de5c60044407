#pragma once

// ServerFixture: a real McpHttpServer on port 0, on a thread of its own (as the Backend runs it),
// with the builtin tools plus test tools: "slow" finishes only when released, and counts the
// cancellations that aborted its work; "write" is not read-only (so it asks when approvals are on)
// and counts its runs; "flood" sends many large progress notifications at once; the debug.* tools run on the executor's
// worker pool (tools/debugtools.h). With interaction settings, calls go through a real InteractionBroker and
// request_connection is offered.

#include "blockingcall.h"
#include "events/backendevents.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "tools/builtintools.h"
#include "tools/debugtools.h"
#include "tools/toolexecutor.h"
#include "tools/toolregistry.h"
#include "transport/mcphttpserver.h"

#include <QMutex>
#include <QSemaphore>
#include <QThread>

#include <atomic>
#include <optional>
#include <vector>

class ServerFixture
{
public:
    explicit ServerFixture(McpServerOptions options = defaultOptions(),
        std::optional<InteractionBroker::Settings> interactions = std::nullopt)
    {
        m_context.moveToThread(&m_thread);
        m_thread.start();
        run([this, options, interactions] {
            m_events = new BackendEvents;
            m_registry = new ToolRegistry;
            registerBuiltinTools(*m_registry);
            RegisteredTool slow;
            slow.spec.name = QStringLiteral("slow");
            slow.spec.description = QStringLiteral("Finishes when the test releases it");
            // Read-only: where approvals are on, it runs without asking (a long call, not a question).
            slow.spec.annotations = nlohmann::json{{"readOnlyHint", true}};
            slow.route = ToolRoute::builtin();
            slow.handler = [this](const std::shared_ptr<ToolCallContext>& context) {
                m_slow.push_back(context);
                context->setCancellationHandler([this] { ++abortedWork; });
            };
            m_registry->add(slow);
            RegisteredTool write;
            write.spec.name = QStringLiteral("write");
            write.spec.inputSchema
                = nlohmann::json{{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}};
            write.spec.annotations = nlohmann::json{{"readOnlyHint", false}};
            write.route = ToolRoute::builtin();
            write.handler = [this](const std::shared_ptr<ToolCallContext>& context) {
                ++writeRuns;
                context->finish(ToolResult::text(QStringLiteral("written")));
            };
            m_registry->add(write);
            RegisteredTool flood;
            flood.spec.name = QStringLiteral("flood");
            flood.spec.description = QStringLiteral("Sends `count` progress notifications of `bytes` each at once");
            flood.route = ToolRoute::builtin();
            flood.handler = [](const std::shared_ptr<ToolCallContext>& context) {
                const int count = context->arguments().value("count", 1);
                const QString message(context->arguments().value("bytes", 1), QLatin1Char('x'));
                for (int i = 1; i <= count; ++i)
                    context->reportProgress(i, count, message);
                context->finish(ToolResult::text(QStringLiteral("flooded")));
            };
            m_registry->add(flood);
            // Logs a warning, then answers: log messages at a level above the default's.
            RegisteredTool warn;
            warn.spec.name = QStringLiteral("warn");
            warn.route = ToolRoute::builtin();
            warn.handler = [](const std::shared_ptr<ToolCallContext>& context) {
                context->log(LogLevel::Warning, nlohmann::json{{"careful", true}}, QStringLiteral("warn"));
                context->finish(ToolResult::text(QStringLiteral("warned")));
            };
            m_registry->add(warn);
            // An argument a 2026-07-28 client mirrors in a header (x-mcp-header: Mcp-Param-Region).
            RegisteredTool tagged;
            tagged.spec.name = QStringLiteral("tagged");
            tagged.spec.inputSchema = nlohmann::json{
                {"type", "object"}, {"properties", {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}}}}};
            tagged.route = ToolRoute::builtin();
            tagged.handler = [](const std::shared_ptr<ToolCallContext>& context) {
                context->finish(ToolResult::text(QStringLiteral("tagged")));
            };
            if (!m_registry->add(tagged))
                qFatal("the tagged tool was refused");
            // Asks the client's own user for a name while it runs (as an upstream's elicitation is
            // relayed), answering with what it hears, or says that it could not ask.
            RegisteredTool askUser;
            askUser.spec.name = QStringLiteral("ask_user");
            askUser.spec.annotations = nlohmann::json{{"readOnlyHint", true}};
            askUser.route = ToolRoute::builtin();
            askUser.handler = [](const std::shared_ptr<ToolCallContext>& context) {
                std::weak_ptr<ToolCallContext> weak = context;
                const bool asked = context->askClient(QStringLiteral("elicitation/create"),
                    nlohmann::json{{"mode", "form"}, {"message", "Your name?"},
                        {"requestedSchema", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}},
                    [weak](const nlohmann::json& result, const nlohmann::json&) {
                        if (const auto owner = weak.lock())
                            owner->finish(ToolResult::text(QString::fromStdString(result.value("action", std::string()))
                                + QLatin1Char(' ')
                                + QString::fromStdString(
                                    result.value("content", nlohmann::json::object()).value("name", std::string()))));
                    });
                if (!asked)
                    context->finish(ToolResult::text(QStringLiteral("could not ask the client")));
            };
            m_registry->add(askUser);
            m_registry->replaceSource(QStringLiteral("debug"), debugTools());
            if (interactions) {
                m_registry->add(ClientTool::requestConnection({QStringLiteral("github")}));
                m_broker = new InteractionBroker(*interactions, m_registry);
                if (!interactions->statePath.isEmpty()) {
                    // As the application does before it serves: what an earlier run left is restored.
                    QString warning;
                    if (m_broker->load(&warning) != InteractionBroker::LoadResult::Loaded)
                        qWarning("ServerFixture: the state was not loaded: %s", qPrintable(warning));
                }
            }
            QObject::connect(m_events, &BackendEvents::callFinished, m_events, [this](const ToolCall& call) {
                QMutexLocker lock(&m_mutex);
                m_finished.append(call);
            });
            m_server = new McpHttpServer(options, m_registry, m_events, 1);
            m_server->setInteractionBroker(m_broker);
            QString error;
            if (m_server->listen(&error))
                port = m_server->port();
            else
                qWarning("ServerFixture: the server does not listen: %s", qPrintable(error));
        });
    }

    ~ServerFixture()
    {
        run([this] {
            m_server->shutdown();
            delete m_server;
            delete m_broker;
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

    void run(const std::function<void()>& work) { runBlocking(&m_context, work); }

    // Holds the server's thread until `release` is released, returning once it is held: what
    // clients do meanwhile reaches the server all at once, when its event loop turns again.
    void holdServerThread(QSemaphore* release)
    {
        QSemaphore held;
        QMetaObject::invokeMethod(
            &m_context,
            [&held, release] {
                held.release();
                release->acquire();
            },
            Qt::QueuedConnection);
        held.acquire();
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
            tool.route = ToolRoute::builtin();
            tool.handler = [](const std::shared_ptr<ToolCallContext>& c) { c->finish({}); };
            m_registry->add(tool);
        });
    }
    // Registers `tool` on the server's thread; returns what ToolRegistry::add returned.
    bool addTool(RegisteredTool tool, QString* error = nullptr)
    {
        bool added = false;
        run([this, &tool, &added, error] { added = m_registry->add(std::move(tool), error); });
        return added;
    }
    // Replaces the tool source `source` with one backend-thread tool per name, in one step.
    int replaceSource(const QString& source, const QStringList& names)
    {
        int offered = 0;
        run([&] {
            std::vector<RegisteredTool> tools;
            for (const QString& name : names) {
                RegisteredTool tool;
                tool.spec.name = name;
                tool.route = ToolRoute::adapter(source);
                tool.handler = [](const std::shared_ptr<ToolCallContext>& c) { c->finish({}); };
                tools.push_back(std::move(tool));
            }
            offered = m_registry->replaceSource(source, std::move(tools));
        });
        return offered;
    }
    ToolCallList finishedCalls()
    {
        // A list of its own, not a shared one: the server thread appends to m_finished while the
        // test reads, and Qt's implicit sharing is invisible to ThreadSanitizer (Qt is not built
        // with it), which would see the server's append move records the test is reading.
        QMutexLocker lock(&m_mutex);
        ToolCallList copy;
        copy.reserve(m_finished.size());
        for (const ToolCall& call : std::as_const(m_finished))
            copy.append(call);
        return copy;
    }
    // Blocking tool calls whose worker has not handed back yet (one that outlived its deadline too).
    int runningBlockingCount()
    {
        int count = 0;
        run([&] { count = m_server->host().executor().runningBlockingCount(); });
        return count;
    }
    int sessionCount()
    {
        int count = 0;
        run([&] { count = m_server->sessionCount(); });
        return count;
    }
    int listenStreamCount()
    {
        int count = 0;
        run([&] { count = m_server->listenStreamCount(); });
        return count;
    }
    int requestSessionCount()
    {
        int count = 0;
        run([&] { count = m_server->requestSessionCount(); });
        return count;
    }

    PendingInteractionList pendingInteractions()
    {
        PendingInteractionList list;
        run([&] { list = m_broker->pending(); });
        return list;
    }
    // Answers as the person at the console would; returns the broker's error, empty on success.
    QString answer(const QString& interactionId, const InteractionAnswer& answer)
    {
        QString error;
        run([&] { m_broker->answer(interactionId, answer, &error); });
        return error;
    }

    // The tasks the broker's store holds (the Tasks extension), as they are now.
    TaskRecordList tasks()
    {
        TaskRecordList list;
        run([&] { list = m_broker->tasks().all(); });
        return list;
    }
    // Works on the task store on the server's thread (a sweep, a count).
    void withTasks(const std::function<void(TaskStore&)>& work)
    {
        run([&] { work(m_broker->tasks()); });
    }

    quint16 port = 0;
    std::atomic<int> abortedWork{0};
    std::atomic<int> writeRuns{0};

private:
    QThread m_thread;
    QObject m_context;
    BackendEvents* m_events = nullptr;
    ToolRegistry* m_registry = nullptr;
    McpHttpServer* m_server = nullptr;
    InteractionBroker* m_broker = nullptr;
    std::vector<std::shared_ptr<ToolCallContext>> m_slow;
    QMutex m_mutex;
    ToolCallList m_finished;
};
