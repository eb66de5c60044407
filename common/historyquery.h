#pragma once

// HistoryQuery: one page of a search through stored calls, newest first.

#include "callsearch.h"
#include "toolcall.h"

#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

struct HistoryQuery
{
    // The calls wanted, matched as the live log's filter matches them (CallSearch): a search finds
    // in history exactly what the same filter shows in the log.
    CallSearch search;
    qint64 beforeId = 0; // only calls older than this id; 0 for the newest
    qint64 callId = 0; // only the call with this id (the inspector's whole call); 0 for any
    int limit = 200;
    // > 0: request and response come cut to this many bytes, and ToolCall::wholeRequestBytes and
    // wholeResponseBytes say how long the cut ones are, so a page of large calls costs a page of
    // previews (the whole call is one query by callId away). 0: whole bodies, as far as history
    // keeps them (a call it keeps only the start of says so the same way).
    qsizetype bodyPreviewBytes = 0;

    // {"words": [...], "statuses": ["ok", ...], "adapter", "tools": [...], "clients": [...], "beforeId",
    // "callId", "limit", "bodyPreviewBytes"}, every member optional when read; fromJson refuses
    // anything else, and a limit outside 1..1000, saying why.
    nlohmann::json toJson() const;
    static std::optional<HistoryQuery> fromJson(const nlohmann::json& value, QString* problem);
};

Q_DECLARE_METATYPE(HistoryQuery)
