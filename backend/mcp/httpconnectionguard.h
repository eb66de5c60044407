#pragma once

// HttpConnectionGuard: sits in front of Qt HttpServer's request parser on one connection.
//
// Qt 6.4's QAbstractHttpServer buffers a whole body of any size (and reserves its Content-Length up
// front), answers nothing to a request it cannot parse, and never times out a stalled client. The
// guard sees every read before the parser does: it refuses oversized heads (431) and bodies (413)
// before they are buffered, answers "100 Continue" for clients that wait for it, answers 400 for a
// request the parser silently dropped, and closes stalled or long-idle connections.

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
    // Installs a guard on `socket`; call before any other readyRead connection is made.
    static HttpConnectionGuard* install(QTcpSocket* socket, const HttpLimits& limits);
    static HttpConnectionGuard* of(QTcpSocket* socket);

    // The server is handling a complete request: the next bytes start a new one.
    void requestStarted();
    // While a response (or an event stream) is outstanding, idle limits do not apply.
    void setResponsePending(bool pending);

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    HttpConnectionGuard(QTcpSocket* socket, const HttpLimits& limits);

    enum class Phase {
        Head,
        Body,
        Rejected,
    };

    void onReadyRead();
    void inspectHead(qint64 previouslySeen);
    void reject(int status, const QByteArray& reason, const QByteArray& message);
    void scheduleCheck(int ms);
    void touch() { m_lastActivity = std::chrono::steady_clock::now(); }

    QTcpSocket* m_socket;
    HttpLimits m_limits;
    Phase m_phase = Phase::Head;
    QByteArray m_head; // the bytes of the current request up to the end of its head
    qint64 m_received = 0; // bytes of the current request seen so far
    qint64 m_headLength = -1; // known once the head is complete
    qint64 m_bodyExpected = 0; // from Content-Length; -1 for chunked bodies
    bool m_awaitingHandler = false; // a complete request was seen; the parser should pass it on
    bool m_responsePending = false;
    std::chrono::steady_clock::time_point m_lastActivity;
    QBasicTimer m_timer;
};
