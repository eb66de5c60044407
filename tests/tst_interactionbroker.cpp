// InteractionBroker: permissions, pauses (hold and park), answers delivered or stored, the two
// stores kept apart, the maximum wait, and the workspace state across a restart.

#include "config/switchboardconfig.h"
#include "interaction/clienttool.h"
#include "interaction/interactionbroker.h"
#include "store/workspacestatefile.h"
#include "tools/toolregistry.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;
using Verdict = InteractionBroker::Admission::Verdict;
using Decision = InteractionAnswer::Decision;

namespace {

RegisteredTool plainTool(const QString& name, bool readOnly, const QString& route = QStringLiteral("builtin"))
{
    RegisteredTool tool;
    tool.spec.name = name;
    tool.spec.annotations = json{{"readOnlyHint", readOnly}};
    tool.route = route;
    tool.handler = [](const std::shared_ptr<ToolCallContext>&) {};
    return tool;
}

InteractionBroker::CallOrigin origin(qint64 callId, const QString& session = QStringLiteral("s1"))
{
    return {callId, session, QStringLiteral("client"), QStringLiteral("1.0"), QByteArray()};
}

json connectArguments(const QString& provider = QStringLiteral("github"))
{
    return json{{"provider", provider.toStdString()}, {"kind", "api_key"}, {"reason", "to read issues"}};
}

} // namespace

class TestInteractionBroker : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void permissions_data();
    void permissions();
    void denyIsRefusedNamingTheRule();
    void holdDeliversTheAnswer();
    void approvalGrants();
    void parkStoresTheAnswerForTheIdenticalCall();
    void duplicateParkReusesTheQuestion();
    void outputsAreFifoPerKeyAndPeekDoesNotConsume();
    void outputsThatLookLikeApprovalsStayOutputs();
    void formFieldsKeepTheSchemaOrder();
    void approvalShowsArgumentsInTheClientsOrder();
    void droppedCallReattachesOnRetry();
    void withdrawRemovesTheQuestion();
    void maximumWaitEndsTheCall();
    void oauthForAnUnknownProviderIsRefusedBeforePausing();
    void malformedAnswersAreRejected();
    void batchesThatWouldPause();
    void restartKeepsPendingAndStoresButAnswersNothing();
    void stateFileIsOwnerOnlyAndAtomic();
    void unreadableStateIsSetAside();
    void answeredFromInsideItsOwnSignal_data();
    void answeredFromInsideItsOwnSignal();

private:
    InteractionBroker::Settings settings(const QString& stateName = QString()) const
    {
        InteractionBroker::Settings settings;
        if (!stateName.isEmpty())
            settings.statePath = m_dir.filePath(stateName);
        return settings;
    }

    QTemporaryDir m_dir;
    ToolRegistry m_registry;
    std::shared_ptr<const RegisteredTool> m_connect;
    RegisteredTool m_write = plainTool(QStringLiteral("write_file"), false);
};

void TestInteractionBroker::init()
{
    m_registry.add(ClientTool::requestConnection({QStringLiteral("github")}));
    m_connect = m_registry.find("request_connection");
}

void TestInteractionBroker::permissions_data()
{
    QTest::addColumn<QByteArray>("configYaml"); // unused marker; rules are set below per row
    QTest::addColumn<QString>("tool");
    QTest::addColumn<bool>("readOnly");
    QTest::addColumn<QString>("route");
    QTest::addColumn<QString>("defaultPermission");
    QTest::addColumn<QString>("toolRule");
    QTest::addColumn<QString>("adapterRule");
    QTest::addColumn<int>("expected");
    QTest::addColumn<QString>("ruleContains");
    const QString none;
    QTest::newRow("read-only allows") << QByteArray() << "read" << true << "builtin" << none << none << none
                                      << int(Permission::Allow) << "read-only tools are allowed";
    QTest::newRow("writing asks") << QByteArray() << "write" << false << "builtin" << none << none << none
                                  << int(Permission::Ask) << "not read-only ask";
    QTest::newRow("default wins over hint")
        << QByteArray() << "read" << true << "builtin"
        << "deny" << none << none << int(Permission::Deny) << "permissions.default: deny";
    QTest::newRow("tool rule wins") << QByteArray() << "write" << false << "adapter:gh"
                                    << "deny"
                                    << "allow"
                                    << "deny" << int(Permission::Allow) << "permissions.tools.write: allow";
    QTest::newRow("adapter rule") << QByteArray() << "write" << false << "adapter:gh"
                                  << "allow" << none << "deny" << int(Permission::Deny)
                                  << "permissions.adapters.gh: deny";
}

