#pragma once

// GuardedTcpServer: the listening socket of the MCP server. Every accepted connection gets an
// HttpConnectionGuard before Qt HttpServer's parser sees a byte, and low-delay sends. Caps open
// connections in total (never more than the file descriptors left after a reserve) and per peer
// address: the connection idle the longest makes room, and when none is idle the newcomer gets 503.
// When accepting fails for want of file descriptors it frees one and tries again shortly instead of
// spinning on (or giving up) the listening socket. Gives freed memory back after large requests.

#include "mcp/httplimits.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTimer>

class QTcpSocket;

class GuardedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    GuardedTcpServer(const HttpLimits& limits, QObject* parent = nullptr);

    // Closes the listening socket and every connection it accepted.
    void closeAll();
    // Connections open at most at once: the configured limit, or fewer when file descriptors are short.
    int connectionLimit() const { return m_connectionLimit; }
    int connectionCount() const;

    // The soft limit on open files of this process, and how many connections fit under it.
    static qint64 fileDescriptorLimit();
    static int connectionLimitFor(const HttpLimits& limits, qint64 fileDescriptorLimit);

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    QList<QTcpSocket*> openConnections(const QTcpSocket* except) const;
    // Closes the connection idle the longest (of `peer` when given). False when none is idle.
    bool closeOldestIdle(const QList<QTcpSocket*>& connections, const QHostAddress* peer);
    void refuse(QTcpSocket* socket, const QByteArray& reason);
    void onAcceptError(QAbstractSocket::SocketError error);
    void trimMemory();

    HttpLimits m_limits;
    int m_connectionLimit;
    QTimer m_trimTimer;
    QTimer m_resumeTimer;
    bool m_warnedAboutDescriptors = false;
};
