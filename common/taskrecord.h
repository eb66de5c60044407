#pragma once

// TaskRecord: a call carried by the Tasks extension of MCP 2026-07-28 (io.modelcontextprotocol/tasks):
// a client gets a task handle instead of waiting on its open response, and polls tasks/get until
// the call ends. The record is what Switchboard keeps of one task in the workspace state (so a
// restart keeps it and another process sharing the state sees it), what the console shows of it,
// and the source of the task's wire form.
//
// Two different "ttlMs" exist in that revision: a cacheable result's (from receipt) and a task's
// (from creation, null for unlimited). This one is the task's.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

struct TaskRecord
{
    enum class Status {
        Working,
        InputRequired, // the client's own user must answer: inputRequests, answered by tasks/update
        Completed, // result holds the call's CallToolResult (isError results too)
        Cancelled,
        Failed, // error holds the JSON-RPC error
    };

    QString id; // unguessable: it is as good as a bearer token for whoever holds it
    // The client identity that created the task (ClientIdentity); only it may see or change it.
    QString owner;
    QString clientName; // as the client declared it (clientInfo.name), for people
    QString clientVersion;
    Status status = Status::Working;
    QString statusMessage; // what the task waits on, or how it ended: for the client and its user
    qint64 createdAtMs = 0; // milliseconds since the Unix epoch, UTC
    qint64 lastUpdatedAtMs = 0;
    std::optional<qint64> ttlMs; // from creation; nullopt: unlimited
    qint64 pollIntervalMs = 1'000;
    QString tool; // as the client named it
    qint64 callId = 0; // the call in history that this task carries (the newest, after a restart)
    // The tools/call params as the client sent them (compact JSON), so that a call still waiting for
    // a person when Switchboard stopped is asked again after the restart.
    QByteArray request;
    QString waitsOn; // the question (PendingInteraction id) the call waits on, while it waits
    QByteArray result; // Completed: the CallToolResult, compact JSON
    QByteArray error; // Failed: the JSON-RPC error object {code, message, data?}, compact JSON
    QByteArray inputRequests; // InputRequired: {key: {method, params}}, compact JSON

    static QString statusName(Status status);
    static std::optional<Status> statusFromName(const QString& name);
    bool isTerminal() const
    {
        return status == Status::Completed || status == Status::Cancelled || status == Status::Failed;
    }
    // When the task's lifetime ends (createdAt + ttl); nullopt when it is unlimited.
    std::optional<qint64> expiresAtMs() const;

    // The Task object of the extension (taskId, status, statusMessage, createdAt, lastUpdatedAt,
    // ttlMs, pollIntervalMs). `detailed`: a DetailedTask, as tasks/get and notifications/tasks
    // carry it: with the status's own field (result, error or inputRequests).
    nlohmann::json toWire(bool detailed) const;

    // The record in the workspace state file, and back: false, saying why (naming the record
    // `where`), unless `value` is exactly what toJson() writes.
    nlohmann::json toJson() const;
    static bool fromJson(const nlohmann::json& value, const QString& where, TaskRecord* task, QString* problem);
    // The bytes the record takes in the state (its compact JSON), for the store's bound.
    qint64 sizeInState() const;
};

using TaskRecordList = QList<TaskRecord>;

Q_DECLARE_METATYPE(TaskRecord)
Q_DECLARE_METATYPE(TaskRecordList)
