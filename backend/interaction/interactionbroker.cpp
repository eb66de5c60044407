#include "interaction/interactionbroker.h"

#include "interaction/clienttool.h"
#include "store/workspacestatefile.h"
#include "tools/toolcall.h"
#include "tools/toolregistry.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTimer>

using nlohmann::json;

namespace {

constexpr int StateVersion = 1;

QString newInteractionId()
{
    quint32 words[3];
    QRandomGenerator::system()->fillRange(words);
    return QStringLiteral("ia-")
        + QString::fromLatin1(QByteArray(reinterpret_cast<const char*>(words), sizeof words).toHex());
}

} // namespace

InteractionBroker::InteractionBroker(Settings settings, const ToolRegistry* registry, QObject* parent)
    : QObject(parent)
    , m_settings(std::move(settings))
    , m_registry(registry)
{
    qRegisterMetaType<PendingInteraction>();
    qRegisterMetaType<PendingInteractionList>();
    qRegisterMetaType<InteractionAnswer>();
    if (!m_settings.statePath.isEmpty()) {
        m_ownWriter = new WorkspaceStateWriter(m_settings.statePath, this);
        connect(m_ownWriter, &WorkspaceStateWriter::writeFailed, this, &InteractionBroker::stateWriteFailed);
        m_writer = m_ownWriter;
    }
}

InteractionBroker::~InteractionBroker()
{
    flush();
}

void InteractionBroker::setWriter(WorkspaceStateWriter* writer)
{
    m_writer = writer;
    if (writer != m_ownWriter) {
        connect(writer, &WorkspaceStateWriter::writeFailed, this, &InteractionBroker::stateWriteFailed);
        delete m_ownWriter;
        m_ownWriter = nullptr;
    }
}

void InteractionBroker::load(QString* warning)
{
    if (m_settings.statePath.isEmpty())
        return;
    QByteArray contents;
    QString error;
    if (!WorkspaceStateFile::read(m_settings.statePath, &contents, &error)) {
        *warning = error;
        return;
    }
    if (contents.isEmpty())
        return;
    const json state = json::parse(contents.constData(), contents.constData() + contents.size(), nullptr, false);
    if (!state.is_object() || state.value("version", 0) != StateVersion) {
        const QString aside = WorkspaceStateFile::setAside(m_settings.statePath);
        *warning = QStringLiteral("the workspace state %1 could not be read; it was kept as %2 and the console "
                                  "starts without pending interactions or stored answers")
                       .arg(m_settings.statePath, aside.isEmpty() ? QStringLiteral("(move failed)") : aside);
        return;
    }
    int skipped = 0;
    if (const auto pending = state.find("pending"); pending != state.end() && pending->is_array()) {
        for (const json& item : *pending) {
            Entry entry;
            if (!PendingInteraction::fromJson(item, &entry.interaction)) {
                ++skipped;
                continue;
            }
            entry.arguments = json::parse(entry.interaction.arguments.toStdString(), nullptr, false);
            if (entry.arguments.is_discarded())
                entry.arguments = json::object();
            const QString id = entry.interaction.id;
            m_order.append(id);
            m_entries.emplace(id, std::move(entry));
        }
    }
    m_outputs.fromJson(state.value("clientOutputs", json::array()), &skipped);
    m_approvals.fromJson(state.value("approvals", json::object()), &skipped);
    if (skipped > 0)
        *warning = QStringLiteral("%1 entries of the workspace state %2 could not be read and were left out")
                       .arg(skipped)
                       .arg(m_settings.statePath);
}

PauseMode InteractionBroker::modeFor(const QString& clientName) const
{
    return m_settings.clientModes.value(clientName, m_settings.defaultMode);
}

QString InteractionBroker::keyFor(const QString& tool, const json& arguments)
{
    // nlohmann::json keeps object keys sorted, so dump() is canonical.
    return tool + QLatin1Char('\n') + QString::fromStdString(arguments.dump());
}

InteractionBroker::Admission InteractionBroker::admit(
    const RegisteredTool& tool, const json& arguments, const CallOrigin& origin)
{
    Admission admission;
    const PermissionPolicy::Verdict verdict = m_settings.policy.evaluate(tool);
    if (verdict.permission == Permission::Deny) {
        admission.verdict = Admission::Verdict::Refuse;
        admission.result = ToolResult::error(
            QStringLiteral("Tool \"%1\" is denied by the Switchboard operator's policy (%2); it did not run.")
                .arg(tool.spec.name, verdict.rule));
        return admission;
    }
    if (tool.clientTool) {
        const QString problem = tool.clientTool->checkArguments(arguments);
        if (!problem.isEmpty()) {
            admission.verdict = Admission::Verdict::Refuse;
            admission.result = ToolResult::error(problem);
            return admission;
        }
        admission.kind = InteractionKind::ClientTool;
        admission.key = keyFor(tool.spec.name, arguments);
        if (auto stored = m_outputs.take(admission.key)) {
            admission.verdict = Admission::Verdict::Answer;
            admission.result = ClientTool::resultFor(json::parse(stored->output.toStdString(), nullptr, false));
            save();
            Q_EMIT storesChanged();
            return admission;
        }
    } else {
        if (verdict.permission == Permission::Allow || m_approvals.isAlwaysAllowed(tool.spec.name)
            || m_approvals.isAllowedForSession(origin.sessionId, tool.spec.name))
            return admission; // Run
        admission.kind = InteractionKind::Approval;
        admission.key = keyFor(tool.spec.name, arguments);
        if (auto decision = m_approvals.takeDecision(admission.key)) {
            save();
            Q_EMIT storesChanged();
            if (decision->allow)
                return admission; // Run: the person allowed this call while it was parked
            admission.verdict = Admission::Verdict::Refuse;
            admission.result = ToolResult::error(
                QStringLiteral("The person at the Switchboard console denied this call of \"%1\"%2.")
                    .arg(tool.spec.name,
                        decision->reason.isEmpty() ? QString() : QStringLiteral(": ") + decision->reason));
            return admission;
        }
    }
    admission.verdict = Admission::Verdict::Pause;
    admission.mode = modeFor(origin.clientName);
    return admission;
}

