#pragma once

// HeadlessReporter: the console without a window: one line on stdout per finished call.

#include "tools/toolcall.h"

#include <QObject>

class HeadlessReporter : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    static QByteArray formatLine(const ToolCall& call);

public Q_SLOTS:
    void report(const ToolCallList& calls);
};
