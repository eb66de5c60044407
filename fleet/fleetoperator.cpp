#include "fleetoperator.h"

#include "remoteoperator.h"

#include <QSslCertificate>
#include <QTimer>

#include <algorithm>

namespace {

// Where a page of history ends is remembered for its next page; a window pages through a few
// hundred at most, so the oldest are let go past this.
constexpr int MaxPageEnds = 1000;
// Window ids kept, both ways (about 100 bytes each): the log shows tens of thousands of rows at most,
// so past this the half furthest from the newest are let go (a call seen again gets a new id).
constexpr qsizetype MaxWindowIds = 1'000'000;

} // namespace

QString FleetOperator::localName()
{
    return QStringLiteral("this machine");
}

FleetOperator::FleetOperator(QObject* parent)
    : OperatorInterface(parent)
{
    m_detached.slot = -1; // no command finds it
    m_detached.name = tr("a detached backend");
}

FleetOperator::~FleetOperator()
{
    for (const auto& held : m_members) {
        for (const QMetaObject::Connection& connection : std::as_const(held->connections))
            disconnect(connection);
        if (held->owned && held->backend)
            delete held->backend.data();
    }
}

bool FleetOperator::addBackend(OperatorInterface* backend, const QString& name, bool owned, bool detachable)
{
    if (!backend || name.isEmpty() || member(name))
        return false;
    auto added = std::make_unique<Member>();
    added->slot = m_nextSlot++;
    added->name = name;
    added->backend = backend;
    added->owned = owned;
    added->detachable = detachable;
    if (!backend->isBackendConnected())
        added->problem = tr("not reached yet");
    Member& held = *added;
    m_members.push_back(std::move(added));
    connectMember(held);
    renumber();
    Q_EMIT backendsChanged();
    return true;
}

bool FleetOperator::removeBackend(const QString& name)
{
    const auto it
        = std::find_if(m_members.begin(), m_members.end(), [&name](const auto& held) { return held->name == name; });
    if (it == m_members.end())
        return false;
    std::unique_ptr<Member> gone = std::move(*it);
    m_members.erase(it);
    for (const QMetaObject::Connection& connection : std::as_const(gone->connections))
        disconnect(connection);
    forgetChildRequests(gone->slot);
    if (gone->owned && gone->backend)
        gone->backend->deleteLater();
    // Its questions, sessions and grants leave the window with it (and its calls, when the window
    // reloads its log for the renumbering).
    emitInteractions();
    emitSessions();
    Q_EMIT grantsListed(allGrants());
    renumber();
    Q_EMIT backendsChanged();
    const bool connected = isBackendConnected();
    Q_EMIT backendConnectionChanged(connected,
        connected ? tr("Detached from %1").arg(gone->name)
                  : tr("Detached from %1; still not live: %2").arg(gone->name, backendProblem({})));
    return true;
}

OperatorInterface* FleetOperator::backend(const QString& name) const
{
    const Member* held = member(name);
    return held ? held->backend.data() : nullptr;
}

qint64 FleetOperator::windowCallId(const QString& name, qint64 callId) const
{
    const Member* held = member(name);
    if (!held || callId <= 0)
        return 0;
    if (!isNamed())
        return callId;
    return m_windowIds.value({held->slot, callId});
}

std::pair<QString, qint64> FleetOperator::backendCallId(qint64 windowCallId) const
{
    const std::optional<std::pair<int, qint64>> own = backendId(windowCallId);
    const Member* held = own ? memberAt(own->first) : nullptr;
    return held ? std::pair(held->name, own->second) : std::pair<QString, qint64>();
}

qint64 FleetOperator::windowId(int slot, qint64 callId, bool live)
{
    if (callId <= 0)
        return 0;
    if (!isNamed())
        return callId;
    const QPair<int, qint64> key(slot, callId);
    if (const auto it = m_windowIds.constFind(key); it != m_windowIds.constEnd())
        return *it;
    const qint64 id = live ? m_nextLiveId++ : m_nextOlderId--;
    m_windowIds.insert(key, id);
    m_backendIds.insert(id, key);
    if (m_backendIds.size() > MaxWindowIds)
        pruneWindowIds();
    return id;
}

