#include "adapters/upstreamadapter.h"

#include "boundedjson.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "tools/toolcallcontext.h"
#include "transport/printabletext.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QPointer>
#include <QTimerEvent>

#include <algorithm>
#include <cmath>

using nlohmann::json;

namespace {

qint64 monotonicUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

CircuitBreaker::Outcome breakerOutcome(const McpClient::Outcome& outcome)
{
    if (outcome.ok())
        return CircuitBreaker::Outcome::Success;
    switch (outcome.failure->kind) {
    case McpClient::FailureKind::Cancelled:
        return CircuitBreaker::Outcome::Cancelled;
    case McpClient::FailureKind::Authentication:
        return CircuitBreaker::Outcome::AuthenticationFailure;
    case McpClient::FailureKind::Protocol:
    case McpClient::FailureKind::HttpStatus:
        // The upstream answered and refused (an unknown tool, bad arguments, a 4xx): it is up.
        return CircuitBreaker::Outcome::Success;
    case McpClient::FailureKind::Connection:
    case McpClient::FailureKind::Timeout:
    case McpClient::FailureKind::ServerError:
    case McpClient::FailureKind::Malformed:
        return CircuitBreaker::Outcome::Failure;
    }
    return CircuitBreaker::Outcome::Failure;
}

// The upstream's CallToolResult as Switchboard hands it on: content, structuredContent, isError.
ToolResult toolResultFrom(const json& result)
{
    ToolResult tool;
    if (const auto content = result.find("content"); content != result.end() && content->is_array())
        tool.content = *content;
    if (const auto structured = result.find("structuredContent"); structured != result.end())
        tool.structuredContent = *structured;
    if (const auto isError = result.find("isError"); isError != result.end() && isError->is_boolean())
        tool.isError = isError->get<bool>();
    return tool;
}

QString upstreamToolName(const json& tool)
{
    const auto name = tool.find("name");
    return name != tool.end() && name->is_string() ? QString::fromStdString(name->get<std::string>()) : QString();
}

// What an upstream's question gets back from the person's answer (a form's output): accept with the
// values, cancel when the question was dismissed, decline otherwise.
json elicitationResult(const json& output)
{
    if (output.is_object() && output.contains("values") && output.value("submitted", true) != false)
        return json{{"action", "accept"}, {"content", output["values"]}};
    if (output.is_object() && output.value("reason", std::string()) == "cancelled")
        return json{{"action", "cancel"}};
    return json{{"action", "decline"}};
}

bool annotatedReadOnly(const json& tool)
{
    const auto annotations = tool.find("annotations");
    if (annotations == tool.end() || !annotations->is_object())
        return false;
    const auto hint = annotations->find("readOnlyHint");
    return hint != annotations->end() && hint->is_boolean() && hint->get<bool>();
}

} // namespace

