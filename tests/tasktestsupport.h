#pragma once

// What the task tests share: a fixture's options and interaction settings, 2026-07-28 requests
// that declare the Tasks extension (or not), tools/call and tasks/* over real HTTP.

#include "mcphttptestsupport.h"

#include <QTest>

#include <memory>
#include <string>

namespace TaskTest {

using nlohmann::json;

inline constexpr const char* TasksExtension = "io.modelcontextprotocol/tasks";

inline InteractionBroker::Settings interactionSettings(const QString& statePath = {})
{
    InteractionBroker::Settings settings;
    settings.progressIntervalMs = 100;
    settings.statePath = statePath;
    settings.tasks.sweepIntervalMs = 50;
    return settings;
}

inline McpServerOptions options(int promoteAfterMs = 10'000)
{
    McpServerOptions options = ServerFixture::defaultOptions();
    options.taskPromoteAfterMs = promoteAfterMs;
    return options;
}

inline json meta(const std::string& client, bool tasks = true)
{
    json capabilities = json::object();
    if (tasks)
        capabilities["extensions"] = {{TasksExtension, json::object()}};
    return json{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", client}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)}};
}

inline QByteArray request(
    const json& id, const std::string& method, json params, const std::string& client = "agent", bool tasks = true)
{
    params["_meta"] = meta(client, tasks);
    return QByteArray::fromStdString(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump());
}

// The JSON-RPC response among an event stream's events (or a plain JSON body).
inline json responseIn(const RawHttpResponse& response)
{
    if (!response.header("content-type").startsWith("text/event-stream"))
        return bodyJson(response);
    for (const QByteArray& event : response.events()) {
        const json message = json::parse(event.toStdString(), nullptr, false);
        if (message.contains("result") || message.contains("error"))
            return message;
    }
    return nullptr;
}

// Sends a tools/call on its own connection, which the test keeps.
inline std::unique_ptr<RawHttpClient> call(quint16 port, int id, const char* tool, const json& arguments,
    const std::string& client = "agent", bool tasks = true)
{
    auto connection = std::make_unique<RawHttpClient>(port);
    connection->send(
        RawHttpClient::post(request(id, "tools/call", {{"name", tool}, {"arguments", arguments}}, client, tasks),
            modernHeaders(port, "tools/call", tool)));
    return connection;
}

// A tasks/* request on a connection of its own; the whole HTTP response.
inline RawHttpResponse taskRequest(quint16 port, const std::string& method, const std::string& taskId,
    const std::string& client = "agent", bool tasks = true, json extra = json::object())
{
    RawHttpClient connection(port);
    extra["taskId"] = taskId;
    connection.send(RawHttpClient::post(request(77, method, std::move(extra), client, tasks),
        modernHeaders(port, QByteArray::fromStdString(method), QByteArray::fromStdString(taskId))));
    return connection.read();
}

inline json taskGet(quint16 port, const std::string& taskId, const std::string& client = "agent")
{
    return responseIn(taskRequest(port, "tasks/get", taskId, client));
}

} // namespace TaskTest

using namespace TaskTest;