QHash<qint64, qint64> FleetOperator::renumberProvisional(const Member& from, const ToolCallList& calls)
{
    // Only a call numbered by its question while an older call of the same batch has no number yet
    // is out of order.
    QList<qint64> own;
    for (const ToolCall& call : calls)
        own.append(call.id);
    std::sort(own.begin(), own.end());
    bool unnumberedBefore = false;
    bool outOfOrder = false;
    for (const qint64 id : std::as_const(own)) {
        const QPair<int, qint64> key(from.slot, id);
        if (m_provisional.contains(key) && unnumberedBefore) {
            outOfOrder = true;
            break;
        }
        unnumberedBefore = unnumberedBefore || !m_windowIds.contains(key);
    }
    if (!outOfOrder)
        return {};
    QHash<qint64, qint64> renumbered; // old window id → new
    QList<QPair<qint64, QPair<int, qint64>>> taken;
    for (const qint64 id : std::as_const(own)) {
        const QPair<int, qint64> key(from.slot, id);
        if (!m_provisional.contains(key))
            continue;
        const qint64 old = m_windowIds.take(key);
        m_backendIds.remove(old);
        taken.append({old, key});
    }
    for (const qint64 id : std::as_const(own))
        windowId(from.slot, id, true);
    for (const auto& [old, key] : std::as_const(taken))
        renumbered.insert(old, m_windowIds.value(key));
    return renumbered;
}

void FleetOperator::pruneWindowIds()
{
    const qint64 liveFrom = m_nextLiveId - MaxWindowIds / 2;
    const qint64 olderFrom = m_nextOlderId + MaxWindowIds / 2;
    for (auto it = m_backendIds.begin(); it != m_backendIds.end();) {
        const bool far = it.key() >= LiveBase ? it.key() < liveFrom : it.key() > olderFrom;
        if (far) {
            m_windowIds.remove(it.value());
            it = m_backendIds.erase(it);
        } else {
            ++it;
        }
    }
}

std::optional<std::pair<int, qint64>> FleetOperator::backendId(qint64 windowCallId) const
{
    if (windowCallId <= 0)
        return std::nullopt;
    if (!isNamed()) {
        if (m_members.empty())
            return std::nullopt;
        return std::pair(m_members.front()->slot, windowCallId);
    }
    const auto it = m_backendIds.constFind(windowCallId);
    if (it == m_backendIds.constEnd())
        return std::nullopt;
    return std::pair(it->first, it->second);
}

void FleetOperator::renumber()
{
    // Window ids start again for the backends held now (the window reloads its log); the questions
    // come again with their calls' new ids.
    forgetWindowIds();
    for (const auto& held : m_members) {
        if (held->backend)
            held->backend->listInteractions();
    }
}

void FleetOperator::forgetWindowIds()
{
    m_windowIds.clear();
    m_backendIds.clear();
    m_provisional.clear();
    m_pageEnds.clear();
    m_nextLiveId = LiveBase;
    m_nextOlderId = LiveBase - 1;
}

FleetOperator::Member* FleetOperator::member(const QString& name) const
{
    for (const auto& held : m_members) {
        if (held->name == name)
            return held.get();
    }
    return nullptr;
}

FleetOperator::Member* FleetOperator::memberAt(int slot) const
{
    for (const auto& held : m_members) {
        if (held->slot == slot)
            return held.get();
    }
    return nullptr;
}

FleetOperator::Member* FleetOperator::primary() const
{
    return m_members.empty() ? nullptr : m_members.front().get();
}

QString FleetOperator::windowInteractionId(const Member& from, const QString& id) const
{
    // The first backend's ids stay as they are (a window on one backend sees no change); the
    // others' carry their slot, so that two backends' "ia-1" stay two questions.
    return from.slot == 0 ? id : id + QLatin1Char('@') + QString::number(from.slot);
}

FleetOperator::Member* FleetOperator::owner(const QString& interactionId, QString* localId) const
{
    const qsizetype at = interactionId.lastIndexOf(QLatin1Char('@'));
    if (at > 0) {
        bool ok = false;
        const int slot = interactionId.mid(at + 1).toInt(&ok);
        if (ok && slot > 0) {
            *localId = interactionId.left(at);
            return memberAt(slot);
        }
    }
    *localId = interactionId;
    return memberAt(0);
}

QString FleetOperator::named(const Member& from, const QString& message) const
{
    return isNamed() ? QStringLiteral("%1: %2").arg(from.name, message) : message;
}

ToolCall FleetOperator::toWindow(const Member& from, ToolCall call, bool live)
{
    call.id = windowId(from.slot, call.id, live);
    call.replayOf = windowId(from.slot, call.replayOf, false);
    // A window on one backend exports and shows its calls as that backend's own window would; with
    // several, each names its own (a change between the two reloads the log).
    call.backend = isNamed() ? from.name : QString();
    return call;
}

