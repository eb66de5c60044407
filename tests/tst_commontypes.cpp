// The common library's value types and their JSON form: every type survives the round trip, a
// document that is not what the program writes is refused with a reason (never an exception), and
// text forms of enums read back to the same value.

#include "backendstates.h"
#include "clientanswer.h"
#include "pendinginteraction.h"
#include "renderhint.h"
#include "toolcall.h"
#include "toolroute.h"

#include "jsontestsupport.h"

#include <QTest>

using nlohmann::json;

class TestCommonTypes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void routesReadBackTheirText_data();
    void routesReadBackTheirText();
    void renderHintsReadBack();
    void statesSurviveTheRoundTrip();
    void malformedStatesAreRefusedWithAReason_data();
    void malformedStatesAreRefusedWithAReason();
    void declinedAnswersFollowTheWidget();
    void pendingInteractionKeepsTypedRouteAndRender();
    void aWaitingQuestionSaysSoOnlyWhenLive();
    void callsSurviveTheRoundTrip();
    void answersSurviveTheRoundTrip();
};

void TestCommonTypes::routesReadBackTheirText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("owner");
    QTest::newRow("builtin") << "builtin" << int(RouteKind::Builtin) << "";
    QTest::newRow("client") << "client" << int(RouteKind::Client) << "";
    QTest::newRow("git") << "git" << int(RouteKind::Git) << "";
    QTest::newRow("command") << "command" << int(RouteKind::Command) << "";
    QTest::newRow("adapter") << "adapter:github" << int(RouteKind::Adapter) << "github";
    QTest::newRow("sink") << "sink:slack" << int(RouteKind::Sink) << "slack";
    QTest::newRow("unknown") << "unknown" << int(RouteKind::Unknown) << "";
    // A route written by a later version keeps its text.
    QTest::newRow("later") << "teleport:mars" << int(RouteKind::Unknown) << "teleport:mars";
}

void TestCommonTypes::routesReadBackTheirText()
{
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(QString, owner);
    const ToolRoute route = ToolRoute::fromString(text);
    QCOMPARE(int(route.kind), kind);
    QCOMPARE(route.owner, owner);
    QCOMPARE(route.toString(), text);
}

void TestCommonTypes::renderHintsReadBack()
{
    for (RenderHint hint :
        {RenderHint::Approval, RenderHint::Connect, RenderHint::Confirm, RenderHint::Choice, RenderHint::Form})
        QCOMPARE(renderHintFromName(renderHintName(hint)), std::optional(hint));
    QVERIFY(!renderHintFromName(QStringLiteral("slider")));
    QCOMPARE(interactionOutcomeName(InteractionOutcome::Timeout), QStringLiteral("timeout"));
}