void TestInteractionBroker::permissions()
{
    QFETCH(QString, tool);
    QFETCH(bool, readOnly);
    QFETCH(QString, route);
    QFETCH(QString, defaultPermission);
    QFETCH(QString, toolRule);
    QFETCH(QString, adapterRule);
    QFETCH(int, expected);
    QFETCH(QString, ruleContains);
    SwitchboardConfig config;
    config.defaultPermission = defaultPermission;
    if (!toolRule.isEmpty())
        config.toolPermissions.insert(tool, toolRule);
    if (!adapterRule.isEmpty())
        config.adapterPermissions.insert(QStringLiteral("gh"), adapterRule);
    const PermissionPolicy policy(config, QStringLiteral("switchboard.yaml"));
    const auto verdict = policy.evaluate(plainTool(tool, readOnly, route));
    QCOMPARE(int(verdict.permission), expected);
    QVERIFY2(verdict.rule.contains(ruleContains), qPrintable(verdict.rule));
}

void TestInteractionBroker::denyIsRefusedNamingTheRule()
{
    SwitchboardConfig config;
    config.toolPermissions.insert(QStringLiteral("write_file"), QStringLiteral("deny"));
    auto s = settings();
    s.policy = PermissionPolicy(config, QStringLiteral("/etc/switchboard.yaml"));
    InteractionBroker broker(s, &m_registry);
    const auto admission = broker.admit(m_write, json::object(), origin(1));
    QCOMPARE(admission.verdict, Verdict::Refuse);
    QVERIFY(admission.result.isError);
    QVERIFY2(admission.result.firstText().contains(QStringLiteral("permissions.tools.write_file: deny in "
                                                                  "/etc/switchboard.yaml")),
        qPrintable(admission.result.firstText()));
    QVERIFY(broker.pending().isEmpty());
    QVERIFY(!broker.wouldPause(m_write, QStringLiteral("s1")));
}

void TestInteractionBroker::holdDeliversTheAnswer()
{
    InteractionBroker broker(settings(), &m_registry);
    QSignalSpy pendingSpy(&broker, &InteractionBroker::interactionPending);
    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    const json arguments = connectArguments();
    const auto admission = broker.admit(*m_connect, arguments, origin(7));
    QCOMPARE(admission.verdict, Verdict::Pause);
    QCOMPARE(admission.kind, InteractionKind::ClientTool);
    QCOMPARE(admission.mode, PauseMode::Hold);

    std::optional<InteractionAnswer> delivered;
    const QString id = broker.hold(*m_connect, arguments, admission, origin(7),
        {[&](const InteractionAnswer& answer) { delivered = answer; }, [] { QFAIL("no timeout expected"); }});
    QCOMPARE(pendingSpy.count(), 1);
    const PendingInteraction interaction = pendingSpy.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(interaction.id, id);
    QCOMPARE(interaction.callId, qint64(7));
    QCOMPARE(interaction.render, QStringLiteral("connect"));
    QVERIFY(interaction.waiting);
    const json spec = json::parse(interaction.renderSpec.toStdString());
    QVERIFY(spec.at("provider") == "github");
    QVERIFY(spec.at("oauthAvailable") == true);

    QString error;
    QVERIFY(broker.answer(id,
        InteractionAnswer::respond(ClientTool::connected(QStringLiteral("github"), QStringLiteral("octocat"))),
        &error));
    QVERIFY(delivered.has_value());
    QCOMPARE(json::parse(delivered->output.toStdString()).at("account").get<std::string>(), std::string("octocat"));
    QCOMPARE(resolvedSpy.count(), 1);
    QCOMPARE(resolvedSpy.at(0).at(1).toString(), QStringLiteral("answered"));
    QVERIFY(broker.pending().isEmpty());
    QVERIFY(broker.clientOutputs().isEmpty()); // delivered, not stored
    QVERIFY(
        !broker.answer(id, InteractionAnswer::respond(ClientTool::notConnected(QStringLiteral("declined"))), &error));
    QVERIFY(error.contains(QStringLiteral("no longer pending")));
}

