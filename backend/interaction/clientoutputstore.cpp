#include "interaction/clientoutputstore.h"

#include "interaction/statejsonreader.h"

using nlohmann::json;

void ClientOutputStore::push(const QString& key, Entry entry)
{
    m_entries[key].push_back(std::move(entry));
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
    if (it->second.empty())
        m_entries.erase(it);
    return entry;
}

int ClientOutputStore::count(const QString& key) const
{
    const auto it = m_entries.find(key);
    return it == m_entries.end() ? 0 : int(it->second.size());
}

int ClientOutputStore::size() const
{
    int total = 0;
    for (const auto& [key, queue] : m_entries)
        total += int(queue.size());
    return total;
}

bool ClientOutputStore::remove(const QString& key)
{
    return m_entries.erase(key) > 0;
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
    m_entries.clear();
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
            m_entries.clear();
            return false;
        }
        for (std::size_t at = 0; at < outputs->size(); ++at) {
            StateJsonReader reader(outputs->at(at), where + QStringLiteral(".outputs[%1]").arg(at), problem);
            Entry entry;
            reader.keys({"output", "interactionId", "answeredAtMs"})
                .string("output", &entry.output)
                .string("interactionId", &entry.interactionId)
                .integer("answeredAtMs", &entry.answeredAtMs);
            if (reader.ok() && !json::accept(entry.output.begin(), entry.output.end()))
                reader.fail(QStringLiteral("\"output\" is not JSON"));
            if (!reader.ok()) {
                m_entries.clear();
                return false;
            }
            push(key, std::move(entry));
        }
    }
    return true;
}
