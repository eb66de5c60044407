#include "transport/httpconnectionguard.h"

#include "protocol/jsonrpc.h"

#include <QTcpSocket>
#include <QTimerEvent>

#include <cctype>
#include <sys/ioctl.h>
#include <utility>

namespace {

constexpr int RejectedLingerMs = 2000; // a refused client gets this long to read the answer
constexpr qint64 LargeRequestBytes = 1024 * 1024; // after such a request, memory is given back
constexpr int MaxChunkLineBytes = 1024; // a chunk-size line (with extensions) or trailer line
constexpr int UnauthorizedCode = -32002; // as McpHttpServer answers a request without the token
constexpr int UnavailableCode = -32000; // as GuardedTcpServer answers when there is no room
constexpr qsizetype MaxReportedTargetBytes = 512;

bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool equalsIgnoringCase(QByteArrayView text, QByteArrayView lowerCase)
{
    return qstrnicmp(text.data(), text.size(), lowerCase.data(), lowerCase.size()) == 0;
}

bool isLeadingWhitespace(char c)
{
    return c == '\r' || c == '\n';
}

// Where the head that starts at `start` ends: just past its empty line. Lines end in CRLF or, as Qt's
// parser (http_parser) also accepts, a bare LF; the guard must find the same end the parser finds.
qsizetype findHeadEnd(QByteArrayView bytes, qsizetype start, qsizetype from)
{
    for (qsizetype i = qMax(start, from); i < bytes.size(); ++i) {
        if (bytes[i] != '\n')
            continue;
        if (i + 1 < bytes.size() && bytes[i + 1] == '\n')
            return i + 2;
        if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n')
            return i + 3;
    }
    return -1;
}

// What the guard needs from a request head, read in one pass without copying. Qt's parser drops a
// malformed request without answering; checking the shape here lets the client hear why.
struct HeadFacts
{
    QByteArray error; // why the head is refused (400); empty when it is acceptable
    // A copy, not a view: the head it came from is released before the length is read.
    QByteArray contentLength; // empty when absent
    bool chunked = false;
    bool expectContinue = false;
    bool closeAfterResponse = false;
    // Copies: the head they come from is released before they are used.
    QByteArray authorization; // the Authorization value when there is exactly one
    int authorizations = 0;
    QByteArray target; // the request target, cut to MaxReportedTargetBytes
};

HeadFacts scanHead(QByteArrayView head)
{
    HeadFacts facts;
    QList<QByteArrayView> lines;
    for (qsizetype lineStart = 0; lineStart < head.size();) {
        qsizetype lineEnd = head.indexOf('\n', lineStart);
        if (lineEnd < 0)
            lineEnd = head.size();
        QByteArrayView line = head.sliced(lineStart, lineEnd - lineStart);
        if (line.endsWith('\r'))
            line.chop(1);
        lineStart = lineEnd + 1;
        if (line.contains('\r')) {
            facts.error = "malformed HTTP request: a bare CR in the request head";
            return facts;
        }
        if (!line.isEmpty())
            lines.append(line);
    }
    const auto malformed = [&facts] {
        facts.error = "malformed HTTP request";
        return facts;
    };
    if (lines.isEmpty())
        return malformed();

    // Request line: METHOD SP target SP HTTP/1.x
    const QByteArrayView requestLine = lines.first();
    const qsizetype firstSpace = requestLine.indexOf(' ');
    const qsizetype lastSpace = requestLine.lastIndexOf(' ');
    if (firstSpace <= 0 || lastSpace <= firstSpace + 1)
        return malformed();
    const QByteArrayView method = requestLine.first(firstSpace);
    for (char c : method) {
        if (c < 'A' || c > 'Z')
            return malformed();
    }
    const QByteArrayView version = requestLine.sliced(lastSpace + 1);
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return malformed();
    if (requestLine.sliced(firstSpace + 1, lastSpace - firstSpace - 1).contains(' '))
        return malformed();
    if (method == "CONNECT") {
        facts.error = "CONNECT is not supported";
        return facts;
    }
    facts.target = requestLine.sliced(firstSpace + 1, lastSpace - firstSpace - 1)
                       .first(qMin<qsizetype>(lastSpace - firstSpace - 1, MaxReportedTargetBytes))
                       .toByteArray();

    int contentLengths = 0;
    bool hasTransferEncoding = false;
    bool hasUpgrade = false;
    bool connectionUpgrade = false;
    bool connectionClose = version == "HTTP/1.0";
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArrayView line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return malformed(); // also refuses obsolete line folding (a line starting with whitespace)
        const QByteArrayView name = line.first(colon);
        for (char c : name) {
            if (!isTokenChar(c))
                return malformed();
        }
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (equalsIgnoringCase(name, "content-length")) {
            if (contentLengths++ > 0 && value != facts.contentLength) {
                facts.error = "conflicting Content-Length headers";
                return facts;
            }
            facts.contentLength = value.toByteArray();
        } else if (equalsIgnoringCase(name, "transfer-encoding")) {
            // RFC 9112 6.1: the only coding this server understands is chunked, on its own.
            if (hasTransferEncoding || !equalsIgnoringCase(value, "chunked")) {
                facts.error = "unsupported Transfer-Encoding (only \"chunked\" is accepted)";
                return facts;
            }
            hasTransferEncoding = true;
            facts.chunked = true;
        } else if (equalsIgnoringCase(name, "authorization")) {
            if (facts.authorizations++ == 0)
                facts.authorization = value.toByteArray();
            else
                facts.authorization.clear(); // which one would count is a guess: none does
        } else if (equalsIgnoringCase(name, "expect")) {
            facts.expectContinue = equalsIgnoringCase(value, "100-continue");
        } else if (equalsIgnoringCase(name, "upgrade")) {
            hasUpgrade = true;
        } else if (equalsIgnoringCase(name, "connection")) {
            const QByteArray tokens = value.toByteArray().toLower();
            for (const QByteArray& token : tokens.split(',')) {
                const QByteArray trimmed = token.trimmed();
                if (trimmed == "close")
                    connectionClose = true;
                else if (trimmed == "keep-alive")
                    connectionClose = false;
            }
            // Qt's parser treats any Connection header mentioning "upgrade" as an upgrade request.
            connectionUpgrade = connectionUpgrade || tokens.contains("upgrade");
        }
    }
    if (contentLengths > 0 && facts.contentLength.isEmpty()) {
        facts.error = "invalid Content-Length";
        return facts;
    }
    if (hasTransferEncoding && contentLengths > 0) {
        // RFC 9112 6.3: a request with both is a smuggling attempt or a broken intermediary.
        facts.error = "a request must not carry both Content-Length and Transfer-Encoding";
        return facts;
    }
    if (hasUpgrade && connectionUpgrade) {
        facts.error = "protocol upgrades (such as WebSocket) are not supported: MCP uses POST and GET on /mcp";
        return facts;
    }
    facts.closeAfterResponse = connectionClose;
    return facts;
}

} // namespace