PendingInteraction FleetOperator::toWindow(const Member& from, PendingInteraction interaction)
{
    interaction.id = windowInteractionId(from, interaction.id);
    // The call that asks runs now; earlier ones may be known only to history.
    const bool known = !isNamed() || m_windowIds.contains({from.slot, interaction.callId});
    interaction.callId = windowId(from.slot, interaction.callId, true);
    // Numbered before the log has the call: when it comes in a batch with older calls of its
    // backend (the whole state after attaching), it is numbered again in their order (callsUpdated).
    if (!known && interaction.callId > 0)
        m_provisional.insert(m_backendIds.value(interaction.callId));
    for (qint64& earlier : interaction.earlierCallIds)
        earlier = windowId(from.slot, earlier, false);
    interaction.backend = from.name;
    return interaction;
}

void FleetOperator::connectMember(Member& joined)
{
    OperatorInterface* source = joined.backend;
    const int slot = joined.slot;
    QList<QMetaObject::Connection>& c = joined.connections;
    // Every handler looks its member up again: one detached meanwhile has no handlers left, and a call
    // already on its way (queued) finds a stand-in rather than nothing.
    const auto at = [this, slot] {
        Member* held = memberAt(slot);
        return held ? held : &m_detached;
    };

    c << connect(source, &OperatorInterface::callsUpdated, this, [this, at](const ToolCallList& calls) {
        Member* from = at();
        const QHash<qint64, qint64> renumbered = renumberProvisional(*from, calls);
        ToolCallList shown;
        shown.reserve(calls.size());
        for (const ToolCall& call : calls) {
            if (call.id > 0 && (from->oldestCallId == 0 || call.id < from->oldestCallId))
                from->oldestCallId = call.id;
            m_provisional.remove({from->slot, call.id});
            shown.append(toWindow(*from, call, true));
        }
        std::sort(shown.begin(), shown.end(), [](const ToolCall& a, const ToolCall& b) { return a.id < b.id; });
        Q_EMIT callsUpdated(shown);
        // The questions whose calls were numbered again show the new numbers.
        if (!renumbered.isEmpty()) {
            for (PendingInteraction& interaction : from->interactions) {
                if (const auto it = renumbered.constFind(interaction.callId); it != renumbered.constEnd()) {
                    interaction.callId = *it;
                    Q_EMIT interactionChanged(interaction);
                }
            }
        }
    });
    c << connect(source, &OperatorInterface::sessionsChanged, this, [this, at](int count) {
        at()->sessionCount = count;
        int total = 0;
        for (const auto& held : m_members)
            total += held->sessionCount;
        Q_EMIT sessionsChanged(total);
    });
    c << connect(source, &OperatorInterface::historyLoaded, this,
        [this, slot](quint64 requestId, const ToolCallList& calls, bool hasMore) {
            childHistoryLoaded(slot, requestId, calls, hasMore);
        });
    c << connect(source, &OperatorInterface::historyCounted, this,
        [this, slot](quint64 requestId, qint64 count) { childHistoryCounted(slot, requestId, count); });
    c << connect(source, &OperatorInterface::historyPruned, this, &OperatorInterface::historyPruned);
    c << connect(source, &OperatorInterface::historyWriteFailed, this,
        [this, at](const QString& error) { Q_EMIT historyWriteFailed(named(*at(), error)); });
    c << connect(source, &OperatorInterface::historyWriteRecovered, this, &OperatorInterface::historyWriteRecovered);
    c << connect(source, &OperatorInterface::historyCallsLeftOut, this, &OperatorInterface::historyCallsLeftOut);
    c << connect(source, &OperatorInterface::historyNotice, this,
        [this, at](const QString& message) { Q_EMIT historyNotice(named(*at(), message)); });

    c << connect(
        source, &OperatorInterface::interactionsListed, this, [this, at](const PendingInteractionList& interactions) {
            Member* from = at();
            from->interactions.clear();
            for (const PendingInteraction& interaction : interactions)
                from->interactions.append(toWindow(*from, interaction));
            emitInteractions();
        });
    c << connect(
        source, &OperatorInterface::interactionPending, this, [this, at](const PendingInteraction& interaction) {
            Member* from = at();
            const PendingInteraction shown = toWindow(*from, interaction);
            from->interactions.removeIf([&shown](const PendingInteraction& held) { return held.id == shown.id; });
            from->interactions.append(shown);
            Q_EMIT interactionPending(shown);
        });
    c << connect(
        source, &OperatorInterface::interactionChanged, this, [this, at](const PendingInteraction& interaction) {
            Member* from = at();
            const PendingInteraction shown = toWindow(*from, interaction);
            for (PendingInteraction& held : from->interactions) {
                if (held.id == shown.id)
                    held = shown;
            }
            Q_EMIT interactionChanged(shown);
        });
    c << connect(source, &OperatorInterface::interactionResolved, this,
        [this, at](const QString& interactionId, InteractionOutcome outcome) {
            Member* from = at();
            const QString shown = windowInteractionId(*from, interactionId);
            from->interactions.removeIf([&shown](const PendingInteraction& held) { return held.id == shown; });
            Q_EMIT interactionResolved(shown, outcome);
        });
    c << connect(source, &OperatorInterface::interactionAnswerFailed, this,
        [this, at](const QString& interactionId, const QString& error) {
            Q_EMIT interactionAnswerFailed(windowInteractionId(*at(), interactionId), error);
        });
    c << connect(source, &OperatorInterface::oauthAuthorizationUrl, this,
        [this, at](const QString& interactionId, const QUrl& url) {
            Q_EMIT oauthAuthorizationUrl(windowInteractionId(*at(), interactionId), url);
        });
    c << connect(source, &OperatorInterface::connectFailed, this,
        [this, at](const QString& interactionId, const QString& message) {
            Q_EMIT connectFailed(windowInteractionId(*at(), interactionId), message);
        });

    c << connect(source, &OperatorInterface::workspaceStateProblem, this,
        [this, at](const QString& message) { Q_EMIT workspaceStateProblem(named(*at(), message)); });
    c << connect(source, &OperatorInterface::workspaceStateNotice, this,
        [this, at](const QString& message) { Q_EMIT workspaceStateNotice(named(*at(), message)); });
    c << connect(
        source, &OperatorInterface::workspaceStateRecovered, this, &OperatorInterface::workspaceStateRecovered);

    c << connect(source, &OperatorInterface::breakerStatesChanged, this, [this, at](BreakerStateList states) {
        Member* from = at();
        for (BreakerState& state : states) {
            state.backend = from->name;
            from->adapters.insert(state.adapter);
        }
        Q_EMIT breakerStatesChanged(states);
    });
    c << connect(source, &OperatorInterface::adapterStatusesChanged, this, [this, at](AdapterStatusList statuses) {
        Member* from = at();
        for (AdapterStatus& status : statuses) {
            status.backend = from->name;
            from->adapters.insert(status.name);
        }
        Q_EMIT adapterStatusesChanged(statuses);
    });
    c << connect(
        source, &OperatorInterface::repositoryStatesChanged, this, [this, at](const RepositoryStateList& states) {
            Member* from = at();
            for (const RepositoryState& state : states)
                from->repositories.insert(state.path);
            Q_EMIT repositoryStatesChanged(states);
        });
    c << connect(source, &OperatorInterface::transfersChanged, this, &OperatorInterface::transfersChanged);
    c << connect(source, &OperatorInterface::repositoryRemoved, this, [this, at](const QString& path) {
        at()->repositories.remove(path);
        Q_EMIT repositoryRemoved(path);
    });
    c << connect(source, &OperatorInterface::fileDiffLoaded, this, &OperatorInterface::fileDiffLoaded);

    c << connect(source, &OperatorInterface::sessionsListed, this, [this, at](const SessionStateList& sessions) {
        Member* from = at();
        from->sessions.clear();
        for (SessionState session : sessions) {
            session.backend = from->name;
            from->sessions.insert(session.id, session);
        }
        emitSessions();
    });
    c << connect(source, &OperatorInterface::sessionStatesChanged, this, [this, at](SessionStateList sessions) {
        Member* from = at();
        for (SessionState& session : sessions) {
            session.backend = from->name;
            if (session.ended)
                from->sessions.remove(session.id);
            else
                from->sessions.insert(session.id, session);
        }
        Q_EMIT sessionStatesChanged(sessions);
    });
    c << connect(source, &OperatorInterface::securityEventsRecorded, this, &OperatorInterface::securityEventsRecorded);

    const auto takeGrants = [at](const PermissionEntryList& entries) {
        Member* from = at();
        from->grants = entries;
        for (PermissionEntry& entry : from->grants)
            entry.backend = from->name;
    };
    c << connect(
        source, &OperatorInterface::grantsListed, this, [this, takeGrants](const PermissionEntryList& entries) {
            takeGrants(entries);
            Q_EMIT grantsListed(allGrants());
        });
    c << connect(
        source, &OperatorInterface::grantsChanged, this, [this, takeGrants](const PermissionEntryList& entries) {
            takeGrants(entries);
            Q_EMIT grantsChanged(allGrants());
        });

    c << connect(source, &OperatorInterface::configurationReloaded, this,
        [this, at](bool ok, const QString& message) { Q_EMIT configurationReloaded(ok, named(*at(), message)); });
    c << connect(source, &OperatorInterface::toolCallStarted, this, [this, at](quint64 requestId, qint64 callId) {
        Member* from = at();
        const auto it = m_childCalls.constFind({from->slot, requestId});
        if (it == m_childCalls.constEnd())
            return;
        const quint64 windowRequest = *it;
        m_childCalls.erase(it);
        Q_EMIT toolCallStarted(windowRequest, windowId(from->slot, callId, true));
    });
    c << connect(source, &OperatorInterface::toolsListed, this, [this, at](const ToolInfoList& tools) {
        at()->tools = tools;
        // The window calls a tool by its name: one two backends offer shows once and goes to the
        // first of them (callTool).
        ToolInfoList all;
        QSet<QString> seen;
        for (const auto& held : m_members) {
            for (const ToolInfo& tool : std::as_const(held->tools)) {
                if (!seen.contains(tool.name)) {
                    seen.insert(tool.name);
                    all.append(tool);
                }
            }
        }
        Q_EMIT toolsListed(all);
    });
    c << connect(source, &OperatorInterface::toolsChanged, this, &OperatorInterface::toolsChanged);
    c << connect(source, &OperatorInterface::clientTokensListed, this, &OperatorInterface::clientTokensListed);
    c << connect(source, &OperatorInterface::clientTokenIssued, this, &OperatorInterface::clientTokenIssued);
    c << connect(source, &OperatorInterface::clientTokenRevoked, this, &OperatorInterface::clientTokenRevoked);
    c << connect(
        source, &OperatorInterface::backendConnectionChanged, this, [this, at](bool connected, const QString& message) {
            Member* from = at();
            from->problem = connected ? QString() : (message.isEmpty() ? tr("not connected") : message);
            emitConnection(*from, connected, message);
        });
    c << connect(
        source, &OperatorInterface::commandFailed, this, [this, at](const QString& command, const QString& message) {
            Q_EMIT commandFailed(command, named(*at(), message));
        });
}

