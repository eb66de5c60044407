#pragma once

// ExecutionPolicy: how a tool runs. Cheap, non-blocking tools (echo, client tools, anything that
// only starts asynchronous work) run on the backend thread; tools that block (libgit2, a process,
// a synchronous upstream call) declare Blocking and run on the ToolExecutor's own worker pool,
// optionally one at a time per key and a few at a time per group. Nothing else about a tool changes
// with its kind: the server and the session never know.

#include <QString>

#include <nlohmann/json.hpp>

#include <functional>

enum class ExecutionKind {
    BackendThread, // the handler runs on the backend thread and must not block
    Blocking, // the blocking handler runs on a worker; its result is handed back
};

struct ExecutionPolicy
{
    ExecutionKind kind = ExecutionKind::BackendThread;
    // Blocking work whose key is the same runs one call at a time, in the order the calls came
    // (one git repository at a time). Empty function or empty key: no serialization.
    std::function<QString(const nlohmann::json& arguments)> serializationKey;
    // Blocking work of the same group runs at most `groupLimit` calls at once (a semaphore per
    // route, e.g. processes); 0 means no limit beyond the pool's.
    QString group;
    int groupLimit = 0;
    // How long one call may run once it starts (not while it waits for a person); 0 means the
    // executor's default. A call past it ends with a tool error and its work is cancelled.
    qint64 deadlineMs = 0;

    static ExecutionPolicy blocking(qint64 deadlineMs = 0)
    {
        ExecutionPolicy policy;
        policy.kind = ExecutionKind::Blocking;
        policy.deadlineMs = deadlineMs;
        return policy;
    }
};
