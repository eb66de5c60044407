// Upstream adapters end to end: a real Backend whose mcp_endpoints point at upstreams on loopback
// (tests/node/fault-upstream.mjs, faults switched on command), spoken to by an MCP client over HTTP
// as any client would. Tools offered as adapter.tool, read-only enforcement before any traffic, the
// breaker opening on failures and closing through half-open, operator commands, elicitation
// answered at the console, sampling refused, a reloaded configuration, tools/list_changed from the
// upstream's GET stream. The operator's overrides in the state directory (adapters.json): obeyed
// from the start by a console and by a one-shot runner (a disabled adapter is never contacted),
// followed by another console, and a forced-open breaker kept across a restart until reset. The
// official SDK v2 server as an upstream in both eras: 2026-07-28 only (stateless, Mcp-Param-* headers,
// a task polled and cancelled, input_required asked at the console, the breaker counting its
// failures) and 2025 only (the handshake after the probe).

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "adapters/adapteroverridesfile.h"
#include "adapters/upstreamadapter.h"
#include "core/backend.h"
#include "interaction/interactionbroker.h"
#include "rawhttpclient.h"
#include "transport/mcpclient.h"
#include "upstreamprocess.h"

using nlohmann::json;

namespace {

constexpr char Token[] = "sb_adapterTestToken_0123456789abcdefghijklmn";

AdapterConfig adapter(const QString& name, const QUrl& endpoint, bool readOnly = false)
{
    AdapterConfig config;
    config.name = name;
    config.endpoint = endpoint;
    config.authToken = QStringLiteral("upstream-secret-") + name;
    config.readOnly = readOnly;
    config.timeout = std::chrono::milliseconds(3'000);
    config.breaker.failureThreshold = 2;
    config.breaker.recoveryTimeout = std::chrono::milliseconds(1'500);
    config.breaker.halfOpenMaxCalls = 1;
    return config;
}

// The text of a CallToolResult's first block.
QString firstText(const json& result)
{
    if (!result.is_object() || !result.contains("content") || result["content"].empty())
        return {};
    return QString::fromStdString(result["content"][0].value("text", std::string()));
}

// An endpoint on loopback that nothing listens on (a port just given up).
QUrl unusedEndpoint()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return {};
    const quint16 port = probe.serverPort();
    probe.close();
    return QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
}

// A tools/call through Backend::callLocally, as the one-shot runner makes it: the JSON-RPC response.
json callLocally(Backend& backend, const QString& tool, const json& arguments = json::object())
{
    const json request{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
        {"params", {{"name", tool.toStdString()}, {"arguments", arguments}}}};
    LocalCaller caller;
    caller.clientName = QStringLiteral("tst_adapters");
    std::optional<LocalCallOutcome> outcome;
    backend.callLocally(
        QByteArray::fromStdString(request.dump()), caller, {}, [&](const LocalCallOutcome& done) { outcome = done; });
    if (!QTest::qWaitFor([&] { return outcome.has_value(); }, 60'000))
        return json{{"timedOut", true}};
    if (outcome->kind != LocalCallOutcome::Kind::Answered)
        return json{{"notAnswered", outcome->reason.toStdString()}};
    return json::parse(outcome->response.toStdString(), nullptr, false);
}

// Writes the operator's overrides file of `stateDirectory` as another process would have left it.
bool writeOverrides(const QString& stateDirectory, const QByteArray& contents)
{
    if (!QDir().mkpath(stateDirectory))
        return false;
    QFile file(QDir(stateDirectory).filePath(QStringLiteral("adapters.json")));
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(contents) == contents.size();
}

} // namespace

class TestAdapters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void upstreamToolsAreOfferedAsAdapterTools();
    void writeToReadOnlyAdapterIsRefusedBeforeAnyTraffic();
    void breakerOpensOnFailuresAndClosesThroughHalfOpen();
    void toolErrorsAndAuthenticationFailuresDoNotTripTheBreaker();
    void operatorCommandsAct();
    void elicitationIsAnsweredAtTheConsole();
    void samplingIsRefused();
    void progressIsPassedThrough();
    void reloadedConfigurationAddsAndRemovesAdapters();
    void stoppedUpstreamOpensTheBreakerAndItsRestartClosesIt();
    void referenceServerIsAHealthyAdapter();
    void transitionsAreKeptInHistoryAcrossARestart();
    void sinksAreCalledAsSinkOpAndReloaded();
    void upstreamWriteToolAsksThePersonByDefault();
    void listChangedOnTheUpstreamsStreamRelistsItsTools();
    void adaptersDisabledInTheStateDirectoryAreNeverContacted();
    void operatorOverridesAreFollowedByAnotherConsole();
    void forcedOpenBreakerSurvivesARestartUntilReset();
    void referenceServerRestartIsRecovered();
    void upstreamQuestionWaitsForThePersonNotTheTimeout();
    void unansweredUpstreamQuestionsDoNotOpenTheBreaker();
    void upstreamQuestionIsParkedForAParkClient();
    void clientAliasNamesTheAdaptersTool();
    void endpointWithoutPathIsPostedAtMcp();
    void reloadLetsCallsInFlightFinish_data();
    void reloadLetsCallsInFlightFinish();
    void listChangedFloodIsCoalesced();
    void toolNamesWithInvisibleCharactersAreLeftOut();
    void modernUpstreamBehindAnAdapter();
    void modernUpstreamsQuestionIsAskedAtTheConsole();
    void modernUpstreamsQuestionGoesToATaskClientsUser();
    void cancellingACallCancelsTheUpstreamTask();
    void legacySdkV2UpstreamBehindAnAdapter();
    void stoppedModernUpstreamOpensTheBreakerAndItsRestartClosesIt();

private:
    // `adjust` changes the options before the backend starts (interaction settings, deadlines).
    bool startBackend(std::vector<AdapterConfig> adapters, std::vector<SinkConfig> sinks = {},
        const QString& defaultPermission = QStringLiteral("allow"),
        const std::function<void(BackendOptions&)>& adjust = {});
    // Another Backend on the same state directory: another console, or with `listen` false what a
    // one-shot runner starts. Its adapters' newest states go to `statuses` and `breakers`.
    std::unique_ptr<Backend> startAnotherBackend(std::vector<AdapterConfig> adapters, bool listen,
        QHash<QString, AdapterStatus>* statuses, QHash<QString, BreakerState>* breakers);
    QString stateDirectory() const { return m_dir->filePath(QStringLiteral("state")); }
    // How many requests of `method` reached the upstream (-1: it did not answer).
    qint64 upstreamRequests(const char* method);
    json call(const QString& tool, const json& arguments = json::object(), McpClient::CallOptions options = {});
    json listTools();
    // Whether the breaker of `adapter` reached `phase` (within 20 s); its state is then in m_breakers.
    [[nodiscard]] bool waitForBreaker(const QString& adapter, BreakerPhase phase);
    qint64 upstreamCalls();
    // The statuses the call log got for the finished calls of `tool`, oldest first, once there are
    // `count` of them.
    QList<CallStatus> finishedStatuses(const QString& tool, int count);
    // Waits until the adapters offer `count` tools; their names then in the result.
    json waitForTools(std::size_t count);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<UpstreamProcess> m_upstream;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<McpClient> m_client;
    QHash<QString, BreakerState> m_breakers;
    QList<BreakerTransitionRecord> m_transitions;
    QHash<QString, AdapterStatus> m_statuses; // newest per adapter
    QMap<qint64, ToolCall> m_calls; // newest record per call, by id
};

void TestAdapters::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_upstream = std::make_unique<UpstreamProcess>();
    QVERIFY2(m_upstream->start(), qPrintable(m_upstream->errorString()));
    m_breakers.clear();
    m_transitions.clear();
    m_statuses.clear();
    m_calls.clear();
}

void TestAdapters::cleanup()
{
    m_client.reset();
    m_backend.reset();
    m_upstream.reset();
    m_dir.reset();
}

bool TestAdapters::startBackend(std::vector<AdapterConfig> adapters, std::vector<SinkConfig> sinks,
    const QString& defaultPermission, const std::function<void(BackendOptions&)>& adjust)
{
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = Token;
    options.stateDirectory = stateDirectory();
    options.config.defaultPermission = defaultPermission;
    options.config.adapters = QList<AdapterConfig>(adapters.begin(), adapters.end());
    options.config.sinks = std::move(sinks);
    options.configPath = m_dir->filePath(QStringLiteral("switchboard.yaml"));
    if (adjust)
        adjust(options);
    m_backend = std::make_unique<Backend>(options);
    connect(m_backend.get(), &Backend::breakerStatesChanged, this, [this](const BreakerStateList& states) {
        for (const BreakerState& state : states)
            m_breakers.insert(state.adapter, state);
    });
    connect(m_backend.get(), &Backend::adapterStatusesChanged, this, [this](const AdapterStatusList& statuses) {
        for (const AdapterStatus& status : statuses) {
            m_statuses.insert(status.name, status);
            for (const BreakerTransitionRecord& transition : status.transitions) {
                if (!m_transitions.contains(transition))
                    m_transitions.append(transition);
            }
        }
    });
    connect(m_backend.get(), &Backend::callsUpdated, this, [this](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            m_calls.insert(call.id, call);
    });
    QString error;
    if (!m_backend->start(&error)) {
        qWarning("backend: %s", qPrintable(error));
        return false;
    }
    McpClient::Settings settings;
    settings.endpoint = m_backend->serverUrl();
    settings.bearerToken = Token;
    settings.requestTimeoutMs = 20'000;
    m_client = std::make_unique<McpClient>(settings);
    return true;
}

std::unique_ptr<Backend> TestAdapters::startAnotherBackend(std::vector<AdapterConfig> adapters, bool listen,
    QHash<QString, AdapterStatus>* statuses, QHash<QString, BreakerState>* breakers)
{
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = Token;
    options.stateDirectory = stateDirectory();
    options.config.defaultPermission = QStringLiteral("allow");
    options.config.adapters = QList<AdapterConfig>(adapters.begin(), adapters.end());
    options.listen = listen;
    auto backend = std::make_unique<Backend>(options);
    connect(backend.get(), &Backend::breakerStatesChanged, this, [breakers](const BreakerStateList& states) {
        for (const BreakerState& state : states)
            breakers->insert(state.adapter, state);
    });
    connect(backend.get(), &Backend::adapterStatusesChanged, this, [statuses](const AdapterStatusList& list) {
        for (const AdapterStatus& status : list)
            statuses->insert(status.name, status);
    });
    QString error;
    if (!backend->start(&error)) {
        qWarning("backend: %s", qPrintable(error));
        return nullptr;
    }
    return backend;
}

qint64 TestAdapters::upstreamRequests(const char* method)
{
    const json stats = m_upstream->stats();
    if (!stats.is_object())
        return -1;
    return stats.value("methods", json::object()).value(method, qint64(0));
}

json TestAdapters::call(const QString& tool, const json& arguments, McpClient::CallOptions options)
{
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(tool, arguments, std::move(options), [&](McpClient::Outcome result) { outcome = result; });
    if (!QTest::qWaitFor([&] { return outcome.has_value(); }, 30'000))
        return json{{"timedOut", true}};
    if (!outcome->ok())
        return json{{"failure", McpClient::failureKindName(outcome->failure->kind).toStdString()},
            {"message", outcome->failure->message.toStdString()}};
    return outcome->result;
}

json TestAdapters::listTools()
{
    std::optional<json> names;
    m_client->listTools([&](const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
        json result = json::array();
        if (!failure) {
            // Only the adapters' tools (`adapter.tool`): the builtins are there too.
            for (const json& tool : list.tools) {
                const std::string name = tool.value("name", std::string());
                if (name.find('.') != std::string::npos)
                    result.push_back(name);
            }
        }
        names = result;
    });
    if (!QTest::qWaitFor([&] { return names.has_value(); }, 30'000))
        return nullptr;
    return *names;
}

bool TestAdapters::waitForBreaker(const QString& adapter, BreakerPhase phase)
{
    if (QTest::qWaitFor([&] { return m_breakers.value(adapter).phase == phase; }, 20'000))
        return true;
    qWarning("breaker %s did not become %s; it is %s", qPrintable(adapter), qPrintable(breakerPhaseName(phase)),
        qPrintable(breakerPhaseName(m_breakers.value(adapter).phase)));
    return false;
}

QList<CallStatus> TestAdapters::finishedStatuses(const QString& tool, int count)
{
    QList<CallStatus> statuses;
    const bool arrived = QTest::qWaitFor(
        [&] {
            statuses.clear();
            for (const ToolCall& call : std::as_const(m_calls)) {
                if (call.tool == tool && call.isFinished())
                    statuses.append(call.status);
            }
            return statuses.size() >= count;
        },
        20'000);
    if (!arrived)
        qWarning("only %lld finished calls of %s", qlonglong(statuses.size()), qPrintable(tool));
    return statuses;
}

// How many tools/call requests reached the upstream (of any tool: fault-upstream counts methods).
qint64 TestAdapters::upstreamCalls()
{
    const json stats = m_upstream->stats();
    if (!stats.is_object())
        return -1;
    return stats.value("methods", json::object()).value("tools/call", qint64(0));
}

void TestAdapters::upstreamToolsAreOfferedAsAdapterTools()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    // The tools appear once the adapter has listed them.
    json names;
    QVERIFY(QTest::qWaitFor(
        [&] {
            names = listTools();
            return names.is_array() && names.size() > 3;
        },
        30'000));
    for (const char* expected : {"fault.echo", "fault.write_note", "fault.slow", "fault.ask"})
        QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), names.dump().c_str());

    const json result = call(QStringLiteral("fault.echo"), {{"text", "through the gateway"}});
    QCOMPARE(firstText(result), QStringLiteral("through the gateway"));
    // The adapter's own credential went upstream, never the client's.
    const json stats = m_upstream->stats();
    const std::string sent = stats.value("authorization", json::object()).dump();
    QVERIFY2(QString::fromStdString(sent).contains(QStringLiteral("Bearer upstream-secret-fault")), sent.c_str());
    QVERIFY2(!QString::fromStdString(sent).contains(QLatin1String(Token)), sent.c_str());

    // An unknown tool of a known adapter is an explicit error naming the closest match.
    const json unknown = call(QStringLiteral("fault.ecoh"));
    QVERIFY2(unknown.dump().find("fault.echo") != std::string::npos, unknown.dump().c_str());
}

void TestAdapters::writeToReadOnlyAdapterIsRefusedBeforeAnyTraffic()
{
    QVERIFY(startBackend({adapter(QStringLiteral("ro"), m_upstream->url(), true)}));
    json names;
    QVERIFY(QTest::qWaitFor(
        [&] {
            names = listTools();
            return names.is_array() && !names.empty();
        },
        30'000));
    QVERIFY2(std::find(names.begin(), names.end(), "ro.echo") != names.end(), names.dump().c_str());
    // Unannotated tools count as writes: not advertised.
    QVERIFY2(std::find(names.begin(), names.end(), "ro.write_note") == names.end(), names.dump().c_str());
    QVERIFY2(std::find(names.begin(), names.end(), "ro.fail_tool") == names.end(), names.dump().c_str());

    const qint64 before = upstreamCalls();
    const json refused = call(QStringLiteral("ro.write_note"), {{"text", "x"}});
    QCOMPARE(refused.value("isError", false), true);
    QCOMPARE(firstText(refused), QStringLiteral("write not allowed on read-only adapter ro"));
    QCOMPARE(upstreamCalls(), before);
    QVERIFY(before >= 0);
    // A standing rule of the operator's, not a failure of the upstream (which was never asked).
    QCOMPARE(finishedStatuses(QStringLiteral("ro.write_note"), 1), QList<CallStatus>{CallStatus::Denied});
    // The operator sees the attempt among the adapter's rejected calls.
    QTRY_COMPARE_WITH_TIMEOUT(m_statuses.value(QStringLiteral("ro")).rejectedCalls, qint64(1), 10'000);
    // Read tools still run.
    QCOMPARE(firstText(call(QStringLiteral("ro.echo"), {{"text", "read"}})), QStringLiteral("read"));
}

void TestAdapters::breakerOpensOnFailuresAndClosesThroughHalfOpen()
{
    QVERIFY(startBackend(
        {adapter(QStringLiteral("fault"), m_upstream->url()), adapter(QStringLiteral("other"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 6; }, 30'000));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "a"}})), QStringLiteral("a"));

    QVERIFY(m_upstream->control(QStringLiteral("http500")));
    for (int i = 0; i < 2; ++i) {
        const json failed = call(QStringLiteral("fault.echo"), {{"text", "b"}});
        QCOMPARE(failed.value("isError", false), true);
        QVERIFY2(firstText(failed).contains(QStringLiteral("500")), failed.dump().c_str());
    }
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    const BreakerState open = m_breakers.value(QStringLiteral("fault"));
    QVERIFY(open.retryAtMs > 0);

    // While open: refused at once with the time until the next try, nothing sent upstream.
    const qint64 sentBefore = upstreamCalls();
    const json refused = call(QStringLiteral("fault.echo"), {{"text", "c"}});
    QCOMPARE(refused.value("isError", false), true);
    QVERIFY2(firstText(refused).contains(QStringLiteral("open")), refused.dump().c_str());
    QVERIFY2(firstText(refused).contains(QStringLiteral("next try in")), refused.dump().c_str());
    QCOMPARE(upstreamCalls(), sentBefore);
    // The call log: one ok, two HTTP 500s (upstream errors) and one refused by the open breaker, which
    // is its own status: the upstream was not asked.
    QCOMPARE(finishedStatuses(QStringLiteral("fault.echo"), 4),
        (QList<CallStatus>{
            CallStatus::Ok, CallStatus::UpstreamError, CallStatus::UpstreamError, CallStatus::BreakerOpen}));
    // The other adapter (the same upstream, its own breaker) is untouched.
    QCOMPARE(m_breakers.value(QStringLiteral("other")).phase, BreakerPhase::Closed);

    // The upstream recovers; after recovery_timeout the breaker is half-open and a probe closes it.
    QVERIFY(m_upstream->control(QStringLiteral("ok")));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::HalfOpen));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "d"}})), QStringLiteral("d"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).consecutiveFailures, 0);

    // Every transition is kept, and the one that opened it names the call that tripped it.
    QTRY_VERIFY_WITH_TIMEOUT(m_transitions.size() >= 3, 10'000);
    QList<QPair<BreakerPhase, BreakerPhase>> path;
    for (const BreakerTransitionRecord& transition : std::as_const(m_transitions)) {
        if (transition.adapter == QStringLiteral("fault"))
            path.append({transition.from, transition.to});
    }
    const QList<QPair<BreakerPhase, BreakerPhase>> expected{{BreakerPhase::Closed, BreakerPhase::Open},
        {BreakerPhase::Open, BreakerPhase::HalfOpen}, {BreakerPhase::HalfOpen, BreakerPhase::Closed}};
    QCOMPARE(path, expected);
    QVERIFY(m_transitions.first().callId > 0);
}

void TestAdapters::toolErrorsAndAuthenticationFailuresDoNotTripTheBreaker()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call(QStringLiteral("fault.fail_tool")).value("isError", false), true);
    QVERIFY(m_upstream->control(QStringLiteral("http401")));
    for (int i = 0; i < 3; ++i) {
        const json refused = call(QStringLiteral("fault.echo"), {{"text", "x"}});
        QVERIFY2(firstText(refused).contains(QStringLiteral("credential")), refused.dump().c_str());
    }
    // Each outcome is recorded before the call's result goes out; the figures follow within 100 ms.
    QTRY_COMPARE_WITH_TIMEOUT(m_statuses.value(QStringLiteral("fault")).authenticationFailures, qint64(3), 10'000);
    QCOMPARE(m_statuses.value(QStringLiteral("fault")).failures, qint64(0));
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).phase, BreakerPhase::Closed);
    // The upstream's tool answering isError is the tool's error; a refused credential is the
    // upstream's.
    QCOMPARE(finishedStatuses(QStringLiteral("fault.fail_tool"), 3), QList<CallStatus>(3, CallStatus::ToolError));
    QCOMPARE(finishedStatuses(QStringLiteral("fault.echo"), 3), QList<CallStatus>(3, CallStatus::UpstreamError));

    // An upstream slower than the adapter's timeout (3 s here): timed out.
    QVERIFY(m_upstream->control(QStringLiteral("ok")));
    const json slow = call(QStringLiteral("fault.slow"), {{"ms", 8'000}});
    QCOMPARE(slow.value("isError", false), true);
    QCOMPARE(finishedStatuses(QStringLiteral("fault.slow"), 1), QList<CallStatus>{CallStatus::TimedOut});
}

void TestAdapters::operatorCommandsAct()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));

    m_backend->forceOpenBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    QVERIFY(m_breakers.value(QStringLiteral("fault")).forcedOpen);
    // Who forced it: the name this console's answers are recorded under.
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).forcedBy, InteractionBroker::consoleUser());
    QVERIFY2(firstText(call(QStringLiteral("fault.echo"), {{"text", "x"}})).contains(QStringLiteral("open")),
        "a forced-open breaker refuses");
    // Refused by the breaker, not an upstream's failure: the upstream was never asked.
    QCOMPARE(finishedStatuses(QStringLiteral("fault.echo"), 1), QList<CallStatus>{CallStatus::BreakerOpen});
    m_backend->resetBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "y"}})), QStringLiteral("y"));

    QSignalSpy toolsChanged(m_client.get(), &McpClient::toolsListChanged);
    m_backend->setAdapterEnabled(QStringLiteral("fault"), false);
    QVERIFY(QTest::qWaitFor([&] { return listTools().empty(); }, 10'000));
    QTRY_VERIFY_WITH_TIMEOUT(toolsChanged.count() >= 1, 10'000); // the client was told
    const json disabled = call(QStringLiteral("fault.echo"), {{"text", "z"}});
    // Its tools are gone, so the call is a protocol error ("unknown tool") that says why.
    QVERIFY2(disabled.value("message", std::string())
                 .find("Tool \"fault.echo\" is not available: adapter fault is "
                       "disabled by the Switchboard operator")
            != std::string::npos,
        disabled.dump().c_str());
    const qsizetype toldBefore = toolsChanged.count();
    m_backend->setAdapterEnabled(QStringLiteral("fault"), true);
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 10'000));
    QTRY_VERIFY_WITH_TIMEOUT(toolsChanged.count() > toldBefore, 10'000);

    QSignalSpy failed(m_backend.get(), &Backend::commandFailed);
    m_backend->resetBreaker(QStringLiteral("nosuch"));
    QVERIFY(failed.wait(5'000));
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("resetBreaker"));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("fault")));
}

void TestAdapters::elicitationIsAnsweredAtTheConsole()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("fault.ask"), json::object(), {}, [&](McpClient::Outcome result) { outcome = result; });
    QVERIFY(pending.wait(20'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(question.render, RenderHint::Form);
    QCOMPARE(question.route, ToolRoute::adapter(QStringLiteral("fault")));
    const json spec = json::parse(question.renderSpec.toStdString(), nullptr, false);
    // The form is the upstream's requestedSchema.
    const json expectedSchema
        = json::parse(R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})");
    QVERIFY2(spec.value("schema", json()) == expectedSchema, spec.dump().c_str());
    m_backend->answerInteraction(question.id, InteractionAnswer::respond({{"values", {{"name", "Ada"}}}}));
    QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000));
    QVERIFY(outcome->ok());
    // fault-upstream returns what it received as the elicitation's result.
    const json answered = json::parse(firstText(outcome->result).toStdString(), nullptr, false);
    QVERIFY2(answered == json::parse(R"({"action":"accept","content":{"name":"Ada"}})"), answered.dump().c_str());
}