void FleetOperator::emitConnection(const Member& changed, bool connected, const QString& message)
{
    if (!isNamed()) {
        Q_EMIT backendConnectionChanged(connected, message);
        return;
    }
    const bool all = isBackendConnected();
    // The window says which backend is not live, not only that one is not.
    Q_EMIT backendConnectionChanged(
        all, all ? (message.contains(changed.name) ? message : named(changed, message)) : backendProblem({}));
}

void FleetOperator::emitInteractions()
{
    PendingInteractionList all;
    for (const auto& held : m_members)
        all += held->interactions;
    Q_EMIT interactionsListed(all);
}

void FleetOperator::emitSessions()
{
    SessionStateList all;
    int total = 0;
    for (const auto& held : m_members) {
        for (const SessionState& session : std::as_const(held->sessions))
            all.append(session);
        total += held->sessionCount;
    }
    Q_EMIT sessionsListed(all);
    Q_EMIT sessionsChanged(total);
}

PermissionEntryList FleetOperator::allGrants() const
{
    PermissionEntryList all;
    for (const auto& held : m_members)
        all += held->grants;
    return all;
}

QList<FleetOperator::Member*> FleetOperator::holders(const QSet<QString> Member::*set, const QString& key) const
{
    QList<Member*> found;
    for (const auto& held : m_members) {
        if (((*held).*set).contains(key))
            found.append(held.get());
    }
    if (found.isEmpty() && primary())
        found.append(primary());
    return found;
}

