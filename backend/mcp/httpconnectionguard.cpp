#include "mcp/httpconnectionguard.h"

#include "mcp/jsonrpc.h"

#include <QTcpSocket>
#include <QTimerEvent>

namespace {

// A request head's header lines, searched case-insensitively without copying.
QByteArray headerValue(const QByteArray& head, const QByteArray& lowerName)
{
    qsizetype lineStart = head.indexOf("\r\n");
    while (lineStart >= 0 && lineStart + 2 < head.size()) {
        lineStart += 2;
        const qsizetype lineEnd = head.indexOf("\r\n", lineStart);
        const qsizetype end = lineEnd < 0 ? head.size() : lineEnd;
        const qsizetype colon = head.indexOf(':', lineStart);
        if (colon > lineStart && colon < end && colon - lineStart == lowerName.size()
            && head.mid(lineStart, colon - lineStart).toLower() == lowerName) {
            return head.mid(colon + 1, end - colon - 1).trimmed();
        }
        lineStart = lineEnd;
    }
    return {};
}

bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

// The shape of a request head (request line, then "name: value" lines). Qt's parser drops a
// malformed request without answering; checking the shape first lets the client hear why.
bool isWellFormedHead(const QByteArray& head)
{
    const QList<QByteArray> lines = head.split('\n');
    const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
    if (requestLine.size() != 3 || requestLine.at(0).isEmpty() || requestLine.at(1).isEmpty())
        return false;
    for (char c : requestLine.at(0)) {
        if (c < 'A' || c > 'Z')
            return false;
    }
    if (requestLine.at(2) != "HTTP/1.1" && requestLine.at(2) != "HTTP/1.0")
        return false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        if (line.isEmpty())
            continue;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return false;
        for (qsizetype j = 0; j < colon; ++j) {
            if (!isTokenChar(line.at(j)))
                return false;
        }
    }
    return true;
}

} // namespace

HttpConnectionGuard* HttpConnectionGuard::install(QTcpSocket* socket, const HttpLimits& limits)
{
    return new HttpConnectionGuard(socket, limits);
}

HttpConnectionGuard* HttpConnectionGuard::of(QTcpSocket* socket)
{
    return socket->findChild<HttpConnectionGuard*>(QString(), Qt::FindDirectChildrenOnly);
}

HttpConnectionGuard::HttpConnectionGuard(QTcpSocket* socket, const HttpLimits& limits)
    : QObject(socket)
    , m_socket(socket)
    , m_limits(limits)
{
    touch();
    connect(socket, &QTcpSocket::readyRead, this, &HttpConnectionGuard::onReadyRead);
    scheduleCheck(m_limits.idleKeepAliveMs);
}

void HttpConnectionGuard::requestStarted()
{
    m_phase = Phase::Head;
    m_head.clear();
    m_received = 0;
    m_headLength = -1;
    m_bodyExpected = 0;
    if (m_awaitingHandler) {
        m_awaitingHandler = false;
        scheduleCheck(m_limits.idleKeepAliveMs);
    }
}

void HttpConnectionGuard::setResponsePending(bool pending)
{
    m_responsePending = pending;
    touch();
}

void HttpConnectionGuard::onReadyRead()
{
    touch();
    const qint64 available = m_socket->bytesAvailable();
    if (m_phase == Phase::Rejected) {
        m_socket->skip(available); // drain what the client still sends so it can read our answer
        return;
    }
    const qint64 previouslySeen = m_received;
    m_received += available;
    if (m_phase == Phase::Head) {
        inspectHead(previouslySeen);
        if (m_phase != Phase::Body)
            return;
    }
    const qint64 bodyReceived = m_received - m_headLength;
    if (m_bodyExpected < 0) {
        // Chunked: the framing adds a little to the payload; refuse well before it is all buffered.
        if (bodyReceived > m_limits.maxBodyBytes + 64 * 1024)
            reject(413, "Payload Too Large", "request body is larger than the limit");
        return;
    }
    if (bodyReceived >= m_bodyExpected && !m_awaitingHandler) {
        // The parser now has a complete request. If it does not hand it to the server during this
        // read, it rejected it without a word; the zero timer notices and answers for it.
        m_awaitingHandler = true;
        scheduleCheck(0);
    }
}

