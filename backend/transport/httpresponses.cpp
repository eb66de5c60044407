#include "transport/httpresponses.h"

#include <QTcpSocket>

namespace HttpResponses {

void writeReply(QHttpServerResponder& responder, QHttpServerResponder::StatusCode status, const QByteArray& contentType,
    const QByteArray& body, const Headers& headers)
{
    responder.writeStatusLine(status);
    if (!contentType.isEmpty())
        responder.writeHeader("Content-Type", contentType);
    for (const auto& [name, value] : headers)
        responder.writeHeader(name, value);
    if (status != QHttpServerResponder::StatusCode::NoContent)
        responder.writeHeader("Content-Length", QByteArray::number(body.size()));
    responder.writeBody(body);
    sendNow(responder);
}

void writeEventStreamHead(QHttpServerResponder& responder, const Headers& headers)
{
    responder.writeStatusLine(QHttpServerResponder::StatusCode::Ok);
    responder.writeHeader("Content-Type", "text/event-stream");
    responder.writeHeader("Cache-Control", "no-cache");
    responder.writeHeader("Transfer-Encoding", "chunked");
    for (const auto& [name, value] : headers)
        responder.writeHeader(name, value);
}

QByteArray chunk(const QByteArray& data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

void sendNow(QHttpServerResponder& responder)
{
    if (QTcpSocket* socket = responder.socket())
        socket->flush();
}

} // namespace HttpResponses
