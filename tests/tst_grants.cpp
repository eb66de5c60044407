// Grants with scopes, and every decision recorded with its call, through a real Backend over HTTP:
// "always allow" for this client and these arguments lets only that call through, every client and
// any arguments lets every call through, the Permissions list shows the configuration's rules and
// the grants with who granted them, revoking one makes the next call ask again, and each call
// carries who decided, when, what and with which scope (or which grant let it run).

#include <QTest>

#include "core/backend.h"
#include "mcphttptestsupport.h"

#include <QSignalSpy>
#include <QTemporaryDir>

#include <map>
#include <memory>

using nlohmann::json;

class TestGrants : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void scopedGrantsLetThroughOnlyWhatTheyCover();
    void revokedGrantAsksAgain();
    void sessionGrantIsListedAndRevocable();

private:
    // Sends a tools/call of echo and returns the client that waits for its answer.
    std::unique_ptr<RawHttpClient> callEcho(const QByteArray& session, int id, const std::string& message);
    // The question the call raised, answered with `answer`.
    bool answerNextQuestion(QSignalSpy& pending, const InteractionAnswer& answer, QString* clientName = nullptr);
    // The call's newest state among the batches so far (waits until it has finished).
    ToolCall finishedCall(int requestId);
    static json resultOf(const RawHttpResponse& response);
    // A result that is not a tool error; a tool error (as a denial is).
    static bool succeeded(const RawHttpResponse& response)
    {
        const json result = resultOf(response);
        return result.is_object() && !result.value("isError", false);
    }
    static bool refused(const RawHttpResponse& response)
    {
        const json result = resultOf(response);
        return result.is_object() && result.value("isError", false);
    }
    PermissionEntryList listGrants();

    std::unique_ptr<QTemporaryDir> m_stateDir; // one per test: grants are kept in its workspace state
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<QSignalSpy> m_calls;
    quint16 m_port = 0;
};

void TestGrants::init()
{
    m_stateDir = std::make_unique<QTemporaryDir>();
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = ServerFixture::token();
    options.stateDirectory = m_stateDir->path();
    options.config.toolPermissions.insert(QStringLiteral("echo"), QStringLiteral("ask"));
    options.config.toolPermissions.insert(QStringLiteral("git_push"), QStringLiteral("deny"));
    options.configPath = QStringLiteral("/etc/switchboard/test.yaml");
    m_backend = std::make_unique<Backend>(options);
    m_calls = std::make_unique<QSignalSpy>(m_backend.get(), &OperatorInterface::callsUpdated);
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    m_port = quint16(m_backend->serverUrl().port());
}

void TestGrants::cleanup()
{
    m_calls.reset();
    m_backend.reset();
    m_stateDir.reset();
}

std::unique_ptr<RawHttpClient> TestGrants::callEcho(const QByteArray& session, int id, const std::string& message)
{
    auto client = std::make_unique<RawHttpClient>(m_port);
    const json request{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
        {"params", {{"name", "echo"}, {"arguments", {{"message", message}}}}}};
    client->send(RawHttpClient::post(QByteArray::fromStdString(request.dump()), sessionHeaders(m_port, session)));
    return client;
}

