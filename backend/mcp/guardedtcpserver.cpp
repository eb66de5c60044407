#include "mcp/guardedtcpserver.h"

#include "mcp/httpconnectionguard.h"

#include <QTcpSocket>

GuardedTcpServer::GuardedTcpServer(const HttpLimits& limits, QObject* parent)
    : QTcpServer(parent)
    , m_limits(limits)
{}

void GuardedTcpServer::incomingConnection(qintptr socketDescriptor)
{
    auto* socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    // Responses are written whole; sending them at once keeps request/response latency low.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    HttpConnectionGuard::install(socket, m_limits);
    addPendingConnection(socket);
}

void GuardedTcpServer::closeAll()
{
    close();
    const auto sockets = findChildren<QTcpSocket*>(QString(), Qt::FindDirectChildrenOnly);
    for (QTcpSocket* socket : sockets) {
        socket->abort();
        socket->deleteLater();
    }
}
