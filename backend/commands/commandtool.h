#pragma once

// CommandTool: a tool backed by an executable (CommandToolConfig). Each call starts the command
// afresh in a process group of its own, with TOOL_NAME and a minimal environment, writes the
// envelope {"tool", "input", "metadata"} to its stdin and closes it, and reads one JSON value from
// its stdout as the result. A non-zero exit, stdout that is not one JSON value, a timeout, too much
// output or a command that cannot start is a tool error carrying the exit status and the tail of
// stderr. The whole process group is killed (SIGTERM, then SIGKILL after a grace) on timeout,
// cancellation and shutdown, and once more when the command ends, so that a child left behind does
// not outlive the call. The call's details (envelope, stdout, stderr, exit status, duration) go to
// the call record through ToolCallContext::setDetailsSource.
//
// Immutable; run() is the tool's blocking handler and runs on a worker of the ToolExecutor, where a
// local event loop drives the process.

#include "boundedjson.h"
#include "commands/commandtoolconfig.h"
#include "tools/toolregistry.h"

#include <QProcessEnvironment>

#include <optional>

class CommandTool
{
public:
    // stdout beyond this fails the call (and kills the command): a result is one JSON value.
    static constexpr qint64 MaxStdoutBytes = qint64(8) * 1024 * 1024;
    // stdout is one JSON value within these: nesting and values beyond them fail the call.
    static constexpr BoundedJson::Limits OutputLimits = BoundedJson::Limits::message();
    // stderr is kept as its last this many bytes.
    static constexpr qint64 MaxStderrBytes = qint64(1) * 1024 * 1024;
    // An error message quotes the last this many bytes of stderr.
    static constexpr qint64 MessageStderrBytes = 4 * 1024;
    // The details keep the first this many bytes of stdout (the result itself is in the response).
    static constexpr qint64 DetailsStdoutBytes = qint64(1) * 1024 * 1024;
    // Between SIGTERM and SIGKILL to the process group.
    static constexpr qint64 KillGraceMs = 1'000;
    // How often a running call checks its cancellation token and its timeout.
    static constexpr int CheckIntervalMs = 50;

    explicit CommandTool(CommandToolConfig config);

    const CommandToolConfig& config() const { return m_config; }

    // The tool as ToolRegistry takes it: route command, blocking, at most max_concurrent calls at
    // once (group "command:<name>"), an executor deadline a little past the tool's own timeout.
    static RegisteredTool registeredTool(std::shared_ptr<const CommandTool> tool);

    // One call, start to end; blocks the calling (worker) thread.
    ToolResult run(ToolCallContext& context) const;

    // The environment a call's process gets: the variables of `inherited` named in
    // inheritedVariables(), then the tool's env, then TOOL_NAME.
    QProcessEnvironment environment(const QProcessEnvironment& inherited) const;
    static const QStringList& inheritedVariables();
    // The JSON written to the command's stdin: {"tool", "input", "metadata"}, the metadata with the
    // call's verified invocation metadata (metadata.invocation) when its caller gave one.
    static nlohmann::json envelope(const ToolCallContext& context);
    // The envelope as the call's details keep it: the invocation metadata, which may hold
    // credentials, replaced by WithheldInvocation (it never reaches history).
    static nlohmann::json recordedEnvelope(nlohmann::json envelope);
    static constexpr const char* WithheldInvocation = "[withheld: passed to the command, never recorded]";
    // The message of a value in the per-invocation contract's failure shape, {"ok": false, "error":
    // E} (E a string, or an object with "message" and "code"); nothing for any other value.
    static std::optional<QString> reportedFailure(const nlohmann::json& value);
    // A successful command's stdout as the call's result: a CallToolResult as it is when it has a
    // `content` array; any other JSON value as a text block with the value as structuredContent
    // (an object as it is, anything else as {"result": value}). A value with "ok": false is a
    // failure (isError), its text the error's message. False with `problem` set when stdout is not
    // one JSON value or exceeds OutputLimits.
    static bool resultFromStdout(const QByteArray& stdoutBytes, ToolResult* result, QString* problem);

private:
    CommandToolConfig m_config;
};
