#pragma once

// HistoryStore: every call record appended to SQLite (WAL), on its own thread, so that the console
// shows earlier calls after a restart and older calls stay reachable after they leave the bounded
// in-memory log. Writes are batched into transactions; a failed write (a full disk) keeps the batch
// and retries, and says so once through writeFailed.

#include "store/historyquery.h"
#include "tools/toolcall.h"

#include <QBasicTimer>
#include <QObject>
#include <QSqlDatabase>

class HistoryStore : public QObject
{
    Q_OBJECT
public:
    explicit HistoryStore(QString databasePath, QObject* parent = nullptr);
    ~HistoryStore() override;

    // Opens (creating if needed) the database; marks calls left running by a previous process as
    // interrupted. Call on the thread the store lives on.
    bool open(QString* error);
    qint64 lastCallId() const { return m_lastCallId; }
    QString databasePath() const { return m_path; }

    void setMaxCalls(qint64 maxCalls) { m_maxCalls = maxCalls; }
    // Caps the database file at `pages` pages (SQLite's max_page_count), so tests can make SQLite
    // answer "database or disk is full" for real without filling a disk. 0 lifts the cap.
    bool limitDatabasePages(qint64 pages);
    static constexpr int RetryIntervalMs = 5000;
    static constexpr int MaxRetainedOnFailure = 200'000;

public Q_SLOTS:
    // Inserts or updates each call (a call is recorded when it starts and again when it ends).
    void record(const ToolCallList& calls);
    // Emits queryFinished(requestId, …) with the newest `limit` calls, oldest first.
    void loadRecent(quint64 requestId, int limit);
    // Emits queryFinished(requestId, …) with one page of matches, newest first.
    void query(quint64 requestId, const HistoryQuery& query);
    // Writes anything still pending; called before the thread stops.
    void flush();

Q_SIGNALS:
    void queryFinished(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void writeFailed(const QString& error);
    void writeRecovered();

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    bool writePending(QString* error);
    void prune();
    ToolCallList runSelect(const QString& sql, const QVariantList& bindings);

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    qint64 m_lastCallId = 0;
    qint64 m_maxCalls = 500'000;
    qint64 m_writtenSincePrune = 0;
    ToolCallList m_pending;
    bool m_failing = false;
    QBasicTimer m_retryTimer;
};
