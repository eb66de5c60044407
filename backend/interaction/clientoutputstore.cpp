#include "interaction/clientoutputstore.h"

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

void ClientOutputStore::fromJson(const json& value, int* skipped)
{
    m_entries.clear();
    if (!value.is_array())
        return;
    for (const json& item : value) {
        const auto key = item.is_object() ? item.find("key") : item.end();
        const auto outputs = item.is_object() ? item.find("outputs") : item.end();
        if (key == item.end() || !key->is_string() || outputs == item.end() || !outputs->is_array()) {
            ++*skipped;
            continue;
        }
        for (const json& output : *outputs) {
            if (!output.is_object() || !output.contains("output") || !output.at("output").is_string()
                || !json::accept(output.at("output").get<std::string>())) {
                ++*skipped;
                continue;
            }
            Entry entry;
            entry.output = QByteArray::fromStdString(output.at("output").get<std::string>());
            entry.interactionId = QString::fromStdString(output.value("interactionId", std::string()));
            entry.answeredAtMs = output.value("answeredAtMs", qint64(0));
            push(QString::fromStdString(key->get<std::string>()), std::move(entry));
        }
    }
}