UpstreamAdapter::UpstreamAdapter(
    AdapterConfig config, InteractionBroker* broker, CircuitBreaker::Clock clock, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_broker(broker)
    , m_breaker(m_config.name, m_config.breaker, clock)
    , m_clock(std::move(clock))
{
    m_config.endpoint = AdapterConfig::effectiveEndpoint(m_config.endpoint);
    m_changedAtMs = m_clock.wallMs();
    m_connection = m_config.enabled ? AdapterConnection::Connecting : AdapterConnection::Disabled;
    m_breaker.addListener([this](const CircuitBreaker::Transition& transition) { onBreakerTransition(transition); });
    newClient();
}

UpstreamAdapter::~UpstreamAdapter()
{
    // Callbacks of a destroyed client never run, so nothing reaches this half-destroyed object.
    m_client.reset();
}

void UpstreamAdapter::restoreTransitions(const QList<BreakerTransitionRecord>& transitions)
{
    std::deque<BreakerTransitionRecord> restored(transitions.begin(), transitions.end());
    restored.insert(restored.end(), m_transitions.begin(), m_transitions.end());
    while (restored.size() > std::size_t(AdapterStatus::MaxTransitions))
        restored.pop_front();
    m_transitions = std::move(restored);
    publishStatus();
}

QString UpstreamAdapter::readOnlyRefusal(const QString& adapter)
{
    return QStringLiteral("write not allowed on read-only adapter %1").arg(adapter);
}

void UpstreamAdapter::newClient()
{
    McpClient::Settings settings;
    settings.endpoint = m_config.endpoint;
    settings.bearerToken = m_config.authToken.toUtf8();
    settings.requestTimeoutMs = m_config.timeout.count();
    settings.clientVersion = QCoreApplication::applicationVersion();
    // server/discover first: 2026-07-28 where the upstream offers it, else the 2025 handshake.
    settings.negotiateModern = true;
    m_client = std::make_unique<McpClient>(settings);
    connect(m_client.get(), &McpClient::toolsListChanged, this, &UpstreamAdapter::relistTools);
    // A 2026 upstream's listing is good for the ttlMs it gave; then it is fetched again.
    connect(m_client.get(), &McpClient::toolsListExpired, this, &UpstreamAdapter::relistTools);
    // A new session (the upstream restarted, or expired the old one) may offer other tools.
    connect(m_client.get(), &McpClient::sessionChanged, this, [this] {
        if (m_listed)
            relistTools();
    });
}

void UpstreamAdapter::retireClient(std::unique_ptr<McpClient> client)
{
    // Its sessions' notifications no longer concern this adapter; its calls still end here. It goes
    // once its session has ended, so that the DELETE ending it is not cut off.
    McpClient* raw = client.get();
    disconnect(raw, nullptr, this, nullptr);
    raw->stopListening();
    connect(raw, &McpClient::closed, this, [this, raw] {
        const auto it = std::find_if(m_retiredClients.begin(), m_retiredClients.end(),
            [raw](const auto& retired) { return retired.get() == raw; });
        if (it != m_retiredClients.end()) {
            it->release()->deleteLater(); // not inside its own signal
            m_retiredClients.erase(it);
        }
    });
    m_retiredClients.push_back(std::move(client));
    if (!m_callsByClient.count(raw))
        raw->close();
}

void UpstreamAdapter::reconfigure(const AdapterConfig& reloaded)
{
    AdapterConfig config = reloaded;
    config.endpoint = AdapterConfig::effectiveEndpoint(config.endpoint);
    const bool newConnection = config.endpoint != m_config.endpoint || config.authToken != m_config.authToken;
    const bool offerChanged = config.readOnly != m_config.readOnly || config.enabled != m_config.enabled;
    m_config = config;
    m_breaker.setSettings(config.breaker);
    if (newConnection) {
        // Calls in flight finish on the connection they started on; it closes after the last.
        retireClient(std::move(m_client));
        newClient();
        m_listing = false;
        m_relistPending = false;
        m_relistTimer.stop();
        m_listed = false;
        m_upstreamTools.clear();
        m_connecting = false;
        Q_EMIT toolsChanged();
    } else if (offerChanged) {
        Q_EMIT toolsChanged();
    }
    if (!isEnabled()) {
        m_reconnectTimer.stop();
        setConnection(AdapterConnection::Disabled);
    } else if (!m_listed) {
        connectUpstream();
    } else {
        publishStatus();
    }
    Q_EMIT breakerChanged(m_breaker.state());
}

void UpstreamAdapter::restoreOverrides(
    bool disabledByOperator, bool forcedOpen, qint64 forcedOpenSinceMs, const QString& forcedBy)
{
    m_disabledByOperator = disabledByOperator;
    if (!isEnabled())
        m_connection = AdapterConnection::Disabled;
    if (forcedOpen)
        m_breaker.restoreForcedOpen(forcedOpenSinceMs, forcedBy);
}

void UpstreamAdapter::start()
{
    if (!isEnabled()) {
        setConnection(AdapterConnection::Disabled);
        Q_EMIT breakerChanged(m_breaker.state());
        return;
    }
    Q_EMIT breakerChanged(m_breaker.state());
    connectUpstream();
}

bool UpstreamAdapter::isEnabled() const
{
    return m_config.enabled && !m_disabledByOperator;
}

void UpstreamAdapter::setEnabledByOperator(bool enabled)
{
    if (m_disabledByOperator == !enabled)
        return;
    m_disabledByOperator = !enabled;
    if (!isEnabled()) {
        m_reconnectTimer.stop();
        setConnection(AdapterConnection::Disabled);
    } else {
        setConnection(AdapterConnection::Connecting);
        if (m_listed)
            setConnection(AdapterConnection::Ready);
        else
            connectUpstream();
    }
    Q_EMIT toolsChanged();
}

void UpstreamAdapter::resetBreaker(const QString& why)
{
    m_breaker.reset(why);
    // An operator who resets wants the next try now, not after the backoff.
    if (isEnabled() && !m_listed) {
        m_reconnectDelayMs = FirstReconnectDelayMs;
        connectUpstream();
    }
}

void UpstreamAdapter::forceOpenBreaker(const QString& why, const QString& by)
{
    m_breaker.forceOpen(why, by);
}

void UpstreamAdapter::shutDown()
{
    m_reconnectTimer.stop();
    m_breakerTimer.stop();
    m_relistTimer.stop();
    // Looked up again one by one: closing fails their calls, whose completions change the list.
    std::vector<McpClient*> retired;
    for (const auto& client : m_retiredClients)
        retired.push_back(client.get());
    for (McpClient* client : retired) {
        const bool stillThere = std::any_of(m_retiredClients.begin(), m_retiredClients.end(),
            [client](const auto& kept) { return kept.get() == client; });
        if (stillThere)
            client->close();
    }
    if (m_client)
        m_client->close();
}

void UpstreamAdapter::retire()
{
    m_retiring = true;
    m_reconnectTimer.stop();
    m_breakerTimer.stop();
    m_relistTimer.stop();
    m_relistPending = false;
    // retired() once the session has ended (after the last call, or now).
    connect(m_client.get(), &McpClient::closed, this, &UpstreamAdapter::retired);
    m_client->stopListening();
    if (m_callsInFlight == 0)
        shutDown();
}

// Connecting and listing are calls like any other for the breaker: an upstream that is down opens
// it, and while it is open no connection is tried; the first try once it is half-open is the probe.
void UpstreamAdapter::connectUpstream()
{
    if (m_connecting || !isEnabled())
        return;
    const CircuitBreaker::Admission admission = m_breaker.admit();
    if (!admission.admitted) {
        setConnection(AdapterConnection::Failing, m_lastError.isEmpty() ? admission.refusal : m_lastError);
        scheduleReconnect();
        return;
    }
    m_connecting = true;
    m_lastListingStartedMs = m_clock.monotonicMs();
    if (m_connection != AdapterConnection::Failing)
        setConnection(AdapterConnection::Connecting);
    std::weak_ptr<UpstreamAdapter> weakSelf = weak_from_this();
    McpClient* client = m_client.get();
    client->listTools([weakSelf, client, admission](
                          const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
        const auto self = weakSelf.lock();
        if (!self || self->m_client.get() != client)
            return;
        self->m_connecting = false;
        McpClient::Outcome outcome;
        outcome.failure = failure;
        self->m_causingCallId = 0;
        self->m_breaker.record(admission, breakerOutcome(outcome), failure ? failure->message : QString());
        if (failure) {
            self->m_lastError
                = QStringLiteral("%1: %2").arg(McpClient::failureKindName(failure->kind), failure->message);
            self->m_lastErrorAtMs = self->m_clock.wallMs();
            self->setConnection(AdapterConnection::Failing, self->m_lastError);
            self->scheduleReconnect();
            return;
        }
        self->m_reconnectDelayMs = FirstReconnectDelayMs;
        self->m_lastSuccessAtMs = self->m_clock.wallMs();
        if (list.truncated)
            qWarning("switchboard: adapter %s lists more tools than Switchboard offers; the rest are left out",
                qPrintable(self->m_config.name));
        self->takeTools(list.tools);
        if (self->m_relistPending) {
            self->m_relistPending = false;
            self->relistTools();
        }
    });
}

void UpstreamAdapter::takeTools(const std::vector<json>& tools)
{
    const bool changed = !m_listed || tools != m_upstreamTools;
    m_upstreamTools = tools;
    m_listed = true;
    setConnection(AdapterConnection::Ready);
    // The same tools again (a notification that changed nothing, or one of a flood) are not
    // offered again: clients hear of a change only when there is one.
    if (changed)
        Q_EMIT toolsChanged();
}

// A flood of tools/list_changed must not become a flood of listings (nor of notifications to
// Switchboard's clients): one listing at a time, at most one more asked for meanwhile, and none
// sooner than RelistIntervalMs after the one before.
void UpstreamAdapter::relistTools()
{
    if (!isEnabled() || m_retiring)
        return;
    // A change announced while a listing runs may have come after the upstream answered it.
    if (m_listing || m_connecting) {
        m_relistPending = true;
        return;
    }
    if (m_relistTimer.isActive())
        return; // a listing is due already; it will see this change too
    const qint64 sinceLast = m_clock.monotonicMs() - m_lastListingStartedMs;
    if (m_lastListingStartedMs >= 0 && sinceLast < RelistIntervalMs) {
        m_relistTimer.start(int(RelistIntervalMs - sinceLast), this);
        return;
    }
    startListing();
}

void UpstreamAdapter::startListing()
{
    // Not a breaker probe of its own: a refresh the upstream asked for. Its failure is shown but
    // the tools known so far stay offered.
    m_listing = true;
    m_relistPending = false;
    m_lastListingStartedMs = m_clock.monotonicMs();
    std::weak_ptr<UpstreamAdapter> weakSelf = weak_from_this();
    McpClient* client = m_client.get();
    m_client->listTools(
        [weakSelf, client](const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
            const auto self = weakSelf.lock();
            if (!self || self->m_client.get() != client)
                return;
            self->m_listing = false;
            if (failure) {
                self->m_lastError = QStringLiteral("listing tools failed: %1: %2")
                                        .arg(McpClient::failureKindName(failure->kind), failure->message);
                self->m_lastErrorAtMs = self->m_clock.wallMs();
                self->publishStatus();
            } else {
                self->takeTools(list.tools);
            }
            if (self->m_relistPending) {
                self->m_relistPending = false;
                self->relistTools();
            }
        });
}

void UpstreamAdapter::scheduleReconnect()
{
    // A breaker the operator forced open admits no try until the reset, which connects at once.
    if (!isEnabled() || m_breaker.state().forcedOpen)
        return;
    // While the breaker is open, the next try is when it turns half-open.
    const qint64 retryIn = m_breaker.refresh();
    const qint64 delay = std::max(m_reconnectDelayMs, retryIn);
    m_reconnectTimer.start(int(std::min<qint64>(delay, 3'600'000)), this);
    m_reconnectDelayMs = std::min<qint64>(
        m_reconnectDelayMs * 2, std::max<qint64>(FirstReconnectDelayMs, m_config.breaker.recoveryTimeout.count()));
}

void UpstreamAdapter::timerEvent(QTimerEvent* event)
{
    if (event->timerId() == m_reconnectTimer.timerId()) {
        m_reconnectTimer.stop();
        if (!m_listed)
            connectUpstream();
    } else if (event->timerId() == m_relistTimer.timerId()) {
        m_relistTimer.stop();
        relistTools();
    } else if (event->timerId() == m_figuresTimer.timerId()) {
        m_figuresTimer.stop();
        publishStatus();
    } else if (event->timerId() == m_breakerTimer.timerId()) {
        m_breakerTimer.stop();
        if (const qint64 retryIn = m_breaker.refresh(); retryIn > 0)
            m_breakerTimer.start(int(std::min<qint64>(retryIn, 3'600'000)), this);
    } else {
        QObject::timerEvent(event);
    }
}

void UpstreamAdapter::setConnection(AdapterConnection connection, const QString& error)
{
    // A connection attempt or call still in flight when the operator disabled the adapter (here, or in
    // another process) answers later: it is recorded, but does not make the adapter look usable.
    if (!isEnabled())
        connection = AdapterConnection::Disabled;
    if (connection != m_connection) {
        m_connection = connection;
        m_changedAtMs = m_clock.wallMs();
    }
    if (!error.isEmpty())
        m_lastError = error;
    publishStatus();
}

std::vector<RegisteredTool> UpstreamAdapter::tools() const
{
    std::vector<RegisteredTool> offered;
    if (!isEnabled() || !m_listed)
        return offered;
    const auto self = std::const_pointer_cast<UpstreamAdapter>(shared_from_this());
    offered.reserve(m_upstreamTools.size());
    for (const json& upstream : m_upstreamTools) {
        const QString upstreamName = upstreamToolName(upstream);
        if (upstreamName.isEmpty())
            continue;
        // Refused rather than escaped: a client would call the escaped name, which the upstream
        // does not know, and a name shown to a person must be what is called.
        if (!isOfferableToolName(upstreamName)) {
            qWarning("switchboard: adapter %s: tool \"%s\" is left out: its name has a character that is not visible "
                     "(a control or format character, a space or a separator)",
                qPrintable(m_config.name), PrintableText::escaped(upstreamName).constData());
            continue;
        }
        RegisteredTool tool;
        QString error;
        json described = upstream;
        described["name"] = QString(m_config.name + QLatin1Char('.') + upstreamName).toStdString();
        if (!ToolSpec::fromJson(described, &tool.spec, &error)) {
            qWarning("switchboard: adapter %s: tool %s is left out: %s", qPrintable(m_config.name),
                PrintableText::escaped(upstreamName).constData(), PrintableText::escaped(error).constData());
            continue;
        }
        tool.route = ToolRoute::adapter(m_config.name);
        // The call itself is asynchronous network work on this thread; nothing here blocks.
        tool.execution.kind = ExecutionKind::BackendThread;
        tool.execution.deadlineMs = m_config.timeout.count() + 5'000;
        tool.handler = [self, upstreamName](const std::shared_ptr<ToolCallContext>& context) {
            self->handleCall(context, upstreamName);
        };
        // Unannotated tools count as writes.
        if (m_config.readOnly && !annotatedReadOnly(upstream)) {
            tool.refusal = readOnlyRefusal(m_config.name);
            tool.refused = [self] {
                ++self->m_rejected;
                self->publishFiguresSoon();
            };
        }
        offered.push_back(std::move(tool));
    }
    return offered;
}

bool UpstreamAdapter::isOfferableToolName(const QString& name)
{
    if (name.isEmpty())
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        if (c.isHighSurrogate() && i + 1 < name.size() && name.at(i + 1).isLowSurrogate()) {
            const char32_t code = QChar::surrogateToUcs4(c, name.at(i + 1));
            ++i;
            switch (QChar::category(code)) {
            case QChar::Other_Format:
            case QChar::Other_PrivateUse:
            case QChar::Other_NotAssigned:
                return false;
            default:
                continue;
            }
        }
        switch (c.category()) {
        case QChar::Other_Control:
        case QChar::Other_Format:
        case QChar::Other_Surrogate: // a lone half of a pair
        case QChar::Other_PrivateUse:
        case QChar::Other_NotAssigned:
        case QChar::Separator_Space:
        case QChar::Separator_Line:
        case QChar::Separator_Paragraph:
            return false;
        default:
            break;
        }
    }
    return true;
}

