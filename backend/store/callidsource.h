#pragma once

// CallIdSource: hands out call ids on the server thread from blocks reserved in history
// (HistoryDatabase::reserveCallIds), so ids never collide between writers of one history (the
// console, the one-shot runners) and keep growing across restarts. The next block is reserved on
// the writer thread while half of the current one is left, so next() does not wait; only when a
// block runs out before the next arrived does it wait for the writer.

#include <QString>

#include <memory>
#include <mutex>
#include <optional>

class HistoryWriter;

class CallIdSource
{
public:
    explicit CallIdSource(HistoryWriter* writer, qint64 blockSize = 65'536);

    // Reserves the first block (waits for the writer). Call once, after the writer started.
    bool start(QString* error);
    // The next id. One thread at a time (the server thread).
    qint64 next();

    qint64 blockSize() const { return m_blockSize; }

private:
    struct Shared
    {
        std::mutex mutex;
        std::optional<qint64> nextBlock; // the first id of a reserved block not used yet
        bool reserving = false;
        QString lastError;
    };

    void reserveAhead();

    HistoryWriter* m_writer;
    const qint64 m_blockSize;
    qint64 m_next = 0;
    qint64 m_end = 0; // one past the current block
    // Shared with the writer thread's reservations, which may answer after this object is gone.
    std::shared_ptr<Shared> m_shared = std::make_shared<Shared>();
};