bool TestGrants::answerNextQuestion(QSignalSpy& pending, const InteractionAnswer& answer, QString* clientName)
{
    if (pending.isEmpty() && !pending.wait(15'000))
        return false;
    const auto question = pending.takeFirst().at(0).value<PendingInteraction>();
    if (clientName)
        *clientName = question.clientName;
    m_backend->answerInteraction(question.id, answer);
    return true;
}

ToolCall TestGrants::finishedCall(int requestId)
{
    // Calls are told by their JSON-RPC id in the request: ids are unique within this test.
    const QByteArray marker = "\"id\":" + QByteArray::number(requestId) + ",";
    ToolCall newest;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15'000) {
        for (const QList<QVariant>& batch : std::as_const(*m_calls)) {
            for (const ToolCall& call : batch.at(0).value<ToolCallList>()) {
                if (call.request.contains(marker))
                    newest = call;
            }
        }
        if (newest.isFinished())
            return newest;
        m_calls->wait(200);
    }
    return newest;
}

json TestGrants::resultOf(const RawHttpResponse& response)
{
    // A call that waited answers as an event stream (keep-alives while it waited), else as JSON.
    const QList<QByteArray> events = response.events();
    const json message
        = events.isEmpty() ? bodyJson(response) : json::parse(events.constLast().toStdString(), nullptr, false);
    return message.is_object() ? message.value("result", json()) : json();
}

PermissionEntryList TestGrants::listGrants()
{
    QSignalSpy listed(m_backend.get(), &OperatorInterface::grantsListed);
    m_backend->listGrants();
    if (!listed.wait(15'000))
        return {};
    return listed.takeFirst().at(0).value<PermissionEntryList>();
}

void TestGrants::scopedGrantsLetThroughOnlyWhatTheyCover()
{
    QSignalSpy pending(m_backend.get(), &OperatorInterface::interactionPending);
    const QByteArray alpha = openSession(m_port, "2025-06-18", "alpha");
    const QByteArray beta = openSession(m_port, "2025-06-18", "beta");

    // Always allow for this client and these arguments.
    auto client = callEcho(alpha, 1, "one");
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::alwaysAllow(false, false)));
    QVERIFY(succeeded(client->read()));
    const ToolCall granted = finishedCall(1);
    QCOMPARE(granted.status, CallStatus::Ok);
    const json grantedDecision = json::parse(granted.decision.toStdString(), nullptr, false);
    QVERIFY2(grantedDecision.is_object(), granted.decision.constData());
    QCOMPARE(grantedDecision.value("what", ""), "allow_always");
    QCOMPARE(grantedDecision.value("via", ""), "answer");
    QCOMPARE(QString::fromStdString(grantedDecision.value("by", "")), InteractionBroker::consoleUser());
    QVERIFY(grantedDecision.value("atMs", qint64(0)) >= granted.startedAtMs);
    QVERIFY(
        grantedDecision.at("scope") == (json{{"everyClient", false}, {"client", "alpha"}, {"anyArguments", false}}));
    const std::string grantId = grantedDecision.value("grant", "");
    QVERIFY(!grantId.empty());

    // The same client with the same arguments runs without asking, and says which grant let it.
    client = callEcho(alpha, 2, "one");
    QVERIFY(succeeded(client->read()));
    QVERIFY(pending.isEmpty());
    const json byGrant = json::parse(finishedCall(2).decision.toStdString(), nullptr, false);
    QCOMPARE(byGrant.value("via", ""), "grant");
    QCOMPARE(byGrant.value("grant", ""), grantId);
    QCOMPARE(byGrant.value("what", ""), "allow_always");

    // Other arguments ask; denied with a reason, which the call records.
    client = callEcho(alpha, 3, "two");
    QVERIFY(answerNextQuestion(
        pending, InteractionAnswer::decide(InteractionAnswer::Decision::Deny, QStringLiteral("not two"))));
    QVERIFY(refused(client->read()));
    const ToolCall denied = finishedCall(3);
    QCOMPARE(denied.status, CallStatus::Denied);
    const json deniedDecision = json::parse(denied.decision.toStdString(), nullptr, false);
    QCOMPARE(deniedDecision.value("what", ""), "deny");
    QCOMPARE(deniedDecision.value("reason", ""), "not two");
    QVERIFY(!deniedDecision.contains("scope"));

    // Another client with the same arguments asks: the grant is alpha's. Allowed once.
    client = callEcho(beta, 4, "one");
    QString asked;
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce), &asked));
    QCOMPARE(asked, QStringLiteral("beta"));
    QVERIFY(succeeded(client->read()));
    QCOMPARE(json::parse(finishedCall(4).decision.toStdString()).value("what", ""), "allow_once");

    // Every client, any arguments: beta's next call with anything runs unasked.
    client = callEcho(beta, 5, "five");
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::alwaysAllow(true, true)));
    QVERIFY(succeeded(client->read()));
    client = callEcho(beta, 6, "six");
    QVERIFY(succeeded(client->read()));
    QVERIFY(pending.isEmpty());
    const json widest = json::parse(finishedCall(6).decision.toStdString());
    QVERIFY(widest.at("scope") == (json{{"everyClient", true}, {"anyArguments", true}}));

    // The Permissions list: the configuration's rules (no id), then both grants with who and when.
    const PermissionEntryList entries = listGrants();
    QStringList rules;
    QList<PermissionEntry> grants;
    for (const PermissionEntry& entry : entries) {
        if (entry.source == PermissionEntry::Source::Configuration) {
            QVERIFY(entry.id.isEmpty());
            QVERIFY(!entry.isRevocable());
            rules << entry.subject + QLatin1Char('=') + entry.permission;
        } else {
            grants << entry;
        }
    }
    QVERIFY2(rules.contains(QStringLiteral("echo=ask")) && rules.contains(QStringLiteral("git_push=deny")),
        qPrintable(rules.join(QLatin1Char(' '))));
    QCOMPARE(grants.size(), 2);
    for (const PermissionEntry& grant : std::as_const(grants)) {
        QCOMPARE(grant.source, PermissionEntry::Source::Always);
        QCOMPARE(grant.subject, QStringLiteral("echo"));
        QCOMPARE(grant.grantedBy, InteractionBroker::consoleUser());
        QVERIFY(grant.grantedAtMs > 0);
        QVERIFY(grant.isRevocable());
    }
    const auto narrow = std::find_if(grants.cbegin(), grants.cend(),
        [&grantId](const PermissionEntry& grant) { return grant.id == QString::fromStdString(grantId); });
    QVERIFY(narrow != grants.cend());
    QCOMPARE(narrow->clientName, QStringLiteral("alpha"));
    QCOMPARE(narrow->arguments, QByteArray(R"({"message":"one"})"));
}

