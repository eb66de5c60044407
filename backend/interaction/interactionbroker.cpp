#include "interaction/interactionbroker.h"

#include "boundedjson.h"
#include "store/workspacestatestore.h"

#include "interaction/clienttool.h"
#include "protocol/sessionkind.h"
#include "statejsonreader.h"
#include "store/workspacestatefile.h"
#include "toolcall.h"
#include "tools/toolregistry.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QRandomGenerator>
#include <QTimer>

#ifdef Q_OS_UNIX
#include <pwd.h>
#include <unistd.h>
#endif

using nlohmann::json;

namespace {

std::vector<std::string> rootsOf(const QStringList& roots)
{
    std::vector<std::string> list;
    for (const QString& root : roots)
        list.push_back(root.toStdString());
    return list;
}

// What ToolCall::decision records: {"what", "via", "by", "atMs", …} (see toolcall.h).
json decisionRecord(const char* what, const char* via, const QString& by, qint64 atMs)
{
    json decision{{"what", what}, {"via", via}};
    if (!by.isEmpty())
        decision["by"] = by.toStdString();
    if (atMs != 0)
        decision["atMs"] = atMs;
    return decision;
}

json scopeRecord(const QString& clientName, bool anyArguments, const QString& sessionId = {})
{
    json scope{{"everyClient", clientName.isEmpty()}, {"anyArguments", anyArguments}};
    if (!clientName.isEmpty())
        scope["client"] = clientName.toStdString();
    if (!sessionId.isEmpty())
        scope["session"] = sessionId.toStdString();
    return scope;
}

QByteArray compact(const json& value)
{
    return QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

QString newInteractionId()
{
    quint32 words[3];
    QRandomGenerator::system()->fillRange(words);
    return QStringLiteral("ia-")
        + QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(words), sizeof words).toHex());
}

} // namespace

InteractionBroker::InteractionBroker(Settings settings, const ToolRegistry* registry, QObject* parent)
    : InteractionBroker(settings, registry,
        settings.statePath.isEmpty()
            ? nullptr
            : std::make_unique<WorkspaceStateStore>(settings.statePath, settings.stateWriteTiming),
        parent)
{}

