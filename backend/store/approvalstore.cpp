#include "store/approvalstore.h"

#include "statejsonreader.h"
#include "store/oldestfront.h"

#include <QRandomGenerator>
#include <QtGlobal>

#include <algorithm>

using nlohmann::json;

json ApprovalStore::Grant::toJson() const
{
    return json{{"id", id.toStdString()}, {"tool", tool.toStdString()}, {"client", clientName.toStdString()},
        {"arguments", arguments.toStdString()}, {"grantedBy", grantedBy.toStdString()}, {"grantedAtMs", grantedAtMs}};
}

bool ApprovalStore::Grant::fromJson(const json& value, const QString& where, Grant* grant, QString* problem)
{
    Grant read;
    StateJsonReader reader(value, where, problem);
    reader.keys({"id", "tool", "client", "arguments", "grantedBy", "grantedAtMs"})
        .string("id", &read.id)
        .string("tool", &read.tool)
        .string("client", &read.clientName)
        .string("arguments", &read.arguments)
        .string("grantedBy", &read.grantedBy)
        .integer("grantedAtMs", &read.grantedAtMs);
    if (reader.ok() && (read.id.isEmpty() || read.tool.isEmpty()))
        reader.fail(QStringLiteral("has no id or no tool"));
    if (!reader.ok())
        return false;
    *grant = std::move(read);
    return true;
}

ApprovalStore::Grant ApprovalStore::Grant::legacy(const QString& tool)
{
    Grant grant;
    grant.id = QStringLiteral("g-always-") + tool;
    grant.tool = tool;
    return grant;
}

bool ApprovalStore::Grant::matches(
    const QString& name, const QString& client, const std::function<QByteArray()>& callArguments) const
{
    if (tool != name || (!clientName.isEmpty() && clientName != client))
        return false;
    return arguments.isEmpty() || arguments == callArguments();
}

QString ApprovalStore::newGrantId()
{
    quint32 words[3];
    QRandomGenerator::system()->fillRange(words);
    return QStringLiteral("g-")
        + QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(words), sizeof words).toHex());
}

bool ApprovalStore::canGrant(const Grant& grant, QString* problem) const
{
    // Human-sized numbers: a grant comes from a click, so counting here costs nothing that matters.
    const bool session = !grant.sessionId.isEmpty();
    const auto& grants = session ? m_sessionGrants : m_grants;
    const bool replaces = grants.count(grant.id) > 0;
    const int limit = session ? MaxSessionGrants : MaxGrants;
    if (!replaces && int(grants.size()) >= limit) {
        *problem = session
            ? QStringLiteral("There are already %1 \"allow for this session\" grants, the most Switchboard keeps; "
                             "revoke some in the Permissions view, or allow this call once.")
                  .arg(limit)
            : QStringLiteral("There are already %1 standing grants, the most Switchboard keeps; revoke some in the "
                             "Permissions view, or allow this call once.")
                  .arg(limit);
        return false;
    }
    if (grant.arguments.size() > MaxGrantArgumentBytes) {
        *problem = QStringLiteral("These arguments are too large to keep a grant for (%1 KiB, at most %2 KiB); "
                                  "allow any arguments, or allow this call once.")
                       .arg((grant.arguments.size() + 1023) / 1024)
                       .arg(MaxGrantArgumentBytes / 1024);
        return false;
    }
    if (!session) {
        qsizetype bytes = grant.arguments.size();
        for (const auto& [id, standing] : m_grants)
            bytes += id == grant.id ? 0 : standing.arguments.size();
        if (bytes > MaxGrantBytes) {
            *problem = QStringLiteral("The standing grants' arguments would take more than %1 MiB, the most "
                                      "Switchboard keeps; revoke some in the Permissions view, allow any arguments, "
                                      "or allow this call once.")
                           .arg(MaxGrantBytes / (1024 * 1024));
            return false;
        }
    }
    return true;
}

bool ApprovalStore::grant(const Grant& grant, QString* problem)
{
    if (!canGrant(grant, problem))
        return false;
    (grant.sessionId.isEmpty() ? m_grants : m_sessionGrants)[grant.id] = grant;
    return true;
}

bool ApprovalStore::revoke(const QString& id)
{
    return m_grants.erase(id) > 0 || m_sessionGrants.erase(id) > 0;
}

std::optional<ApprovalStore::Grant> ApprovalStore::find(const QString& tool, const QString& sessionId,
    const QString& clientName, const std::function<QByteArray()>& arguments) const
{
    // The call's arguments are serialised at most once, and only if some grant needs them.
    std::optional<QByteArray> canonical;
    const std::function<QByteArray()> once = [&canonical, &arguments] {
        if (!canonical)
            canonical = arguments();
        return *canonical;
    };
    // Narrowest first: a grant for this client and these arguments says more about why the call ran
    // than one for everything.
    const auto width
        = [](const Grant& grant) { return int(grant.clientName.isEmpty()) + int(grant.arguments.isEmpty()); };
    const Grant* best = nullptr;
    for (const auto& [id, grant] : m_sessionGrants) {
        if (grant.sessionId == sessionId && grant.matches(tool, clientName, once)
            && (!best || width(grant) < width(*best)))
            best = &grant;
    }
    if (best)
        return *best;
    for (const auto& [id, grant] : m_grants) {
        if (grant.matches(tool, clientName, once) && (!best || width(grant) < width(*best)))
            best = &grant;
    }
    return best ? std::optional<Grant>(*best) : std::nullopt;
}

