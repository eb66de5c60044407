#include "commands/commandtool.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTimer>

#include <mutex>

#include <signal.h>
#include <unistd.h>

using nlohmann::json;

namespace {

// What one call has seen so far, shared between the worker that runs the process and the session
// that asks for the call's details (on the backend thread) when the call ends or is cancelled.
struct RunState
{
    mutable std::mutex mutex;
    json envelope;
    qint64 pid = 0;
    QByteArray stdoutHead; // the first DetailsStdoutBytes
    qint64 stdoutBytes = 0;
    QByteArray stderrTail; // the last MaxStderrBytes
    qint64 stderrBytes = 0;
    QString outcome; // empty while running
    std::optional<int> exitCode;
    qint64 durationMs = -1;
};

QString sizeText(qint64 bytes)
{
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        return QStringLiteral("%1 MiB").arg(bytes / (1024 * 1024));
    if (bytes >= 1024 && bytes % 1024 == 0)
        return QStringLiteral("%1 KiB").arg(bytes / 1024);
    return QStringLiteral("%1 bytes").arg(bytes);
}

QString secondsText(std::chrono::milliseconds duration)
{
    return QString::number(double(duration.count()) / 1000, 'g', 6) + QStringLiteral(" s");
}

// The end of stderr for a message: its last MessageStderrBytes, from a character boundary.
QString stderrForMessage(const QByteArray& tail, qint64 totalBytes)
{
    if (tail.trimmed().isEmpty())
        return QStringLiteral("stderr was empty.");
    QByteArray shown = tail.right(CommandTool::MessageStderrBytes);
    while (!shown.isEmpty() && (uchar(shown.front()) & 0xC0) == 0x80)
        shown.remove(0, 1);
    const QString text = QString::fromUtf8(shown).trimmed();
    if (totalBytes > shown.size())
        return QStringLiteral("stderr (last %1 of %2 bytes):\n%3").arg(shown.size()).arg(totalBytes).arg(text);
    return QStringLiteral("stderr:\n%1").arg(text);
}

void signalGroup(qint64 pid, int signal)
{
    // The command runs in a process group of its own whose id is its pid (setpgid in the child).
    if (pid > 0)
        ::kill(-pid_t(pid), signal);
}

} // namespace

CommandTool::CommandTool(CommandToolConfig config)
    : m_config(std::move(config))
{}

const QStringList& CommandTool::inheritedVariables()
{
    // Enough for an ordinary program to find its tools, its home, its language and a temporary
    // directory; nothing else of Switchboard's environment (tokens, sockets, display) goes along.
    static const QStringList names = {QStringLiteral("PATH"), QStringLiteral("HOME"), QStringLiteral("USER"),
        QStringLiteral("LOGNAME"), QStringLiteral("LANG"), QStringLiteral("LC_ALL"), QStringLiteral("LC_CTYPE"),
        QStringLiteral("LC_MESSAGES"), QStringLiteral("TZ"), QStringLiteral("TMPDIR")};
    return names;
}

QProcessEnvironment CommandTool::environment(const QProcessEnvironment& inherited) const
{
    QProcessEnvironment environment;
    for (const QString& name : inheritedVariables()) {
        if (inherited.contains(name))
            environment.insert(name, inherited.value(name));
    }
    if (!environment.contains(QStringLiteral("PATH")))
        environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    for (const auto& [name, value] : m_config.env)
        environment.insert(name, value);
    environment.insert(QStringLiteral("TOOL_NAME"), m_config.spec.name);
    return environment;
}

json CommandTool::envelope(const ToolCallContext& context)
{
    const CallMetadata& metadata = context.metadata();
    json meta{{"callId", metadata.callId}, {"tool", metadata.tool.toStdString()},
        {"route", metadata.route.toString().toStdString()}, {"sessionId", metadata.sessionId.toStdString()},
        {"client", {{"name", metadata.clientName.toStdString()}, {"version", metadata.clientVersion.toStdString()}}}};
    if (!metadata.progressToken.is_null())
        meta["progressToken"] = metadata.progressToken;
    if (!metadata.invocation.is_null())
        meta["invocation"] = metadata.invocation;
    return json{{"tool", metadata.tool.toStdString()}, {"input", context.arguments()}, {"metadata", std::move(meta)}};
}

json CommandTool::recordedEnvelope(json envelope)
{
    const auto metadata = envelope.find("metadata");
    if (metadata != envelope.end() && metadata->is_object() && metadata->contains("invocation"))
        (*metadata)["invocation"] = WithheldInvocation;
    return envelope;
}