HttpConnectionGuard* HttpConnectionGuard::install(
    QTcpSocket* socket, const HttpLimits& limits, Authenticator authenticate)
{
    return new HttpConnectionGuard(socket, limits, std::move(authenticate));
}

HttpConnectionGuard* HttpConnectionGuard::of(QTcpSocket* socket)
{
    return socket->findChild<HttpConnectionGuard*>(QString(), Qt::FindDirectChildrenOnly);
}

HttpConnectionGuard::HttpConnectionGuard(QTcpSocket* socket, const HttpLimits& limits, Authenticator authenticate)
    : QObject(socket)
    , m_socket(socket)
    , m_limits(limits)
    , m_authenticate(std::move(authenticate))
    , m_openedAt(Clock::now())
{
    // Whatever the guard misjudges, one connection never buffers more than this.
    m_socket->setReadBufferSize(m_limits.maxBufferedBytes());
    connect(socket, &QTcpSocket::readyRead, this, &HttpConnectionGuard::onReadyRead);
    enterPhase(Phase::Idle, m_limits.idleKeepAliveMs);
}

bool HttpConnectionGuard::beginRequest()
{
    if (m_phase == Phase::Head || m_phase == Phase::Body) {
        // The parser found a request where the guard is still reading one: trust the parser, but
        // hold back anything that follows until this one is answered.
        qWarning("HttpConnectionGuard: the request parser and the guard disagree about a request's end");
        m_phase = Phase::Handling;
        m_awaitingHandler = true;
    }
    if (m_phase != Phase::Handling || !m_awaitingHandler) {
        // Qt 6.4's server hands the last request over again whenever a read gives its parser no
        // new bytes (e.g. while the guard holds a pipelined request back): not a request.
        return false;
    }
    m_awaitingHandler = false;
    m_head.clear();
    m_head.squeeze();
    return true;
}

