#pragma once

// OperatorInvocation: what one of the operator commands (`switchboard questions | answer | history |
// status | grants | grant | breaker | adapter`) was asked to do, read from its words without touching
// the network: the request to the operator API it becomes (method, path, query, JSON body), how the
// answer is to be printed, and where the server and its token are looked for. OperatorCommand sends
// it; keeping the reading apart lets every form of every command be tested without a server.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

#include <nlohmann/json.hpp>

#include <optional>

// One request to the operator API, relative to the server's base URL.
struct OperatorRequest
{
    QByteArray method; // GET, POST or DELETE
    QString path; // "/operator/v1/…", every segment taken from the command line percent-encoded
    QUrlQuery query;
    std::optional<nlohmann::json> body; // sent as application/json when set

    // The request's URL under `base` (the server's base URL, as OperatorInvocation::baseUrl gives it).
    QUrl url(const QUrl& base) const;
};

struct OperatorInvocation
{
    enum class Command {
        Questions,
        Answer,
        History,
        Status,
        Grants,
        RevokeGrant,
        ResetBreaker,
        OpenBreaker,
        EnableAdapter,
        DisableAdapter,
    };

    Command command = Command::Status;
    QString word; // the command's first word ("answer", "breaker"), for messages
    QString subject; // the question id, the adapter's name or the grant's id
    QString answer; // Answer: the API's answer ("allow_once", "choose", …)
    bool jsonLines = false; // --json
    bool readsApiKey = false; // Answer connect: the body's "apiKey" is read from stdin before sending
    OperatorRequest request;

    // Where and how long; empty: not given on the command line.
    QString attach;
    QString configFile;
    QString stateDirectory;
    int timeoutMs = 30'000;

    // Whether `word` (argv[1]) names one of these commands.
    static bool isCommand(const QString& word);

    // Reads the command line (the program, the command word, then its words and options). nullopt
    // when it does not run: `helpText` set for -h/--help (exit status 0), else `error` says what is
    // wrong with the words (exit status 2).
    static std::optional<OperatorInvocation> parse(const QStringList& arguments, QString* helpText, QString* error);

    // The server's base URL from what a person gives --attach or SWITCHBOARD_ATTACH: the base URL
    // (http://host:port), the MCP URL (…/mcp) or the operator API's (…/operator/v1), with or without
    // a trailing slash; a path before them (a reverse proxy's prefix) is kept. A missing scheme reads
    // as http. nullopt with `error` for what cannot be a server's URL.
    static std::optional<QUrl> baseUrl(const QString& text, QString* error);
};
