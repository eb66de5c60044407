#include "toolcommand.h"

#include "boundedjson.h"
#include "launch.h"
#include "store/statedirectory.h"
#include "store/statefilelock.h"
#include "tools/toolenvelope.h"
#include "transport/printabletext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QStringList>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <poll.h>
#include <unistd.h>

using nlohmann::json;

namespace {

// How the runner's calls are named in the call log and history, and how its questions are told
// apart from a client's: it always parks (the process cannot wait for a person).
const QString RunnerClientName = QStringLiteral("switchboard tool");

// Reads stdin to its end, or to one byte past `maxBytes` (so that the envelope is known to be too
// large without reading all of it). A router that never closes stdin must not hold the process for
// ever: unless stdin is a terminal (a person typing), reading gives up after `timeoutMs` in all
// (0: no limit), `timedOut` set.
bool readStandardInput(qint64 maxBytes, qint64 timeoutMs, QByteArray* text, QString* error, bool* timedOut)
{
    const bool limited = timeoutMs > 0 && !::isatty(STDIN_FILENO);
    QElapsedTimer clock;
    clock.start();
    char buffer[64 * 1024];
    while (text->size() <= maxBytes) {
        if (limited) {
            const qint64 left = timeoutMs - clock.elapsed();
            pollfd input{STDIN_FILENO, POLLIN, 0};
            const int ready = left > 0 ? ::poll(&input, 1, int(std::min<qint64>(left, 60'000))) : 0;
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready == 0) {
                if (clock.elapsed() < timeoutMs)
                    continue;
                *timedOut = true;
                *error = QStringLiteral("stdin was not closed within %1 s (%2 bytes read): send one envelope and "
                                        "close stdin, or raise --stdin-timeout")
                             .arg(double(timeoutMs) / 1000.0)
                             .arg(text->size());
                return false;
            }
        }
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

// Prints the answer. A failure's message also goes to stderr, one line: routers that show only
// stderr (or a command tool's error, which carries its tail) then still say why.
int emit(const RunnerAnswer& answer)
{
    // Escaped: the message may quote what the caller sent (a tool name) or a tool printed, and no
    // control character of theirs reaches the terminal (see PrintableText).
    if (!answer.message.isEmpty())
        std::fprintf(stderr, "switchboard tool: %s\n", PrintableText::escaped(answer.message).constData());
    std::fwrite(answer.text.constData(), 1, std::size_t(answer.text.size()), stdout);
    std::fflush(stdout);
    return answer.exitCode;
}

int fail(const std::optional<ToolEnvelope>& envelope, const ToolEnvelope::Failure& failure, int exitCode)
{
    return emit(envelope ? envelope->failure(failure, exitCode) : ToolEnvelope::refusal(failure, exitCode));
}

// A notification of the call, for the person watching stderr: progress and log messages.
void tellNotification(const QByteArray& message)
{
    // The runner's own backend wrote it: a record's limits.
    const json notification = BoundedJson::parse(message, BoundedJson::Limits::record()).value;
    if (!notification.is_object())
        return;
    const json params = notification.value("params", json::object());
    const std::string method = notification.value("method", std::string());
    // What a tool says is the tool's text: escaped as every message on stderr is.
    const auto printable = [](const json& value) {
        const std::string text
            = value.is_string() ? value.get<std::string>() : value.dump(-1, ' ', false, json::error_handler_t::replace);
        return PrintableText::escaped(QString::fromStdString(text));
    };
    if (method == "notifications/progress") {
        QByteArray line = "progress " + printable(params.value("progress", json()));
        if (params.contains("total"))
            line += '/' + printable(params["total"]);
        if (params.contains("message"))
            line += "  " + printable(params["message"]);
        std::fprintf(stderr, "switchboard tool: %s\n", line.constData());
    } else if (method == "notifications/message") {
        std::fprintf(stderr, "switchboard tool: %s: %s\n", printable(params.value("level", json("info"))).constData(),
            printable(params.value("data", json())).constData());
    }
}

// Whether `toolName` may be a tool of `adapter`: `adapter.tool`, or the mcp__adapter__tool alias.
bool mayBeAdapterTool(const QString& toolName, const QString& adapter)
{
    return toolName.startsWith(adapter + QLatin1Char('.'))
        || toolName.startsWith(QStringLiteral("mcp__") + adapter + QStringLiteral("__"));
}

// The calls the runner answers also run through a Backend that does not listen. Of the upstream
// adapters only the one the call names connects (all of them for --list: an empty `toolName`).
std::optional<BackendOptions> runnerOptions(
    const CommandLine& line, const SwitchboardConfig& configuration, const QString& toolName, QString* error)
{
    std::optional<BackendOptions> options = Launch::backendOptions(line, configuration, error);
    if (!options)
        return std::nullopt;
    if (!toolName.isEmpty()) {
        options->config.adapters.removeIf(
            [&](const AdapterConfig& adapter) { return !mayBeAdapterTool(toolName, adapter.name); });
    }
    options->listen = false;
    options->config.clientModes.insert(RunnerClientName, QStringLiteral("park"));
    options->server.toolsPageSize = std::numeric_limits<int>::max(); // --list prints them all at once
    return options;
}

// Runs `request` on a backend of its own; the outcome once the call ended and the backend stopped
// (history and workspace state written).
LocalCallOutcome runLocally(Backend& backend, const QByteArray& request, const LocalCaller& caller, bool* interrupted)
{
    LocalCallOutcome outcome;
    Launch::onTerminationSignal(*QCoreApplication::instance(), [&backend, interrupted] {
        *interrupted = true;
        backend.cancelLocalCalls(QStringLiteral("switchboard tool was interrupted (SIGINT or SIGTERM)"));
    });
    backend.callLocally(request, caller, tellNotification, [&outcome](const LocalCallOutcome& ended) {
        outcome = ended;
        QCoreApplication::quit();
    });
    QCoreApplication::exec();
    // History and workspace state are written before the answer: once a router reads it, the call
    // is in the console's history and what it changed is saved.
    backend.stop();
    return outcome;
}

int listTools(const CommandLine& line, const SwitchboardConfig& configuration)
{
    QString error;
    std::optional<BackendOptions> options = runnerOptions(line, configuration, QString(), &error);
    if (!options)
        return fail(std::nullopt, {"unavailable", error}, ToolEnvelope::Unavailable);
    Backend backend(*options);
    if (!backend.start(&error))
        return fail(std::nullopt, {"unavailable", error}, ToolEnvelope::Unavailable);
    bool interrupted = false;
    const LocalCallOutcome outcome
        = runLocally(backend, QByteArrayLiteral(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"),
            LocalCaller{RunnerClientName, QStringLiteral(SWITCHBOARD_VERSION), nullptr, {}}, &interrupted);
    const json response = BoundedJson::parse(outcome.response, BoundedJson::Limits::record()).value;
    if (outcome.kind != LocalCallOutcome::Kind::Answered || !response.is_object() || !response.contains("result"))
        return fail(
            std::nullopt, {"unavailable", QStringLiteral("the tools could not be listed")}, ToolEnvelope::Unavailable);
    json answer = response["result"];
    answer["ok"] = true;
    QByteArray text = QByteArray::fromStdString(answer.dump(-1, ' ', false, json::error_handler_t::replace));
    text.append('\n');
    return emit({text, ToolEnvelope::Succeeded, QString()});
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
    const QCommandLineOption list(QStringLiteral("list"),
        QStringLiteral("Print the tools this configuration offers (as tools/list would) instead of running one."));
    const QCommandLineOption stdinTimeout(QStringLiteral("stdin-timeout"),
        QStringLiteral("Give up when stdin is not closed within this many seconds (default 60; 0: wait for ever; "
                       "never when stdin is a terminal)."),
        QStringLiteral("seconds"), QStringLiteral("60"));
    const QCommandLineOption debugTools(
        QStringLiteral("debug-tools"), QStringLiteral("Also offer the debug.* test tools."));
    parser.addOptions({help, stateDir, config, list, stdinTimeout, debugTools});
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
    const ToolEnvelope::Naming naming{
        positional.size() == 2 ? positional.at(1) : QString(), qEnvironmentVariable("TOOL_NAME").trimmed()};

    bool secondsOk = false;
    const double stdinSeconds = parser.value(stdinTimeout).toDouble(&secondsOk);
    // toDouble reads "nan" and "inf" as numbers; neither is a number of seconds.
    if (!secondsOk || !std::isfinite(stdinSeconds) || stdinSeconds < 0 || stdinSeconds > 86'400)
        return fail(std::nullopt,
            {"invalid_command_line", QStringLiteral("--stdin-timeout must be a number of seconds from 0 to 86400")},
            ToolEnvelope::BadCall);

    CommandLine line;
    line.debugTools = parser.isSet(debugTools);
    line.stateDirectory = parser.isSet(stateDir) ? parser.value(stateDir) : CommandLine::defaultStateDirectory();
    line.configFile = parser.isSet(config) ? parser.value(config) : CommandLine::defaultConfigFile();

    QString error;
    SwitchboardConfig configuration;
    if (!SwitchboardConfig::load(line.configFile, &configuration, &error))
        return fail(std::nullopt, {"unavailable", error}, ToolEnvelope::Unavailable);

    if (parser.isSet(list))
        return listTools(line, configuration);

    QByteArray input;
    bool stdinTimedOut = false;
    if (!readStandardInput(configuration.maxBodyBytes, qint64(stdinSeconds * 1000), &input, &error, &stdinTimedOut))
        return fail(std::nullopt, {stdinTimedOut ? "stdin_timeout" : "invalid_envelope", error}, ToolEnvelope::BadCall);
    ToolEnvelope::Failure failure;
    const std::optional<ToolEnvelope> envelope
        = ToolEnvelope::parse(input, naming, configuration.maxBodyBytes, &failure);
    if (!envelope)
        return fail(std::nullopt, failure, ToolEnvelope::BadCall); // a JSON-RPC envelope's refusal keeps its id

    std::optional<BackendOptions> options = runnerOptions(line, configuration, envelope->toolName(), &error);
    if (!options)
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);
    // Runners admit their calls one at a time, from reading the workspace state to saving what the
    // admission took: a stored answer or a one-time approval given once is used by one call only,
    // however many identical runners start together. The lock is let go once the call is admitted,
    // not when it ends.
    if (!StateDirectory::prepare(options->stateDirectory, &error))
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);
    auto admission = std::make_shared<std::optional<StateFileLock>>(
        StateFileLock::acquire(QDir(options->stateDirectory).filePath(QStringLiteral("workspace.json.admission.lock")),
            std::chrono::seconds(30), &error, QStringLiteral("the runners' admission")));
    if (!*admission)
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);
    Backend backend(*options);
    if (!backend.start(&error))
        return fail(envelope, {"unavailable", error}, ToolEnvelope::Unavailable);
    bool interrupted = false;
    LocalCaller caller{RunnerClientName, QStringLiteral(SWITCHBOARD_VERSION), envelope->invocation(),
        [admission] { admission->reset(); }};
    const LocalCallOutcome outcome = runLocally(backend, envelope->toolsCallRequest(), caller, &interrupted);

    switch (outcome.kind) {
    case LocalCallOutcome::Kind::Answered:
        return emit(envelope->answer(outcome.response, outcome.status));
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
