#pragma once

// HistoryFeed: the server thread's side of history. Hands every call's record to the
// HistoryWriter at once as the call starts, changes and ends — the finished record in the same
// turn of the event loop as the response is written — and is the gate of back-pressure: while the
// writer's queue is full, sessions hold new calls (unread, unrun) and the feed resumes them, oldest
// first, when the writer has room again. Nothing is dropped and the server thread never blocks.
// Lives on the backend thread.

#include "toolcall.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

class BackendEvents;
class HistoryWriter;

class HistoryFeed : public QObject
{
    Q_OBJECT
public:
    HistoryFeed(HistoryWriter* writer, BackendEvents* events, QObject* parent = nullptr);

    // False while history's queue is full: new calls wait.
    bool hasRoom() const;
    // Runs `resume` on this thread once history has room, in the order asked, unless `context` is
    // gone by then. `resume` may ask again (when room ran out while it resumed).
    void whenRoom(QObject* context, std::function<void()> resume);
    qsizetype waiting() const { return m_waiting.size(); }

    static constexpr int NoticeIntervalMs = 60'000;

Q_SIGNALS:
    // Calls began to wait for history (at most once a minute), and stopped waiting.
    void callsHeld();
    void callsResumed();

private:
    void resumeWaiting();

    struct Waiter
    {
        QPointer<QObject> context;
        std::function<void()> resume;
    };

    HistoryWriter* m_writer;
    QList<Waiter> m_waiting;
    bool m_resuming = false;
    bool m_held = false;
    bool m_noticeGiven = false;
    QElapsedTimer m_lastNotice;
};
