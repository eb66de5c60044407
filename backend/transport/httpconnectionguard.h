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
// asked for "Connection: close". It also tells whether the connection has shown the token in a
// complete request head (GuardedTcpServer keeps the connections that have not in a bounded pool),
// refuses a large body from a request without it (401) before reading it, and says for which
// client a response is held open.

#include "transport/httplimits.h"

#include <QBasicTimer>
#include <QByteArray>
#include <QObject>

#include <chrono>
#include <functional>

class QTcpSocket;

class HttpConnectionGuard : public QObject
{
    Q_OBJECT
public:
    using Clock = std::chrono::steady_clock;
    // Whether a request head's Authorization value (empty when there is none, or more than one)
    // carries a valid credential for its target (the request line's path and query: /mcp and the
    // operator API take different credentials). Empty: every complete head counts as
    // authenticated (--no-auth).
    using Authenticator = std::function<bool(QByteArrayView target, QByteArrayView authorization)>;

    // Installs a guard on `socket`; call before any other readyRead connection is made.
    static HttpConnectionGuard* install(QTcpSocket* socket, const HttpLimits& limits, Authenticator authenticate = {});
    static HttpConnectionGuard* of(QTcpSocket* socket);

    // Called as the server starts handling what the parser passed on. False when it is not a new
    // request (Qt 6.4 hands the previous one over again after a read that gave it no bytes): the
    // server must then not answer.
    bool beginRequest();
    // The server's handler returned; unless a response is still pending, the response is written.
    void requestHandled();
    // While a response (or an event stream) is outstanding, the connection reads no further request.
    void setResponsePending(bool pending);

    // No request is in progress, being answered or waiting to be read: the connection may be closed
    // to make room.
    bool isIdle() const;
    Clock::time_point idleSince() const { return m_idleSince; }
    // Closes the connection at once (to make room for another).
    void closeIdle();
    // Closes the connection at once whatever it is doing, telling the client why (503 with
    // Retry-After) unless it was already answered: a connection that has not shown the token
    // makes room for another.
    void evict(const QByteArray& why);

    // A request head of this connection carried a valid token (or the server asks for none): from
    // then on the connection is a client's, not a stranger's.
    bool isAuthenticated() const { return m_authenticated; }
    // Refused, and closing once the client has read why.
    bool isClosing() const;
    // Bytes the client sent wait to be read (by the kernel's count): a connection that just arrived
    // with its request has not been given its chance to show the token yet.
    bool hasUnreadBytes() const;
    Clock::time_point openedAt() const { return m_openedAt; }
    // The client whose answer this connection's pending response is (empty when none is pending):
    // GuardedTcpServer counts these per client.
    void setWaitingFor(const QString& client);
    const QString& waitingFor() const { return m_waitingFor; }

Q_SIGNALS:
    // A large request ended (answered or refused): freed memory can be given back to the system.
    void largeRequestEnded();
    // A request without a valid token was refused from its head (its body was too large to read
    // without one); `target` is its request target, `tokenPresented` whether it carried a wrong one.
    void refusedWithoutToken(const QString& peer, const QByteArray& target, bool tokenPresented);

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    HttpConnectionGuard(QTcpSocket* socket, const HttpLimits& limits, Authenticator authenticate);

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
    void reject(int status, const QByteArray& reason, const QByteArray& message, const QByteArray& extraHeaders = {});
    // The body of a request without a valid token is larger than such a request may send.
    void refuseUnauthenticatedBody();
    void enterPhase(Phase phase, int deadlineMs);
    void scheduleDeadline();

    QTcpSocket* m_socket;
    HttpLimits m_limits;
    Authenticator m_authenticate;
    bool m_authenticated = false;
    QString m_waitingFor;
    Clock::time_point m_openedAt;
    qint64 m_bodyLimit = 0; // of the current request: smaller while the connection is not authenticated
    QByteArray m_target; // of the current request, while its head is refused for want of a token
    bool m_tokenPresented = false; // the current request carried an Authorization header
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
