#pragma once

// CallExportWriter: writes calls to a device as they come, one at a time, so an export of any size
// holds one call in memory. NDJSON: one ToolCall::toJson() per line, whole bodies, which
// NdjsonCallReader reads back. HAR 1.2 (the format browsers' network panels import): each call as
// the HTTP exchange a client had with the server: a POST of the JSON-RPC request to the server's URL
// and the JSON-RPC response, with the call's start, duration and Mcp-Session-Id; never the token.
// A call with no response (still running, parked) has status 0 and empty content, as a browser
// records a request that got no answer. Switchboard's own fields go in "_switchboard" (HAR's rule
// for custom fields: a leading underscore).

#include "toolcall.h"

#include <QString>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <array>

class QIODevice;

class CallExportWriter
{
public:
    enum class Format { Ndjson, Har };

    // `serverUrl` is the request URL in HAR entries; `creatorVersion` is HAR's log.creator.version.
    CallExportWriter(QIODevice* device, Format format, QUrl serverUrl, QString creatorVersion);

    Format format() const { return m_format; }
    // The format a file name asks for: ".har" is HAR, anything else NDJSON.
    static Format formatForFileName(const QString& fileName);

    // Each returns false when the device refused to write (error() says why).
    bool begin();
    bool write(const ToolCall& call);
    bool finish();
    qint64 written() const { return m_written; }
    QString error() const { return m_error; }

    // One line of NDJSON, with its newline: ToolCall::toJson() with the bodies (request, response,
    // details, decision, timeline) as JSON values, so jq and a reader see objects, not JSON inside
    // strings. A body that is not whole JSON (a preview cut short) stays a string.
    static QByteArray ndjsonLine(const ToolCall& call);
    // The members ndjsonLine() writes as JSON values (NdjsonCallReader turns them back into text).
    static const std::array<const char*, 5>& bodyMembers();
    // One HAR entry.
    static nlohmann::json harEntry(const ToolCall& call, const QUrl& serverUrl);

private:
    bool put(const QByteArray& bytes);

    QIODevice* m_device;
    Format m_format;
    QUrl m_serverUrl;
    QString m_creatorVersion;
    qint64 m_written = 0;
    QString m_error;
};