CallStatus UpstreamAdapter::unavailableStatus() const
{
    return isEnabled() && !m_listed && m_breaker.state().forcedOpen ? CallStatus::BreakerOpen
                                                                    : CallStatus::UpstreamError;
}

QString UpstreamAdapter::unavailableReason() const
{
    if (m_disabledByOperator)
        return QStringLiteral("adapter %1 is disabled by the Switchboard operator").arg(m_config.name);
    if (!m_config.enabled)
        return QStringLiteral("adapter %1 is disabled in the configuration (enabled: false)").arg(m_config.name);
    if (!m_listed && m_breaker.state().forcedOpen) {
        return QStringLiteral("the circuit breaker of adapter %1 was opened by the Switchboard operator; nothing goes "
                              "upstream until it is reset")
            .arg(m_config.name);
    }
    if (!m_listed) {
        return m_lastError.isEmpty()
            ? QStringLiteral("adapter %1 is still connecting to its upstream; its tools are not known yet")
                  .arg(m_config.name)
            : QStringLiteral("adapter %1 could not reach its upstream (%2); its tools are not known yet")
                  .arg(m_config.name, m_lastError);
    }
    return {};
}

void UpstreamAdapter::handleCall(const std::shared_ptr<ToolCallContext>& context, const QString& upstreamName)
{
    if (!isEnabled()) {
        ++m_rejected;
        publishFiguresSoon();
        context->finish(ToolResult::error(
            unavailableReason() + QStringLiteral("; the call was not sent."), CallStatus::UpstreamError));
        return;
    }
    const CircuitBreaker::Admission admission = m_breaker.admit();
    if (!admission.admitted) {
        ++m_rejected;
        publishFiguresSoon();
        context->finish(ToolResult::error(
            QStringLiteral("Adapter %1 did not send this call upstream: %2").arg(m_config.name, admission.refusal),
            CallStatus::BreakerOpen));
        if (admission.retryInMs > 0 && !m_breakerTimer.isActive())
            m_breakerTimer.start(int(std::min<qint64>(admission.retryInMs, 3'600'000)), this);
        return;
    }
    ++m_calls;
    ++m_callsInFlight;
    McpClient::CallOptions options;
    options.timeoutMs = m_config.timeout.count();
    std::weak_ptr<ToolCallContext> weakContext = context;
    if (context->hasProgressToken()) {
        options.progress = [weakContext](const json& params) {
            const auto call = weakContext.lock();
            if (!call)
                return;
            const auto progress = params.find("progress");
            if (progress == params.end() || !progress->is_number())
                return;
            std::optional<double> total;
            if (const auto it = params.find("total"); it != params.end() && it->is_number())
                total = it->get<double>();
            QString message;
            if (const auto it = params.find("message"); it != params.end() && it->is_string())
                message = QString::fromStdString(it->get<std::string>());
            call->reportProgress(progress->get<double>(), total, message);
        };
    }
    options.notification = [weakContext](const QString& method, const json& params) {
        const auto call = weakContext.lock();
        if (!call || method != QStringLiteral("notifications/message") || !params.is_object())
            return;
        const auto level = logLevelFromName(params.value("level", std::string()));
        QString logger;
        if (const auto it = params.find("logger"); it != params.end() && it->is_string())
            logger = QString::fromStdString(it->get<std::string>());
        call->log(level.value_or(LogLevel::Info), params.value("data", json()), logger);
    };
    std::weak_ptr<UpstreamAdapter> weakSelf = weak_from_this();
    auto call = std::make_shared<CallInFlight>();
    std::weak_ptr<CallInFlight> weakCall = call;
    options.serverRequest
        = [weakSelf, weakContext, weakCall](const QString& method, const json& params, McpClient::Reply reply) {
              const auto self = weakSelf.lock();
              const auto owner = weakContext.lock();
              const auto state = weakCall.lock();
              if (!self || !owner || !state || state->ended) {
                  reply(json(), json{{"code", -32603}, {"message", "the call this request belongs to has ended"}});
                  return;
              }
              self->askPerson(owner, state, method, params, std::move(reply));
          };
    const qint64 startedUs = monotonicUs();
    call->client = m_client.get();
    ++m_callsByClient[call->client];
    call->request = m_client->callTool(upstreamName, context->arguments(), std::move(options),
        [weakSelf, context, call, admission, startedUs](McpClient::Outcome outcome) {
            if (const auto self = weakSelf.lock())
                self->finishCall(context, call, admission, outcome, startedUs);
        });
    context->setCancellationHandler([weakCall] {
        const auto state = weakCall.lock();
        if (!state || state->ended)
            return;
        withdrawQuestions(*state);
        if (state->request)
            state->request->cancel(QStringLiteral("the client cancelled the call"));
    });
}

