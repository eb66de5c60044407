#include "transport/taskhost.h"

#include "boundedjson.h"
#include "interaction/taskstore.h"
#include "protocol/modernrequest.h"
#include "transport/mcpsession.h"
#include "transport/responsechannel.h"

#include <QPointer>
#include <QTimer>

using nlohmann::json;

// Where a task's call answers once it is a task: its response goes to the task, never to a socket.
// Notifications about it (progress, log messages) go nowhere: the extension sends none for tasks.
class TaskHost::TaskSink : public ResponseChannel
{
public:
    TaskSink(TaskHost* host, QByteArray sessionId)
        : m_host(host)
        , m_sessionId(std::move(sessionId))
    {}

    void sendNotification(const QByteArray& /*message*/) override {}
    void sendResponse(const QByteArray& message) override { end(message); }
    void skipResponse() override { end(QByteArray()); }
    bool isOpen() const override { return !m_ended; }
    void abandon(const QString& /*reason*/) override { end(QByteArray()); }

private:
    void end(const QByteArray& response)
    {
        if (std::exchange(m_ended, true) || !m_host)
            return;
        m_host->callEnded(m_sessionId, response);
    }

    QPointer<TaskHost> m_host;
    const QByteArray m_sessionId;
    bool m_ended = false;
};

namespace {} // namespace

QString TaskHost::clientNameOf(const json& clientInfo)
{
    if (!clientInfo.is_object())
        return QStringLiteral("unknown client");
    const auto name = clientInfo.find("name");
    return name != clientInfo.end() && name->is_string() && !name->get_ref<const std::string&>().empty()
        ? QString::fromStdString(name->get<std::string>())
        : QStringLiteral("unknown client");
}

namespace {

QString clientVersionOf(const json& clientInfo)
{
    if (!clientInfo.is_object())
        return {};
    const auto version = clientInfo.find("version");
    return version != clientInfo.end() && version->is_string() ? QString::fromStdString(version->get<std::string>())
                                                               : QString();
}

} // namespace

bool TaskHost::declaresExtension(const json& clientCapabilities)
{
    if (!clientCapabilities.is_object())
        return false;
    const auto extensions = clientCapabilities.find("extensions");
    return extensions != clientCapabilities.end() && extensions->is_object() && extensions->contains(ExtensionId)
        && extensions->at(ExtensionId).is_object();
}

json TaskHost::requiredCapabilities()
{
    return json{{"requiredCapabilities", {{"extensions", {{ExtensionId, json::object()}}}}}};
}

TaskHost::TaskHost(Settings settings, TaskStore* store, SessionFactory newSession, json serverInfo, QObject* parent)
    : QObject(parent)
    , m_settings(settings)
    , m_store(store)
    , m_newSession(std::move(newSession))
    , m_serverInfo(std::move(serverInfo))
{
    connect(m_store, &TaskStore::lifetimeEnded, this,
        [this](const QString& taskId) { stopTask(taskId, QStringLiteral("the task's lifetime ended")); });
}

TaskHost::~TaskHost()
{
    shutDown();
}

void TaskHost::noteOnTimeline(const QString& taskId, const char* event, const TaskRecord* task)
{
    const auto run = m_runOfTask.constFind(taskId);
    if (run == m_runOfTask.cend())
        return;
    const auto it = m_runs.find(*run);
    if (it == m_runs.end())
        return;
    json params{{"event", event}, {"taskId", taskId.toStdString()}};
    if (task) {
        params["status"] = TaskRecord::statusName(task->status).toStdString();
        if (!task->statusMessage.isEmpty())
            params["statusMessage"] = task->statusMessage.toStdString();
    }
    it->second.session->noteOnTimeline(it->second.requestId, json{{"method", "switchboard/task"}, {"params", params}});
}

QString TaskHost::waitingMessage(const QString& tool)
{
    return QStringLiteral("Waiting for a person at the Switchboard console to answer the question of %1").arg(tool);
}

QString TaskHost::runningMessage(const QString& tool)
{
    return QStringLiteral("%1 is running").arg(tool);
}

void TaskHost::startCall(std::unique_ptr<McpSession> session, const JsonRpc::Message& message, const QByteArray& body,
    const std::shared_ptr<ResponseChannel>& exchange, const Caller& caller)
{
    const QByteArray sessionId = session->id();
    Run& entry = m_runs[sessionId];
    entry.session = std::move(session);
    entry.exchange = exchange;
    entry.requestId = message.id;
    entry.request = QByteArray::fromStdString(message.params().dump());
    entry.caller = caller;
    entry.sink = std::make_shared<TaskSink>(this, sessionId);
    // A call still running after promoteAfterMs becomes a task; one that ended has no run left.
    QTimer::singleShot(m_settings.promoteAfterMs, this, [this, sessionId] { promote(sessionId); });
    run(sessionId, message, body, exchange);
}

