#pragma once

// InteractionBroker: everything about calls that wait for a person. Decides per call whether it
// runs, is refused (a deny rule), is answered at once from a stored answer, or pauses; keeps the
// pending interactions (the widgets the console shows, at most Settings::maxPending), delivers the
// person's answers to waiting calls or stores them for the next identical call of the same client,
// enforces the maximum wait, and hands every changed record to its InteractionState (the workspace
// state file by default) after every change, so a restart loses nothing and answers nothing by
// itself. Lives on the server thread; the state is written on a thread of its own.
//
// Identical calls of one client share a key: a hash of the client's name, the tool and its canonical
// arguments (object keys sorted), so a stored answer or a reattached question never goes to another
// client, and arguments never sit in the state file as keys.
//
// Each question's record is serialised once when it changes: a change costs the server thread the
// changed record, not the whole state.
//
// Every decision about a call is told with it, as a compact JSON object for ToolCall::decision
// (its members are described there): the person's answer to its question, the answer stored for it
// while it was parked, or the standing grant that let it run without asking.

#include "auth/tokenredactor.h"
#include "interaction/permissionpolicy.h"
#include "interaction/taskstore.h"
#include "pendinginteraction.h"
#include "permissionentry.h"
#include "store/approvalstore.h"
#include "store/clientoutputstore.h"
#include "store/interactionstate.h"
#include "store/workspacestatefile.h"
#include "tools/toolresult.h"

#include <QHash>
#include <QMap>
#include <QObject>
#include <QSet>

#include <functional>
#include <map>
#include <memory>
#include <optional>

class QTimer;
struct RegisteredTool;
class ToolRegistry;

