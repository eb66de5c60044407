#pragma once

// GuardedTcpServer: the listening socket of the MCP server. Every accepted connection gets an
// HttpConnectionGuard before Qt HttpServer's parser sees a byte, and low-delay sends.

#include "mcp/httplimits.h"

#include <QTcpServer>

class GuardedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    GuardedTcpServer(const HttpLimits& limits, QObject* parent = nullptr);

    // Closes the listening socket and every connection it accepted.
    void closeAll();

protected:
    void incomingConnection(qintptr socketDescriptor) override;

private:
    HttpLimits m_limits;
};