QUrl FleetOperator::serverUrl() const
{
    const Member* first = primary();
    return first && first->backend ? first->backend->serverUrl() : QUrl();
}

bool FleetOperator::requiresToken() const
{
    const Member* first = primary();
    return first && first->backend ? first->backend->requiresToken() : true;
}

QByteArray FleetOperator::token() const
{
    const Member* first = primary();
    return first && first->backend ? first->backend->token() : QByteArray();
}

QString FleetOperator::secretStorage() const
{
    const Member* first = primary();
    return first && first->backend ? first->backend->secretStorage() : QString();
}

QString FleetOperator::backendName() const
{
    if (m_members.size() == 1)
        return m_members.front()->backend ? m_members.front()->backend->backendName() : QString();
    return backendNames().join(QStringLiteral(", "));
}

bool FleetOperator::isBackendConnected() const
{
    return std::all_of(m_members.begin(), m_members.end(), [](const auto& held) { return held->problem.isEmpty(); });
}

QStringList FleetOperator::backendNames() const
{
    QStringList names;
    for (const auto& held : m_members)
        names.append(held->name);
    return names;
}

QString FleetOperator::backendProblem(const QString& name) const
{
    if (!name.isEmpty()) {
        const Member* held = member(name);
        return held ? held->problem : tr("not held");
    }
    // Every backend that is not live, by name.
    QStringList problems;
    for (const auto& held : m_members) {
        if (!held->problem.isEmpty())
            problems.append(QStringLiteral("%1: %2").arg(held->name, held->problem));
    }
    return problems.join(QStringLiteral("; "));
}

