// A client for the MCP conformance suite's client scenarios, built on McpClient: the suite starts it
// with the scenario's server URL as the last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO, and judges what reached its server. Exits 0 when every step worked.
//
//   conformance_client <server-url>

#include "mcp/mcpclient.h"

#include <QCoreApplication>
#include <QTimer>
#include <QUrl>

#include <cstdio>

using json = nlohmann::json;

namespace {

void fail(const QString& step, const McpClient::Failure& failure)
{
    std::fprintf(stderr, "%s failed (%s): %s\n", qPrintable(step), qPrintable(McpClient::failureKindName(failure.kind)),
        qPrintable(failure.message));
    QCoreApplication::exit(1);
}

// Lists the tools, then calls `tool` with `arguments` (no call when `tool` is empty), then ends the
// session.
void run(McpClient& client, const QString& tool, const json& arguments)
{
    client.listTools(
        [&client, tool, arguments](const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
            if (failure) {
                fail(QStringLiteral("tools/list"), *failure);
                return;
            }
            std::printf("%zu tools listed\n", list.tools.size());
            if (tool.isEmpty()) {
                client.close();
                QCoreApplication::exit(0);
                return;
            }
            client.callTool(tool, arguments, {}, [&client, tool](McpClient::Outcome outcome) {
                if (!outcome.ok()) {
                    fail(QStringLiteral("tools/call ") + tool, *outcome.failure);
                    return;
                }
                std::printf("%s: %s\n", qPrintable(tool), outcome.result.dump().c_str());
                client.close();
                QCoreApplication::exit(0);
            });
        });
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
    McpClient client(settings);

    const QString scenario = qEnvironmentVariable("MCP_CONFORMANCE_SCENARIO");
    std::printf("scenario %s against %s\n", qPrintable(scenario), qPrintable(settings.endpoint.toString()));
    QTimer::singleShot(0, &app, [&client, scenario] {
        if (scenario == QLatin1String("tools_call"))
            run(client, QStringLiteral("add_numbers"), {{"a", 5}, {"b", 3}});
        else if (scenario == QLatin1String("sse-retry"))
            run(client, QStringLiteral("test_reconnection"), json::object());
        else
            run(client, {}, nullptr); // initialize and anything else: a session and its tools
    });
    return app.exec();
}
