#include "mcp/httpconnectionguard.h"

#include "mcp/jsonrpc.h"

#include <QTcpSocket>
#include <QTimerEvent>

namespace {

bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool equalsIgnoringCase(QByteArrayView text, QByteArrayView lowerCase)
{
    return qstrnicmp(text.data(), text.size(), lowerCase.data(), lowerCase.size()) == 0;
}

// What the guard needs from a request head, read in one pass without copying. Qt's parser drops a
// malformed request without answering; checking the shape here lets the client hear why.
struct HeadFacts
{
    bool wellFormed = false;
    QByteArrayView contentLength; // empty when absent
    bool chunked = false;
    bool expectContinue = false;
};

HeadFacts scanHead(QByteArrayView head)
{
    HeadFacts facts;
    qsizetype lineEnd = head.indexOf("\r\n");
    if (lineEnd < 0)
        lineEnd = head.size();
    // Request line: METHOD SP target SP HTTP/1.x
    const QByteArrayView requestLine = head.first(lineEnd);
    const qsizetype firstSpace = requestLine.indexOf(' ');
    const qsizetype lastSpace = requestLine.lastIndexOf(' ');
    if (firstSpace <= 0 || lastSpace <= firstSpace + 1)
        return facts;
    for (char c : requestLine.first(firstSpace)) {
        if (c < 'A' || c > 'Z')
            return facts;
    }
    const QByteArrayView version = requestLine.sliced(lastSpace + 1);
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return facts;
    if (requestLine.sliced(firstSpace + 1, lastSpace - firstSpace - 1).contains(' '))
        return facts;

    qsizetype lineStart = lineEnd + 2;
    while (lineStart < head.size()) {
        lineEnd = head.indexOf("\r\n", lineStart);
        if (lineEnd < 0)
            lineEnd = head.size();
        const QByteArrayView line = head.sliced(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 2;
        if (line.isEmpty())
            continue;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return facts;
        const QByteArrayView name = line.first(colon);
        for (char c : name) {
            if (!isTokenChar(c))
                return facts;
        }
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (equalsIgnoringCase(name, "content-length"))
            facts.contentLength = value;
        else if (equalsIgnoringCase(name, "transfer-encoding"))
            facts.chunked = value.toByteArray().toLower().contains("chunked");
        else if (equalsIgnoringCase(name, "expect"))
            facts.expectContinue = equalsIgnoringCase(value, "100-continue");
    }
    facts.wellFormed = true;
    return facts;
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
    const qint64 newBytes = m_received - previouslySeen;
    // The usual request arrives whole in one read: look at it in place, without keeping a copy.
    char buffer[4096];
    QByteArrayView head;
    if (m_head.isEmpty() && newBytes <= qint64(sizeof buffer)) {
        const qint64 peeked = m_socket->peek(buffer, newBytes);
        head = QByteArrayView(buffer, qMax<qint64>(0, peeked));
    } else {
        const qint64 room = qint64(m_limits.maxHeaderBytes) + 4 - m_head.size();
        if (room > 0)
            m_head.append(m_socket->peek(qMin(room, newBytes)));
        head = m_head;
    }
    const qsizetype searchFrom = qMax<qsizetype>(0, head.size() - newBytes - 3);
    const qsizetype end = head.indexOf("\r\n\r\n", searchFrom);
    if (end < 0) {
        if (head.data() == buffer)
            m_head = head.toByteArray(); // the head continues in a later read
        if (m_head.size() > m_limits.maxHeaderBytes)
            reject(431, "Request Header Fields Too Large", "request head is larger than the limit");
        return;
    }
    m_headLength = end + 4;
    m_phase = Phase::Body;
    const HeadFacts facts = scanHead(head.first(end + 2));
    m_head.clear();
    if (!facts.wellFormed) {
        reject(400, "Bad Request", "malformed HTTP request");
        return;
    }
    if (facts.chunked) {
        m_bodyExpected = -1;
    } else if (!facts.contentLength.isEmpty()) {
        bool ok = false;
        const qint64 length = facts.contentLength.toLongLong(&ok);
        if (!ok || length < 0) {
            reject(400, "Bad Request", "invalid Content-Length");
            return;
        }
        if (length > m_limits.maxBodyBytes) {
            reject(413, "Payload Too Large",
                "request body of " + QByteArray::number(length) + " bytes is larger than the limit of "
                    + QByteArray::number(m_limits.maxBodyBytes) + " bytes");
            return;
        }
        m_bodyExpected = length;
    } else {
        m_bodyExpected = 0;
    }
    if (facts.expectContinue && m_received == m_headLength)
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
