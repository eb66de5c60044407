#include "store/historystore.h"

#include "store/sqlitehistory.h"

HistoryStore::HistoryStore(QString databasePath, QObject* parent)
    : HistoryStore(std::make_unique<SqliteHistory>(std::move(databasePath)), parent)
{}

HistoryStore::HistoryStore(std::unique_ptr<HistoryDatabase> database, QObject* parent)
    : QObject(parent)
    , m_database(std::move(database))
{
    qRegisterMetaType<ToolCallList>();
    qRegisterMetaType<HistoryQuery>();
}

HistoryStore::~HistoryStore() = default;

void HistoryStore::loadRecent(quint64 requestId, int limit, qsizetype bodyPreviewBytes)
{
    HistoryDatabase::Page page = m_database->loadRecent(limit, bodyPreviewBytes);
    Q_EMIT queryFinished(requestId, page.calls, page.hasMore);
}

void HistoryStore::query(quint64 requestId, const HistoryQuery& query)
{
    HistoryDatabase::Page page = m_database->query(query);
    Q_EMIT queryFinished(requestId, page.calls, page.hasMore);
}

void HistoryStore::count(quint64 requestId, const HistoryQuery& query)
{
    Q_EMIT countFinished(requestId, m_database->count(query));
}