void TaskHost::run(const QByteArray& sessionId, const JsonRpc::Message& message, const QByteArray& body,
    const std::shared_ptr<ResponseChannel>& channel)
{
    McpSession* session = m_runs.at(sessionId).session.get();
    QPointer<TaskHost> self(this);
    session->setClientQuestionHook([self, sessionId](const QString& method, const json& params,
                                       std::function<void(const json&, const json&)> reply) {
        return self && self->askClient(sessionId, method, params, std::move(reply));
    });
    session->setWaitHook([self, sessionId](qint64 /*callId*/, const QString& interactionId) {
        if (self)
            self->waitChanged(sessionId, interactionId);
    });
    session->handleMessage(message, body, channel);
}

void TaskHost::waitChanged(const QByteArray& sessionId, const QString& interactionId)
{
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end())
        return;
    it->second.waitsOn = interactionId;
    if (it->second.taskId.isEmpty()) {
        if (!interactionId.isEmpty())
            promote(sessionId); // a call that waits for a person is a task at once
        return;
    }
    m_store->update(it->second.taskId, [&](TaskRecord& task) {
        if (task.isTerminal())
            return;
        task.waitsOn = interactionId;
        task.statusMessage = interactionId.isEmpty() ? runningMessage(task.tool) : waitingMessage(task.tool);
        const qint64 callId = it->second.session->callIdOf(it->second.requestId);
        if (callId)
            task.callId = callId;
    });
    noteOnTimeline(
        it->second.taskId, interactionId.isEmpty() ? "running" : "waiting", m_store->find(it->second.taskId));
}

bool TaskHost::askClient(const QByteArray& sessionId, const QString& method, const json& params,
    std::function<void(const json&, const json&)> reply)
{
    if (m_stopping || method != QStringLiteral("elicitation/create") || !params.is_object())
        return false;
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end())
        return false;
    // Only what the client declared: a form needs elicitation (form), a URL needs elicitation.url.
    const json& capabilities = it->second.caller.capabilities;
    const auto elicitation = capabilities.is_object() ? capabilities.find("elicitation") : capabilities.end();
    if (!capabilities.is_object() || elicitation == capabilities.end() || !elicitation->is_object())
        return false;
    const bool url = params.value("mode", std::string()) == "url";
    if (url ? !elicitation->contains("url") : !(elicitation->empty() || elicitation->contains("form")))
        return false;
    if (it->second.taskId.isEmpty())
        promote(sessionId); // a call that waits on its client's user is a task at once
    const auto run = m_runs.find(sessionId);
    if (run == m_runs.end() || run->second.taskId.isEmpty())
        return false; // no room for a task: the console asks instead
    Run& entry = run->second;
    const QString key = QStringLiteral("input-%1").arg(++entry.inputsAsked);
    entry.pendingInputs.emplace(key, std::move(reply));
    const json request{{"method", method.toStdString()}, {"params", params}};
    m_store->update(entry.taskId, [&](TaskRecord& task) {
        json requests = task.inputRequests.isEmpty()
            ? json::object()
            : BoundedJson::parse(task.inputRequests, BoundedJson::Limits::record()).value;
        if (!requests.is_object())
            requests = json::object();
        requests[key.toStdString()] = request;
        task.inputRequests = QByteArray::fromStdString(requests.dump());
        task.status = TaskRecord::Status::InputRequired;
        task.statusMessage = QStringLiteral("Waiting for the client's user to answer: %1")
                                 .arg(QString::fromStdString(params.value("message", std::string())).left(200));
    });
    noteOnTimeline(entry.taskId, "input-requested", m_store->find(entry.taskId));
    return true;
}

