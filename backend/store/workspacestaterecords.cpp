#include "store/workspacestaterecords.h"

#include "boundedjson.h"
#include "pendinginteraction.h"
#include "statejsonreader.h"
#include "store/approvalstore.h"
#include "store/clientoutputstore.h"
#include "taskrecord.h"

using nlohmann::json;

namespace {

// A record kept by id in the order the records came (questions, tasks): a new id goes last, a
// changed one keeps its place.
void applyOrdered(QStringList& order, QHash<QString, QByteArray>& records, const WorkspaceStateRecords::Change& change)
{
    if (!change.present) {
        if (records.remove(change.key) > 0)
            order.removeOne(change.key);
        return;
    }
    if (!records.contains(change.key))
        order.append(change.key);
    records.insert(change.key, change.record);
}

} // namespace

bool WorkspaceStateRecords::parse(const QByteArray& contents, WorkspaceStateRecords* records, QString* problem)
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(contents, BoundedJson::Limits::stateFile());
    if (!parsed.ok) {
        *problem = QStringLiteral("it is not JSON (%1)").arg(QString::fromStdString(parsed.error));
        return false;
    }
    return fromJson(parsed.value, records, problem);
}

bool WorkspaceStateRecords::fromJson(const json& state, WorkspaceStateRecords* records, QString* problem)
{
    if (!state.is_object() || !state.contains("version") || !state.at("version").is_number_integer()
        || state.at("version").get<qint64>() != Version) {
        *problem = QStringLiteral("it is not a version-%1 state file").arg(Version);
        return false;
    }
    StateJsonReader reader(state, QStringLiteral("the state"), problem);
    reader.keys({"version", "pending", "clientOutputs", "approvals"}, {"tasks"});
    const json* pending = reader.array("pending");
    const json* outputs = reader.array("clientOutputs");
    const json* approvals = reader.object("approvals");
    const json* tasks = reader.optionalArray("tasks"); // absent in files written before tasks existed
    if (!reader.ok())
        return false;
    WorkspaceStateRecords read;
    for (std::size_t index = 0; index < pending->size(); ++index) {
        PendingInteraction interaction;
        if (!PendingInteraction::fromJson(
                pending->at(index), QStringLiteral("pending[%1]").arg(index), &interaction, problem))
            return false;
        if (read.m_questions.contains(interaction.id)) {
            *problem = QStringLiteral("pending[%1] repeats the id %2").arg(index).arg(interaction.id);
            return false;
        }
        read.m_order.append(interaction.id);
        read.m_questions.insert(interaction.id, QByteArray::fromStdString(pending->at(index).dump()));
    }
    for (std::size_t index = 0; tasks && index < tasks->size(); ++index) {
        TaskRecord task;
        if (!TaskRecord::fromJson(tasks->at(index), QStringLiteral("tasks[%1]").arg(index), &task, problem))
            return false;
        if (read.m_tasks.contains(task.id)) {
            *problem = QStringLiteral("tasks[%1] repeats the id %2").arg(index).arg(task.id);
            return false;
        }
        read.m_taskOrder.append(task.id);
        read.m_tasks.insert(task.id, QByteArray::fromStdString(tasks->at(index).dump()));
    }
    // The stores check every item as the broker will; the records keep the items as they are.
    if (!ClientOutputStore().fromJson(*outputs, problem) || !ApprovalStore().fromJson(*approvals, problem))
        return false;
    if (!readItems(*outputs, "outputs", &read.m_outputs, problem)
        || !readItems(approvals->at("decisions"), "decisions", &read.m_decisions, problem)
        || !readGrantRecords(*approvals, &read.m_grants, problem))
        return false;
    *records = std::move(read);
    return true;
}

bool WorkspaceStateRecords::readItems(const json& list, const char* itemsField, Items* items, QString* problem)
{
    items->clear();
    if (!list.is_array()) {
        *problem = QStringLiteral("a list of stored items is not an array");
        return false;
    }
    for (std::size_t index = 0; index < list.size(); ++index) {
        StateJsonReader reader(
            list.at(index), QStringLiteral("%1[%2]").arg(QLatin1String(itemsField)).arg(index), problem);
        QString key;
        reader.keys({"key", itemsField}).string("key", &key);
        const json* entries = reader.array(itemsField);
        if (!reader.ok())
            return false;
        QByteArrayList& queue = (*items)[key];
        for (const json& entry : *entries) {
            QByteArray item = QByteArray::fromStdString(entry.dump());
            if (!queue.contains(item))
                queue.append(std::move(item));
        }
        if (queue.isEmpty())
            items->erase(key);
    }
    return true;
}

bool WorkspaceStateRecords::readGrantRecords(
    const json& approvals, std::map<QString, QByteArray>* grants, QString* problem)
{
    QList<ApprovalStore::Grant> list;
    if (!ApprovalStore::readGrants(approvals, &list, problem))
        return false;
    grants->clear();
    for (const ApprovalStore::Grant& grant : std::as_const(list))
        (*grants)[grant.id] = QByteArray::fromStdString(grant.toJson().dump());
    return true;
}

QByteArray WorkspaceStateRecords::itemsRecord(const Items& items, const char* itemsField)
{
    QByteArray record = QByteArrayLiteral("[");
    bool first = true;
    for (const auto& [key, queue] : items) {
        if (!first)
            record += ',';
        first = false;
        record += QByteArrayLiteral("{\"key\":") + QByteArray::fromStdString(json(key.toStdString()).dump())
            + QByteArrayLiteral(",\"") + itemsField + QByteArrayLiteral("\":[") + queue.join(',')
            + QByteArrayLiteral("]}");
    }
    return record + ']';
}