InteractionBroker::InteractionBroker(
    Settings settings, const ToolRegistry* registry, std::unique_ptr<InteractionState> state, QObject* parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_registry(registry)
    , m_state(std::move(state))
    , m_tasks(std::make_unique<TaskStore>(m_settings.tasks, m_state.get()))
{
    if (m_settings.operatorName.isEmpty())
        m_settings.operatorName = consoleUser();
    qRegisterMetaType<PendingInteraction>();
    qRegisterMetaType<PendingInteractionList>();
    qRegisterMetaType<InteractionAnswer>();
    if (m_state) {
        // Direct: the state emits from its writer's thread; whoever listens to the broker connects
        // with a context object, so the signal crosses threads there.
        connect(m_state.get(), &InteractionState::writeFailed, this, &InteractionBroker::stateWriteFailed,
            Qt::DirectConnection);
        connect(m_state.get(), &InteractionState::writeRecovered, this, &InteractionBroker::stateWriteRecovered,
            Qt::DirectConnection);
        connect(m_state.get(), &InteractionState::notice, this, &InteractionBroker::stateNotice, Qt::DirectConnection);
        // On this thread: the state tells what another process changed between the broker's own
        // changes.
        connect(m_state.get(), &InteractionState::changedElsewhere, this, &InteractionBroker::applyExternalState);
    }
}

InteractionBroker::~InteractionBroker()
{
    flush();
    m_tasks.reset();
    m_state.reset(); // ends its writer while this broker, which relays its signals, is still whole
}

InteractionBroker::LoadResult InteractionBroker::load(QString* warning)
{
    if (!m_state)
        return LoadResult::Loaded;
    InteractionState::Records records;
    QString problem;
    const InteractionState::LoadResult status = m_state->load(&records, &problem);
    if (status == InteractionState::LoadResult::Empty)
        return LoadResult::Loaded;
    if (status == InteractionState::LoadResult::Loaded) {
        if (restore(records, &problem))
            return LoadResult::Loaded;
        clearState();
    }
    QString moveError;
    const QString aside = m_state->setAside(&moveError);
    if (aside.isEmpty()) {
        // Never overwrite what could not be read: this run keeps its state in memory only.
        m_tasks->keepInMemoryOnly();
        m_state.reset();
        *warning = QStringLiteral("the workspace state %1 could not be read (%2), and it could not be moved aside "
                                  "(%3); it is left as it is, and pending questions and stored answers are not "
                                  "saved until Switchboard restarts with that fixed")
                       .arg(m_settings.statePath, problem, moveError);
        return LoadResult::NotSaved;
    }
    *warning = QStringLiteral("the workspace state %1 could not be read (%2); it was kept as %3 and Switchboard "
                              "starts without pending questions or stored answers")
                   .arg(m_settings.statePath, problem, aside);
    return LoadResult::SetAside;
}

bool InteractionBroker::restore(const InteractionState::Records& records, QString* problem)
{
    for (std::size_t index = 0; index < records.questions.size(); ++index) {
        Entry entry;
        if (!PendingInteraction::fromJson(
                records.questions[index], QStringLiteral("pending[%1]").arg(index), &entry.interaction, problem))
            return false;
        entry.arguments = BoundedJson::parse(entry.interaction.arguments, BoundedJson::Limits::record()).value;
        const QString id = entry.interaction.id;
        entry.record = QByteArray::fromStdString(entry.interaction.toJson().dump());
        m_pendingBytes += entry.record.size();
        if (m_entries.count(id)) {
            *problem = QStringLiteral("pending[%1] repeats the id %2").arg(index).arg(id);
            return false;
        }
        m_entries.emplace(id, std::move(entry));
        m_order.append(id);
    }
    return m_outputs.fromJson(records.clientOutputs, problem) && m_approvals.fromJson(records.approvals, problem)
        && m_tasks->restore(records.tasks, problem);
}

void InteractionBroker::clearState()
{
    for (auto& [id, entry] : m_entries)
        stopWaiting(entry);
    m_entries.clear();
    m_order.clear();
    m_pendingBytes = 0;
    m_outputs = ClientOutputStore();
    m_approvals = ApprovalStore();
}

PauseMode InteractionBroker::modeFor(const QString& clientName) const
{
    return m_settings.clientModes.value(clientName, m_settings.defaultMode);
}

bool InteractionBroker::offersTaskTo(const QString& clientName) const
{
    const auto configured = m_settings.clientModes.constFind(clientName);
    return configured == m_settings.clientModes.cend() || *configured != PauseMode::Hold
        || m_settings.taskClients.contains(clientName);
}

bool InteractionBroker::requiresTaskOf(const QString& clientName) const
{
    if (m_settings.taskClients.contains(clientName))
        return true;
    return m_settings.tasksRequired && !m_settings.clientModes.contains(clientName);
}

QString InteractionBroker::keyFor(const QString& clientName, const QString& tool, const json& arguments)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // Lengths first, so no two (client, tool) pairs run together into the same bytes.
    const QByteArray client = clientName.toUtf8();
    const QByteArray name = tool.toUtf8();
    hash.addData(
        QByteArray(QByteArray::number(client.size()) + ':' + client + QByteArray::number(name.size()) + ':' + name));
    // nlohmann::json keeps object keys sorted, so dump() is canonical.
    hash.addData(QByteArray::fromStdString(arguments.dump()));
    return QStringLiteral("sha256:") + QString::fromLatin1(hash.result().toHex());
}

QString InteractionBroker::consoleUser()
{
    for (const char* name : {"USER", "USERNAME", "LOGNAME"}) {
        const QString user = qEnvironmentVariable(name);
        if (!user.isEmpty())
            return user;
    }
    // Started without a login's environment (a service, a container): the account still has a name.
#ifdef Q_OS_UNIX
    if (const passwd* account = getpwuid(geteuid()); account && account->pw_name && *account->pw_name)
        return QString::fromLocal8Bit(account->pw_name);
#endif
    return QStringLiteral("unknown user");
}

QByteArray InteractionBroker::grantArguments(const json& arguments) const
{
    // nlohmann::json keeps object keys sorted, so dump() is canonical; redacted as the question
    // showed them (and as the state file keeps them).
    return m_settings.redactor.jsonText(compact(arguments));
}

QByteArray InteractionBroker::decisionFor(const ApprovalStore::Grant& grant) const
{
    json decision = decisionRecord(
        grant.sessionId.isEmpty() ? "allow_always" : "allow_session", "grant", grant.grantedBy, grant.grantedAtMs);
    decision["grant"] = grant.id.toStdString();
    decision["scope"] = scopeRecord(grant.clientName, grant.arguments.isEmpty(), grant.sessionId);
    return compact(decision);
}

