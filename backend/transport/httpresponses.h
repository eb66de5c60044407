#pragma once

// HttpResponses: how the server's HTTP endpoints (/mcp and the operator API) write what they
// answer: a whole reply with its length, or an event stream sent in chunks.

#include <QByteArray>
#include <QHttpServerResponder>

#include <utility>
#include <vector>

namespace HttpResponses {

using Headers = std::vector<std::pair<QByteArray, QByteArray>>;

// A whole reply: status line, Content-Type (unless empty), `headers`, Content-Length and the body,
// sent at once.
void writeReply(QHttpServerResponder& responder, QHttpServerResponder::StatusCode status, const QByteArray& contentType,
    const QByteArray& body, const Headers& headers);
// The head of a response whose body is an event stream of unknown length, sent in chunks.
void writeEventStreamHead(QHttpServerResponder& responder, const Headers& headers);
// `data` as one chunk of a chunked body.
QByteArray chunk(const QByteArray& data);
// Sends what the responder wrote now rather than when the event loop next sees the socket
// writable: one poll less per response, and events leave as they happen.
void sendNow(QHttpServerResponder& responder);

} // namespace HttpResponses
