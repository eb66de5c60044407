#pragma once

// UpstreamAdapter: one upstream MCP server as Switchboard offers it. Connects with an McpClient,
// lists the upstream's tools and offers them as `name.tool` (a write tool of a read-only adapter is
// kept but never listed, and refuses every call before any traffic; a tool whose name has a
// character that is not visible is left out); sends each call through the adapter's
// CircuitBreaker, hands progress back to the calling client, forwards cancellation, and turns the
// upstream's questions for a person (elicitation/create) into form questions at the console: held
// for a client that holds (the upstream's timeout stopped meanwhile), parked for one that parks.
// Lists the tools again when the upstream says they changed (or, from a 2026-07-28 upstream, when the
// ttlMs of its listing ran out), at most once per RelistIntervalMs. The upstream's era is McpClient's
// business: a 2026 upstream's tasks are polled and its input_required raised at the console as its
// elicitation/create requests are, through the same handler.
// Keeps the traffic figures and the breaker's transitions the health view shows.
//
// Lives on the backend thread. Calls in flight hold it alive through their handlers: an adapter
// removed by a configuration reload (retire()), or whose endpoint or credential changed, finishes
// them on the connection they started on before that connection is closed.

#include "adapters/adapterconfig.h"
#include "adapters/circuitbreaker.h"
#include "backendstates.h"
#include "tools/toolregistry.h"
#include "transport/mcpclient.h"

#include <QBasicTimer>
#include <QObject>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

class InteractionBroker;

class UpstreamAdapter : public QObject, public std::enable_shared_from_this<UpstreamAdapter>
{
    Q_OBJECT
public:
    // The newest calls' durations kept for p50/p99.
    static constexpr int LatencySamples = 256;
    static constexpr int FiguresIntervalMs = 100;
    // The first reconnection waits this long, doubling up to the breaker's recovery timeout.
    static constexpr qint64 FirstReconnectDelayMs = 1'000;
    // Listings the upstream asks for (tools/list_changed) start at most this often; a flood of
    // notifications costs one listing per interval, and clients hear of a change at most as often.
    static constexpr qint64 RelistIntervalMs = 1'000;

    UpstreamAdapter(AdapterConfig config, InteractionBroker* broker,
        CircuitBreaker::Clock clock = CircuitBreaker::Clock::system(), QObject* parent = nullptr);
    ~UpstreamAdapter() override;

    const AdapterConfig& config() const { return m_config; }
    // The transitions history kept from earlier runs, shown before this run's (oldest first).
    void restoreTransitions(const QList<BreakerTransitionRecord>& transitions);
    QString name() const { return m_config.name; }
    // A reloaded configuration: the breaker's settings change in place; a changed endpoint or
    // credential means a new connection; read_only and timeout apply to the next calls.
    void reconfigure(const AdapterConfig& config);

    // Before start(): the operator's overrides as a restart finds them (AdapterOverridesFile), the
    // adapter's state from the outset: disabled, it never connects; forced open, nothing goes
    // upstream (connecting included) until a reset. No transition is recorded for them.
    void restoreOverrides(
        bool disabledByOperator, bool forcedOpen, qint64 forcedOpenSinceMs, const QString& forcedBy = {});
    // Connects (unless disabled) and lists the tools; toolsChanged follows.
    void start();
    // The operator's switch; a disabled adapter offers no tools.
    void setEnabledByOperator(bool enabled);
    bool isEnabled() const;
    // The operator's commands; `why` is the transition's reason.
    void resetBreaker(const QString& why = QStringLiteral("reset by the operator"));
    // `by` names the operator who forced it.
    void forceOpenBreaker(const QString& why = QStringLiteral("opened by the operator"), const QString& by = {});
    // Ends the session; calls in flight end as cancelled.
    void shutDown();
    // Removed by a configuration reload: connects and lists no more, and finishes the calls in
    // flight (each bounded by its own timeout); the session ends with the last of them (at once
    // when there is none), then retired() follows.
    void retire();

    // Whether the upstream may offer a tool named `name` to Switchboard's clients: every character
    // visible (no control or format character, no separator or space, nothing unassigned), as the
    // MCP specification's tool names are (it recommends A-Z, a-z, 0-9, '_', '-' and '.').
    static bool isOfferableToolName(const QString& name);

    // The tools to offer now: one per upstream tool, named `adapter.tool`. Empty while disabled or
    // before the first successful listing.
    std::vector<RegisteredTool> tools() const;
    // Why a call to `adapter.tool` found no tool, when the adapter can say (disabled, not
    // connected yet); empty otherwise.
    QString unavailableReason() const;
    // The status of a call refused for unavailableReason(): breaker_open when the operator's open
    // breaker is why, upstream_error otherwise.
    CallStatus unavailableStatus() const;

