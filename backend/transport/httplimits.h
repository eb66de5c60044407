#pragma once

// Limits the HTTP layer enforces on every connection, and on all connections together.

#include <QtGlobal>

struct HttpLimits
{
    qint64 maxBodyBytes = 4 * 1024 * 1024; // larger bodies get 413, whatever their framing
    int maxHeaderBytes = 64 * 1024; // a larger request head gets 431
    int headTimeoutMs = 10'000; // a request head must arrive whole within this of its first byte (408)
    int bodyTimeoutMs = 30'000; // a request body must arrive whole within this of its head (408)
    int idleKeepAliveMs = 60'000; // a connection with no request in progress is closed after this
    // Open connections in total; beyond it a connection without the token or the one idle the
    // longest makes room, or the newcomer gets 503.
    int maxConnections = 512;
    // Connections that have not shown the token in a complete request head (every connection starts
    // so): at most this many, and never more than half of maxConnections, so the rest is kept for
    // clients that have shown it. A newcomer beyond it closes the oldest of them, taken from the peer
    // address holding the most (one whose request waits unread is left alone while there is room in
    // total): a flood of half-sent heads pushes out its own, never a client that has shown the token.
    int maxUnauthenticatedConnections = 128;
    // A request without a valid token is refused (401) from its head when its body is larger than
    // this, before the body is read: only tokens open the way to the 4 MiB bodies.
    qint64 maxUnauthenticatedBodyBytes = 64 * 1024;
    // Connections one client (by clientInfo.name, across its sessions) may hold open waiting for an
    // answer (a call in flight, an event stream); beyond it a new tools/call or GET gets 503. Never
    // more than half of what is left for clients that have shown the token.
    int maxWaitingConnectionsPerClient = 64;
    int reservedFileDescriptors = 128; // never used for connections: files, pipes, processes, SQLite
    // Notifications (progress, log messages) are dropped while this much is already waiting to be
    // written to a client that does not read: a tool or an upstream that floods them cannot grow
    // the process without bound. Responses are never dropped.
    qint64 maxUnsentNotificationBytes = 8 * 1024 * 1024;

    // What one connection may buffer before it is refused: the largest head and body, plus the
    // chunk framing a body may add.
    qint64 maxBufferedBytes() const { return maxHeaderBytes + maxBodyBytes + ChunkFramingAllowance; }
    static constexpr qint64 ChunkFramingAllowance = 64 * 1024;
};