void HttpConnectionGuard::requestHandled()
{
    if (m_phase == Phase::Handling && !m_responsePending && !m_awaitingHandler)
        responseWritten();
}

void HttpConnectionGuard::setResponsePending(bool pending)
{
    m_responsePending = pending;
    if (!pending)
        m_waitingFor.clear();
    if (!pending && m_phase == Phase::Handling && !m_awaitingHandler)
        responseWritten();
}

bool HttpConnectionGuard::isIdle() const
{
    return m_phase == Phase::Idle && !m_responsePending && m_held.isEmpty() && !hasUnreadBytes();
}

void HttpConnectionGuard::closeIdle()
{
    enterPhase(Phase::Rejected, RejectedLingerMs);
    m_socket->disconnectFromHost();
    m_socket->deleteLater();
}

void HttpConnectionGuard::evict(const QByteArray& why)
{
    if (m_phase != Phase::Rejected)
        reject(503, "Service Unavailable", "Service Unavailable: " + why + "; retry later", "Retry-After: 1\r\n");
    // No lingering: the room is needed now, and the answer (small) is already written.
    m_socket->disconnectFromHost();
    if (m_socket->state() != QAbstractSocket::UnconnectedState)
        m_socket->abort();
    m_socket->deleteLater();
}

bool HttpConnectionGuard::isClosing() const
{
    return m_phase == Phase::Rejected;
}

bool HttpConnectionGuard::hasUnreadBytes() const
{
    if (m_socket->bytesAvailable() > 0)
        return true;
    int waiting = 0;
    const qintptr descriptor = m_socket->socketDescriptor();
    return descriptor >= 0 && ::ioctl(int(descriptor), FIONREAD, &waiting) == 0 && waiting > 0;
}

void HttpConnectionGuard::setWaitingFor(const QString& client)
{
    m_waitingFor = m_responsePending ? client : QString();
}

void HttpConnectionGuard::onReadyRead()
{
    // Qt's server keeps every byte of a request in a socket transaction until the request is
    // complete; its parser is incremental and never rolls back, so what it has read can go now.
    if (m_socket->isTransactionStarted())
        m_socket->commitTransaction();
    if (m_phase == Phase::Rejected) {
        m_socket->skip(m_socket->bytesAvailable()); // drain so the client can read our answer
        return;
    }
    if (m_phase == Phase::Handling || !m_held.isEmpty()) {
        holdInput();
        return;
    }
    qint64 available = m_socket->bytesAvailable();
    if (available <= 0)
        return;
    if (m_phase == Phase::Idle) {
        m_received = 0;
        m_headLength = -1;
        m_bodyExpected = 0;
        m_bodyReceived = 0;
        m_chunk = ChunkState::SizeLine;
        m_chunkRemaining = 0;
        m_chunkLine = 0;
        m_chunkSizeDigits = 0;
        m_chunkSizeDone = false;
        m_chunkTrailerCr = false;
        m_chunkedTotal = 0;
        enterPhase(Phase::Head, m_limits.headTimeoutMs);
    }
    m_received += available;
    qint64 consumedByHead = 0;
    if (m_phase == Phase::Head) {
        consumedByHead = inspectHead(available);
        if (m_phase != Phase::Body)
            return;
    }
    // The body bytes of this read start after what the head took; find where the request ends.
    const qint64 bodyBytes = available - consumedByHead;
    const qint64 requestEnd
        = m_bodyExpected < 0 ? scanChunks(consumedByHead, bodyBytes) : qMin(bodyBytes, m_bodyExpected - m_bodyReceived);
    if (m_phase != Phase::Body)
        return; // refused while scanning
    if (m_bodyExpected >= 0)
        m_bodyReceived += requestEnd;
    const bool complete = m_bodyExpected < 0 ? m_chunk == ChunkState::Done : m_bodyReceived >= m_bodyExpected;
    if (!complete)
        return;
    // The parser now has a complete request. If it does not hand it to the server during this
    // read, it rejected it without a word; the zero timer notices and answers for it.
    m_awaitingHandler = true;
    m_largeRequest = m_received >= LargeRequestBytes;
    enterPhase(Phase::Handling, 0);
    const qint64 rest = bodyBytes - requestEnd;
    if (rest > 0)
        splitPipelined(consumedByHead + requestEnd, rest);
}

