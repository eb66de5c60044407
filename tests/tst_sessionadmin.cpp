// The operator's side of client sessions and the server's door, through a real Backend over HTTP:
// sessions are listed and followed as they are used, the operator ends one and its client's next
// request is answered 404 (MCP: the session was deleted), and requests refused for their token,
// Origin or Host become security events that never carry the server's token.

#include <QTest>

#include "core/backend.h"
#include "mcphttptestsupport.h"

#include <QSignalSpy>
#include <QTemporaryDir>

#include <memory>

class TestSessionAdmin : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void sessionsAreListedAndFollowed();
    void operatorEndsSessionAndClientGets404();
    void endingAnUnknownSessionFails();
    void refusedRequestsBecomeSecurityEvents();
    void bodiesRefusedUnreadBecomeSecurityEvents();

private:
    // The newest state of `id` among every sessionStatesChanged batch the spy holds.
    static std::optional<SessionState> newestState(const QSignalSpy& spy, const QString& id);
    // Waits until the newest state of `id` satisfies `test`.
    bool waitForState(QSignalSpy& spy, const QString& id, const std::function<bool(const SessionState&)>& test);

    QTemporaryDir m_stateDir;
    std::unique_ptr<Backend> m_backend;
    quint16 m_port = 0;
};

void TestSessionAdmin::init()
{
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = ServerFixture::token();
    options.stateDirectory = m_stateDir.path();
    m_backend = std::make_unique<Backend>(options);
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    m_port = quint16(m_backend->serverUrl().port());
}

void TestSessionAdmin::cleanup()
{
    m_backend.reset();
}

std::optional<SessionState> TestSessionAdmin::newestState(const QSignalSpy& spy, const QString& id)
{
    std::optional<SessionState> newest;
    for (const QList<QVariant>& arguments : spy) {
        const auto states = arguments.at(0).value<SessionStateList>();
        for (const SessionState& state : states) {
            if (state.id == id)
                newest = state;
        }
    }
    return newest;
}

bool TestSessionAdmin::waitForState(
    QSignalSpy& spy, const QString& id, const std::function<bool(const SessionState&)>& test)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15'000) {
        if (const auto state = newestState(spy, id); state && test(*state))
            return true;
        spy.wait(200);
    }
    return false;
}

void TestSessionAdmin::sessionsAreListedAndFollowed()
{
    QSignalSpy states(m_backend.get(), &OperatorInterface::sessionStatesChanged);
    const QByteArray id = openSession(m_port, "2025-06-18", "admin-test");
    QVERIFY(!id.isEmpty());
    const QString sessionId = QString::fromLatin1(id);
    QVERIFY(waitForState(states, sessionId, [](const SessionState& state) { return !state.ended; }));
    SessionState opened = *newestState(states, sessionId);
    QCOMPARE(opened.clientName, QStringLiteral("admin-test"));
    QCOMPARE(opened.clientVersion, QStringLiteral("1.0"));
    QCOMPARE(opened.protocolVersion, QStringLiteral("2025-06-18"));
    QCOMPARE(opened.calls, 0);
    QVERIFY(opened.startedAtMs > 0);

    RawHttpClient client(m_port);
    for (int i = 0; i < 2; ++i) {
        client.send(RawHttpClient::post(
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}})",
            sessionHeaders(m_port, id)));
        QCOMPARE(client.read().status, 200);
    }
    QVERIFY(waitForState(states, sessionId, [](const SessionState& state) { return state.calls == 2; }));
    QVERIFY(newestState(states, sessionId)->lastActivityMs >= opened.startedAtMs);

    QSignalSpy listed(m_backend.get(), &OperatorInterface::sessionsListed);
    m_backend->listSessions();
    QVERIFY(listed.wait(15'000));
    const auto sessions = listed.takeFirst().at(0).value<SessionStateList>();
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().id, sessionId);
    QCOMPARE(sessions.first().calls, 2);
    QVERIFY(!sessions.first().ended);
}