void TestAdapters::samplingIsRefused()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    const json result = call(QStringLiteral("fault.sample"));
    QVERIFY2(result.dump().find("sampling") != std::string::npos, result.dump().c_str());
}

void TestAdapters::progressIsPassedThrough()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QList<double> seen;
    McpClient::CallOptions options;
    options.progress = [&](const json& params) { seen << params.value("progress", 0.0); };
    const json result = call(QStringLiteral("fault.progress"), {{"count", 3}}, std::move(options));
    QVERIFY2(!result.value("isError", false), result.dump().c_str());
    QVERIFY2(seen.size() >= 3, qPrintable(QString::number(seen.size())));
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
}

void TestAdapters::reloadedConfigurationAddsAndRemovesAdapters()
{
    QFile file(m_dir->filePath(QStringLiteral("switchboard.yaml")));
    const auto write = [&](const QByteArray& text) {
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
        file.close();
    };
    const QByteArray endpoint = m_upstream->url().toEncoded();
    write("permissions: {default: allow}\nmcp_endpoints:\n  - name: first\n    endpoint: " + endpoint + "\n");
    QVERIFY(startBackend({adapter(QStringLiteral("first"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));

    // A bad file keeps what is in force, saying where it is wrong.
    QSignalSpy reloaded(m_backend.get(), &Backend::configurationReloaded);
    write("mcp_endpoints:\n  - name: first\n    endpoint: " + endpoint + "\n    read_only: maybe\n");
    QVERIFY(reloaded.wait(10'000));
    QCOMPARE(reloaded.last().at(0).toBool(), false);
    QVERIFY2(reloaded.last().at(1).toString().contains(QStringLiteral("read_only")),
        qPrintable(reloaded.last().at(1).toString()));
    QCOMPARE(firstText(call(QStringLiteral("first.echo"), {{"text", "still"}})), QStringLiteral("still"));

    // The file changes: "first" goes, "second" comes; the client hears tools/list_changed.
    write("mcp_endpoints:\n  - name: second\n    endpoint: " + endpoint + "\n");
    QTRY_VERIFY_WITH_TIMEOUT(reloaded.size() >= 2 && reloaded.last().at(0).toBool(), 10'000);
    json names;
    QVERIFY(QTest::qWaitFor(
        [&] {
            names = listTools();
            return names.is_array() && std::find(names.begin(), names.end(), "second.echo") != names.end()
                && std::find(names.begin(), names.end(), "first.echo") == names.end();
        },
        20'000));
}

void TestAdapters::stoppedUpstreamOpensTheBreakerAndItsRestartClosesIt()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return !listTools().empty(); }, 30'000));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "up"}})), QStringLiteral("up"));
    const int port = m_upstream->port();

    m_upstream.reset(); // killed: connections are refused
    for (int i = 0; i < 2; ++i) {
        const json failed = call(QStringLiteral("fault.echo"), {{"text", "down"}});
        QVERIFY2(firstText(failed).contains(QStringLiteral("connection")), failed.dump().c_str());
    }
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    const json refused = call(QStringLiteral("fault.echo"), {{"text", "down"}});
    QVERIFY2(firstText(refused).contains(QStringLiteral("did not send this call upstream")), refused.dump().c_str());

    // The same upstream comes back on its port (a new process: the old session is unknown to it, so
    // the probe re-initializes); the half-open probe closes the breaker.
    m_upstream = std::make_unique<UpstreamProcess>(
        UpstreamProcess::Kind::Fault, QStringList{QStringLiteral("--port"), QString::number(port)});
    QVERIFY2(m_upstream->start(), qPrintable(m_upstream->errorString()));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::HalfOpen));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "back"}})), QStringLiteral("back"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
}

// The MCP reference server (server-everything, streamable HTTP) offered through Switchboard: every
// tool it lists is offered (its schemas are usable), and echo answers.
void TestAdapters::referenceServerIsAHealthyAdapter()
{
    UpstreamProcess everything(UpstreamProcess::Kind::Everything);
    QVERIFY2(everything.start(), qPrintable(everything.errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("everything"), everything.url())}));
    json names;
    QVERIFY(QTest::qWaitFor(
        [&] {
            names = listTools();
            return names.is_array() && !names.empty();
        },
        30'000));
    QVERIFY2(std::find(names.begin(), names.end(), "everything.echo") != names.end(), names.dump().c_str());

    // Every tool the server lists is offered (none left out for its schema or name).
    McpClient::Settings direct;
    direct.endpoint = everything.url();
    McpClient upstream(direct);
    std::optional<std::size_t> listed;
    upstream.listTools([&](const McpClient::ToolList& list, const std::optional<McpClient::Failure>& failure) {
        listed = failure ? 0 : list.tools.size();
    });
    QVERIFY(QTest::qWaitFor([&] { return listed.has_value(); }, 30'000));
    QVERIFY(*listed > 0);
    QCOMPARE(names.size(), *listed);

    const json result = call(QStringLiteral("everything.echo"), {{"message", "hello upstream"}});
    QVERIFY2(firstText(result).contains(QStringLiteral("hello upstream")), result.dump().c_str());
    QCOMPARE(m_breakers.value(QStringLiteral("everything")).phase, BreakerPhase::Closed);
}

void TestAdapters::transitionsAreKeptInHistoryAcrossARestart()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    m_backend->forceOpenBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    m_backend->resetBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
    m_client.reset();
    m_backend.reset(); // history is written before the backend is gone
    m_transitions.clear();
    m_breakers.clear();

    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QTRY_VERIFY_WITH_TIMEOUT(m_transitions.size() >= 2, 10'000);
    QCOMPARE(m_transitions.at(0).to, BreakerPhase::Open);
    QVERIFY2(m_transitions.at(0).reason.contains(QStringLiteral("operator")), qPrintable(m_transitions.at(0).reason));
    QCOMPARE(m_transitions.at(1).to, BreakerPhase::Closed);
}

// Sinks through the whole backend: `audit.append` is routed to the jsonl sink and its record lands
// in the file; a reloaded file that drops the sink removes its tool.
void TestAdapters::sinksAreCalledAsSinkOpAndReloaded()
{
    SinkConfig audit;
    audit.name = QStringLiteral("audit");
    audit.type = SinkConfig::Type::Jsonl;
    audit.path = m_dir->filePath(QStringLiteral("audit.jsonl"));
    audit.maxBytes = SinkConfig::defaultMaxBytes(SinkConfig::Type::Jsonl);
    QVERIFY(startBackend({}, {audit}));
    const json result = call(QStringLiteral("audit.append"), {{"record", {{"event", "deployed"}}}});
    QVERIFY2(!result.value("isError", false) && !result.contains("failure"), result.dump().c_str());
    QFile file(audit.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const json line = json::parse(file.readLine().toStdString(), nullptr, false);
    QVERIFY2(line == json({{"event", "deployed"}}), line.dump().c_str());

    QSignalSpy reloaded(m_backend.get(), &Backend::configurationReloaded);
    QFile config(m_dir->filePath(QStringLiteral("switchboard.yaml")));
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write("sinks: []\n");
    config.close();
    m_backend->reloadConfiguration();
    QVERIFY(reloaded.count() >= 1 || reloaded.wait(5'000));
    QVERIFY2(reloaded.last().at(0).toBool(), qPrintable(reloaded.last().at(1).toString()));
    QVERIFY2(reloaded.last().at(1).toString().contains(QStringLiteral("0 sinks")),
        qPrintable(reloaded.last().at(1).toString()));
    json after;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     after = call(QStringLiteral("audit.append"), {{"record", json::object()}});
                     return after.contains("failure");
                 },
                 10'000),
        after.dump().c_str());
}

// Without a rule, the existing permission defaults apply to upstream tools: a read tool runs, a
// write tool (unannotated) waits for the person's approval, and permissions.adapters decides.
void TestAdapters::upstreamWriteToolAsksThePersonByDefault()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}, {}, QString()));
    QVERIFY(QTest::qWaitFor([&] { return !listTools().empty(); }, 30'000));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "read"}})), QStringLiteral("read"));

    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("fault.write_note"), {{"note", "x"}}, {}, [&](McpClient::Outcome result) { outcome = result; });
    QVERIFY(pending.wait(20'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(question.render, RenderHint::Approval);
    QCOMPARE(question.tool, QStringLiteral("fault.write_note"));
    const qint64 sentBefore = upstreamCalls();
    QVERIFY(!outcome.has_value());
    m_backend->answerInteraction(question.id, InteractionAnswer::decide(InteractionAnswer::Decision::Deny));
    QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000));
    QVERIFY(outcome->ok());
    QVERIFY2(firstText(outcome->result).contains(QStringLiteral("denied")), outcome->result.dump().c_str());
    QCOMPARE(upstreamCalls(), sentBefore); // denied: nothing went upstream
}

// The upstream changes its tools and says so on its GET stream, with no call in flight: the adapter
// (listening by default) lists them again, Switchboard offers the new one, and its own client hears
// notifications/tools/list_changed (on Switchboard's GET stream: McpClient listens there too).
void TestAdapters::listChangedOnTheUpstreamsStreamRelistsItsTools()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QVERIFY(QTest::qWaitFor([&] { return m_upstream->stats().value("listeningOpen", qint64(0)) == 1; }, 30'000));
    QSignalSpy heard(m_client.get(), &McpClient::toolsListChanged);
    const qint64 callsBefore = upstreamCalls();

    QVERIFY(m_upstream->control(QStringLiteral("push-list-changed"), {{"tool", "pushed_tool"}}));
    json names;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     names = listTools();
                     return names.is_array()
                         && std::find(names.begin(), names.end(), "fault.pushed_tool") != names.end();
                 },
                 30'000),
        names.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(heard.count() >= 1, 30'000);
    QCOMPARE(upstreamCalls(), callsBefore); // no call carried it
    QCOMPARE(m_upstream->stats().value("listeningOpened", qint64(0)), 1);
}

// The operator disabled both adapters before this start (adapters.json, as a console leaves it): a
// runner and then a console offer none of their tools, say why, and never contact either upstream; the
// one nothing listens on answers "disabled", not "connection refused".
void TestAdapters::adaptersDisabledInTheStateDirectoryAreNeverContacted()
{
    QVERIFY(writeOverrides(stateDirectory(), R"({"version": 1, "adapters": {
        "fault": {"enabled": false, "forcedOpen": false, "changedAtMs": 1},
        "down": {"enabled": false, "forcedOpen": false, "changedAtMs": 1}}})"));
    const std::vector<AdapterConfig> adapters{
        adapter(QStringLiteral("fault"), m_upstream->url()), adapter(QStringLiteral("down"), unusedEndpoint())};

    QHash<QString, AdapterStatus> runnerStatuses;
    QHash<QString, BreakerState> runnerBreakers;
    std::unique_ptr<Backend> runner = startAnotherBackend(adapters, false, &runnerStatuses, &runnerBreakers);
    QVERIFY(runner);
    const json refused = callLocally(*runner, QStringLiteral("fault.echo"), {{"text", "x"}});
    QVERIFY2(refused.dump().find("adapter fault is disabled by the Switchboard operator") != std::string::npos,
        refused.dump().c_str());
    const json down = callLocally(*runner, QStringLiteral("down.echo"), {{"text", "x"}});
    QVERIFY2(down.dump().find("adapter down is disabled by the Switchboard operator") != std::string::npos,
        down.dump().c_str());
    QVERIFY2(down.dump().find("refused") == std::string::npos, down.dump().c_str());
    QTRY_COMPARE_WITH_TIMEOUT(
        runnerStatuses.value(QStringLiteral("down")).connection, AdapterConnection::Disabled, 30'000);
    runner.reset();

    QVERIFY(startBackend(adapters));
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.value(QStringLiteral("fault")).disabledByOperator, 30'000);
    QCOMPARE(m_statuses.value(QStringLiteral("fault")).connection, AdapterConnection::Disabled);
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.value(QStringLiteral("down")).disabledByOperator, 30'000);
    const json names = listTools();
    QVERIFY2(names.is_array() && names.empty(), names.dump().c_str());
    const json disabled = call(QStringLiteral("fault.echo"), {{"text", "z"}});
    QVERIFY2(disabled.value("message", std::string()).find("adapter fault is disabled by the Switchboard operator")
            != std::string::npos,
        disabled.dump().c_str());

    // Nothing reached the upstream: no initialize, no listing, no call.
    const json stats = m_upstream->stats();
    QVERIFY2(stats.is_object() && stats.value("methods", json::object()).empty(), stats.dump().c_str());

    // Enabled by this console: connects now, and the file no longer says disabled.
    m_backend->setAdapterEnabled(QStringLiteral("fault"), true);
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    AdapterOverridesFile::Overrides kept;
    QString message;
    QCOMPARE(AdapterOverridesFile(m_backend->adapterOverridesPath()).read(&kept, &message),
        AdapterOverridesFile::ReadStatus::Read);
    QVERIFY(!kept.count(QStringLiteral("fault")));
    QVERIFY(kept.at(QStringLiteral("down")).disabled);
}

// Two consoles on one state directory: what the operator does in one, the other follows (its
// adapters' tools go and come, its breaker opens and closes), both ways.
void TestAdapters::operatorOverridesAreFollowedByAnotherConsole()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QHash<QString, AdapterStatus> otherStatuses;
    QHash<QString, BreakerState> otherBreakers;
    std::unique_ptr<Backend> other = startAnotherBackend(
        {adapter(QStringLiteral("fault"), m_upstream->url())}, true, &otherStatuses, &otherBreakers);
    QVERIFY(other);
    QTRY_COMPARE_WITH_TIMEOUT(
        otherStatuses.value(QStringLiteral("fault")).connection, AdapterConnection::Ready, 30'000);

    m_backend->setAdapterEnabled(QStringLiteral("fault"), false);
    QTRY_VERIFY_WITH_TIMEOUT(otherStatuses.value(QStringLiteral("fault")).disabledByOperator, 30'000);
    QCOMPARE(otherStatuses.value(QStringLiteral("fault")).connection, AdapterConnection::Disabled);
    QCOMPARE(otherStatuses.value(QStringLiteral("fault")).toolCount, 0);
    const json refused = callLocally(*other, QStringLiteral("fault.echo"), {{"text", "x"}});
    QVERIFY2(refused.dump().find("adapter fault is disabled by the Switchboard operator") != std::string::npos,
        refused.dump().c_str());

    m_backend->setAdapterEnabled(QStringLiteral("fault"), true);
    QTRY_COMPARE_WITH_TIMEOUT(
        otherStatuses.value(QStringLiteral("fault")).connection, AdapterConnection::Ready, 30'000);
    QVERIFY(!otherStatuses.value(QStringLiteral("fault")).disabledByOperator);
    QTRY_VERIFY_WITH_TIMEOUT(otherStatuses.value(QStringLiteral("fault")).toolCount > 3, 30'000);

    // The other way: forced open there, this console's breaker opens and refuses without traffic.
    other->forceOpenBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    QVERIFY(m_breakers.value(QStringLiteral("fault")).forcedOpen);
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).forcedBy, InteractionBroker::consoleUser());
    const qint64 sentBefore = upstreamCalls();
    const json open = call(QStringLiteral("fault.echo"), {{"text", "x"}});
    QVERIFY2(firstText(open).contains(QStringLiteral("opened by the operator")), open.dump().c_str());
    QCOMPARE(upstreamCalls(), sentBefore);
    other->resetBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).phase, BreakerPhase::Closed);
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "y"}})), QStringLiteral("y"));
}