void TestInteractionBroker::approvalGrants()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments{{"path", "a.txt"}};
    auto admission = broker.admit(m_write, arguments, origin(1));
    QCOMPARE(admission.verdict, Verdict::Pause);
    QCOMPARE(admission.kind, InteractionKind::Approval);
    QVERIFY(broker.wouldPause(m_write, QStringLiteral("s1")));
    int answers = 0;
    QString id
        = broker.hold(m_write, arguments, admission, origin(1), {[&](const InteractionAnswer&) { ++answers; }, {}});
    QString error;
    QVERIFY(!broker.answer(id, InteractionAnswer::respond(json::object()), &error)); // an approval takes allow or deny
    QVERIFY(broker.answer(id, InteractionAnswer::decide(Decision::AllowForSession), &error));
    QCOMPARE(answers, 1);
    QCOMPARE(broker.admit(m_write, arguments, origin(2)).verdict, Verdict::Run);
    QCOMPARE(broker.admit(m_write, arguments, origin(3, QStringLiteral("s2"))).verdict, Verdict::Pause);
    broker.forgetSession(QStringLiteral("s1"));
    QCOMPARE(broker.admit(m_write, arguments, origin(4)).verdict, Verdict::Pause);

    admission = broker.admit(m_write, arguments, origin(5));
    id = broker.hold(m_write, arguments, admission, origin(5), {[&](const InteractionAnswer&) { ++answers; }, {}});
    QVERIFY(broker.answer(id, InteractionAnswer::decide(Decision::AlwaysAllow), &error));
    QCOMPARE(broker.admit(m_write, arguments, origin(6, QStringLiteral("s9"))).verdict, Verdict::Run);
    QCOMPARE(broker.approvals().alwaysAllowed(), QStringList{QStringLiteral("write_file")});
    QVERIFY(broker.revokeAlwaysAllow(QStringLiteral("write_file")));
    QCOMPARE(broker.admit(m_write, arguments, origin(7, QStringLiteral("s9"))).verdict, Verdict::Pause);
}

void TestInteractionBroker::parkStoresTheAnswerForTheIdenticalCall()
{
    auto s = settings();
    s.clientModes.insert(QStringLiteral("runner"), PauseMode::Park);
    InteractionBroker broker(s, &m_registry);
    InteractionBroker::CallOrigin runner = origin(10);
    runner.clientName = QStringLiteral("runner");
    const json arguments = connectArguments();
    auto admission = broker.admit(*m_connect, arguments, runner);
    QCOMPARE(admission.verdict, Verdict::Pause);
    QCOMPARE(admission.mode, PauseMode::Park);
    bool duplicate = true;
    const QString id = broker.park(*m_connect, arguments, admission, runner, &duplicate);
    QVERIFY(!duplicate);
    QCOMPARE(broker.pending().size(), 1);
    QVERIFY(!broker.pending().front().waiting);
    QCOMPARE(broker.pending().front().mode, PauseMode::Park);

    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    QString error;
    const json output = ClientTool::connected(QStringLiteral("github"), QStringLiteral("octocat"));
    QVERIFY(broker.answer(id, InteractionAnswer::respond(output), &error));
    QCOMPARE(resolvedSpy.at(0).at(1).toString(), QStringLiteral("stored"));
    QCOMPARE(broker.clientOutputs().size(), 1);

    // A call with other arguments does not take it; the identical one (keys in another order) does.
    QCOMPARE(broker.admit(*m_connect, connectArguments(QStringLiteral("gitlab")), runner).verdict, Verdict::Pause);
    const json reordered = json::parse(R"({"reason":"to read issues","kind":"api_key","provider":"github"})");
    const auto retried = broker.admit(*m_connect, reordered, origin(11));
    QCOMPARE(retried.verdict, Verdict::Answer);
    QVERIFY(retried.result.structuredContent == output);
    QVERIFY(!retried.result.isError);
    QVERIFY(broker.clientOutputs().isEmpty());
}

