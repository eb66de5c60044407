#pragma once

// RenderHint: which widget a question gets at the console; InteractionOutcome: how a question
// left it. Both have a text form for the workspace state file, configuration and the headless log.

#include <QMetaType>
#include <QString>

#include <optional>

enum class RenderHint {
    Approval, // allow or deny a call of a tool whose permission is "ask"
    Connect, // an OAuth sign-in or an API key (request_connection)
    Confirm, // yes or no
    Choice, // one of a list
    Form, // fields described by a JSON schema
};

QString renderHintName(RenderHint hint);
std::optional<RenderHint> renderHintFromName(const QString& name);

enum class InteractionOutcome {
    Answered, // the person answered and the waiting call got it
    Stored, // answered while no call waited; kept for the client's retry
    Cancelled, // the call was cancelled or its session ended
    Timeout, // no one answered within the maximum wait
};

QString interactionOutcomeName(InteractionOutcome outcome);

Q_DECLARE_METATYPE(RenderHint)
Q_DECLARE_METATYPE(InteractionOutcome)