qint64 HttpConnectionGuard::inspectHead(qint64 newBytes)
{
    // The usual request arrives whole in one read: look at it in place, without keeping a copy.
    char buffer[4096];
    QByteArrayView head;
    const qint64 room = qint64(m_limits.maxHeaderBytes) + 4 - m_head.size();
    const qint64 look = qMin(room, newBytes);
    const qint64 before = m_head.size();
    if (m_head.isEmpty() && look <= qint64(sizeof buffer)) {
        const qint64 peeked = m_socket->peek(buffer, look);
        head = QByteArrayView(buffer, qMax<qint64>(0, peeked));
    } else {
        if (look > 0)
            m_head.append(m_socket->peek(look));
        head = m_head;
    }
    qsizetype start = 0;
    while (start < head.size() && isLeadingWhitespace(head[start]))
        ++start;
    const qsizetype end = findHeadEnd(head, start, qMax<qsizetype>(0, before - 2));
    if (end < 0) {
        if (head.data() == buffer)
            m_head = head.toByteArray(); // the head continues in a later read
        if (m_head.size() > m_limits.maxHeaderBytes)
            reject(431, "Request Header Fields Too Large", "request head is larger than the limit");
        return newBytes;
    }
    m_headLength = end;
    const HeadFacts facts = scanHead(head.sliced(start, end - start));
    m_head.clear();
    m_head.squeeze();
    if (!facts.error.isEmpty()) {
        reject(400, "Bad Request", facts.error);
        return newBytes;
    }
    m_closeAfterResponse = facts.closeAfterResponse;
    // Whether this connection is a client's is settled by its first head with a valid token; one
    // without stays a stranger's and may send only a small body (its request is refused anyway,
    // unless it needs no token, such as a CORS preflight).
    if (!m_authenticated)
        m_authenticated = !m_authenticate || m_authenticate(facts.target, facts.authorization);
    m_bodyLimit
        = m_authenticated ? m_limits.maxBodyBytes : qMin(m_limits.maxBodyBytes, m_limits.maxUnauthenticatedBodyBytes);
    m_target = m_authenticated ? QByteArray() : facts.target;
    m_tokenPresented = facts.authorizations > 0;
    m_phase = Phase::Body;
    m_deadline = Clock::now() + std::chrono::milliseconds(m_limits.bodyTimeoutMs);
    scheduleDeadline();
    if (facts.chunked) {
        m_bodyExpected = -1;
    } else if (!facts.contentLength.isEmpty()) {
        bool ok = false;
        const qint64 length = facts.contentLength.toLongLong(&ok);
        bool digitsOnly = true;
        for (char c : facts.contentLength)
            digitsOnly = digitsOnly && c >= '0' && c <= '9';
        if (!ok || !digitsOnly || length < 0) {
            reject(400, "Bad Request", "invalid Content-Length");
            return newBytes;
        }
        if (length > m_bodyLimit && !m_authenticated) {
            refuseUnauthenticatedBody();
            return newBytes;
        }
        if (length > m_limits.maxBodyBytes) {
            reject(413, "Payload Too Large",
                "request body of " + QByteArray::number(length) + " bytes is larger than the limit of "
                    + QByteArray::number(m_limits.maxBodyBytes) + " bytes");
            return newBytes;
        }
        m_bodyExpected = length;
    } else {
        m_bodyExpected = 0;
    }
    const qint64 headBytesInThisRead = end - before;
    if (facts.expectContinue && headBytesInThisRead == newBytes)
        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    return headBytesInThisRead;
}

