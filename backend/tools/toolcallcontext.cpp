#include "tools/toolcallcontext.h"

#include "tools/homethread.h"
#include "tools/thrownexception.h"

#include <cmath>
#include <limits>

using nlohmann::json;

namespace {

qint64 steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

ToolCallContext::ToolCallContext(json arguments, CallMetadata metadata, Hooks hooks, std::shared_ptr<HomeThread> home)
    : m_arguments(std::move(arguments))
    , m_metadata(std::move(metadata))
    , m_hooks(std::move(hooks))
    , m_home(std::move(home))
    , m_lastNotificationMs(steadyMs())
{}

ToolCallContext::~ToolCallContext() = default;

bool ToolCallContext::onHomeThread() const
{
    return !m_home || m_home->isCurrent();
}

void ToolCallContext::onHome(std::function<void(ToolCallContext&)> work)
{
    if (onHomeThread()) {
        work(*this);
        return;
    }
    // Held until the work runs: the flags decide, there, whether a call the session has let go of
    // (cancelled, expired) still takes anything from it; it never does.
    m_home->post([self = shared_from_this(), work = std::move(work)] { work(*self); });
}

bool ToolCallContext::waitForCancellation(std::chrono::milliseconds duration) const
{
    std::unique_lock lock(m_mutex);
    return m_cancelledChanged.wait_for(lock, duration, [this] { return isCancelled(); });
}

void ToolCallContext::setCancellationHandler(std::function<void()> handler)
{
    m_cancellationHandler = std::move(handler);
}

void ToolCallContext::setDetailsSource(std::function<json()> source)
{
    std::lock_guard lock(m_mutex);
    m_detailsSource = std::move(source);
}

json ToolCallContext::details() const
{
    std::function<json()> source;
    {
        std::lock_guard lock(m_mutex);
        source = m_detailsSource;
    }
    if (!source)
        return json();
    try { // the tool's code, called on the home thread
        return source();
    } catch (...) {
        return json{{"detailsError",
            QStringLiteral("the tool's details could not be read: %1")
                .arg(ThrownException::describe(std::current_exception()))
                .toStdString()}};
    }
}

void ToolCallContext::setSettledHandler(std::function<void()> handler)
{
    m_settledHandler = std::move(handler);
}

std::optional<ToolCallContext::Clock::time_point> ToolCallContext::deadline() const
{
    const std::lock_guard lock(m_mutex);
    return m_deadline;
}

void ToolCallContext::setDeadline(Clock::time_point deadline)
{
    const std::lock_guard lock(m_mutex);
    m_deadline = deadline;
}

void ToolCallContext::pauseDeadline()
{
    if (m_deadlinePauses++ > 0)
        return;
    m_pausedAt = Clock::now();
    if (m_deadlineMovedHandler)
        m_deadlineMovedHandler();
}

void ToolCallContext::resumeDeadline()
{
    if (m_deadlinePauses == 0 || --m_deadlinePauses > 0)
        return;
    m_pausedBefore += Clock::now() - m_pausedAt;
    {
        const std::lock_guard lock(m_mutex);
        if (m_deadline)
            *m_deadline += Clock::now() - m_pausedAt;
    }
    if (m_deadlineMovedHandler)
        m_deadlineMovedHandler();
}

bool ToolCallContext::isDeadlinePaused() const
{
    return m_deadlinePauses > 0;
}

std::chrono::microseconds ToolCallContext::pausedTime() const
{
    const Clock::duration paused
        = m_pausedBefore + (m_deadlinePauses > 0 ? Clock::now() - m_pausedAt : Clock::duration{});
    return std::chrono::duration_cast<std::chrono::microseconds>(paused);
}

void ToolCallContext::setDeadlineMovedHandler(std::function<void()> handler)
{
    m_deadlineMovedHandler = std::move(handler);
}

void ToolCallContext::reportProgress(double progress, std::optional<double> total, const QString& message)
{
    if (isFinished() || isCancelled() || !hasProgressToken() || !std::isfinite(progress))
        return;
    onHome([progress, total, message](ToolCallContext& self) { self.sendProgress(progress, total, message); });
}

void ToolCallContext::sendProgress(double progress, std::optional<double> total, const QString& message)
{
    if (isFinished() || isCancelled() || !hasProgressToken() || !m_hooks.notify)
        return;
    // The specification wants every progress value above the one before; a heartbeat or a tool
    // that goes back is sent just above the last value instead of breaking that.
    if (m_lastProgress && progress <= *m_lastProgress)
        progress = std::nextafter(*m_lastProgress, std::numeric_limits<double>::infinity());
    m_lastProgress = progress;
    if (total)
        m_lastTotal = total;
    json params{{"progressToken", m_metadata.progressToken}, {"progress", progress}};
    if (total)
        params["total"] = *total;
    if (!message.isEmpty())
        params["message"] = message.toStdString();
    m_lastNotificationMs = steadyMs();
    m_hooks.notify(json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", std::move(params)}});
}

void ToolCallContext::sendHeartbeatProgress(const QString& message)
{
    sendProgress(m_lastProgress.value_or(0.0), m_lastTotal, message);
}

void ToolCallContext::noteKeepAlive()
{
    m_lastNotificationMs = steadyMs();
}

void ToolCallContext::log(LogLevel level, const json& data, const QString& logger)
{
    if (isFinished() || isCancelled())
        return;
    onHome([level, data, logger](ToolCallContext& self) {
        if (self.isFinished() || self.isCancelled() || !self.m_hooks.notify || !self.m_hooks.wantsLog
            || !self.m_hooks.wantsLog(level))
            return;
        json params{{"level", logLevelName(level)}, {"data", data}};
        if (!logger.isEmpty())
            params["logger"] = logger.toStdString();
        self.m_lastNotificationMs = steadyMs();
        self.m_hooks.notify(
            json{{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", std::move(params)}});
    });
}

void ToolCallContext::finish(ToolResult result)
{
    if (isFinished() || isCancelled())
        return;
    onHome([result = std::move(result)](ToolCallContext& self) mutable {
        if (self.isFinished() || self.isCancelled())
            return;
        self.m_finished.store(true, std::memory_order_release);
        if (self.m_hooks.complete)
            self.m_hooks.complete(std::move(result));
        self.settle();
    });
}

void ToolCallContext::cancel()
{
    if (isFinished())
        return;
    {
        const std::lock_guard lock(m_mutex);
        if (m_cancelled.exchange(true, std::memory_order_acq_rel))
            return;
    }
    m_cancelledChanged.notify_all();
    runCancellationHandler();
    settle();
}

void ToolCallContext::expire(ToolResult result)
{
    if (isFinished() || isCancelled())
        return;
    m_finished.store(true, std::memory_order_release);
    {
        const std::lock_guard lock(m_mutex);
        m_cancelled.store(true, std::memory_order_release);
    }
    m_cancelledChanged.notify_all();
    runCancellationHandler();
    if (m_hooks.complete)
        m_hooks.complete(std::move(result));
    settle();
}

void ToolCallContext::runCancellationHandler()
{
    if (!m_cancellationHandler)
        return;
    const std::function<void()> handler = std::exchange(m_cancellationHandler, nullptr);
    try { // the tool's code: the call is cancelled (or ended) whatever it throws
        handler();
    } catch (...) {
        qWarning("switchboard: call %lld (%s): the tool failed while stopping its work: %s",
            static_cast<long long>(m_metadata.callId), qPrintable(m_metadata.tool),
            qPrintable(ThrownException::describe(std::current_exception())));
    }
}

void ToolCallContext::settle()
{
    m_deadlineMovedHandler = nullptr;
    if (m_settledHandler)
        std::exchange(m_settledHandler, nullptr)();
}

bool ToolCallContext::askClient(const QString& method, const nlohmann::json& params, ClientReply reply)
{
    if (isFinished() || isCancelled() || !m_hooks.askClient)
        return false;
    return m_hooks.askClient(method, params, std::move(reply));
}
