#include "store/clientoutputstore.h"

#include "boundedjson.h"
#include "statejsonreader.h"
#include "store/oldestfront.h"

using nlohmann::json;

qint64 ClientOutputStore::bytesOf(const QString& key, const Entry& entry)
{
    return entry.output.size() + 2 * (key.size() + entry.interactionId.size());
}

int ClientOutputStore::push(const QString& key, Entry entry)
{
    m_bytes += bytesOf(key, entry);
    ++m_count;
    m_entries[key].push_back(std::move(entry));
    int dropped = 0;
    while (m_count > 1 && (m_count > MaxEntries || m_bytes > MaxBytes)) {
        dropOldest();
        ++dropped;
    }
    return dropped;
}

void ClientOutputStore::dropOldest()
{
    const auto oldest = queueWithOldestFront(m_entries, [](const Entry& entry) { return entry.answeredAtMs; });
    if (oldest != m_entries.end())
        take(oldest->first);
}

void ClientOutputStore::clear()
{
    m_entries.clear();
    m_count = 0;
    m_bytes = 0;
}

std::optional<ClientOutputStore::Entry> ClientOutputStore::peek(const QString& key) const
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end() || it->second.empty())
        return std::nullopt;
    return it->second.front();
}

std::optional<ClientOutputStore::Entry> ClientOutputStore::take(const QString& key)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end() || it->second.empty())
        return std::nullopt;
    Entry entry = std::move(it->second.front());
    it->second.pop_front();
    --m_count;
    m_bytes -= bytesOf(key, entry);
    if (it->second.empty())
        m_entries.erase(it);
    return entry;
}

int ClientOutputStore::count(const QString& key) const
{
    const auto it = m_entries.find(key);
    return it == m_entries.end() ? 0 : int(it->second.size());
}

bool ClientOutputStore::remove(const QString& key)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return false;
    for (const Entry& entry : it->second)
        m_bytes -= bytesOf(key, entry);
    m_count -= int(it->second.size());
    m_entries.erase(it);
    return true;
}

json ClientOutputStore::toJson() const
{
    json list = json::array();
    for (const auto& [key, queue] : m_entries) {
        json outputs = json::array();
        for (const Entry& entry : queue) {
            outputs.push_back(json{{"output", entry.output.toStdString()},
                {"interactionId", entry.interactionId.toStdString()}, {"answeredAtMs", entry.answeredAtMs}});
        }
        list.push_back(json{{"key", key.toStdString()}, {"outputs", std::move(outputs)}});
    }
    return list;
}

bool ClientOutputStore::fromJson(const json& value, QString* problem)
{
    clear();
    if (!value.is_array()) {
        *problem = QStringLiteral("clientOutputs is not an array");
        return false;
    }
    for (std::size_t index = 0; index < value.size(); ++index) {
        const QString where = QStringLiteral("clientOutputs[%1]").arg(index);
        StateJsonReader item(value.at(index), where, problem);
        QString key;
        item.keys({"key", "outputs"}).string("key", &key);
        const json* outputs = item.array("outputs");
        if (!item.ok()) {
            clear();
            return false;
        }
        for (std::size_t at = 0; at < outputs->size(); ++at) {
            StateJsonReader reader(outputs->at(at), where + QStringLiteral(".outputs[%1]").arg(at), problem);
            Entry entry;
            reader.keys({"output", "interactionId", "answeredAtMs"})
                .string("output", &entry.output)
                .string("interactionId", &entry.interactionId)
                .integer("answeredAtMs", &entry.answeredAtMs);
            if (reader.ok()) {
                if (const std::string why = BoundedJson::refusal(entry.output, BoundedJson::Limits::record());
                    !why.empty())
                    reader.fail(QStringLiteral("\"output\" is not JSON (%1)").arg(QString::fromStdString(why)));
            }
            if (!reader.ok()) {
                clear();
                return false;
            }
            push(key, std::move(entry));
        }
    }
    return true;
}