InteractionBroker::Admission InteractionBroker::admit(
    const RegisteredTool& tool, const json& arguments, const CallOrigin& origin)
{
    Admission admission;
    const PermissionPolicy::Verdict verdict = m_settings.policy.evaluate(tool);
    // A call the configuration decides says which rule did, as a person's answer says who did.
    const auto ruleDecision = [&verdict](const char* what) {
        json decision = decisionRecord(what, "rule", QString(), 0);
        decision["rule"] = verdict.rule.toStdString();
        return compact(decision);
    };
    if (verdict.permission == Permission::Deny) {
        admission.decision = ruleDecision("deny");
        admission.verdict = Admission::Verdict::Refuse;
        admission.result = ToolResult::error(
            QStringLiteral("Tool \"%1\" is denied by the Switchboard operator's policy (%2); it did not run.")
                .arg(tool.spec.name, verdict.rule),
            CallStatus::Denied);
        return admission;
    }
    if (tool.clientTool) {
        const QString problem = tool.clientTool->checkArguments(arguments);
        if (!problem.isEmpty()) {
            admission.verdict = Admission::Verdict::Refuse;
            admission.result = ToolResult::error(problem, CallStatus::InvalidArguments);
            return admission;
        }
        admission.kind = InteractionKind::ClientTool;
        admission.key = keyFor(origin.clientKey(), tool.spec.name, arguments);
        if (auto stored = m_outputs.take(admission.key)) {
            admission.verdict = Admission::Verdict::Answer;
            admission.result
                = ClientTool::resultFor(BoundedJson::parse(stored->output, BoundedJson::Limits::record()).value);
            json decision = decisionRecord(admission.result.outcome == CallStatus::Declined ? "declined" : "answered",
                "stored", QString(), stored->answeredAtMs);
            decision["interaction"] = stored->interactionId.toStdString();
            admission.decision = compact(decision);
            save(nullptr, true);
            Q_EMIT storesChanged();
            return admission;
        }
    } else {
        if (verdict.permission == Permission::Allow) {
            admission.decision = ruleDecision("allow");
            return admission; // Run
        }
        if (const auto grant = m_approvals.find(tool.spec.name, origin.sessionId, origin.clientKey(),
                [this, &arguments] { return grantArguments(arguments); })) {
            admission.decision = decisionFor(*grant);
            return admission; // Run: a standing grant, and the call says which
        }
        admission.kind = InteractionKind::Approval;
        admission.key = keyFor(origin.clientKey(), tool.spec.name, arguments);
        if (auto decision = m_approvals.takeDecision(admission.key)) {
            save(nullptr, true);
            Q_EMIT storesChanged();
            json record = decisionRecord(
                decision->allow ? "allow_once" : "deny", "stored", decision->decidedBy, decision->decidedAtMs);
            record["interaction"] = decision->interactionId.toStdString();
            if (!decision->reason.isEmpty())
                record["reason"] = decision->reason.toStdString();
            admission.decision = compact(record);
            if (decision->allow)
                return admission; // Run: the person allowed this call while it was parked
            admission.verdict = Admission::Verdict::Refuse;
            admission.result = ToolResult::error(
                QStringLiteral("The person at the Switchboard console denied this call of \"%1\"%2.")
                    .arg(tool.spec.name,
                        decision->reason.isEmpty() ? QString() : QStringLiteral(": ") + decision->reason),
                CallStatus::Denied);
            return admission;
        }
    }
    // A question of the same client that no call waits on is reused (hold and park); only a new one
    // counts against the limits.
    if (!findIdle(admission.key)) {
        const qsizetype count = qsizetype(m_entries.size());
        if (count >= m_settings.maxPending || m_pendingBytes + origin.request.size() > m_settings.maxPendingBytes) {
            admission.verdict = Admission::Verdict::Refuse;
            admission.result = ToolResult::error(
                QStringLiteral("This call of \"%1\" needs a person at the Switchboard console, but %2 questions are "
                               "already waiting there (the limit is %3, interaction.maxPendingQuestions; and %4 "
                               "MiB in all). It did not run and was not paused. Retry after the person has answered "
                               "or dismissed some of them.")
                    .arg(tool.spec.name)
                    .arg(count)
                    .arg(m_settings.maxPending)
                    .arg(m_settings.maxPendingBytes / (1024 * 1024)));
            return admission;
        }
    }
    admission.verdict = Admission::Verdict::Pause;
    admission.mode = modeFor(origin.clientName);
    return admission;
}

bool InteractionBroker::wouldPause(
    const RegisteredTool& tool, const QString& sessionId, const QString& clientName) const
{
    const Permission permission = m_settings.policy.evaluate(tool).permission;
    if (permission == Permission::Deny)
        return false; // refused at once, never paused
    if (tool.clientTool)
        return true;
    // Without the arguments, only a grant for any arguments is known to let the call through.
    return permission == Permission::Ask
        && !m_approvals.find(tool.spec.name, sessionId, clientName, [] { return QByteArray(); });
}

