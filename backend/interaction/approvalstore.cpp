#include "interaction/approvalstore.h"

#include <algorithm>

using nlohmann::json;

QStringList ApprovalStore::alwaysAllowed() const
{
    QStringList tools(m_alwaysAllowed.begin(), m_alwaysAllowed.end());
    std::sort(tools.begin(), tools.end());
    return tools;
}

bool ApprovalStore::isAllowedForSession(const QString& sessionId, const QString& tool) const
{
    const auto it = m_sessionGrants.find(sessionId);
    return it != m_sessionGrants.end() && it->second.contains(tool);
}

std::optional<ApprovalStore::Decision> ApprovalStore::takeDecision(const QString& key)
{
    const auto it = m_decisions.find(key);
    if (it == m_decisions.end() || it->second.empty())
        return std::nullopt;
    Decision decision = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty())
        m_decisions.erase(it);
    return decision;
}

int ApprovalStore::decisionCount() const
{
    int total = 0;
    for (const auto& [key, queue] : m_decisions)
        total += int(queue.size());
    return total;
}

json ApprovalStore::toJson() const
{
    json always = json::array();
    for (const QString& tool : alwaysAllowed())
        always.push_back(tool.toStdString());
    json decisions = json::array();
    for (const auto& [key, queue] : m_decisions) {
        json list = json::array();
        for (const Decision& decision : queue) {
            list.push_back(json{{"allow", decision.allow}, {"reason", decision.reason.toStdString()},
                {"interactionId", decision.interactionId.toStdString()}});
        }
        decisions.push_back(json{{"key", key.toStdString()}, {"decisions", std::move(list)}});
    }
    return json{{"alwaysAllow", std::move(always)}, {"decisions", std::move(decisions)}};
}

void ApprovalStore::fromJson(const json& value, int* skipped)
{
    m_alwaysAllowed.clear();
    m_decisions.clear();
    if (!value.is_object())
        return;
    if (const auto always = value.find("alwaysAllow"); always != value.end() && always->is_array()) {
        for (const json& tool : *always) {
            if (tool.is_string())
                m_alwaysAllowed.insert(QString::fromStdString(tool.get<std::string>()));
            else
                ++*skipped;
        }
    }
    if (const auto decisions = value.find("decisions"); decisions != value.end() && decisions->is_array()) {
        for (const json& item : *decisions) {
            if (!item.is_object() || !item.contains("key") || !item.at("key").is_string() || !item.contains("decisions")
                || !item.at("decisions").is_array()) {
                ++*skipped;
                continue;
            }
            const QString key = QString::fromStdString(item.at("key").get<std::string>());
            for (const json& decision : item.at("decisions")) {
                if (!decision.is_object() || !decision.contains("allow") || !decision.at("allow").is_boolean()) {
                    ++*skipped;
                    continue;
                }
                pushDecision(key,
                    Decision{decision.at("allow").get<bool>(),
                        QString::fromStdString(decision.value("reason", std::string())),
                        QString::fromStdString(decision.value("interactionId", std::string()))});
            }
        }
    }
}
