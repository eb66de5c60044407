#pragma once

// BackendEvents: what happens in the backend, published as value types. Lives on the backend
// thread.
//
// callStarted/callChanged/callFinished fire at once, for listeners on the backend thread (history
// takes every record from them, so a kill cannot catch an answered call in a batch timer).
// Listeners on other threads (models, the headless log) connect to callsUpdated instead: bursts are
// coalesced into one batch a few dozen times a second, each call appearing once with its newest state, so
// thousands of calls per second cost a few dozen queued events, not thousands.

#include "tools/toolcall.h"

#include <QBasicTimer>
#include <QHash>
#include <QObject>

class BackendEvents : public QObject
{
    Q_OBJECT
public:
    explicit BackendEvents(QObject* parent = nullptr);

    void publishCallStarted(const ToolCall& call);
    void publishCallFinished(const ToolCall& call);
    // A call changed without finishing (it paused, or resumed after a person answered).
    void publishCallChanged(const ToolCall& call);

    // Emits the pending batch now (shutdown, tests).
    void flush();

    static constexpr int BatchIntervalMs = 40;

Q_SIGNALS:
    void callStarted(const ToolCall& call);
    void callFinished(const ToolCall& call);
    void callChanged(const ToolCall& call);
    // The newest state of every call that started or changed since the previous batch, in the order
    // the calls started.
    void callsUpdated(const ToolCallList& calls);

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    void queue(const ToolCall& call);

    ToolCallList m_pending;
    QHash<qint64, qsizetype> m_pendingIndex; // call id → index in m_pending
    QBasicTimer m_batchTimer;
};