PendingInteraction InteractionBroker::describe(
    const RegisteredTool& tool, const json& arguments, const Admission& admission, const CallOrigin& origin) const
{
    PendingInteraction interaction;
    interaction.id = newInteractionId();
    interaction.kind = admission.kind;
    interaction.tool = tool.spec.name;
    interaction.toolTitle = tool.spec.title;
    interaction.route = tool.route;
    // Shown to the person and written to the workspace state: redacted, like every record.
    const TokenRedactor& redactor = m_settings.redactor;
    interaction.arguments = ToolCall::argumentsFromRequest(origin.request);
    if (interaction.arguments.isEmpty())
        interaction.arguments = QByteArray::fromStdString(arguments.dump(2));
    interaction.arguments = redactor.jsonText(interaction.arguments);
    if (tool.clientTool) {
        interaction.render = tool.clientTool->render;
        interaction.renderSpec
            = redactor.jsonText(QByteArray::fromStdString(tool.clientTool->renderSpec(arguments).dump()));
    } else {
        interaction.render = RenderHint::Approval;
        const PermissionPolicy::Verdict verdict = m_settings.policy.evaluate(tool);
        interaction.renderSpec = QByteArray::fromStdString(json{{"render", "approval"},
            {"rule", verdict.rule.toStdString()}, {"description", tool.spec.description.toStdString()},
            {"annotations", tool.spec.annotations},
            {"roots", json(rootsOf(m_settings.roots))}}.dump());
    }
    interaction.sessionId = origin.sessionId;
    interaction.fromRunner = sessionKindOf(origin.sessionId) == SessionKind::Local;
    interaction.stateless = sessionKindOf(origin.sessionId) == SessionKind::Request;
    interaction.clientName = redactor.text(origin.clientName);
    interaction.clientVersion = redactor.text(origin.clientVersion);
    interaction.identity = origin.identity;
    interaction.callId = origin.callId;
    interaction.mode = admission.mode;
    interaction.createdAtMs = QDateTime::currentMSecsSinceEpoch();
    interaction.key = admission.key;
    return interaction;
}

InteractionBroker::Entry* InteractionBroker::findIdle(const QString& key)
{
    for (const QString& id : std::as_const(m_order)) {
        Entry& entry = m_entries.at(id);
        if (entry.interaction.key == key && !entry.interaction.waiting)
            return &entry;
    }
    return nullptr;
}

void InteractionBroker::startWaiting(Entry& entry, const CallOrigin& origin, Waiter waiter)
{
    PendingInteraction& interaction = entry.interaction;
    if (interaction.callId != 0 && interaction.callId != origin.callId)
        interaction.earlierCallIds.append(interaction.callId);
    interaction.callId = origin.callId;
    interaction.sessionId = origin.sessionId;
    interaction.fromRunner = sessionKindOf(origin.sessionId) == SessionKind::Local;
    interaction.stateless = sessionKindOf(origin.sessionId) == SessionKind::Request;
    interaction.clientName = m_settings.redactor.text(origin.clientName);
    interaction.clientVersion = m_settings.redactor.text(origin.clientVersion);
    interaction.identity = origin.identity;
    interaction.mode = PauseMode::Hold;
    interaction.waiting = true;
    interaction.deadlineMs = QDateTime::currentMSecsSinceEpoch() + m_settings.maxWaitMs;
    entry.waiter = std::move(waiter);
    if (!entry.deadline) {
        entry.deadline = new QTimer(this);
        entry.deadline->setSingleShot(true);
        connect(entry.deadline, &QTimer::timeout, this, [this, id = interaction.id] { expire(id); });
    }
    entry.deadline->start(m_settings.maxWaitMs);
}

void InteractionBroker::stopWaiting(Entry& entry)
{
    entry.interaction.waiting = false;
    entry.interaction.deadlineMs = 0;
    entry.waiter = {};
    if (entry.deadline) {
        entry.deadline->deleteLater();
        entry.deadline = nullptr;
    }
}

QString InteractionBroker::hold(const RegisteredTool& tool, const json& arguments, const Admission& admission,
    const CallOrigin& origin, Waiter waiter)
{
    if (Entry* idle = findIdle(admission.key)) {
        startWaiting(*idle, origin, std::move(waiter));
        save(idle, false);
        // Signals carry copies: a slot may answer the question, which erases the entry.
        const PendingInteraction changed = idle->interaction;
        Q_EMIT interactionChanged(changed);
        return changed.id;
    }
    Entry entry;
    entry.interaction = describe(tool, arguments, admission, origin);
    entry.arguments = arguments;
    const QString id = entry.interaction.id;
    auto [it, inserted] = m_entries.emplace(id, std::move(entry));
    m_order.append(id);
    startWaiting(it->second, origin, std::move(waiter));
    save(&it->second, false);
    const PendingInteraction raised = it->second.interaction;
    Q_EMIT interactionPending(raised);
    return id;
}