void HttpConnectionGuard::inspectHead(qint64 previouslySeen)
{
    const qint64 room = qint64(m_limits.maxHeaderBytes) + 4 - m_head.size();
    const qint64 newBytes = m_received - previouslySeen;
    if (room > 0)
        m_head.append(m_socket->peek(qMin(room, newBytes)));
    const qsizetype searchFrom = qMax<qsizetype>(0, m_head.size() - newBytes - 3);
    const qsizetype end = m_head.indexOf("\r\n\r\n", searchFrom);
    if (end < 0) {
        if (m_head.size() > m_limits.maxHeaderBytes)
            reject(431, "Request Header Fields Too Large", "request head is larger than the limit");
        return;
    }
    m_headLength = end + 4;
    m_head.truncate(end + 2);
    m_phase = Phase::Body;
    if (!isWellFormedHead(m_head)) {
        reject(400, "Bad Request", "malformed HTTP request");
        return;
    }

    const QByteArray transferEncoding = headerValue(m_head, "transfer-encoding").toLower();
    const QByteArray contentLength = headerValue(m_head, "content-length");
    if (transferEncoding.contains("chunked")) {
        m_bodyExpected = -1;
    } else if (!contentLength.isEmpty()) {
        bool ok = false;
        const qint64 length = contentLength.toLongLong(&ok);
        if (!ok || length < 0) {
            reject(400, "Bad Request", "invalid Content-Length");
            return;
        }
        if (length > m_limits.maxBodyBytes) {
            reject(413, "Payload Too Large",
                "request body of " + contentLength + " bytes is larger than the limit of "
                    + QByteArray::number(m_limits.maxBodyBytes) + " bytes");
            return;
        }
        m_bodyExpected = length;
    } else {
        m_bodyExpected = 0;
    }
    if (headerValue(m_head, "expect").toLower() == "100-continue" && m_received == m_headLength)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
}

void HttpConnectionGuard::reject(int status, const QByteArray& reason, const QByteArray& message)
{
    m_phase = Phase::Rejected;
    // Stop Qt's parser from seeing any more of this request; from here on the guard drains input.
    disconnect(m_socket, &QTcpSocket::readyRead, nullptr, nullptr);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnectionGuard::onReadyRead);
    const auto code = status == 413 || status == 431 ? JsonRpc::InvalidRequest : JsonRpc::ParseError;
    const QByteArray body = JsonRpc::serialize(JsonRpc::makeError(nullptr, code, message.toStdString()));
    m_socket->skip(m_socket->bytesAvailable());
    m_socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reason
        + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    m_socket->flush();
    // Give the client a moment to read the answer before the connection goes.
    scheduleCheck(2000);
}

void HttpConnectionGuard::scheduleCheck(int ms)
{
    m_timer.start(ms, Qt::CoarseTimer, this);
}

void HttpConnectionGuard::timerEvent(QTimerEvent* event)
{
    if (event->timerId() != m_timer.timerId())
        return QObject::timerEvent(event);
    m_timer.stop();
    if (m_phase == Phase::Rejected) {
        m_socket->disconnectFromHost();
        m_socket->deleteLater();
        return;
    }
    if (m_awaitingHandler) {
        m_awaitingHandler = false;
        reject(400, "Bad Request", "malformed HTTP request");
        return;
    }
    const auto idleMs
        = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - m_lastActivity)
              .count();
    const bool midRequest = m_received > 0;
    const int limit = midRequest ? m_limits.requestStallMs : m_limits.idleKeepAliveMs;
    if (m_responsePending || idleMs < limit) {
        scheduleCheck(int(qMax<qint64>(1000, limit - idleMs)));
        return;
    }
    if (midRequest) {
        reject(408, "Request Timeout", "request did not arrive in time");
        return;
    }
    m_socket->disconnectFromHost();
    // Qt's server deletes the socket on disconnected; if its parser has already dropped its
    // connections (a malformed request), nobody else will.
    m_socket->deleteLater();
}
