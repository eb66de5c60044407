// libFuzzer target: the bytes a client sends on one connection, as HttpConnectionGuard sees them.
//
// A thin driver over the guard's public interface: a GuardedTcpServer on 127.0.0.1 installs the
// guard on each accepted socket as in production, and a reader connected after the guard stands in
// for Qt HttpServer's parser (it takes every byte the guard lets through). The first input byte
// chooses how the rest is cut into reads and whether the server "takes" a request after each read
// (HttpConnectionGuard::beginRequest, requestHandled) or has a response pending (setResponsePending); the rest
// is sent over a real loopback connection. Whatever the guard answers must be an HTTP/1.1 response.

#include "transport/guardedtcpserver.h"
#include "transport/httpconnectionguard.h"
#include "transport/httplimits.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QPointer>
#include <QTcpSocket>

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

QCoreApplication* application = nullptr;
GuardedTcpServer* server = nullptr;

// Sizes of the reads the input is cut into (the first byte's low four bits pick one).
constexpr std::array<qsizetype, 16> readSizes{1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 100, 256, 1000, 4096, 1 << 20};

void fail(const char* what, const QByteArray& detail = {})
{
    std::fprintf(stderr, "fuzz_httphead: %s %s\n", what, detail.constData());
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    application = new QCoreApplication(*argc, *argv);
    HttpLimits limits;
    // Small limits, so that inputs of a few kilobytes reach the 431 and 413 paths.
    limits.maxHeaderBytes = 2048;
    limits.maxBodyBytes = 8192;
    server = new GuardedTcpServer(limits);
    if (!server->listen(QHostAddress::LocalHost, 0))
        fail("cannot listen on 127.0.0.1:", server->errorString().toUtf8());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::uint8_t control = data[0];
    const qsizetype readSize = readSizes[control & 0x0F];
    const bool takeRequestAfterEachRead = control & 0x10;
    const bool responsePending = control & 0x20;
    const QByteArray stream(reinterpret_cast<const char*>(data + 1), qsizetype(size - 1));

    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, server->serverPort());
    if (!client.waitForConnected(5000))
        fail("cannot connect:", client.errorString().toUtf8());
    // Reset rather than close, so that no connection lingers in TIME_WAIT across millions of runs.
    const linger resetOnClose{1, 0};
    ::setsockopt(int(client.socketDescriptor()), SOL_SOCKET, SO_LINGER, &resetOnClose, sizeof resetOnClose);
    if (!server->waitForNewConnection(5000))
        fail("no connection accepted");
    QPointer<QTcpSocket> accepted = server->nextPendingConnection();
    HttpConnectionGuard* guard = HttpConnectionGuard::of(accepted);
    if (!guard)
        fail("GuardedTcpServer accepted a socket without a guard");
    // Qt's parser reads whatever reaches it; the guard is connected first and may cut it off.
    QObject::connect(accepted, &QTcpSocket::readyRead, accepted, [socket = accepted.data()] { socket->readAll(); });
    if (responsePending)
        guard->setResponsePending(true);

    // At most maxReads reads (the last takes the rest): every read is a round trip through the
    // event loop, and thousands of them per input would leave no time for other inputs.
    constexpr int maxReads = 48;
    int reads = 0;
    for (qsizetype offset = 0; offset < stream.size() && accepted;) {
        const QByteArray piece = ++reads < maxReads ? stream.mid(offset, readSize) : stream.mid(offset);
        offset += piece.size();
        client.write(piece);
        if (!client.waitForBytesWritten(5000))
            break; // the guard closed the connection
        accepted->waitForReadyRead(5000);
        QCoreApplication::processEvents(); // zero timers: the guard's check for a dropped request
        if (takeRequestAfterEachRead && accepted) {
            // As McpHttpServer does when the parser hands it a request: begin, then (unless the
            // guard says it is not a new request) finish handling it.
            if (auto* current = HttpConnectionGuard::of(accepted); current && current->beginRequest())
                current->requestHandled();
        }
    }
    QCoreApplication::processEvents();

    // The guard answers only on its own (400, 408, 413, 431) or with 100 Continue: HTTP/1.1 always.
    client.waitForReadyRead(0);
    const QByteArray answer = client.readAll();
    if (!answer.isEmpty() && !answer.startsWith("HTTP/1.1 "))
        fail("the guard wrote something that is not an HTTP/1.1 response:", answer.left(200).toPercentEncoding());

    client.abort();
    delete accepted.data();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return 0;
}