void TaskHost::takeInputResponses(const QString& taskId, const json& responses)
{
    const auto run = m_runOfTask.constFind(taskId);
    if (run == m_runOfTask.cend())
        return;
    const QByteArray sessionId = *run;
    // Each reply goes to the running call, which may end it: keys first, each looked up again.
    std::vector<std::string> keys;
    for (const auto& [key, value] : responses.items())
        keys.push_back(key);
    for (const std::string& key : keys) {
        const auto it = m_runs.find(sessionId);
        if (it == m_runs.end())
            return;
        Run& entry = it->second;
        const auto pending = entry.pendingInputs.find(QString::fromStdString(key));
        if (pending == entry.pendingInputs.end())
            continue; // never asked, answered already, or superseded: ignored, as the extension says
        auto reply = std::move(pending->second);
        entry.pendingInputs.erase(pending);
        const bool more = !entry.pendingInputs.empty();
        m_store->update(taskId, [&](TaskRecord& task) {
            json requests = BoundedJson::parse(task.inputRequests, BoundedJson::Limits::record()).value;
            if (requests.is_object())
                requests.erase(key);
            task.inputRequests
                = more && requests.is_object() ? QByteArray::fromStdString(requests.dump()) : QByteArray();
            if (!more && task.status == TaskRecord::Status::InputRequired) {
                task.status = TaskRecord::Status::Working;
                task.statusMessage = runningMessage(task.tool);
            }
        });
        noteOnTimeline(taskId, "input-answered", m_store->find(taskId));
        reply(responses.at(key), json());
    }
}

void TaskHost::cancelPendingInputs(Run& run)
{
    auto pending = std::exchange(run.pendingInputs, {});
    for (auto& [key, reply] : pending)
        reply(json{{"action", "cancel"}}, json());
}

void TaskHost::promote(const QByteArray& sessionId)
{
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end() || !it->second.taskId.isEmpty() || m_stopping)
        return;
    Run& entry = it->second;
    if (!entry.exchange || !entry.exchange->isOpen())
        return; // answered already, or the client went away (which cancels the call)
    const json params = BoundedJson::parse(entry.request, BoundedJson::Limits::message()).value;
    TaskRecord seed;
    seed.owner = entry.caller.identity;
    seed.clientName = clientNameOf(entry.caller.clientInfo);
    seed.clientVersion = clientVersionOf(entry.caller.clientInfo);
    seed.tool = QString::fromStdString(params.value("name", std::string()));
    seed.callId = entry.session->callIdOf(entry.requestId);
    seed.request = entry.request;
    seed.waitsOn = entry.waitsOn;
    seed.statusMessage = entry.waitsOn.isEmpty() ? runningMessage(seed.tool) : waitingMessage(seed.tool);
    QString refusal;
    const std::optional<TaskRecord> task = m_store->create(seed, &refusal);
    if (!task) {
        // The call goes on as a held call: its result comes on the open response.
        qWarning("switchboard: a call of %s stays on its open response instead of becoming a task: %s",
            qPrintable(seed.tool), qPrintable(refusal));
        return;
    }
    entry.taskId = task->id;
    m_runOfTask.insert(task->id, sessionId);
    noteOnTimeline(task->id, "created", &*task);
    // From now on the call's result goes to the task; the exchange waits for the handle.
    entry.session->replaceChannel(entry.exchange.get(), entry.sink);
    QPointer<TaskHost> self(this);
    m_store->whenStored([self, sessionId, taskId = task->id](bool stored) {
        if (self)
            self->announce(sessionId, taskId, stored);
    });
}

void TaskHost::announce(const QByteArray& sessionId, const QString& taskId, bool stored)
{
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end() || it->second.taskId != taskId || it->second.announced)
        return; // the call ended before the task was stored: its result went out on the exchange
    Run& entry = it->second;
    const std::shared_ptr<ResponseChannel> exchange = entry.exchange;
    if (!stored) {
        // Never a handle for a task that is not durable: the call goes on on its open response.
        entry.session->replaceChannel(entry.sink.get(), exchange);
        entry.taskId.clear();
        m_runOfTask.remove(taskId);
        m_store->remove(taskId);
        return;
    }
    const TaskRecord* task = m_store->find(taskId);
    if (!task || !exchange || !exchange->isOpen()) {
        // The client closed the request before it had the handle: that cancels the call.
        stopTask(taskId, QStringLiteral("the client closed the request before it received its task"));
        m_store->remove(taskId);
        return;
    }
    json result = task->toWire(false);
    result["resultType"] = "task";
    result["_meta"] = {{ModernRequest::ServerInfoKey, m_serverInfo}};
    entry.announced = true;
    entry.exchange.reset();
    noteOnTimeline(taskId, "handed-out", task);
    exchange->sendResponse(JsonRpc::serialize(JsonRpc::makeResult(entry.requestId, std::move(result))));
}