void TestInteractionBroker::duplicateParkReusesTheQuestion()
{
    auto s = settings();
    s.defaultMode = PauseMode::Park;
    InteractionBroker broker(s, &m_registry);
    const json arguments = connectArguments();
    const auto admission = broker.admit(*m_connect, arguments, origin(1));
    bool duplicate = false;
    const QString first = broker.park(*m_connect, arguments, admission, origin(1), &duplicate);
    QSignalSpy pendingSpy(&broker, &InteractionBroker::interactionPending);
    QSignalSpy changedSpy(&broker, &InteractionBroker::interactionChanged);
    const QString second
        = broker.park(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(2)), origin(2), &duplicate);
    QVERIFY(duplicate);
    QCOMPARE(second, first);
    QCOMPARE(pendingSpy.count(), 0);
    QCOMPARE(changedSpy.count(), 1);
    const PendingInteraction interaction = broker.pending().front();
    QCOMPARE(interaction.callId, qint64(2)); // the widget links to the newest call
    QCOMPARE(interaction.earlierCallIds, QList<qint64>{1});
}

void TestInteractionBroker::outputsAreFifoPerKeyAndPeekDoesNotConsume()
{
    ClientOutputStore store;
    const QString key = InteractionBroker::keyFor(QStringLiteral("t"), json{{"a", 1}});
    QVERIFY(!store.peek(key));
    store.push(key, {"\"first\"", QStringLiteral("ia-1"), 1});
    store.push(key, {"\"second\"", QStringLiteral("ia-2"), 2});
    store.push(
        InteractionBroker::keyFor(QStringLiteral("t"), json{{"a", 2}}), {"\"other\"", QStringLiteral("ia-3"), 3});
    QCOMPARE(store.peek(key)->output, QByteArray("\"first\""));
    QCOMPARE(store.peek(key)->output, QByteArray("\"first\""));
    QCOMPARE(store.count(key), 2);
    QCOMPARE(store.take(key)->output, QByteArray("\"first\""));
    QCOMPARE(store.take(key)->output, QByteArray("\"second\""));
    QVERIFY(!store.take(key));
    QCOMPARE(store.size(), 1);

    // Two parked identical calls answered in order: each retry gets its own answer, in order.
    auto s = settings();
    s.defaultMode = PauseMode::Hold;
    InteractionBroker broker(s, &m_registry);
    const json arguments = connectArguments();
    QStringList ids;
    for (int call = 1; call <= 2; ++call) {
        const auto admission = broker.admit(*m_connect, arguments, origin(call));
        ids << broker.hold(*m_connect, arguments, admission, origin(call), {[](const InteractionAnswer&) {}, {}});
    }
    for (const QString& id : std::as_const(ids))
        broker.detach(id); // both connections dropped
    QCOMPARE(broker.pending().size(), 2);
    QString error;
    QVERIFY(broker.answer(ids[1],
        InteractionAnswer::respond(ClientTool::connected(QStringLiteral("github"), QStringLiteral("second"))), &error));
    QVERIFY(broker.answer(ids[0],
        InteractionAnswer::respond(ClientTool::connected(QStringLiteral("github"), QStringLiteral("first"))), &error));
    QCOMPARE(broker.admit(*m_connect, arguments, origin(3)).result.structuredContent.at("account").get<std::string>(),
        std::string("second"));
    QCOMPARE(broker.admit(*m_connect, arguments, origin(4)).result.structuredContent.at("account").get<std::string>(),
        std::string("first"));
    QCOMPARE(broker.admit(*m_connect, arguments, origin(5)).verdict, Verdict::Pause);
}

