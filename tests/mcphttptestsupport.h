#pragma once

// Helpers for tests that speak MCP over HTTP to a ServerFixture: standard headers, opening a
// session, reading JSON bodies.

#include "rawhttpclient.h"
#include "serverfixture.h"

#include <nlohmann/json.hpp>

using Headers = QList<QPair<QByteArray, QByteArray>>;

namespace McpHttpTest {

inline QByteArray initializeBody(const char* version = "2025-06-18", const QByteArray& clientName = "http-test")
{
    return QByteArray(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")") + version
        + R"(","capabilities":{},"clientInfo":{"name":")" + clientName + R"(","version":"1.0"}}})";
}

inline Headers standardHeaders(quint16 port)
{
    return {{"Host", "127.0.0.1:" + QByteArray::number(port)}, {"Content-Type", "application/json"},
        {"Accept", "application/json, text/event-stream"}, {"Authorization", "Bearer " + ServerFixture::token()}};
}

inline Headers withHeader(Headers headers, const QByteArray& name, const QByteArray& value)
{
    for (auto& header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0) {
            if (value.isNull())
                headers.removeOne(header);
            else
                header.second = value;
            return headers;
        }
    }
    if (!value.isNull())
        headers.append({name, value});
    return headers;
}

inline nlohmann::json bodyJson(const RawHttpResponse& response)
{
    return nlohmann::json::parse(response.body.toStdString(), nullptr, false);
}

// Opens a session (initialize + initialized) and returns its id.
inline QByteArray openSession(
    quint16 port, const char* version = "2025-06-18", const QByteArray& clientName = "http-test")
{
    RawHttpClient client(port);
    client.send(RawHttpClient::post(initializeBody(version, clientName), standardHeaders(port)));
    const auto response = client.read();
    const QByteArray id = response.header("mcp-session-id");
    Headers headers = withHeader(standardHeaders(port), "Mcp-Session-Id", id);
    headers = withHeader(headers, "MCP-Protocol-Version", version);
    client.send(RawHttpClient::post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", headers));
    client.read();
    return id;
}

inline Headers sessionHeaders(quint16 port, const QByteArray& session, const char* version = "2025-06-18")
{
    return withHeader(withHeader(standardHeaders(port), "Mcp-Session-Id", session), "MCP-Protocol-Version", version);
}

// A 2026-07-28 POST's headers: the version, and the method and its name where given (empty: the
// header is left out, for the tests of its absence).
inline Headers modernHeaders(
    quint16 port, const QByteArray& method, const QByteArray& name = {}, const QByteArray& version = "2026-07-28")
{
    Headers headers = withHeader(standardHeaders(port), "MCP-Protocol-Version", version);
    if (!method.isEmpty())
        headers = withHeader(headers, "Mcp-Method", method);
    if (!name.isEmpty())
        headers = withHeader(headers, "Mcp-Name", name);
    return headers;
}

} // namespace McpHttpTest

using namespace McpHttpTest;
