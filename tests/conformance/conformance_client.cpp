// A client for the MCP conformance suite's client scenarios, built on McpClient: the suite starts it
// with the scenario's server URL as the last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO and, for some, the calls to make in MCP_CONFORMANCE_CONTEXT, and judges
// what reached its server. McpClient negotiates the era itself (server/discover, else the 2025
// handshake), so one program serves the 2025 and the 2026-07-28 scenarios. Exits 0 when every
// step worked.
//
//   conformance_client <server-url>

#include "protocol/jsonrpc.h"
#include "transport/mcpclient.h"

#include <QCoreApplication>
#include <QTimer>
#include <QUrl>

#include <cstdio>
#include <deque>
#include <functional>
#include <memory>

using json = nlohmann::json;

namespace {

// The steps of a scenario, run one after another; each calls `next` when it is done, or fails the
// run. The program ends after the last.
class Script
{
public:
    using Step = std::function<void(std::function<void()> next)>;

    explicit Script(McpClient& client)
        : m_client(client)
    {}

    void add(Step step) { m_steps.push_back(std::move(step)); }

    void run()
    {
        if (m_steps.empty()) {
            std::printf("done (%s)\n", qPrintable(m_client.protocolVersion()));
            m_client.close();
            QCoreApplication::exit(0);
            return;
        }
        Step step = std::move(m_steps.front());
        m_steps.pop_front();
        step([this] { run(); });
    }

    static void fail(const QString& step, const McpClient::Failure& failure)
    {
        std::fprintf(stderr, "%s failed (%s): %s\n", qPrintable(step),
            qPrintable(McpClient::failureKindName(failure.kind)), qPrintable(failure.message));
        QCoreApplication::exit(1);
    }

private:
    McpClient& m_client;
    std::deque<Step> m_steps;
};

// A value for every property of an object schema: what a person would leave in a form (its
// defaults) or type into it (the scenarios' questions are confirmations).
json filled(const json& schema)
{
    json values = json::object();
    if (!schema.is_object() || !schema.value("properties", json()).is_object())
        return values;
    for (const auto& [key, property] : schema["properties"].items()) {
        const std::string type = property.is_object() ? property.value("type", std::string("string")) : "string";
        if (property.is_object() && property.contains("default"))
            values[key] = property["default"];
        else if (type == "boolean")
            values[key] = true;
        else if (type == "integer" || type == "number")
            values[key] = 1;
        else if (type == "object")
            values[key] = json::object();
        else if (type == "array")
            values[key] = json::array();
        else
            values[key] = "us-west1";
    }
    return values;
}

// The scripted user: accepts every form with filled-in values.
void answerAsUser(const QString& method, const json& params, McpClient::Reply reply)
{
    if (method != QLatin1String("elicitation/create")) {
        reply(json(), json{{"code", -32601}, {"message", "this client answers elicitation only"}});
        return;
    }
    std::printf("asked: %s\n", params.value("message", std::string()).c_str());
    reply(json{{"action", "accept"}, {"content", filled(params.value("requestedSchema", json()))}}, json());
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() < 2) {
        std::fprintf(stderr, "usage: conformance_client <server-url>\n");
        return 2;
    }
    McpClient::Settings settings;
    settings.endpoint = QUrl(arguments.last());
    settings.clientName = QStringLiteral("switchboard-conformance-client");
    settings.clientVersion = QStringLiteral("1.0.0");
    settings.requestTimeoutMs = 20'000;
    settings.negotiateModern = true;
    McpClient client(settings);

    const QString scenario = qEnvironmentVariable("MCP_CONFORMANCE_SCENARIO");
    const json context = JsonRpc::parse(qEnvironmentVariable("MCP_CONFORMANCE_CONTEXT").toUtf8()).value;
    std::printf("scenario %s (%s) against %s\n", qPrintable(scenario),
        qPrintable(qEnvironmentVariable("MCP_CONFORMANCE_PROTOCOL_VERSION")), qPrintable(settings.endpoint.toString()));