// Forced open, the breaker stays open through a restart (no connection, no new transition) until the
// operator resets it; after the reset a restart finds it closed.
void TestAdapters::forcedOpenBreakerSurvivesARestartUntilReset()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    m_backend->forceOpenBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Open));
    QVERIFY(m_breakers.value(QStringLiteral("fault")).forcedOpen);
    m_client.reset();
    m_backend.reset();
    m_breakers.clear();
    m_transitions.clear();
    m_statuses.clear();
    const qint64 initializedBefore = upstreamRequests("initialize");
    const qint64 listedBefore = upstreamRequests("tools/list");
    QVERIFY(initializedBefore > 0 && listedBefore > 0);

    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QTRY_VERIFY_WITH_TIMEOUT(m_breakers.value(QStringLiteral("fault")).forcedOpen, 30'000);
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).phase, BreakerPhase::Open);
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).forcedBy, InteractionBroker::consoleUser()); // kept too
    const json refused = call(QStringLiteral("fault.echo"), {{"text", "x"}});
    QVERIFY2(refused.dump().find("opened by the Switchboard operator") != std::string::npos, refused.dump().c_str());
    // The breaker's refusal, before the adapter ever listed its tools: breaker_open, as after.
    QCOMPARE(finishedStatuses(QStringLiteral("fault.echo"), 1), QList<CallStatus>{CallStatus::BreakerOpen});
    QCOMPARE(upstreamRequests("initialize"), initializedBefore);
    QCOMPARE(upstreamRequests("tools/list"), listedBefore);
    // The operator's transition, from history; the restart added none of its own.
    QTRY_VERIFY_WITH_TIMEOUT(!m_transitions.isEmpty(), 30'000);
    QCOMPARE(m_transitions.size(), 1);
    QCOMPARE(m_transitions.front().to, BreakerPhase::Open);

    m_backend->resetBreaker(QStringLiteral("fault"));
    QVERIFY(waitForBreaker(QStringLiteral("fault"), BreakerPhase::Closed));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000)); // connected at once
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "y"}})), QStringLiteral("y"));

    m_client.reset();
    m_backend.reset();
    m_breakers.clear();
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).phase, BreakerPhase::Closed);
    QVERIFY(!m_breakers.value(QStringLiteral("fault")).forcedOpen);
}

