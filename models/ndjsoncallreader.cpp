#include "ndjsoncallreader.h"

#include "boundedjson.h"
#include "callexportwriter.h"

#include <QCoreApplication>
#include <QFile>
#include <QLocale>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("NdjsonCallReader", text);
}

} // namespace

NdjsonCallReader::Result NdjsonCallReader::read(
    QIODevice* device, qint64 maxFileBytes, qint64 maxLineBytes, int maxCalls, Control* control)
{
    Result result;
    const auto size
        = [](qint64 bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); };
    if (!device->isSequential() && device->size() > maxFileBytes) {
        result.fatal = tr("The file is %1; at most %2 can be opened.").arg(size(device->size()), size(maxFileBytes));
        return result;
    }
    const auto problem = [&result](qint64 line, const QString& text) {
        ++result.badLines;
        if (result.problems.size() < MaxListedProblems)
            result.problems << tr("line %1: %2").arg(line).arg(text);
    };
    qint64 lineNumber = 0;
    qint64 total = 0;
    while (!device->atEnd()) {
        ++lineNumber;
        // In small pieces: readLine(n) allocates n bytes whatever the line's length, and a line over
        // the limit is counted to its end without being kept.
        QByteArray line;
        qint64 lineBytes = 0;
        bool tooLong = false;
        while (true) {
            const QByteArray piece = device->readLine(64 * 1024);
            if (piece.isEmpty())
                break;
            lineBytes += piece.size();
            total += piece.size();
            if (control) {
                control->bytesRead.store(total, std::memory_order_relaxed);
                if (control->stop.load(std::memory_order_relaxed)) {
                    result = Result();
                    result.cancelled = true;
                    result.fatal = tr("Opening was cancelled.");
                    return result;
                }
            }
            if (!tooLong && lineBytes - (piece.endsWith('\n') ? 1 : 0) > maxLineBytes) {
                tooLong = true;
                line = QByteArray();
            }
            if (!tooLong)
                line += piece;
            if (piece.endsWith('\n'))
                break;
        }
        if (lineBytes == 0) {
            if (!device->atEnd()) {
                result.fatal = tr("Reading stopped at line %1: %2").arg(lineNumber).arg(device->errorString());
                result.calls.clear();
                return result;
            }
            break;
        }
        if (total > maxFileBytes) {
            result.fatal = tr("The file is over %1; at most that much can be opened.").arg(size(maxFileBytes));
            result.calls.clear();
            return result;
        }
        if (tooLong) {
            problem(lineNumber, tr("longer than %1 (%2); skipped").arg(size(maxLineBytes), size(lineBytes)));
            continue;
        }
        if (line.endsWith('\n'))
            line.chop(1);
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        BoundedJson::Result<nlohmann::ordered_json> parsed
            = BoundedJson::parseOrdered(line, BoundedJson::Limits::record());
        if (!parsed.ok) {
            problem(lineNumber, tr("not JSON (%1)").arg(QString::fromStdString(parsed.error)));
            continue;
        }
        // Bodies written as JSON values (CallExportWriter::ndjsonLine) become their text again, in
        // their own key order; exports of versions before it wrote them as strings.
        nlohmann::json record = nlohmann::json::object();
        if (parsed.value.is_object()) {
            for (auto& [key, value] : parsed.value.items()) {
                const std::string& name = key; // clang 14 cannot capture a structured binding
                const auto& members = CallExportWriter::bodyMembers();
                const bool body = std::any_of(members.begin(), members.end(), [&](const char* m) { return name == m; });
                if (body && !value.is_string())
                    record[key] = value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
                else
                    record[key] = nlohmann::json(value); // a value already parsed, in the other key order
            }
        } else {
            record = nlohmann::json(parsed.value); // not a call: fromJson says why
        }
        QString why;
        const std::optional<ToolCall> call = ToolCall::fromJson(record, &why);
        if (!call) {
            problem(lineNumber, why);
            continue;
        }
        if (result.calls.size() >= maxCalls) {
            result.stoppedAtMaxCalls = true;
            break;
        }
        result.calls.append(*call);
    }
    return result;
}

NdjsonCallReader::Result NdjsonCallReader::readFile(const QString& path, Control* control)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        Result result;
        result.fatal = tr("Cannot open %1: %2").arg(path, file.errorString());
        return result;
    }
    return read(&file, MaxFileBytes, MaxLineBytes, MaxCalls, control);
}

QString NdjsonCallReader::summary(const Result& result)
{
    if (!result.fatal.isEmpty())
        return result.fatal;
    QStringList parts;
    parts << (result.calls.size() == 1 ? tr("1 call") : tr("%1 calls").arg(result.calls.size()));
    if (result.stoppedAtMaxCalls)
        parts << tr("stopped after the first %1 calls").arg(result.calls.size());
    if (result.badLines > 0) {
        QString bad
            = result.badLines == 1 ? tr("1 line is not a call") : tr("%1 lines are not calls").arg(result.badLines);
        bad += QStringLiteral(":\n") + result.problems.join(QLatin1Char('\n'));
        if (result.badLines > result.problems.size())
            bad += QLatin1Char('\n') + tr("… and %1 more").arg(result.badLines - result.problems.size());
        parts << bad;
    }
    return parts.join(QStringLiteral("; "));
}