void TestInteractionBroker::outputsThatLookLikeApprovalsStayOutputs()
{
    ToolRegistry registry;
    ClientToolConfig config;
    config.spec = json{{"name", "ask_anything"}};
    config.render = QStringLiteral("form");
    config.responseSchema = json::object(); // any value: the person types it
    RegisteredTool tool;
    QString error;
    QVERIFY(ClientTool::fromConfig(config, &tool, &error));
    registry.add(tool);
    const auto askAnything = registry.find("ask_anything");
    auto s = settings();
    s.defaultMode = PauseMode::Park;
    InteractionBroker broker(s, &registry);
    for (const json& values : {json("allow"), json("deny"), json{{"approved", true}}}) {
        bool duplicate = false;
        const auto admission = broker.admit(*askAnything, json::object(), origin(1));
        QCOMPARE(admission.verdict, Verdict::Pause);
        const QString id = broker.park(*askAnything, json::object(), admission, origin(1), &duplicate);
        QVERIFY2(
            broker.answer(id, InteractionAnswer::respond(ClientTool::submitted(values)), &error), qPrintable(error));
        QCOMPARE(broker.approvals().decisionCount(), 0);
        QVERIFY(broker.approvals().alwaysAllowed().isEmpty());
        const auto retried = broker.admit(*askAnything, json::object(), origin(2));
        QCOMPARE(retried.verdict, Verdict::Answer);
        QVERIFY(retried.result.structuredContent.at("values") == values);
    }
}

void TestInteractionBroker::formFieldsKeepTheSchemaOrder()
{
    ClientToolConfig config;
    config.spec = json{{"name", "release_notes"}};
    config.render = QStringLiteral("form");
    config.responseSchema = nlohmann::ordered_json::parse(
        R"({"type": "object", "properties": {"version": {"type": "string"}, "highlights": {"type": "string"}}})");
    RegisteredTool tool;
    QString error;
    QVERIFY2(ClientTool::fromConfig(config, &tool, &error), qPrintable(error));
    InteractionBroker broker(settings(), &m_registry);
    const auto admission = broker.admit(tool, json::object(), origin(1));
    QCOMPARE(admission.verdict, Verdict::Pause);
    broker.hold(tool, json::object(), admission, origin(1), {[](const InteractionAnswer&) {}, {}});
    QCOMPARE(broker.pending().size(), 1);
    const QByteArray renderSpec = broker.pending().constFirst().renderSpec;
    QVERIFY2(renderSpec.indexOf("version") < renderSpec.indexOf("highlights"), renderSpec.constData());
}

void TestInteractionBroker::approvalShowsArgumentsInTheClientsOrder()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments{{"zeta", 1}, {"alpha", "two"}}; // sorted: alpha first
    InteractionBroker::CallOrigin from = origin(1);
    from.request = QByteArrayLiteral(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"zeta":1,"alpha":"two"}}})");
    broker.hold(
        m_write, arguments, broker.admit(m_write, arguments, from), from, {[](const InteractionAnswer&) {}, {}});
    QCOMPARE(broker.pending().size(), 1);
    const QByteArray shown = broker.pending().constFirst().arguments;
    QVERIFY2(shown.indexOf("zeta") >= 0 && shown.indexOf("zeta") < shown.indexOf("alpha"), shown.constData());
}

