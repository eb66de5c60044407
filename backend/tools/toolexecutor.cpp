#include "tools/toolexecutor.h"

#include "toolcall.h"
#include "tools/homethread.h"
#include "tools/thrownexception.h"
#include "tools/toolregistry.h"
#include "tools/toolrouter.h"
#include "tools/workerpool.h"

#include <QPointer>
#include <QTimerEvent>

#include <algorithm>

ToolExecutor::ToolExecutor(Settings settings, QObject* parent)
    : QObject(parent)
    , m_settings(settings)
    , m_home(HomeThread::create(this))
    , m_pool(std::make_unique<WorkerPool>(std::max(1, settings.workerThreads), QByteArrayLiteral("switchboard-tool")))
{
    m_settings.workerThreads = std::max(1, m_settings.workerThreads);
    m_settings.maxQueuedCalls = std::max(0, m_settings.maxQueuedCalls);
    if (m_settings.defaultDeadlineMs <= 0)
        m_settings.defaultDeadlineMs = Settings().defaultDeadlineMs;
}

ToolExecutor::~ToolExecutor()
{
    shutDown();
}

QString ToolExecutor::deadlineMessage(const QString& tool, qint64 deadlineMs)
{
    const QString limit = deadlineMs % 1000 == 0 ? QStringLiteral("%1 s").arg(deadlineMs / 1000)
                                                 : QStringLiteral("%1 ms").arg(deadlineMs);
    return QStringLiteral("Tool \"%1\" did not finish within its deadline of %2 and was stopped; nothing it returns "
                          "later is used. Try again with less work, or ask the operator to raise the tool's deadline.")
        .arg(tool, limit);
}

ToolResult ToolExecutor::failureResult(const QString& tool, std::exception_ptr thrown)
{
    // Its text is cut as every message built from what a tool gave (ToolRouter::MaxMessageChars).
    return ToolResult::error(
        QStringLiteral("Tool \"%1\" failed: %2")
            .arg(
                tool, ToolCall::boundedText(ThrownException::describe(std::move(thrown)), ToolRouter::MaxMessageChars)),
        CallStatus::ToolError);
}

void ToolExecutor::run(
    const std::shared_ptr<const RegisteredTool>& tool, const std::shared_ptr<ToolCallContext>& context)
{
    if (context->isFinished() || context->isCancelled())
        return;
    const quint64 serial = m_nextSerial++;
    const qint64 deadlineMs = m_settings.toolDeadlinesMs.value(
        tool->spec.name, tool->execution.deadlineMs > 0 ? tool->execution.deadlineMs : m_settings.defaultDeadlineMs);
    context->setDeadline(ToolCallContext::Clock::now() + std::chrono::milliseconds(deadlineMs));

    if (m_shutDown) {
        // Ended by the shutdown, as a call still running then is: cancelled.
        context->finish(
            ToolResult::error(QStringLiteral("Tool \"%1\" did not run: the server is stopping.").arg(tool->spec.name),
                CallStatus::Cancelled));
        return;
    }

    if (tool->execution.kind == ExecutionKind::BackendThread) {
        // Whatever the tool throws (not only a std::exception) ends its call here: let through, it
        // would reach the backend thread's event loop, which aborts the process.
        try {
            tool->handler(context);
        } catch (...) {
            context->finish(failureResult(tool->spec.name, std::current_exception()));
        }
        // Most backend-thread tools finish at once; only those that go on (asynchronous work) are
        // watched for their deadline.
        if (!context->isFinished() && !context->isCancelled())
            watch(serial, context, deadlineMs);
        return;
    }

    Job job;
    job.serial = serial;
    job.tool = tool;
    job.context = context;
    if (tool->execution.serializationKey) {
        try { // the tool's code, on this thread
            job.key = tool->execution.serializationKey(context->arguments());
        } catch (...) {
            context->finish(failureResult(tool->spec.name, std::current_exception()));
            return;
        }
    }
    job.group = tool->execution.group;
    job.groupLimit = tool->execution.groupLimit;
    if (canStart(job)) {
        watch(serial, context, deadlineMs);
        start(std::move(job));
        return;
    }
    if (int(m_queue.size()) >= m_settings.maxQueuedCalls) {
        // Overload is none of the finer statuses (the tool is fine, nothing timed out): an error.
        context->finish(ToolResult::error(
            QStringLiteral("Tool \"%1\" did not run: %2 calls are already waiting for a worker. Try again shortly.")
                .arg(tool->spec.name)
                .arg(m_queue.size()),
            CallStatus::Error));
        return;
    }
    // The deadline counts from now: a call that waits too long for its repository also ends.
    watch(serial, context, deadlineMs);
    m_queue.push_back(std::move(job));
}