QString InteractionBroker::park(const RegisteredTool& tool, const json& arguments, const Admission& admission,
    const CallOrigin& origin, bool* duplicate)
{
    *duplicate = false;
    if (Entry* idle = findIdle(admission.key)) {
        *duplicate = true;
        PendingInteraction& interaction = idle->interaction;
        if (interaction.callId != origin.callId) {
            interaction.earlierCallIds.append(interaction.callId);
            interaction.callId = origin.callId;
        }
        interaction.mode = PauseMode::Park;
        save(idle, false);
        const PendingInteraction changed = interaction;
        Q_EMIT interactionChanged(changed);
        return changed.id;
    }
    Entry entry;
    entry.interaction = describe(tool, arguments, admission, origin);
    entry.interaction.mode = PauseMode::Park;
    entry.arguments = arguments;
    const QString id = entry.interaction.id;
    auto [it, inserted] = m_entries.emplace(id, std::move(entry));
    m_order.append(id);
    save(&it->second, false);
    Q_EMIT interactionPending(it->second.interaction);
    return id;
}

void InteractionBroker::detach(const QString& interactionId)
{
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end() || !it->second.interaction.waiting)
        return;
    stopWaiting(it->second); // waiting is not in the state file: nothing to write
    const PendingInteraction changed = it->second.interaction;
    Q_EMIT interactionChanged(changed);
}

void InteractionBroker::withdraw(const QString& id, const QString& reason)
{
    Q_UNUSED(reason)
    const QString interactionId = id; // `id` may be the entry's own, which is erased below
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end())
        return;
    erase(it);
    save(nullptr, false);
    Q_EMIT interactionResolved(interactionId, InteractionOutcome::Cancelled);
}

void InteractionBroker::expire(const QString& id)
{
    const QString interactionId = id; // `id` may be the entry's own, which is erased below
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end())
        return;
    Waiter waiter = std::move(it->second.waiter);
    erase(it);
    save(nullptr, false);
    Q_EMIT interactionResolved(interactionId, InteractionOutcome::Timeout);
    if (waiter.timedOut)
        waiter.timedOut();
}

bool InteractionBroker::answer(const QString& id, const InteractionAnswer& answer, QString* error,
    const QString& answeredBy, InteractionOutcome* outcome)
{
    // `id` may be the entry's own (a slot answering the PendingInteraction it was handed), and the
    // entry is erased below.
    const QString interactionId = id;
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end()) {
        *error = QStringLiteral("this question is no longer pending (it was answered, cancelled or timed out)");
        return false;
    }
    const PendingInteraction interaction = it->second.interaction;
    using Decision = InteractionAnswer::Decision;
    if (interaction.kind == InteractionKind::ClientTool) {
        if (answer.decision != Decision::Respond) {
            *error = QStringLiteral("a client tool is answered with a response, not an approval");
            return false;
        }
        const BoundedJson::Result<json> output = BoundedJson::parse(answer.output, BoundedJson::Limits::message());
        const auto tool = m_registry ? m_registry->find(interaction.tool.toStdString()) : nullptr;
        const QString problem = !output.ok
            ? QStringLiteral("the answer is not JSON (%1)").arg(QString::fromStdString(output.error))
            : tool && tool->clientTool ? tool->clientTool->checkOutput(output.value)
                                       : QString();
        if (!problem.isEmpty()) {
            *error = problem;
            return false;
        }
    } else if (answer.decision == Decision::Respond) {
        *error = QStringLiteral("an approval is answered with allow or deny");
        return false;
    } else if (answer.decision == Decision::AllowForSession && interaction.fromRunner) {
        *error = QStringLiteral("a one-shot runner's session ends with its process, so there is no session to "
                                "allow; allow once or always allow instead");
        return false;
    } else if (answer.decision == Decision::AllowForSession
        && sessionKindOf(interaction.sessionId) == SessionKind::Request) {
        // A grant for a session that ends with this answer would look given and grant nothing.
        *error = QStringLiteral("the client speaks MCP 2026-07-28, which has no sessions: there is no session to "
                                "allow; allow once or always allow instead");
        return false;
    }

    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString& by = answeredBy.isEmpty() ? m_settings.operatorName : answeredBy;
    const bool makesGrant = interaction.kind != InteractionKind::ClientTool
        && (answer.decision == Decision::AllowForSession || answer.decision == Decision::AlwaysAllow);
    ApprovalStore::Grant grant;
    if (makesGrant) {
        grant.id = ApprovalStore::newGrantId();
        grant.tool = interaction.tool;
        grant.grantedBy = by;
        grant.grantedAtMs = now;
        if (answer.decision == Decision::AllowForSession) {
            grant.clientName = interaction.clientKey();
            grant.sessionId = interaction.sessionId;
        } else {
            grant.clientName = answer.everyClient ? QString() : interaction.clientKey();
            grant.arguments = answer.anyArguments ? QByteArray() : grantArguments(it->second.arguments);
        }
        // A grant the store has no room for is refused before anything else changes: the question
        // stays open, and the person is told why and what else to answer.
        if (!m_approvals.grant(grant, error))
            return false;
    }
    Waiter waiter = std::move(it->second.waiter);
    erase(it);

    json decision;
    if (interaction.kind == InteractionKind::ClientTool) {
        const ToolResult result
            = ClientTool::resultFor(BoundedJson::parse(answer.output, BoundedJson::Limits::message()).value);
        decision = decisionRecord(result.outcome == CallStatus::Declined ? "declined" : "answered", "answer", by, now);
    } else if (makesGrant) {
        decision = decisionRecord(
            answer.decision == Decision::AllowForSession ? "allow_session" : "allow_always", "answer", by, now);
        decision["grant"] = grant.id.toStdString();
        decision["scope"] = scopeRecord(grant.clientName, grant.arguments.isEmpty(), grant.sessionId);
    } else {
        decision = decisionRecord(answer.decision == Decision::Deny ? "deny" : "allow_once", "answer", by, now);
        if (answer.decision == Decision::Deny && !answer.reason.isEmpty())
            decision["reason"] = answer.reason.toStdString();
    }
    decision["interaction"] = interactionId.toStdString();

    const bool delivered = bool(waiter.answered);
    if (!delivered) {
        // No call is waiting: keep the answer for the next identical call of the same client (the key
        // names the client). "Allow for this session" and "always allow" need nothing stored: the
        // grant or the rule lets the retry run, and only in that session when the answer was
        // session-scoped.
        if (interaction.kind == InteractionKind::ClientTool) {
            m_outputs.push(interaction.key, {answer.output, interactionId, now});
        } else if (answer.decision == Decision::AllowOnce || answer.decision == Decision::Deny) {
            m_approvals.pushDecision(
                interaction.key, {answer.decision != Decision::Deny, answer.reason, interactionId, by, now, 0});
        }
    }
    save(nullptr, true);
    if (outcome)
        *outcome = delivered ? InteractionOutcome::Answered : InteractionOutcome::Stored;
    Q_EMIT interactionResolved(interactionId, delivered ? InteractionOutcome::Answered : InteractionOutcome::Stored);
    Q_EMIT storesChanged();
    if (delivered)
        waiter.answered(answer, compact(decision));
    return true;
}