qint64 HttpConnectionGuard::scanChunks(qint64 offset, qint64 length)
{
    // Follows the chunked framing (RFC 9112 7.1) on the bytes as they arrive, so that a chunk
    // announcing more than the limit is refused before the parser reserves room for it, and so
    // that the end of the body is known.
    const QByteArray bytes = m_socket->peek(offset + length);
    qint64 i = offset;
    const qint64 stop = qMin<qint64>(bytes.size(), offset + length);
    const auto refuse = [this](int status, const QByteArray& reason, const QByteArray& message) {
        reject(status, reason, message);
        return qint64(0);
    };
    while (i < stop && m_chunk != ChunkState::Done) {
        const char c = bytes[i];
        switch (m_chunk) {
        case ChunkState::SizeLine:
            ++i;
            if (++m_chunkLine > MaxChunkLineBytes)
                return refuse(400, "Bad Request", "malformed chunked body: chunk-size line too long");
            if (c == '\n') {
                if (m_chunkSizeDigits == 0)
                    return refuse(400, "Bad Request", "malformed chunked body: missing chunk size");
                m_chunk = m_chunkRemaining == 0 ? ChunkState::Trailer : ChunkState::Data;
                m_chunkLine = 0;
                m_chunkSizeDigits = 0;
                m_chunkSizeDone = false;
            } else if (!m_chunkSizeDone && std::isxdigit(uchar(c))) {
                const int digit = std::isdigit(uchar(c)) ? c - '0' : std::tolower(uchar(c)) - 'a' + 10;
                m_chunkRemaining = m_chunkRemaining * 16 + digit;
                ++m_chunkSizeDigits;
                if (m_chunkedTotal + m_chunkRemaining > m_bodyLimit && !m_authenticated) {
                    refuseUnauthenticatedBody();
                    return qint64(0);
                }
                if (m_chunkedTotal + m_chunkRemaining > m_limits.maxBodyBytes)
                    return refuse(413, "Payload Too Large",
                        "request body is larger than the limit of " + QByteArray::number(m_limits.maxBodyBytes)
                            + " bytes (a chunk announces more)");
            } else if (m_chunkSizeDigits == 0) {
                return refuse(400, "Bad Request", "malformed chunked body: a chunk size must be hexadecimal");
            } else {
                m_chunkSizeDone = true; // a chunk extension or the CR: ignored up to the LF
            }
            break;
        case ChunkState::Data: {
            const qint64 take = qMin(m_chunkRemaining, stop - i);
            i += take;
            m_chunkRemaining -= take;
            m_chunkedTotal += take;
            if (m_chunkRemaining == 0)
                m_chunk = ChunkState::DataEnd;
            break;
        }
        case ChunkState::DataEnd:
            ++i;
            if (c == '\n') {
                m_chunk = ChunkState::SizeLine;
                m_chunkLine = 0;
            } else if (c != '\r') {
                return refuse(400, "Bad Request", "malformed chunked body: a chunk does not end in CRLF");
            }
            break;
        case ChunkState::Trailer:
            ++i;
            if (c == '\n') {
                if (m_chunkLine == 0 || (m_chunkLine == 1 && m_chunkTrailerCr))
                    m_chunk = ChunkState::Done;
                m_chunkLine = 0;
                m_chunkTrailerCr = false;
            } else {
                m_chunkTrailerCr = c == '\r';
                if (++m_chunkLine > MaxChunkLineBytes)
                    return refuse(431, "Request Header Fields Too Large", "chunked trailer line too long");
            }
            break;
        case ChunkState::Done:
            break;
        }
    }
    return i - offset;
}

void HttpConnectionGuard::splitPipelined(qint64 requestBytes, qint64 rest)
{
    // The client sent the start of its next request before this one was answered. Qt 6.4's parser
    // would read both at once (and answer the second first, or mix them up): keep the rest back
    // until the response is written.
    QByteArray all = m_socket->read(requestBytes + rest);
    m_held = all.mid(requestBytes);
    for (qint64 i = requestBytes - 1; i >= 0; --i)
        m_socket->ungetChar(all.at(i));
    if (m_held.size() > m_limits.maxBufferedBytes())
        abortConnection();
}

void HttpConnectionGuard::holdInput()
{
    // A response is being written: the next request waits, out of the parser's sight. A client
    // that sends more than the largest request meanwhile is not waiting for answers at all.
    m_held.append(m_socket->readAll());
    if (m_held.size() > m_limits.maxBufferedBytes())
        abortConnection();
}

void HttpConnectionGuard::abortConnection()
{
    qWarning("HttpConnectionGuard: a client pipelined more than %lld bytes without reading responses; "
             "closing its connection",
        m_limits.maxBufferedBytes());
    m_held.clear();
    m_held.squeeze();
    enterPhase(Phase::Rejected, RejectedLingerMs);
    disconnect(m_socket, &QTcpSocket::readyRead, nullptr, nullptr);
    m_socket->abort();
    m_socket->deleteLater();
}

void HttpConnectionGuard::responseWritten()
{
    if (m_largeRequest) {
        m_largeRequest = false;
        Q_EMIT largeRequestEnded();
    }
    if (m_closeAfterResponse) {
        enterPhase(Phase::Rejected, RejectedLingerMs);
        m_held.clear();
        m_socket->disconnectFromHost();
        return;
    }
    enterPhase(Phase::Idle, m_limits.idleKeepAliveMs);
    if (!m_held.isEmpty() && !m_replayQueued) {
        m_replayQueued = true;
        QMetaObject::invokeMethod(this, &HttpConnectionGuard::replayHeldInput, Qt::QueuedConnection);
    }
}

