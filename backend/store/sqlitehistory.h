#pragma once

// SqliteHistory: the call history in SQLite (WAL), one connection per object. The HistoryWriter owns
// one on its thread and writes through it; searches run on another thread with a connection of
// their own, so a slow search never delays a write. A writer marks its rows with the id of the
// WriterLock it holds while open, so that a writer opening later marks as interrupted only the
// running calls of writers that are gone, never those of another process running now. The database file and its WAL and
// shared-memory files are owner-only (0600), whatever the umask. Call ids come in blocks reserved in the database
// itself (BEGIN IMMEDIATE), so processes sharing the file never hand out the same id.

#include "store/historydatabase.h"
#include "store/writerlock.h"

#include <QSqlDatabase>
#include <QSqlQuery>

#include <optional>

class SqliteHistory : public HistoryDatabase
{
public:
    explicit SqliteHistory(QString databasePath);
    ~SqliteHistory() override;

    bool open(Role role, QString* error) override;
    bool write(const ToolCallList& calls, qint64 leftOut, QString* error) override;
    bool reserveCallIds(qint64 count, qint64* first, QString* error) override;
    Page loadRecent(int limit, qsizetype bodyPreviewBytes) override;
    Page query(const HistoryQuery& query) override;
    qint64 count(const HistoryQuery& query) override;
    bool writeTransitions(const BreakerTransitionList& transitions, QString* error) override;
    BreakerTransitionList loadTransitions(const QString& adapter, int limit) override;
    qint64 callsLeftOut() const override { return m_callsLeftOut; }
    qint64 callsPruned() const override { return m_callsPruned; }
    void setMaxCalls(qint64 maxCalls) override { m_maxCalls = maxCalls; }
    void setMaxBytes(qint64 maxBytes) override { m_maxBytes = maxBytes; }
    QString location() const override { return m_path; }

    // Caps the database file at `pages` pages (SQLite's max_page_count), so tests can make SQLite
    // answer "database or disk is full" for real without filling a disk. 0 lifts the cap.
    bool limitDatabasePages(qint64 pages);

    // Makes `path` (the database) and its -wal and -shm files owner-only, creating the database
    // file empty if it does not exist, so SQLite (which gives its -wal and -shm files the
    // database's mode) never creates anything others can read.
    static bool makeOwnerOnly(const QString& path, QString* error);

private:
    // Ends the transaction a statement of failed: false, with `error` saying what could not be done.
    bool rolledBack(const QString& doing, const QSqlQuery& failed, QString* error);
    // Creates the tables or adds what an older version's lack, one writer at a time.
    bool prepareSchema(QString* error);
    // Counts what a write added (in the database, for every process writing it) and prunes once
    // a bound may have been passed: the oldest calls beyond m_maxCalls (prune) and beyond
    // m_maxBytes (pruneBytes) go.
    void countWritten(qint64 calls, qint64 bytes);
    void prune();
    void pruneBytes();
    // Where the writers' locks are (WriterLock): `<database>-writers`.
    QString writersDirectory() const;
    bool markInterruptedCalls(QString* error);
    // The WHERE clause (empty, or starting with WHERE) of the calls `query` asks for, with its
    // bindings added to `bindings`.
    static QString whereFor(const HistoryQuery& query, QVariantList* bindings);
    ToolCallList runSelect(const QString& sql, const QVariantList& bindings, qsizetype previewBytes);

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    std::optional<QSqlQuery> m_insert; // prepared once, bound per call
    std::optional<WriterLock> m_writerLock; // a writer's, for as long as it is open
    qint64 m_callsLeftOut = 0;
    qint64 m_callsPruned = 0;
    qint64 m_maxCalls = 500'000;
    qint64 m_maxBytes = DefaultMaxBytes;
};
