#pragma once

// InteractionState: where what the person decided must outlive a restart: the pending questions,
// the stored answers (client outputs) and the standing approvals. Kept as records, each question
// its own, keyed by its id: a change hands over the record that changed, never the whole state.
// WorkspaceStateStore keeps them in the workspace state file; another store (shared by several
// processes, or a database) can replace it without touching the InteractionBroker.
//
// Used on one thread (the backend thread); writes happen behind it, and failures are reported
// through the signals, from whatever thread the store writes on.

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <utility>

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
    // Returns once everything put is stored (true), or an attempt failed (false, with `error`).
    virtual bool flush(QString* error) = 0;

Q_SIGNALS:
    void writeFailed(const QString& error);
    void writeRecovered();
};