void TestSessionAdmin::operatorEndsSessionAndClientGets404()
{
    QSignalSpy states(m_backend.get(), &OperatorInterface::sessionStatesChanged);
    QSignalSpy failures(m_backend.get(), &OperatorInterface::commandFailed);
    const QByteArray id = openSession(m_port, "2025-06-18", "doomed-client");
    const QByteArray other = openSession(m_port, "2025-06-18", "bystander");
    const QString sessionId = QString::fromLatin1(id);
    QVERIFY(waitForState(states, sessionId, [](const SessionState& state) { return !state.ended; }));

    m_backend->endSession(sessionId);
    QVERIFY(waitForState(states, sessionId, [](const SessionState& state) { return state.ended; }));
    QVERIFY(failures.isEmpty());

    // The client's next request: the session is gone (404, as after its own DELETE).
    RawHttpClient client(m_port);
    client.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}})", sessionHeaders(m_port, id)));
    const RawHttpResponse gone = client.read();
    QCOMPARE(gone.status, 404);
    QCOMPARE(bodyJson(gone)["error"]["code"].get<int>(), -32001);

    // The other session is untouched, and the ended one is no longer listed.
    client.send(RawHttpClient::post(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}})", sessionHeaders(m_port, other)));
    QCOMPARE(client.read().status, 200);
    QSignalSpy listed(m_backend.get(), &OperatorInterface::sessionsListed);
    m_backend->listSessions();
    QVERIFY(listed.wait(15'000));
    const auto sessions = listed.takeFirst().at(0).value<SessionStateList>();
    QCOMPARE(sessions.size(), 1);
    QCOMPARE(sessions.first().id, QString::fromLatin1(other));

    // A new initialize works: the client may start again.
    QVERIFY(!openSession(m_port, "2025-06-18", "doomed-client").isEmpty());
}

void TestSessionAdmin::endingAnUnknownSessionFails()
{
    QSignalSpy failures(m_backend.get(), &OperatorInterface::commandFailed);
    m_backend->endSession(QStringLiteral("no-such-session"));
    QVERIFY(failures.wait(15'000));
    QCOMPARE(failures.first().at(0).toString(), QStringLiteral("endSession"));
    QVERIFY(failures.first().at(1).toString().contains(QStringLiteral("no-such-session")));
}

void TestSessionAdmin::refusedRequestsBecomeSecurityEvents()
{
    QSignalSpy recorded(m_backend.get(), &OperatorInterface::securityEventsRecorded);
    const QByteArray body = initializeBody();
    const Headers good = standardHeaders(m_port);
    const QList<Headers> refused{
        withHeader(good, "Authorization", QByteArray()),
        withHeader(good, "Authorization", "Bearer sb_guessed-token-000000000000"),
        withHeader(good, "Origin", "http://evil.example"),
        // A Host that spells the server's token: the event says [redacted] instead.
        withHeader(good, "Host", ServerFixture::token() + ".rebind.example"),
    };
    const QList<int> statuses{401, 401, 403, 403};
    for (qsizetype i = 0; i < refused.size(); ++i) {
        RawHttpClient client(m_port);
        client.send(RawHttpClient::post(body, refused.at(i)));
        QCOMPARE(client.read().status, statuses.at(i));
    }

    SecurityEventList events;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            events.clear();
            for (const QList<QVariant>& arguments : std::as_const(recorded))
                events += arguments.at(0).value<SecurityEventList>();
            return events.size() >= 4;
        }(),
        15'000);
    QCOMPARE(events.size(), 4);
    const QList<SecurityEventKind> kinds{SecurityEventKind::MissingToken, SecurityEventKind::WrongToken,
        SecurityEventKind::BadOrigin, SecurityEventKind::BadHost};
    for (qsizetype i = 0; i < events.size(); ++i) {
        const SecurityEvent& event = events.at(i);
        QCOMPARE(event.kind, kinds.at(i));
        QCOMPARE(event.remoteAddress, QStringLiteral("127.0.0.1"));
        QVERIFY(event.atMs > 0);
        QVERIFY2(!event.detail.contains(QString::fromLatin1(ServerFixture::token())), qPrintable(event.detail));
        QVERIFY2(!event.detail.contains(QStringLiteral("sb_guessed")), qPrintable(event.detail));
        QVERIFY2(event.detail.startsWith(QStringLiteral("/mcp: ")), qPrintable(event.detail));
    }
    QVERIFY(events.at(2).detail.contains(QStringLiteral("http://evil.example")));
    QVERIFY(events.at(3).detail.contains(QStringLiteral("[redacted].rebind.example")));

    // Requests with the right token, Host and Origin are no events: after a good session and one more
    // refusal, the refusal is all there is.
    recorded.clear();
    QVERIFY(!openSession(m_port).isEmpty());
    RawHttpClient client(m_port);
    client.send(RawHttpClient::post(body, withHeader(good, "Authorization", QByteArray())));
    QCOMPARE(client.read().status, 401);
    QTRY_VERIFY_WITH_TIMEOUT(!recorded.isEmpty(), 15'000);
    QCOMPARE(recorded.size(), 1);
    const auto last = recorded.first().at(0).value<SecurityEventList>();
    QCOMPARE(last.size(), 1);
    QCOMPARE(last.first().kind, SecurityEventKind::MissingToken);
}

void TestSessionAdmin::bodiesRefusedUnreadBecomeSecurityEvents()
{
    // A request without a valid token whose body is too large to read without one is refused from
    // its head (issue 23): the operator hears of it as of any other refusal at the door.
    QSignalSpy recorded(m_backend.get(), &OperatorInterface::securityEventsRecorded);
    const Headers good = standardHeaders(m_port);
    const QList<Headers> refused{
        withHeader(good, "Authorization", QByteArray()),
        withHeader(good, "Authorization", "Bearer " + ServerFixture::token() + "-but-longer"),
    };
    for (const Headers& headers : refused) {
        // The second one's target carries the token in its query: the event never says it.
        QByteArray head = headers == refused.first() ? QByteArray("POST /mcp HTTP/1.1\r\n")
                                                     : "POST /mcp?from=" + ServerFixture::token() + " HTTP/1.1\r\n";
        for (const auto& [name, value] : headers)
            head += name + ": " + value + "\r\n";
        RawHttpClient client(m_port);
        client.send(head + "Content-Length: 1048576\r\n\r\n");
        QCOMPARE(client.read().status, 401);
    }
    SecurityEventList events;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            events.clear();
            for (const QList<QVariant>& arguments : std::as_const(recorded))
                events += arguments.at(0).value<SecurityEventList>();
            return events.size() >= 2;
        }(),
        15'000);
    QCOMPARE(events.size(), 2);
    QCOMPARE(events.at(0).kind, SecurityEventKind::MissingToken);
    QCOMPARE(events.at(1).kind, SecurityEventKind::WrongToken);
    for (const SecurityEvent& event : std::as_const(events)) {
        QCOMPARE(event.remoteAddress, QStringLiteral("127.0.0.1"));
        QVERIFY2(event.detail.startsWith(QStringLiteral("/mcp: ")), qPrintable(event.detail));
        QVERIFY2(event.detail.contains(QStringLiteral("refused before its body")), qPrintable(event.detail));
        QVERIFY2(!event.detail.contains(QString::fromLatin1(ServerFixture::token())), qPrintable(event.detail));
    }
}

QTEST_GUILESS_MAIN(TestSessionAdmin)
#include "tst_sessionadmin.moc"
