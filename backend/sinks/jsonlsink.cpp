#include "sinks/jsonlsink.h"

#include "sinks/sinkio.h"
#include "sinks/sinkresult.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstdio>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

std::vector<SinkOperation> JsonlSink::operations() const
{
    SinkOperation append = operation(QStringLiteral("append"), QStringLiteral("Append a record"),
        QStringLiteral("Appends one record (a JSON object) as one line to the log %1%2. At most %3 bytes per record "
                       "as compact JSON.")
            .arg(QFileInfo(m_config.path).fileName(),
                m_config.addTimestamp ? QStringLiteral("; the sink adds \"ts\", the time it was appended") : QString())
            .arg(m_config.maxBytes));
    append.inputSchema = json{{"type", "object"},
        {"properties",
            {{"record", {{"type", "object"}, {"description", "The record; one line of the log, as compact JSON"}}}}},
        {"required", {"record"}}, {"additionalProperties", false}};
    append.resultFields
        = json{{"path", {{"type", "string"}}}, {"bytes", {{"type", "integer"}}}, {"rotated", {{"type", "boolean"}}}};
    return {append};
}

bool JsonlSink::rotateIfFull(qint64 incoming, bool* rotated, QString* error) const
{
    *rotated = false;
    struct stat info;
    const QByteArray path = QFile::encodeName(m_config.path);
    if (::stat(path.constData(), &info) != 0 || info.st_size == 0 || info.st_size + incoming <= m_config.maxFileBytes)
        return true;
    const QByteArray previous = path + ".1";
    if (::rename(path.constData(), previous.constData()) != 0) {
        *error = QStringLiteral("cannot rotate %1 to %1.1: %2.").arg(m_config.path, SinkIo::describe(errno));
        return false;
    }
    *rotated = true;
    return true;
}

ToolResult JsonlSink::run(const QString& operation, ToolCallContext& context) const
{
    const auto failure = [&](const QString& message, json fields = json::object()) {
        return SinkResult::failure(m_config.name, operation, message, std::move(fields));
    };
    json record = context.arguments().at("record");
    if (m_config.addTimestamp) // the sink's clock, not the caller's: it is when the line was written
        record["ts"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
    // Compact JSON escapes every newline inside strings, so the line is one line.
    QByteArray line = QByteArray::fromStdString(record.dump(-1, ' ', false, json::error_handler_t::replace));
    if (line.size() > m_config.maxBytes)
        return failure(QStringLiteral("the record is %1 bytes as JSON; this sink takes at most %2 bytes per record.")
                           .arg(line.size())
                           .arg(m_config.maxBytes));
    line.append('\n');
    if (context.isCancelled())
        return failure(QStringLiteral("the call was cancelled; nothing was appended."));

    const QString directory = QFileInfo(m_config.path).absolutePath();
    if (!QFileInfo(directory).isDir() && !QDir().mkpath(directory))
        return failure(QStringLiteral("cannot create the directory %1 for the log.").arg(directory));

    std::unique_lock<std::mutex> rotation(m_rotation, std::defer_lock);
    bool rotated = false;
    if (m_config.maxFileBytes > 0) {
        rotation.lock();
        QString error;
        if (!rotateIfFull(line.size(), &rotated, &error))
            return failure(error);
    }
    int code = 0;
    const int fd = SinkIo::openForAppend(AT_FDCWD, QFile::encodeName(m_config.path), false, &code);
    if (fd < 0)
        return failure(QStringLiteral("cannot open the log %1: %2.").arg(m_config.path, SinkIo::describe(code)));
    qint64 written = 0;
    code = SinkIo::writeAll(fd, line, &written);
    ::close(fd);
    const json fields{{"path", m_config.path.toStdString()}, {"bytes", written}, {"rotated", rotated}};
    if (code) {
        return failure(
            QStringLiteral("cannot append to the log %1: %2%3.")
                .arg(m_config.path, SinkIo::describe(code),
                    written ? QStringLiteral(" (the line was cut short after %1 bytes)").arg(written) : QString()),
            fields);
    }
    return SinkResult::success(m_config.name, operation,
        QStringLiteral("Appended a record of %1 bytes to %2%3.")
            .arg(written)
            .arg(m_config.path, rotated ? QStringLiteral(" (the full log was moved to .1 first)") : QString()),
        fields);
}