std::optional<QString> CommandTool::reportedFailure(const json& value)
{
    if (!value.is_object())
        return std::nullopt;
    const auto ok = value.find("ok");
    if (ok == value.end() || !ok->is_boolean() || ok->get<bool>())
        return std::nullopt;
    const auto error = value.find("error");
    if (error == value.end() || error->is_null())
        return QStringLiteral("the command reported a failure (\"ok\": false) without an error");
    if (error->is_string())
        return QString::fromStdString(error->get<std::string>());
    if (error->is_object()) {
        const auto message = error->find("message");
        const auto code = error->find("code");
        QString text = message != error->end() && message->is_string()
            ? QString::fromStdString(message->get<std::string>())
            : QString::fromStdString(error->dump(-1, ' ', false, json::error_handler_t::replace));
        if (code != error->end() && (code->is_string() || code->is_number()))
            text += QStringLiteral(" (%1)").arg(
                QString::fromStdString(code->is_string() ? code->get<std::string>() : code->dump()));
        return text;
    }
    return QString::fromStdString(error->dump(-1, ' ', false, json::error_handler_t::replace));
}

bool CommandTool::resultFromStdout(const QByteArray& stdoutBytes, ToolResult* result, QString* problem)
{
    if (stdoutBytes.trimmed().isEmpty()) {
        *problem = QStringLiteral("it printed nothing on stdout (a command tool prints one JSON value)");
        return false;
    }
    BoundedJson::Result<json> parsed = BoundedJson::parse(stdoutBytes, OutputLimits);
    if (!parsed.ok && parsed.problem == BoundedJson::Problem::Malformed) {
        const QString start = QString::fromUtf8(stdoutBytes.left(200)).trimmed();
        *problem = QStringLiteral("its stdout is not one JSON value (%1); stdout starts: %2")
                       .arg(QString::fromStdString(parsed.error), start);
        return false;
    }
    if (!parsed.ok) {
        *problem = QStringLiteral("its stdout is refused: %1 (a command tool's output may nest %2 levels deep and "
                                  "hold %3 values)")
                       .arg(QString::fromStdString(parsed.error))
                       .arg(OutputLimits.maxDepth)
                       .arg(OutputLimits.maxValues);
        return false;
    }
    json value = std::move(parsed.value);
    *result = ToolResult();
    // {"ok": false, "error": …} is the per-invocation contract's failure, whatever else it holds.
    const std::optional<QString> reported = reportedFailure(value);
    const auto content = value.is_object() ? value.find("content") : value.end();
    if (value.is_object() && content != value.end() && content->is_array()) {
        // Already a CallToolResult: taken as it is.
        result->content = *content;
        if (const auto structured = value.find("structuredContent");
            structured != value.end() && structured->is_object())
            result->structuredContent = *structured;
        if (const auto isError = value.find("isError"); isError != value.end() && isError->is_boolean())
            result->isError = isError->get<bool>();
        result->isError = result->isError || reported.has_value();
        return true;
    }
    const std::string text = reported ? reported->toStdString()
        : value.is_string()           ? value.get<std::string>()
                                      : value.dump(-1, ' ', false, json::error_handler_t::replace);
    result->content = json::array({json{{"type", "text"}, {"text", text}}});
    result->structuredContent = value.is_object() ? value : json{{"result", value}};
    result->isError = reported.has_value();
    return true;
}

