#pragma once

// GitCredentialSource: where clone, push and pull find a token when a remote asks for one, in the
// issue's order: a credential in the call's verified invocation metadata; the connection a person
// stored for the provider mapped to the remote's host (git.credentials); otherwise, for a client in
// hold mode, a connect question in the console ("git_push needs a connection to github.com") that
// the call waits on. Tokens never appear in results, logs or history.
//
// obtain() is called on a worker of the ToolExecutor and blocks it until there is an answer, the
// person declines, or the call is cancelled. A transfer asks first with mayAskPerson false, from
// inside libgit2's credential callback, and asks the person only after that transfer has ended:
// a server closes an idle connection within seconds (lighttpd's keep-alive after 5 s), so waiting
// for a person inside the callback left libgit2 to send the credentials on a dead connection.

#include <QByteArray>
#include <QString>

#include <optional>

class ToolCallContext;

struct GitCredential
{
    QString username;
    QByteArray secret; // the token or password; never shown
    QString origin; // for messages: "the invocation's credential", "the github connection (alice)"
};

class GitCredentialSource
{
public:
    struct Request
    {
        QString host; // lower case
        QString url; // without credentials, for messages
        QString username; // the URL's user, if it had one
        QString tool; // for the question: "git_push"
        // False: where only a person could give a credential, say so through personNeeded instead
        // of asking.
        bool mayAskPerson = true;
    };

    virtual ~GitCredentialSource() = default;

    // A credential for `request`, or nothing with `error` saying what the caller can do (which
    // request_connection to call, that the person declined, that no provider is mapped).
    // `attempt` counts from 0: a credential the remote refused is not offered again.
    // `personNeeded` (may be null) is set when there is none because request.mayAskPerson was false.
    virtual std::optional<GitCredential> obtain(
        ToolCallContext& context, const Request& request, int attempt, QString* error, bool* personNeeded)
        = 0;
};
