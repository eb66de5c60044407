#pragma once

// JsonlSink: a sink of type `jsonl`: `append` adds one record (a JSON object) as one line of
// compact JSON to the configured file. The line goes out in a single write() on a descriptor opened
// with O_APPEND, so appends from any number of calls (and processes) never interleave; with
// `add_timestamp` the record gets "ts", the time it was appended (UTC, ISO 8601 with milliseconds).
//
// With `max_file_bytes`, a file that the next line would take past it is first renamed to
// `<path>.1` (replacing the previous one). Rotation is serialized inside this process only; two
// processes rotating the same file may lose a `.1`, never a line of the current file.

#include "sinks/sink.h"

#include <mutex>

class JsonlSink : public Sink
{
public:
    using Sink::Sink;

    std::vector<SinkOperation> operations() const override;
    qint64 deadlineMs() const override { return 60'000; }
    ToolResult run(const QString& operation, ToolCallContext& context) const override;

private:
    // Renames the file to <path>.1 when `incoming` more bytes would take it past max_file_bytes.
    // Returns false with `error` when that fails.
    bool rotateIfFull(qint64 incoming, bool* rotated, QString* error) const;

    mutable std::mutex m_rotation; // held across rotate-and-append when max_file_bytes is set
};
