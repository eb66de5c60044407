#include "transport/guardedtcpserver.h"

#include "protocol/jsonrpc.h"
#include "transport/httpconnectionguard.h"

#include <QHash>
#include <QSslSocket>
#include <QTcpSocket>

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

constexpr int TrimDelayMs = 2500; // after a large request: its buffers are gone by then
constexpr int AcceptRetryMs = 100;

} // namespace

GuardedTcpServer::GuardedTcpServer(
    const HttpLimits& limits, HttpConnectionGuard::Authenticator authenticate, QObject* parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_authenticate(std::move(authenticate))
    , m_connectionLimit(connectionLimitFor(limits, fileDescriptorLimit()))
    // At most half the connections for strangers, at most half of the rest for one client's waits.
    , m_unauthenticatedLimit(qBound(1, limits.maxUnauthenticatedConnections, qMax(1, m_connectionLimit / 2)))
    , m_waitingLimitPerClient(
          qBound(1, limits.maxWaitingConnectionsPerClient, qMax(1, (m_connectionLimit - m_unauthenticatedLimit) / 2)))
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

int GuardedTcpServer::connectionsWaitingFor(const QString& client) const
{
    int count = 0;
    const QList<QTcpSocket*> open = openConnections(nullptr);
    for (QTcpSocket* socket : open) {
        const HttpConnectionGuard* guard = HttpConnectionGuard::of(socket);
        count += guard && !guard->waitingFor().isEmpty() && guard->waitingFor() == client ? 1 : 0;
    }
    return count;
}

void GuardedTcpServer::incomingConnection(qintptr socketDescriptor)
{
    QTcpSocket* socket = nullptr;
    if (m_tls) {
        auto* tlsSocket = new QSslSocket(this);
        tlsSocket->setSslConfiguration(*m_tls);
        // A client that cannot complete the handshake (plain HTTP, a certificate it refuses) is let go.
        connect(tlsSocket, &QSslSocket::sslErrors, tlsSocket, [tlsSocket] { tlsSocket->abort(); });
        socket = tlsSocket;
    } else {
        socket = new QTcpSocket(this);
    }
    if (!socket->setSocketDescriptor(socketDescriptor)) {
        delete socket;
        return;
    }
    if (auto* tlsSocket = qobject_cast<QSslSocket*>(socket))
        tlsSocket->startServerEncryption();
    const QList<QTcpSocket*> open = openConnections(socket);
    qsizetype unauthenticated = 0;
    for (QTcpSocket* other : open) {
        const HttpConnectionGuard* guard = HttpConnectionGuard::of(other);
        unauthenticated += guard && !guard->isAuthenticated() ? 1 : 0;
    }
    // Every newcomer is a stranger until its first head shows the token. Strangers make room for
    // each other; a client that has shown the token is closed only when idle, never for a stranger
    // when strangers are there to go first. A stranger whose request waits unread (a burst of new
    // connections is accepted before any of them is read) is no stranger yet but a request about
    // to be read: it keeps its place while there is room in total, and goes last when there is not.
    const bool strangersFull = unauthenticated >= m_unauthenticatedLimit;
    const bool allFull = open.size() >= m_connectionLimit;
    if (strangersFull || allFull) {
        const bool roomMade = evictUnauthenticated(open, false)
            || (allFull && (closeOldestIdle(open) || evictUnauthenticated(open, true)));
        if (!roomMade && allFull) {
            refuse(
                socket, "too many open connections (" + QByteArray::number(m_connectionLimit) + "), none of them idle");
            return;
        }
    }
    // Responses are written whole; sending them at once keeps request/response latency low.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    HttpConnectionGuard* guard = HttpConnectionGuard::install(socket, m_limits, m_authenticate);
    connect(guard, &HttpConnectionGuard::largeRequestEnded, &m_trimTimer, qOverload<>(&QTimer::start));
    connect(guard, &HttpConnectionGuard::refusedWithoutToken, this, &GuardedTcpServer::refusedWithoutToken);
    addPendingConnection(socket);
}

bool GuardedTcpServer::evictUnauthenticated(const QList<QTcpSocket*>& connections, bool evenUnread)
{
    // Closing is not done here but by the guard, which deletes the socket later: `connections`
    // stays valid throughout.
    QHash<QHostAddress, int> perPeer;
    int most = 0;
    HttpConnectionGuard* closing = nullptr;
    for (QTcpSocket* socket : connections) {
        HttpConnectionGuard* guard = HttpConnectionGuard::of(socket);
        if (!guard || guard->isAuthenticated())
            continue;
        most = qMax(most, ++perPeer[socket->peerAddress()]);
        if (guard->isClosing() && (!closing || guard->openedAt() < closing->openedAt()))
            closing = guard;
    }
    if (closing) {
        closing->evict({});
        return true;
    }
    // Only the address holding the most gives way: one flooding address never takes another's place.
    HttpConnectionGuard* oldest = nullptr;
    for (QTcpSocket* socket : connections) {
        HttpConnectionGuard* guard = HttpConnectionGuard::of(socket);
        if (!guard || guard->isAuthenticated() || perPeer.value(socket->peerAddress()) < most
            || (!evenUnread && guard->hasUnreadBytes()))
            continue;
        if (!oldest || guard->openedAt() < oldest->openedAt())
            oldest = guard;
    }
    if (!oldest)
        return false;
    oldest->evict("too many connections that have not shown the token (" + QByteArray::number(m_unauthenticatedLimit)
        + "); this one, of the address holding the most, waited the longest");
    return true;
}

bool GuardedTcpServer::closeOldestIdle(const QList<QTcpSocket*>& connections)
{
    HttpConnectionGuard* oldest = nullptr;
    for (QTcpSocket* socket : connections) {
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
    const QList<QTcpSocket*> open = openConnections(nullptr);
    if (!evictUnauthenticated(open, true))
        closeOldestIdle(open);
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