void FleetOperator::attachBackend(const QUrl& url, const QByteArray& token, const QString& caFile)
{
    const QString command = QStringLiteral("attachBackend");
    QString problem;
    const QUrl base = RemoteOperator::baseUrl(url.toString(), &problem);
    if (!base.isValid()) {
        Q_EMIT commandFailed(command, problem);
        return;
    }
    if (token.isEmpty()) {
        Q_EMIT commandFailed(command, tr("Attaching %1 needs its operator token.").arg(base.toDisplayString()));
        return;
    }
    RemoteOperator::Settings settings;
    settings.url = url;
    settings.token = token;
    if (!caFile.isEmpty()) {
        settings.caCertificates = QSslCertificate::fromPath(caFile, QSsl::Pem);
        if (settings.caCertificates.isEmpty()) {
            Q_EMIT commandFailed(command, tr("%1 holds no PEM certificate.").arg(caFile));
            return;
        }
    }
    auto* remote = new RemoteOperator(settings);
    const QString name = remote->backendName();
    if (!addBackend(remote, name, true, true)) {
        delete remote;
        Q_EMIT commandFailed(command, tr("The window holds %1 already.").arg(name));
        return;
    }
    remote->start();
    remote->listTools();
}

void FleetOperator::detachBackend(const QString& name)
{
    const Member* held = member(name);
    if (!held || !held->detachable) {
        Q_EMIT commandFailed(QStringLiteral("detachBackend"),
            held ? tr("%1 is this window's own backend and stays.").arg(name)
                 : tr("This window holds no backend \"%1\".").arg(name));
        return;
    }
    if (auto* remote = qobject_cast<RemoteOperator*>(held->backend.data()))
        remote->stop();
    removeBackend(name);
}

quint64 FleetOperator::loadRecentCalls(int limit, qsizetype bodyPreviewBytes)
{
    HistoryQuery query;
    query.limit = limit;
    query.bodyPreviewBytes = bodyPreviewBytes;
    return fanOut(Ask::Recent, query, limit, bodyPreviewBytes);
}

quint64 FleetOperator::queryHistory(const HistoryQuery& query)
{
    return fanOut(Ask::Search, query, query.limit, query.bodyPreviewBytes);
}

quint64 FleetOperator::countHistory(const HistoryQuery& query)
{
    return fanOut(Ask::Count, query, query.limit, 0);
}

quint64 FleetOperator::fanOut(Ask ask, const HistoryQuery& query, int limit, qsizetype bodyPreviewBytes)
{
    const quint64 id = m_nextRequestId++;
    FleetRequest request;
    request.count = ask == Ask::Count;
    request.limit = std::max(1, limit);

    // Which backends to ask, and from where: a call id asks its own backend only; a page after an
    // earlier one continues each backend where that page left it; any other older-than asks each
    // backend for what is older than the oldest call of it the window has seen.
    QHash<int, qint64> cursors;
    QList<Member*> asked;
    qint64 ownCallId = 0;
    if (query.callId > 0) {
        const std::optional<std::pair<int, qint64>> own = backendId(query.callId);
        if (Member* held = own ? memberAt(own->first) : nullptr) {
            asked.append(held);
            ownCallId = own->second;
        }
    } else {
        for (const auto& held : m_members)
            asked.append(held.get());
        if (query.beforeId > 0) {
            if (const auto ends = m_pageEnds.constFind(query.beforeId); ends != m_pageEnds.constEnd()) {
                cursors = *ends;
            } else {
                for (Member* held : std::as_const(asked))
                    cursors.insert(held->slot, held->oldestCallId);
                if (const std::optional<std::pair<int, qint64>> own = backendId(query.beforeId))
                    cursors.insert(own->first, own->second);
            }
        }
    }
    for (Member* held : std::as_const(asked))
        request.cursors.insert(held->slot, cursors.value(held->slot));

    QList<std::pair<Member*, HistoryQuery>> queries;
    for (Member* held : std::as_const(asked)) {
        if (!held->backend)
            continue;
        HistoryQuery own = query;
        own.callId = ownCallId;
        own.beforeId = request.cursors.value(held->slot);
        own.bodyPreviewBytes = bodyPreviewBytes;
        queries.append({held, own});
        request.waiting.insert(held->slot);
    }
    m_requests.insert(id, request);
    for (const auto& [held, own] : std::as_const(queries)) {
        quint64 childRequest = 0;
        switch (ask) {
        case Ask::Recent:
            childRequest = held->backend->loadRecentCalls(own.limit, own.bodyPreviewBytes);
            break;
        case Ask::Search:
            childRequest = held->backend->queryHistory(own);
            break;
        case Ask::Count:
            childRequest = held->backend->countHistory(own);
            break;
        }
        m_childRequests.insert({held->slot, childRequest}, id);
    }
    // Nobody to ask still answers, as the window waits for it.
    if (queries.isEmpty())
        QTimer::singleShot(0, this, [this, id] { finishIfAnswered(id); });
    return id;
}

