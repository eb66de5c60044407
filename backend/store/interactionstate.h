#pragma once

// InteractionState: where what the person decided must outlive a restart: the pending questions,
// the stored answers (client outputs) and the standing approvals. Kept as records, each question
// its own, keyed by its id: a change hands over the record that changed, never the whole state.
// WorkspaceStateStore keeps them in the workspace state file; another store (shared by several
// processes, or a database) can replace it without touching the InteractionBroker.
//
// Used on one thread (the backend thread); writes happen behind it, and failures are reported
// through the signals, from whatever thread the store writes on.
//
// The state may be shared with other processes (the console and one-shot runners write the same
// workspace state file): what they change reaches this process as changedElsewhere, on the thread
// the state is used on.

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <utility>
#include <vector>

class InteractionState : public QObject
{
    Q_OBJECT
public:
    // What load() found: each question's record in the order the questions came, and the two
    // stores' records. Values are as the records were put (JSON).
    struct Records
    {
        std::vector<nlohmann::json> questions;
        nlohmann::json clientOutputs = nlohmann::json::array();
        nlohmann::json approvals = nlohmann::json::object();
        // Each task's record (TaskRecord::toJson), in the order the tasks were created.
        std::vector<nlohmann::json> tasks;
    };
    // The whole state after another process changed it, this process's own changes included: each
    // question's record (id and compact JSON, in order) and the two stores' records, as put.
    struct CompactRecords
    {
        std::vector<std::pair<QString, QByteArray>> questions;
        QByteArray clientOutputs;
        QByteArray approvals;
        std::vector<std::pair<QString, QByteArray>> tasks; // id and compact JSON, in creation order
    };
    enum class LoadResult {
        Empty, // nothing kept yet: a first start
        Loaded,
        Unreadable, // `problem` says why; the caller sets it aside or stops saving
    };

    using QObject::QObject;
    ~InteractionState() override;

    virtual LoadResult load(Records* records, QString* problem) = 0;
    // What load() found cannot be used: keeps it for the operator under a name of its own (returned)
    // and starts empty; empty with `error` when that failed (then nothing may be written over it).
    virtual QString setAside(QString* error) = 0;

    // A question was raised or changed; `record` is its compact JSON.
    virtual void putQuestion(const QString& id, const QByteArray& record) = 0;
    virtual void removeQuestion(const QString& id) = 0;
    virtual void putClientOutputs(const QByteArray& record) = 0;
    virtual void putApprovals(const QByteArray& record) = 0;
    // A task (TaskRecord, the Tasks extension) was created or changed; `record` is its compact JSON.
    virtual void putTask(const QString& id, const QByteArray& record) = 0;
    virtual void removeTask(const QString& id) = 0;
    // `done` runs on this state's thread once everything put before this call is stored (true), or
    // when it cannot be (false: the state is not saved at all this run). Never blocks: a task's
    // handle is given out only once the task is durable, without waiting on the event loop. A state
    // that keeps nothing (memory only) calls it at once.
    virtual void whenStored(std::function<void(bool stored)> done) = 0;
    // Returns once everything put is stored (true), or an attempt failed (false, with `error`).
    virtual bool flush(QString* error) = 0;
    // From now on, notices changes other processes make without waiting for a write of this one's
    // (the console does; a one-shot runner learns them when it writes). A state no other process
    // shares has nothing to watch.
    virtual void watch() {}

Q_SIGNALS:
    void writeFailed(const QString& error);
    void writeRecovered();
    // Another process changed the state; `records` is all of it now. A put that follows from it is
    // merged like any other.
    void changedElsewhere(const InteractionState::CompactRecords& records);
    // Something the operator should know that is not a failure (a damaged file set aside while
    // writing); from whatever thread the store writes on.
    void notice(const QString& message);
};