// The reference server (server-everything) behind an adapter, killed and started again on its
// port as an upstream restarts: it answers the session it lost with 400 "No valid session ID
// provided". The next call after it is back succeeds (in a new session), also after a call that
// failed while it was down, and a breaker opened meanwhile closes again through its probe.
void TestAdapters::referenceServerRestartIsRecovered()
{
    auto everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
    QVERIFY2(everything->start(), qPrintable(everything->errorString()));
    const int port = everything->port();
    const auto restart = [&] {
        everything.reset(); // killed
        everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
        everything->setPort(port);
        return everything->start();
    };
    QVERIFY(startBackend({adapter(QStringLiteral("everything"), everything->url())}));
    QVERIFY(QTest::qWaitFor([&] { return !listTools().empty(); }, 30'000));
    QVERIFY2(
        firstText(call(QStringLiteral("everything.echo"), {{"message", "first"}})).contains(QStringLiteral("first")),
        "the first call");

    // Restarted while nothing was called: the next call succeeds.
    QVERIFY2(restart(), qPrintable(everything->errorString()));
    const json afterRestart = call(QStringLiteral("everything.echo"), {{"message", "after a restart"}});
    QVERIFY2(firstText(afterRestart).contains(QStringLiteral("after a restart")), afterRestart.dump().c_str());

    // Down for one call (a connection error), then back: the next call succeeds.
    everything.reset();
    const json down = call(QStringLiteral("everything.echo"), {{"message", "down"}});
    QVERIFY2(
        down.value("isError", false) && firstText(down).contains(QStringLiteral("connection")), down.dump().c_str());
    everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
    everything->setPort(port);
    QVERIFY2(everything->start(), qPrintable(everything->errorString()));
    const json back = call(QStringLiteral("everything.echo"), {{"message", "back"}});
    QVERIFY2(firstText(back).contains(QStringLiteral("back")), back.dump().c_str());
    QCOMPARE(m_breakers.value(QStringLiteral("everything")).phase, BreakerPhase::Closed);

    // Down long enough to open the breaker (two failures): back, the half-open probe closes it.
    everything.reset();
    for (int i = 0; i < 2; ++i)
        QVERIFY(call(QStringLiteral("everything.echo"), {{"message", "down"}}).value("isError", false));
    QVERIFY(waitForBreaker(QStringLiteral("everything"), BreakerPhase::Open));
    everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
    everything->setPort(port);
    QVERIFY2(everything->start(), qPrintable(everything->errorString()));
    QVERIFY(waitForBreaker(QStringLiteral("everything"), BreakerPhase::HalfOpen));
    const json probe = call(QStringLiteral("everything.echo"), {{"message", "probe"}});
    QVERIFY2(firstText(probe).contains(QStringLiteral("probe")), probe.dump().c_str());
    QVERIFY(waitForBreaker(QStringLiteral("everything"), BreakerPhase::Closed));
    const json later = call(QStringLiteral("everything.echo"), {{"message", "later"}});
    QVERIFY2(firstText(later).contains(QStringLiteral("later")), later.dump().c_str());
}

// The upstream asks a person (elicitation/create) during a call, and the person takes far longer
// than the adapter's timeout (1 s) and the call's deadline (2 s here): the call waits for the
// answer, succeeds with it, and the breaker counts no failure.
void TestAdapters::upstreamQuestionWaitsForThePersonNotTheTimeout()
{
    AdapterConfig fault = adapter(QStringLiteral("fault"), m_upstream->url());
    fault.timeout = std::chrono::milliseconds(1'000);
    QVERIFY(startBackend({fault}, {}, QStringLiteral("allow"), [](BackendOptions& options) {
        options.server.executor.toolDeadlinesMs.insert(QStringLiteral("fault.ask"), 2'000);
    }));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("fault.ask"), json::object(), {}, [&](McpClient::Outcome result) { outcome = result; });
    QVERIFY(pending.wait(20'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    // The person thinks for longer than the timeout and the deadline together: that is not the
    // upstream's time, and the call is still waiting.
    QTest::qWait(3'500);
    QVERIFY2(!outcome.has_value(), outcome && outcome->ok() ? outcome->result.dump().c_str() : "it ended");
    m_backend->answerInteraction(question.id, InteractionAnswer::respond({{"values", {{"name", "Ada"}}}}));
    QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000));
    QVERIFY2(outcome->ok(), qPrintable(outcome->failure->message));
    const json answered = json::parse(firstText(outcome->result).toStdString(), nullptr, false);
    QVERIFY2(answered == json::parse(R"({"action":"accept","content":{"name":"Ada"}})"), answered.dump().c_str());
    QCOMPARE(finishedStatuses(QStringLiteral("fault.ask"), 1), QList<CallStatus>{CallStatus::Ok});
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).consecutiveFailures, 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_statuses.value(QStringLiteral("fault")).calls, qint64(1), 10'000);
    QCOMPARE(m_statuses.value(QStringLiteral("fault")).failures, qint64(0));
}

// Nobody answers the upstream's question: it stays pending until interaction.maxWaitSeconds (not
// the adapter's shorter timeout), then the upstream hears "cancel" and its tool answers. Two such
// calls (the breaker's threshold) leave the breaker closed: a person's silence is no failure.
void TestAdapters::unansweredUpstreamQuestionsDoNotOpenTheBreaker()
{
    AdapterConfig fault = adapter(QStringLiteral("fault"), m_upstream->url());
    fault.timeout = std::chrono::milliseconds(1'000);
    QVERIFY(startBackend(
        {fault}, {}, QStringLiteral("allow"), [](BackendOptions& options) { options.config.maxWaitSeconds = 2; }));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QList<InteractionOutcome> outcomes;
    connect(m_backend.get(), &Backend::interactionResolved, this,
        [&](const QString&, InteractionOutcome outcome) { outcomes.append(outcome); });
    for (int i = 0; i < 2; ++i) {
        QElapsedTimer waited;
        waited.start();
        const json result = call(QStringLiteral("fault.ask"), {{"message", "anyone?"}});
        QVERIFY2(!result.contains("failure") && !result.value("isError", false), result.dump().c_str());
        QVERIFY2(json::parse(firstText(result).toStdString(), nullptr, false) == json::parse(R"({"action":"cancel"})"),
            result.dump().c_str());
        QVERIFY2(waited.elapsed() >= 1'900, qPrintable(QString::number(waited.elapsed())));
    }
    QTRY_COMPARE_WITH_TIMEOUT(outcomes.size(), 2, 10'000);
    QCOMPARE(outcomes, (QList<InteractionOutcome>{InteractionOutcome::Timeout, InteractionOutcome::Timeout}));
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).phase, BreakerPhase::Closed);
    QCOMPARE(m_breakers.value(QStringLiteral("fault")).consecutiveFailures, 0);
    QCOMPARE(finishedStatuses(QStringLiteral("fault.ask"), 2), QList<CallStatus>(2, CallStatus::Ok));
}

// A client that parks (and the one-shot runner, which parks) gets the upstream's question parked:
// its call ends at once without a result, the question stays pending at the console, the upstream's
// call is cancelled; once the person has answered, the identical call gets the answer.
void TestAdapters::upstreamQuestionIsParkedForAParkClient()
{
    AdapterConfig fault = adapter(QStringLiteral("fault"), m_upstream->url());
    fault.timeout = std::chrono::milliseconds(30'000); // what the call would wait without parking
    QVERIFY(startBackend({fault}, {}, QStringLiteral("allow"), [](BackendOptions& options) {
        options.config.clientModes.insert(QStringLiteral("parker"), QStringLiteral("park"));
        options.config.clientModes.insert(QStringLiteral("runner"), QStringLiteral("park"));
    }));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    McpClient::Settings settings = m_client->settings();
    settings.clientName = QStringLiteral("parker");
    McpClient parker(settings);
    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);

    const json arguments{{"message", "Your name?"}};
    QElapsedTimer waited;
    waited.start();
    std::optional<McpClient::Outcome> parked;
    parker.callTool(QStringLiteral("fault.ask"), arguments, {}, [&](McpClient::Outcome result) { parked = result; });
    QVERIFY(QTest::qWaitFor([&] { return parked.has_value(); }, 20'000));
    QVERIFY2(waited.elapsed() < 15'000, qPrintable(QString::number(waited.elapsed())));
    QVERIFY(!parked->ok()); // no result: the connection closed without one
    QVERIFY(pending.count() >= 1 || pending.wait(10'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(question.mode, PauseMode::Park);
    QCOMPARE(question.render, RenderHint::Form);
    QCOMPARE(question.clientName, QStringLiteral("parker"));
    // Qt sends a POST again once when a connection it reused closes before any answer, so the
    // same call may have come twice: parked both times.
    const QList<CallStatus> statuses = finishedStatuses(QStringLiteral("fault.ask"), 1);
    QVERIFY(!statuses.isEmpty());
    QCOMPARE(statuses, QList<CallStatus>(statuses.size(), CallStatus::Parked));
    // The upstream's call was cancelled, not left waiting.
    QTRY_VERIFY_WITH_TIMEOUT(!m_upstream->stats().value("cancelled", json::array()).empty(), 10'000);

    // Still pending after the time a held call would have waited for the adapter's timeout? It is
    // simply pending: the person answers, and the identical call takes the answer.
    m_backend->answerInteraction(question.id, InteractionAnswer::respond({{"values", {{"name", "Ada"}}}}));
    std::optional<McpClient::Outcome> retried;
    parker.callTool(QStringLiteral("fault.ask"), arguments, {}, [&](McpClient::Outcome result) { retried = result; });
    QVERIFY(QTest::qWaitFor([&] { return retried.has_value(); }, 20'000));
    QVERIFY2(retried->ok(), qPrintable(retried->failure->message));
    const json answered = json::parse(firstText(retried->result).toStdString(), nullptr, false);
    QVERIFY2(answered == json::parse(R"({"action":"accept","content":{"name":"Ada"}})"), answered.dump().c_str());

    // The runner (a local call of a park client) likewise: parked, answered, then answered.
    const json runnerArguments{{"message", "Which branch?"}};
    const auto runnerCall = [&] {
        const json request{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
            {"params", {{"name", "fault.ask"}, {"arguments", runnerArguments}}}};
        LocalCaller caller;
        caller.clientName = QStringLiteral("runner");
        std::optional<LocalCallOutcome> outcome;
        m_backend->callLocally(QByteArray::fromStdString(request.dump()), caller, {},
            [&](const LocalCallOutcome& done) { outcome = done; });
        // Empty when it did not end in time; the caller's QVERIFY says so.
        return QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000) ? outcome : std::nullopt;
    };
    const qsizetype raised = pending.count();
    const std::optional<LocalCallOutcome> runnerParked = runnerCall();
    QVERIFY(runnerParked.has_value());
    QCOMPARE(runnerParked->kind, LocalCallOutcome::Kind::Parked);
    QVERIFY2(runnerParked->reason.contains(QStringLiteral("parked")), qPrintable(runnerParked->reason));
    QTRY_VERIFY_WITH_TIMEOUT(pending.count() > raised, 10'000);
    const auto runnerQuestion = pending.last().at(0).value<PendingInteraction>();
    QCOMPARE(runnerQuestion.mode, PauseMode::Park);
    m_backend->answerInteraction(runnerQuestion.id, InteractionAnswer::respond({{"values", {{"name", "main"}}}}));
    const std::optional<LocalCallOutcome> runnerAnswered = runnerCall();
    QVERIFY(runnerAnswered.has_value());
    QCOMPARE(runnerAnswered->kind, LocalCallOutcome::Kind::Answered);
    const json response = json::parse(runnerAnswered->response.toStdString(), nullptr, false);
    QVERIFY2(firstText(response.value("result", json())).contains(QStringLiteral("main")), response.dump().c_str());
}

// mcp__ADAPTER__TOOL (as Claude Code names a server's tools) is that adapter's tool: never the
// builtin of the same name, and an explicit error when the adapter has no such tool or offers none.
// A server part that names no adapter is the client's name for Switchboard itself.
void TestAdapters::clientAliasNamesTheAdaptersTool()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    const qint64 before = upstreamCalls();
    const json upstreamEcho = call(QStringLiteral("mcp__fault__echo"), {{"text", "from upstream"}});
    QCOMPARE(firstText(upstreamEcho), QStringLiteral("from upstream"));
    QCOMPARE(upstreamCalls(), before + 1);
    QCOMPARE(finishedStatuses(QStringLiteral("mcp__fault__echo"), 1), QList<CallStatus>{CallStatus::Ok});
    QVERIFY(std::any_of(m_calls.cbegin(), m_calls.cend(),
        [](const ToolCall& c) { return c.route == ToolRoute::adapter(QStringLiteral("fault")); }));

    const json unknown = call(QStringLiteral("mcp__fault__nosuch"));
    QVERIFY2(unknown.contains("failure"), unknown.dump().c_str());
    QVERIFY2(unknown.value("message", std::string()).find("mcp__fault__nosuch") != std::string::npos,
        unknown.dump().c_str());
    QCOMPARE(upstreamCalls(), before + 1);

    // The builtin is still there by its name and by an alias naming Switchboard.
    const json builtin = call(QStringLiteral("mcp__switchboard__echo"), {{"message", "builtin"}});
    QVERIFY2(builtin.value("structuredContent", json()) == json({{"message", "builtin"}}), builtin.dump().c_str());

    // Disabled, the adapter offers no tools: the alias says so, and is not the builtin either.
    m_backend->setAdapterEnabled(QStringLiteral("fault"), false);
    QVERIFY(QTest::qWaitFor([&] { return listTools().empty(); }, 10'000));
    const json disabled = call(QStringLiteral("mcp__fault__echo"), {{"text", "x"}});
    QVERIFY2(disabled.value("message", std::string()).find("disabled by the Switchboard operator") != std::string::npos,
        disabled.dump().c_str());
    QCOMPARE(upstreamCalls(), before + 1);
}

// An endpoint written as the configuration's example writes it, http://host:port with no path, is
// the upstream's /mcp.
void TestAdapters::endpointWithoutPathIsPostedAtMcp()
{
    QVERIFY(m_upstream->baseUrl().path().isEmpty());
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->baseUrl())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QCOMPARE(firstText(call(QStringLiteral("fault.echo"), {{"text", "at /mcp"}})), QStringLiteral("at /mcp"));
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.contains(QStringLiteral("fault")), 10'000);
    QCOMPARE(m_statuses.value(QStringLiteral("fault")).endpoint, m_upstream->url().toString());
}

void TestAdapters::reloadLetsCallsInFlightFinish_data()
{
    QTest::addColumn<QByteArray>("reloaded"); // the mcp_endpoints the file has after the reload
    QTest::newRow("the adapter removed") << QByteArray("mcp_endpoints:\n  - name: second\n    endpoint: @\n");
    QTest::newRow("its credential changed")
        << QByteArray("mcp_endpoints:\n  - name: first\n    endpoint: @\n    auth_token: another-token\n");
}

// A configuration reload while a call is in flight on an adapter it removes, or whose connection
// it changes: the call finishes with the upstream's answer (its own timeout still bounds it), and
// the old session ends afterwards.
void TestAdapters::reloadLetsCallsInFlightFinish()
{
    QFETCH(QByteArray, reloaded);
    QFile file(m_dir->filePath(QStringLiteral("switchboard.yaml")));
    const QByteArray endpoint = m_upstream->url().toEncoded();
    const auto write = [&](const QByteArray& text) {
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(QByteArray(text).replace('@', endpoint));
        file.close();
    };
    write("mcp_endpoints:\n  - name: first\n    endpoint: @\n");
    QVERIFY(startBackend({adapter(QStringLiteral("first"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    const qint64 deletesBefore = upstreamRequests("DELETE");

    const qint64 sentBefore = upstreamCalls();
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("first.slow"), {{"ms", 2'000}}, {}, [&](McpClient::Outcome result) { outcome = result; });
    QTRY_COMPARE_WITH_TIMEOUT(upstreamCalls(), sentBefore + 1, 20'000); // in flight upstream

    QSignalSpy reloadedSpy(m_backend.get(), &Backend::configurationReloaded);
    write(reloaded);
    m_backend->reloadConfiguration();
    QVERIFY(reloadedSpy.count() >= 1 || reloadedSpy.wait(10'000));
    QVERIFY2(reloadedSpy.last().at(0).toBool(), qPrintable(reloadedSpy.last().at(1).toString()));
    QVERIFY(!outcome.has_value());

    QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000));
    QVERIFY2(outcome->ok(), qPrintable(outcome->failure->message));
    QCOMPARE(firstText(outcome->result), QStringLiteral("slept"));
    QCOMPARE(finishedStatuses(QStringLiteral("first.slow"), 1), QList<CallStatus>{CallStatus::Ok});
    QVERIFY2(m_upstream->stats().value("cancelled", json::array()).empty(), m_upstream->stats().dump().c_str());
    // The session the call used ends once the call is done.
    QTRY_VERIFY_WITH_TIMEOUT(upstreamRequests("DELETE") > deletesBefore, 10'000);
}

// An upstream that floods notifications/tools/list_changed (thousands at once) is listed again a
// handful of times, not once per notification, and Switchboard's own clients hear of the change
// a handful of times too; the change itself is picked up.
void TestAdapters::listChangedFloodIsCoalesced()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QVERIFY(QTest::qWaitFor([&] { return m_upstream->stats().value("listeningOpen", qint64(0)) == 1; }, 30'000));
    QSignalSpy heard(m_client.get(), &McpClient::toolsListChanged);
    const qint64 listedBefore = upstreamRequests("tools/list");
    constexpr int flood = 5'000;
    QVERIFY(m_upstream->control(QStringLiteral("push-list-changed"), {{"tool", "flood_tool"}, {"count", flood}}));
    json names;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     names = listTools();
                     return names.is_array()
                         && std::find(names.begin(), names.end(), "fault.flood_tool") != names.end();
                 },
                 30'000),
        names.dump().c_str());
    // Long enough for every notification to have arrived and a coalesced listing to follow.
    QTest::qWait(3 * int(UpstreamAdapter::RelistIntervalMs));
    const qint64 pages = 4; // fault-upstream lists 2 tools a page: 8 tools
    const qint64 requests = upstreamRequests("tools/list") - listedBefore;
    const qint64 listings = (requests + pages - 1) / pages;
    qInfo("%d list_changed from the upstream: %lld tools/list requests (%lld listings), %lld list_changed to the "
          "client",
        flood, qlonglong(requests), qlonglong(listings), qlonglong(heard.count()));
    QVERIFY2(listings >= 1 && listings <= 3, qPrintable(QString::number(listings)));
    QVERIFY2(heard.count() >= 1 && heard.count() <= 2, qPrintable(QString::number(heard.count())));
}

// Tool names an upstream lists with characters that are not visible (control characters, an
// escape sequence, a zero-width character, a space) are not offered to clients; the others are.
void TestAdapters::toolNamesWithInvisibleCharactersAreLeftOut()
{
    QVERIFY(startBackend({adapter(QStringLiteral("fault"), m_upstream->url())}));
    QVERIFY(QTest::qWaitFor([&] { return listTools().size() > 3; }, 30'000));
    QVERIFY(QTest::qWaitFor([&] { return m_upstream->stats().value("listeningOpen", qint64(0)) == 1; }, 30'000));
    QVERIFY(m_upstream->control(QStringLiteral("push-list-changed"),
        {{"tools",
            {"bell\u0007", "red\u001b[31m", "zero\u200bwidth", "with space", "rtl\u202eexe", "line\u2028break",
                "fine_tool"}}}));
    json names;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     names = listTools();
                     return names.is_array() && std::find(names.begin(), names.end(), "fault.fine_tool") != names.end();
                 },
                 30'000),
        names.dump().c_str());
    for (const json& name : names) {
        const QString text = QString::fromStdString(name.get<std::string>());
        QVERIFY2(UpstreamAdapter::isOfferableToolName(text), name.dump().c_str());
        QVERIFY2(!text.startsWith(QStringLiteral("fault.bell")) && !text.startsWith(QStringLiteral("fault.red"))
                && !text.startsWith(QStringLiteral("fault.zero")) && !text.startsWith(QStringLiteral("fault.with"))
                && !text.startsWith(QStringLiteral("fault.rtl")) && !text.startsWith(QStringLiteral("fault.line")),
            name.dump().c_str());
    }
    for (const char* offerable : {"get-sum", "fs.read_file", "Ünïcode", "user/profile"})
        QVERIFY2(UpstreamAdapter::isOfferableToolName(QString::fromUtf8(offerable)), offerable);
}

json TestAdapters::waitForTools(std::size_t count)
{
    json names;
    if (!QTest::qWaitFor(
            [&] {
                names = listTools();
                return names.is_array() && names.size() >= count;
            },
            30'000))
        qWarning("the adapters offer %s", names.dump().c_str());
    return names;
}

// The issue's done-when: an adapter talks to a 2026-only upstream. The SDK v2 server with legacy
// 'reject' answers no initialize at all; its tools are offered, an x-mcp-header tool gets its
// Mcp-Param-* headers, and a call the upstream makes a task is polled to its result.
void TestAdapters::modernUpstreamBehindAnAdapter()
{
    UpstreamProcess v2(UpstreamProcess::Kind::SdkV2, {QStringLiteral("--era"), QStringLiteral("modern")});
    QVERIFY2(v2.start(), qPrintable(v2.errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("v2"), v2.url())}));
    const json names = waitForTools(4);
    // Switchboard lists tools by name.
    QVERIFY2(names == json({"v2.confirm", "v2.echo", "v2.regional", "v2.slow_task"}), names.dump().c_str());
    QCOMPARE(firstText(call(QStringLiteral("v2.echo"), {{"text", "über 2026"}})), QStringLiteral("über 2026"));
    const json regional = call(QStringLiteral("v2.regional"), {{"region", "eu-west"}, {"priority", 3}});
    QVERIFY2(regional.value("structuredContent", json())
            == json({{"mcp-param-region", "eu-west"}, {"mcp-param-priority", "3"}}),
        regional.dump().c_str());
    QCOMPARE(firstText(call(QStringLiteral("v2.slow_task"), {{"ms", 300}})), QStringLiteral("task done after 300 ms"));
    const json stats = v2.stats();
    const json methods = stats.value("methods", json::object());
    QCOMPARE(methods.value("initialize", 0), 0);
    QVERIFY2(methods.value("server/discover", 0) >= 1, stats.dump().c_str());
    QCOMPARE(stats["polls"].size(), std::size_t(1));
    QVERIFY(stats["cancelled"].empty());
    QCOMPARE(m_breakers.value(QStringLiteral("v2")).phase, BreakerPhase::Closed);
    QCOMPARE(m_statuses.value(QStringLiteral("v2")).connection, AdapterConnection::Ready);
}

// input_required from a 2026 upstream is raised at the console as its elicitation/create would be;
// the person's answer goes back with the call's retry.
void TestAdapters::modernUpstreamsQuestionIsAskedAtTheConsole()
{
    UpstreamProcess v2(UpstreamProcess::Kind::SdkV2, {QStringLiteral("--era"), QStringLiteral("modern")});
    QVERIFY2(v2.start(), qPrintable(v2.errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("v2"), v2.url())}));
    waitForTools(4);
    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    std::optional<McpClient::Outcome> outcome;
    m_client->callTool(
        QStringLiteral("v2.confirm"), {{"action", "deploy"}}, {}, [&](McpClient::Outcome result) { outcome = result; });
    QVERIFY(pending.wait(20'000));
    const auto question = pending.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(question.render, RenderHint::Form);
    QCOMPARE(question.route, ToolRoute::adapter(QStringLiteral("v2")));
    const json spec = json::parse(question.renderSpec.toStdString(), nullptr, false);
    QVERIFY2(spec.dump().find("Do you want to deploy?") != std::string::npos, spec.dump().c_str());
    m_backend->answerInteraction(question.id, InteractionAnswer::respond({{"values", {{"confirmed", true}}}}));
    QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 20'000));
    QVERIFY2(outcome->ok(), qPrintable(outcome->failure->message));
    QCOMPARE(
        firstText(outcome->result), QStringLiteral(R"(confirmed deploy: {"confirmed":true} (state state-for-deploy))"));
    QCOMPARE(v2.stats()["methods"].value("tools/call", 0), 2);
}

// With elicitation: client, what the upstream asks goes to the calling client's own user when that
// client is a 2026-07-28 task client that declared elicitation: its task turns input_required with
// the upstream's request, and the answer it sends with tasks/update goes upstream. Nothing reaches
// the console.
void TestAdapters::modernUpstreamsQuestionGoesToATaskClientsUser()
{
    UpstreamProcess v2(UpstreamProcess::Kind::SdkV2, {QStringLiteral("--era"), QStringLiteral("modern")});
    QVERIFY2(v2.start(), qPrintable(v2.errorString()));
    AdapterConfig passing = adapter(QStringLiteral("v2"), v2.url());
    passing.elicitationByClient = true;
    QVERIFY(startBackend({passing}));
    waitForTools(4);
    QSignalSpy pending(m_backend.get(), &Backend::interactionPending);
    const quint16 port = quint16(m_backend->serverUrl().port());
    const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientInfo", {{"name", "agent"}, {"version", "1"}}},
        {"io.modelcontextprotocol/clientCapabilities",
            {{"elicitation", json::object()}, {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}}};
    // One 2026-07-28 request on a connection of its own; the JSON-RPC message that answers it.
    const auto send = [&](const std::string& method, json params, const QByteArray& name) {
        params["_meta"] = meta;
        RawHttpClient connection(port);
        connection.send(RawHttpClient::post(
            QByteArray::fromStdString(
                json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}}.dump()),
            {{"Host", "127.0.0.1:" + QByteArray::number(port)}, {"Content-Type", "application/json"},
                {"Accept", "application/json, text/event-stream"}, {"Authorization", QByteArray("Bearer ") + Token},
                {"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", QByteArray::fromStdString(method)},
                {"Mcp-Name", name}}));
        const RawHttpResponse response = connection.read(30'000);
        for (const QByteArray& event : response.events()) {
            const json message = json::parse(event.toStdString(), nullptr, false);
            if (message.contains("result") || message.contains("error"))
                return message;
        }
        return json::parse(response.body.toStdString(), nullptr, false);
    };
    const json handle
        = send("tools/call", {{"name", "v2.confirm"}, {"arguments", {{"action", "deploy"}}}}, "v2.confirm");
    QVERIFY2(handle.at("result").at("resultType") == "task", handle.dump().c_str());
    const std::string taskId = handle.at("result").at("taskId");
    const QByteArray id = QByteArray::fromStdString(taskId);
    json asking;
    QTRY_VERIFY_WITH_TIMEOUT(
        (asking = send("tasks/get", {{"taskId", taskId}}, id).at("result")).at("status") == "input_required", 20'000);
    const json request = asking.at("inputRequests").begin().value();
    QVERIFY2(request.at("method") == "elicitation/create", asking.dump().c_str());
    QVERIFY(request.at("params").dump().find("Do you want to deploy?") != std::string::npos);
    const std::string key = asking.at("inputRequests").begin().key();
    QVERIFY(send("tasks/update",
                {{"taskId", taskId},
                    {"inputResponses", {{key, {{"action", "accept"}, {"content", {{"confirmed", true}}}}}}}},
                id)
                .at("result")
                .at("resultType")
        == "complete");
    json done;
    QTRY_VERIFY_WITH_TIMEOUT(
        (done = send("tasks/get", {{"taskId", taskId}}, id).at("result")).at("status") == "completed", 20'000);
    QCOMPARE(QString::fromStdString(done.at("result").at("content").at(0).at("text")),
        QStringLiteral(R"(confirmed deploy: {"confirmed":true} (state state-for-deploy))"));
    QCOMPARE(pending.count(), 0); // nothing was asked at the console
}

// A client cancelling its call of a tool the upstream made a task: tasks/cancel reaches the upstream
// and polling stops.
void TestAdapters::cancellingACallCancelsTheUpstreamTask()
{
    UpstreamProcess v2(UpstreamProcess::Kind::SdkV2, {QStringLiteral("--era"), QStringLiteral("modern")});
    QVERIFY2(v2.start(), qPrintable(v2.errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("v2"), v2.url())}));
    waitForTools(4);
    std::optional<McpClient::Outcome> outcome;
    auto pending = m_client->callTool(
        QStringLiteral("v2.slow_task"), {{"ms", 60'000}}, {}, [&](McpClient::Outcome result) { outcome = result; });
    QTRY_VERIFY_WITH_TIMEOUT(!v2.stats()["polls"].empty(), 20'000);
    pending->cancel(QStringLiteral("the test cancels"));
    QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 20'000);
    QCOMPARE(outcome->failure->kind, McpClient::FailureKind::Cancelled);
    json stats;
    QTRY_VERIFY_WITH_TIMEOUT((stats = v2.stats())["cancelled"].size() == 1, 20'000);
    QVERIFY2(stats["cancelled"][0] == json(stats["polls"].begin().key()), stats.dump().c_str());
    QCOMPARE(finishedStatuses(QStringLiteral("v2.slow_task"), 1), QList<CallStatus>{CallStatus::Cancelled});
    // A cancelled call is no failure of the upstream.
    QCOMPARE(m_breakers.value(QStringLiteral("v2")).phase, BreakerPhase::Closed);
}

// The same SDK serving 2025 only: the probe is refused and the handshake follows; a tool that
// would be a task for a 2026 client simply answers.
void TestAdapters::legacySdkV2UpstreamBehindAnAdapter()
{
    UpstreamProcess v2(UpstreamProcess::Kind::SdkV2, {QStringLiteral("--era"), QStringLiteral("legacy")});
    QVERIFY2(v2.start(), qPrintable(v2.errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("v2"), v2.url())}));
    QCOMPARE(waitForTools(4).size(), std::size_t(4));
    QCOMPARE(firstText(call(QStringLiteral("v2.echo"), {{"text", "2025"}})), QStringLiteral("2025"));
    QCOMPARE(firstText(call(QStringLiteral("v2.slow_task"), {{"ms", 100}})), QStringLiteral("slept without a task"));
    const json methods = v2.stats().value("methods", json::object());
    QVERIFY2(methods.value("server/discover", 0) >= 1, methods.dump().c_str());
    QVERIFY2(methods.value("initialize", 0) >= 1, methods.dump().c_str());
}

// The breaker counts a 2026 upstream's failures as a 2025 one's; back on its port, the upstream is
// probed again and the half-open trial closes the breaker.
void TestAdapters::stoppedModernUpstreamOpensTheBreakerAndItsRestartClosesIt()
{
    auto v2 = std::make_unique<UpstreamProcess>(
        UpstreamProcess::Kind::SdkV2, QStringList{QStringLiteral("--era"), QStringLiteral("modern")});
    QVERIFY2(v2->start(), qPrintable(v2->errorString()));
    QVERIFY(startBackend({adapter(QStringLiteral("v2"), v2->url())}));
    waitForTools(4);
    QCOMPARE(firstText(call(QStringLiteral("v2.echo"), {{"text", "up"}})), QStringLiteral("up"));
    const int port = v2->port();

    v2.reset(); // killed: connections are refused
    for (int i = 0; i < 2; ++i) {
        const json failed = call(QStringLiteral("v2.echo"), {{"text", "down"}});
        QVERIFY2(firstText(failed).contains(QStringLiteral("connection")), failed.dump().c_str());
    }
    QVERIFY(waitForBreaker(QStringLiteral("v2"), BreakerPhase::Open));

    v2 = std::make_unique<UpstreamProcess>(
        UpstreamProcess::Kind::SdkV2, QStringList{QStringLiteral("--era"), QStringLiteral("modern")});
    v2->setPort(port);
    QVERIFY2(v2->start(), qPrintable(v2->errorString()));
    QVERIFY(waitForBreaker(QStringLiteral("v2"), BreakerPhase::HalfOpen));
    QCOMPARE(firstText(call(QStringLiteral("v2.echo"), {{"text", "back"}})), QStringLiteral("back"));
    QVERIFY(waitForBreaker(QStringLiteral("v2"), BreakerPhase::Closed));
    QVERIFY2(v2->stats()["methods"].value("server/discover", 0) >= 1, v2->stats().dump().c_str());
}

QTEST_GUILESS_MAIN(TestAdapters)
#include "tst_adapters.moc"
