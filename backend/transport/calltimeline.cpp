#include "transport/calltimeline.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

void CallTimeline::record(qint64 atMs, const json& notification)
{
    json entry{{"atMs", atMs}, {"method", notification.value("method", std::string())}};
    if (const auto params = notification.find("params"); params != notification.end())
        entry["params"] = *params;
    std::string text = entry.dump(-1, ' ', false, json::error_handler_t::replace);
    if (qsizetype(text.size()) > MaxEntryBytes) {
        const auto paramsBytes = qint64(entry.contains("params") ? entry["params"].dump().size() : 0);
        entry["params"] = json{{"omittedBytes", paramsBytes}};
        text = entry.dump();
    }
    const auto bytes = qsizetype(text.size());
    // Half of each limit for the first entries, the rest for the newest.
    if (m_omitted == 0 && m_tail.empty() && int(m_head.size()) < MaxEntries / 2
        && m_headBytes + bytes <= MaxBytes / 2) {
        m_headBytes += bytes;
        m_head.push_back(std::move(text));
        return;
    }
    m_tailBytes += bytes;
    m_tail.push_back(std::move(text));
    while (int(m_tail.size()) > MaxEntries - int(m_head.size()) || m_tailBytes > MaxBytes - m_headBytes) {
        m_tailBytes -= qsizetype(m_tail.front().size());
        m_tail.pop_front();
        ++m_omitted;
    }
}

QByteArray CallTimeline::toJson() const
{
    if (isEmpty())
        return {};
    QByteArray text = "[";
    const auto add = [&text](const std::string& entry) {
        if (text.size() > 1)
            text += ',';
        text += QByteArray::fromStdString(entry);
    };
    for (const std::string& entry : m_head)
        add(entry);
    if (m_omitted > 0)
        add(json{{"omitted", m_omitted}}.dump());
    for (const std::string& entry : m_tail)
        add(entry);
    text += ']';
    return text;
}