PendingInteractionList InteractionBroker::pending() const
{
    PendingInteractionList list;
    list.reserve(m_order.size());
    for (const QString& id : m_order)
        list.append(m_entries.at(id).interaction);
    return list;
}

PermissionEntryList InteractionBroker::permissionEntries() const
{
    PermissionEntryList entries = m_settings.policy.rules();
    const auto entryFor = [](const ApprovalStore::Grant& grant, PermissionEntry::Source source) {
        PermissionEntry entry;
        entry.id = grant.id;
        entry.source = source;
        entry.subject = grant.tool;
        entry.permission = QStringLiteral("allow");
        entry.clientName = grant.clientName;
        entry.sessionId = grant.sessionId;
        entry.arguments = grant.arguments;
        entry.grantedBy = grant.grantedBy;
        entry.grantedAtMs = grant.grantedAtMs;
        return entry;
    };
    for (const ApprovalStore::Grant& grant : m_approvals.grants())
        entries.append(entryFor(grant, PermissionEntry::Source::Always));
    for (const ApprovalStore::Grant& grant : m_approvals.sessionGrants())
        entries.append(entryFor(grant, PermissionEntry::Source::Session));
    return entries;
}

bool InteractionBroker::revokeGrant(const QString& grantId)
{
    if (!m_approvals.revoke(grantId))
        return false;
    save(nullptr, true);
    Q_EMIT storesChanged();
    return true;
}

void InteractionBroker::forgetSession(const QString& sessionId)
{
    if (m_approvals.forgetSession(sessionId))
        Q_EMIT storesChanged();
}

void InteractionBroker::erase(std::map<QString, Entry>::iterator it)
{
    stopWaiting(it->second);
    m_pendingBytes -= it->second.record.size();
    m_order.removeOne(it->first);
    if (m_state)
        m_state->removeQuestion(it->first);
    m_entries.erase(it);
}

