#pragma once

// GitTransportStream: the TCP connections libgit2 opens for clone, fetch, pull and push (plain,
// and underneath its TLS and SSH), replaced by ones that wait in short slices and give up as soon
// as the call they belong to is cancelled: by the client, by its session ending, or by its
// deadline passing (the executor cancels it). libgit2's own sockets block in connect() and recv()
// for as long as the peer stays silent, so a remote that stalls would hold a worker forever; its
// transfer callbacks run only when data arrives.
//
// The call a thread works for is set with a Scope around the transfer, with the remote's own host
// and port: a connection anywhere else (a redirect to another host, or to another port of the
// same one) is refused before it is opened, so no credential meant for the remote (in its URL,
// the invocation's, the person's connection for its host) can reach another server; the Scope
// says where the remote tried to send the transfer.

#include <QString>

class ToolCallContext;

class GitTransportStream
{
public:
    // Registers the stream with libgit2 (once per process; GitLibrary does it).
    static void install();

    // While it lives, connections opened on this thread obey `context`'s cancellation and, when
    // `host` is given, go to `host` and `port` only (-1: `defaultPort`).
    class Scope
    {
    public:
        explicit Scope(const ToolCallContext& context, const QString& host = {}, int port = -1, int defaultPort = -1);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

        // The call of the innermost Scope on this thread; null outside every Scope.
        static const ToolCallContext* current();

        // "host:port" of the first connection refused for leading elsewhere, or empty.
        QString refusedEndpoint() const;

        struct State;

    private:
        State* m_state;
        State* m_previous;
    };

    // The default port of a remote's scheme (https, http, ssh, git), or -1.
    static int defaultPort(const QString& scheme);
};
