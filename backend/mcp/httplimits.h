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
    int maxConnections = 512; // open connections in total; the oldest idle one makes room, or 503
    int maxConnectionsPerPeer = 256; // open connections from one peer address
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