void UpstreamAdapter::withdrawQuestions(CallInFlight& call)
{
    // Each withdrawal answers the upstream, which may end the call: taken out first.
    const auto questions = std::exchange(call.withdrawQuestions, {});
    for (const auto& withdraw : questions)
        withdraw();
}

void UpstreamAdapter::finishCall(const std::shared_ptr<ToolCallContext>& context,
    const std::shared_ptr<CallInFlight>& call, const CircuitBreaker::Admission& admission,
    const McpClient::Outcome& outcome, qint64 startedUs)
{
    --m_callsInFlight;
    if (const auto it = m_callsByClient.find(call->client); it != m_callsByClient.end() && --it->second == 0) {
        m_callsByClient.erase(it);
        // A connection replaced meanwhile closes after its last call (this completion runs inside
        // it, which its contract allows).
        const bool retired = std::any_of(m_retiredClients.begin(), m_retiredClients.end(),
            [&](const auto& client) { return client.get() == call->client; });
        if (retired)
            call->client->close();
    }
    // A question the upstream asked and no longer waits for leaves the console.
    withdrawQuestions(*call);
    call->ended = true;
    call->request.reset();
    const CircuitBreaker::Outcome verdict = breakerOutcome(outcome);
    if (verdict != CircuitBreaker::Outcome::Cancelled)
        noteLatency(monotonicUs() - startedUs);
    m_causingCallId = context->metadata().callId;
    m_breaker.record(admission, verdict, outcome.failure ? outcome.failure->message : QString());
    m_causingCallId = 0;
    if (verdict == CircuitBreaker::Outcome::Failure)
        setConnection(AdapterConnection::Failing);
    else if (verdict == CircuitBreaker::Outcome::Success)
        setConnection(AdapterConnection::Ready);
    if (outcome.ok()) {
        m_lastSuccessAtMs = m_clock.wallMs();
        context->finish(toolResultFrom(outcome.result));
    } else {
        const McpClient::Failure& failure = *outcome.failure;
        if (verdict != CircuitBreaker::Outcome::Cancelled) {
            m_lastError = QStringLiteral("%1: %2").arg(McpClient::failureKindName(failure.kind), failure.message);
            m_lastErrorAtMs = m_clock.wallMs();
        }
        QString message;
        switch (failure.kind) {
        case McpClient::FailureKind::Protocol:
            message
                = QStringLiteral("The upstream of adapter %1 refused the call: %2").arg(m_config.name, failure.message);
            break;
        case McpClient::FailureKind::Authentication:
            message = QStringLiteral("The upstream of adapter %1 refused Switchboard's credential (HTTP %2): %3. Ask "
                                     "the operator to check the adapter's auth_token.")
                          .arg(m_config.name)
                          .arg(failure.httpStatus)
                          .arg(failure.message);
            break;
        default:
            message = QStringLiteral("Adapter %1 failed (%2): %3")
                          .arg(m_config.name, McpClient::failureKindName(failure.kind), failure.message);
        }
        // The upstream's tool answering isError is a tool error (outcome.ok() above); here the
        // upstream itself gave no answer, or refused the request.
        CallStatus status = CallStatus::UpstreamError;
        if (failure.kind == McpClient::FailureKind::Timeout)
            status = CallStatus::TimedOut;
        else if (failure.kind == McpClient::FailureKind::Cancelled)
            status = CallStatus::Cancelled;
        context->finish(ToolResult::error(message, status));
    }
    publishFiguresSoon();
    if (m_callsInFlight == 0 && m_retiring)
        shutDown(); // its last call ended: the session goes too, and retired() follows
}

