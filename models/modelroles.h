#pragma once

// Roles shared by every model that shows calls or the questions that wait on them.

#include <Qt>

enum Roles {
    SortRole = Qt::UserRole + 1,
    FilterRole, // lower-case text the filter proxies search
    CallIdRole,
    StatusRole, // int(CallStatus)
    CallRole, // the whole ToolCall
    InteractionIdRole, // PendingInteraction::id
    InteractionRole, // the whole PendingInteraction
};
