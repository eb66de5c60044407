#pragma once

// CallColumns: how one ToolCall appears as a row (time, client, tool, route, status, duration), for
// the live call log and the history browser alike.

#include "toolcall.h"

#include <QVariant>

namespace CallColumns {

enum Columns {
    TimeColumn,
    ClientColumn,
    ToolColumn,
    RouteColumn,
    StatusColumn,
    DurationColumn,
    // The backend the call ran on: shown only while the window holds several (MainWindow).
    BackendColumn,
    NumColumns,
};

QVariant data(const ToolCall& call, int column, int role);
QVariant headerData(int section, Qt::Orientation orientation, int role);
QString formatDuration(qint64 durationUs);
// A finished call's time as a person reads it: its duration, or, when it waited for a person,
// "waited 21.0 s, ran 3.00 ms" (so the time a person took is never read as the tool's latency).
QString formatTiming(const ToolCall& call);
// Local wall-clock time of an epoch time, formatted with `format` (QDateTime formats). The UTC
// offset is looked up at most once a minute: asking the time zone for every row of a fast log
// re-reads the zone file each time.
QString formatLocalTime(qint64 epochMs, const QString& format);
// A moment for a column or a sentence: today's only by the time ("14:03:07"), older ones with the
// day ("2026-11-20 09:15"); empty for 0 (never).
QString formatTimeOrDate(qint64 epochMs);
QString clientLabel(const ToolCall& call);

} // namespace CallColumns
