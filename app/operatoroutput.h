#pragma once

// OperatorOutput: what an operator command prints once the server answered or could not be reached:
// tables for a person, one JSON object a line for a script (--json), and for every refusal a message
// that says what to do, with the exit status. Functions of the invocation and the answer only, so
// that every form is tested from canned JSON without a server.

#include "operatorinvocation.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

#include <optional>

// The exit statuses of the operator commands (README and --help list them).
namespace OperatorExit {
enum : int {
    Ok = 0,
    Failed = 1, // the server refused (403, 404, 409, …) or the command failed
    Usage = 2, // the command line is wrong
    Unreachable = 3, // no server answered, or it did not accept the token
};
} // namespace OperatorExit

// The operator token found for a command, and where it was looked for (never printed itself).
struct AttachToken
{
    QByteArray token; // empty: none was found
    QString source; // "SWITCHBOARD_OPERATOR_TOKEN", or the file it was read from
    QString tokenFile; // <state-dir>/operator-token, where a token is looked for without the variable
    QString problem; // with no token: why the file gave none ("does not exist")
    // It is an MCP client's token (a named client token, or the MCP token of this state directory or
    // SWITCHBOARD_TOKEN), which never opens the operator API.
    bool clientToken = false;
};

// The server a command talks to.
struct AttachTarget
{
    QUrl base; // as OperatorInvocation::baseUrl gives it
    QString origin; // where the URL came from, for messages: "--attach", "SWITCHBOARD_ATTACH", "the port in FILE"
    AttachToken credential;
};

// What a command prints, and its exit status.
struct OperatorPrinted
{
    QByteArray out;
    QByteArray err;
    int exitCode = OperatorExit::Ok;
};

namespace OperatorOutput {

// How much of a question's or call's arguments a line shows.
inline constexpr int ArgumentsPreviewChars = 200;

// The server answered `httpStatus` with `body` (and, for a redirect, `location`).
OperatorPrinted reply(const OperatorInvocation& invocation, const AttachTarget& target, int httpStatus,
    const QByteArray& body, qint64 nowMs, const QByteArray& location = {});

enum class Unreached {
    Refused, // nothing listens there
    HostNotFound,
    TimedOut, // --timeout passed
    Closed, // the connection closed before an answer
    Tls,
    TooLarge, // the answer was larger than any the API gives
    Other,
};

// No answer came from the server.
OperatorPrinted unreached(
    const OperatorInvocation& invocation, const AttachTarget& target, Unreached why, const QString& detail);

// The provider a connect question asks for, from the server's GET /questions answer; nullopt when
// the answer lists no question `id`.
std::optional<QString> connectProvider(const QByteArray& questionsBody, const QString& id);

// A message of the command on stderr ("switchboard WORD: …"), escaped.
QByteArray message(const QString& word, const QString& text);

} // namespace OperatorOutput
