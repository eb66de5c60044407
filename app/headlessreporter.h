#pragma once

// HeadlessReporter: the console without a window: one line on stdout per finished call (or call
// left paused), and one per question that waits for a person, so an operator sees that something
// needs the window.

#include "interaction/pendinginteraction.h"
#include "tools/toolcall.h"

#include <QObject>

class HeadlessReporter : public QObject
{
    Q_OBJECT
public:
    explicit HeadlessReporter(QObject* parent = nullptr);

    // One line: local time, call id, status, tool, route, duration, client, error.
    static QByteArray formatLine(const ToolCall& call, qint64 utcOffsetMs);

    static QByteArray formatQuestion(const PendingInteraction& interaction, const char* state);

public Q_SLOTS:
    void report(const ToolCallList& calls);
    void reportPending(const PendingInteraction& interaction);
    void reportRestored(const PendingInteractionList& interactions);
    void reportResolved(const QString& interactionId, const QString& outcome);
};