void FleetOperator::childHistoryLoaded(int slot, quint64 childRequest, const ToolCallList& calls, bool hasMore)
{
    const auto it = m_childRequests.constFind({slot, childRequest});
    if (it == m_childRequests.constEnd())
        return; // not the fleet's (or of a backend detached since)
    const quint64 id = *it;
    m_childRequests.erase(it);
    auto request = m_requests.find(id);
    const Member* from = memberAt(slot);
    if (request == m_requests.end() || !from)
        return;
    for (const ToolCall& call : calls)
        request->calls.append({slot, call});
    request->hasMore = request->hasMore || hasMore;
    request->waiting.remove(slot);
    finishIfAnswered(id);
}

void FleetOperator::childHistoryCounted(int slot, quint64 childRequest, qint64 count)
{
    const auto it = m_childRequests.constFind({slot, childRequest});
    if (it == m_childRequests.constEnd())
        return;
    const quint64 id = *it;
    m_childRequests.erase(it);
    auto request = m_requests.find(id);
    if (request == m_requests.end())
        return;
    if (count >= 0)
        request->total = std::max<qint64>(request->total, 0) + count;
    request->waiting.remove(slot);
    finishIfAnswered(id);
}

void FleetOperator::finishIfAnswered(quint64 requestId)
{
    auto it = m_requests.find(requestId);
    if (it == m_requests.end() || !it->waiting.isEmpty())
        return;
    FleetRequest request = std::move(*it);
    m_requests.erase(it);
    if (request.count) {
        Q_EMIT historyCounted(requestId, request.total);
        return;
    }
    QList<std::pair<int, ToolCall>> merged = std::move(request.calls);
    // Newest first across backends: by the time each started, the id within one backend breaking ties.
    std::stable_sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) {
        return a.second.startedAtMs != b.second.startedAtMs ? a.second.startedAtMs > b.second.startedAtMs
                                                            : a.second.id > b.second.id;
    });
    bool hasMore = request.hasMore;
    if (merged.size() > request.limit) {
        merged.resize(request.limit);
        hasMore = true;
    }
    // Numbered in the merged order (a call the window has not seen gets the next number down), so
    // that calls first seen in history stand in the log in the order they started, whichever backend
    // they came from; and where each backend stopped in this page, for the page after it.
    ToolCallList calls;
    calls.reserve(merged.size());
    QHash<int, qint64> ends = request.cursors;
    for (const auto& [slot, call] : std::as_const(merged)) {
        const Member* from = memberAt(slot);
        if (!from)
            continue;
        if (const qint64 end = ends.value(slot); end == 0 || call.id < end)
            ends.insert(slot, call.id);
        calls.append(toWindow(*from, call, false));
    }
    if (!calls.isEmpty()) {
        if (m_pageEnds.size() >= MaxPageEnds)
            m_pageEnds.clear();
        m_pageEnds.insert(calls.last().id, ends);
    }
    Q_EMIT historyLoaded(requestId, calls, hasMore);
}

void FleetOperator::forgetChildRequests(int slot)
{
    QList<quint64> touched;
    for (auto it = m_childRequests.begin(); it != m_childRequests.end();) {
        if (it.key().first == slot) {
            touched.append(it.value());
            it = m_childRequests.erase(it);
        } else {
            ++it;
        }
    }
    for (auto it = m_childCalls.begin(); it != m_childCalls.end();)
        it = it.key().first == slot ? m_childCalls.erase(it) : std::next(it);
    for (const quint64 id : std::as_const(touched)) {
        if (auto request = m_requests.find(id); request != m_requests.end())
            request->waiting.remove(slot);
        finishIfAnswered(id);
    }
}

void FleetOperator::listInteractions()
{
    for (const auto& held : m_members) {
        if (held->backend)
            held->backend->listInteractions();
    }
}

void FleetOperator::answerInteraction(const QString& interactionId, const InteractionAnswer& answer)
{
    QString own;
    if (Member* held = owner(interactionId, &own); held && held->backend)
        held->backend->answerInteraction(own, answer);
    else
        Q_EMIT interactionAnswerFailed(interactionId, tr("The backend that asked this is no longer in the window."));
}