void TestInteractionBroker::droppedCallReattachesOnRetry()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments = connectArguments();
    const QString id = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(1)), origin(1),
        {[](const InteractionAnswer&) {}, {}});
    broker.detach(id);
    QVERIFY(!broker.pending().front().waiting);
    std::optional<InteractionAnswer> delivered;
    const QString again = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(2)), origin(2),
        {[&](const InteractionAnswer& answer) { delivered = answer; }, {}});
    QCOMPARE(again, id);
    QCOMPARE(broker.pending().size(), 1);
    QVERIFY(broker.pending().front().waiting);
    QCOMPARE(broker.pending().front().callId, qint64(2));
    QString error;
    QVERIFY(
        broker.answer(id, InteractionAnswer::respond(ClientTool::notConnected(QStringLiteral("declined"))), &error));
    QVERIFY(delivered.has_value());
}

void TestInteractionBroker::withdrawRemovesTheQuestion()
{
    InteractionBroker broker(settings(), &m_registry);
    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    const QString id = broker.hold(m_write, json::object(), broker.admit(m_write, json::object(), origin(1)), origin(1),
        {[](const InteractionAnswer&) { QFAIL("a withdrawn question delivers nothing"); }, {}});
    broker.withdraw(id, QStringLiteral("cancelled by the client"));
    QVERIFY(broker.pending().isEmpty());
    QCOMPARE(resolvedSpy.at(0).at(1).toString(), QStringLiteral("cancelled"));
    QString error;
    QVERIFY(!broker.answer(id, InteractionAnswer::decide(Decision::AllowOnce), &error));
    QCOMPARE(broker.approvals().decisionCount(), 0);
}

void TestInteractionBroker::maximumWaitEndsTheCall()
{
    auto s = settings();
    s.maxWaitMs = 50;
    InteractionBroker broker(s, &m_registry);
    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    bool timedOut = false;
    broker.hold(m_write, json::object(), broker.admit(m_write, json::object(), origin(1)), origin(1),
        {[](const InteractionAnswer&) {}, [&] { timedOut = true; }});
    QVERIFY(resolvedSpy.wait(10'000));
    QVERIFY(timedOut);
    QCOMPARE(resolvedSpy.at(0).at(1).toString(), QStringLiteral("timeout"));
    QVERIFY(broker.pending().isEmpty());

    const ToolResult result = m_connect->clientTool->timeoutResult(QStringLiteral("request_connection"), 600);
    QVERIFY(result.isError);
    QVERIFY(result.firstText().contains(QStringLiteral("No one answered")));
    QVERIFY(result.structuredContent == ClientTool::notConnected(QStringLiteral("timeout")));
}

void TestInteractionBroker::oauthForAnUnknownProviderIsRefusedBeforePausing()
{
    InteractionBroker broker(settings(), &m_registry);
    json arguments = connectArguments(QStringLiteral("gitlab"));
    arguments["kind"] = "oauth";
    const auto admission = broker.admit(*m_connect, arguments, origin(1));
    QCOMPARE(admission.verdict, Verdict::Refuse);
    QVERIFY(admission.result.firstText().contains(QStringLiteral("configured: github")));
    arguments["provider"] = "github";
    QCOMPARE(broker.admit(*m_connect, arguments, origin(2)).verdict, Verdict::Pause);
}

void TestInteractionBroker::malformedAnswersAreRejected()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments = connectArguments();
    const QString id = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(1)), origin(1),
        {[](const InteractionAnswer&) {}, {}});
    QString error;
    QVERIFY(!broker.answer(id, InteractionAnswer::respond(json{{"connected", "yes"}}), &error));
    QVERIFY(!broker.answer(id, InteractionAnswer::respond(json{{"connected", false}, {"reason", "bored"}}), &error));
    QVERIFY(!broker.answer(id, InteractionAnswer::decide(Decision::AllowOnce), &error));
    InteractionAnswer garbage;
    garbage.decision = Decision::Respond;
    garbage.output = "{not json";
    QVERIFY(!broker.answer(id, garbage, &error));
    QCOMPARE(broker.pending().size(), 1); // nothing lost
}

