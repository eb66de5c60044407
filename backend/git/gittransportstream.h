#pragma once

// GitTransportStream: the TCP connections libgit2 opens for clone, fetch, pull and push (plain,
// and underneath its TLS and SSH), replaced by ones that wait in short slices and give up as soon
// as the call they belong to is cancelled: by the client, by its session ending, or by its
// deadline passing (the executor cancels it). libgit2's own sockets block in connect() and recv()
// for as long as the peer stays silent, so a remote that stalls would hold a worker forever; its
// transfer callbacks run only when data arrives.
//
// The call a thread works for is set with a Scope around the transfer.

class ToolCallContext;

class GitTransportStream
{
public:
    // Registers the stream with libgit2 (once per process; GitLibrary does it).
    static void install();

    // While it lives, connections opened on this thread obey `context`'s cancellation.
    class Scope
    {
    public:
        explicit Scope(const ToolCallContext& context);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

        // The call of the innermost Scope on this thread; null outside every Scope.
        static const ToolCallContext* current();

    private:
        const ToolCallContext* m_previous;
    };
};