void TaskHost::callEnded(const QByteArray& sessionId, const QByteArray& response)
{
    if (m_stopping)
        return; // the task stays as it is for the restart
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end())
        return;
    Run& entry = it->second;
    const QString taskId = entry.taskId;
    if (!entry.announced) {
        // Ended before its task was stored: the client gets the result itself, and never sees the task.
        const std::shared_ptr<ResponseChannel> exchange = entry.exchange;
        m_runOfTask.remove(taskId);
        m_store->remove(taskId);
        entry.taskId.clear();
        if (exchange) {
            if (response.isEmpty())
                exchange->skipResponse();
            else
                exchange->sendResponse(response);
        }
        return; // the exchange's end finishes the run
    }
    BoundedJson::Result<json> parsed = BoundedJson::parse(response, BoundedJson::Limits::message());
    m_store->update(taskId, [&](TaskRecord& task) {
        if (task.isTerminal())
            return; // failed at the end of its lifetime, or cancelled meanwhile
        task.waitsOn.clear();
        task.inputRequests.clear();
        if (response.isEmpty() || !parsed.ok || !parsed.value.is_object()) {
            task.status = TaskRecord::Status::Cancelled;
            task.statusMessage = QStringLiteral("The call was cancelled");
            return;
        }
        const json& message = parsed.value;
        if (const auto error = message.find("error"); error != message.end()) {
            task.status = TaskRecord::Status::Failed;
            task.error = QByteArray::fromStdString(error->dump());
            task.statusMessage = QStringLiteral("The call failed: %1")
                                     .arg(QString::fromStdString(error->value("message", std::string())));
            return;
        }
        task.status = TaskRecord::Status::Completed;
        task.result = QByteArray::fromStdString(message.value("result", json::object()).dump());
        const bool isError = message.value("result", json::object()).value("isError", false);
        task.statusMessage
            = isError ? QStringLiteral("The call ended with a tool error") : QStringLiteral("The call completed");
    });
    finishRun(sessionId, QStringLiteral("the task's call ended"));
}

void TaskHost::exchangeEnded(const QByteArray& sessionId)
{
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end())
        return;
    Run& entry = it->second;
    if (entry.announced)
        return; // the exchange carried the handle; the call goes on
    entry.exchange.reset();
    if (!entry.taskId.isEmpty()) {
        // Lost before the handle went out: closing a request's stream cancels it.
        const QString taskId = entry.taskId;
        m_runOfTask.remove(taskId);
        m_store->remove(taskId);
        entry.taskId.clear();
    }
    finishRun(sessionId, QStringLiteral("the request was answered"));
}

void TaskHost::finishRun(const QByteArray& sessionId, const QString& reason)
{
    // Later: this may be called from inside the session's own code.
    QMetaObject::invokeMethod(
        this,
        [this, sessionId, reason] {
            const auto it = m_runs.find(sessionId);
            if (it == m_runs.end())
                return;
            Run done = std::move(it->second);
            m_runs.erase(it);
            if (!done.taskId.isEmpty())
                m_runOfTask.remove(done.taskId);
            cancelPendingInputs(done);
            done.session->terminate(reason);
        },
        Qt::QueuedConnection);
}

void TaskHost::stopTask(const QString& taskId, const QString& reason)
{
    const auto run = m_runOfTask.constFind(taskId);
    if (run == m_runOfTask.cend())
        return;
    const QByteArray sessionId = *run;
    const auto it = m_runs.find(sessionId);
    if (it == m_runs.end())
        return;
    // Cancels the call and withdraws its question; the sink hears the call end.
    cancelPendingInputs(it->second);
    const auto again = m_runs.find(sessionId);
    if (again == m_runs.end())
        return;
    again->second.session->terminate(reason);
    finishRun(sessionId, reason);
}

std::variant<json, TaskHost::Error> TaskHost::handle(
    const std::string& method, const json& params, const Caller& caller)
{
    const auto idValue = params.is_object() ? params.find("taskId") : params.end();
    if (!params.is_object() || idValue == params.end() || !idValue->is_string())
        return Error{JsonRpc::InvalidParams, "Invalid params: " + method + " needs params.taskId, a string"};
    const QString taskId = QString::fromStdString(idValue->get<std::string>());
    const TaskRecord* task = m_store->findOwned(taskId, caller.identity);
    if (!task) {
        // Another identity's task reads exactly as one that never was (or has expired and gone).
        return Error{JsonRpc::InvalidParams,
            "Failed to retrieve task: no task " + idValue->get<std::string>() + " (unknown, or expired and removed)"};
    }
    json ack{{"resultType", "complete"}, {"_meta", {{ModernRequest::ServerInfoKey, m_serverInfo}}}};
    if (method == "tasks/get") {
        noteOnTimeline(taskId, "polled", task);
        json result = task->toWire(true);
        result["resultType"] = "complete";
        result["_meta"] = ack["_meta"];
        return result;
    }
    if (method == "tasks/cancel") {
        if (!task->isTerminal()) {
            noteOnTimeline(taskId, "cancel-requested", task);
            stopTask(taskId, QStringLiteral("cancelled by the client (tasks/cancel)"));
            // A task with no call running here (another process's, or one restored without its call)
            // is cancelled all the same.
            m_store->update(taskId, [](TaskRecord& cancelled) {
                if (cancelled.isTerminal())
                    return;
                cancelled.status = TaskRecord::Status::Cancelled;
                cancelled.waitsOn.clear();
                cancelled.statusMessage = QStringLiteral("Cancelled by the client");
            });
        }
        return ack;
    }
    if (method == "tasks/update") {
        const auto responses = params.find("inputResponses");
        if (responses == params.end() || !responses->is_object())
            return Error{JsonRpc::InvalidParams, "Invalid params: tasks/update needs params.inputResponses, an object"};
        // Responses for requests that are not outstanding are ignored, as the extension asks.
        takeInputResponses(taskId, *responses);
        return ack;
    }
    return Error{JsonRpc::MethodNotFound, "Method not found: " + method};
}