void TestInteractionBroker::batchesThatWouldPause()
{
    InteractionBroker broker(settings(), &m_registry);
    QVERIFY(broker.wouldPause(*m_connect, QStringLiteral("s1")));
    QVERIFY(broker.wouldPause(m_write, QStringLiteral("s1")));
    QVERIFY(!broker.wouldPause(plainTool(QStringLiteral("read"), true), QStringLiteral("s1")));
}

void TestInteractionBroker::restartKeepsPendingAndStoresButAnswersNothing()
{
    const QString state = QStringLiteral("restart.json");
    QString parkedId;
    QString heldId;
    {
        auto s = settings(state);
        InteractionBroker broker(s, &m_registry);
        QString warning;
        broker.load(&warning);
        QVERIFY(warning.isEmpty());
        const json arguments = connectArguments();
        bool duplicate = false;
        auto admission = broker.admit(*m_connect, arguments, origin(1));
        heldId = broker.hold(*m_connect, arguments, admission, origin(1), {[](const InteractionAnswer&) {}, {}});
        admission.mode = PauseMode::Park;
        parkedId = broker.park(
            m_write, json{{"path", "x"}}, broker.admit(m_write, json{{"path", "x"}}, origin(2)), origin(2), &duplicate);
        // An answered parked approval and an always-allow rule are stored too.
        const QString answered = broker.park(
            m_write, json{{"path", "y"}}, broker.admit(m_write, json{{"path", "y"}}, origin(3)), origin(3), &duplicate);
        QString error;
        QVERIFY(broker.answer(
            answered, InteractionAnswer::decide(Decision::Deny, QStringLiteral("not that file")), &error));
        broker.flush();
    } // the process ends with both questions pending

    InteractionBroker restarted(settings(state), &m_registry);
    QString warning;
    restarted.load(&warning);
    QVERIFY2(warning.isEmpty(), qPrintable(warning));
    const PendingInteractionList pending = restarted.pending();
    QCOMPARE(pending.size(), 2);
    QCOMPARE(pending[0].id, heldId);
    QCOMPARE(pending[1].id, parkedId);
    for (const PendingInteraction& interaction : pending)
        QVERIFY(!interaction.waiting); // no call survives a restart, and nothing was answered
    QCOMPARE(restarted.approvals().decisionCount(), 1);
    const auto denied = restarted.admit(m_write, json{{"path", "y"}}, origin(4));
    QCOMPARE(denied.verdict, Verdict::Refuse);
    QVERIFY(denied.result.firstText().contains(QStringLiteral("not that file")));
    // Answering a restored question stores the answer for the retried call.
    QString error;
    QVERIFY(restarted.answer(heldId,
        InteractionAnswer::respond(ClientTool::connected(QStringLiteral("github"), QStringLiteral("me"))), &error));
    QCOMPARE(restarted.admit(*m_connect, connectArguments(), origin(5)).verdict, Verdict::Answer);
}

