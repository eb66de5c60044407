#include "callexportwriter.h"

#include "boundedjson.h"

#include <QDateTime>
#include <QIODevice>

using nlohmann::json;

namespace {

std::string text(const QString& value)
{
    return value.toStdString();
}

std::string text(const QByteArray& value)
{
    return value.toStdString();
}

json header(const char* name, const std::string& value)
{
    return json{{"name", name}, {"value", value}};
}

std::string dump(const json& value)
{
    // Bodies are recorded as text; anything not UTF-8 in them becomes U+FFFD rather than a failed export.
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace

CallExportWriter::CallExportWriter(QIODevice* device, Format format, QUrl serverUrl, QString creatorVersion)
    : m_device(device)
    , m_format(format)
    , m_serverUrl(std::move(serverUrl))
    , m_creatorVersion(std::move(creatorVersion))
{}

CallExportWriter::Format CallExportWriter::formatForFileName(const QString& fileName)
{
    return fileName.endsWith(QStringLiteral(".har"), Qt::CaseInsensitive) ? Format::Har : Format::Ndjson;
}

const std::array<const char*, 5>& CallExportWriter::bodyMembers()
{
    static const std::array<const char*, 5> members{"request", "response", "details", "decision", "timeline"};
    return members;
}

QByteArray CallExportWriter::ndjsonLine(const ToolCall& call)
{
    const nlohmann::json record = call.toJson();
    nlohmann::ordered_json line;
    for (const auto& [key, value] : record.items())
        line[key] = value;
    // One level of nesting is the line's: a body nested to the limit stays text, so the line reads back.
    BoundedJson::Limits limits = BoundedJson::Limits::record();
    limits.maxDepth = BoundedJson::MaxDepth - 1;
    for (const char* member : bodyMembers()) {
        const std::string& body = line[member].get_ref<const std::string&>();
        if (body.empty())
            continue;
        BoundedJson::Result<nlohmann::ordered_json> parsed
            = BoundedJson::parseOrdered(QByteArrayView(body.data(), qsizetype(body.size())), limits);
        if (parsed.ok)
            line[member] = std::move(parsed.value); // in the body's own key order
    }
    // dump() escapes control characters, so a body's newlines never split the line.
    return QByteArray::fromStdString(line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace))
        + '\n';
}

json CallExportWriter::harEntry(const ToolCall& call, const QUrl& serverUrl)
{
    const double timeMs = call.durationUs < 0 ? 0.0 : double(call.durationUs) / 1000.0;
    json requestHeaders = json::array(
        {header("Content-Type", "application/json"), header("Accept", "application/json, text/event-stream")});
    if (!call.sessionId.isEmpty())
        requestHeaders.push_back(header("Mcp-Session-Id", text(call.sessionId)));
    const bool answered = !call.response.isEmpty();
    json responseHeaders = json::array();
    if (answered)
        responseHeaders.push_back(header("Content-Type", "application/json"));
    json entry{
        {"startedDateTime", text(QDateTime::fromMSecsSinceEpoch(call.startedAtMs).toUTC().toString(Qt::ISODateWithMs))},
        {"time", timeMs},
        {"request",
            {{"method", "POST"}, {"url", text(serverUrl.toString(QUrl::FullyEncoded))}, {"httpVersion", "HTTP/1.1"},
                {"cookies", json::array()}, {"headers", std::move(requestHeaders)}, {"queryString", json::array()},
                {"postData", {{"mimeType", "application/json"}, {"text", text(call.request)}}}, {"headersSize", -1},
                {"bodySize", call.request.size()}}},
        {"response",
            {{"status", answered ? 200 : 0}, {"statusText", answered ? "OK" : ""}, {"httpVersion", "HTTP/1.1"},
                {"cookies", json::array()}, {"headers", std::move(responseHeaders)},
                {"content",
                    {{"size", call.response.size()}, {"mimeType", answered ? "application/json" : "x-unknown"},
                        {"text", text(call.response)}}},
                {"redirectURL", ""}, {"headersSize", -1}, {"bodySize", answered ? call.response.size() : -1}}},
        {"cache", json::object()},
        // Switchboard measures the call from its request to its response: all of it is waiting.
        {"timings",
            {{"blocked", -1}, {"dns", -1}, {"connect", -1}, {"ssl", -1}, {"send", 0}, {"wait", timeMs},
                {"receive", 0}}},
        {"comment", text(call.tool + QStringLiteral(": ") + callStatusLabel(call.status))},
        // As browsers export a fetch(): the Network panel files the calls under Fetch/XHR, not as
        // scripts (what it makes of an application/json response it has no type for).
        {"_resourceType", "fetch"},
        {"_switchboard", call.toJson()},
    };
    // The bodies are in request and response already.
    entry["_switchboard"].erase("request");
    entry["_switchboard"].erase("response");
    return entry;
}

bool CallExportWriter::put(const QByteArray& bytes)
{
    if (m_device->write(bytes) == bytes.size())
        return true;
    m_error = m_device->errorString();
    return false;
}

bool CallExportWriter::begin()
{
    m_written = 0;
    if (m_format == Format::Ndjson)
        return true;
    json creator{{"name", "Switchboard"}, {"version", text(m_creatorVersion)}};
    return put(QByteArrayLiteral("{\"log\":{\"version\":\"1.2\",\"creator\":")
        + QByteArray::fromStdString(dump(creator)) + QByteArrayLiteral(",\"pages\":[],\"entries\":["));
}

bool CallExportWriter::write(const ToolCall& call)
{
    QByteArray bytes;
    if (m_format == Format::Ndjson) {
        bytes = ndjsonLine(call);
    } else {
        bytes = QByteArray::fromStdString(dump(harEntry(call, m_serverUrl)));
        if (m_written > 0)
            bytes.prepend(",\n");
        else
            bytes.prepend('\n');
    }
    if (!put(bytes))
        return false;
    ++m_written;
    return true;
}

bool CallExportWriter::finish()
{
    if (m_format == Format::Ndjson)
        return true;
    return put(QByteArrayLiteral("\n]}}\n"));
}