    AdapterStatus status() const;
    BreakerState breakerState() const { return m_breaker.state(); }
    int callsInFlight() const { return m_callsInFlight; }

    // The message a write tool of a read-only adapter refuses with.
    static QString readOnlyRefusal(const QString& adapter);

Q_SIGNALS:
    void toolsChanged();
    void statusChanged(const AdapterStatus& status);
    void breakerChanged(const BreakerState& state);
    void breakerTransition(const BreakerTransitionRecord& transition);
    // After retire(): its calls have finished and its session has ended; it may go.
    void retired();

protected:
    void timerEvent(QTimerEvent* event) override;

private:
    void connectUpstream();
    // The upstream said its tools changed (or a new session began): lists them again, coalesced.
    void relistTools();
    void startListing();
    // Takes a listing's tools; toolsChanged only when they differ from those offered.
    void takeTools(const std::vector<nlohmann::json>& tools);
    void scheduleReconnect();
    void setConnection(AdapterConnection connection, const QString& error = {});
    // One call sent upstream: what its cancellation must stop (the request, questions raised for
    // it), so that the context's single cancellation handler reaches all of them.
    struct CallInFlight
    {
        std::shared_ptr<McpClient::PendingCall> request;
        McpClient* client = nullptr; // the connection it went on (the adapter's, or one retired since)
        std::vector<std::function<void()>> withdrawQuestions; // each answers the upstream "cancel"
        bool ended = false;
    };

    void handleCall(const std::shared_ptr<ToolCallContext>& context, const QString& upstreamName);
    void finishCall(const std::shared_ptr<ToolCallContext>& context, const std::shared_ptr<CallInFlight>& call,
        const CircuitBreaker::Admission& admission, const McpClient::Outcome& outcome, qint64 startedUs);
    void askPerson(const std::shared_ptr<ToolCallContext>& context, const std::shared_ptr<CallInFlight>& call,
        const QString& method, const nlohmann::json& params, McpClient::Reply reply);
    // A client that parks: the question stays pending, the call ends parked, the upstream's call is
    // cancelled; the identical call asked again finds the person's answer stored.
    void parkCall(const std::shared_ptr<ToolCallContext>& context, const std::shared_ptr<CallInFlight>& call,
        const QString& interactionId, bool duplicate, const McpClient::Reply& reply);
    // A connection replaced by a new one (endpoint or credential changed): closed once the calls it
    // carries have finished, at once when there are none.
    void retireClient(std::unique_ptr<McpClient> client);
    static void withdrawQuestions(CallInFlight& call);
    void noteLatency(qint64 microseconds);
    void publishStatus();
    // Per-call figures (calls, rejections, latencies) go out at most every FiguresIntervalMs:
    // a status copies the transitions and sorts the latency ring, too much for every call at
    // thousands of calls per second. State changes still publish at once.
    void publishFiguresSoon();
    void onBreakerTransition(const CircuitBreaker::Transition& transition);
    void newClient();

    AdapterConfig m_config;
    InteractionBroker* m_broker;
    CircuitBreaker m_breaker;
    std::unique_ptr<McpClient> m_client;
    std::vector<std::unique_ptr<McpClient>> m_retiredClients; // replaced, still finishing calls
    std::map<const McpClient*, int> m_callsByClient; // calls in flight on each connection
    bool m_retiring = false;
    bool m_listing = false; // a listing the upstream asked for is in flight
    bool m_relistPending = false; // and another was asked for meanwhile
    qint64 m_lastListingStartedMs = -1; // monotonic
    QBasicTimer m_relistTimer;
    std::vector<nlohmann::json> m_upstreamTools; // as the upstream listed them
    bool m_listed = false; // a listing succeeded since the last connection change
    bool m_disabledByOperator = false;
    bool m_connecting = false;
    AdapterConnection m_connection = AdapterConnection::Connecting;
    QString m_lastError;
    qint64 m_lastErrorAtMs = 0;
    qint64 m_lastSuccessAtMs = 0;
    qint64 m_changedAtMs = 0;
    qint64 m_calls = 0;
    qint64 m_rejected = 0;
    std::deque<qint64> m_latenciesUs;
    std::deque<BreakerTransitionRecord> m_transitions;
    qint64 m_causingCallId = 0; // the call whose outcome is being recorded, for its transitions
    int m_callsInFlight = 0;
    qint64 m_reconnectDelayMs = FirstReconnectDelayMs;
    QBasicTimer m_reconnectTimer;
    QBasicTimer m_figuresTimer;
    QBasicTimer m_breakerTimer; // an open breaker turns half-open on time, also without calls
    const CircuitBreaker::Clock m_clock;
};
