#pragma once

// HistoryQuery: one page of a search through stored calls, newest first.

#include "callsearch.h"
#include "toolcall.h"

#include <QMetaType>
#include <QString>

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
};

Q_DECLARE_METATYPE(HistoryQuery)
