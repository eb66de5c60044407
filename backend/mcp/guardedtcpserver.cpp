#include "mcp/guardedtcpserver.h"

#include "mcp/httpconnectionguard.h"
#include "mcp/jsonrpc.h"

#include <QTcpSocket>

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

constexpr int TrimDelayMs = 2500; // after a large request: its buffers are gone by then
constexpr int AcceptRetryMs = 100;

} // namespace

GuardedTcpServer::GuardedTcpServer(const HttpLimits& limits, QObject* parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_connectionLimit(connectionLimitFor(limits, fileDescriptorLimit()))
{
    m_trimTimer.setSingleShot(true);
    m_trimTimer.setInterval(TrimDelayMs);
    connect(&m_trimTimer, &QTimer::timeout, this, &GuardedTcpServer::trimMemory);
    m_resumeTimer.setSingleShot(true);
    m_resumeTimer.setInterval(AcceptRetryMs);
    connect(&m_resumeTimer, &QTimer::timeout, this, &GuardedTcpServer::resumeAccepting);
    connect(this, &QTcpServer::acceptError, this, &GuardedTcpServer::onAcceptError);
}

qint64 GuardedTcpServer::fileDescriptorLimit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return -1;
    return qint64(limit.rlim_cur);
}

int GuardedTcpServer::connectionLimitFor(const HttpLimits& limits, qint64 fileDescriptorLimit)
{
    if (fileDescriptorLimit < 0)
        return limits.maxConnections;
    const qint64 available = fileDescriptorLimit - limits.reservedFileDescriptors;
    return int(qBound(qint64(1), available, qint64(limits.maxConnections)));
}

QList<QTcpSocket*> GuardedTcpServer::openConnections(const QTcpSocket* except) const
{
    QList<QTcpSocket*> open;
    const auto sockets = findChildren<QTcpSocket*>(QString(), Qt::FindDirectChildrenOnly);
    for (QTcpSocket* socket : sockets) {
        if (socket != except && socket->state() != QAbstractSocket::UnconnectedState)
            open.append(socket);
    }
    return open;
}

int GuardedTcpServer::connectionCount() const
{
    return int(openConnections(nullptr).size());
}

void GuardedTcpServer::incomingConnection(qintptr socketDescriptor)
{
    auto* socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    const QList<QTcpSocket*> open = openConnections(socket);
    const QHostAddress peer = socket->peerAddress();
    qsizetype fromPeer = 0;
    for (const QTcpSocket* other : open)
        fromPeer += other->peerAddress() == peer ? 1 : 0;
    if (open.size() >= m_connectionLimit && !closeOldestIdle(open, nullptr)) {
        refuse(socket, "too many open connections (" + QByteArray::number(m_connectionLimit) + "), none of them idle");
        return;
    }
    if (fromPeer >= m_limits.maxConnectionsPerPeer && !closeOldestIdle(open, &peer)) {
        refuse(socket,
            "too many open connections from " + peer.toString().toUtf8() + " ("
                + QByteArray::number(m_limits.maxConnectionsPerPeer) + "), none of them idle");
        return;
    }
    // Responses are written whole; sending them at once keeps request/response latency low.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    HttpConnectionGuard* guard = HttpConnectionGuard::install(socket, m_limits);
    connect(guard, &HttpConnectionGuard::largeRequestEnded, &m_trimTimer, qOverload<>(&QTimer::start));
    addPendingConnection(socket);
}

bool GuardedTcpServer::closeOldestIdle(const QList<QTcpSocket*>& connections, const QHostAddress* peer)
{
    HttpConnectionGuard* oldest = nullptr;
    for (QTcpSocket* socket : connections) {
        if (peer && socket->peerAddress() != *peer)
            continue;
        HttpConnectionGuard* guard = HttpConnectionGuard::of(socket);
        if (guard && guard->isIdle() && (!oldest || guard->idleSince() < oldest->idleSince()))
            oldest = guard;
    }
    if (!oldest)
        return false;
    oldest->closeIdle();
    return true;
}

void GuardedTcpServer::refuse(QTcpSocket* socket, const QByteArray& reason)
{
    const QByteArray body = JsonRpc::serialize(
        JsonRpc::makeError(nullptr, -32000, "Service Unavailable: " + reason.toStdString() + "; retry later"));
    socket->write("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                  "Connection: close\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    socket->disconnectFromHost();
    if (socket->state() == QAbstractSocket::UnconnectedState)
        delete socket;
    else
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
}

void GuardedTcpServer::onAcceptError(QAbstractSocket::SocketError error)
{
    // Qt stops accepting after an error such as "too many open files" (EMFILE): free a descriptor
    // by closing the connection idle the longest, and try again shortly.
    if (!m_warnedAboutDescriptors) {
        m_warnedAboutDescriptors = true;
        qWarning("MCP server: accepting a connection failed (%s); closing idle connections to make room",
            qPrintable(errorString()));
    }
    Q_UNUSED(error);
    closeOldestIdle(openConnections(nullptr), nullptr);
    m_resumeTimer.start();
}

void GuardedTcpServer::trimMemory()
{
#if defined(__GLIBC__)
    // glibc keeps freed heap pages (and raises its mmap threshold after large frees): after a
    // multi-megabyte request, give them back so the resident size returns to where it was.
    malloc_trim(0);
#endif
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
