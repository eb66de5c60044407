#pragma once

// ResponseChannel: where a session's replies to one incoming message (or batch) go. The HTTP
// server implements it for a POST exchange (JSON or an event stream) and for the standalone GET
// event stream; tests implement it to drive a session without sockets.

#include "toolcall.h"

#include <QByteArray>
#include <QString>

class ResponseChannel
{
public:
    virtual ~ResponseChannel() = default;

    // A notification related to an in-flight request (progress, log message). Sent before the
    // request's response.
    virtual void sendNotification(const QByteArray& message) = 0;
    // The response to one request of this exchange.
    virtual void sendResponse(const QByteArray& message) = 0;
    // The response to a tools/call request that ran (or was refused as it was admitted), with how
    // the call ended, for a caller inside the process that answers by it (the one-shot runner's exit
    // status). Sent as any response by default.
    virtual void sendCallResponse(const QByteArray& message, CallStatus status)
    {
        (void)status;
        sendResponse(message);
    }
    // One request of this exchange will get no response (it was cancelled).
    virtual void skipResponse() = 0;
    virtual bool isOpen() const = 0;
    // A parked call: the exchange ends with no response at all and the connection is closed.
    // `reason` says where the call's question waits (a caller inside the process reports it).
    virtual void abandon(const QString& reason)
    {
        (void)reason;
        skipResponse();
    }
    // Something that keeps a long call's connection alive when the client asked for no progress
    // (an event-stream comment saying `reason`, one line of ASCII); nothing by default.
    virtual void sendKeepAlive(const char* reason) { (void)reason; }
};
