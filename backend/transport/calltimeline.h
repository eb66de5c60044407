#pragma once

// CallTimeline: the notifications the server sent a client about one call while it ran
// (notifications/progress and notifications/message), each with the milliseconds since the call
// started, for ToolCall::timeline. Bounded, since a tool may report progress for hours: the first
// and the last entries are kept (MaxEntries in all, within MaxBytes) and a marker in between,
// {"omitted": N}, says how many were left out; an entry larger than MaxEntryBytes keeps its method
// and time and says how large its params were.

#include <QByteArray>

#include <nlohmann/json_fwd.hpp>

#include <deque>
#include <string>
#include <vector>

class CallTimeline
{
public:
    static constexpr int MaxEntries = 200;
    static constexpr qsizetype MaxBytes = 64 * 1024;
    static constexpr qsizetype MaxEntryBytes = 4 * 1024;

    // `notification` is the JSON-RPC notification as sent; `atMs` the time since the call started.
    void record(qint64 atMs, const nlohmann::json& notification);
    bool isEmpty() const { return m_head.empty() && m_tail.empty(); }
    qint64 omitted() const { return m_omitted; }
    // The compact JSON array; empty when nothing was recorded.
    QByteArray toJson() const;

private:
    // Entries as compact JSON text; the head fills first, then the tail keeps the newest.
    std::vector<std::string> m_head;
    std::deque<std::string> m_tail;
    qsizetype m_headBytes = 0;
    qsizetype m_tailBytes = 0;
    qint64 m_omitted = 0;
};
