#pragma once

// HttpConnectionGuard: sits in front of Qt HttpServer's request parser on one connection.
//
// Qt 6.4's QAbstractHttpServer keeps every byte of a request in a socket transaction until the
// request is complete, buffers a whole body of any size, accepts heads with bare LF line endings,
// answers nothing to a request it cannot parse, never times out a stalled client, and reads (and
// answers) a pipelined request while the previous one is still being answered. The guard sees
// every read before the parser does: it refuses oversized heads (431) and bodies (413) and framing
// RFC 9112 forbids (400) before they are buffered, gives the head and the body each a total
// deadline (408), closes long-idle connections, answers "100 Continue" for clients that wait for
// it, answers 400 for a request the parser silently dropped, holds back a connection's next
// request until the current response is written, and closes after the response when the client
// asked for "Connection: close".

#include "mcp/httplimits.h"

#include <QBasicTimer>
#include <QByteArray>
#include <QObject>

#include <chrono>

class QTcpSocket;

class HttpConnectionGuard : public QObject
{
    Q_OBJECT
public:
    using Clock = std::chrono::steady_clock;

    // Installs a guard on `socket`; call before any other readyRead connection is made.
    static HttpConnectionGuard* install(QTcpSocket* socket, const HttpLimits& limits);
    static HttpConnectionGuard* of(QTcpSocket* socket);

    // Called as the server starts handling what the parser passed on. False when it is not a new
    // request (Qt 6.4 hands the previous one over again after a read that gave it no bytes): the
    // server must then not answer.
    bool beginRequest();
    // The server's handler returned; unless a response is still pending, the response is written.
    void requestHandled();
    // While a response (or an event stream) is outstanding, the connection reads no further request.
    void setResponsePending(bool pending);

    // No request is in progress or being answered: the connection may be closed to make room.
    bool isIdle() const;
    Clock::time_point idleSince() const { return m_idleSince; }
    // Closes the connection at once (to make room for another).
    void closeIdle();

Q_SIGNALS:
    // A large request ended (answered or refused): freed memory can be given back to the system.
    void largeRequestEnded();

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    HttpConnectionGuard(QTcpSocket* socket, const HttpLimits& limits);

    enum class Phase {
        Idle, // between requests
        Head, // the head of a request is arriving
        Body, // its body is arriving
        Handling, // the server has (or is about to get) the request; its response is not yet written
        Rejected, // answered with an error; the connection closes shortly
    };

    enum class ChunkState {
        SizeLine,
        Data,
        DataEnd,
        Trailer,
        Done,
    };

    void onReadyRead();
    // Returns how many of the new bytes belong to the head.
    qint64 inspectHead(qint64 newBytes);
    // Returns how many of `length` bytes at `offset` belong to the chunked body.
    qint64 scanChunks(qint64 offset, qint64 length);
    void splitPipelined(qint64 requestBytes, qint64 rest);
    void holdInput();
    void abortConnection();
    void responseWritten();
    void replayHeldInput();
    void reject(int status, const QByteArray& reason, const QByteArray& message);
    void enterPhase(Phase phase, int deadlineMs);
    void scheduleDeadline();

    QTcpSocket* m_socket;
    HttpLimits m_limits;
    Phase m_phase = Phase::Idle;
    QByteArray m_head; // the bytes of the current request up to the end of its head
    qint64 m_received = 0; // bytes of the current request seen so far
    qint64 m_headLength = -1; // known once the head is complete
    qint64 m_bodyExpected = 0; // from Content-Length; -1 for chunked bodies
    qint64 m_bodyReceived = 0; // body bytes seen (Content-Length framing)
    ChunkState m_chunk = ChunkState::SizeLine;
    qint64 m_chunkRemaining = 0; // the size being read, then the bytes left of the chunk
    qint64 m_chunkedTotal = 0; // chunk data seen so far
    int m_chunkLine = 0; // bytes of the current chunk-size or trailer line
    int m_chunkSizeDigits = 0;
    bool m_chunkSizeDone = false; // past the digits: an extension or the CR
    bool m_chunkTrailerCr = false;
    QByteArray m_held; // the start of the next request, held back until the response is written
    bool m_largeRequest = false;
    bool m_awaitingHandler = false; // a complete request was seen; the parser should pass it on
    bool m_responsePending = false;
    bool m_closeAfterResponse = false; // "Connection: close", or HTTP/1.0 without keep-alive
    bool m_replayQueued = false;
    Clock::time_point m_deadline;
    Clock::time_point m_idleSince;
    QBasicTimer m_timer;
};