void InteractionBroker::save(Entry* changed, bool stores)
{
    if (changed) {
        m_pendingBytes -= changed->record.size();
        changed->record = QByteArray::fromStdString(changed->interaction.toJson().dump());
        m_pendingBytes += changed->record.size();
        if (m_state)
            m_state->putQuestion(changed->interaction.id, changed->record);
    }
    if (stores && m_state) {
        m_state->putClientOutputs(QByteArray::fromStdString(m_outputs.toJson().dump()));
        m_state->putApprovals(QByteArray::fromStdString(m_approvals.toJson().dump()));
    }
}

bool InteractionBroker::flush(QString* error)
{
    return !m_state || m_state->flush(error);
}

void InteractionBroker::watchState()
{
    if (m_state)
        m_state->watch();
}

void InteractionBroker::applyExternalState(const InteractionState::CompactRecords& records)
{
    // The stores first: a question answered elsewhere left its answer among them, which tells how it
    // was resolved and is what a call waiting for it here receives.
    QSet<QString> answeredIds;
    const bool storesAdopted = adoptStores(records, &answeredIds);
    m_tasks->adoptExternal(records.tasks);
    QSet<QString> present;
    QStringList raised;
    QStringList changed;
    for (const auto& [id, record] : records.questions) {
        present.insert(id);
        bool isNew = false;
        if (adoptQuestion(id, record, &isNew))
            (isNew ? raised : changed) << id;
    }
    QStringList gone;
    for (const QString& id : std::as_const(m_order)) {
        if (!present.contains(id))
            gone << id;
    }
    // Told only now, each looked up again: a slot may answer a question it is told about, which
    // erases it (and may change others).
    for (const QString& id : std::as_const(gone))
        resolveGoneElsewhere(id, answeredIds);
    for (const QString& id : std::as_const(raised)) {
        const auto it = m_entries.find(id);
        if (it == m_entries.end())
            continue;
        const PendingInteraction interaction = it->second.interaction;
        Q_EMIT interactionPending(interaction);
    }
    for (const QString& id : std::as_const(changed)) {
        const auto it = m_entries.find(id);
        if (it == m_entries.end())
            continue;
        const PendingInteraction interaction = it->second.interaction;
        Q_EMIT interactionChanged(interaction);
    }
    if (storesAdopted)
        Q_EMIT storesChanged();
}

bool InteractionBroker::adoptStores(const InteractionState::CompactRecords& records, QSet<QString>* answeredIds)
{
    const auto parse
        = [](const QByteArray& record) { return BoundedJson::parse(record, BoundedJson::Limits::stateFile()); };
    const BoundedJson::Result<json> outputsParsed = parse(records.clientOutputs);
    const BoundedJson::Result<json> approvalsParsed = parse(records.approvals);
    const json& outputs = outputsParsed.value;
    const json& approvals = approvalsParsed.value;
    // Another process's records, read strictly: what does not read is left out, never half taken.
    QString problem = QString::fromStdString(outputsParsed.ok ? approvalsParsed.error : outputsParsed.error);
    ClientOutputStore merged;
    const bool outputsRead = outputsParsed.ok && merged.fromJson(outputs, &problem);
    ApprovalStore mergedApprovals;
    const bool approvalsRead = approvalsParsed.ok && mergedApprovals.fromJson(approvals, &problem);
    if (!outputsRead || !approvalsRead) {
        qWarning("switchboard: stored answers from another process left out: %s", qPrintable(problem));
        return false;
    }
    for (const json& key : outputs) {
        for (const json& output : key.at("outputs"))
            answeredIds->insert(QString::fromStdString(output.at("interactionId").get<std::string>()));
    }
    for (const json& key : approvals.at("decisions")) {
        for (const json& decision : key.at("decisions"))
            answeredIds->insert(QString::fromStdString(decision.at("interactionId").get<std::string>()));
    }
    bool adopted = false;
    if (outputs != m_outputs.toJson()) {
        m_outputs = std::move(merged);
        adopted = true;
    }
    // Compared as the store writes them: a file in the older shape holds the same grants.
    if (mergedApprovals.toJson() != m_approvals.toJson()) {
        m_approvals.fromJson(approvals, &problem); // read above; keeps this process's session grants
        adopted = true;
    }
    // Merged answers beyond the stores' bounds gave way while reading: the file says so too.
    if (adopted && (m_outputs.toJson() != outputs || m_approvals.toJson() != approvals))
        save(nullptr, true);
    return adopted;
}