class InteractionBroker : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        PauseMode defaultMode = PauseMode::Hold;
        QMap<QString, PauseMode> clientModes; // by clientInfo.name
        // interaction.mode "task": a 2026-07-28 call that would wait for a person needs the Tasks
        // extension (-32021 without it); taskClients: the clients configured "task" themselves.
        bool tasksRequired = false;
        QSet<QString> taskClients;
        int maxWaitMs = 600'000;
        int progressIntervalMs = 10'000;
        PermissionPolicy policy;
        QString statePath; // the workspace state file; empty keeps state in memory only (tests)
        // What a question shows and the state file keeps never holds the bearer token.
        TokenRedactor redactor;
        WorkspaceStateWriter::Timing stateWriteTiming;
        int maxPending = 1'000; // questions waiting for a person; more are refused with a tool error
        qint64 maxPendingBytes = 64 * 1024 * 1024; // their records in the state file, together
        // Who answers at this console, recorded with every decision and grant (consoleUser() when
        // empty).
        QString operatorName;
        // The directories the tools may work in (the git roots): an approval flags path arguments
        // that leave them.
        QStringList roots;
        // The tasks of 2026-07-28 clients (the Tasks extension), kept with the same state.
        TaskStore::Settings tasks;
    };

    struct CallOrigin
    {
        qint64 callId = 0;
        QString sessionId;
        QString clientName;
        QString clientVersion;
        // The tools/call request as the client sent it: a question shows the arguments in the
        // client's key order. Kept raw (implicitly shared) so calls that never pause pay nothing.
        QByteArray request;
        // "token:<name>" for a client with a named token: its stored answers and "this client"
        // grants are its own, whatever name it declares. Empty: the declared name is the client.
        QString identity;
        QString clientKey() const { return identity.isEmpty() ? clientName : identity; }
    };

    struct Admission
    {
        enum class Verdict {
            Run, // allowed: run the tool now
            Refuse, // denied, or arguments a client tool cannot use: `result` is the tool error
            Answer, // a stored answer: `result` is what the client gets, at once
            Pause, // wait for a person: hold or park by `mode`
        };
        Verdict verdict = Verdict::Run;
        ToolResult result;
        InteractionKind kind = InteractionKind::Approval;
        PauseMode mode = PauseMode::Hold;
        QString key;
        // Run or Refuse by a configuration rule, a standing grant or a stored answer: what decided, for
        // ToolCall::decision.
        QByteArray decision;
    };

    // What a holding call hears back: the person's answer, or that no one answered in time.
    struct Waiter
    {
        // `decision` is what ToolCall::decision records of the answer.
        std::function<void(const InteractionAnswer& answer, const QByteArray& decision)> answered;
        std::function<void()> timedOut;
    };

    // `registry` finds the tools of restored interactions; it must outlive the broker.
    // Keeps its state in the workspace state file at settings.statePath (none when it is empty).
    InteractionBroker(Settings settings, const ToolRegistry* registry, QObject* parent = nullptr);
    // Keeps its state in `state` (null: in memory only).
    InteractionBroker(Settings settings, const ToolRegistry* registry, std::unique_ptr<InteractionState> state,
        QObject* parent = nullptr);
    ~InteractionBroker() override;

    // Reads the state. A file that is not exactly what the program writes (or that cannot be read)
    // is set aside under a name of its own, kept and never overwritten, and the
    // broker starts empty, saying so in `warning`. When it cannot even be set aside, nothing is
    // written this run, and `warning` says that too. The result tells the two apart: a file set
    // aside is a notice (the state is saved again from now on), one left in place is a problem.
    enum class LoadResult {
        Loaded, // restored, or there was no file
        SetAside,
        NotSaved,
    };
    LoadResult load(QString* warning);

    const Settings& settings() const { return m_settings; }
    PauseMode modeFor(const QString& clientName) const;
    // How a 2026-07-28 client's call that waits for a person is carried. A client that declares
    // the Tasks extension gets a task, unless the configuration names it "hold" (its calls stay on
    // their open responses); one that does not is held, or refused where a task is required.
    bool offersTaskTo(const QString& clientName) const;
    bool requiresTaskOf(const QString& clientName) const;
    static QString keyFor(const QString& clientName, const QString& tool, const nlohmann::json& arguments);
    // The operating system's name for the user running this process ($USER, $USERNAME, $LOGNAME).
    static QString consoleUser();

    // Arguments are valid against the inputSchema when this is called.
    Admission admit(const RegisteredTool& tool, const nlohmann::json& arguments, const CallOrigin& origin);
    // Whether a call of `tool` would pause or ask, for refusing a batch before any of it runs.
    bool wouldPause(const RegisteredTool& tool, const QString& sessionId, const QString& clientName) const;

    // Hold: the call waits on an interaction: a new one, or a pending one of the same question that
    // no call is waiting on (its earlier call dropped, or it is from before a restart). Returns its
    // id.
    QString hold(const RegisteredTool& tool, const nlohmann::json& arguments, const Admission& admission,
        const CallOrigin& origin, Waiter waiter);
    // Park: the call ends unanswered; the interaction stays. When the same question is already
    // pending without a waiting call, that one is reused and `duplicate` is set.
    QString park(const RegisteredTool& tool, const nlohmann::json& arguments, const Admission& admission,
        const CallOrigin& origin, bool* duplicate);
    // The waiting call's connection dropped: the widget stays and its answer will be stored.
    void detach(const QString& interactionId);
    // The waiting call was cancelled (notifications/cancelled, session deleted): the widget goes.
    void withdraw(const QString& interactionId, const QString& reason);

    // The person's answer. False (with a reason) when the interaction is gone or the answer does
    // not fit it. `by` names who answered in the call's decision and any grant or stored answer (an
    // operator credential, "operator:<name>"); empty: the person at this console (operatorName).
    // `outcome`, when given, says whether a waiting call got it (Answered) or it was kept (Stored).
    bool answer(const QString& interactionId, const InteractionAnswer& answer, QString* error, const QString& by = {},
        InteractionOutcome* outcome = nullptr);

    PendingInteractionList pending() const;
    const ClientOutputStore& clientOutputs() const { return m_outputs; }
    const ApprovalStore& approvals() const { return m_approvals; }
    // Every rule of the configuration's policy and every grant, standing and for a session, in the
    // order the Permissions view lists them.
    PermissionEntryList permissionEntries() const;
    // Revokes a standing or session grant: the next call it would have let through asks again.
    // False when there is no grant with that id (revoked already, or its session ended).
    bool revokeGrant(const QString& grantId);
    void forgetSession(const QString& sessionId);

    // Blocks until the newest state is on disk or one attempt to write it failed (shutdown, and a
    // one-shot runner before it exits). With the workspace state file, that is merged into the file
    // under its lock, so what another process wrote meanwhile is kept.
    bool flush(QString* error = nullptr);
    // Follows what other processes sharing the state do as they do it (the console: a one-shot
    // runner parks a question, takes a stored answer); without it, this process learns of them when
    // it next writes. Call after load().
    void watchState();
    // The state as another process left it, this process's own changes included (the state's
    // changedElsewhere calls it). Questions new there are raised here as if asked here
    // (interactionPending); questions gone there are resolved here (Stored when their answer is
    // among the stored answers, Cancelled otherwise), except that a call waiting here takes the
    // answer stored for it or keeps waiting; changed questions are updated (interactionChanged); the
    // stored answers and approvals become the merged ones (storesChanged).
    void applyExternalState(const InteractionState::CompactRecords& records);
    // Where the state is kept; null when it is kept in memory only.
    const InteractionState* state() const { return m_state.get(); }
    // The tasks, kept with the same state (restored by load(), merged by applyExternalState).
    TaskStore& tasks() { return *m_tasks; }
    const TaskStore& tasks() const { return *m_tasks; }

