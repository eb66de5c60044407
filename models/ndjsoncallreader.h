#pragma once

// NdjsonCallReader: reads calls written as NDJSON (CallExportWriter: one ToolCall::toJson() per
// line) back, for a read-only view. Bounded: a file over MaxFileBytes is refused before anything is
// read, a line over MaxLineBytes is skipped without being held, and reading stops after MaxCalls
// calls. A line that is not a call is reported with its number and why; blank lines are ignored.
// Meant for a worker thread: a Control tells how far it got and stops it (the GUI never waits on a
// 256 MiB file).

#include "toolcall.h"

#include <QStringList>

#include <atomic>

class QIODevice;

class NdjsonCallReader
{
public:
    static constexpr qint64 MaxFileBytes = qint64(256) * 1024 * 1024;
    static constexpr qint64 MaxLineBytes = qint64(64) * 1024 * 1024;
    static constexpr int MaxCalls = 100'000;
    // Problems listed one by one; beyond this only counted.
    static constexpr int MaxListedProblems = 20;

    // Shared with the thread that reads: it stores how far it got; stop asks it to give up.
    struct Control
    {
        std::atomic<bool> stop{false};
        std::atomic<qint64> bytesRead{0};
    };

    struct Result
    {
        ToolCallList calls;
        QStringList problems; // "line 7: …", at most MaxListedProblems
        int badLines = 0; // every line that was not a call
        bool stoppedAtMaxCalls = false;
        QString fatal; // the file could not be read at all (too big, unreadable); calls are then empty
        bool cancelled = false; // Control::stop asked it to stop; calls are then empty
    };

    // Reads from `device` (open for reading). `maxFileBytes` and the others default to the limits
    // above; tests pass smaller ones.
    static Result read(QIODevice* device, qint64 maxFileBytes = MaxFileBytes, qint64 maxLineBytes = MaxLineBytes,
        int maxCalls = MaxCalls, Control* control = nullptr);
    static Result readFile(const QString& path, Control* control = nullptr);

    // What a person reads about the result: how many calls, the problems, what was left out.
    static QString summary(const Result& result);
};
