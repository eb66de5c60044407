#pragma once

// NdjsonCallReader: reads calls written as NDJSON (CallExportWriter: one ToolCall::toJson() per
// line) back, for a read-only view. Bounded: a file over MaxFileBytes is refused before anything is
// read, a line over MaxLineBytes is skipped without being held, and reading stops after MaxCalls
// calls. A line that is not a call is reported with its number and why; blank lines are ignored.

#include "toolcall.h"

#include <QStringList>

class QIODevice;

class NdjsonCallReader
{
public:
    static constexpr qint64 MaxFileBytes = qint64(256) * 1024 * 1024;
    static constexpr qint64 MaxLineBytes = qint64(64) * 1024 * 1024;
    static constexpr int MaxCalls = 100'000;
    // Problems listed one by one; beyond this only counted.
    static constexpr int MaxListedProblems = 20;

    struct Result
    {
        ToolCallList calls;
        QStringList problems; // "line 7: …", at most MaxListedProblems
        int badLines = 0; // every line that was not a call
        bool stoppedAtMaxCalls = false;
        QString fatal; // the file could not be read at all (too big, unreadable); calls are then empty
    };

    // Reads from `device` (open for reading). `maxFileBytes` and the others default to the limits
    // above; tests pass smaller ones.
    static Result read(QIODevice* device, qint64 maxFileBytes = MaxFileBytes, qint64 maxLineBytes = MaxLineBytes,
        int maxCalls = MaxCalls);
    static Result readFile(const QString& path);

    // What a person reads about the result: how many calls, the problems, what was left out.
    static QString summary(const Result& result);
};
