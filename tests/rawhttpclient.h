#pragma once

// RawHttpClient: a test-only HTTP/1.1 client over a plain socket, for requests no polite client
// would send (wrong Host, malformed heads, huge Content-Length without a body) and for reading
// event streams chunk by chunk. The server under test runs on another thread, so blocking reads
// here are fine.

#include <QByteArray>
#include <QElapsedTimer>
#include <QMap>
#include <QTcpSocket>

struct RawHttpResponse
{
    int status = 0;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body; // de-chunked
    bool ok = false; // a complete response was read
    QByteArray header(const char* name) const { return headers.value(QByteArray(name)); }
    // The "data:" payloads of an event-stream body.
    QList<QByteArray> events() const
    {
        QList<QByteArray> result;
        for (const QByteArray& line : body.split('\n')) {
            if (line.startsWith("data: "))
                result << line.mid(6);
        }
        return result;
    }
};

class RawHttpClient
{
public:
    explicit RawHttpClient(quint16 port)
        : m_port(port)
    {
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        m_socket.waitForConnected(10'000);
    }

    quint16 port() const { return m_port; }
    QTcpSocket& socket() { return m_socket; }

    void send(const QByteArray& bytes)
    {
        m_socket.write(bytes);
        m_socket.waitForBytesWritten(10'000);
    }

    static QByteArray post(
        const QByteArray& body, const QList<QPair<QByteArray, QByteArray>>& headers, const QByteArray& path = "/mcp")
    {
        QByteArray request = "POST " + path + " HTTP/1.1\r\n";
        for (const auto& [name, value] : headers)
            request += name + ": " + value + "\r\n";
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        return request;
    }

    // Reads one response: its head, then a body framed by Content-Length or chunking (or, for a
    // chunked event stream, as many chunks as arrive until `maxChunks` or the terminating chunk).
    RawHttpResponse read(int timeoutMs = 15'000, int maxChunks = -1)
    {
        RawHttpResponse response;
        QElapsedTimer timer;
        timer.start();
        qsizetype headEnd;
        while ((headEnd = m_buffer.indexOf("\r\n\r\n")) < 0) {
            if (!fill(timer, timeoutMs))
                return response;
        }
        const QList<QByteArray> lines = m_buffer.left(headEnd).split('\n');
        m_buffer.remove(0, headEnd + 4);
        const QList<QByteArray> statusLine = lines.first().trimmed().split(' ');
        response.status = statusLine.value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines.at(i).indexOf(':');
            if (colon > 0)
                response.headers.insert(
                    lines.at(i).left(colon).trimmed().toLower(), lines.at(i).mid(colon + 1).trimmed());
        }
        if (response.status == 100) // interim response; the real one follows
            return read(timeoutMs, maxChunks);
        if (response.header("transfer-encoding").contains("chunked")) {
            int chunks = 0;
            while (true) {
                qsizetype lineEnd;
                while ((lineEnd = m_buffer.indexOf("\r\n")) < 0) {
                    if (!fill(timer, timeoutMs))
                        return response;
                }
                const qint64 size = m_buffer.left(lineEnd).toLongLong(nullptr, 16);
                while (m_buffer.size() < lineEnd + 2 + size + 2) {
                    if (!fill(timer, timeoutMs))
                        return response;
                }
                response.body += m_buffer.mid(lineEnd + 2, size);
                m_buffer.remove(0, lineEnd + 2 + size + 2);
                if (size == 0) {
                    response.ok = true;
                    return response;
                }
                if (maxChunks > 0 && ++chunks >= maxChunks) {
                    response.ok = true;
                    return response;
                }
            }
        }
        const qint64 length = response.header("content-length").toLongLong();
        while (m_buffer.size() < length) {
            if (!fill(timer, timeoutMs))
                return response;
        }
        response.body = m_buffer.left(length);
        m_buffer.remove(0, length);
        response.ok = true;
        return response;
    }

    // Reads more chunks of an event stream already opened by read(…, maxChunks).
    QByteArray readChunk(int timeoutMs = 15'000)
    {
        QElapsedTimer timer;
        timer.start();
        qsizetype lineEnd;
        while ((lineEnd = m_buffer.indexOf("\r\n")) < 0) {
            if (!fill(timer, timeoutMs))
                return {};
        }
        const qint64 size = m_buffer.left(lineEnd).toLongLong(nullptr, 16);
        while (m_buffer.size() < lineEnd + 2 + size + 2) {
            if (!fill(timer, timeoutMs))
                return {};
        }
        QByteArray data = m_buffer.mid(lineEnd + 2, size);
        m_buffer.remove(0, lineEnd + 2 + size + 2);
        return size == 0 ? QByteArray("<end>") : data;
    }

    bool waitForClose(int timeoutMs = 15'000)
    {
        QElapsedTimer timer;
        timer.start();
        while (m_socket.state() != QAbstractSocket::UnconnectedState && timer.elapsed() < timeoutMs) {
            m_socket.waitForReadyRead(100);
            m_buffer += m_socket.readAll();
        }
        return m_socket.state() == QAbstractSocket::UnconnectedState;
    }

private:
    bool fill(const QElapsedTimer& timer, int timeoutMs)
    {
        if (m_socket.bytesAvailable() == 0) {
            const qint64 remaining = timeoutMs - timer.elapsed();
            if (remaining <= 0 || !m_socket.waitForReadyRead(int(remaining)))
                return false;
        }
        m_buffer += m_socket.readAll();
        return true;
    }

    quint16 m_port;
    QTcpSocket m_socket;
    QByteArray m_buffer;
};
