#include "headlessreporter.h"

#include <QDateTime>

#include <cstdio>

QByteArray HeadlessReporter::formatLine(const ToolCall& call)
{
    const QString time = QDateTime::fromMSecsSinceEpoch(call.startedAtMs).toString(QStringLiteral("HH:mm:ss.zzz"));
    QString line = QStringLiteral("%1 #%2 %3 %4 via %5").arg(time).arg(call.id).arg(callStatusName(call.status), call.tool, call.route);
    if (call.durationUs >= 0)
        line += QStringLiteral(" in %1 ms").arg(double(call.durationUs) / 1000.0, 0, 'f', 2);
    line += QStringLiteral(" from %1").arg(call.clientName);
    if (!call.clientVersion.isEmpty())
        line += QLatin1Char(' ') + call.clientVersion;
    if (!call.error.isEmpty())
        line += QStringLiteral(": ") + call.error.simplified();
    return line.toUtf8() + '\n';
}

void HeadlessReporter::report(const ToolCallList& calls)
{
    for (const ToolCall& call : calls) {
        if (call.isFinished()) {
            const QByteArray line = formatLine(call);
            std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout);
        }
    }
    std::fflush(stdout);
}
