#include "store/historyfeed.h"

#include "store/historystore.h"

HistoryFeed::HistoryFeed(HistoryStore* store, qint64 maxBacklog, QObject* parent)
    : QObject(parent)
    , m_store(store)
    , m_maxBacklog(maxBacklog)
{}

void HistoryFeed::feed(const ToolCallList& calls)
{
    HistoryStore* store = m_store.data();
    if (!store || calls.isEmpty())
        return;
    const qint64 queued = m_backlog->load();
    if (m_behind && queued <= m_maxBacklog / 2) {
        m_behind = false;
        Q_EMIT caughtUp(
            QStringLiteral("History has caught up; %1 calls made while it was behind are not in it.").arg(m_leftOut));
    }
    if (queued + calls.size() > m_maxBacklog) {
        m_leftOut += calls.size();
        if (!m_behind) {
            m_behind = true;
            Q_EMIT fellBehind(QStringLiteral("History is %1 calls behind; calls are left out of history until it "
                                             "catches up (they still show in the call log).")
                                  .arg(queued));
        }
        return;
    }
    m_backlog->fetch_add(calls.size());
    QMetaObject::invokeMethod(store, [store, calls, backlog = m_backlog] {
        store->record(calls);
        backlog->fetch_sub(calls.size());
    });
}
