#pragma once

// HeadlessReporter: the console without a window: one line on stdout per finished call (or call
// left paused), and one per question that waits for a person, so an operator sees that something
// needs the window.
//
// Lines go out through a queue bounded by bytes and a writer thread of its own, so a terminal or a
// pipe that does not keep up never holds up the thread that reports (the server thread hands call
// batches straight to report(), which copies the few fields a line needs; the writer formats them)
// and never makes memory grow: beyond the bound, lines are left out and counted, and the next line
// that fits is preceded by a line saying how many were left out. A reader that goes away (EPIPE)
// ends the output, not the process.

#include "pendinginteraction.h"
#include "renderhint.h"
#include "toolcall.h"

#include <QByteArray>
#include <QObject>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

class HeadlessReporter : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 DefaultMaxBufferedBytes = 4 * 1024 * 1024;
    // How long destruction waits for buffered lines to be written.
    static constexpr int DrainMs = 2'000;

    explicit HeadlessReporter(int fd = 1, qint64 maxBufferedBytes = DefaultMaxBufferedBytes, QObject* parent = nullptr);
    // Writes what is buffered (for at most DrainMs) and ends the writer thread.
    ~HeadlessReporter() override;

    // One line: local time, call id, status, tool, route, duration, client, error.
    static QByteArray formatLine(const ToolCall& call, qint64 utcOffsetMs);

    static QByteArray formatQuestion(const PendingInteraction& interaction, const char* state);

    // Lines left out because the output did not keep up, since the start.
    qint64 linesLeftOut() const;
    // Bytes waiting to be written (a call's line counted by an upper estimate until it is formatted),
    // including what the writer is writing now.
    qint64 bufferedBytes() const;

public Q_SLOTS:
    // Safe to call from any thread; never waits for the output.
    void report(const ToolCallList& calls);
    void reportPending(const PendingInteraction& interaction);
    void reportRestored(const PendingInteractionList& interactions);
    void reportResolved(const QString& interactionId, InteractionOutcome outcome);

private:
    // A line as text, or a call whose line the writer formats (its bodies dropped).
    struct Entry
    {
        QByteArray text;
        ToolCall call;
        bool isCall = false;
        qint64 bytes = 0; // what it counts against the bound
    };
    void append(Entry entry);
    void appendText(const QByteArray& text) { append({text, {}, false, text.size()}); }
    void writeLoop();
    // Writes all of `bytes`, or gives up (false) when the output is gone or, while stopping, the
    // drain deadline has passed.
    bool writeAll(const QByteArray& bytes);

    const int m_fd;
    const qint64 m_maxBufferedBytes;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Entry> m_queue;
    qint64 m_queuedBytes = 0;
    qint64 m_writing = 0; // bytes the writer took out of the queue and has not finished writing
    qint64 m_pendingLeftOut = 0; // not yet said on the output
    qint64 m_totalLeftOut = 0;
    bool m_stopping = false;
    bool m_broken = false; // the output is gone; nothing more is kept
    qint64 m_drainDeadlineMs = 0;
    std::thread m_writer;
};