QList<ApprovalStore::Grant> ApprovalStore::grants() const
{
    QList<Grant> list;
    for (const auto& [id, grant] : m_grants)
        list.append(grant);
    return list;
}

QList<ApprovalStore::Grant> ApprovalStore::sessionGrants() const
{
    QList<Grant> list;
    for (const auto& [id, grant] : m_sessionGrants)
        list.append(grant);
    return list;
}

bool ApprovalStore::forgetSession(const QString& sessionId)
{
    return std::erase_if(m_sessionGrants, [&sessionId](const auto& item) { return item.second.sessionId == sessionId; })
        > 0;
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
    json grants = json::array();
    for (const auto& [id, grant] : m_grants)
        grants.push_back(grant.toJson());
    json decisions = json::array();
    for (const auto& [key, queue] : m_decisions) {
        json list = json::array();
        for (const Decision& decision : queue) {
            json item{{"allow", decision.allow}, {"reason", decision.reason.toStdString()},
                {"interactionId", decision.interactionId.toStdString()}};
            // Only when known, so a decision read from an older file is written back as it was.
            if (!decision.decidedBy.isEmpty())
                item["decidedBy"] = decision.decidedBy.toStdString();
            if (decision.decidedAtMs != 0)
                item["decidedAtMs"] = decision.decidedAtMs;
            list.push_back(std::move(item));
        }
        decisions.push_back(json{{"key", key.toStdString()}, {"decisions", std::move(list)}});
    }
    return json{{"grants", std::move(grants)}, {"decisions", std::move(decisions)}};
}

bool ApprovalStore::readGrants(const json& approvals, QList<Grant>* grants, QString* problem)
{
    grants->clear();
    StateJsonReader store(approvals, QStringLiteral("approvals"), problem);
    store.keys({"decisions"}, {"grants", "alwaysAllow"});
    if (!store.ok())
        return false;
    if (approvals.contains("alwaysAllow")) {
        const json* always = store.array("alwaysAllow");
        if (!store.ok())
            return false;
        for (const json& tool : *always) {
            if (!tool.is_string() || tool.get_ref<const std::string&>().empty()) {
                *problem = QStringLiteral("approvals.alwaysAllow holds something other than a tool name");
                return false;
            }
            grants->append(Grant::legacy(QString::fromStdString(tool.get<std::string>())));
        }
    }
    if (approvals.contains("grants")) {
        const json* list = store.array("grants");
        if (!store.ok())
            return false;
        for (std::size_t index = 0; index < list->size(); ++index) {
            Grant grant;
            if (!Grant::fromJson(list->at(index), QStringLiteral("approvals.grants[%1]").arg(index), &grant, problem))
                return false;
            grants->append(std::move(grant));
        }
    }
    return true;
}

bool ApprovalStore::fromJson(const json& value, QString* problem)
{
    m_grants.clear();
    m_decisions.clear();
    m_decisionCount = 0;
    QList<Grant> grants;
    if (!readGrants(value, &grants, problem))
        return false;
    StateJsonReader store(value, QStringLiteral("approvals"), problem);
    const json* decisions = store.array("decisions");
    if (!store.ok())
        return false;
    // Newest first, so that a file beyond the bounds keeps its newest grants.
    std::stable_sort(
        grants.begin(), grants.end(), [](const Grant& a, const Grant& b) { return a.grantedAtMs > b.grantedAtMs; });
    QString firstLeftOut;
    int leftOut = 0;
    for (const Grant& grant : std::as_const(grants)) {
        QString why;
        if (!this->grant(grant, &why) && leftOut++ == 0)
            firstLeftOut = grant.id + QStringLiteral(" (") + grant.tool + QStringLiteral("): ") + why;
    }
    if (leftOut > 0)
        qWarning("switchboard: %d of the stored standing grants left out, the oldest first: %s", leftOut,
            qPrintable(firstLeftOut));
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
            QByteArray decidedBy;
            reader.keys({"allow", "reason", "interactionId"}, {"decidedBy", "decidedAtMs"})
                .boolean("allow", &decision.allow)
                .string("reason", &decision.reason)
                .string("interactionId", &decision.interactionId)
                .optionalString("decidedBy", &decidedBy)
                .optionalInteger("decidedAtMs", &decision.decidedAtMs);
            if (!reader.ok()) {
                clear();
                return false;
            }
            decision.decidedBy = QString::fromUtf8(decidedBy);
            pushDecision(key, std::move(decision));
        }
    }
    return true;
}

void ApprovalStore::clear()
{
    m_grants.clear();
    m_sessionGrants.clear();
    m_decisions.clear();
    m_decisionCount = 0;
}