QByteArray WorkspaceStateRecords::clientOutputsRecord() const
{
    return itemsRecord(m_outputs, "outputs");
}

QByteArray WorkspaceStateRecords::approvalsRecord() const
{
    QByteArrayList grants;
    for (const auto& [id, grant] : m_grants)
        grants.append(grant);
    return QByteArrayLiteral("{\"decisions\":") + itemsRecord(m_decisions, "decisions")
        + QByteArrayLiteral(",\"grants\":[") + grants.join(',') + QByteArrayLiteral("]}");
}

QByteArray WorkspaceStateRecords::toBytes() const
{
    QByteArray bytes
        = QByteArrayLiteral("{\"version\":") + QByteArray::number(Version) + QByteArrayLiteral(",\"pending\":[");
    for (qsizetype index = 0; index < m_order.size(); ++index) {
        if (index > 0)
            bytes += ',';
        bytes += m_questions.value(m_order.at(index));
    }
    bytes += QByteArrayLiteral("],\"clientOutputs\":") + clientOutputsRecord() + QByteArrayLiteral(",\"approvals\":")
        + approvalsRecord();
    if (!m_taskOrder.isEmpty()) {
        bytes += QByteArrayLiteral(",\"tasks\":[");
        for (qsizetype index = 0; index < m_taskOrder.size(); ++index) {
            if (index > 0)
                bytes += ',';
            bytes += m_tasks.value(m_taskOrder.at(index));
        }
        bytes += ']';
    }
    return bytes + QByteArrayLiteral("}\n");
}

void WorkspaceStateRecords::applyItem(Items& items, const Change& change)
{
    if (change.present) {
        QByteArrayList& queue = items[change.key];
        if (!queue.contains(change.record))
            queue.append(change.record); // the newest answer goes last: each key stays oldest first
        return;
    }
    const auto it = items.find(change.key);
    if (it == items.end())
        return;
    it->second.removeAll(change.record);
    if (it->second.isEmpty())
        items.erase(it);
}

void WorkspaceStateRecords::apply(const Change& change)
{
    switch (change.kind) {
    case Kind::Question:
        applyOrdered(m_order, m_questions, change);
        return;
    case Kind::Output:
        applyItem(m_outputs, change);
        return;
    case Kind::Decision:
        applyItem(m_decisions, change);
        return;
    case Kind::Grant:
        if (change.present)
            m_grants[change.key] = change.record;
        else
            m_grants.erase(change.key);
        return;
    case Kind::Task:
        applyOrdered(m_taskOrder, m_tasks, change);
        return;
    }
}

void WorkspaceStateRecords::itemChanges(Kind kind, const Items& from, const Items& to, QList<Change>* changes)
{
    for (const auto& [key, queue] : from) {
        const auto now = to.find(key);
        for (const QByteArray& item : queue) {
            if (now == to.end() || !now->second.contains(item))
                changes->append({kind, key, item, false});
        }
    }
    for (const auto& [key, queue] : to) {
        const auto before = from.find(key);
        for (const QByteArray& item : queue) {
            if (before == from.end() || !before->second.contains(item))
                changes->append({kind, key, item, true});
        }
    }
}

bool WorkspaceStateRecords::clientOutputChanges(
    const QByteArray& record, QList<Change>* changes, QString* problem) const
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(record, BoundedJson::Limits::stateFile());
    if (!parsed.ok) {
        *problem = QStringLiteral("the stored answers are not JSON (%1)").arg(QString::fromStdString(parsed.error));
        return false;
    }
    const json& value = parsed.value;
    Items outputs;
    if (!readItems(value, "outputs", &outputs, problem))
        return false;
    itemChanges(Kind::Output, m_outputs, outputs, changes);
    return true;
}

bool WorkspaceStateRecords::approvalChanges(const QByteArray& record, QList<Change>* changes, QString* problem) const
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(record, BoundedJson::Limits::stateFile());
    if (!parsed.ok) {
        *problem = QStringLiteral("the approvals are not JSON (%1)").arg(QString::fromStdString(parsed.error));
        return false;
    }
    const json& value = parsed.value;
    std::map<QString, QByteArray> grants;
    if (!readGrantRecords(value, &grants, problem))
        return false;
    StateJsonReader reader(value, QStringLiteral("approvals"), problem);
    const json* decisionList = reader.array("decisions");
    Items decisions;
    if (!reader.ok() || !readItems(*decisionList, "decisions", &decisions, problem))
        return false;
    // One record per grant: gone, new, or changed (the same id with another record).
    for (const auto& [id, grant] : m_grants) {
        if (!grants.count(id))
            changes->append({Kind::Grant, id, grant, false});
    }
    for (const auto& [id, grant] : grants) {
        const auto before = m_grants.find(id);
        if (before == m_grants.end() || before->second != grant)
            changes->append({Kind::Grant, id, grant, true});
    }
    itemChanges(Kind::Decision, m_decisions, decisions, changes);
    return true;
}

bool WorkspaceStateRecords::sameContent(const WorkspaceStateRecords& other) const
{
    return m_questions == other.m_questions && m_outputs == other.m_outputs && m_grants == other.m_grants
        && m_decisions == other.m_decisions && m_tasks == other.m_tasks;
}