void TestCommonTypes::statesSurviveTheRoundTrip()
{
    QString problem;
    BreakerState breaker{QStringLiteral("github"), BreakerPhase::HalfOpen, 3, 5, 1700000000000, 1700000030000, true,
        QStringLiteral("503 from upstream"), QStringLiteral("ada"), QString()};
    QCOMPARE(BreakerState::fromJson(breaker.toJson(), &problem), std::optional(breaker));
    json withoutForcedBy = breaker.toJson(); // written before the operator's name was kept
    withoutForcedBy.erase("forcedBy");
    QCOMPARE(BreakerState::fromJson(withoutForcedBy, &problem)->forcedBy, QString());
    AdapterStatus adapter;
    adapter.name = QStringLiteral("filesystem");
    adapter.endpoint = QStringLiteral("http://mcp-filesystem:8080");
    adapter.connection = AdapterConnection::Failing;
    adapter.readOnly = true;
    adapter.disabledByOperator = true;
    adapter.toolCount = 12;
    adapter.changedAtMs = 1700000000000;
    adapter.lastError = QStringLiteral("connection refused");
    adapter.lastErrorAtMs = 1700000000001;
    adapter.lastSuccessAtMs = 1690000000000;
    adapter.calls = 40;
    adapter.rejectedCalls = 7;
    adapter.failures = 5;
    adapter.authenticationFailures = 2;
    adapter.latencyP50Us = 1500;
    adapter.latencyP99Us = 90000;
    adapter.transitions = {{QStringLiteral("filesystem"), BreakerPhase::Closed, BreakerPhase::Open,
                               QStringLiteral("5 consecutive failures"), 1700000000000, 41},
        {QStringLiteral("filesystem"), BreakerPhase::Open, BreakerPhase::HalfOpen,
            QStringLiteral("recovery timeout passed"), 1700000030000, 0}};
    QCOMPARE(AdapterStatus::fromJson(adapter.toJson(), &problem), std::optional(adapter));
    json tooManyTransitions = adapter.toJson();
    for (int i = 0; i < AdapterStatus::MaxTransitions; ++i)
        tooManyTransitions["transitions"].push_back(adapter.transitions.first().toJson());
    QVERIFY(!AdapterStatus::fromJson(tooManyTransitions, &problem));
    QVERIFY2(problem.contains(QStringLiteral("more than 50 transitions")), qPrintable(problem));
    json unknownPhase = adapter.toJson();
    unknownPhase["transitions"][0]["to"] = "ajar";
    QVERIFY(!AdapterStatus::fromJson(unknownPhase, &problem));
    QVERIFY2(problem.contains(QStringLiteral("unknown phase \"ajar\"")), qPrintable(problem));
    problem.clear();
    RepositoryState repository;
    repository.path = QStringLiteral("/srv/r");
    repository.branch = QStringLiteral("main");
    repository.upstream = QStringLiteral("origin/main");
    repository.ahead = 1;
    repository.behind = 2;
    repository.staged = 3;
    repository.unstaged = 4;
    repository.untracked = 5;
    repository.headCommit = QStringLiteral("abc123");
    repository.headSummary = QStringLiteral("Fix");
    repository.refreshedAtMs = 1700000000000;
    repository.files = {RepositoryFile{QStringLiteral("src/a.cpp"), QLatin1Char('M'), QLatin1Char(' ')},
        RepositoryFile{QStringLiteral("new/"), QLatin1Char('?'), QLatin1Char('?')}};
    repository.filesTruncated = true;
    repository.commits = {CommitSummary{
        QStringLiteral("abc123"), QStringLiteral("Fix"), QStringLiteral("A U Thor <a@example.com>"), 1700000000000}};
    repository.callIds = {7, 9};
    repository.branches = {QStringLiteral("main"), QStringLiteral("topic")};
    repository.branchesTruncated = true;
    QCOMPARE(RepositoryState::fromJson(repository.toJson(), &problem), std::optional(repository));
    json withoutBranches = repository.toJson(); // a state written before branches were listed
    withoutBranches.erase("branches");
    withoutBranches.erase("branchesTruncated");
    QVERIFY2(RepositoryState::fromJson(withoutBranches, &problem), qPrintable(problem));
    QVERIFY(RepositoryState::fromJson(withoutBranches, &problem)->branches.isEmpty());
    FileDiff diff{QStringLiteral("/srv/r"), QStringLiteral("src/a.cpp"), QStringLiteral("+staged\n"),
        QStringLiteral("-unstaged\n"), true, QString()};
    QCOMPARE(FileDiff::fromJson(diff.toJson(), &problem), std::optional(diff));
    TransferProgress transfer{QStringLiteral("t-1"), 42, QStringLiteral("clone"), QStringLiteral("https://x/r.git"), 10,
        100, 4096, false, QString()};
    QCOMPARE(TransferProgress::fromJson(transfer.toJson(), &problem), std::optional(transfer));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestCommonTypes::malformedStatesAreRefusedWithAReason_data()
{
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("reason");
    const json good
        = BreakerState{QStringLiteral("a"), BreakerPhase::Open, 1, 5, 0, 0, false, QString(), QString(), QString()}
              .toJson();
    QTest::newRow("not an object") << QByteArray("[1,2]") << "is not an object";
    json phase = good;
    phase["phase"] = "ajar";
    QTest::newRow("unknown phase") << QByteArray::fromStdString(phase.dump()) << "unknown phase";
    json extra = good;
    extra["surprise"] = 1;
    QTest::newRow("unknown field") << QByteArray::fromStdString(extra.dump()) << "unknown field";
    json huge = good;
    huge["consecutiveFailures"] = 1LL << 40;
    QTest::newRow("out of range") << QByteArray::fromStdString(huge.dump()) << "out of range";
    json wrongType = good;
    wrongType["forcedOpen"] = "yes";
    QTest::newRow("wrong type") << QByteArray::fromStdString(wrongType.dump()) << "forcedOpen";
    json missing = good;
    missing.erase("adapter");
    QTest::newRow("missing") << QByteArray::fromStdString(missing.dump()) << "adapter";
}

void TestCommonTypes::malformedStatesAreRefusedWithAReason()
{
    QFETCH(QByteArray, document);
    QFETCH(QString, reason);
    QString problem;
    QVERIFY(!BreakerState::fromJson(json::parse(document.toStdString()), &problem));
    QVERIFY2(problem.contains(reason), qPrintable(problem));
}

void TestCommonTypes::declinedAnswersFollowTheWidget()
{
    QCOMPARE_JSON(ClientAnswer::declined(RenderHint::Choice), json::parse(R"({"choice":null,"reason":"declined"})"));
    QCOMPARE_JSON(ClientAnswer::declined(RenderHint::Form), json::parse(R"({"submitted":false,"reason":"declined"})"));
    QCOMPARE_JSON(ClientAnswer::declined(RenderHint::Confirm), json::parse(R"({"confirmed":false})"));
    QCOMPARE_JSON(
        ClientAnswer::declined(RenderHint::Connect), json::parse(R"({"connected":false,"reason":"declined"})"));
}

void TestCommonTypes::pendingInteractionKeepsTypedRouteAndRender()
{
    PendingInteraction interaction;
    interaction.id = QStringLiteral("ia-1");
    interaction.key = QStringLiteral("k");
    interaction.tool = QStringLiteral("github.create_issue");
    interaction.route = ToolRoute::adapter(QStringLiteral("github"));
    interaction.render = RenderHint::Form;
    interaction.arguments = R"({"title":"x"})";
    interaction.renderSpec = R"({"render":"form"})";
    PendingInteraction read;
    QString problem;
    QVERIFY2(PendingInteraction::fromJson(interaction.toJson(), QStringLiteral("pending[0]"), &read, &problem),
        qPrintable(problem));
    QCOMPARE(read.route, interaction.route);
    QCOMPARE(read.render, RenderHint::Form);

    json unknownRender = interaction.toJson();
    unknownRender["render"] = "slider";
    QVERIFY(!PendingInteraction::fromJson(unknownRender, QStringLiteral("pending[0]"), &read, &problem));
    QVERIFY2(problem.contains(QStringLiteral("unknown render")), qPrintable(problem));
}

// The operator API sends a question in its toJson() form: an attached window must see that a call
// waits for the answer, and until when, as the in-process window does; a state file read back must
// not (no call survives a restart, and another process's call is not this one's).
void TestCommonTypes::aWaitingQuestionSaysSoOnlyWhenLive()
{
    PendingInteraction interaction;
    interaction.id = QStringLiteral("ia-2");
    interaction.key = QStringLiteral("k");
    interaction.tool = QStringLiteral("echo");
    interaction.arguments = "{}";
    interaction.renderSpec = "{}";
    interaction.waiting = true;
    interaction.deadlineMs = 1'790'000'123'456;
    PendingInteraction read;
    QString problem;
    QVERIFY2(PendingInteraction::fromJson(
                 interaction.toJson(), QStringLiteral("question"), &read, &problem, PendingInteraction::Source::Live),
        qPrintable(problem));
    QVERIFY(read.waiting);
    QCOMPARE(read.deadlineMs, interaction.deadlineMs);
    QVERIFY2(PendingInteraction::fromJson(interaction.toJson(), QStringLiteral("pending[0]"), &read, &problem),
        qPrintable(problem));
    QVERIFY(!read.waiting);
    QCOMPARE(read.deadlineMs, 0);
    // A parked question (nothing waits) reads as such either way, as older records without the keys do.
    interaction.waiting = false;
    QVERIFY(!interaction.toJson().contains("waiting"));
    QVERIFY(PendingInteraction::fromJson(
        interaction.toJson(), QStringLiteral("question"), &read, &problem, PendingInteraction::Source::Live));
    QVERIFY(!read.waiting);
    QCOMPARE(read.deadlineMs, 0);
}

void TestCommonTypes::callsSurviveTheRoundTrip()
{
    ToolCall call;
    call.id = 65'537;
    call.sessionId = QStringLiteral("s-1");
    call.clientName = QStringLiteral("claude-code");
    call.clientVersion = QStringLiteral("1.0.100");
    call.tool = QStringLiteral("github.create_issue");
    call.route = ToolRoute::adapter(QStringLiteral("github"));
    call.request = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"github.create_issue"}})";
    call.response = R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})";
    call.details = R"({"exitStatus":3,"stderr":"no such file\n"})";
    call.decision = R"({"by":"ada","answer":"deny"})";
    call.replayOf = 65'000;
    call.timeline = R"([{"atMs":1,"method":"notifications/progress","params":{}}])";
    call.error = QStringLiteral("Tool failed: \u00e9t\u00e9");
    call.startedAtMs = 1'700'000'000'123;
    call.durationUs = 4'567;
    call.waitedUs = 4'000;
    call.status = CallStatus::Error;
    QString problem;
    const auto read = ToolCall::fromJson(call.toJson(), &problem);
    QVERIFY2(read, qPrintable(problem));
    QCOMPARE(read->id, call.id);
    QCOMPARE(read->route, call.route);
    QCOMPARE(read->request, call.request);
    QCOMPARE(read->response, call.response);
    QCOMPARE(read->details, call.details);
    QCOMPARE(read->decision, call.decision);
    QCOMPARE(read->replayOf, call.replayOf);
    QCOMPARE(read->timeline, call.timeline);
    QCOMPARE(read->error, call.error);
    QCOMPARE(read->status, CallStatus::Error);
    QCOMPARE(read->durationUs, call.durationUs);
    QCOMPARE(read->waitedUs, call.waitedUs);
    QCOMPARE(read->ranUs(), qint64(567));
    QCOMPARE(read->wholeRequestBytes, qint64(-1));

    // Every status travels by its name (a remote console, history) and comes back as itself.
    for (const CallStatus status : allCallStatuses()) {
        ToolCall each = call;
        each.status = status;
        const auto back = ToolCall::fromJson(each.toJson(), &problem);
        QVERIFY2(back, qPrintable(problem));
        QCOMPARE(back->status, status);
        QCOMPARE(QString::fromStdString(each.toJson()["status"].get<std::string>()), callStatusName(status));
    }
    // What counts as a failure (an error rate): not a person's "no", a parked or cancelled call.
    QList<CallStatus> failures;
    for (const CallStatus status : allCallStatuses()) {
        if (isFailureStatus(status))
            failures << status;
    }
    QCOMPARE(failures,
        (QList<CallStatus>{CallStatus::Denied, CallStatus::InvalidArguments, CallStatus::UnknownTool,
            CallStatus::TimedOut, CallStatus::BreakerOpen, CallStatus::UpstreamError, CallStatus::ToolError,
            CallStatus::Error}));
    QCOMPARE(callStatusName(CallStatus::BreakerOpen), QStringLiteral("breaker_open"));
    QCOMPARE(callStatusLabel(CallStatus::BreakerOpen), QStringLiteral("Breaker open"));
    QCOMPARE(callStatusName(CallStatus::InvalidArguments), QStringLiteral("invalid_arguments"));
    QCOMPARE(callStatusName(CallStatus::TimedOut), QStringLiteral("timed_out"));

    json unknownStatus = call.toJson();
    unknownStatus["status"] = "exploded";
    QVERIFY(!ToolCall::fromJson(unknownStatus, &problem));
    QVERIFY2(problem.contains(QStringLiteral("unknown status")), qPrintable(problem));
    // Records written before decision, replayOf and timeline existed still read.
    json older = call.toJson();
    older.erase("decision");
    older.erase("replayOf");
    older.erase("timeline");
    older.erase("waitedUs");
    const auto readOlder = ToolCall::fromJson(older, &problem);
    QVERIFY2(readOlder, qPrintable(problem));
    QVERIFY(readOlder->decision.isEmpty());
    QCOMPARE(readOlder->replayOf, qint64(0));
    QCOMPARE(readOlder->waitedUs, qint64(0));
    json missing = call.toJson();
    missing.erase("tool");
    QVERIFY(!ToolCall::fromJson(missing, &problem));
    QVERIFY2(problem.contains(QStringLiteral("tool")), qPrintable(problem));
}

