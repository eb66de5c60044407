#include "curlcommand.h"

#include "toolcall.h"

#include <QStringList>
#include <QUrl>

QString CurlCommand::shellQuote(const QString& text)
{
    // Inside single quotes bash takes every character as it is, newlines included; only a single
    // quote itself ends the word, so it is closed, escaped and reopened.
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString CurlCommand::forCall(const ToolCall& call, const QUrl& serverUrl, bool tokenRequired)
{
    const QString version = QString::fromLatin1(ProtocolVersion);
    QStringList headers{QStringLiteral("-H 'Content-Type: application/json'"),
        QStringLiteral("-H 'Accept: application/json, text/event-stream'"),
        QStringLiteral("-H ") + shellQuote(QStringLiteral("MCP-Protocol-Version: ") + version)};
    // Double quotes: the shell expands the variable when the script runs; its value never appears here.
    if (tokenRequired)
        headers << QStringLiteral("-H \"Authorization: Bearer $SWITCHBOARD_TOKEN\"");
    const QString commonHeaders = headers.join(QStringLiteral(" \\\n  "));
    const QString sessionHeader = QStringLiteral("-H \"Mcp-Session-Id: $sb_session\"");

    QString body = QString::fromUtf8(call.request);
    QString bodyArgument;
    QString hereDocument;
    if (call.request.size() <= MaxArgumentBytes) {
        bodyArgument = QStringLiteral("--data-binary ") + shellQuote(body);
    } else {
        // A quoted delimiter: nothing in the document is expanded. One no line of the body equals.
        QString delimiter = QStringLiteral("SWITCHBOARD_REQUEST");
        const QStringList lines = body.split(QLatin1Char('\n'));
        for (int n = 1; lines.contains(delimiter); ++n)
            delimiter = QStringLiteral("SWITCHBOARD_REQUEST_%1").arg(n);
        bodyArgument = QStringLiteral("--data-binary @- <<'%1'").arg(delimiter);
        hereDocument = QLatin1Char('\n') + body + QLatin1Char('\n') + delimiter;
    }

    const QString who = call.clientName.isEmpty() ? QString() : QStringLiteral(" from ") + call.clientName;
    QStringList lines;
    // The comment lines are quoted too: a tool name is the client's text and may hold a newline.
    QString title = QStringLiteral("# Call #%1: %2%3, sent again with curl.").arg(call.id).arg(call.tool, who);
    title.replace(QLatin1Char('\n'), QLatin1Char(' ')).replace(QLatin1Char('\r'), QLatin1Char(' '));
    lines << title
          << QStringLiteral("# A tools/call is answered only in an initialized MCP session: this opens one, sends")
          << QStringLiteral("# the recorded request in it and ends the session.");
    if (tokenRequired)
        lines << QStringLiteral("# Set SWITCHBOARD_TOKEN to the console's token first (status bar: Copy token).");
    lines << QStringLiteral("sb_url=") + shellQuote(serverUrl.toString(QUrl::FullyEncoded));
    const QString initialize = QStringLiteral(
        "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%1\","
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"curl\",\"version\":\"switchboard-copy\"}}}")
                                   .arg(version);
    // The session id comes back as a response header: -D - prints the headers, the body is dropped.
    lines << QStringLiteral("sb_session=$(curl -sS -D - -o /dev/null \"$sb_url\" \\\n  ") + commonHeaders
            + QStringLiteral(" \\\n  --data-binary ") + shellQuote(initialize)
            + QStringLiteral(" \\\n  | tr -d '\\r' | awk 'tolower($1) == \"mcp-session-id:\" { print $2 }')")
          << QStringLiteral("[ -n \"$sb_session\" ] || echo 'No MCP session: is the console running%1?' >&2")
                 .arg(tokenRequired ? QStringLiteral(", is SWITCHBOARD_TOKEN set") : QString())
          << QStringLiteral("curl -sS -o /dev/null \"$sb_url\" \\\n  ") + commonHeaders + QStringLiteral(" \\\n  ")
            + sessionHeader
            + QStringLiteral(" \\\n  --data-binary '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}'")
          // -N: a response that streams (progress, then the result) is shown as it comes.
          << QStringLiteral("curl -sS -N \"$sb_url\" \\\n  ") + commonHeaders + QStringLiteral(" \\\n  ")
            + sessionHeader + QStringLiteral(" \\\n  ") + bodyArgument + hereDocument
          << QStringLiteral("echo")
          << QStringLiteral("curl -sS -o /dev/null -X DELETE \"$sb_url\" \\\n  ") + commonHeaders
            + QStringLiteral(" \\\n  ") + sessionHeader;
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}