void FleetOperator::connectWithApiKey(
    const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey)
{
    QString own;
    if (Member* held = owner(interactionId, &own); held && held->backend)
        held->backend->connectWithApiKey(own, provider, account, apiKey);
    else
        Q_EMIT connectFailed(interactionId, tr("The backend that asked this is no longer in the window."));
}

void FleetOperator::startOAuth(const QString& interactionId, const QString& provider, const QStringList& scopes)
{
    QString own;
    if (Member* held = owner(interactionId, &own); held && held->backend)
        held->backend->startOAuth(own, provider, scopes);
    else
        Q_EMIT connectFailed(interactionId, tr("The backend that asked this is no longer in the window."));
}

void FleetOperator::cancelOAuth(const QString& interactionId)
{
    QString own;
    if (Member* held = owner(interactionId, &own); held && held->backend)
        held->backend->cancelOAuth(own);
}

void FleetOperator::resetBreaker(const QString& adapter)
{
    for (Member* held : holders(&Member::adapters, adapter))
        held->backend->resetBreaker(adapter);
}

void FleetOperator::forceOpenBreaker(const QString& adapter)
{
    for (Member* held : holders(&Member::adapters, adapter))
        held->backend->forceOpenBreaker(adapter);
}

void FleetOperator::setAdapterEnabled(const QString& adapter, bool enabled)
{
    for (Member* held : holders(&Member::adapters, adapter))
        held->backend->setAdapterEnabled(adapter, enabled);
}

void FleetOperator::reloadConfiguration()
{
    for (const auto& held : m_members)
        held->backend->reloadConfiguration();
}

void FleetOperator::refreshRepository(const QString& path)
{
    for (Member* held : holders(&Member::repositories, path))
        held->backend->refreshRepository(path);
}

void FleetOperator::addRepository(const QString& path)
{
    if (Member* first = primary())
        first->backend->addRepository(path);
}

void FleetOperator::removeRepository(const QString& path)
{
    for (Member* held : holders(&Member::repositories, path))
        held->backend->removeRepository(path);
}

void FleetOperator::loadFileDiff(const QString& repositoryPath, const QString& file)
{
    if (const QList<Member*> found = holders(&Member::repositories, repositoryPath); !found.isEmpty())
        found.first()->backend->loadFileDiff(repositoryPath, file);
}

void FleetOperator::listGrants()
{
    for (const auto& held : m_members)
        held->backend->listGrants();
}

void FleetOperator::revokeGrant(const QString& grantId)
{
    for (const auto& held : m_members) {
        for (const PermissionEntry& entry : std::as_const(held->grants)) {
            if (entry.id == grantId) {
                held->backend->revokeGrant(grantId);
                return;
            }
        }
    }
    OperatorInterface::revokeGrant(grantId);
}

void FleetOperator::listSessions()
{
    for (const auto& held : m_members)
        held->backend->listSessions();
}

void FleetOperator::endSession(const QString& sessionId)
{
    for (const auto& held : m_members) {
        if (held->sessions.contains(sessionId)) {
            held->backend->endSession(sessionId);
            return;
        }
    }
    if (Member* first = primary())
        first->backend->endSession(sessionId);
}

quint64 FleetOperator::callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf)
{
    // A replay goes to the backend of the call it replays; a new call to the first backend that
    // offers the tool.
    const std::optional<std::pair<int, qint64>> replayed = backendId(replayOf);
    Member* target = replayed ? memberAt(replayed->first) : nullptr;
    if (!target) {
        for (const auto& held : m_members) {
            if (std::any_of(held->tools.cbegin(), held->tools.cend(),
                    [&tool](const ToolInfo& offered) { return offered.name == tool; })) {
                target = held.get();
                break;
            }
        }
    }
    if (!target)
        target = primary();
    const quint64 id = m_nextRequestId++;
    if (!target || !target->backend) {
        QTimer::singleShot(0, this, [this, tool] {
            Q_EMIT commandFailed(QStringLiteral("callTool"), tr("No backend in the window offers %1.").arg(tool));
        });
        return id;
    }
    const quint64 childRequest = target->backend->callTool(tool, arguments, replayed ? replayed->second : 0);
    m_childCalls.insert({target->slot, childRequest}, id);
    return id;
}

void FleetOperator::listTools()
{
    for (const auto& held : m_members)
        held->backend->listTools();
}

// Client tokens open this window's own server (serverUrl is the first backend's): they are the
// first backend's.
void FleetOperator::listClientTokens()
{
    if (Member* first = primary())
        first->backend->listClientTokens();
}

void FleetOperator::issueClientToken(const QString& name)
{
    if (Member* first = primary())
        first->backend->issueClientToken(name);
}

void FleetOperator::revokeClientToken(const QString& name)
{
    if (Member* first = primary())
        first->backend->revokeClientToken(name);
}