void TestInteractionBroker::stateFileIsOwnerOnlyAndAtomic()
{
    const QString path = m_dir.filePath(QStringLiteral("mode.json"));
    QString error;
    QVERIFY(WorkspaceStateFile::write(path, "{\"version\":1}", &error));
    QCOMPARE(QFile::permissions(path),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
    // A write that cannot happen (the directory is a file) leaves the previous state as it was.
    QVERIFY(!WorkspaceStateFile::write(path + QStringLiteral("/child.json"), "{}", &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
    QByteArray contents;
    QVERIFY(WorkspaceStateFile::read(path, &contents, &error));
    QCOMPARE(contents, QByteArray("{\"version\":1}"));
}

void TestInteractionBroker::unreadableStateIsSetAside()
{
    const QString path = m_dir.filePath(QStringLiteral("broken.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{ half a file");
    file.close();
    InteractionBroker broker(settings(QStringLiteral("broken.json")), &m_registry);
    QString warning;
    broker.load(&warning);
    QVERIFY2(warning.contains(QStringLiteral("could not be read")), qPrintable(warning));
    QVERIFY(!QFile::exists(path));
    const QStringList aside = QDir(m_dir.path()).entryList({QStringLiteral("broken.json.unreadable-*")});
    QCOMPARE(aside.size(), 1);
    QVERIFY(broker.pending().isEmpty());
}

void TestInteractionBroker::answeredFromInsideItsOwnSignal_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("new held question") << QStringLiteral("hold");
    QTest::newRow("held call takes a parked question") << QStringLiteral("hold-idle");
    QTest::newRow("parked again") << QStringLiteral("park-idle");
    QTest::newRow("held call's connection dropped") << QStringLiteral("detach");
}

// A slot answers the question with the very PendingInteraction the signal handed it (a console
// that answers at once, or a test). The broker erases the entry while the signal is still being
// delivered: nothing it hands out or reads afterwards may point into it.
void TestInteractionBroker::answeredFromInsideItsOwnSignal()
{
    QFETCH(QString, path);
    InteractionBroker broker(settings(), &m_registry);
    const json arguments = connectArguments();
    const json output = ClientTool::connected(QStringLiteral("github"), QStringLiteral("octocat"));
    bool armed = false;
    int answered = 0;
    QStringList seenBySecondSlot;
    const auto answerNow = [&](const PendingInteraction& interaction) {
        if (!armed)
            return;
        armed = false;
        QString error;
        QVERIFY2(broker.answer(interaction.id, InteractionAnswer::respond(output), &error), qPrintable(error));
        ++answered;
    };
    connect(&broker, &InteractionBroker::interactionPending, &broker, answerNow);
    connect(&broker, &InteractionBroker::interactionChanged, &broker, answerNow);
    // A second slot on the same signals reads what it was handed after the first answered.
    const auto read = [&](const PendingInteraction& interaction) { seenBySecondSlot.append(interaction.id); };
    connect(&broker, &InteractionBroker::interactionPending, &broker, read);
    connect(&broker, &InteractionBroker::interactionChanged, &broker, read);

    InteractionBroker::Admission admission = broker.admit(*m_connect, arguments, origin(1));
    QCOMPARE(admission.verdict, Verdict::Pause);
    int delivered = 0;
    InteractionBroker::Waiter waiter;
    waiter.answered = [&](const InteractionAnswer&) { ++delivered; };
    QString id;
    if (path == QStringLiteral("hold")) {
        armed = true;
        id = broker.hold(*m_connect, arguments, admission, origin(1), waiter);
        QCOMPARE(delivered, 1);
    } else if (path == QStringLiteral("hold-idle") || path == QStringLiteral("park-idle")) {
        bool duplicate = false;
        const QString parked = broker.park(*m_connect, arguments, admission, origin(1), &duplicate);
        armed = true;
        if (path == QStringLiteral("hold-idle")) {
            id = broker.hold(*m_connect, arguments, admission, origin(2), waiter);
            QCOMPARE(delivered, 1);
        } else {
            id = broker.park(*m_connect, arguments, admission, origin(2), &duplicate);
            QVERIFY(duplicate);
            QCOMPARE(broker.clientOutputs().size(), 1); // no call waited: the answer is stored
        }
        QCOMPARE(id, parked);
    } else {
        id = broker.hold(*m_connect, arguments, admission, origin(1), waiter);
        armed = true;
        broker.detach(id);
        QCOMPARE(delivered, 0);
        QCOMPARE(broker.clientOutputs().size(), 1);
    }
    QCOMPARE(answered, 1);
    QVERIFY(id.startsWith(QStringLiteral("ia-")));
    QVERIFY(seenBySecondSlot.contains(id));
    QVERIFY(broker.pending().isEmpty());
}

QTEST_GUILESS_MAIN(TestInteractionBroker)
#include "tst_interactionbroker.moc"
