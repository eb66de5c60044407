// McpClient against tests/node/fault-upstream.mjs (faults switched per test through its control
// endpoint, what reached it read back from its stats), once against the reference
// server-everything, and against the official SDK v2 server (tests/node/sdk-v2-upstream.mjs) serving
// 2026-07-28 only, 2025 only, or both: the era negotiated, stateless requests with their headers,
// x-mcp-header arguments mirrored, input_required answered, tasks polled and cancelled. Needs
// tests/node installed; fails with a clear message otherwise.

#include "protocol/modernrequest.h"
#include "transport/mcpclient.h"

#include "upstreamprocess.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using json = nlohmann::json;
using FailureKind = McpClient::FailureKind;

Q_DECLARE_METATYPE(McpClient::FailureKind)

namespace {

constexpr int waitMs = 30'000; // a loaded 2-core machine starts and answers slowly

struct CallResult
{
    int completions = 0;
    McpClient::Outcome outcome;
};

QString firstText(const json& result)
{
    if (!result.is_object() || !result.contains("content") || result["content"].empty())
        return {};
    return QString::fromStdString(result["content"][0].value("text", std::string()));
}

int methodCount(const json& stats, const char* method)
{
    if (!stats.is_object() || !stats["methods"].contains(method))
        return 0;
    return stats["methods"][method].get<int>();
}

// A number fault-upstream's stats carry at the top level (listeningOpen, listeningOpened); -1 when
// it did not answer.
qint64 statNumber(const json& stats, const char* key)
{
    if (!stats.is_object() || !stats.contains(key) || !stats[key].is_number())
        return -1;
    return stats[key].get<qint64>();
}

} // namespace

class TestMcpClient : public QObject
{
    Q_OBJECT

private:
    UpstreamProcess m_upstream;

    std::unique_ptr<McpClient> makeClient(const QByteArray& token = {}, int networkManagers = 3, bool listen = true)
    {
        McpClient::Settings settings;
        settings.networkManagers = networkManagers;
        settings.listenForNotifications = listen;
        settings.endpoint = m_upstream.url();
        settings.bearerToken = token;
        settings.clientVersion = QStringLiteral("0.1-test");
        return std::make_unique<McpClient>(settings);
    }

    // Runs callTool and waits for its completion.
    std::shared_ptr<CallResult> call(
        McpClient& client, const QString& tool, const json& arguments, McpClient::CallOptions options = {})
    {
        auto result = std::make_shared<CallResult>();
        client.callTool(tool, arguments, std::move(options), [result](McpClient::Outcome outcome) {
            ++result->completions;
            result->outcome = std::move(outcome);
        });
        return result;
    }

    // An SDK v2 upstream of one era (`modern`, `legacy`, `both`), started once and kept for the
    // tests that follow; `arguments` make another one (kept under their own key).
    UpstreamProcess& sdkV2(const QString& era, const QStringList& arguments = {})
    {
        const QString key = era + arguments.join(u' ');
        auto& upstream = m_sdkV2[key];
        if (!upstream) {
            upstream = std::make_unique<UpstreamProcess>(
                UpstreamProcess::Kind::SdkV2, QStringList{QStringLiteral("--era"), era} + arguments);
            if (!upstream->start())
                qWarning("%s", qPrintable(upstream->errorString()));
        }
        upstream->control(QStringLiteral("reset"));
        return *upstream;
    }

