#pragma once

// HistoryStore: a QObject face of any HistoryDatabase (SqliteHistory by default), for history
// searches on a thread of their own: each answer is a signal carrying the request id it answers, so
// the caller never waits.

#include "store/historydatabase.h"

#include <QObject>

#include <memory>

class HistoryStore : public QObject
{
    Q_OBJECT
public:
    using Role = HistoryDatabase::Role;

    // Searches the SQLite history at `databasePath`.
    explicit HistoryStore(QString databasePath, QObject* parent = nullptr);
    explicit HistoryStore(std::unique_ptr<HistoryDatabase> database, QObject* parent = nullptr);
    ~HistoryStore() override;

    // Opens the database. Call on the thread that uses the store.
    bool open(QString* error, Role role = Role::Writer) { return m_database->open(role, error); }
    bool write(const ToolCallList& calls, qint64 leftOut, QString* error)
    {
        return m_database->write(calls, leftOut, error);
    }
    void setMaxCalls(qint64 maxCalls) { m_database->setMaxCalls(maxCalls); }
    void setMaxBytes(qint64 maxBytes) { m_database->setMaxBytes(maxBytes); }
    qint64 callsLeftOut() const { return m_database->callsLeftOut(); }
    HistoryDatabase& database() { return *m_database; }

public Q_SLOTS:
    // Emits queryFinished(requestId, …) with the newest `limit` calls, oldest first; with
    // `bodyPreviewBytes` > 0, their bodies cut as HistoryQuery::bodyPreviewBytes says.
    void loadRecent(quint64 requestId, int limit, qsizetype bodyPreviewBytes = 0);
    // Emits queryFinished(requestId, …) with one page of matches, newest first.
    void query(quint64 requestId, const HistoryQuery& query);
    // Emits countFinished(requestId, …) with how many calls match (-1 when it cannot be read).
    void count(quint64 requestId, const HistoryQuery& query);

Q_SIGNALS:
    void queryFinished(quint64 requestId, const ToolCallList& calls, bool hasMore);
    void countFinished(quint64 requestId, qint64 count);

private:
    std::unique_ptr<HistoryDatabase> m_database;
};