// An upstream's elicitation/create becomes a form question at the console, answered as MCP says:
// accept with the values, decline, or cancel. Sampling is refused: Switchboard has no model.
void UpstreamAdapter::askPerson(const std::shared_ptr<ToolCallContext>& context,
    const std::shared_ptr<CallInFlight>& call, const QString& method, const json& params, McpClient::Reply reply)
{
    if (method == QStringLiteral("sampling/createMessage")) {
        reply(json(),
            json{{"code", -32601},
                {"message",
                    "Switchboard does not offer sampling to upstream servers: there is no model "
                    "behind it. Ask for what you need in the tool's arguments instead."}});
        return;
    }
    if (method == QStringLiteral("ping")) {
        reply(json::object(), json());
        return;
    }
    if (method != QStringLiteral("elicitation/create")) {
        reply(json(), json{{"code", -32601}, {"message", "Method not found: " + method.toStdString()}});
        return;
    }
    // Passed through to the client's own user, where the configuration says so and the client can
    // be asked; the answer goes back upstream as the user gave it.
    if (m_config.elicitationByClient && context->askClient(method, params, reply))
        return;
    const json schema = params.is_object() ? params.value("requestedSchema", json()) : json();
    if (!m_broker || !schema.is_object()) {
        reply(json(),
            json{{"code", -32602},
                {"message",
                    m_broker ? "elicitation/create needs params.requestedSchema, an object schema"
                             : "this Switchboard has no console to ask a person"}});
        return;
    }
    RegisteredTool question;
    question.spec.name = m_config.name + QStringLiteral(".elicitation");
    question.spec.title = QStringLiteral("%1 asks").arg(m_config.name);
    question.route = ToolRoute::adapter(m_config.name);
    auto form = std::make_shared<ClientTool>();
    form->render = RenderHint::Form;
    form->prompt = QString::fromStdString(params.value("message", std::string()));
    form->responseSchema = BoundedJson::parseOrdered(schema.dump(), BoundedJson::Limits::record()).value;
    question.clientTool = form;
    const CallMetadata& metadata = context->metadata();
    // The call's own arguments belong to the question: an answer given while a call was parked goes
    // to the identical call asking it again (same client, tool and arguments), never to another.
    const json arguments{{"message", params.value("message", std::string())}, {"requestedSchema", schema},
        {"tool", metadata.tool.toStdString()}, {"arguments", context->arguments()}};
    const json request{{"jsonrpc", "2.0"}, {"method", "elicitation/create"}, {"params", params}};
    const InteractionBroker::CallOrigin origin{metadata.callId, metadata.sessionId, metadata.clientName,
        metadata.clientVersion, QByteArray::fromStdString(request.dump()), QString()};
    InteractionBroker::Admission admission = m_broker->admit(question, arguments, origin);
    if (admission.verdict == InteractionBroker::Admission::Verdict::Refuse) {
        reply(json(), json{{"code", -32603}, {"message", admission.result.firstText().toStdString()}});
        return;
    }
    if (admission.verdict == InteractionBroker::Admission::Verdict::Answer) {
        // The person answered this question while the identical call before this one was parked.
        reply(elicitationResult(admission.result.structuredContent), json());
        return;
    }
    if (admission.verdict != InteractionBroker::Admission::Verdict::Pause) {
        reply(json(), json{{"code", -32603}, {"message", "Switchboard cannot ask a person for this call"}});
        return;
    }
    if (admission.mode == PauseMode::Park) {
        bool duplicate = false;
        const QString interactionId = m_broker->park(question, arguments, admission, origin, &duplicate);
        parkCall(context, call, interactionId, duplicate, reply);
        return;
    }

    // Held: the upstream waits on its open request, and so does the client. The person's time is
    // bounded by interaction.maxWaitSeconds alone: neither the upstream's timeout (McpClient stops
    // it until this is answered) nor the call's deadline runs meanwhile.
    context->pauseDeadline();
    auto answered = std::make_shared<bool>(false);
    std::weak_ptr<ToolCallContext> weakContext = context;
    // Answers the upstream once, and lets the call's deadline run again.
    auto settle = [reply, answered, weakContext](const json& result) {
        if (std::exchange(*answered, true))
            return;
        if (const auto owner = weakContext.lock())
            owner->resumeDeadline();
        reply(result, json());
    };
    InteractionBroker::Waiter waiter;
    waiter.answered = [settle](const InteractionAnswer& answer, const QByteArray&) {
        const json output = BoundedJson::parse(answer.output, BoundedJson::Limits::message()).value;
        settle(answer.decision == InteractionAnswer::Decision::Respond ? elicitationResult(output)
                                                                       : json{{"action", "decline"}});
    };
    // No one answered within interaction.maxWaitSeconds: the upstream hears "cancel" and decides
    // what its call answers; that is no failure of the upstream.
    waiter.timedOut = [settle] { settle(json{{"action", "cancel"}}); };
    const QString interactionId = m_broker->hold(question, arguments, admission, origin, std::move(waiter));
    // The call ending first (cancelled, timed out, the upstream answered anyway) withdraws the
    // question; the upstream hears "cancel" if it still listens.
    QPointer<InteractionBroker> broker(m_broker);
    call->withdrawQuestions.push_back([broker, interactionId, answered, settle] {
        if (*answered)
            return;
        settle(json{{"action", "cancel"}});
        if (broker)
            broker->withdraw(interactionId, QStringLiteral("the call that asked ended"));
    });
}

