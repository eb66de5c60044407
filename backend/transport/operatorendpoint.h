#pragma once

// OperatorEndpoint: what answers the operator API's paths (/operator/…) on the MCP listener.
// McpHttpServer guards the door for it as for /mcp (limits, Host; no Origin at all: the API is not
// for web pages) and lets in only requests whose token the endpoint takes; the endpoint answers
// them. Lives on the server thread.

#include <QByteArrayView>
#include <QHttpServerResponder>

class QHttpServerRequest;
class QTcpSocket;

class OperatorEndpoint
{
public:
    virtual ~OperatorEndpoint() = default;

    // `target` (a request line's path, with or without a query) is the operator API's.
    static bool isOperatorPath(QByteArrayView target)
    {
        return target == "/operator" || target.startsWith("/operator/") || target.startsWith("/operator?");
    }

    // The Authorization header's value carries an operator token.
    virtual bool isAuthorized(QByteArrayView authorization) const = 0;
    // Answers an authorized request (now, or later through `responder`, which it then keeps).
    virtual void handle(const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder responder) = 0;
};