bool InteractionBroker::wouldPause(const RegisteredTool& tool, const QString& sessionId) const
{
    const Permission permission = m_settings.policy.evaluate(tool).permission;
    if (permission == Permission::Deny)
        return false; // refused at once, never paused
    if (tool.clientTool)
        return true;
    return permission == Permission::Ask && !m_approvals.isAlwaysAllowed(tool.spec.name)
        && !m_approvals.isAllowedForSession(sessionId, tool.spec.name);
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
        interaction.render = QStringLiteral("approval");
        const PermissionPolicy::Verdict verdict = m_settings.policy.evaluate(tool);
        interaction.renderSpec = QByteArray::fromStdString(json{{"render", "approval"},
            {"rule", verdict.rule.toStdString()}, {"description", tool.spec.description.toStdString()},
            {"annotations", tool.spec.annotations}}.dump());
    }
    interaction.sessionId = origin.sessionId;
    interaction.clientName = redactor.text(origin.clientName);
    interaction.clientVersion = redactor.text(origin.clientVersion);
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
    interaction.clientName = m_settings.redactor.text(origin.clientName);
    interaction.clientVersion = m_settings.redactor.text(origin.clientVersion);
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
        save();
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
    save();
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
        save();
        const PendingInteraction changed = interaction;
        Q_EMIT interactionChanged(changed);
        return changed.id;
    }
    Entry entry;
    entry.interaction = describe(tool, arguments, admission, origin);
    entry.interaction.mode = PauseMode::Park;
    entry.arguments = arguments;
    const QString id = entry.interaction.id;
    m_entries.emplace(id, entry);
    m_order.append(id);
    save();
    Q_EMIT interactionPending(entry.interaction);
    return id;
}

void InteractionBroker::detach(const QString& interactionId)
{
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end() || !it->second.interaction.waiting)
        return;
    stopWaiting(it->second);
    save();
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
    stopWaiting(it->second);
    m_entries.erase(it);
    m_order.removeOne(interactionId);
    save();
    Q_EMIT interactionResolved(interactionId, QStringLiteral("cancelled"));
}

void InteractionBroker::expire(const QString& id)
{
    const QString interactionId = id; // `id` may be the entry's own, which is erased below
    const auto it = m_entries.find(interactionId);
    if (it == m_entries.end())
        return;
    Waiter waiter = std::move(it->second.waiter);
    stopWaiting(it->second);
    m_entries.erase(it);
    m_order.removeOne(interactionId);
    save();
    Q_EMIT interactionResolved(interactionId, QStringLiteral("timeout"));
    if (waiter.timedOut)
        waiter.timedOut();
}

bool InteractionBroker::answer(const QString& id, const InteractionAnswer& answer, QString* error)
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
        const json output = json::parse(answer.output.toStdString(), nullptr, false);
        const auto tool = m_registry ? m_registry->find(interaction.tool.toStdString()) : nullptr;
        const QString problem = output.is_discarded() ? QStringLiteral("the answer is not JSON")
            : tool && tool->clientTool                ? tool->clientTool->checkOutput(output)
                                                      : QString();
        if (!problem.isEmpty()) {
            *error = problem;
            return false;
        }
    } else if (answer.decision == Decision::Respond) {
        *error = QStringLiteral("an approval is answered with allow or deny");
        return false;
    }

    Waiter waiter = std::move(it->second.waiter);
    stopWaiting(it->second);
    m_entries.erase(it);
    m_order.removeOne(interactionId);

    if (answer.decision == Decision::AllowForSession)
        m_approvals.allowForSession(interaction.sessionId, interaction.tool);
    else if (answer.decision == Decision::AlwaysAllow)
        m_approvals.alwaysAllow(interaction.tool);

    const bool delivered = bool(waiter.answered);
    if (!delivered) {
        // No call is waiting: keep the answer for the next identical call.
        if (interaction.kind == InteractionKind::ClientTool) {
            m_outputs.push(interaction.key, {answer.output, interactionId, QDateTime::currentMSecsSinceEpoch()});
        } else {
            m_approvals.pushDecision(
                interaction.key, {answer.decision != Decision::Deny, answer.reason, interactionId});
        }
    }
    save();
    Q_EMIT interactionResolved(interactionId, delivered ? QStringLiteral("answered") : QStringLiteral("stored"));
    Q_EMIT storesChanged();
    if (delivered)
        waiter.answered(answer);
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

bool InteractionBroker::revokeAlwaysAllow(const QString& tool)
{
    if (!m_approvals.revokeAlways(tool))
        return false;
    save();
    Q_EMIT storesChanged();
    return true;
}

void InteractionBroker::forgetSession(const QString& sessionId)
{
    m_approvals.forgetSession(sessionId);
}

QByteArray InteractionBroker::snapshot() const
{
    json pending = json::array();
    for (const QString& id : m_order)
        pending.push_back(m_entries.at(id).interaction.toJson());
    const json state{{"version", StateVersion}, {"pending", std::move(pending)}, {"clientOutputs", m_outputs.toJson()},
        {"approvals", m_approvals.toJson()}};
    return QByteArray::fromStdString(state.dump(2));
}

void InteractionBroker::save()
{
    if (m_writer)
        m_writer->submit(snapshot());
}

void InteractionBroker::flush()
{
    if (m_writer)
        m_writer->flush();
}
