#pragma once

// ToolCall: the record of one tools/call as it moves through the backend. A plain value type that
// crosses threads in queued signals and is what the call log, the inspector and history show.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

#include "toolroute.h"

// How a call ended (or that it has not). The values are only ever appended: models sort and filter on
// them as ints, and history stores their names (callStatusName), never the numbers.
enum class CallStatus {
    Running,
    Ok,
    // Refused for a reason none of the statuses below names: a malformed request (no tool name, a
    // request id already in flight, a batch that would wait for a person) or a full queue. Rows
    // written by versions that knew no finer status also read back as this.
    Error,
    Cancelled, // the client cancelled, its connection closed while the call ran, or the server stopped
    Paused, // waiting for a person at the console (an approval or a client tool's question)
    Denied, // refused by the operator's policy, a read-only adapter, or a person who denied the approval
    Declined, // a person answered a client tool's question with "no": a valid answer, not a failure
    InvalidArguments, // the arguments failed the tool's input schema (or its own argument check)
    UnknownTool, // no tool answers to the name (or its adapter offers no tools now)
    TimedOut, // a deadline passed: the tool's, a command's or an upstream's timeout, or no one answered
    UpstreamError, // an adapter could not get an answer from its upstream (transport, HTTP)
    ToolError, // the tool ran and answered isError, or threw
    // The call stopped waiting without an answer while its question stays open for a person (parked
    // by design, or its client closed the connection): the answer goes to the next identical call.
    Parked,
    // Not sent: the adapter's circuit breaker was open (after failures, or forced open by the
    // operator) and refused the call. Not an upstream error: the upstream was not asked.
    BreakerOpen,
};

QString callStatusName(CallStatus status);
// Parses a name written by callStatusName(); returns false for anything else.
bool callStatusFromName(const QString& name, CallStatus* status);
// Every status, in the order a person reads them (filters, legends).
QList<CallStatus> allCallStatuses();
// The status as words for a person ("Timed out"), and a sentence saying what it means.
QString callStatusLabel(CallStatus status);
QString callStatusDescription(CallStatus status);
// Whether the status says the call failed (anything but running, ok, paused, declined, parked and
// cancelled).
bool isFailureStatus(CallStatus status);

struct ToolCall
{
    qint64 id = 0; // unique and increasing across restarts
    QString sessionId;
    QString clientName;
    QString clientVersion;
    QString tool; // the name the client asked for
    ToolRoute route; // where the call went; Unknown when no tool answered to the name
    QByteArray request; // the JSON-RPC request, compact JSON
    QByteArray response; // the JSON-RPC response, compact JSON; empty while running
    // What the tool attached to the call besides its result, as a compact JSON object (a command
    // tool's envelope, stdout, stderr, exit status and duration); empty when it attached nothing.
    QByteArray details;
    // Who answered a question about this call (an approval, a client tool's question) or which
    // standing grant let it through, when, what and with which scope, as a compact JSON object;
    // empty when no person or grant decided (a configuration rule's allow or deny is not recorded
    // here: a denial's error names the rule). Members (InteractionBroker fills them):
    //   "what": "allow_once" | "allow_session" | "allow_always" | "deny" | "answered" (a client
    //           tool's question) | "declined" (a client tool's question answered "no");
    //   "via": "answer" (a person answered this call's question), "stored" (answered while an
    //          earlier identical call waited; this call took the answer), "grant" (a standing or
    //          session grant let it run without asking; "by" and "atMs" are then the grant's) or
    //          "client" (the client's own user answered through input_required; "round" says which);
    //   "by": the console user who decided (absent when not known, e.g. a grant from an older file);
    //   "atMs": when, ms since the Unix epoch (absent when not known);
    //   "scope" (allow_session, allow_always): {"everyClient", "client" (when not every client),
    //           "anyArguments", "session" (allow_session)};
    //   "grant": the id of the grant the answer made or that let the call through (revocable in
    //            the Permissions view); "interaction": the question's id; "reason": with a deny.
    QByteArray decision;
    // The id of the call this one replays (the console's Replay or Edit and resend); 0 for none.
    qint64 replayOf = 0;
    // The notifications the server sent about this call while it ran (progress, log messages), as a
    // compact JSON array of {"atMs", "method", "params"}, oldest first; empty when there were none.
    QByteArray timeline;
    QString error; // a one-line reason when the call failed, was cancelled or parked
    qint64 startedAtMs = 0; // milliseconds since the Unix epoch, UTC
    qint64 durationUs = -1; // -1 while running; the whole time from arrival to the end, waiting included
    // Of durationUs, the time the call waited for a person at the console: an approval or a client
    // tool's question before it ran, and questions the running tool asked (an upstream's
    // elicitation). 0 when no one was asked (and in records of versions before it).
    qint64 waitedUs = 0;
    CallStatus status = CallStatus::Running;
    // Set (both) when the request or the response holds only its first bytes (a preview read from
    // history, see HistoryQuery::bodyPreviewBytes, or a call history keeps only the start of, see
    // HistoryWriter::keptPart): the whole bodies' sizes. -1 when both are whole.
    qint64 wholeRequestBytes = -1;
    qint64 wholeResponseBytes = -1;
    // The backend the call ran on, when a window holds several (FleetOperator sets it); empty for a
    // backend's own records. Optional in the JSON form.
    QString backend;

    // The longest tool name and error a record keeps. A client can send a name of megabytes and a
    // tool can fail with a message of any size; the call log, history and terminal get the start
    // of it and a marker saying how much was left out.
    static constexpr qsizetype MaxToolChars = 256;
    static constexpr qsizetype MaxErrorChars = 2000;

    bool isFinished() const { return status != CallStatus::Running && status != CallStatus::Paused; }
    // The time the call ran, waiting for a person left out; -1 while running.
    qint64 ranUs() const { return durationUs < 0 ? -1 : std::max<qint64>(0, durationUs - waitedUs); }
    bool hasBodyPreviews() const { return wholeRequestBytes >= 0 || wholeResponseBytes >= 0; }
    // This record with tool and error cut to the lengths above.
    ToolCall withBoundedText() const;
    // `text` cut to `maxChars` characters, followed by a marker when anything was cut.
    static QString boundedText(const QString& text, qsizetype maxChars);
    // This record as a preview for a live feed: request and response cut to `maxBodyBytes` (the whole
    // sizes in wholeRequestBytes and wholeResponseBytes), details and timeline kept only when no
    // longer than that (the whole call is one history query by id away).
    ToolCall preview(qsizetype maxBodyBytes) const;
    // The first `maxBytes` of UTF-8 `text`, not ending inside a character.
    static QByteArray utf8Start(const QByteArray& text, qsizetype maxBytes);
    // The "arguments" member of the request's params, pretty-printed; empty if there is none.
    QByteArray argumentsJson() const;
    // The same, from a tools/call request's text.
    static QByteArray argumentsFromRequest(const QByteArray& request);

    // The record as JSON (request and response as their text), and back; fromJson refuses anything
    // toJson does not write, saying why.
    nlohmann::json toJson() const;
    static std::optional<ToolCall> fromJson(const nlohmann::json& value, QString* problem);
};

using ToolCallList = QList<ToolCall>;

Q_DECLARE_METATYPE(ToolCall)
Q_DECLARE_METATYPE(ToolCallList)
