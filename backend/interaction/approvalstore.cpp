#include "interaction/approvalstore.h"

#include "interaction/oldestfront.h"
#include "statejsonreader.h"

#include <algorithm>

using nlohmann::json;

QStringList ApprovalStore::alwaysAllowed() const
{
    QStringList tools(m_alwaysAllowed.begin(), m_alwaysAllowed.end());
    std::sort(tools.begin(), tools.end());
    return tools;
}

namespace {

QString grantFor(const QString& clientName, const QString& tool)
{
    return clientName + QChar(u'\0') + tool;
}

} // namespace

void ApprovalStore::allowForSession(const QString& sessionId, const QString& clientName, const QString& tool)
{
    m_sessionGrants[sessionId].insert(grantFor(clientName, tool));
}

bool ApprovalStore::isAllowedForSession(const QString& sessionId, const QString& clientName, const QString& tool) const
{
    const auto it = m_sessionGrants.find(sessionId);
    return it != m_sessionGrants.end() && it->second.contains(grantFor(clientName, tool));
}

int ApprovalStore::pushDecision(const QString& key, Decision decision)
{
    decision.sequence = m_nextSequence++;
    m_decisions[key].push_back(std::move(decision));
    ++m_decisionCount;
    int dropped = 0;
    while (m_decisionCount > MaxDecisions) {
        takeDecision(queueWithOldestFront(m_decisions, [](const Decision& stored) { return stored.sequence; })->first);
        ++dropped;
    }
    return dropped;
}

std::optional<ApprovalStore::Decision> ApprovalStore::takeDecision(const QString& key)
{
    const auto it = m_decisions.find(key);
    if (it == m_decisions.end() || it->second.empty())
        return std::nullopt;
    Decision decision = std::move(it->second.front());
    it->second.pop_front();
    --m_decisionCount;
    if (it->second.empty())
        m_decisions.erase(it);
    return decision;
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

bool ApprovalStore::fromJson(const json& value, QString* problem)
{
    m_alwaysAllowed.clear();
    m_decisions.clear();
    m_decisionCount = 0;
    StateJsonReader store(value, QStringLiteral("approvals"), problem);
    store.keys({"alwaysAllow", "decisions"});
    const json* always = store.array("alwaysAllow");
    const json* decisions = store.array("decisions");
    if (!store.ok())
        return false;
    for (const json& tool : *always) {
        if (!tool.is_string()) {
            *problem = QStringLiteral("approvals.alwaysAllow holds something other than a tool name");
            m_alwaysAllowed.clear();
            return false;
        }
        m_alwaysAllowed.insert(QString::fromStdString(tool.get<std::string>()));
    }
    for (std::size_t index = 0; index < decisions->size(); ++index) {
        const QString where = QStringLiteral("approvals.decisions[%1]").arg(index);
        StateJsonReader item(decisions->at(index), where, problem);
        QString key;
        item.keys({"key", "decisions"}).string("key", &key);
        const json* queue = item.array("decisions");
        if (!item.ok()) {
            clear();
            return false;
        }
        for (std::size_t at = 0; at < queue->size(); ++at) {
            StateJsonReader reader(queue->at(at), where + QStringLiteral(".decisions[%1]").arg(at), problem);
            Decision decision;
            reader.keys({"allow", "reason", "interactionId"})
                .boolean("allow", &decision.allow)
                .string("reason", &decision.reason)
                .string("interactionId", &decision.interactionId);
            if (!reader.ok()) {
                clear();
                return false;
            }
            pushDecision(key, std::move(decision));
        }
    }
    return true;
}

void ApprovalStore::clear()
{
    m_alwaysAllowed.clear();
    m_sessionGrants.clear();
    m_decisions.clear();
    m_decisionCount = 0;
}
