#pragma once

// CallColumns: how one ToolCall appears as a row (time, client, tool, route, status, duration), for
// the live call log and the history browser alike.

#include "tools/toolcall.h"

#include <QVariant>

namespace CallColumns {

enum Columns {
    TimeColumn,
    ClientColumn,
    ToolColumn,
    RouteColumn,
    StatusColumn,
    DurationColumn,
    NumColumns,
};

QVariant data(const ToolCall& call, int column, int role);
QVariant headerData(int section, Qt::Orientation orientation, int role);
QString formatDuration(qint64 durationUs);
QString clientLabel(const ToolCall& call);

} // namespace CallColumns
