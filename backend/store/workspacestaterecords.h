#pragma once

// WorkspaceStateRecords: the workspace state as the records that processes sharing the file (the
// console and one-shot runners) merge: pending questions by id, in the order they came; stored
// answers (client outputs) and one-shot approval decisions as items per key, oldest first; the
// standing grants ("always allow", with their scope) one record per grant id; the tasks (TaskRecord,
// the Tasks extension) by id, in the order they were created. A file written before grants had
// scopes ("alwaysAllow": [tool, …]) reads as the grants ApprovalStore::Grant::legacy makes of it,
// and is written in the new shape. Records stay the compact JSON they were put as: a
// merge moves bytes, it never re-serialises a record.
//
// A Change says how one record ends up (there, with this value, or gone), never "one more": applying
// it twice, or to a file that already has it, changes nothing. A process keeps the changes it made
// since its state was last on disk and applies them to whatever the file holds when it writes, so a
// record another process put meanwhile is kept, one it removed stays removed (a consumed answer is
// not handed out again), and this process's own changes win only for the records it changed.
//
// A stored answer or decision is identified by its whole item, which names the interaction it
// answered (ids are random and never reused): two equal items are the same answer.

#include <QByteArray>
#include <QByteArrayList>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

class WorkspaceStateRecords
{
public:
    // 2: keys are hashes that name the client; compact JSON. A file of another version is unreadable.
    static constexpr qint64 Version = 2;

    enum class Kind : quint8 {
        Question, // key: the question's id; record: the question
        Output, // key: the stored answer's key; record: the item
        Decision, // key: the decision's key; record: the item
        Grant, // key: the grant's id; record: the grant
        Task, // key: the task's id; record: the task (TaskRecord::toJson)
    };
    struct Change
    {
        Kind kind = Kind::Question;
        QString key;
        QByteArray record;
        bool present = true; // false: the record is gone afterwards
    };

    // False, saying why, unless `contents` is exactly what toBytes() writes: every record is checked
    // as the InteractionBroker reads it, so a file accepted here never fails to restore.
    static bool parse(const QByteArray& contents, WorkspaceStateRecords* records, QString* problem);
    static bool fromJson(const nlohmann::json& state, WorkspaceStateRecords* records, QString* problem);
    // {"version": 2, "pending": [...], "clientOutputs": [...], "approvals": {...}, "tasks": [...]},
    // compact, one line. "tasks" only when there is one: files written before tasks existed stay
    // readable, and a state without tasks is written as it always was. Hence still version 2.
    QByteArray toBytes() const;

    void apply(const Change& change);
    // The changes that turn this state's stored answers into `record` (ClientOutputStore::toJson):
    // the items that are no longer there and the ones that are new. False when it is not that shape.
    bool clientOutputChanges(const QByteArray& record, QList<Change>* changes, QString* problem) const;
    // Likewise for the approvals (ApprovalStore::toJson): standing grants and decisions.
    bool approvalChanges(const QByteArray& record, QList<Change>* changes, QString* problem) const;

    const QStringList& questionIds() const { return m_order; }
    QByteArray question(const QString& id) const { return m_questions.value(id); }
    bool hasQuestion(const QString& id) const { return m_questions.contains(id); }
    const QStringList& taskIds() const { return m_taskOrder; }
    QByteArray task(const QString& id) const { return m_tasks.value(id); }
    bool hasTask(const QString& id) const { return m_tasks.contains(id); }
    // The stores' records as ClientOutputStore::fromJson and ApprovalStore::fromJson read them.
    QByteArray clientOutputsRecord() const;
    QByteArray approvalsRecord() const;

    // The same records, whatever order the questions and tasks came in (processes may see them in
    // another).
    bool sameContent(const WorkspaceStateRecords& other) const;

private:
    using Items = std::map<QString, QByteArrayList>;
    static bool readItems(const nlohmann::json& list, const char* itemsField, Items* items, QString* problem);
    static void itemChanges(Kind kind, const Items& from, const Items& to, QList<Change>* changes);
    static void applyItem(Items& items, const Change& change);
    static QByteArray itemsRecord(const Items& items, const char* itemsField);

    QStringList m_order; // question ids, in the order they came
    QHash<QString, QByteArray> m_questions;
    Items m_outputs; // by key, oldest first; no key without items
    std::map<QString, QByteArray> m_grants; // by id
    // The grants of an approvals record, each as its compact JSON, by id.
    static bool readGrantRecords(
        const nlohmann::json& approvals, std::map<QString, QByteArray>* grants, QString* problem);
    Items m_decisions;
    QStringList m_taskOrder; // task ids, in the order the tasks were created
    QHash<QString, QByteArray> m_tasks;
};
