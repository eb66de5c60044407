#pragma once

// GuardedTcpServer: the listening socket of the MCP server. Every accepted connection gets an
// HttpConnectionGuard before Qt HttpServer's parser sees a byte, and low-delay sends. Caps open
// connections in total (never more than the file descriptors left after a reserve), and keeps the
// connections that have not shown the token in a pool of their own, so that strangers (all local
// processes share 127.0.0.1) can never crowd out a client that has: a newcomer beyond the pool
// closes the oldest stranger of the peer address holding the most (one whose request is still
// waiting to be read is not yet a stranger, merely unread: it goes last). Beyond the total, a
// stranger or the connection idle the longest makes room, and when there is none the newcomer gets
// 503. Counts per client the connections held open waiting for an answer (McpHttpServer bounds
// them). When accepting fails for want of file descriptors it frees one and tries again shortly instead of
// spinning on (or giving up) the listening socket. Gives freed memory back after large requests.

#include "transport/httpconnectionguard.h"
#include "transport/httplimits.h"

#include <QHostAddress>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QTimer>

#include <optional>

class QTcpSocket;

class GuardedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    GuardedTcpServer(
        const HttpLimits& limits, HttpConnectionGuard::Authenticator authenticate = {}, QObject* parent = nullptr);

    // Closes the listening socket and every connection it accepted.
    void closeAll();
    // Every connection accepted from now on speaks TLS with `configuration` (a certificate and its
    // key); one whose handshake fails is closed.
    void setTls(const QSslConfiguration& configuration) { m_tls = configuration; }
    bool usesTls() const { return m_tls.has_value(); }
    // Connections open at most at once: the configured limit, or fewer when file descriptors are short.
    int connectionLimit() const { return m_connectionLimit; }
    int connectionCount() const;
    // Connections that have not shown the token open at most at once (the rest are kept for clients).
    int unauthenticatedLimit() const { return m_unauthenticatedLimit; }
    // Connections one client may hold open waiting for an answer.
    int waitingLimitPerClient() const { return m_waitingLimitPerClient; }
    // Connections whose pending response is `client`'s (HttpConnectionGuard::setWaitingFor).
    int connectionsWaitingFor(const QString& client) const;

    // The soft limit on open files of this process, and how many connections fit under it.
    static qint64 fileDescriptorLimit();
    static int connectionLimitFor(const HttpLimits& limits, qint64 fileDescriptorLimit);

Q_SIGNALS:
    // HttpConnectionGuard::refusedWithoutToken of any connection.
    void refusedWithoutToken(const QString& peer, const QByteArray& target, bool tokenPresented);

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    QList<QTcpSocket*> openConnections(const QTcpSocket* except) const;
    // Closes one connection that has not shown the token: one already refused if any, otherwise the
    // oldest of the peer address holding the most, among those whose request is not waiting unread
    // unless `evenUnread`. False when there is none.
    bool evictUnauthenticated(const QList<QTcpSocket*>& connections, bool evenUnread);
    // Closes the connection idle the longest. False when none is idle.
    bool closeOldestIdle(const QList<QTcpSocket*>& connections);
    void refuse(QTcpSocket* socket, const QByteArray& reason);
    void onAcceptError(QAbstractSocket::SocketError error);
    void trimMemory();

    HttpLimits m_limits;
    std::optional<QSslConfiguration> m_tls;
    HttpConnectionGuard::Authenticator m_authenticate;
    int m_connectionLimit;
    int m_unauthenticatedLimit;
    int m_waitingLimitPerClient;
    QTimer m_trimTimer;
    QTimer m_resumeTimer;
    bool m_warnedAboutDescriptors = false;
};