    std::unique_ptr<McpClient> negotiatingClient(const QUrl& endpoint, qint64 timeoutMs = 30'000)
    {
        McpClient::Settings settings;
        settings.endpoint = endpoint;
        settings.clientVersion = QStringLiteral("0.1-test");
        settings.negotiateModern = true;
        settings.requestTimeoutMs = timeoutMs;
        return std::make_unique<McpClient>(settings);
    }

    std::optional<McpClient::ToolList> listed(McpClient& client)
    {
        std::optional<McpClient::ToolList> list;
        bool done = false;
        client.listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>& failure) {
            done = true;
            if (!failure)
                list = l;
            else
                qWarning("tools/list failed: %s", qPrintable(failure->message));
        });
        if (!QTest::qWaitFor([&] { return done; }, waitMs))
            return std::nullopt;
        return list;
    }

    std::map<QString, std::unique_ptr<UpstreamProcess>> m_sdkV2;

    bool initialize(McpClient& client)
    {
        bool done = false;
        bool ok = false;
        client.initialize([&](const McpClient::InitializeResult&, const std::optional<McpClient::Failure>& failure) {
            done = true;
            ok = !failure;
        });
        return QTest::qWaitFor([&] { return done; }, waitMs) && ok;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_upstream.start(), qPrintable(m_upstream.errorString())); }

    void init() { QVERIFY(m_upstream.control(QStringLiteral("reset"))); }

    void initializeOpensSession_data()
    {
        QTest::addColumn<bool>("sse");
        QTest::newRow("json") << false;
        QTest::newRow("sse") << true;
    }

    void initializeOpensSession()
    {
        QFETCH(bool, sse);
        QVERIFY(m_upstream.control(QStringLiteral("ok"), {{"sse", sse}}));
        auto client = makeClient();
        QSignalSpy sessionChanged(client.get(), &McpClient::sessionChanged);
        std::optional<McpClient::InitializeResult> result;
        client->initialize([&](const McpClient::InitializeResult& r, const std::optional<McpClient::Failure>& failure) {
            QVERIFY2(!failure, failure ? qPrintable(failure->message) : "");
            result = r;
        });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), waitMs);
        QCOMPARE(result->protocolVersion, QStringLiteral("2025-11-25"));
        QCOMPARE(result->serverInfo.value("name", std::string()), std::string("fault-upstream"));
        QVERIFY(client->isInitialized());
        const json stats = m_upstream.stats();
        QCOMPARE(client->sessionId(), QString::fromStdString(stats["sessionsIssued"].back().get<std::string>()));
        QCOMPARE(sessionChanged.count(), 1);
        QCOMPARE(sessionChanged.at(0).at(0).toString(), client->sessionId());
        QCOMPARE(methodCount(stats, "initialize"), 1);
        QCOMPARE(methodCount(stats, "notifications/initialized"), 1);
        // The last request (notifications/initialized, or the GET stream opened after it) carries the
        // session and the version.
        QCOMPARE(stats["lastHeaders"].value("mcp-session-id", std::string()), client->sessionId().toStdString());
        QCOMPARE(stats["lastHeaders"].value("mcp-protocol-version", std::string()), std::string("2025-11-25"));
    }

    void concurrentOperationsShareOneInitialize()
    {
        auto client = makeClient();
        std::vector<std::shared_ptr<CallResult>> results;
        for (int i = 0; i < 4; ++i)
            results.push_back(call(*client, QStringLiteral("echo"), {{"text", std::to_string(i)}}));
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(results.begin(), results.end(), [](const auto& r) { return r->completions == 1; }), waitMs);
        for (int i = 0; i < 4; ++i) {
            QVERIFY(results[i]->outcome.ok());
            QCOMPARE(firstText(results[i]->outcome.result), QString::number(i));
        }
        QCOMPARE(methodCount(m_upstream.stats(), "initialize"), 1);
    }

    void listToolsAcrossPages_data()
    {
        QTest::addColumn<int>("maxTools");
        QTest::addColumn<int>("maxPages");
        QTest::addColumn<int>("expectedTools");
        QTest::addColumn<bool>("truncated");
        QTest::addColumn<int>("expectedRequests");
        QTest::newRow("all") << 5000 << 100 << 7 << false << 4;
        QTest::newRow("tools bound") << 3 << 100 << 3 << true << 2;
        QTest::newRow("page bound") << 5000 << 2 << 4 << true << 2;
        QTest::newRow("exactly all tools") << 7 << 4 << 7 << false << 4;
    }

    void listToolsAcrossPages()
    {
        QFETCH(int, maxTools);
        QFETCH(int, maxPages);
        QFETCH(int, expectedTools);
        QFETCH(bool, truncated);
        QFETCH(int, expectedRequests);
        McpClient::Settings settings;
        settings.endpoint = m_upstream.url();
        settings.clientVersion = QStringLiteral("test");
        settings.maxTools = maxTools;
        settings.maxToolPages = maxPages;
        McpClient client(settings);
        std::optional<McpClient::ToolList> list;
        client.listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>& failure) {
            QVERIFY2(!failure, failure ? qPrintable(failure->message) : "");
            list = l;
        });
        QTRY_VERIFY_WITH_TIMEOUT(list.has_value(), waitMs);
        const std::vector<std::string> all{"echo", "write_note", "slow", "progress", "ask", "fail_tool", "sample"};
        QCOMPARE(int(list->tools.size()), expectedTools);
        for (int i = 0; i < expectedTools; ++i)
            QCOMPARE(list->tools[i]["name"].get<std::string>(), all[i]);
        QCOMPARE(list->truncated, truncated);
        QCOMPARE(methodCount(m_upstream.stats(), "tools/list"), expectedRequests);
    }

    void callTool_data()
    {
        QTest::addColumn<bool>("sse");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("isError");
        QTest::newRow("json echo") << false << QStringLiteral("echo") << QStringLiteral("hello") << false;
        QTest::newRow("sse echo") << true << QStringLiteral("echo") << QStringLiteral("hello") << false;
        QTest::newRow("json tool error") << false << QStringLiteral("fail_tool")
                                         << QStringLiteral("this tool always fails") << true;
        QTest::newRow("sse write") << true << QStringLiteral("write_note") << QStringLiteral("noted") << false;
    }

    void callTool()
    {
        QFETCH(bool, sse);
        QFETCH(QString, tool);
        QFETCH(QString, text);
        QFETCH(bool, isError);
        QVERIFY(m_upstream.control(QStringLiteral("ok"), {{"sse", sse}}));
        auto client = makeClient();
        auto result = call(*client, tool, {{"text", "hello"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), text);
        QCOMPARE(result->outcome.result.value("isError", false), isError);
    }

    void unknownToolIsProtocolError()
    {
        auto client = makeClient();
        auto result = call(*client, QStringLiteral("no_such_tool"), json::object());
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(!result->outcome.ok());
        QCOMPARE(result->outcome.failure->kind, FailureKind::Protocol);
        QCOMPARE(result->outcome.failure->rpcError.value("code", 0), -32602);
    }

    void progressPassedThrough_data()
    {
        QTest::addColumn<bool>("wantProgress");
        QTest::newRow("with progress") << true;
        QTest::newRow("without progress") << false;
    }

    void progressPassedThrough()
    {
        QFETCH(bool, wantProgress);
        auto client = makeClient();
        std::vector<json> progress;
        QStringList notifications;
        McpClient::CallOptions options;
        if (wantProgress)
            options.progress = [&](const json& params) { progress.push_back(params); };
        options.notification = [&](const QString& method, const json&) { notifications << method; };
        auto result = call(*client, QStringLiteral("progress"), {{"count", 3}}, std::move(options));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(result->outcome.ok());
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("done 3"));
        QCOMPARE(notifications.count(QStringLiteral("notifications/message")), 3);
        if (!wantProgress) {
            QVERIFY(progress.empty()); // and no token went upstream, so it sent none
            return;
        }
        QCOMPARE(int(progress.size()), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(progress[i]["progress"].get<int>(), i + 1);
            QCOMPARE(progress[i]["total"].get<int>(), 3);
        }
    }

    void cancelSendsNotificationsCancelled()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        auto result = std::make_shared<CallResult>();
        auto pending
            = client->callTool(QStringLiteral("slow"), {{"ms", 60'000}}, {}, [result](McpClient::Outcome outcome) {
                  ++result->completions;
                  result->outcome = std::move(outcome);
              });
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), 1, waitMs);
        pending->cancel(QStringLiteral("the operator cancelled"));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QCOMPARE(result->outcome.failure->kind, FailureKind::Cancelled);
        json cancelled;
        QTRY_VERIFY_WITH_TIMEOUT((cancelled = m_upstream.stats()["cancelled"]).size() == 1, waitMs);
        QCOMPARE(cancelled[0]["reason"].get<std::string>(), std::string("the operator cancelled"));
        QVERIFY(cancelled[0]["requestId"].is_number());
        pending->cancel(QStringLiteral("again")); // nothing once finished
        QCOMPARE(result->completions, 1);
        QCOMPARE(m_upstream.stats()["cancelled"].size(), 1u);
    }

    // Cancelled calls the upstream never answers (an MCP server sends no response to a request it
    // was told is cancelled) must not hold the client's connections: more of them than
    // QNetworkAccessManager opens to one host (6), then a quick call answers at once.
    void cancelledCallsDoNotHoldConnections()
    {
        auto client = makeClient({}, 1); // one manager: six connections to the upstream in all
        QVERIFY(initialize(*client));
        std::vector<std::shared_ptr<McpClient::PendingCall>> pending;
        auto cancelled = std::make_shared<int>(0);
        for (int i = 0; i < 10; ++i) {
            pending.push_back(
                client->callTool(QStringLiteral("slow"), {{"ms", 60'000}}, {}, [cancelled](McpClient::Outcome outcome) {
                    if (!outcome.ok() && outcome.failure->kind == FailureKind::Cancelled)
                        ++*cancelled;
                }));
        }
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), 6, waitMs);
        for (const auto& call : pending)
            call->cancel(QStringLiteral("the client went away"));
        QTRY_COMPARE_WITH_TIMEOUT(*cancelled, 10, waitMs);
        QElapsedTimer timer;
        timer.start();
        auto result = call(*client, QStringLiteral("echo"), {{"text", "still here"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        // Well below the 60 s the cancelled calls would take, and below a server's idle timeout.
        QVERIFY2(timer.elapsed() < 3'000, qPrintable(QString::number(timer.elapsed())));
    }

    // Calls in flight are not capped at the six connections one QNetworkAccessManager opens to a
    // host: sixteen slow calls all reach the upstream while none has finished.
    void concurrentCallsNotCappedAtSix()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        std::vector<std::shared_ptr<CallResult>> results;
        for (int i = 0; i < 16; ++i)
            results.push_back(call(*client, QStringLiteral("slow"), {{"ms", 5'000}}));
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), 16, waitMs);
        for (const auto& result : results)
            QCOMPARE(result->completions, 0);
        for (const auto& result : results) {
            QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
            QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        }
    }

    // A response that came on an event stream leaves its connection open for the next request:
    // calls one after another do not open a connection each.
    void callsOneAfterAnotherReuseTheConnection()
    {
        QVERIFY(m_upstream.control(QStringLiteral("ok"), {{"sse", true}}));
        auto client = makeClient();
        QVERIFY(initialize(*client));
        // The GET stream's connection is its own and opened once: not counted among the calls'.
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        const qint64 before = m_upstream.stats().value("connections", qint64(0));
        for (int i = 0; i < 10; ++i) {
            auto result = call(*client, QStringLiteral("echo"), {{"text", std::to_string(i)}});
            QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
            QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        }
        // The stats request itself opens one; the ten calls at most one more.
        const qint64 opened = m_upstream.stats().value("connections", qint64(0)) - before;
        QVERIFY2(opened <= 2, qPrintable(QString::number(opened)));
    }

    void expiredSessionReinitializedOnce()
    {
        auto client = makeClient();
        QSignalSpy sessionChanged(client.get(), &McpClient::sessionChanged);
        QVERIFY(initialize(*client));
        const QString first = client->sessionId();
        // The event stream first: a GET refused for the lost session would start the new session
        // before the call is sent, and the path under test (the call refused, then sent again)
        // would not be taken.
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        QVERIFY(m_upstream.control(QStringLiteral("expire-session")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "again"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("again"));
        QVERIFY(!client->sessionId().isEmpty());
        QVERIFY(client->sessionId() != first);
        QCOMPARE(sessionChanged.count(), 2);
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "initialize"), 2);
        QCOMPARE(methodCount(stats, "tools/call"), 2); // the 404 and the retry
    }

    // The reference server answers a session it lost in a restart with 400 "No valid session ID
    // provided", others with a JSON-RPC error "Session not found" (HTTP 200): either means the
    // request did not run, and it goes once more in a new session.
    void lostSessionReinitializedWhateverTheAnswer_data()
    {
        QTest::addColumn<QByteArray>("unknownSession"); // as fault-upstream's control takes it
        QTest::newRow("HTTP 400, no valid session") << QByteArray("400");
        QTest::newRow("JSON-RPC error, session not found") << QByteArray(R"("rpc-error")");
    }

    void lostSessionReinitializedWhateverTheAnswer()
    {
        QFETCH(QByteArray, unknownSession);
        QVERIFY(
            m_upstream.control(QStringLiteral("ok"), {{"unknownSession", json::parse(unknownSession.toStdString())}}));
        auto client = makeClient();
        QVERIFY(initialize(*client));
        const QString first = client->sessionId();
        // The event stream first: a GET refused for the lost session would start the new session
        // before the call is sent, and the path under test (the call refused, then sent again)
        // would not be taken.
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        QVERIFY(m_upstream.control(QStringLiteral("expire-session")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "again"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("again"));
        QVERIFY(client->sessionId() != first);
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "initialize"), 2);
        QCOMPARE(methodCount(stats, "refused: unknown session"), 1);
        QCOMPARE(methodCount(stats, "tools/call"), 2); // the refused one and the one that ran
    }

    // An upstream that cannot be reached (stopped) and then comes back as a new process, which
    // knows no session: the call that failed to connect forgot the session, so the next one starts
    // a new session at once instead of learning from a refusal.
    void unreachableUpstreamStartsANewSessionWhenBack()
    {
        auto upstream = std::make_unique<UpstreamProcess>();
        QVERIFY2(upstream->start(), qPrintable(upstream->errorString()));
        const int port = upstream->port();
        McpClient::Settings settings;
        settings.endpoint = upstream->url();
        settings.requestTimeoutMs = 10'000;
        McpClient client(settings);
        QVERIFY(initialize(client));
        upstream.reset(); // killed: connections are refused
        auto failed = call(client, QStringLiteral("echo"), {{"text", "down"}});
        QTRY_COMPARE_WITH_TIMEOUT(failed->completions, 1, waitMs);
        QVERIFY(!failed->outcome.ok());
        QCOMPARE(failed->outcome.failure->kind, FailureKind::Connection);
        QVERIFY(!client.isInitialized());

        upstream = std::make_unique<UpstreamProcess>();
        upstream->setPort(port);
        QVERIFY2(upstream->start(), qPrintable(upstream->errorString()));
        auto back = call(client, QStringLiteral("echo"), {{"text", "back"}});
        QTRY_COMPARE_WITH_TIMEOUT(back->completions, 1, waitMs);
        QVERIFY2(back->outcome.ok(), qPrintable(back->outcome.failure->message));
        QCOMPARE(firstText(back->outcome.result), QStringLiteral("back"));
        const json stats = upstream->stats();
        QCOMPARE(methodCount(stats, "initialize"), 1);
        QCOMPARE(methodCount(stats, "refused: unknown session"), 0);
        QCOMPARE(methodCount(stats, "tools/call"), 1);
    }

    // The reference server killed and started again on its port, as an upstream restarts: the next
    // call succeeds in a new session. Listening, the dropped GET stream tells the client first;
    // without it, the call itself gets the reference server's 400 for the lost session.
    void referenceServerRestartIsRecovered_data()
    {
        QTest::addColumn<bool>("listen");
        QTest::newRow("listening") << true;
        QTest::newRow("not listening: the call meets the 400") << false;
    }

    void referenceServerRestartIsRecovered()
    {
        QFETCH(bool, listen);
        auto everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
        QVERIFY2(everything->start(), qPrintable(everything->errorString()));
        const int port = everything->port();
        McpClient::Settings settings;
        settings.endpoint = everything->url();
        settings.listenForNotifications = listen;
        settings.clientVersion = QStringLiteral("test");
        McpClient client(settings);
        auto before = call(client, QStringLiteral("echo"), {{"message", "before"}});
        QTRY_COMPARE_WITH_TIMEOUT(before->completions, 1, waitMs);
        QVERIFY2(before->outcome.ok(), qPrintable(before->outcome.failure->message));
        const QString first = client.sessionId();

        everything.reset();
        everything = std::make_unique<UpstreamProcess>(UpstreamProcess::Kind::Everything);
        everything->setPort(port);
        QVERIFY2(everything->start(), qPrintable(everything->errorString()));
        auto after = call(client, QStringLiteral("echo"), {{"message", "after"}});
        QTRY_COMPARE_WITH_TIMEOUT(after->completions, 1, waitMs);
        QVERIFY2(after->outcome.ok(), qPrintable(after->outcome.failure->message));
        QVERIFY2(firstText(after->outcome.result).contains(QStringLiteral("after")),
            qPrintable(firstText(after->outcome.result)));
        QVERIFY(client.sessionId() != first);
        client.close();
    }

    void secondNotFoundFails()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        QVERIFY(m_upstream.control(QStringLiteral("expire-always")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(!result->outcome.ok());
        QCOMPARE(result->outcome.failure->kind, FailureKind::HttpStatus);
        QCOMPARE(result->outcome.failure->httpStatus, 404);
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "initialize"), 2);
        QCOMPARE(methodCount(stats, "tools/call"), 2);
    }

    void sseParsedAsEventSourceDoes()
    {
        auto client = makeClient();
        QVERIFY(m_upstream.control(QStringLiteral("sse-odd")));
        std::vector<std::pair<QString, json>> notifications;
        McpClient::CallOptions options;
        options.notification
            = [&](const QString& method, const json& params) { notifications.emplace_back(method, params); };
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}}, std::move(options));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("odd ok"));
        QCOMPARE(notifications.size(), 1u); // the event of another type is not a message
        QCOMPARE(notifications[0].first, QStringLiteral("notifications/message"));
        QCOMPARE(notifications[0].second["data"].get<std::string>(), std::string("odd"));
    }

    void responseTooLarge_data()
    {
        QTest::addColumn<bool>("sse");
        QTest::newRow("json") << false;
        QTest::newRow("sse") << true;
    }

    void responseTooLarge()
    {
        QFETCH(bool, sse);
        QVERIFY(m_upstream.control(QStringLiteral("ok"), {{"sse", sse}}));
        McpClient::Settings settings;
        settings.endpoint = m_upstream.url();
        settings.clientVersion = QStringLiteral("test");
        settings.maxResponseBytes = 400; // the initialize response fits
        McpClient client(settings);
        auto small = call(client, QStringLiteral("echo"), {{"text", "short"}});
        QTRY_COMPARE_WITH_TIMEOUT(small->completions, 1, waitMs);
        QVERIFY2(small->outcome.ok(), qPrintable(small->outcome.failure->message));
        auto large = call(client, QStringLiteral("echo"), {{"text", std::string(2000, 'x')}});
        QTRY_COMPARE_WITH_TIMEOUT(large->completions, 1, waitMs);
        QVERIFY(!large->outcome.ok());
        QCOMPARE(large->outcome.failure->kind, FailureKind::Malformed);
    }

    void deepResponseRefused_data()
    {
        QTest::addColumn<bool>("sse");
        QTest::newRow("json") << false;
        QTest::newRow("sse") << true;
    }

    // An upstream's answer nested 200,000 levels deep is refused while parsing (it would crash the
    // process where it is copied), and the call fails saying why.
    void deepResponseRefused()
    {
        QFETCH(bool, sse);
        auto client = makeClient();
        QVERIFY(initialize(*client));
        QVERIFY(m_upstream.control(QStringLiteral("deep"), {{"sse", sse}, {"depth", 200'000}}));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(!result->outcome.ok());
        QCOMPARE(result->outcome.failure->kind, FailureKind::Malformed);
        const QString message = result->outcome.failure->message;
        QVERIFY2(
            message.contains(QStringLiteral("is refused: JSON is nested deeper than 64 levels")), qPrintable(message));
        QVERIFY2(message.size() < 1000, qPrintable(message.left(300)));
        // The client is whole: the next call is answered.
        QVERIFY(m_upstream.control(QStringLiteral("ok")));
        auto next = call(*client, QStringLiteral("echo"), {{"text", "after"}});
        QTRY_COMPARE_WITH_TIMEOUT(next->completions, 1, waitMs);
        QVERIFY2(next->outcome.ok(), qPrintable(next->outcome.failure->message));
    }

    void failureKinds_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("timeoutMs");
        QTest::addColumn<FailureKind>("kind");
        QTest::addColumn<int>("httpStatus");
        QTest::newRow("http500") << QStringLiteral("http500") << 0 << FailureKind::ServerError << 500;
        QTest::newRow("http401") << QStringLiteral("http401") << 0 << FailureKind::Authentication << 401;
        QTest::newRow("drop") << QStringLiteral("drop") << 0 << FailureKind::Connection << 0;
        QTest::newRow("malformed") << QStringLiteral("malformed") << 0 << FailureKind::Malformed << 200;
        QTest::newRow("delay past timeout") << QStringLiteral("delay") << 300 << FailureKind::Timeout << 0;
    }

    void failureKinds()
    {
        QFETCH(QString, mode);
        QFETCH(int, timeoutMs);
        QFETCH(FailureKind, kind);
        QFETCH(int, httpStatus);
        const QByteArray token = "secret-token-123";
        auto client = makeClient(token);
        QVERIFY(initialize(*client));
        QVERIFY(m_upstream.control(mode, {{"ms", 5'000}}));
        McpClient::CallOptions options;
        options.timeoutMs = timeoutMs;
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}}, std::move(options));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(!result->outcome.ok());
        QCOMPARE(McpClient::failureKindName(result->outcome.failure->kind), McpClient::failureKindName(kind));
        QCOMPARE(result->outcome.failure->httpStatus, httpStatus);
        QVERIFY(!result->outcome.failure->message.isEmpty());
        QVERIFY(!result->outcome.failure->message.contains(QString::fromLatin1(token)));
    }

    void initializeFailsLikeACall()
    {
        QVERIFY(m_upstream.control(QStringLiteral("http500")));
        auto client = makeClient();
        auto first = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        auto second = call(*client, QStringLiteral("echo"), {{"text", "y"}});
        QTRY_COMPARE_WITH_TIMEOUT(first->completions + second->completions, 2, waitMs);
        QCOMPARE(first->outcome.failure->kind, FailureKind::ServerError);
        QCOMPARE(second->outcome.failure->kind, FailureKind::ServerError);
        QVERIFY(!client->isInitialized());
        QCOMPARE(methodCount(m_upstream.stats(), "initialize"), 1);
    }

    void sseResumption()
    {
        auto client = makeClient({}, 3, false); // no GET stream: the one GET counted is the resumption
        QVERIFY(initialize(*client));
        QVERIFY(m_upstream.control(QStringLiteral("sse-drop")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("resumed: x"));
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "GET"), 1);
        QCOMPARE(stats["lastEventIds"].size(), 1u);
        QVERIFY(stats["lastEventIds"][0].get<std::string>().ends_with("-1"));
        QCOMPARE(stats["lastHeaders"].value("accept", std::string()), std::string("text/event-stream"));
        QCOMPARE(stats["lastHeaders"].value("mcp-session-id", std::string()), client->sessionId().toStdString());
    }

    void sseResumptionRefused()
    {
        auto client = makeClient({}, 3, false);
        QVERIFY(initialize(*client));
        QVERIFY(m_upstream.control(QStringLiteral("sse-drop"), {{"resumable", false}}));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(!result->outcome.ok());
        QCOMPARE(result->outcome.failure->kind, FailureKind::Connection);
        QCOMPARE(result->outcome.failure->httpStatus, 405);
        QCOMPARE(methodCount(m_upstream.stats(), "GET"), 1);
        QCOMPARE(methodCount(m_upstream.stats(), "tools/call"), 1); // never posted twice
    }

    void bearerTokenSentExactly_data()
    {
        QTest::addColumn<QByteArray>("token");
        QTest::addColumn<QString>("expected");
        QTest::newRow("token") << QByteArray("tok-abc.123") << QStringLiteral("Bearer tok-abc.123");
        QTest::newRow("none") << QByteArray() << QStringLiteral("(none)");
    }

    void bearerTokenSentExactly()
    {
        QFETCH(QByteArray, token);
        QFETCH(QString, expected);
        auto client = makeClient(token);
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        std::optional<McpClient::ToolList> list;
        client->listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>&) { list = l; });
        QTRY_VERIFY_WITH_TIMEOUT(list.has_value(), waitMs);
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpened"), 1, waitMs);
        client->close();
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "DELETE"), 1, waitMs);
        const json authorization = m_upstream.stats()["authorization"];
        QCOMPARE(authorization.size(), 1u);
        // initialize, initialized, the GET stream, tools/call, 4 pages of tools/list, DELETE
        QCOMPARE(authorization.value(expected.toStdString(), 0), 9);
    }

    void elicitationAnswered()
    {
        auto client = makeClient();
        QString askedMethod;
        json askedParams;
        McpClient::CallOptions options;
        options.serverRequest = [&](const QString& method, const json& params, McpClient::Reply reply) {
            askedMethod = method;
            askedParams = params;
            // Answered later, as a person would.
            QTimer::singleShot(50, [reply] { reply({{"action", "accept"}, {"content", {{"name", "Ada"}}}}, nullptr); });
        };
        auto result = call(*client, QStringLiteral("ask"), {{"message", "Who?"}}, std::move(options));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(askedMethod, QStringLiteral("elicitation/create"));
        QCOMPARE(askedParams["message"].get<std::string>(), std::string("Who?"));
        QVERIFY(askedParams["requestedSchema"].is_object());
        QVERIFY(firstText(result->outcome.result).contains(QStringLiteral("Ada")));
        const json answers = m_upstream.stats()["elicitationAnswers"];
        QCOMPARE(answers.size(), 1u);
        QCOMPARE(answers[0]["result"]["content"]["name"].get<std::string>(), std::string("Ada"));
    }

    // The upstream's question waits for a person much longer than the request's timeout: the timeout
    // is stopped until the answer goes back, and the call succeeds.
    void timeoutStopsWhileTheUpstreamsRequestWaits()
    {
        McpClient::Settings settings;
        settings.endpoint = m_upstream.url();
        settings.requestTimeoutMs = 1'000;
        McpClient client(settings);
        McpClient::CallOptions options;
        bool asked = false;
        McpClient::Reply pending;
        options.serverRequest = [&](const QString&, const json&, McpClient::Reply reply) {
            asked = true;
            pending = std::move(reply);
        };
        auto result = call(client, QStringLiteral("ask"), {{"message", "Who?"}}, std::move(options));
        QTRY_VERIFY_WITH_TIMEOUT(asked, waitMs);
        // Three times the timeout, and the call still waits: that time was the person's.
        QTest::qWait(3'000);
        QCOMPARE(result->completions, 0);
        pending({{"action", "accept"}, {"content", {{"name", "Ada"}}}}, nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QVERIFY(firstText(result->outcome.result).contains(QStringLiteral("Ada")));
    }

    void samplingRefused_data()
    {
        QTest::addColumn<bool>("withHandler");
        QTest::addColumn<int>("code");
        QTest::newRow("handler refuses") << true << -1;
        QTest::newRow("no handler") << false << -32601;
    }

    void samplingRefused()
    {
        QFETCH(bool, withHandler);
        QFETCH(int, code);
        auto client = makeClient();
        McpClient::CallOptions options;
        if (withHandler) {
            options.serverRequest = [](const QString& method, const json&, McpClient::Reply reply) {
                QCOMPARE(method, QStringLiteral("sampling/createMessage"));
                reply(nullptr, {{"code", -1}, {"message", "sampling is not allowed here"}});
            };
        }
        auto result = call(*client, QStringLiteral("sample"), json::object(), std::move(options));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(result->outcome.ok());
        QCOMPARE(result->outcome.result.value("isError", false), true);
        QVERIFY(firstText(result->outcome.result).startsWith(QStringLiteral("sampling refused")));
        const json answers = m_upstream.stats()["samplingAnswers"];
        QCOMPARE(answers.size(), 1u);
        QCOMPARE(answers[0]["error"]["code"].get<int>(), code);
    }

    void listChangedEmitted()
    {
        auto client = makeClient();
        QSignalSpy changed(client.get(), &McpClient::toolsListChanged);
        QVERIFY(m_upstream.control(QStringLiteral("list-changed")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY(result->outcome.ok());
        QCOMPARE(changed.count(), 1);
        std::optional<McpClient::ToolList> list;
        client->listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>&) { list = l; });
        QTRY_VERIFY_WITH_TIMEOUT(list.has_value(), waitMs);
        QCOMPARE(list->tools.size(), 8u);
        QCOMPARE(list->tools.back()["name"].get<std::string>(), std::string("added_tool"));
    }

    // The GET stream: opened once after initialize, with the session, the version and the token.
    void listeningStreamDeliversListChanged()
    {
        auto client = makeClient("listen-token");
        QSignalSpy changed(client.get(), &McpClient::toolsListChanged);
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "GET"), 1);
        QCOMPARE(stats["lastHeaders"].value("accept", std::string()), std::string("text/event-stream"));
        QCOMPARE(stats["lastHeaders"].value("mcp-session-id", std::string()), client->sessionId().toStdString());
        QCOMPARE(stats["lastHeaders"].value("mcp-protocol-version", std::string()), std::string("2025-11-25"));
        QCOMPARE(stats["lastHeaders"].value("authorization", std::string()), std::string("Bearer listen-token"));
        QVERIFY(!stats["lastHeaders"].contains("last-event-id"));

        QVERIFY(m_upstream.control(QStringLiteral("push-list-changed"), {{"tool", "pushed_tool"}}));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, waitMs);
        std::optional<McpClient::ToolList> list;
        client->listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>&) { list = l; });
        QTRY_VERIFY_WITH_TIMEOUT(list.has_value(), waitMs);
        QCOMPARE(list->tools.back()["name"].get<std::string>(), std::string("pushed_tool"));
        QCOMPARE(statNumber(m_upstream.stats(), "listeningOpened"), 1);
    }

    // Requests the upstream sends on the GET stream belong to no call: ping is answered, anything
    // else refused as by a call without a handler; an event that is not JSON is skipped.
    void listeningStreamAnswersServerRequests()
    {
        auto client = makeClient();
        QSignalSpy changed(client.get(), &McpClient::toolsListChanged);
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        QVERIFY(m_upstream.control(QStringLiteral("listen-ask"), {{"method", "ping"}}));
        QVERIFY(m_upstream.control(QStringLiteral("listen-ask"),
            {{"method", "elicitation/create"},
                {"params", {{"message", "Who?"}, {"requestedSchema", {{"type", "object"}}}}}}));
        QTRY_COMPARE_WITH_TIMEOUT(m_upstream.stats()["listenAnswers"].size(), 2u, waitMs);
        const json answers = m_upstream.stats()["listenAnswers"];
        const auto answerTo = [&](bool wantError) {
            for (const json& answer : answers) {
                if (answer.contains("error") == wantError)
                    return answer;
            }
            return json();
        };
        QVERIFY2(answerTo(false).value("result", json()) == json::object(), answers.dump().c_str());
        QVERIFY2(answerTo(true)["error"].value("code", 0) == -32601, answers.dump().c_str());
        // The stream is still read after the garbage.
        QVERIFY(m_upstream.control(QStringLiteral("push-list-changed")));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, waitMs);
        QCOMPARE(statNumber(m_upstream.stats(), "listeningOpened"), 1);
    }

    // 405: the upstream offers no stream; not asked again for this session, and calls work.
    void listeningRefusedWith405IsNotRetried()
    {
        QVERIFY(m_upstream.control(QStringLiteral("listen-405")));
        auto client = makeClient();
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "GET"), 1, waitMs);
        QTest::qWait(3'500); // past a first and a second backoff (1 s, 2 s)
        auto result = call(*client, QStringLiteral("echo"), {{"text", "no stream"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QCOMPARE(firstText(result->outcome.result), QStringLiteral("no stream"));
        const json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "GET"), 1);
        QCOMPARE(statNumber(stats, "listeningOpened"), 0);
    }

    // An upstream that does not offer tools.listChanged has nothing for the stream: none is opened.
    void noListeningWithoutListChanged()
    {
        QVERIFY(m_upstream.control(QStringLiteral("ok"), {{"listChanged", false}}));
        auto client = makeClient();
        QVERIFY(initialize(*client));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "x"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QTest::qWait(500); // time passing is the point: a stream, were one opened, would be by now
        QCOMPARE(methodCount(m_upstream.stats(), "GET"), 0);
    }

    // A dropped stream is opened again after the server's `retry`, naming the last event it had.
    void droppedListeningStreamReopenedWithLastEventId()
    {
        auto client = makeClient();
        QSignalSpy changed(client.get(), &McpClient::toolsListChanged);
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        QVERIFY(m_upstream.control(QStringLiteral("push-list-changed")));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, waitMs);

        QVERIFY(m_upstream.control(QStringLiteral("listen-drop")));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpened"), 2, waitMs);
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        json stats = m_upstream.stats();
        QCOMPARE(methodCount(stats, "GET"), 2);
        QVERIFY2(stats["lastEventIds"].size() == 1u, stats["lastEventIds"].dump().c_str());
        QVERIFY2(stats["listenDropIds"].size() == 1u, stats["listenDropIds"].dump().c_str());
        // The id of the event just before the drop (the priming event and list_changed came earlier).
        QVERIFY2(stats["lastEventIds"][0] == stats["listenDropIds"][0], stats.dump().c_str());
        QCOMPARE(stats["lastHeaders"].value("mcp-session-id", std::string()), client->sessionId().toStdString());

        // The new stream delivers as the first did, and it stays the only one.
        QVERIFY(m_upstream.control(QStringLiteral("push-list-changed")));
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 2, waitMs);
        QTest::qWait(500); // time passing is the point: a second stream, were one opened, would be by now
        stats = m_upstream.stats();
        QCOMPARE(statNumber(stats, "listeningOpen"), 1);
        QCOMPARE(methodCount(stats, "GET"), 2);
    }

    // close(), destruction and an expired session end the stream: the upstream sees it closed.
    void listeningStreamEndsWithTheSession()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        client->close();
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 0, waitMs);
        QTest::qWait(1'500); // past the first backoff: nothing reopens a closed client's stream
        QCOMPARE(methodCount(m_upstream.stats(), "GET"), 1);

        // A new session listens again; the upstream forgetting it (404 on a call) ends that stream
        // and the next session opens the next one.
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpened"), 2, waitMs);
        QVERIFY(m_upstream.control(QStringLiteral("expire-session")));
        auto result = call(*client, QStringLiteral("echo"), {{"text", "again"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpened"), 3, waitMs);
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        QCOMPARE(m_upstream.stats()["lastHeaders"].value("mcp-session-id", std::string()),
            client->sessionId().toStdString());

        client.reset();
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 0, waitMs);
    }

    // The stream holds a connection of its own: calls get every connection they had without it
    // (sixteen over three managers, six over one).
    void listeningStreamMakesNoCallWait_data()
    {
        QTest::addColumn<int>("managers");
        QTest::addColumn<int>("calls");
        QTest::newRow("three managers") << 3 << 16;
        QTest::newRow("one manager") << 1 << 6;
    }

    void listeningStreamMakesNoCallWait()
    {
        QFETCH(int, managers);
        QFETCH(int, calls);
        auto client = makeClient({}, managers);
        QVERIFY(initialize(*client));
        QTRY_COMPARE_WITH_TIMEOUT(statNumber(m_upstream.stats(), "listeningOpen"), 1, waitMs);
        std::vector<std::shared_ptr<CallResult>> results;
        for (int i = 0; i < calls; ++i)
            results.push_back(call(*client, QStringLiteral("slow"), {{"ms", 5'000}}));
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), calls, waitMs);
        for (const auto& result : results)
            QCOMPARE(result->completions, 0);
        for (const auto& result : results) {
            QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
            QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        }
        QCOMPARE(statNumber(m_upstream.stats(), "listeningOpen"), 1);
    }

    void closeFailsCallsInFlight()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        auto result = call(*client, QStringLiteral("slow"), {{"ms", 60'000}});
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), 1, waitMs);
        client->close();
        QCOMPARE(result->completions, 1);
        QCOMPARE(result->outcome.failure->kind, FailureKind::Cancelled);
        QVERIFY(!client->isInitialized());
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "DELETE"), 1, waitMs);
        // The client can start again: a new session.
        auto again = call(*client, QStringLiteral("echo"), {{"text", "y"}});
        QTRY_COMPARE_WITH_TIMEOUT(again->completions, 1, waitMs);
        QVERIFY(again->outcome.ok());
        QCOMPARE(methodCount(m_upstream.stats(), "initialize"), 2);
    }

    void destructionRunsNoCallback()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        auto slow = call(*client, QStringLiteral("slow"), {{"ms", 60'000}});
        QTRY_COMPARE_WITH_TIMEOUT(methodCount(m_upstream.stats(), "tools/call"), 1, waitMs);
        auto starting = call(*client, QStringLiteral("echo"), {{"text", "x"}}); // not yet sent
        client.reset();
        // Time passing is the point: a callback still wired (queued, or the echo sent and answered)
        // would have run by now.
        QTest::qWait(200);
        QCOMPARE(slow->completions, 0);
        QCOMPARE(starting->completions, 0);
    }

    void callbackMayDestroyClient()
    {
        auto client = makeClient();
        auto result = std::make_shared<CallResult>();
        McpClient::CallOptions options;
        options.progress = [&](const json&) { client.reset(); };
        client->callTool(QStringLiteral("progress"), {{"count", 3}}, std::move(options),
            [result](McpClient::Outcome) { ++result->completions; });
        QTRY_VERIFY_WITH_TIMEOUT(!client, waitMs);
        QTest::qWait(100); // time passing is the point: the rest of the stream, were it still read, would be
        QCOMPARE(result->completions, 0);
    }

    // --- 2026-07-28 -------------------------------------------------------------------------

    void headerValuesUseTheBase64SentinelWhenNeeded_data()
    {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QByteArray>("header");
        // The specification's own examples, and what stays as it is.
        QTest::newRow("plain") << QByteArray("us-west1") << QByteArray("us-west1");
        QTest::newRow("inner spaces") << QByteArray("us west 1") << QByteArray("us west 1");
        QTest::newRow("empty") << QByteArray() << QByteArray();
        QTest::newRow("non-ASCII") << QByteArray("Hello, 世界") << QByteArray("=?base64?SGVsbG8sIOS4lueVjA==?=");
        QTest::newRow("padded") << QByteArray(" padded ") << QByteArray("=?base64?IHBhZGRlZCA=?=");
        QTest::newRow("newline") << QByteArray("line1\nline2") << QByteArray("=?base64?bGluZTEKbGluZTI=?=");
        QTest::newRow("looks like a sentinel")
            << QByteArray("=?base64?literal?=") << QByteArray("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        QTest::newRow("tab") << QByteArray("a\tb") << QByteArray("=?base64?YQli?=");
        QTest::newRow("trailing space") << QByteArray("us-west1 ") << QByteArray("=?base64?dXMtd2VzdDEg?=");
    }

    void headerValuesUseTheBase64SentinelWhenNeeded()
    {
        QFETCH(QByteArray, value);
        QFETCH(QByteArray, header);
        QCOMPARE(McpClient::headerValue(value.toStdString()), header);
        // What a server decodes (Switchboard's own, ModernRequest) is the value again.
        QVERIFY(ModernRequest::decodeHeaderValue(header) == std::optional<std::string>(value.toStdString()));
    }

    void invalidParamHeaderAnnotationsAreFound_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::addColumn<bool>("valid");
        const auto row = [](const char* name, const char* schema, bool valid) {
            QTest::newRow(name) << QByteArray(schema) << valid;
        };
        row("none", R"({"type":"object","properties":{"a":{"type":"string"}}})", true);
        row("string, integer, boolean",
            R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"integer","x-mcp-header":"B"},"c":{"type":"boolean","x-mcp-header":"C"}}})",
            true);
        row("nested through properties",
            R"({"type":"object","properties":{"o":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}})",
            true);
        row("empty", R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}})", false);
        row("object", R"({"type":"object","properties":{"v":{"type":"object","x-mcp-header":"Data"}}})", false);
        row("array",
            R"({"type":"object","properties":{"v":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}})",
            false);
        row("null", R"({"type":"object","properties":{"v":{"type":"null","x-mcp-header":"Nil"}}})", false);
        row("number", R"({"type":"object","properties":{"v":{"type":"number","x-mcp-header":"Score"}}})", false);
        row("no type", R"({"type":"object","properties":{"v":{"x-mcp-header":"V"}}})", false);
        row("twice",
            R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}})",
            false);
        row("twice ignoring case",
            R"({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}})",
            false);
        row("space", R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}})", false);
        row("colon", R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Region:Primary"}}})",
            false);
        row("non-ASCII", R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Région"}}})", false);
        row("control", R"({"type":"object","properties":{"v":{"type":"string","x-mcp-header":"Region\t1"}}})", false);
        row("on the root", R"({"type":"object","x-mcp-header":"Root"})", false);
        row("under items",
            R"({"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}})",
            false);
        row("under anyOf", R"({"type":"object","anyOf":[{"properties":{"v":{"type":"string","x-mcp-header":"V"}}}]})",
            false);
        row("under $defs", R"({"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}}})", false);
    }

    void invalidParamHeaderAnnotationsAreFound()
    {
        QFETCH(QByteArray, schema);
        QFETCH(bool, valid);
        const std::optional<QString> why = McpClient::invalidParamHeaders(json::parse(schema.toStdString()));
        QVERIFY2(why.has_value() != valid, why ? qPrintable(*why) : "valid");
    }

    void paramHeadersFollowTheArguments()
    {
        const json schema = json::parse(R"({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "priority":{"type":"integer","x-mcp-header":"Priority"},
            "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
            "where":{"type":"object","properties":{"city":{"type":"string","x-mcp-header":"City"}}},
            "query":{"type":"string"}}})");
        const json arguments = {{"region", "us-west1"}, {"priority", 42}, {"verbose", nullptr},
            {"where", {{"city", "Zürich"}}}, {"query", "SELECT 1"}};
        auto headers = McpClient::paramHeaders(schema, arguments);
        std::sort(headers.begin(), headers.end());
        const std::vector<std::pair<QByteArray, QByteArray>> expected{{"Mcp-Param-City", "=?base64?WsO8cmljaA==?="},
            {"Mcp-Param-Priority", "42"}, {"Mcp-Param-Region", "us-west1"}};
        QVERIFY(headers == expected);
        // What Switchboard's own server requires of a call with these arguments, they satisfy.
        const auto refusal = ModernRequest::checkParamHeaders(schema, arguments, [&](const QByteArray& name) {
            for (const auto& [header, value] : headers) {
                if (header.compare(name, Qt::CaseInsensitive) == 0)
                    return std::optional<QByteArray>(value);
            }
            return std::optional<QByteArray>();
        });
        QVERIFY2(!refusal, refusal ? refusal->message.c_str() : "");
    }

    // The issue's done-when: an adapter's client talks to a 2026-only upstream (the SDK v2 server
    // with legacy: 'reject'), with no initialize and no session, every request with its headers.
    void modernOnlyUpstreamIsSpokenToStatelessly()
    {
        UpstreamProcess& upstream = sdkV2(QStringLiteral("modern"));
        auto client = negotiatingClient(upstream.url());
        std::optional<McpClient::InitializeResult> init;
        client->initialize([&](const McpClient::InitializeResult& r, const std::optional<McpClient::Failure>& failure) {
            QVERIFY2(!failure, failure ? qPrintable(failure->message) : "");
            init = r;
        });
        QTRY_VERIFY_WITH_TIMEOUT(init.has_value(), waitMs);
        QCOMPARE(client->era(), McpClient::Era::Modern);
        QCOMPARE(client->protocolVersion(), QStringLiteral("2026-07-28"));
        QCOMPARE(init->protocolVersion, QStringLiteral("2026-07-28"));
        QCOMPARE(init->serverInfo.value("name", std::string()), std::string("sdk-v2-upstream"));
        QCOMPARE(init->instructions, QStringLiteral("SDK v2 upstream (modern)"));
        QVERIFY(client->sessionId().isEmpty());

        const auto list = listed(*client);
        QVERIFY(list);
        std::vector<std::string> names;
        for (const json& tool : list->tools)
            names.push_back(tool.value("name", std::string()));
        QVERIFY(names == (std::vector<std::string>{"echo", "regional", "confirm", "slow_task"}));
        auto echoed = call(*client, QStringLiteral("echo"), {{"text", "über 2026"}});
        QTRY_COMPARE_WITH_TIMEOUT(echoed->completions, 1, waitMs);
        QVERIFY2(echoed->outcome.ok(), qPrintable(echoed->outcome.failure->message));
        QCOMPARE(firstText(echoed->outcome.result), QStringLiteral("über 2026"));
        QCOMPARE(echoed->outcome.result.value("resultType", std::string()), std::string("complete"));

        const json stats = upstream.stats();
        QCOMPARE(methodCount(stats, "server/discover"), 1);
        QCOMPARE(methodCount(stats, "initialize"), 0);
        const json headers = stats["headers"]["tools/call"];
        QCOMPARE(headers.value("mcp-protocol-version", std::string()), std::string("2026-07-28"));
        QCOMPARE(headers.value("mcp-method", std::string()), std::string("tools/call"));
        QCOMPARE(headers.value("mcp-name", std::string()), std::string("echo"));
        QVERIFY(!headers.contains("mcp-session-id"));
        QCOMPARE(stats["headers"]["tools/list"].value("mcp-method", std::string()), std::string("tools/list"));
        client->close();
    }

    // x-mcp-header arguments go as Mcp-Param-* headers (the SDK refuses a call without them); a
    // call made before any listing is refused (-32020), lists the tools and goes again, as the
    // revision advises.
    void paramHeadersAreMirroredForTheUpstream()
    {
        UpstreamProcess& upstream = sdkV2(QStringLiteral("modern"));
        auto client = negotiatingClient(upstream.url());
        auto unlisted = call(*client, QStringLiteral("regional"), {{"region", "Zürich"}, {"priority", 7}});
        QTRY_COMPARE_WITH_TIMEOUT(unlisted->completions, 1, waitMs);
        QVERIFY2(unlisted->outcome.ok(), qPrintable(unlisted->outcome.failure->message));
        json stats = upstream.stats();
        QCOMPARE(methodCount(stats, "tools/call"), 2);
        QCOMPARE(methodCount(stats, "tools/list"), 1);

        auto mirrored = call(*client, QStringLiteral("regional"),
            {{"region", "eu-west"}, {"priority", 3}, {"verbose", true}, {"note", "not a header"}});
        QTRY_COMPARE_WITH_TIMEOUT(mirrored->completions, 1, waitMs);
        QVERIFY2(mirrored->outcome.ok(), qPrintable(mirrored->outcome.failure->message));
        const json seen = mirrored->outcome.result.value("structuredContent", json());
        QVERIFY2(
            seen == json({{"mcp-param-region", "eu-west"}, {"mcp-param-priority", "3"}, {"mcp-param-verbose", "true"}}),
            seen.dump().c_str());
        auto encoded = call(*client, QStringLiteral("regional"), {{"region", " Zürich "}, {"priority", 1}});
        QTRY_COMPARE_WITH_TIMEOUT(encoded->completions, 1, waitMs);
        QVERIFY2(encoded->outcome.ok(), qPrintable(encoded->outcome.failure->message));
        QCOMPARE(encoded->outcome.result["structuredContent"].value("mcp-param-region", std::string()),
            McpClient::headerValue(" Zürich ").toStdString());
        stats = upstream.stats();
        QCOMPARE(methodCount(stats, "tools/call"), 4);
        QCOMPARE(methodCount(stats, "tools/list"), 1);
        client->close();
    }

    void inputRequiredIsAnsweredByTheCallsHandler()
    {
        UpstreamProcess& upstream = sdkV2(QStringLiteral("modern"));
        auto client = negotiatingClient(upstream.url());
        McpClient::CallOptions options;
        json asked;
        options.serverRequest = [&](const QString& method, const json& params, McpClient::Reply reply) {
            asked = {{"method", method.toStdString()}, {"params", params}};
            reply(json{{"action", "accept"}, {"content", {{"confirmed", true}}}}, json());
        };
        auto confirmed = call(*client, QStringLiteral("confirm"), {{"action", "deploy"}}, options);
        QTRY_COMPARE_WITH_TIMEOUT(confirmed->completions, 1, waitMs);
        QVERIFY2(confirmed->outcome.ok(), qPrintable(confirmed->outcome.failure->message));
        QCOMPARE(asked.value("method", std::string()), std::string("elicitation/create"));
        QCOMPARE(asked["params"].value("message", std::string()), std::string("Do you want to deploy?"));
        // The answer and the requestState, exactly as the upstream sent it, came back.
        QCOMPARE(firstText(confirmed->outcome.result),
            QStringLiteral(R"(confirmed deploy: {"confirmed":true} (state state-for-deploy))"));
        QCOMPARE(methodCount(upstream.stats(), "tools/call"), 2);

        // Without anyone to ask, the call ends saying what was asked.
        auto unanswered = call(*client, QStringLiteral("confirm"), {{"action", "deploy"}});
        QTRY_COMPARE_WITH_TIMEOUT(unanswered->completions, 1, waitMs);
        QVERIFY(!unanswered->outcome.ok());
        QCOMPARE(unanswered->outcome.failure->kind, FailureKind::Protocol);
        QVERIFY2(unanswered->outcome.failure->message.contains(QStringLiteral("elicitation/create")),
            qPrintable(unanswered->outcome.failure->message));
        client->close();
    }

    void taskIsPolledToCompletion()
    {
        UpstreamProcess& upstream = sdkV2(QStringLiteral("modern"));
        auto client = negotiatingClient(upstream.url());
        auto task = call(*client, QStringLiteral("slow_task"), {{"ms", 400}});
        QTRY_COMPARE_WITH_TIMEOUT(task->completions, 1, waitMs);
        QVERIFY2(task->outcome.ok(), qPrintable(task->outcome.failure->message));
        QCOMPARE(firstText(task->outcome.result), QStringLiteral("task done after 400 ms"));
        const json stats = upstream.stats();
        QCOMPARE(stats["polls"].size(), std::size_t(1));
        const std::string taskId = stats["polls"].begin().key();
        QVERIFY(stats["polls"][taskId].get<int>() >= 1);
        // Each poll named its task in Mcp-Name and declared the extension it belongs to.
        QCOMPARE(stats["headers"]["tasks/get"].value("mcp-name", std::string()), taskId);
        QVERIFY(stats["cancelled"].empty());
        client->close();
    }

    void cancellingATaskCancelsItUpstream_data()
    {
        QTest::addColumn<bool>("byDeadline");
        QTest::newRow("cancelled") << false;
        QTest::newRow("deadline") << true;
    }

    void cancellingATaskCancelsItUpstream()
    {
        QFETCH(bool, byDeadline);
        UpstreamProcess& upstream = sdkV2(QStringLiteral("modern"));
        auto client = negotiatingClient(upstream.url());
        McpClient::CallOptions options;
        if (byDeadline)
            options.timeoutMs = 2'000;
        auto result = std::make_shared<CallResult>();
        auto pending = client->callTool(
            QStringLiteral("slow_task"), {{"ms", 60'000}}, options, [result](McpClient::Outcome outcome) {
                ++result->completions;
                result->outcome = std::move(outcome);
            });
        // Polled at least once: the call is a task upstream.
        QTRY_VERIFY_WITH_TIMEOUT(!upstream.stats()["polls"].empty(), waitMs);
        if (!byDeadline)
            pending->cancel(QStringLiteral("the test cancels"));
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QCOMPARE(result->outcome.failure->kind, byDeadline ? FailureKind::Timeout : FailureKind::Cancelled);
        json stats;
        QTRY_VERIFY_WITH_TIMEOUT((stats = upstream.stats())["cancelled"].size() == 1, waitMs);
        QVERIFY2(stats["cancelled"][0] == json(stats["polls"].begin().key()), stats.dump().c_str());
        // No poll follows the cancellation (one sent just before it may still arrive: counted after
        // a moment).
        QTest::qWait(300);
        const int polls = upstream.stats()["polls"].begin().value().get<int>();
        QTest::qWait(500);
        QCOMPARE(upstream.stats()["polls"].begin().value().get<int>(), polls);
        client->close();
    }

    // A 2025-only upstream (the SDK v2 server's stateless 2025 serving alone) refuses the probe and
    // gets the handshake. (That serving cannot send requests of its own, so its input requests are
    // not tried here: fault-upstream's elicitation tests cover a 2025 upstream's questions.)
    void legacyUpstreamGetsTheHandshake()
    {
        UpstreamProcess& upstream = sdkV2(QStringLiteral("legacy"));
        auto client = negotiatingClient(upstream.url());
        const auto list = listed(*client);
        QVERIFY(list);
        QCOMPARE(client->era(), McpClient::Era::Legacy);
        QCOMPARE(client->protocolVersion(), QStringLiteral("2025-11-25"));
        QCOMPARE(list->tools.size(), std::size_t(4));
        auto echoed = call(*client, QStringLiteral("echo"), {{"text", "2025"}});
        QTRY_COMPARE_WITH_TIMEOUT(echoed->completions, 1, waitMs);
        QVERIFY2(echoed->outcome.ok(), qPrintable(echoed->outcome.failure->message));
        QCOMPARE(firstText(echoed->outcome.result), QStringLiteral("2025"));
        // Without the extension's 2026 requests a task is not made: the call waits for its answer.
        auto slept = call(*client, QStringLiteral("slow_task"), {{"ms", 100}});
        QTRY_COMPARE_WITH_TIMEOUT(slept->completions, 1, waitMs);
        QCOMPARE(firstText(slept->outcome.result), QStringLiteral("slept without a task"));
        const json stats = upstream.stats();
        QCOMPARE(methodCount(stats, "server/discover"), 1);
        QCOMPARE(methodCount(stats, "initialize"), 1);
        QCOMPARE(
            stats["headers"]["tools/list"].value("mcp-protocol-version", std::string()), std::string("2025-11-25"));
        QVERIFY(!stats["headers"]["tools/list"].contains("mcp-method"));
        client->close();
    }

    // A server of both eras is spoken to in 2026-07-28; a fault-upstream (2025 sessions) refuses the
    // probe with a 2025 error and gets the handshake as before.
    void eraIsChosenByTheProbe_data()
    {
        QTest::addColumn<bool>("sdk");
        QTest::addColumn<bool>("modern");
        QTest::newRow("SDK v2, both eras") << true << true;
        QTest::newRow("fault-upstream, 2025") << false << false;
    }

    void eraIsChosenByTheProbe()
    {
        QFETCH(bool, sdk);
        QFETCH(bool, modern);
        UpstreamProcess& upstream = sdk ? sdkV2(QStringLiteral("both")) : m_upstream;
        auto client = negotiatingClient(upstream.url());
        auto echoed = call(*client, QStringLiteral("echo"), {{"text", "era"}});
        QTRY_COMPARE_WITH_TIMEOUT(echoed->completions, 1, waitMs);
        QVERIFY2(echoed->outcome.ok(), qPrintable(echoed->outcome.failure->message));
        QCOMPARE(client->era(), modern ? McpClient::Era::Modern : McpClient::Era::Legacy);
        const json stats = upstream.stats();
        QCOMPARE(methodCount(stats, "server/discover"), 1);
        QCOMPARE(methodCount(stats, "initialize"), modern ? 0 : 1);
        QCOMPARE(client->sessionId().isEmpty(), modern);
        client->close();
    }

    // The program behind the endpoint changes era (a restart as a newer or an older server): the
    // next requests find it out (a 2026-only server refuses initialize with -32022 naming
    // 2026-07-28; a 2025 one answers in the legacy range or the connection went) and carry on.
    void eraIsLearntAgainWhenTheUpstreamChanges_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::newRow("2025 to 2026-only") << QStringLiteral("legacy") << QStringLiteral("modern");
        QTest::newRow("2026-only to 2025") << QStringLiteral("modern") << QStringLiteral("legacy");
    }

    void eraIsLearntAgainWhenTheUpstreamChanges()
    {
        QFETCH(QString, before);
        QFETCH(QString, after);
        const auto eraOf = [](const QString& name) {
            return name == QLatin1String("modern") ? McpClient::Era::Modern : McpClient::Era::Legacy;
        };
        auto upstream = std::make_unique<UpstreamProcess>(
            UpstreamProcess::Kind::SdkV2, QStringList{QStringLiteral("--era"), before});
        QVERIFY2(upstream->start(), qPrintable(upstream->errorString()));
        const int port = upstream->port();
        auto client = negotiatingClient(upstream->url());
        auto first = call(*client, QStringLiteral("echo"), {{"text", "before"}});
        QTRY_COMPARE_WITH_TIMEOUT(first->completions, 1, waitMs);
        QVERIFY2(first->outcome.ok(), qPrintable(first->outcome.failure->message));
        QCOMPARE(client->era(), eraOf(before));

        upstream = std::make_unique<UpstreamProcess>(
            UpstreamProcess::Kind::SdkV2, QStringList{QStringLiteral("--era"), after});
        upstream->setPort(port);
        QVERIFY2(upstream->start(), qPrintable(upstream->errorString()));
        // A request on a connection to the old program may fail with it; the next ones get through.
        std::shared_ptr<CallResult> again;
        for (int attempt = 0; attempt < 3; ++attempt) {
            again = call(*client, QStringLiteral("echo"), {{"text", "after"}});
            QTRY_COMPARE_WITH_TIMEOUT(again->completions, 1, waitMs);
            if (again->outcome.ok())
                break;
            QCOMPARE(again->outcome.failure->kind, FailureKind::Connection);
        }
        QVERIFY2(again->outcome.ok(), qPrintable(again->outcome.failure->message));
        QCOMPARE(firstText(again->outcome.result), QStringLiteral("after"));
        QCOMPARE(client->era(), eraOf(after));
        QVERIFY(methodCount(upstream->stats(), "server/discover") >= 1);
        client->close();
    }

    // Once the ttlMs a listing came with has run out, toolsListExpired says so (at the soonest
    // minToolListRefreshMs after it) and the next listing fetches the tools anew.
    void expiredListIsAnnouncedAndFetchedAgain()
    {
        UpstreamProcess& upstream
            = sdkV2(QStringLiteral("modern"), {QStringLiteral("--tools-ttl"), QStringLiteral("300")});
        McpClient::Settings settings;
        settings.endpoint = upstream.url();
        settings.negotiateModern = true;
        settings.listenForNotifications = false;
        settings.minToolListRefreshMs = 200;
        McpClient client(settings);
        QSignalSpy expired(&client, &McpClient::toolsListExpired);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(listed(client));
        QVERIFY(listed(client));
        QCOMPARE(methodCount(upstream.stats(), "tools/list"), 1);
        QVERIFY(expired.wait(waitMs));
        QVERIFY2(clock.elapsed() >= 300, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(listed(client));
        QCOMPARE(methodCount(upstream.stats(), "tools/list"), 2);
        client.close();
    }

    // A 2025-only client (the default) never probes: a 2025 upstream sees what it always saw.
    void withoutNegotiationNoProbeIsSent()
    {
        auto client = makeClient();
        QVERIFY(initialize(*client));
        QCOMPARE(client->era(), McpClient::Era::Unknown);
        QCOMPARE(methodCount(m_upstream.stats(), "server/discover"), 0);
        QCOMPARE(methodCount(m_upstream.stats(), "initialize"), 1);
    }

    // A 2026 upstream's tools/list is reused for its ttlMs and fetched again after a list_changed
    // heard on subscriptions/listen.
    void listIsCachedAndRefreshedOnListChanged()
    {
        UpstreamProcess& upstream
            = sdkV2(QStringLiteral("modern"), {QStringLiteral("--tools-ttl"), QStringLiteral("60000")});
        auto client = negotiatingClient(upstream.url());
        QSignalSpy changed(client.get(), &McpClient::toolsListChanged);
        QVERIFY(listed(*client));
        QVERIFY(listed(*client));
        QCOMPARE(methodCount(upstream.stats(), "tools/list"), 1);
        // The subscription is open before the tools change; a change told before the SDK has taken
        // the subscription in reaches no one, so the tools change again until one is heard.
        QTRY_VERIFY_WITH_TIMEOUT(methodCount(upstream.stats(), "subscriptions/listen") >= 1, waitMs);
        int added = 0;
        while (changed.isEmpty() && added < 10) {
            QVERIFY(upstream.control(QStringLiteral("add-tool")));
            ++added;
            changed.wait(3'000);
        }
        QVERIFY(!changed.isEmpty());
        const auto list = listed(*client);
        QVERIFY(list);
        QCOMPARE(methodCount(upstream.stats(), "tools/list"), 2);
        QCOMPARE(list->tools.back().value("name", std::string()), "added_" + std::to_string(added));
        QCOMPARE(upstream.stats()["headers"]["subscriptions/listen"].value("mcp-method", std::string()),
            std::string("subscriptions/listen"));
        client->close();
    }

    void everythingServer()
    {
        UpstreamProcess everything(UpstreamProcess::Kind::Everything);
        QVERIFY2(everything.start(), qPrintable(everything.errorString()));
        McpClient::Settings settings;
        settings.endpoint = everything.url();
        settings.clientVersion = QStringLiteral("test");
        McpClient client(settings);
        std::optional<McpClient::ToolList> list;
        client.listTools([&](const McpClient::ToolList& l, const std::optional<McpClient::Failure>& failure) {
            QVERIFY2(!failure, failure ? qPrintable(failure->message) : "");
            list = l;
        });
        QTRY_VERIFY_WITH_TIMEOUT(list.has_value(), waitMs);
        QVERIFY(!client.sessionId().isEmpty());
        QVERIFY(std::any_of(list->tools.begin(), list->tools.end(),
            [](const json& tool) { return tool.value("name", std::string()) == "echo"; }));
        auto result = call(client, QStringLiteral("echo"), {{"message", "hello everything"}});
        QTRY_COMPARE_WITH_TIMEOUT(result->completions, 1, waitMs);
        QVERIFY2(result->outcome.ok(), qPrintable(result->outcome.failure->message));
        QVERIFY2(firstText(result->outcome.result).contains(QStringLiteral("hello everything")),
            qPrintable(firstText(result->outcome.result)));
        client.close();
    }
};

QTEST_GUILESS_MAIN(TestMcpClient)
#include "tst_mcpclient.moc"