void TestGrants::revokedGrantAsksAgain()
{
    QSignalSpy pending(m_backend.get(), &OperatorInterface::interactionPending);
    QSignalSpy changed(m_backend.get(), &OperatorInterface::grantsChanged);
    const QByteArray session = openSession(m_port, "2025-06-18", "gamma");
    auto client = callEcho(session, 11, "x");
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::alwaysAllow(true, true)));
    QVERIFY(succeeded(client->read()));
    QVERIFY(changed.wait(15'000) || !changed.isEmpty());
    const QString grantId
        = QString::fromStdString(json::parse(finishedCall(11).decision.toStdString()).value("grant", ""));
    client = callEcho(session, 12, "y");
    QVERIFY(succeeded(client->read()));
    QVERIFY(pending.isEmpty());

    changed.clear();
    m_backend->revokeGrant(grantId);
    QVERIFY(changed.wait(15'000));
    for (const PermissionEntry& entry : changed.takeLast().at(0).value<PermissionEntryList>())
        QVERIFY(entry.id != grantId);

    // The next call asks again.
    client = callEcho(session, 13, "y");
    QVERIFY(pending.wait(15'000));
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce)));
    QVERIFY(succeeded(client->read()));
    QCOMPARE(json::parse(finishedCall(13).decision.toStdString()).value("via", ""), "answer");

    // Revoking it again is refused, saying why.
    QSignalSpy failed(m_backend.get(), &OperatorInterface::commandFailed);
    m_backend->revokeGrant(grantId);
    QVERIFY(failed.wait(15'000));
    QCOMPARE(failed.takeFirst().at(0).toString(), QStringLiteral("revokeGrant"));
}

void TestGrants::sessionGrantIsListedAndRevocable()
{
    QSignalSpy pending(m_backend.get(), &OperatorInterface::interactionPending);
    const QByteArray session = openSession(m_port, "2025-06-18", "delta");
    auto client = callEcho(session, 21, "s");
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::decide(InteractionAnswer::Decision::AllowForSession)));
    QVERIFY(succeeded(client->read()));
    const json decision = json::parse(finishedCall(21).decision.toStdString());
    QCOMPARE(decision.value("what", ""), "allow_session");
    QCOMPARE(decision.at("scope").value("session", ""), session.toStdString());

    PermissionEntry grant;
    for (const PermissionEntry& entry : listGrants()) {
        if (entry.source == PermissionEntry::Source::Session)
            grant = entry;
    }
    QCOMPARE(grant.sessionId, QString::fromLatin1(session));
    QCOMPARE(grant.clientName, QStringLiteral("delta"));
    QVERIFY(grant.isRevocable());

    QSignalSpy changed(m_backend.get(), &OperatorInterface::grantsChanged);
    m_backend->revokeGrant(grant.id);
    QVERIFY(changed.wait(15'000));
    client = callEcho(session, 22, "s");
    QVERIFY(pending.wait(15'000)); // asks again in the same session
    QVERIFY(answerNextQuestion(pending, InteractionAnswer::decide(InteractionAnswer::Decision::Deny)));
    QVERIFY(refused(client->read()));
}

QTEST_GUILESS_MAIN(TestGrants)
#include "tst_grants.moc"
