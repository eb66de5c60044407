#pragma once

// TaskHost: the calls of 2026-07-28 clients that declared the Tasks extension
// (io.modelcontextprotocol/tasks), and the extension's methods (tasks/get, tasks/update,
// tasks/cancel).
//
// Such a call starts like any stateless call, on its own request session, answering on its POST.
// It becomes a task when it starts waiting for a person (an approval, a connect question, a client
// tool answered at the console) or is still running after promoteAfterMs (a clone, a slow
// upstream): the task is created in the TaskStore, the call's result is redirected to it, and once
// the task is stored (durable, so a tasks/get would find it) the POST is answered with the task
// handle (CreateTaskResult). A call that ends before the task is stored answers its POST with its
// own result, and the task is dropped unseen. A client that closes the POST before it has the
// handle cancels the call, as closing any 2026 request's stream does.
//
// After a restart, a task whose call was waiting for a person is asked again (its question is
// still pending, so the same question waits, and answering it completes the task); a task whose
// call was running is failed: its work is not repeated behind the client's back.
//
// A task belongs to the client identity that created it: another identity's tasks/get is answered
// as for a task that does not exist.

#include "protocol/jsonrpc.h"
#include "taskrecord.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <map>
#include <memory>
#include <variant>

class McpSession;
class ResponseChannel;
class TaskStore;

class TaskHost : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        int promoteAfterMs = 1'000; // a call still running this long becomes a task
    };

    // Who made a request: the identity tasks belong to, and the client as it declared itself.
    struct Caller
    {
        QString identity;
        nlohmann::json clientInfo; // an object, or null
        std::string version; // the request's protocol revision
        nlohmann::json capabilities = nlohmann::json::object(); // the request's clientCapabilities
    };

    // A JSON-RPC error for a tasks/* request.
    struct Error
    {
        int code = JsonRpc::InvalidParams;
        std::string message;
    };

    static constexpr const char* ExtensionId = "io.modelcontextprotocol/tasks";
    // Whether a request's client capabilities declare the extension.
    static bool declaresExtension(const nlohmann::json& clientCapabilities);
    // The client's name as a request's clientInfo declares it ("unknown client" without one).
    static QString clientNameOf(const nlohmann::json& clientInfo);
    // The `data` of a -32021 refusal for a request that needs the extension.
    static nlohmann::json requiredCapabilities();

    using SessionFactory = std::function<std::unique_ptr<McpSession>()>;
    // The server's identity for a 2026 result's _meta (ServerIdentity::toJson()).
    TaskHost(Settings settings, TaskStore* store, SessionFactory newSession, nlohmann::json serverInfo,
        QObject* parent = nullptr);
    ~TaskHost() override;

    // A tools/call of a caller that declared the extension, run on `session` (a request session
    // adopted from the caller's envelope), answered on `exchange` as described above. The server
    // calls exchangeEnded(session id) when the exchange ends (answered, or its connection lost).
    void startCall(std::unique_ptr<McpSession> session, const JsonRpc::Message& message, const QByteArray& body,
        const std::shared_ptr<ResponseChannel>& exchange, const Caller& caller);
    void exchangeEnded(const QByteArray& sessionId);

    // The extension's methods, for the caller's own tasks: the result, or the error.
    std::variant<nlohmann::json, Error> handle(
        const std::string& method, const nlohmann::json& params, const Caller& caller);
    // The tasks `identity` owns among `taskIds` (a subscription's filter).
    QStringList ownedAmong(const nlohmann::json& taskIds, const QString& identity) const;

    // After the state was loaded: asks again the questions of tasks whose call was waiting for a
    // person, and fails those whose call was running when Switchboard stopped.
    void resumeStoredTasks();
    // The server stops: the calls stop, and their tasks stay as they are for the restart (a call
    // waiting for a person keeps its question pending).
    void shutDown();

    int runningCount() const { return int(m_runs.size()); }
    const TaskStore& store() const { return *m_store; }

private:
    class TaskSink;
    struct Run
    {
        std::unique_ptr<McpSession> session;
        std::shared_ptr<ResponseChannel> exchange; // until the handle or the result went out
        std::shared_ptr<TaskSink> sink;
        nlohmann::json requestId;
        QByteArray request; // the tools/call params, compact
        Caller caller;
        QString taskId; // once the call became a task
        bool announced = false; // the handle went out (or the task was restored after a restart)
        QString waitsOn; // the question the call waits on, when the wait hook said so
        // Requests to the client's own user that wait for tasks/update, by their inputRequests key
        // (unique over the task's life: input-1, input-2, …), and how each is answered.
        std::map<QString, std::function<void(const nlohmann::json&, const nlohmann::json&)>> pendingInputs;
        int inputsAsked = 0;
    };

    void run(const QByteArray& sessionId, const JsonRpc::Message& message, const QByteArray& body,
        const std::shared_ptr<ResponseChannel>& channel);
    void promote(const QByteArray& sessionId);
    void announce(const QByteArray& sessionId, const QString& taskId, bool stored);
    void waitChanged(const QByteArray& sessionId, const QString& interactionId);
    // The running call asks its client's user (ToolCallContext::askClient): the task becomes
    // input_required with the request among its inputRequests. False when it cannot be.
    bool askClient(const QByteArray& sessionId, const QString& method, const nlohmann::json& params,
        std::function<void(const nlohmann::json&, const nlohmann::json&)> reply);
    // tasks/update: answers the outstanding requests named in `responses`; others are ignored.
    void takeInputResponses(const QString& taskId, const nlohmann::json& responses);
    // The requests still waiting on a run when it ends hear "cancel".
    static void cancelPendingInputs(Run& run);
    // The call's response (or its absence, `response` empty: cancelled) reached the task's sink.
    void callEnded(const QByteArray& sessionId, const QByteArray& response);
    // Ends a run: its session terminated once the current event is handled.
    void finishRun(const QByteArray& sessionId, const QString& reason);
    void stopTask(const QString& taskId, const QString& reason);
    // Puts a step of the task's life on its call's timeline (method switchboard/task).
    void noteOnTimeline(const QString& taskId, const char* event, const TaskRecord* task = nullptr);
    static QString waitingMessage(const QString& tool);
    static QString runningMessage(const QString& tool);

    Settings m_settings;
    TaskStore* m_store;
    SessionFactory m_newSession;
    nlohmann::json m_serverInfo;
    std::map<QByteArray, Run> m_runs; // by request session id
    QHash<QString, QByteArray> m_runOfTask; // task id → request session id
    bool m_stopping = false;
};