QStringList TaskHost::ownedAmong(const json& taskIds, const QString& identity) const
{
    QStringList owned;
    if (!taskIds.is_array())
        return owned;
    for (const json& id : taskIds) {
        if (id.is_string() && m_store->findOwned(QString::fromStdString(id.get<std::string>()), identity)
            && !owned.contains(QString::fromStdString(id.get<std::string>())))
            owned.append(QString::fromStdString(id.get<std::string>()));
    }
    return owned;
}

void TaskHost::resumeStoredTasks()
{
    const QList<TaskRecord> tasks = m_store->all();
    for (const TaskRecord& task : tasks) {
        if (task.isTerminal() || m_runOfTask.contains(task.id))
            continue;
        if (task.waitsOn.isEmpty() || task.status != TaskRecord::Status::Working) {
            m_store->update(task.id, [](TaskRecord& failed) {
                failed.status = TaskRecord::Status::Failed;
                failed.error = QByteArray::fromStdString(json{{"code", JsonRpc::InternalError},
                    {"message",
                        "Switchboard stopped while the call ran; it was not run again, because it may have "
                        "done part of its work. Call the tool again if it should run."}}
                                                             .dump());
                failed.statusMessage = QStringLiteral("Switchboard stopped while the call ran");
            });
            continue;
        }
        // The call waited for a person: it waits again, on the same pending question.
        std::unique_ptr<McpSession> session = m_newSession();
        json clientInfo{{"name", task.clientName.toStdString()}, {"version", task.clientVersion.toStdString()}};
        session->adoptEnvelope(
            ModernRequest::supportedVersions().front().get<std::string>(), clientInfo, std::string());
        session->setCaller(task.owner, json{{"extensions", {{ExtensionId, json::object()}}}});
        const QByteArray sessionId = session->id();
        Run& entry = m_runs[sessionId];
        entry.session = std::move(session);
        entry.requestId = task.id.toStdString();
        entry.request = task.request;
        entry.caller = Caller{task.owner, clientInfo, ModernRequest::supportedVersions().front().get<std::string>()};
        entry.sink = std::make_shared<TaskSink>(this, sessionId);
        entry.taskId = task.id;
        entry.announced = true;
        entry.waitsOn = task.waitsOn;
        m_runOfTask.insert(task.id, sessionId);
        const json document{{"jsonrpc", "2.0"}, {"id", entry.requestId}, {"method", "tools/call"},
            {"params", BoundedJson::parse(task.request, BoundedJson::Limits::message()).value}};
        const std::shared_ptr<ResponseChannel> sink = entry.sink;
        run(sessionId, JsonRpc::classify(document), QByteArray(), sink);
        noteOnTimeline(task.id, "resumed", &task);
        // The call may have been answered at once (an answer stored while Switchboard was down).
        if (const auto it = m_runs.find(sessionId); it != m_runs.end() && m_store->find(task.id)) {
            const qint64 callId = it->second.session->callIdOf(it->second.requestId);
            if (callId)
                m_store->update(task.id, [callId](TaskRecord& resumed) {
                    if (!resumed.isTerminal())
                        resumed.callId = callId;
                });
        }
    }
}

void TaskHost::shutDown()
{
    m_stopping = true;
    // Each session's shutdown ends its calls (their sinks ignore it now) and keeps their questions.
    std::map<QByteArray, Run> runs = std::exchange(m_runs, {});
    m_runOfTask.clear();
    for (auto& [sessionId, entry] : runs) {
        cancelPendingInputs(entry);
        entry.session->shutDown();
    }
}
