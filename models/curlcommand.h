#pragma once

// CurlCommand: a recorded call as a shell script a developer can paste into bash (or run with
// `bash file`) to send it again with curl. A tools/call is only answered inside an initialized MCP
// session, so the script initializes one, captures its Mcp-Session-Id, sends
// notifications/initialized, sends the recorded request, and ends the session. The token is never
// written out: the script reads it from $SWITCHBOARD_TOKEN. Every recorded text is single-quoted
// (a ' becomes '\''), so quotes, $, backticks and newlines in the arguments reach the server as
// they are; a body too long for one command-line argument goes through a quoted here-document.

#include <QString>

class QUrl;
struct ToolCall;

class CurlCommand
{
public:
    // The protocol version the script asks for; one every Switchboard server speaks.
    static constexpr const char* ProtocolVersion = "2025-11-25";
    // Bodies longer than this go through a here-document: Linux refuses a single argument over 128 KiB.
    static constexpr qsizetype MaxArgumentBytes = 64 * 1024;

    // The script for `call` against the server at `serverUrl`; `tokenRequired` adds
    // "Authorization: Bearer $SWITCHBOARD_TOKEN" to every request.
    static QString forCall(const ToolCall& call, const QUrl& serverUrl, bool tokenRequired);
    // `text` as one bash word that stands for exactly `text`.
    static QString shellQuote(const QString& text);
};
