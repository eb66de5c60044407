#pragma once

// Roles shared by every model that shows calls, the questions that wait on them, the repositories
// the git tools work on, or the upstream adapters and their breakers.

#include <Qt>

enum Roles {
    SortRole = Qt::UserRole + 1,
    FilterRole, // lower-case text the filter proxies search
    CallIdRole,
    StatusRole, // int(CallStatus)
    CallRole, // the whole ToolCall
    InteractionIdRole, // PendingInteraction::id
    InteractionRole, // the whole PendingInteraction
    RepositoryPathRole, // RepositoryState::path, the key of a repository's row
    RepositoryRole, // the whole RepositoryState
    FilePathRole, // RepositoryFile::path, relative to the working tree
    CommitIdRole, // CommitSummary::id, the full hex id
    AdapterNameRole, // the upstream adapter's name, the key of its row
    HealthRole, // int(AdapterHealth): how an adapter, or a breaker phase, is doing, for the colour
    SessionIdRole, // SessionState::id, the key of a client session's row
    OriginRole, // int(CallLogModel::Origin): a live row, one kept past the live window, or from history
    GrantIdRole, // PermissionEntry::id: a grant's key; empty for a configuration rule
};
