#include "store/callidsource.h"

#include "store/historydatabase.h"
#include "store/historywriter.h"

#include <QtGlobal>

CallIdSource::CallIdSource(HistoryWriter* writer, qint64 blockSize)
    : m_writer(writer)
    , m_blockSize(qMax<qint64>(2, blockSize))
{}

bool CallIdSource::start(QString* error)
{
    qint64 first = 0;
    if (!m_writer->reserveCallIds(m_blockSize, &first, error))
        return false;
    m_next = first;
    m_end = first + m_blockSize;
    return true;
}

void CallIdSource::reserveAhead()
{
    {
        const std::lock_guard lock(m_shared->mutex);
        if (m_shared->reserving || m_shared->nextBlock)
            return;
        m_shared->reserving = true;
    }
    m_writer->reserveCallIdsLater(m_blockSize, [shared = m_shared](bool ok, qint64 first, const QString& error) {
        const std::lock_guard lock(shared->mutex);
        shared->reserving = false;
        if (ok)
            shared->nextBlock = first;
        else
            shared->lastError = error;
    });
}

qint64 CallIdSource::next()
{
    if (m_end - m_next <= m_blockSize / 2)
        reserveAhead();
    if (m_next >= m_end) {
        const auto takeBlock = [this] {
            const std::lock_guard lock(m_shared->mutex);
            return std::exchange(m_shared->nextBlock, std::nullopt);
        };
        std::optional<qint64> block = takeBlock();
        if (!block) {
            // A reservation ahead may still be on its way: the writer runs tasks in order, so once an
            // empty one has run, it has answered. Taking it keeps ids growing (a block reserved now
            // would come after it, and it would be used later, out of order).
            m_writer->runOnWriterThread([](HistoryDatabase&) {});
            block = takeBlock();
        }
        qint64 first = 0;
        QString error;
        if (block) {
            first = *block;
        } else if (!m_writer->reserveCallIds(m_blockSize, &first, &error)) {
            // History cannot be written (a failed disk): ids go on from the block just used. They
            // stay unique in this process and increasing; another writer of the same history could
            // only repeat them while the database refuses every write, when no call is kept anyway.
            qWarning("switchboard: cannot reserve call ids in history (%s); continuing after %lld", qPrintable(error),
                static_cast<long long>(m_end - 1));
            first = m_end;
        }
        m_next = first;
        m_end = first + m_blockSize;
    }
    return m_next++;
}
