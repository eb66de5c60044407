#pragma once

// ToolCallContext: everything a running tool may use: its arguments and call metadata, progress
// and log notifications to the calling client, the cancellation token, the deadline, and the one
// way to finish.
//
// Safe to use from any thread. The session's hooks run only on the context's home thread (the
// backend thread): progress, log messages and the result given on another thread (a worker of the
// ToolExecutor) are posted there. A result that arrives after the call was cancelled or ran out of
// time is dropped.

#include "protocol/loglevel.h"
#include "toolroute.h"
#include "tools/toolresult.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

class HomeThread;

// Who asked for what: set once when the call is admitted, read-only afterwards.
struct CallMetadata
{
    qint64 callId = 0;
    QString tool; // the tool's own name (aliases resolved)
    ToolRoute route;
    QString sessionId;
    QString clientName;
    QString clientVersion;
    nlohmann::json progressToken; // null when the client asked for no progress
    // Invocation metadata a caller verified before handing the call over (the one-shot runner's
    // metadata.invocation with its user context token); null for calls that came over HTTP.
    nlohmann::json invocation;
};

class ToolCallContext : public std::enable_shared_from_this<ToolCallContext>
{
public:
    // How the client's user answered a request askClient() sent: a result (an ElicitResult), or an
    // error object ({"code", "message"}). Exactly once.
    using ClientReply = std::function<void(const nlohmann::json& result, const nlohmann::json& error)>;
    struct Hooks
    {
        std::function<void(const nlohmann::json& notification)> notify; // to the client, before the result
        std::function<bool(LogLevel level)> wantsLog; // the session's logging/setLevel
        std::function<void(ToolResult result)> complete; // exactly once
        // Asks the client's own user (askClient); null when the call's client cannot be asked.
        std::function<bool(const QString& method, const nlohmann::json& params, ClientReply reply)> askClient;
    };
    using Clock = std::chrono::steady_clock;

    // `home` is where the hooks run; null means the thread that creates the context, with no
    // posting (tests that drive a tool directly).
    ToolCallContext(
        nlohmann::json arguments, CallMetadata metadata, Hooks hooks, std::shared_ptr<HomeThread> home = nullptr);
    ~ToolCallContext();

    const nlohmann::json& arguments() const { return m_arguments; }
    const CallMetadata& metadata() const { return m_metadata; }
    bool hasProgressToken() const { return !m_metadata.progressToken.is_null(); }

    // The cancellation token: set when the client cancels, the connection closes, the session ends,
    // the server stops, or the deadline passes. Blocking work checks it (or waits on it) and stops.
    bool isCancelled() const { return m_cancelled.load(std::memory_order_acquire); }
    // Sleeps up to `duration`, waking at once when the call is cancelled; returns isCancelled().
    bool waitForCancellation(std::chrono::milliseconds duration) const;
    bool isFinished() const { return m_finished.load(std::memory_order_acquire); }
    // Runs once, on the home thread, when the call is cancelled (or runs out of time), so in-flight
    // work can be aborted rather than left running.
    void setCancellationHandler(std::function<void()> handler);

    // When the call must have finished; none until the executor sets it.
    std::optional<Clock::time_point> deadline() const;
    void setDeadline(Clock::time_point deadline);
    // Time waiting for a person does not count against a call's deadline: a running tool that asks
    // one (an upstream's elicitation during the call) pauses the deadline while the question waits
    // (bounded by interaction.maxWaitSeconds) and resumes it when it is answered, moving it on by the
    // time paused. Pauses nest. Home thread.
    void pauseDeadline();
    void resumeDeadline();
    bool isDeadlinePaused() const;
    // How long the call's deadline has been paused in all, a pause still going on included: the
    // time the running tool waited for a person, which the call's record shows apart from the time
    // it ran. Home thread.
    std::chrono::microseconds pausedTime() const;
    // For the executor (home thread): runs when the deadline is paused or moves.
    void setDeadlineMovedHandler(std::function<void()> handler);

    // Sends notifications/progress when the client asked for progress; otherwise does nothing.
    // Progress only ever increases: a value not above the last one sent goes out just above it.
    void reportProgress(double progress, std::optional<double> total = std::nullopt, const QString& message = {});
    // Sends notifications/message when the session's level lets `level` through.
    void log(LogLevel level, const nlohmann::json& data, const QString& logger = {});
    // Asks the client's own user (a 2026-07-28 client carried by a task, which declared
    // elicitation): the request (`elicitation/create` and its params) goes to the client as the
    // task's input_required, and `reply` hears the answer the client sends with tasks/update (or
    // {"action": "cancel"} when the call ends first). False when this call's client cannot be asked
    // (then the caller asks at the console, as before). Home thread.
    bool askClient(const QString& method, const nlohmann::json& params, ClientReply reply);
    // Finishes the call; later calls (and calls after cancellation) are ignored.
    void finish(ToolResult result);

    // What the call's record shows besides the result (the inspector's Details): a JSON object the
    // tool builds, such as a command tool's envelope, stdout, stderr and exit status. The session
    // asks `source` once, on the home thread, when the call finishes or is cancelled, so a cancelled
    // call still shows what its work had done by then; `source` must therefore be safe to call from
    // the home thread while the work runs. Any thread may set it; the last one set wins.
    void setDetailsSource(std::function<nlohmann::json()> source);
    // The details as the source gives them now; null when the tool set none.
    nlohmann::json details() const;

    // For the session (home thread): marks the call cancelled and runs the cancellation handler.
    void cancel();
    // For the executor (home thread): the deadline passed. The call finishes with `result` and its
    // work is cancelled; whatever the work hands back later is dropped.
    void expire(ToolResult result);
    // For the executor (home thread): runs once when the call finishes, is cancelled or expires.
    void setSettledHandler(std::function<void()> handler);

    // For the session's heartbeat (home thread): milliseconds (steady clock) of the last
    // notification sent to the client, or of the call's start; and a progress notification that
    // repeats the last one sent, just above it, saying `message`.
    qint64 lastNotificationMs() const { return m_lastNotificationMs; }
    void sendHeartbeatProgress(const QString& message);
    // A keep-alive went out on the call's connection (a comment, not a notification).
    void noteKeepAlive();

private:
    bool onHomeThread() const;
    // Runs `work` on the home thread: now when this is it, otherwise posted (and dropped if the
    // context is gone by then).
    void onHome(std::function<void(ToolCallContext&)> work);
    void sendProgress(double progress, std::optional<double> total, const QString& message);
    void runCancellationHandler();
    void settle();

    const nlohmann::json m_arguments;
    const CallMetadata m_metadata;
    Hooks m_hooks;
    std::shared_ptr<HomeThread> m_home;
    std::function<void()> m_cancellationHandler; // home thread
    std::function<void()> m_settledHandler; // home thread
    std::function<void()> m_deadlineMovedHandler; // home thread
    int m_deadlinePauses = 0; // home thread
    Clock::time_point m_pausedAt; // home thread: when the outermost pause began
    Clock::duration m_pausedBefore{}; // home thread: the pauses that have ended, in all
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_finished{false};
    mutable std::mutex m_mutex; // guards m_deadline, m_detailsSource and the cancellation wait
    mutable std::condition_variable m_cancelledChanged;
    std::optional<Clock::time_point> m_deadline;
    std::function<nlohmann::json()> m_detailsSource;
    // Home thread only.
    std::optional<double> m_lastProgress;
    std::optional<double> m_lastTotal;
    qint64 m_lastNotificationMs = 0;
};
