#pragma once

// HeadlessReporter: the console without a window: one line on stdout per finished call.

#include "tools/toolcall.h"

#include <QObject>

class HeadlessReporter : public QObject
{
    Q_OBJECT
public:
    explicit HeadlessReporter(QObject* parent = nullptr);

    // One line: local time, call id, status, tool, route, duration, client, error.
    static QByteArray formatLine(const ToolCall& call, qint64 utcOffsetMs);

public Q_SLOTS:
    void report(const ToolCallList& calls);
};
