#include "toolcommand.h"

#include "launch.h"
#include "tools/toolenvelope.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using nlohmann::json;

namespace {

// How the runner's calls are named in the call log and history, and how its questions are told
// apart from a client's: it always parks (the process cannot wait for a person).
const QString RunnerClientName = QStringLiteral("switchboard tool");

// Reads stdin to its end, or to one byte past `maxBytes` (so that the envelope is known to be too
// large without reading all of it).
bool readStandardInput(qint64 maxBytes, QByteArray* text, QString* error)
{
    char buffer[64 * 1024];
    while (text->size() <= maxBytes) {
        const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (got == 0)
            return true;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            *error = QStringLiteral("cannot read stdin: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
        text->append(buffer, qsizetype(got));
    }
    return true;
}

int emit(const RunnerAnswer& answer)
{
    std::fwrite(answer.text.constData(), 1, std::size_t(answer.text.size()), stdout);
    std::fflush(stdout);
    return answer.exitCode;
}

// A failure also goes to stderr, one line: routers that show only stderr (or a command tool's
// error, which carries its tail) then still say why.
int fail(const std::optional<ToolEnvelope>& envelope, const ToolEnvelope::Failure& failure, int exitCode)
{
    std::fprintf(stderr, "switchboard tool: %s\n", qPrintable(failure.message));
    return emit(envelope ? envelope->failure(failure, exitCode) : ToolEnvelope::plainFailure(failure, exitCode));
}

// A notification of the call, for the person watching stderr: progress and log messages.
void tellNotification(const QByteArray& message)
{
    const json notification = json::parse(message.constData(), message.constData() + message.size(), nullptr, false);
    if (!notification.is_object())
        return;
    const json params = notification.value("params", json::object());
    const std::string method = notification.value("method", std::string());
    if (method == "notifications/progress") {
        std::fprintf(stderr, "switchboard tool: progress %s%s%s\n", params.value("progress", json()).dump().c_str(),
            params.contains("total") ? ("/" + params["total"].dump()).c_str() : "",
            params.contains("message") ? ("  " + params.value("message", std::string())).c_str() : "");
    } else if (method == "notifications/message") {
        const json data = params.value("data", json());
        std::fprintf(stderr, "switchboard tool: %s: %s\n", params.value("level", std::string("info")).c_str(),
            data.is_string() ? data.get<std::string>().c_str() : data.dump().c_str());
    }
}

} // namespace

int runToolCommand(int argc, char** argv)
{
    Launch::prepareProcess();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHBOARD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Runs one tool call: reads an envelope from stdin ({\"tool\", \"input\", \"metadata\"}, {\"tool_name\", "
        "\"arguments\"}, {\"name\", \"arguments\"} or a JSON-RPC tools/call request), writes one JSON answer to "
        "stdout. The tool is NAME, TOOL_NAME or the envelope's."));
    const QCommandLineOption help(
        QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"),
        QStringLiteral("Where history and workspace state live (default %1).")
            .arg(CommandLine::defaultStateDirectory()),
        QStringLiteral("dir"));
    const QCommandLineOption config(QStringLiteral("config"),
        QStringLiteral("Configuration file (default %1).").arg(CommandLine::defaultConfigFile()),
        QStringLiteral("file"));
    const QCommandLineOption debugTools(
        QStringLiteral("debug-tools"), QStringLiteral("Also offer the debug.* test tools."));
    parser.addOptions({help, stateDir, config, debugTools});
    parser.addPositionalArgument(QStringLiteral("tool"), QStringLiteral("The word `tool`."));
    parser.addPositionalArgument(
        QStringLiteral("NAME"), QStringLiteral("The tool to run (or TOOL_NAME)."), QStringLiteral("[NAME]"));
    if (!parser.parse(QCoreApplication::arguments()))
        return fail(std::nullopt,
            {"invalid_command_line", parser.errorText() + QStringLiteral("; see switchboard tool --help")},
            ToolEnvelope::BadCall);
    if (parser.isSet(help)) {
        std::printf("%s", qPrintable(parser.helpText()));
        return 0;
    }
    const QStringList positional = parser.positionalArguments(); // "tool" [NAME]
    if (positional.size() > 2)
        return fail(std::nullopt,
            {"invalid_command_line",
                QStringLiteral("switchboard tool takes one tool name at most, got: %1")
                    .arg(positional.mid(1).join(u' '))},
            ToolEnvelope::BadCall);
    const QString callerToolName
        = positional.size() == 2 ? positional.at(1) : qEnvironmentVariable("TOOL_NAME").trimmed();

    CommandLine line;
    line.debugTools = parser.isSet(debugTools);
    line.stateDirectory = parser.isSet(stateDir) ? parser.value(stateDir) : CommandLine::defaultStateDirectory();
    line.configFile = parser.isSet(config) ? parser.value(config) : CommandLine::defaultConfigFile();

    QString error;
    SwitchboardConfig configuration;
    if (!SwitchboardConfig::load(line.configFile, &configuration, &error))
        return fail(std::nullopt, {"unavailable", error}, ToolEnvelope::Unavailable);

    QByteArray input;
    if (!readStandardInput(configuration.maxBodyBytes, &input, &error))
        return fail(std::nullopt, {"invalid_envelope", error}, ToolEnvelope::BadCall);
    ToolEnvelope::Failure failure;
    const std::optional<ToolEnvelope> envelope
        = ToolEnvelope::parse(input, callerToolName, configuration.maxBodyBytes, &failure);
    if (!envelope)
        return fail(std::nullopt, failure, ToolEnvelope::BadCall);

    std::optional<BackendOptions> options = Launch::backendOptions(line, configuration, &error);
    if (!options)
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);
    options->listen = false;
    options->config.clientModes.insert(RunnerClientName, QStringLiteral("park"));
    Backend backend(*options);
    if (!backend.start(&error))
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);

    LocalCallOutcome outcome;
    bool interrupted = false;
    Launch::onTerminationSignal(app, [&backend, &interrupted] {
        interrupted = true;
        backend.cancelLocalCalls(QStringLiteral("switchboard tool was interrupted (SIGINT or SIGTERM)"));
    });
    const LocalCaller caller{RunnerClientName, QStringLiteral(SWITCHBOARD_VERSION), envelope->invocation()};
    backend.callLocally(
        envelope->toolsCallRequest(), caller, tellNotification, [&outcome](const LocalCallOutcome& ended) {
            outcome = ended;
            QCoreApplication::quit();
        });
    app.exec();
    // History and workspace state are written before the answer: once a router reads it, the call
    // is in the console's history and what it changed is saved.
    backend.stop();

    switch (outcome.kind) {
    case LocalCallOutcome::Kind::Answered:
        return emit(envelope->answer(outcome.response));
    case LocalCallOutcome::Kind::Parked:
        return fail(envelope,
            {"waiting_for_person",
                QStringLiteral("%1: %2. Run the same call again once they have answered.")
                    .arg(envelope->toolName(), outcome.reason)},
            ToolEnvelope::WaitingForPerson);
    case LocalCallOutcome::Kind::Cancelled:
        break;
    }
    return fail(envelope,
        {"cancelled",
            interrupted ? QStringLiteral("switchboard tool was interrupted (SIGINT or SIGTERM); the call was cancelled")
                        : outcome.reason},
        interrupted ? ToolEnvelope::Interrupted : ToolEnvelope::ToolFailed);
}
