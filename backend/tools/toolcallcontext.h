#pragma once

// ToolCallContext: everything a running tool may use: its arguments, progress and log
// notifications to the calling client, the cancellation flag, and the one way to finish.
//
// A context belongs to the backend thread. Only isCancelled() may be read from a worker thread;
// workers post their results back to the backend thread before calling finish().

#include "tools/loglevel.h"
#include "tools/toolresult.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <optional>

class ToolCallContext
{
public:
    struct Hooks
    {
        std::function<void(const nlohmann::json& notification)> notify; // to the client, before the result
        std::function<bool(LogLevel level)> wantsLog; // the session's logging/setLevel
        std::function<void(ToolResult result)> complete; // exactly once
    };

    ToolCallContext(nlohmann::json arguments, nlohmann::json progressToken, Hooks hooks);

    const nlohmann::json& arguments() const { return m_arguments; }
    bool hasProgressToken() const { return !m_progressToken.is_null(); }

    bool isCancelled() const { return m_cancelled.load(std::memory_order_relaxed); }
    bool isFinished() const { return m_finished; }
    // Runs once when the call is cancelled, so in-flight work can be aborted rather than left
    // running.
    void setCancellationHandler(std::function<void()> handler);

    // Sends notifications/progress when the client asked for progress; otherwise does nothing.
    void reportProgress(double progress, std::optional<double> total = std::nullopt, const QString& message = {});
    // Sends notifications/message when the session's level lets `level` through.
    void log(LogLevel level, const nlohmann::json& data, const QString& logger = {});
    // Finishes the call; later calls (and calls after cancellation) are ignored.
    void finish(ToolResult result);

    // For the session: marks the call cancelled and runs the cancellation handler.
    void cancel();

private:
    nlohmann::json m_arguments;
    nlohmann::json m_progressToken;
    Hooks m_hooks;
    std::function<void()> m_cancellationHandler;
    std::atomic<bool> m_cancelled{false};
    bool m_finished = false;
};