    Script script(client);
    auto tools = std::make_shared<std::vector<json>>();
    script.add([&client, tools](std::function<void()> next) {
        client.listTools(
            [tools, next](const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
                if (failure) {
                    Script::fail(QStringLiteral("tools/list"), *failure);
                    return;
                }
                std::printf("%zu tools listed\n", list.tools.size());
                *tools = list.tools;
                next();
            });
    });
    // Calls `tool` with `arguments` (evaluated when the step runs: they may depend on the listing).
    const auto call = [&client, &script](const QString& tool, std::function<json()> argumentsOf) {
        script.add([&client, tool, argumentsOf](std::function<void()> next) {
            McpClient::CallOptions options;
            options.serverRequest = answerAsUser;
            client.callTool(tool, argumentsOf(), options, [tool, next](McpClient::Outcome outcome) {
                if (!outcome.ok()) {
                    Script::fail(QStringLiteral("tools/call ") + tool, *outcome.failure);
                    return;
                }
                std::printf("%s: %s\n", qPrintable(tool), outcome.result.dump().c_str());
                next();
            });
        });
    };
    // Another request, with params made from what the one before answered.
    auto previous = std::make_shared<json>();
    const auto ask = [&client, &script, previous](const QString& method, std::function<json(const json&)> params) {
        script.add([&client, method, params, previous](std::function<void()> next) {
            client.request(method, params(*previous),
                [method, next, previous](McpClient::Outcome outcome) {
                    if (!outcome.ok()) {
                        Script::fail(method, *outcome.failure);
                        return;
                    }
                    std::printf("%s: %s\n", qPrintable(method), outcome.result.dump().c_str());
                    *previous = outcome.result;
                    next();
                },
                {});
        });
    };
    const auto noArguments = [] { return json::object(); };

    if (context.is_object() && context.value("toolCalls", json()).is_array()) {
        for (const json& planned : context["toolCalls"]) {
            const json given = planned.value("arguments", json::object());
            call(QString::fromStdString(planned.value("name", std::string())), [given] { return given; });
        }
    } else if (scenario == QLatin1String("tools_call")) {
        call(QStringLiteral("add_numbers"), [] { return json{{"a", 5}, {"b", 3}}; });
    } else if (scenario == QLatin1String("elicitation-sep1034-client-defaults")) {
        call(QStringLiteral("test_client_elicitation_defaults"), noArguments);
    } else if (scenario == QLatin1String("sse-retry")) {
        call(QStringLiteral("test_reconnection"), noArguments);
    } else if (scenario == QLatin1String("sep-2322-client-request-state")) {
        for (const char* tool :
            {"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"})
            call(QString::fromLatin1(tool), noArguments);
    } else if (scenario == QLatin1String("http-standard-headers")) {
        for (const char* tool : {"test_headers", "my-hyphenated-tool"})
            call(QString::fromLatin1(tool), noArguments);
        ask(QStringLiteral("resources/list"), [](const json&) { return json::object(); });
        ask(QStringLiteral("resources/read"), [](const json& listed) {
            const json resources = listed.value("resources", json::array());
            return json{{"uri", resources.empty() ? std::string() : resources[0].value("uri", std::string())}};
        });
        ask(QStringLiteral("prompts/list"), [](const json&) { return json::object(); });
        ask(QStringLiteral("prompts/get"), [](const json& listed) {
            const json prompts = listed.value("prompts", json::array());
            return json{{"name", prompts.empty() ? std::string() : prompts[0].value("name", std::string())}};
        });
    } else if (scenario == QLatin1String("http-invalid-tool-headers")) {
        // Every tool McpClient kept (those with invalid annotations it leaves out), with values for
        // their required arguments.
        script.add([&client, tools](std::function<void()> next) {
            auto remaining = std::make_shared<std::deque<json>>(tools->begin(), tools->end());
            auto one = std::make_shared<std::function<void()>>();
            *one = [&client, remaining, one, next] {
                if (remaining->empty()) {
                    *one = nullptr;
                    next();
                    return;
                }
                const json tool = remaining->front();
                remaining->pop_front();
                const QString name = QString::fromStdString(tool.value("name", std::string()));
                client.callTool(
                    name, filled(tool.value("inputSchema", json())), {}, [name, one](McpClient::Outcome outcome) {
                        if (!outcome.ok()) {
                            Script::fail(QStringLiteral("tools/call ") + name, *outcome.failure);
                            return;
                        }
                        std::printf("%s: %s\n", qPrintable(name), outcome.result.dump().c_str());
                        (*one)();
                    });
            };
            (*one)();
        });
    } else if (scenario == QLatin1String("json-schema-2020-12-preservation")) {
        // The focal tool's inputSchema, as McpClient handed it over, echoed back.
        call(QStringLiteral("json_schema_echo"), [tools] {
            for (const json& tool : *tools) {
                if (tool.value("name", std::string()) == "json_schema_2020_12_tool")
                    return json{{"schema", tool.value("inputSchema", json::object())}};
            }
            return json{{"schema", json::object()}};
        });
    }
    // Anything else (initialize, request-metadata, json-schema-ref-no-deref): the era negotiated
    // and the tools listed.

    QTimer::singleShot(0, &app, [&script] { script.run(); });
    return app.exec();
}
