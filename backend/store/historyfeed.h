#pragma once

// HistoryFeed: hands the backend's call batches to the HistoryStore on its thread, and keeps the
// queue between them bounded. The store runs at idle priority; when the machine is saturated for
// long, it falls behind. Past `maxBacklog` queued records the feed leaves batches out of history
// (saying so, once) rather than let memory grow without bound, and says so again when the store
// has caught up. Lives on the backend thread.

#include "tools/toolcall.h"

#include <QObject>
#include <QPointer>

#include <atomic>
#include <memory>

class HistoryStore;

class HistoryFeed : public QObject
{
    Q_OBJECT
public:
    HistoryFeed(HistoryStore* store, qint64 maxBacklog, QObject* parent = nullptr);

    qint64 backlog() const { return m_backlog->load(); }
    qint64 leftOut() const { return m_leftOut; }

public Q_SLOTS:
    void feed(const ToolCallList& calls);

Q_SIGNALS:
    void fellBehind(const QString& message);
    void caughtUp(const QString& message);

private:
    QPointer<HistoryStore> m_store;
    qint64 m_maxBacklog;
    std::shared_ptr<std::atomic<qint64>> m_backlog = std::make_shared<std::atomic<qint64>>(0);
    qint64 m_leftOut = 0;
    bool m_behind = false;
};