void UpstreamAdapter::parkCall(const std::shared_ptr<ToolCallContext>& context,
    const std::shared_ptr<CallInFlight>& call, const QString& interactionId, bool duplicate,
    const McpClient::Reply& reply)
{
    // The upstream's call cannot wait for the next turn of an agent: its question is dismissed and
    // the call cancelled, and the identical call asked again takes the stored answer.
    reply(json{{"action", "cancel"}}, json());
    const QString why = duplicate
        ? QStringLiteral("parked again: the same question of adapter %1's upstream (%2) is already waiting for a "
                         "person; the answer goes to the next identical call")
              .arg(m_config.name, interactionId)
        : QStringLiteral("parked: the upstream of adapter %1 asks a person at the console (%2); the answer goes to the "
                         "next identical call")
              .arg(m_config.name, interactionId);
    context->finish(ToolResult::error(why, CallStatus::Parked));
    // From the event loop: this runs inside the upstream's request, on the call's own stream.
    std::weak_ptr<CallInFlight> weakCall = call;
    QMetaObject::invokeMethod(
        this,
        [weakCall, why] {
            const auto state = weakCall.lock();
            if (state && !state->ended && state->request)
                state->request->cancel(why);
        },
        Qt::QueuedConnection);
}

void UpstreamAdapter::noteLatency(qint64 microseconds)
{
    m_latenciesUs.push_back(std::max<qint64>(1, microseconds));
    while (m_latenciesUs.size() > std::size_t(LatencySamples))
        m_latenciesUs.pop_front();
}