bool InteractionBroker::adoptQuestion(const QString& id, const QByteArray& record, bool* raised)
{
    const auto it = m_entries.find(id);
    if (it != m_entries.end() && it->second.record == record)
        return false;
    PendingInteraction external;
    QString problem;
    const BoundedJson::Result<json> parsed = BoundedJson::parse(record, BoundedJson::Limits::record());
    if (!parsed.ok)
        problem = QStringLiteral("question %1 is not JSON (%2)").arg(id, QString::fromStdString(parsed.error));
    if (!parsed.ok
        || !PendingInteraction::fromJson(parsed.value, QStringLiteral("question %1").arg(id), &external, &problem)) {
        qWarning("switchboard: a question from another process left out: %s", qPrintable(problem));
        return false;
    }
    if (it == m_entries.end()) {
        // A question another process raised (a runner's call, parked): shown here as if asked here,
        // and answered here into the stores, where that process's retry finds the answer.
        Entry entry;
        entry.interaction = std::move(external);
        entry.arguments = BoundedJson::parse(entry.interaction.arguments, BoundedJson::Limits::record()).value;
        entry.record = QByteArray::fromStdString(entry.interaction.toJson().dump());
        m_pendingBytes += entry.record.size();
        m_entries.emplace(id, std::move(entry));
        m_order.append(id);
        *raised = true;
        return true;
    }
    Entry& entry = it->second;
    PendingInteraction& interaction = entry.interaction;
    if (interaction.waiting) {
        // A call here waits on it (another process parked the same question on it, which it could
        // not see waiting): this process's call stays the one it belongs to, the other's call joins
        // the earlier ones, and the question is written back that way.
        QList<qint64> earlier = external.earlierCallIds;
        if (external.callId != 0 && !earlier.contains(external.callId))
            earlier.append(external.callId);
        earlier.removeAll(interaction.callId);
        const bool joined = earlier != interaction.earlierCallIds;
        interaction.earlierCallIds = earlier;
        save(&entry, false); // puts nothing when the record is what the state holds already
        *raised = false;
        return joined;
    }
    m_pendingBytes -= entry.record.size();
    interaction = std::move(external);
    entry.record = QByteArray::fromStdString(interaction.toJson().dump());
    m_pendingBytes += entry.record.size();
    *raised = false;
    return true;
}

void InteractionBroker::resolveGoneElsewhere(const QString& id, const QSet<QString>& answeredIds)
{
    const QString interactionId = id; // `id` may be the entry's own, which is erased below
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end())
        return;
    if (it->second.interaction.waiting) {
        // Answered in another process (a second console), which had no call to give it to: the call
        // waiting here takes the answer stored for it. Without one the call keeps waiting, and the
        // question, still this process's, is written back.
        QByteArray decision;
        if (std::optional<InteractionAnswer> answer = takeStoredAnswer(it->second, &decision)) {
            Waiter waiter = std::move(it->second.waiter);
            erase(it);
            save(nullptr, true);
            Q_EMIT interactionResolved(interactionId, InteractionOutcome::Answered);
            Q_EMIT storesChanged();
            if (waiter.answered)
                waiter.answered(*answer, decision);
            return;
        }
        if (m_state)
            m_state->putQuestion(interactionId, it->second.record);
        return;
    }
    erase(it); // gone from the state already: nothing to remove there
    Q_EMIT interactionResolved(interactionId,
        answeredIds.contains(interactionId) ? InteractionOutcome::Stored : InteractionOutcome::Cancelled);
}

std::optional<InteractionAnswer> InteractionBroker::takeStoredAnswer(const Entry& entry, QByteArray* decision)
{
    const PendingInteraction& interaction = entry.interaction;
    if (interaction.kind == InteractionKind::ClientTool) {
        std::optional<ClientOutputStore::Entry> stored = m_outputs.take(interaction.key);
        if (!stored)
            return std::nullopt;
        InteractionAnswer answer;
        answer.decision = InteractionAnswer::Decision::Respond;
        answer.output = stored->output;
        const ToolResult result
            = ClientTool::resultFor(BoundedJson::parse(stored->output, BoundedJson::Limits::record()).value);
        json record = decisionRecord(result.outcome == CallStatus::Declined ? "declined" : "answered", "stored",
            QString(), stored->answeredAtMs);
        record["interaction"] = stored->interactionId.toStdString();
        *decision = compact(record);
        return answer;
    }
    if (std::optional<ApprovalStore::Decision> stored = m_approvals.takeDecision(interaction.key)) {
        json record
            = decisionRecord(stored->allow ? "allow_once" : "deny", "stored", stored->decidedBy, stored->decidedAtMs);
        record["interaction"] = stored->interactionId.toStdString();
        if (!stored->reason.isEmpty())
            record["reason"] = stored->reason.toStdString();
        *decision = compact(record);
        return stored->allow ? InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce)
                             : InteractionAnswer::decide(InteractionAnswer::Decision::Deny, stored->reason);
    }
    if (const auto grant = m_approvals.find(interaction.tool, interaction.sessionId, interaction.clientKey(),
            [this, &entry] { return grantArguments(entry.arguments); })) {
        *decision = decisionFor(*grant);
        return InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce);
    }
    return std::nullopt;
}
