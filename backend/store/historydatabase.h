#pragma once

// HistoryDatabase: where the call history is kept, behind one interface, so another database
// (PostgreSQL, for several consoles sharing one history) can replace SQLite (SqliteHistory) without
// touching the writer, the searches or the server. Synchronous: every implementation is used from
// one thread at a time (the HistoryWriter's, or the searches' HistoryStore's).

#include "backendstates.h"
#include "historyquery.h"
#include "toolcall.h"

#include <QString>

#include <functional>
#include <memory>

class HistoryDatabase
{
public:
    enum class Role {
        Writer, // creates the schema, marks calls a killed process left running as interrupted
        Reader, // searches only; opened after a writer
    };
    struct Page
    {
        ToolCallList calls;
        bool hasMore = false;
    };

    virtual ~HistoryDatabase();

    virtual bool open(Role role, QString* error) = 0;
    // One transaction: inserts or replaces each call (a call is recorded when it starts and again
    // when it ends) and adds `leftOut` to the persisted count of calls left out. All or nothing.
    virtual bool write(const ToolCallList& calls, qint64 leftOut, QString* error) = 0;
    // Reserves `count` call ids, [*first, *first + count), that no writer of this history (in this
    // process or another, now or after a restart) is given again; ids grow from block to block.
    virtual bool reserveCallIds(qint64 count, qint64* first, QString* error) = 0;
    // The newest `limit` calls, oldest first; with `bodyPreviewBytes` > 0 their bodies cut as
    // HistoryQuery::bodyPreviewBytes says.
    virtual Page loadRecent(int limit, qsizetype bodyPreviewBytes) = 0;
    // One page of matches, newest first.
    virtual Page query(const HistoryQuery& query) = 0;
    // How many calls match `query` (its beforeId, callId and search; not its limit): -1 when the
    // history cannot be read.
    virtual qint64 count(const HistoryQuery& query) = 0;
    // Breaker transitions, kept beside the calls (each names the call that caused it, if one did);
    // the newest MaxTransitions are kept.
    static constexpr qint64 MaxTransitions = 10'000;
    virtual bool writeTransitions(const BreakerTransitionList& transitions, QString* error) = 0;
    // The newest `limit` transitions of `adapter` (every adapter when it is empty), oldest first.
    virtual BreakerTransitionList loadTransitions(const QString& adapter, int limit) = 0;
    // Calls left out of history because the disk failed, over the database's whole life.
    virtual qint64 callsLeftOut() const = 0;
    // The oldest calls this connection's writes removed (beyond maxCalls or maxBytes), over its life.
    virtual qint64 callsPruned() const = 0;
    virtual void setMaxCalls(qint64 maxCalls) = 0;
    // The most bytes the stored calls may hold together (their bodies and fields, as
    // HistoryWriter::keptPart left them); the oldest calls go beyond it, as beyond maxCalls.
    static constexpr qint64 DefaultMaxBytes = qint64(1) << 30;
    virtual void setMaxBytes(qint64 maxBytes) = 0;
    // Where the history is, for messages (a file path, a connection name).
    virtual QString location() const = 0;
};

// Makes the database a HistoryWriter or a HistoryStore uses, on the thread that will use it.
using HistoryDatabaseFactory = std::function<std::unique_ptr<HistoryDatabase>()>;
