#pragma once

// PendingInteraction: a question waiting for the person at the console: an approval for a tool
// whose permission is "ask", or a client tool (request_connection, operator-declared tools) whose
// answer is the person's. InteractionAnswer is what the person decides. Both are plain value types
// that cross threads in queued signals and are written to the workspace state file.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include "renderhint.h"
#include "toolroute.h"

#include <nlohmann/json.hpp>

#include <optional>

enum class InteractionKind {
    Approval,
    ClientTool,
};

// How a call that waits for a person is kept: the call stays open (hold), or it is closed without
// a result and the answer goes to the next identical call (park).
enum class PauseMode {
    Hold,
    Park,
};

QString pauseModeName(PauseMode mode);

struct PendingInteraction
{
    QString id; // "ia-…", unique
    InteractionKind kind = InteractionKind::Approval;
    RenderHint render = RenderHint::Approval;
    QString tool; // the tool's own name (aliases resolved)
    QString toolTitle;
    ToolRoute route;
    QByteArray arguments; // the call's arguments, compact JSON
    QByteArray renderSpec; // JSON: what the widget needs (prompt, provider, choices, schema, …)
    QString sessionId;
    QString clientName;
    QString clientVersion;
    qint64 callId = 0; // the call that asks now, or asked last
    QList<qint64> earlierCallIds; // calls of this question that were parked or dropped before
    PauseMode mode = PauseMode::Hold;
    bool waiting = false; // a call is open and waiting for the answer
    qint64 createdAtMs = 0; // milliseconds since the Unix epoch, UTC
    qint64 deadlineMs = 0; // when the waiting call gives up; 0 when no call waits
    QString key; // a hash of the client, the tool and its canonical arguments: InteractionBroker::keyFor
    // Asked by a one-shot runner (`switchboard tool`): its session ends with its process, so "allow
    // for this session" would grant nothing. Optional in the state file (older files lack it).
    bool fromRunner = false;
    // Asked for a stateless (MCP 2026-07-28) request: it has no session, so "allow for this session"
    // would grant nothing either. Optional in the state file.
    bool stateless = false;
    // The identity of a client with a named token ("token:<name>"), which its stored answers and
    // "this client" grants belong to; empty for a client known by its declared name. Optional in the
    // state file.
    QString identity;
    // The backend that asks, when a window holds several (FleetOperator sets it). Optional in the
    // state file.
    QString backend;
    // Whom stored answers and grants of this question belong to: the identity, else the name.
    QString clientKey() const { return identity.isEmpty() ? clientName : identity; }

    // The record in the workspace state file, which is also the question the operator API sends:
    // while a call waits, with "waiting" and "deadlineMs" (an attached window shows the countdown).
    nlohmann::json toJson() const;
    // Where a record read by fromJson comes from: a state file, where no call waits (none survives a
    // restart, and another process's call cannot be answered here), or the operator API (Live), where
    // "waiting" and "deadlineMs" say what the backend's call does now.
    enum class Source { StateFile, Live };
    // False, saying why in `problem` (naming the record `where`), unless `value` is exactly what
    // toJson() writes.
    static bool fromJson(const nlohmann::json& value, const QString& where, PendingInteraction* interaction,
        QString* problem, Source source = Source::StateFile);
};

struct InteractionAnswer
{
    enum class Decision {
        AllowOnce, // approvals
        AllowForSession,
        AlwaysAllow,
        Deny,
        Respond, // client tools: `output` is what the client receives
    };
    Decision decision = Decision::Deny;
    QString reason; // optional, with Deny
    QByteArray output; // JSON, with Respond
    // The scope of an AlwaysAllow grant: the client that asked or every client, these exact
    // arguments or any. The narrowest (this client, these arguments) unless the person widened it.
    bool everyClient = false;
    bool anyArguments = false;

    // A client tool's answer: `output` is what the client receives.
    static InteractionAnswer respond(const nlohmann::json& output);
    // An approval's answer; `reason` goes with Deny.
    static InteractionAnswer decide(Decision decision, const QString& reason = {});
    // "Always allow" with a scope.
    static InteractionAnswer alwaysAllow(bool everyClient, bool anyArguments);

    // The answer as JSON ({"decision": "allow-once" | "allow-for-session" | "always-allow" | "deny" |
    // "respond", "reason", "output"}, and "everyClient" and "anyArguments" with "always-allow"; older
    // answers without them read as the narrowest scope), and back, refusing anything else with a reason.
    nlohmann::json toJson() const;
    static std::optional<InteractionAnswer> fromJson(const nlohmann::json& value, QString* problem);
};

using PendingInteractionList = QList<PendingInteraction>;

// What happened to one question since the previous batch of the event hub (BackendEvents), all of
// it: raised or changed (its newest state), and whether it left, and how. A question raised and
// changed three times in one batch is one update.
struct QuestionUpdate
{
    QString id;
    bool raised = false; // it is new since the previous batch
    std::optional<PendingInteraction> state; // its newest state, when it was raised or changed
    std::optional<InteractionOutcome> resolved; // it left, and how
};

using QuestionUpdateList = QList<QuestionUpdate>;

Q_DECLARE_METATYPE(PendingInteraction)
Q_DECLARE_METATYPE(PendingInteractionList)
Q_DECLARE_METATYPE(InteractionAnswer)
Q_DECLARE_METATYPE(QuestionUpdateList)
