#pragma once

// CallSteps: what Switchboard noted on a call's timeline about the call itself, as opposed to the
// notifications it sent the client: the life of the task that carries the call (switchboard/task
// entries: created, handed out, polled, waiting, running, cancel requested, resumed) and its
// input_required rounds (switchboard/input entries: asked, answered, refused). A task stays one
// call, and each retry of an input_required call is a call of its own that names the one it
// answers; these are what the inspector shows of both, in its Task and Input lines and its Timeline.

#include "toolcall.h"

#include <QStringList>

#include <optional>

// The task's life, as the timeline tells it.
struct CallTaskSteps
{
    QString id;
    QString status; // the extension's: working, input_required, completed, cancelled, failed
    QString statusMessage;
    // created, handed-out, polled, waiting, running, cancel-requested, resumed; ended or stopped
    // (withEnding's)
    QString lastEvent;
    int polls = 0; // tasks/get requests the client sent (those kept on the timeline)
    bool cancelRequested = false; // the client sent tasks/cancel
};
// The input_required rounds, as the timeline tells them.
struct CallInputSteps
{
    int round = 0; // of the latest entry
    QString lastEvent; // asked, answered, refused
    QStringList keys; // what the latest "asked" asked for (its inputRequests' keys)
    QStringList requestKinds; // and how (elicitation/create, …)
    QString reason; // why an answer was refused
    qint64 previousCallId = 0; // the call this one answers ("answered"); 0 when not known
    int answeredRound = 0;
    int askedRound = 0;
};

struct CallSteps
{
    static constexpr const char* TaskMethod = "switchboard/task";
    static constexpr const char* InputMethod = "switchboard/input";

    // At namespace scope, not nested: clang 14 cannot use a nested struct's default member
    // initializers (std::optional<Task>::emplace) inside the enclosing class's own definition.
    using Task = CallTaskSteps;
    using Input = CallInputSteps;

    std::optional<Task> task;
    std::optional<Input> input;

    static CallSteps of(const QByteArray& timeline);

    // The call's timeline with, for a finished call carried by a task, a last switchboard/task entry
    // at the call's end saying how the task ended: the backend notes nothing on the timeline after
    // the call has ended, and the call's end is the task's. Event "ended" with the status: completed
    // when the call answered a result (an isError one too), failed for a JSON-RPC error, cancelled
    // when the client asked (tasks/cancel) and the call answered nothing. A call cancelled otherwise
    // (Switchboard stopped, and the task waits again after the restart in a call of its own; the
    // client went away before it had the task) says only that the call stopped: event "stopped",
    // with the call's error, no status. The timeline as it is for any other call.
    static QByteArray withEnding(const ToolCall& call);
    // The task status a finished task-carried call ended in, as withEnding() decides it.
    static QString endingStatus(const ToolCall& call, QString* message = nullptr);
};