RegisteredTool CommandTool::registeredTool(std::shared_ptr<const CommandTool> tool)
{
    RegisteredTool registered;
    registered.spec = tool->m_config.spec;
    registered.route = ToolRoute::command();
    // The tool's own timeout ends a call with stderr in its message; the executor's deadline, a
    // little later, is only the backstop (time waiting for a worker counts there too).
    registered.execution = ExecutionPolicy::blocking(qint64(tool->m_config.timeout.count()) + KillGraceMs + 10'000);
    registered.execution.group = QStringLiteral("command:") + tool->m_config.spec.name;
    registered.execution.groupLimit = tool->m_config.maxConcurrent;
    registered.blockingHandler = [tool](ToolCallContext& context) { return tool->run(context); };
    return registered;
}

ToolResult CommandTool::run(ToolCallContext& context) const
{
    const QString& name = m_config.spec.name;
    auto state = std::make_shared<RunState>();
    const json sent = envelope(context);
    const QByteArray input
        = QByteArray::fromStdString(sent.dump(-1, ' ', false, json::error_handler_t::replace) + '\n');
    // The details (and so history) keep the envelope without the verified invocation metadata.
    state->envelope = recordedEnvelope(sent);
    const ToolCallContext* call = &context; // the source lives in the context, so never outlives it
    json args = json::array();
    for (const QString& arg : m_config.args)
        args.push_back(arg.toStdString());
    // Copies: the source can be asked after a reload replaced this tool.
    context.setDetailsSource([state, call, command = m_config.command.toStdString(), args = std::move(args),
                                 cwd = m_config.workingDirectory.toStdString()] {
        std::lock_guard lock(state->mutex);
        json details{{"command", command}, {"args", args}, {"cwd", cwd}, {"envelope", state->envelope},
            {"stdoutBytes", state->stdoutBytes}, {"stderrBytes", state->stderrBytes},
            {"stdout", QString::fromUtf8(state->stdoutHead).toStdString()},
            {"stderr", QString::fromUtf8(state->stderrTail).toStdString()}};
        if (state->pid > 0)
            details["pid"] = state->pid;
        details["exit"] = state->outcome.isEmpty()
            ? (call->isCancelled() ? "cancelled while running: its process group is being killed" : "running")
            : state->outcome.toStdString();
        details["exitCode"] = state->exitCode ? json(*state->exitCode) : json();
        if (state->durationMs >= 0)
            details["durationMs"] = state->durationMs;
        return details;
    });
    const auto finish = [&](const QString& outcome, std::optional<int> exitCode, qint64 durationMs) {
        std::lock_guard lock(state->mutex);
        state->outcome = outcome;
        state->exitCode = exitCode;
        state->durationMs = durationMs;
    };
    const auto failure = [&](const QString& message, CallStatus outcome = CallStatus::ToolError) {
        return ToolResult::error(QStringLiteral("Command tool \"%1\" failed: %2").arg(name, message), outcome);
    };
    if (context.isCancelled()) {
        finish(QStringLiteral("not started: the call was cancelled"), std::nullopt, 0);
        return failure(QStringLiteral("the call was cancelled before the command started."), CallStatus::Cancelled);
    }

    QEventLoop loop; // first: it gives this worker thread the event dispatcher QProcess needs
    QProcess process;
    process.setProgram(m_config.command);
    process.setArguments(m_config.args);
    process.setWorkingDirectory(m_config.workingDirectory);
    process.setProcessEnvironment(environment(QProcessEnvironment::systemEnvironment()));
    process.setProcessChannelMode(QProcess::SeparateChannels);
    // A group of its own: the command and every child it starts are killed together.
    process.setChildProcessModifier([] { ::setpgid(0, 0); });

    enum class Stop { None, TimedOut, Cancelled, Flooded };
    Stop stop = Stop::None;
    QElapsedTimer clock;
    QElapsedTimer terminating; // since SIGTERM went to the group
    qint64 pid = 0;
    const auto killGroup = [&](Stop why) {
        if (stop != Stop::None)
            return;
        stop = why;
        signalGroup(pid, SIGTERM);
        terminating.start();
    };
    QObject::connect(&process, &QProcess::readyReadStandardOutput, &loop, [&] {
        const QByteArray chunk = process.readAllStandardOutput();
        std::lock_guard lock(state->mutex);
        state->stdoutBytes += chunk.size();
        if (state->stdoutHead.size() < MaxStdoutBytes)
            state->stdoutHead.append(chunk.left(MaxStdoutBytes - state->stdoutHead.size()));
        if (state->stdoutBytes > MaxStdoutBytes && stop == Stop::None) {
            stop = Stop::Flooded;
            signalGroup(pid, SIGKILL); // nothing it could still say is wanted
            terminating.start();
        }
    });
    QObject::connect(&process, &QProcess::readyReadStandardError, &loop, [&] {
        const QByteArray chunk = process.readAllStandardError();
        std::lock_guard lock(state->mutex);
        state->stderrBytes += chunk.size();
        state->stderrTail.append(chunk);
        if (state->stderrTail.size() > MaxStderrBytes)
            state->stderrTail.remove(0, state->stderrTail.size() - MaxStderrBytes);
    });
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&process, &QProcess::errorOccurred, &loop, [&](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            loop.quit();
    });
    QTimer tick;
    tick.setInterval(CheckIntervalMs);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        if (stop == Stop::None) {
            if (context.isCancelled())
                killGroup(Stop::Cancelled);
            else if (clock.elapsed() >= qint64(m_config.timeout.count()))
                killGroup(Stop::TimedOut);
        } else if (terminating.isValid() && terminating.elapsed() >= KillGraceMs) {
            signalGroup(pid, SIGKILL);
        }
    });

    clock.start();
    process.start(QIODevice::ReadWrite);
    if (!process.waitForStarted(-1) || process.state() != QProcess::Running) {
        // waitForStarted returns at once when starting failed (no such file, not executable).
        const QString reason = process.errorString();
        finish(QStringLiteral("could not start: %1").arg(reason), std::nullopt, clock.elapsed());
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(KillGraceMs);
        }
        return failure(QStringLiteral("cannot start the command \"%1\" (cwd %2): %3.")
                           .arg(m_config.command, m_config.workingDirectory, reason));
    }
    pid = process.processId();
    {
        std::lock_guard lock(state->mutex);
        state->pid = pid;
    }
    process.write(input);
    process.closeWriteChannel();
    tick.start();
    if (process.state() != QProcess::NotRunning)
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    tick.stop();
    // Whatever the command left behind in its group (a child in the background) goes with it.
    signalGroup(pid, SIGKILL);
    const qint64 durationMs = clock.elapsed();
    // What was still in the pipes when it ended.
    if (const QByteArray rest = process.readAllStandardOutput(); !rest.isEmpty()) {
        std::lock_guard lock(state->mutex);
        state->stdoutBytes += rest.size();
        if (state->stdoutHead.size() < MaxStdoutBytes)
            state->stdoutHead.append(rest.left(MaxStdoutBytes - state->stdoutHead.size()));
    }
    if (const QByteArray rest = process.readAllStandardError(); !rest.isEmpty()) {
        std::lock_guard lock(state->mutex);
        state->stderrBytes += rest.size();
        state->stderrTail.append(rest);
        if (state->stderrTail.size() > MaxStderrBytes)
            state->stderrTail.remove(0, state->stderrTail.size() - MaxStderrBytes);
    }
    QByteArray stdoutBytes;
    QString stderrText;
    qint64 totalStdout = 0;
    {
        std::lock_guard lock(state->mutex);
        stdoutBytes = state->stdoutHead;
        totalStdout = state->stdoutBytes;
        stderrText = stderrForMessage(state->stderrTail, state->stderrBytes);
        // The details keep the start of stdout; the result (when there is one) is in the response.
        if (state->stdoutHead.size() > DetailsStdoutBytes)
            state->stdoutHead.truncate(DetailsStdoutBytes);
    }
    const bool crashed = process.exitStatus() == QProcess::CrashExit;
    const int exitCode = process.exitCode();
    const QString exitText
        = crashed ? QStringLiteral("killed by a signal") : QStringLiteral("exit status %1").arg(exitCode);

    switch (stop) {
    case Stop::Cancelled:
        finish(QStringLiteral("cancelled: its process group was killed (%1)").arg(exitText), std::nullopt, durationMs);
        return failure(QStringLiteral("the call was cancelled and the command was stopped."), CallStatus::Cancelled);
    case Stop::TimedOut:
        finish(QStringLiteral("timed out after %1: its process group was killed (%2)")
                   .arg(secondsText(m_config.timeout), exitText),
            std::nullopt, durationMs);
        return failure(QStringLiteral("the command did not finish within its timeout of %1 and was killed. %2")
                           .arg(secondsText(m_config.timeout), stderrText),
            CallStatus::TimedOut);
    case Stop::Flooded:
        finish(
            QStringLiteral("wrote more than %1 to stdout: its process group was killed").arg(sizeText(MaxStdoutBytes)),
            std::nullopt, durationMs);
        return failure(QStringLiteral("the command wrote more than %1 to stdout (%2 bytes read) and was killed; a "
                                      "command tool prints one JSON value. %3")
                           .arg(sizeText(MaxStdoutBytes))
                           .arg(totalStdout)
                           .arg(stderrText));
    case Stop::None:
        break;
    }
    if (crashed) {
        finish(exitText, std::nullopt, durationMs);
        return failure(QStringLiteral("the command was killed by a signal. %1").arg(stderrText));
    }
    finish(exitText, exitCode, durationMs);
    if (exitCode != 0) {
        // The error the command printed on stdout, when it printed one ({"ok": false, "error": …}),
        // is the heart of the message, and the failure's structured content.
        ToolResult printed;
        QString ignored;
        if (!stdoutBytes.trimmed().isEmpty() && resultFromStdout(stdoutBytes, &printed, &ignored) && printed.isError
            && printed.structuredContent.is_object()) {
            ToolResult result = failure(QStringLiteral("the command exited with status %1: %2 %3")
                                            .arg(exitCode)
                                            .arg(printed.firstText(), stderrText));
            result.structuredContent = printed.structuredContent;
            return result;
        }
        return failure(QStringLiteral("the command exited with status %1. %2").arg(exitCode).arg(stderrText));
    }
    ToolResult result;
    QString problem;
    if (!resultFromStdout(stdoutBytes, &result, &problem))
        return failure(QStringLiteral("the command exited with status 0, but %1. %2").arg(problem, stderrText));
    return result;
}