Q_SIGNALS:
    void interactionPending(const PendingInteraction& interaction);
    void interactionChanged(const PendingInteraction& interaction);
    void interactionResolved(const QString& interactionId, InteractionOutcome outcome);
    // Stored answers, decisions or grants changed (grants also when a session with grants ended).
    void storesChanged();
    // From the writer's thread (connect with a context object): the state could not be written and
    // is retried; it is on disk again.
    void stateWriteFailed(const QString& error);
    void stateWriteRecovered();
    // From the writer's thread: not a failure, but the operator should know (a damaged state file
    // set aside while writing).
    void stateNotice(const QString& message);

private:
    struct Entry
    {
        PendingInteraction interaction;
        nlohmann::json arguments;
        QByteArray record; // interaction.toJson(), compact: this question's part of the state file
        Waiter waiter; // empty when no call waits
        QTimer* deadline = nullptr;
    };

    PendingInteraction describe(const RegisteredTool& tool, const nlohmann::json& arguments, const Admission& admission,
        const CallOrigin& origin) const;
    Entry* findIdle(const QString& key);
    void startWaiting(Entry& entry, const CallOrigin& origin, Waiter waiter);
    void stopWaiting(Entry& entry);
    void expire(const QString& interactionId);
    // Fills the broker from the records load() found; false (saying why) unless they are exactly
    // what the broker puts.
    bool restore(const InteractionState::Records& records, QString* problem);
    void clearState();
    // Something the state holds changed: `changed` is a question that was added or altered (its
    // record is serialised again and put), `stores` that stored answers or rules changed.
    void save(Entry* changed, bool stores);
    // Removes a question, and its record from the state.
    void erase(std::map<QString, Entry>::iterator it);
    // applyExternalState's parts. adoptStores returns whether the stores changed and fills
    // `answeredIds` with the interactions the stored answers and decisions answer.
    bool adoptStores(const InteractionState::CompactRecords& records, QSet<QString>* answeredIds);
    bool adoptQuestion(const QString& id, const QByteArray& record, bool* raised);
    void resolveGoneElsewhere(const QString& id, const QSet<QString>& answeredIds);
    // An answer given in another process and stored for `interaction`'s key, taken, with what
    // decided it (for ToolCall::decision).
    std::optional<InteractionAnswer> takeStoredAnswer(const Entry& entry, QByteArray* decision);
    // The call's arguments as exact-argument grants hold them: canonical compact JSON, redacted.
    QByteArray grantArguments(const nlohmann::json& arguments) const;
    QByteArray decisionFor(const ApprovalStore::Grant& grant) const;

    Settings m_settings;
    const ToolRegistry* m_registry;
    std::map<QString, Entry> m_entries; // by interaction id
    QStringList m_order; // interaction ids, oldest first
    qint64 m_pendingBytes = 0; // the records of m_entries, together
    ClientOutputStore m_outputs;
    ApprovalStore m_approvals;
    std::unique_ptr<InteractionState> m_state; // null when state is kept in memory only
    std::unique_ptr<TaskStore> m_tasks; // keeps its records in m_state
};