void HttpConnectionGuard::replayHeldInput()
{
    m_replayQueued = false;
    if (m_phase != Phase::Idle || m_held.isEmpty() || m_socket->state() != QAbstractSocket::ConnectedState)
        return;
    // Give the held bytes back to the socket, in front of anything that arrived since, and let
    // the guard and the parser read them as if they had just arrived.
    if (m_socket->isTransactionStarted())
        m_socket->commitTransaction();
    const QByteArray held = std::exchange(m_held, QByteArray());
    const QByteArray later = m_socket->readAll();
    const QByteArray all = held + later;
    for (qsizetype i = all.size() - 1; i >= 0; --i)
        m_socket->ungetChar(all.at(i));
    Q_EMIT m_socket->readyRead();
}

void HttpConnectionGuard::refuseUnauthenticatedBody()
{
    // What McpHttpServer would answer once the whole body had arrived, said before it is read: a
    // stranger's connections hold a head and a small body at most.
    const bool presented = m_tokenPresented;
    reject(401, "Unauthorized",
        presented ? "Unauthorized: the bearer token is wrong"
                  : "Unauthorized: send the Switchboard token as 'Authorization: Bearer <token>'",
        presented ? R"(WWW-Authenticate: Bearer realm="switchboard", error="invalid_token")"
                    "\r\n"
                  : R"(WWW-Authenticate: Bearer realm="switchboard")"
                    "\r\n");
    Q_EMIT refusedWithoutToken(m_socket->peerAddress().toString(), std::exchange(m_target, QByteArray()), presented);
}

void HttpConnectionGuard::reject(
    int status, const QByteArray& reason, const QByteArray& message, const QByteArray& extraHeaders)
{
    m_largeRequest = m_received >= LargeRequestBytes;
    enterPhase(Phase::Rejected, RejectedLingerMs);
    m_held.clear();
    m_head.clear();
    m_head.squeeze();
    // Stop Qt's parser from seeing any more of this request; from here on the guard drains input.
    disconnect(m_socket, &QTcpSocket::readyRead, nullptr, nullptr);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnectionGuard::onReadyRead);
    if (m_socket->isTransactionStarted())
        m_socket->commitTransaction();
    const int code = status == 401       ? UnauthorizedCode
        : status == 503                  ? UnavailableCode
        : status == 413 || status == 431 ? int(JsonRpc::InvalidRequest)
                                         : int(JsonRpc::ParseError);
    const QByteArray body = JsonRpc::serialize(JsonRpc::makeError(nullptr, code, message.toStdString()));
    m_socket->skip(m_socket->bytesAvailable());
    m_socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nContent-Type: application/json\r\n"
        + extraHeaders + "Connection: close\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    m_socket->flush();
    if (m_largeRequest) {
        m_largeRequest = false;
        Q_EMIT largeRequestEnded();
    }
}

void HttpConnectionGuard::enterPhase(Phase phase, int deadlineMs)
{
    m_phase = phase;
    if (phase == Phase::Idle)
        m_idleSince = Clock::now();
    m_deadline = Clock::now() + std::chrono::milliseconds(deadlineMs);
    scheduleDeadline();
}

void HttpConnectionGuard::scheduleDeadline()
{
    const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - Clock::now()).count();
    m_timer.start(int(qBound(qint64(0), qint64(remaining), qint64(24 * 3600 * 1000))), Qt::PreciseTimer, this);
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
    if (m_phase == Phase::Handling) {
        if (m_awaitingHandler) {
            m_awaitingHandler = false;
            reject(400, "Bad Request", "malformed HTTP request");
        }
        // Otherwise a response is being written: a tool call or an event stream may take as long
        // as it takes; its own limits apply.
        return;
    }
    if (Clock::now() < m_deadline) {
        scheduleDeadline();
        return;
    }
    if (m_phase == Phase::Head || m_phase == Phase::Body) {
        reject(408, "Request Timeout",
            m_phase == Phase::Head ? "the request head did not arrive in time"
                                   : "the request body did not arrive in time");
        return;
    }
    if (m_responsePending) {
        enterPhase(Phase::Idle, m_limits.idleKeepAliveMs);
        return;
    }
    m_socket->disconnectFromHost();
    // Qt's server deletes the socket on disconnected; if its parser has already dropped its
    // connections (a malformed request), nobody else will.
    m_socket->deleteLater();
}
