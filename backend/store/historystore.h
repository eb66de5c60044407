#pragma once

// HistoryStore: one connection to the call history in SQLite (WAL). The HistoryWriter owns one on
// its thread and writes through it; searches (the History dialog) run on another thread with a
// connection of their own, so a slow search never delays a write. The database file and its WAL
// and shared-memory files are owner-only (0600), whatever the umask.

#include "historyquery.h"
#include "toolcall.h"

#include <QObject>
#include <QSqlDatabase>
#include <QSqlQuery>

#include <optional>

class HistoryStore : public QObject
{
    Q_OBJECT
public:
    enum class Role {
        Writer, // creates the schema, marks calls a killed process left running as interrupted
        Reader, // searches only; opened after the writer
    };

    explicit HistoryStore(QString databasePath, QObject* parent = nullptr);
    ~HistoryStore() override;

    // Opens (creating if needed) the database. Call on the thread that uses the store.
    bool open(QString* error, Role role = Role::Writer);
    qint64 lastCallId() const { return m_lastCallId; }
    // Calls left out of history because the disk failed, over the database's whole life.
    qint64 callsLeftOut() const { return m_callsLeftOut; }
    QString databasePath() const { return m_path; }

    void setMaxCalls(qint64 maxCalls) { m_maxCalls = maxCalls; }
    // Caps the database file at `pages` pages (SQLite's max_page_count), so tests can make SQLite
    // answer "database or disk is full" for real without filling a disk. 0 lifts the cap.
    bool limitDatabasePages(qint64 pages);

    // One transaction: inserts or replaces each call (a call is recorded when it starts and again
    // when it ends) and adds `leftOut` to the persisted count of calls left out. All or nothing.
    bool write(const ToolCallList& calls, qint64 leftOut, QString* error);

    // Makes `path` (the database) and its -wal and -shm files owner-only, creating the database
    // file empty if it does not exist, so SQLite (which gives its -wal and -shm files the
    // database's mode) never creates anything others can read.
    static bool makeOwnerOnly(const QString& path, QString* error);

public Q_SLOTS:
    // Emits queryFinished(requestId, …) with the newest `limit` calls, oldest first; with
    // `bodyPreviewBytes` > 0, their bodies cut as HistoryQuery::bodyPreviewBytes says.
    void loadRecent(quint64 requestId, int limit, qsizetype bodyPreviewBytes = 0);
    // Emits queryFinished(requestId, …) with one page of matches, newest first.
    void query(quint64 requestId, const HistoryQuery& query);

Q_SIGNALS:
    void queryFinished(quint64 requestId, const ToolCallList& calls, bool hasMore);

private:
    void prune();
    ToolCallList runSelect(const QString& sql, const QVariantList& bindings, qsizetype previewBytes);

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    std::optional<QSqlQuery> m_insert; // prepared once, bound per call
    qint64 m_lastCallId = 0;
    qint64 m_callsLeftOut = 0;
    qint64 m_maxCalls = 500'000;
    qint64 m_writtenSincePrune = 0;
};
