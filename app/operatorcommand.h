#pragma once

// `switchboard questions | answer | history | status | grants | grant revoke | breaker | adapter`:
// the operator's command line over a running Switchboard's operator API (docs/operator-api.md), on
// this machine or another: list the questions that wait and answer them, read history and health,
// reset breakers, enable adapters, revoke grants. Each finds the server (--attach,
// SWITCHBOARD_ATTACH, or the configured port on loopback) and the operator token
// (SWITCHBOARD_OPERATOR_TOKEN, or <state-dir>/operator-token), sends one request, prints the answer
// and exits: 0 done, 1 refused or failed, 2 a usage error, 3 no server reached or the token not
// accepted. No window, no backend of its own, no GUI library.

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace OperatorCommand {

// What the command takes from its process besides the command line; tests give their own.
struct Environment
{
    QString attach; // SWITCHBOARD_ATTACH
    QByteArray operatorToken; // SWITCHBOARD_OPERATOR_TOKEN; empty: not set
    QByteArray clientToken; // SWITCHBOARD_TOKEN (the MCP clients' token), to say when it was given instead
    // Reads the API key of a connect answer (stdin: the whole of it, or a line typed unseen at a
    // terminal), giving up after `timeoutMs`; nullopt with `error` when it could not.
    std::function<std::optional<QByteArray>(int timeoutMs, QString* error)> readSecret;

    // This process's variables and stdin.
    static Environment fromProcess();
};

// Whether `word` (argv[1]) is one of these commands.
bool isCommand(const char* word);

// Runs the command (arguments: the program, the command word, its words and options) and returns
// its exit status; what it prints is appended to `out` and `err`. Sends its request from an event
// loop of its own: a QCoreApplication must exist.
int run(const QStringList& arguments, const Environment& environment, QByteArray* out, QByteArray* err);

} // namespace OperatorCommand

// Runs the command as the process; `argv[1]` is the command word. Returns the exit status.
int runOperatorCommand(int argc, char** argv);
