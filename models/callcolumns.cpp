#include "callcolumns.h"

#include "modelroles.h"
#include "statuscolours.h"

#include <QColor>
#include <QDate>
#include <QDateTime>
#include <QTimeZone>

namespace CallColumns {

QString formatDuration(qint64 durationUs)
{
    if (durationUs < 0)
        return QStringLiteral("…");
    if (durationUs < 1000)
        return QStringLiteral("%1 µs").arg(durationUs);
    if (durationUs < 1'000'000)
        return QStringLiteral("%1 ms").arg(double(durationUs) / 1000.0, 0, 'f', durationUs < 10'000 ? 2 : 1);
    return QStringLiteral("%1 s").arg(double(durationUs) / 1e6, 0, 'f', 2);
}

QString formatTiming(const ToolCall& call)
{
    if (call.durationUs < 0 || call.waitedUs <= 0)
        return formatDuration(call.durationUs);
    return QStringLiteral("waited %1, ran %2").arg(formatDuration(call.waitedUs), formatDuration(call.ranUs()));
}

QString formatLocalTime(qint64 epochMs, const QString& format)
{
    thread_local qint64 offsetMs = 0;
    thread_local qint64 offsetCheckedAtMs = 0;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (offsetCheckedAtMs == 0 || now - offsetCheckedAtMs > 60'000) {
        offsetMs = qint64(QDateTime::currentDateTime().offsetFromUtc()) * 1000;
        offsetCheckedAtMs = now;
    }
    return QDateTime::fromMSecsSinceEpoch(epochMs + offsetMs, QTimeZone::utc()).toString(format);
}

QString formatTimeOrDate(qint64 epochMs)
{
    if (epochMs <= 0)
        return {};
    const bool today = QDateTime::fromMSecsSinceEpoch(epochMs).date() == QDate::currentDate();
    return formatLocalTime(epochMs, today ? QStringLiteral("HH:mm:ss") : QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString clientLabel(const ToolCall& call)
{
    return call.clientVersion.isEmpty() ? call.clientName : call.clientName + QLatin1Char(' ') + call.clientVersion;
}

QVariant data(const ToolCall& call, int column, int role)
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case TimeColumn:
            return formatLocalTime(call.startedAtMs, QStringLiteral("HH:mm:ss.zzz"));
        case ClientColumn:
            return clientLabel(call);
        case ToolColumn:
            return call.tool;
        case RouteColumn:
            return call.route.toString();
        case StatusColumn:
            return callStatusLabel(call.status);
        case DurationColumn:
            return formatTiming(call);
        case BackendColumn:
            return call.backend;
        }
        break;
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return StatusColours::forApplication().icon(call.status);
        break;
    case Qt::ToolTipRole:
        switch (column) {
        case TimeColumn:
            return QDateTime::fromMSecsSinceEpoch(call.startedAtMs).toString(Qt::ISODateWithMs);
        case ClientColumn:
            return QStringLiteral("session %1").arg(call.sessionId);
        case DurationColumn:
            if (call.durationUs >= 0 && call.waitedUs > 0)
                return QStringLiteral("%1 in all: %2 waiting for a person at the console, %3 running")
                    .arg(formatDuration(call.durationUs), formatDuration(call.waitedUs), formatDuration(call.ranUs()));
            break;
        case StatusColumn:
            // The status's name (as history and the headless log write it), what it means, and why.
            return QString(callStatusName(call.status) + QStringLiteral(": ") + callStatusDescription(call.status)
                + (call.error.isEmpty() ? QString() : QLatin1Char('\n') + call.error));
        }
        break;
    case Qt::ForegroundRole:
        if (column == StatusColumn)
            return StatusColours::forApplication().text(call.status);
        break;
    case Qt::BackgroundRole:
        // The whole row, so a failure stands out across the log and not only in its status cell.
        return StatusColours::forApplication().tint(call.status);
    case Qt::TextAlignmentRole:
        if (column == DurationColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        switch (column) {
        case TimeColumn:
            return call.id;
        case DurationColumn:
            return call.durationUs;
        case StatusColumn:
            return int(call.status);
        default:
            return data(call, column, Qt::DisplayRole);
        }
    case CallIdRole:
        return call.id;
    case StatusRole:
        return int(call.status);
    case CallRole:
        return QVariant::fromValue(call);
    }
    return {};
}

QVariant headerData(int section, Qt::Orientation orientation, int role)
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return QStringLiteral("Time");
    case ClientColumn:
        return QStringLiteral("Client");
    case ToolColumn:
        return QStringLiteral("Tool");
    case RouteColumn:
        return QStringLiteral("Route");
    case StatusColumn:
        return QStringLiteral("Status");
    case DurationColumn:
        return QStringLiteral("Duration");
    case BackendColumn:
        return QStringLiteral("Backend");
    }
    return {};
}

} // namespace CallColumns