void ToolExecutor::watch(quint64 serial, const std::shared_ptr<ToolCallContext>& context, qint64 deadlineMs)
{
    const auto deadline = *context->deadline();
    m_watched[serial] = Watched{context, deadline, deadlineMs, context->metadata().tool};
    if (!context->isDeadlinePaused())
        m_deadlines.emplace(deadline, serial);
    // The context tells when it settles (finished, cancelled, expired), so nothing is kept for a call
    // that is over.
    QPointer<ToolExecutor> self(this);
    context->setSettledHandler([self, serial] {
        if (self)
            self->unwatch(serial);
    });
    context->setDeadlineMovedHandler([self, serial] {
        if (self)
            self->rewatch(serial);
    });
    armDeadlineTimer();
}

void ToolExecutor::rewatch(quint64 serial)
{
    const auto it = m_watched.find(serial);
    if (it == m_watched.end())
        return;
    m_deadlines.erase({it->second.deadline, serial});
    const std::shared_ptr<ToolCallContext> context = it->second.context.lock();
    // While paused the call has no deadline to watch; resumed, its deadline moved on by the pause.
    if (context && !context->isDeadlinePaused() && context->deadline()) {
        it->second.deadline = *context->deadline();
        m_deadlines.emplace(it->second.deadline, serial);
    }
    armDeadlineTimer();
}

void ToolExecutor::unwatch(quint64 serial)
{
    const auto it = m_watched.find(serial);
    if (it == m_watched.end())
        return;
    m_deadlines.erase({it->second.deadline, serial});
    m_watched.erase(it);
    // A queued job whose call settled (cancelled while it waited) leaves the queue now, so the queue
    // holds only work that will run.
    const auto queued
        = std::find_if(m_queue.begin(), m_queue.end(), [serial](const Job& j) { return j.serial == serial; });
    if (queued != m_queue.end())
        m_queue.erase(queued);
    armDeadlineTimer();
}

bool ToolExecutor::canStart(const Job& job) const
{
    if (m_runningBlocking >= m_settings.workerThreads)
        return false;
    if (!job.key.isEmpty() && m_busyKeys.count(job.key))
        return false;
    if (!job.group.isEmpty() && job.groupLimit > 0) {
        const auto it = m_groupRunning.find(job.group);
        if (it != m_groupRunning.end() && it->second >= job.groupLimit)
            return false;
    }
    return true;
}

void ToolExecutor::start(Job job)
{
    ++m_runningBlocking;
    if (!job.key.isEmpty())
        m_busyKeys.insert(job.key);
    if (!job.group.isEmpty())
        ++m_groupRunning[job.group];
    m_runningContexts[job.serial] = job.context;
    const qint64 callId = job.context->metadata().callId;
    // The worker holds the tool and the context (both shared), and the home thread to hand back
    // through: nothing of this executor but its address, which only work run by the home thread
    // uses (the home thread drains only while this executor lives; close() drops what is left).
    std::shared_ptr<HomeThread> home = m_home;
    const quint64 serial = job.serial;
    m_pool->start([job = std::move(job), home, executor = this, callId, serial]() mutable {
        std::shared_ptr<ToolCallContext> context = std::move(job.context);
        std::shared_ptr<const RegisteredTool> tool = std::move(job.tool);
        if (!context->isCancelled()) {
            ToolResult result;
            try {
                result = tool->blockingHandler(*context);
            } catch (...) {
                result = failureResult(tool->spec.name, std::current_exception());
            }
            context->finish(std::move(result)); // posted home; dropped if the call is over
        }
        // The context and the tool go home with the news, so they are let go on the thread that
        // made them.
        home->post([executor, key = job.key, group = job.group, callId, serial, context = std::move(context),
                       tool = std::move(tool)] {
            executor->m_runningContexts.erase(serial);
            executor->workEnded(key, group, callId);
        });
    });
}