AdapterStatus UpstreamAdapter::status() const
{
    AdapterStatus status;
    status.name = m_config.name;
    status.endpoint = m_config.endpoint.toDisplayString(QUrl::RemoveUserInfo);
    status.connection = m_connection;
    status.readOnly = m_config.readOnly;
    status.disabledByOperator = m_disabledByOperator;
    status.toolCount = isEnabled() && m_listed ? int(m_upstreamTools.size()) : 0;
    status.changedAtMs = m_changedAtMs;
    status.lastError = m_lastError;
    status.lastErrorAtMs = m_lastErrorAtMs;
    status.lastSuccessAtMs = m_lastSuccessAtMs;
    status.calls = m_calls;
    status.rejectedCalls = m_rejected;
    const CircuitBreaker::Counters counters = m_breaker.counters();
    status.failures = qint64(counters.failures);
    status.authenticationFailures = qint64(counters.authenticationFailures);
    if (!m_latenciesUs.empty()) {
        std::vector<qint64> sorted(m_latenciesUs.begin(), m_latenciesUs.end());
        std::sort(sorted.begin(), sorted.end());
        const auto at = [&sorted](double quantile) {
            const auto index = std::size_t(std::ceil(quantile * double(sorted.size()))) - 1;
            return sorted[std::min(index, sorted.size() - 1)];
        };
        status.latencyP50Us = at(0.50);
        status.latencyP99Us = at(0.99);
    }
    for (const BreakerTransitionRecord& transition : m_transitions)
        status.transitions.append(transition);
    return status;
}

void UpstreamAdapter::publishStatus()
{
    m_figuresTimer.stop();
    Q_EMIT statusChanged(status());
}

void UpstreamAdapter::publishFiguresSoon()
{
    if (!m_figuresTimer.isActive())
        m_figuresTimer.start(FiguresIntervalMs, this);
}

void UpstreamAdapter::onBreakerTransition(const CircuitBreaker::Transition& transition)
{
    BreakerTransitionRecord record{
        transition.adapter, transition.from, transition.to, transition.reason, transition.atMs, m_causingCallId};
    m_transitions.push_back(record);
    while (m_transitions.size() > std::size_t(AdapterStatus::MaxTransitions))
        m_transitions.pop_front();
    if (transition.to == BreakerPhase::Open && !transition.state.forcedOpen && transition.state.retryAtMs > 0) {
        // Turn half-open on time, so the view shows it and the reconnection (if any) can probe.
        const qint64 retryIn = std::max<qint64>(0, transition.state.retryAtMs - m_clock.wallMs());
        m_breakerTimer.start(int(std::min<qint64>(retryIn + 1, 3'600'000)), this);
    }
    Q_EMIT breakerTransition(record);
    Q_EMIT breakerChanged(transition.state);
    publishStatus();
}