void TestCommonTypes::answersSurviveTheRoundTrip()
{
    QString problem;
    const InteractionAnswer deny = InteractionAnswer::decide(InteractionAnswer::Decision::Deny, QStringLiteral("no"));
    const auto readDeny = InteractionAnswer::fromJson(deny.toJson(), &problem);
    QVERIFY2(readDeny, qPrintable(problem));
    QCOMPARE(readDeny->decision, InteractionAnswer::Decision::Deny);
    QCOMPARE(readDeny->reason, QStringLiteral("no"));
    const InteractionAnswer respond = InteractionAnswer::respond(ClientAnswer::chosen(QStringLiteral("main")));
    const auto readRespond = InteractionAnswer::fromJson(respond.toJson(), &problem);
    QVERIFY2(readRespond, qPrintable(problem));
    QCOMPARE(readRespond->decision, InteractionAnswer::Decision::Respond);
    QCOMPARE(readRespond->output, respond.output);
    json odd = deny.toJson();
    odd["decision"] = "maybe";
    QVERIFY(!InteractionAnswer::fromJson(odd, &problem));
    QVERIFY2(problem.contains(QStringLiteral("unknown decision")), qPrintable(problem));
}

QTEST_GUILESS_MAIN(TestCommonTypes)
#include "tst_commontypes.moc"