void ToolExecutor::workEnded(const QString& key, const QString& group, qint64 callId)
{
    --m_runningBlocking;
    if (!key.isEmpty())
        m_busyKeys.erase(key);
    if (!group.isEmpty()) {
        if (const auto it = m_groupRunning.find(group); it != m_groupRunning.end() && --it->second <= 0)
            m_groupRunning.erase(it);
    }
    Q_EMIT blockingWorkEnded(callId);
    startWaitingJobs();
}

void ToolExecutor::startWaitingJobs()
{
    if (m_shutDown)
        return;
    // In arrival order; a job whose key or group is busy lets later ones of other keys pass.
    for (auto it = m_queue.begin(); it != m_queue.end() && m_runningBlocking < m_settings.workerThreads;) {
        if (it->context->isFinished() || it->context->isCancelled()) {
            it = m_queue.erase(it);
            continue;
        }
        if (!canStart(*it)) {
            ++it;
            continue;
        }
        Job job = std::move(*it);
        it = m_queue.erase(it);
        start(std::move(job)); // changes no container being walked but the busy sets
    }
}

void ToolExecutor::armDeadlineTimer()
{
    if (m_deadlines.empty()) {
        m_deadlineTimer.stop();
        return;
    }
    const auto due = m_deadlines.begin()->first;
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - ToolCallContext::Clock::now());
    m_deadlineTimer.start(int(std::clamp<qint64>(wait.count() + 1, 0, 24 * 3600 * 1000)), Qt::PreciseTimer, this);
}

void ToolExecutor::timerEvent(QTimerEvent* event)
{
    if (event->timerId() != m_deadlineTimer.timerId()) {
        QObject::timerEvent(event);
        return;
    }
    expireDue();
}

void ToolExecutor::expireDue()
{
    // Expiring a call runs the session's completion (a socket write that can close connections and
    // cancel other calls, which unwatch themselves): the due calls are collected first and each is
    // looked up again.
    const auto now = ToolCallContext::Clock::now();
    std::vector<quint64> due;
    for (const auto& [deadline, serial] : m_deadlines) {
        if (deadline > now)
            break;
        due.push_back(serial);
    }
    for (const quint64 serial : due) {
        const auto it = m_watched.find(serial);
        if (it == m_watched.end())
            continue;
        const std::shared_ptr<ToolCallContext> context = it->second.context.lock();
        const QString message = deadlineMessage(it->second.tool, it->second.deadlineMs);
        unwatch(serial);
        if (context)
            context->expire(ToolResult::error(message, CallStatus::TimedOut));
    }
    armDeadlineTimer();
}

void ToolExecutor::shutDown()
{
    if (m_shutDown)
        return;
    m_shutDown = true;
    m_queue.clear();
    // Every worker's call is cancelled; the tools that honour the token return at once.
    std::vector<std::shared_ptr<ToolCallContext>> running;
    for (const auto& [serial, weak] : m_runningContexts) {
        if (auto context = weak.lock())
            running.push_back(std::move(context));
    }
    for (const auto& context : running)
        context->cancel();
    m_home->close();
    const int stuck = m_pool->activeCount();
    if (!m_pool->shutDown(m_settings.shutdownGraceMs)) {
        // A tool ignores cancellation. Waiting for it would hang the shutdown; its worker holds only
        // shared state and a closed home, so it is left to end on its own with the process.
        qWarning("switchboard: %d blocking tool call(s) ignored cancellation for %lld ms at shutdown; not waiting "
                 "for them",
            stuck, static_cast<long long>(m_settings.shutdownGraceMs));
    }
    m_deadlineTimer.stop();
}
