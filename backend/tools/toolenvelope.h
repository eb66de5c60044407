#pragma once

// ToolEnvelope: one tool call as a router that starts a process per call hands it over on stdin, in
// each form such routers use ({tool, input, metadata}, {tool_name, arguments}, {name, arguments}, a
// JSON-RPC tools/call request), and the one JSON answer it reads back on stdout: the tool's
// CallToolResult with "ok", or {"ok": false, "error": {"code", "message"}}; a JSON-RPC request is
// answered with a JSON-RPC response. Pure: `switchboard tool` reads and writes, the backend runs.

#include "toolcall.h"

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

// What the runner prints, and the status it exits with.
struct RunnerAnswer
{
    QByteArray text; // one line of JSON
    int exitCode = 0;
    QString message; // a failure's message, for stderr too; empty on success
};

class ToolEnvelope
{
public:
    enum class Form {
        ToolInput, // {"tool", "input", "metadata"}
        ToolNameArguments, // {"tool_name", "arguments"}
        NameArguments, // {"name", "arguments"}
        JsonRpc, // {"jsonrpc": "2.0", "id", "method": "tools/call", "params": {"name", "arguments"}}
    };

    // Exit statuses, so a router can tell a failed tool from a malformed call without reading the
    // answer. 75 is sysexits' EX_TEMPFAIL: the same call may succeed later (after a person answers).
    enum ExitCode : int {
        Succeeded = 0,
        ToolFailed = 1, // the tool ran and reported an error (isError), or was denied
        BadCall = 2, // the envelope, the tool name or the arguments are wrong: retrying will not help
        // Switchboard could not start (configuration, state directory, history), or what the call needs
        // is not there now (an adapter's upstream is down): retrying later may help.
        Unavailable = 3,
        WaitingForPerson = 75,
        Interrupted = 130, // SIGINT or SIGTERM while the call ran
    };

    struct Failure
    {
        std::string code; // e.g. "invalid_envelope", "unknown_tool", "waiting_for_person"
        QString message; // what to do about it, for a person or a model
        nlohmann::json details = nlohmann::json::object(); // more fields of "error" (closestMatches)
        // Set when the refused envelope was a JSON-RPC request: its id (null when it could not be
        // read), so that the refusal is still a JSON-RPC response to it.
        std::optional<nlohmann::json> jsonRpcId = std::nullopt;
    };

    // Where the tool's name may come from besides the envelope.
    struct Naming
    {
        // The command line's NAME: Switchboard's name for the tool, which wins. A router names the
        // call by its own name for it (in the envelope and TOOL_NAME), which may differ.
        QString commandLine;
        // TOOL_NAME: the router's name, as the envelope's; the two must agree when both are given.
        QString variable;
    };

    // Reads one envelope. Text longer than `maxBytes`, nested deeper than JSON-RPC's limits, or not
    // one of the forms is refused with a Failure whose message says what was expected (and which
    // keeps a JSON-RPC envelope's id, see Failure::jsonRpcId).
    static std::optional<ToolEnvelope> parse(
        const QByteArray& text, const Naming& naming, qint64 maxBytes, Failure* failure);

    Form form() const { return m_form; }
    const QString& toolName() const { return m_toolName; }
    const nlohmann::json& arguments() const { return m_arguments; }
    // The invocation metadata the router verified (metadata.invocation), or a legacy auth field when
    // there is none; null when the envelope carries neither. `invocationSource` names which.
    const nlohmann::json& invocation() const { return m_invocation; }
    const QString& invocationSource() const { return m_invocationSource; }

    // The call as a JSON-RPC tools/call request, for Backend::callLocally.
    QByteArray toolsCallRequest() const;

    // The answer for the JSON-RPC response the call got. `status` is how the call ended, when the
    // backend said: arguments its schema refused are a wrong call (BadCall, "invalid_arguments"),
    // however the tool's result reports them.
    RunnerAnswer answer(const QByteArray& jsonRpcResponse, std::optional<CallStatus> status = std::nullopt) const;
    // A failure, answered in this envelope's form.
    RunnerAnswer failure(const Failure& failure, int exitCode) const;
    // A failure without an envelope (it could not be read, or was refused): a JSON-RPC response when
    // `failure` carries a JSON-RPC id, the plain form otherwise.
    static RunnerAnswer refusal(const Failure& failure, int exitCode);

private:
    Form m_form = Form::ToolInput;
    QString m_toolName;
    nlohmann::json m_arguments = nlohmann::json::object();
    nlohmann::json m_invocation;
    QString m_invocationSource;
    nlohmann::json m_requestId = 1; // the JSON-RPC request's id, echoed
    nlohmann::json m_progressToken; // a JSON-RPC request's params._meta.progressToken
};
