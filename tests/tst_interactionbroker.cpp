// InteractionBroker: permissions, pauses (hold and park), answers delivered or stored, the two
// stores kept apart, the maximum wait, and the workspace state across a restart.

#include "clientanswer.h"
#include "interaction/clienttool.h"
#include "interaction/clienttoolconfig.h"
#include "interaction/interactionbroker.h"
#include "store/workspacestatefile.h"
#include "store/workspacestatestore.h"

#include "jsontestsupport.h"
#include "tools/toolregistry.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <csignal>
#include <pthread.h>
#include <pwd.h>
#include <sys/resource.h>
#include <unistd.h>

using nlohmann::json;
using Verdict = InteractionBroker::Admission::Verdict;
using Decision = InteractionAnswer::Decision;

namespace {

RegisteredTool plainTool(const QString& name, bool readOnly, const QString& route = QStringLiteral("builtin"))
{
    RegisteredTool tool;
    tool.spec.name = name;
    tool.spec.annotations = json{{"readOnlyHint", readOnly}};
    tool.route = ToolRoute::fromString(route);
    tool.handler = [](const std::shared_ptr<ToolCallContext>&) {};
    return tool;
}

InteractionBroker::CallOrigin origin(
    qint64 callId, const QString& session = QStringLiteral("s1"), const QString& client = QStringLiteral("client"))
{
    return {callId, session, client, QStringLiteral("1.0"), QByteArray(), QString()};
}

void writeFile(const QString& path, const QByteArray& contents)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(contents), contents.size());
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

json connectArguments(const QString& provider = QStringLiteral("github"))
{
    return json{{"provider", provider.toStdString()}, {"kind", "api_key"}, {"reason", "to read issues"}};
}

// An InteractionState in memory that records what the broker hands it, record by record.
class RecordingState : public InteractionState
{
public:
    LoadResult load(Records* records, QString*) override
    {
        if (!initial)
            return LoadResult::Empty;
        *records = *initial;
        return LoadResult::Loaded;
    }
    QString setAside(QString*) override
    {
        setAsideCalls++;
        return QStringLiteral("(memory)");
    }
    void putQuestion(const QString& id, const QByteArray& record) override
    {
        log << QStringLiteral("put ") + id;
        questions[id] = json::parse(record.toStdString());
    }
    void removeQuestion(const QString& id) override
    {
        log << QStringLiteral("remove ") + id;
        questions.erase(id);
    }
    void putClientOutputs(const QByteArray& record) override { outputs = json::parse(record.toStdString()); }
    void putApprovals(const QByteArray& record) override { approvals = json::parse(record.toStdString()); }
    void putTask(const QString& id, const QByteArray& record) override
    {
        log << QStringLiteral("put task ") + id;
        tasks[id] = json::parse(record.toStdString());
    }
    void removeTask(const QString& id) override
    {
        log << QStringLiteral("remove task ") + id;
        tasks.erase(id);
    }
    void whenStored(std::function<void(bool stored)> done) override
    {
        QMetaObject::invokeMethod(
            this, [done = std::move(done)] { done(true); }, Qt::QueuedConnection);
    }
    bool flush(QString*) override { return true; }

    std::optional<Records> initial;
    std::map<QString, json> questions;
    std::map<QString, json> tasks;
    json outputs;
    json approvals;
    QStringList log;
    int setAsideCalls = 0;
};

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
    void grantScopesLetThroughWhatTheyCover();
    void scopedGrantsSurviveARestart();
    void olderAlwaysAllowFilesReadAsGrants();
    void storedDecisionsSayWhoDecided();
    void theConsoleUserIsNamedWithoutALoginEnvironment();
    void runnerQuestionsOfferNoSessionGrant();
    void parkStoresTheAnswerForTheIdenticalCall();
    void duplicateParkReusesTheQuestion();
    void outputsAreFifoPerKeyAndPeekDoesNotConsume();
    void outputsThatLookLikeApprovalsStayOutputs();
    void storedAnswersAreBoundedByCountAndBytes();
    void grantsAreBoundedAndAFullStoreRefusesSayingWhy();
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
    void mistypedStateIsSetAside_data();
    void mistypedStateIsSetAside();
    void stateBeyondTheLimitsIsSetAside_data();
    void stateBeyondTheLimitsIsSetAside();
    void setAsideNamesNeverCollide();
    void stateThatCannotBeSetAsideIsNeverOverwritten();
    void stateWritesAreRetriedAndReported();
    void stateIsCompactAndWritesAreCoalesced();
    void newQuestionsBeyondTheLimitAreRefused();
    void storedAnswersBelongToTheClientThatWasAsked();
    void keysAreHashesNotArguments();
    void latencyWithAThousandPendingQuestions();
    void stateIsHandedOverRecordByRecord();
    void stateIsRestoredFromRecords();
    void changesMadeElsewhereReachTheBroker();

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
    PermissionPolicy::Rules rules;
    rules.defaultPermission = defaultPermission;
    if (!toolRule.isEmpty())
        rules.tools.insert(tool, toolRule);
    if (!adapterRule.isEmpty())
        rules.adapters.insert(QStringLiteral("gh"), adapterRule);
    const PermissionPolicy policy(rules, QStringLiteral("switchboard.yaml"));
    const auto verdict = policy.evaluate(plainTool(tool, readOnly, route));
    QCOMPARE(int(verdict.permission), expected);
    QVERIFY2(verdict.rule.contains(ruleContains), qPrintable(verdict.rule));
}

void TestInteractionBroker::denyIsRefusedNamingTheRule()
{
    PermissionPolicy::Rules rules;
    rules.tools.insert(QStringLiteral("write_file"), QStringLiteral("deny"));
    auto s = settings();
    s.policy = PermissionPolicy(rules, QStringLiteral("/etc/switchboard.yaml"));
    InteractionBroker broker(s, &m_registry);
    const auto admission = broker.admit(m_write, json::object(), origin(1));
    QCOMPARE(admission.verdict, Verdict::Refuse);
    QVERIFY(admission.result.isError);
    QVERIFY2(admission.result.firstText().contains(QStringLiteral("permissions.tools.write_file: deny in "
                                                                  "/etc/switchboard.yaml")),
        qPrintable(admission.result.firstText()));
    QVERIFY(broker.pending().isEmpty());
    QVERIFY(!broker.wouldPause(m_write, QStringLiteral("s1"), QStringLiteral("client")));
    // The call records which rule decided, as it would record who answered.
    QCOMPARE_JSON(json::parse(admission.decision.toStdString()),
        (json{{"what", "deny"}, {"via", "rule"},
            {"rule", "permissions.tools.write_file: deny in /etc/switchboard.yaml"}}));

    rules.tools.insert(QStringLiteral("write_file"), QStringLiteral("allow"));
    s.policy = PermissionPolicy(rules, QStringLiteral("/etc/switchboard.yaml"));
    InteractionBroker allowing(s, &m_registry);
    const auto allowed = allowing.admit(m_write, json::object(), origin(2));
    QCOMPARE(allowed.verdict, Verdict::Run);
    QCOMPARE_JSON(json::parse(allowed.decision.toStdString()),
        (json{{"what", "allow"}, {"via", "rule"},
            {"rule", "permissions.tools.write_file: allow in /etc/switchboard.yaml"}}));
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
        {[&](const InteractionAnswer& answer, const QByteArray&) { delivered = answer; },
            [] { QFAIL("no timeout expected"); }});
    QCOMPARE(pendingSpy.count(), 1);
    const PendingInteraction interaction = pendingSpy.at(0).at(0).value<PendingInteraction>();
    QCOMPARE(interaction.id, id);
    QCOMPARE(interaction.callId, qint64(7));
    QCOMPARE(interaction.render, RenderHint::Connect);
    QVERIFY(interaction.waiting);
    const json spec = json::parse(interaction.renderSpec.toStdString());
    QVERIFY(spec.at("provider") == "github");
    QVERIFY(spec.at("oauthAvailable") == true);

    QString error;
    QVERIFY(broker.answer(id,
        InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat"))),
        &error));
    QVERIFY(delivered.has_value());
    QCOMPARE(json::parse(delivered->output.toStdString()).at("account").get<std::string>(), std::string("octocat"));
    QCOMPARE(resolvedSpy.count(), 1);
    QCOMPARE(interactionOutcomeName(resolvedSpy.at(0).at(1).value<InteractionOutcome>()), QStringLiteral("answered"));
    QVERIFY(broker.pending().isEmpty());
    QVERIFY(broker.clientOutputs().isEmpty()); // delivered, not stored
    QVERIFY(
        !broker.answer(id, InteractionAnswer::respond(ClientAnswer::notConnected(QStringLiteral("declined"))), &error));
    QVERIFY(error.contains(QStringLiteral("no longer pending")));
}

void TestInteractionBroker::approvalGrants()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments{{"path", "a.txt"}};
    auto admission = broker.admit(m_write, arguments, origin(1));
    QCOMPARE(admission.verdict, Verdict::Pause);
    QCOMPARE(admission.kind, InteractionKind::Approval);
    QVERIFY(broker.wouldPause(m_write, QStringLiteral("s1"), QStringLiteral("client")));
    int answers = 0;
    QString id = broker.hold(m_write, arguments, admission, origin(1),
        {[&](const InteractionAnswer&, const QByteArray&) { ++answers; }, {}});
    QString error;
    QVERIFY(!broker.answer(id, InteractionAnswer::respond(json::object()), &error)); // an approval takes allow or deny
    QVERIFY(broker.answer(id, InteractionAnswer::decide(Decision::AllowForSession), &error));
    QCOMPARE(answers, 1);
    QCOMPARE(broker.admit(m_write, arguments, origin(2)).verdict, Verdict::Run);
    QCOMPARE(broker.admit(m_write, arguments, origin(3, QStringLiteral("s2"))).verdict, Verdict::Pause);
    broker.forgetSession(QStringLiteral("s1"));
    QCOMPARE(broker.admit(m_write, arguments, origin(4)).verdict, Verdict::Pause);

    admission = broker.admit(m_write, arguments, origin(5));
    id = broker.hold(m_write, arguments, admission, origin(5),
        {[&](const InteractionAnswer&, const QByteArray&) { ++answers; }, {}});
    QVERIFY(broker.answer(id, InteractionAnswer::alwaysAllow(true, true), &error));
    QCOMPARE(broker.admit(m_write, arguments, origin(6, QStringLiteral("s9"))).verdict, Verdict::Run);
    QCOMPARE(broker.approvals().grants().size(), 1);
    QCOMPARE(broker.approvals().grants().front().tool, QStringLiteral("write_file"));
    QVERIFY(broker.revokeGrant(broker.approvals().grants().front().id));
    QCOMPARE(broker.admit(m_write, arguments, origin(7, QStringLiteral("s9"))).verdict, Verdict::Pause);
}

// "Always allow" with a scope: one client or every client, these arguments or any. Each answer and
// each call a grant lets through says so in its decision (ToolCall::decision), and revoking a grant
// makes the next call it covered ask again.
void TestInteractionBroker::grantScopesLetThroughWhatTheyCover()
{
    auto s = settings();
    s.operatorName = QStringLiteral("alice");
    InteractionBroker broker(s, &m_registry);
    const json a{{"path", "a.txt"}};
    const json b{{"path", "b.txt"}};
    const QString other = QStringLiteral("other-client");
    QByteArray decision;
    const auto grantWith
        = [&](const json& arguments, const InteractionBroker::CallOrigin& from, const InteractionAnswer& answer) {
              const auto admission = broker.admit(m_write, arguments, from);
              if (admission.verdict != Verdict::Pause)
                  return false;
              const QString id = broker.hold(m_write, arguments, admission, from,
                  {[&](const InteractionAnswer&, const QByteArray& recorded) { decision = recorded; }, {}});
              QString error;
              return broker.answer(id, answer, &error);
          };

    // This client, these arguments.
    QVERIFY(grantWith(a, origin(1), InteractionAnswer::alwaysAllow(false, false)));
    json recorded = json::parse(decision.toStdString());
    QCOMPARE(recorded.value("what", ""), "allow_always");
    QCOMPARE(recorded.value("via", ""), "answer");
    QCOMPARE(recorded.value("by", ""), "alice");
    QVERIFY(recorded.value("atMs", qint64(0)) > 0);
    QVERIFY(recorded.at("scope") == (json{{"everyClient", false}, {"client", "client"}, {"anyArguments", false}}));
    const std::string narrowId = recorded.value("grant", "");
    QCOMPARE(broker.approvals().grants().size(), 1);
    QCOMPARE(broker.approvals().grants().front().arguments, QByteArray(R"({"path":"a.txt"})"));

    auto admission = broker.admit(m_write, a, origin(2));
    QCOMPARE(admission.verdict, Verdict::Run);
    const json byGrant = json::parse(admission.decision.toStdString());
    QCOMPARE(byGrant.value("via", ""), "grant");
    QCOMPARE(byGrant.value("grant", ""), narrowId);
    QCOMPARE(byGrant.value("by", ""), "alice");
    QCOMPARE(broker.admit(m_write, b, origin(3)).verdict, Verdict::Pause); // other arguments
    QCOMPARE(broker.admit(m_write, a, origin(4, QStringLiteral("s2"), other)).verdict, Verdict::Pause); // other client
    // Without the arguments (a batch), only a grant for any arguments is known to cover a call.
    QVERIFY(broker.wouldPause(m_write, QStringLiteral("s1"), QStringLiteral("client")));
    QVERIFY(broker.admit(m_write, b, origin(5)).decision.isEmpty()); // asked: nothing decided yet
    QVERIFY(broker.pending().isEmpty()); // admitting asks nothing yet: hold() or park() does

    // Every client, these arguments: the other client's identical call runs; its other call asks.
    QVERIFY(grantWith(a, origin(6, QStringLiteral("s2"), other), InteractionAnswer::alwaysAllow(true, false)));
    QCOMPARE(broker.admit(m_write, a, origin(7, QStringLiteral("s3"), QStringLiteral("third"))).verdict, Verdict::Run);
    QCOMPARE(broker.admit(m_write, b, origin(8, QStringLiteral("s2"), other)).verdict, Verdict::Pause);

    // This client, any arguments: the narrowest grant that covers a call is the one it names.
    QVERIFY(grantWith(b, origin(9), InteractionAnswer::alwaysAllow(false, true)));
    const QString anyArgumentsId = QString::fromStdString(json::parse(decision.toStdString()).value("grant", ""));
    QCOMPARE(broker.admit(m_write, json{{"path", "c.txt"}}, origin(10)).verdict, Verdict::Run);
    QVERIFY(!broker.wouldPause(m_write, QStringLiteral("s1"), QStringLiteral("client")));
    QCOMPARE(json::parse(broker.admit(m_write, a, origin(11)).decision.toStdString()).value("grant", ""), narrowId);
    QCOMPARE(broker.admit(m_write, b, origin(12, QStringLiteral("s2"), other)).verdict, Verdict::Pause);

    // Listed for the Permissions view, with who and when; revoked, the call asks again.
    int listed = 0;
    for (const PermissionEntry& entry : broker.permissionEntries()) {
        if (entry.source != PermissionEntry::Source::Always)
            continue;
        ++listed;
        QCOMPARE(entry.grantedBy, QStringLiteral("alice"));
        QVERIFY(entry.grantedAtMs > 0);
        QCOMPARE(entry.subject, QStringLiteral("write_file"));
    }
    QCOMPARE(listed, 3);
    QSignalSpy stores(&broker, &InteractionBroker::storesChanged);
    QVERIFY(broker.revokeGrant(anyArgumentsId));
    QCOMPARE(stores.size(), 1);
    QVERIFY(!broker.revokeGrant(anyArgumentsId)); // gone already
    QCOMPARE(broker.admit(m_write, json{{"path", "c.txt"}}, origin(13)).verdict, Verdict::Pause);
    QCOMPARE(broker.admit(m_write, a, origin(14)).verdict, Verdict::Run); // the narrow grant stays
}

void TestInteractionBroker::scopedGrantsSurviveARestart()
{
    const QString state = QStringLiteral("scoped-grants.json");
    const json a{{"path", "a.txt"}};
    QList<ApprovalStore::Grant> before;
    {
        auto s = settings(state);
        s.operatorName = QStringLiteral("bob");
        InteractionBroker broker(s, &m_registry);
        QString warning;
        broker.load(&warning);
        QString error;
        for (const InteractionAnswer& answer :
            {InteractionAnswer::alwaysAllow(false, false), InteractionAnswer::alwaysAllow(true, true)}) {
            const auto admission = broker.admit(m_write, a, origin(1));
            const QString id = broker.hold(m_write, a, admission, origin(1), {});
            QVERIFY(broker.answer(id, answer, &error));
        }
        // A session grant ends with the process: it is not written.
        const auto admission
            = broker.admit(m_write, json{{"x", 1}}, origin(2, QStringLiteral("s1"), QStringLiteral("c2")));
        QCOMPARE(admission.verdict, Verdict::Run); // the widest covers it
        before = broker.approvals().grants();
        QVERIFY(broker.flush());
    }
    const json file = json::parse(readFile(m_dir.filePath(state)).toStdString());
    QVERIFY2(!file.at("approvals").contains("alwaysAllow"), file.dump().c_str());
    QCOMPARE(file.at("approvals").at("grants").size(), std::size_t(2));

    InteractionBroker restarted(settings(state), &m_registry);
    QString warning;
    QCOMPARE(restarted.load(&warning), InteractionBroker::LoadResult::Loaded);
    const QList<ApprovalStore::Grant> after = restarted.approvals().grants();
    QCOMPARE(after.size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(after.at(i).id, before.at(i).id);
        QCOMPARE(after.at(i).clientName, before.at(i).clientName);
        QCOMPARE(after.at(i).arguments, before.at(i).arguments);
        QCOMPARE(after.at(i).grantedBy, QStringLiteral("bob"));
        QCOMPARE(after.at(i).grantedAtMs, before.at(i).grantedAtMs);
    }
}

void TestInteractionBroker::olderAlwaysAllowFilesReadAsGrants()
{
    const QString state = QStringLiteral("older-always.json");
    writeFile(m_dir.filePath(state),
        R"({"version":2,"pending":[],"clientOutputs":[],"approvals":{"alwaysAllow":["write_file"],"decisions":[]}})");
    {
        InteractionBroker broker(settings(state), &m_registry);
        QString warning;
        QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::Loaded);
        QVERIFY2(warning.isEmpty(), qPrintable(warning));
        QCOMPARE(broker.approvals().grants().size(), 1);
        const ApprovalStore::Grant grant = broker.approvals().grants().front();
        QCOMPARE(grant.id, QStringLiteral("g-always-write_file"));
        QVERIFY(grant.clientName.isEmpty() && grant.arguments.isEmpty() && grant.grantedBy.isEmpty());
        // As before: every client, any arguments; the call names the grant, without a who or when.
        const auto admission
            = broker.admit(m_write, json{{"p", 1}}, origin(1, QStringLiteral("s9"), QStringLiteral("any")));
        QCOMPARE(admission.verdict, Verdict::Run);
        const json decision = json::parse(admission.decision.toStdString());
        QCOMPARE(decision.value("grant", ""), "g-always-write_file");
        QVERIFY(!decision.contains("by") && !decision.contains("atMs"));
        // Written in the new shape once anything changes; revoking it is what changes here.
        QVERIFY(broker.revokeGrant(QStringLiteral("g-always-write_file")));
        QVERIFY(broker.flush());
    }
    const json file = json::parse(readFile(m_dir.filePath(state)).toStdString());
    QVERIFY2(
        file.at("approvals") == (json{{"grants", json::array()}, {"decisions", json::array()}}), file.dump().c_str());
}

void TestInteractionBroker::storedDecisionsSayWhoDecided()
{
    // Answered while the call was parked: the retry that takes the answer records who gave it.
    auto s = settings();
    s.defaultMode = PauseMode::Park;
    s.operatorName = QStringLiteral("carol");
    InteractionBroker broker(s, &m_registry);
    const json a{{"path", "a.txt"}};
    bool duplicate = false;
    const QString id = broker.park(m_write, a, broker.admit(m_write, a, origin(1)), origin(1), &duplicate);
    QString error;
    QVERIFY(broker.answer(id, InteractionAnswer::decide(Decision::Deny, QStringLiteral("no")), &error));
    const auto retried = broker.admit(m_write, a, origin(2));
    QCOMPARE(retried.verdict, Verdict::Refuse);
    const json decision = json::parse(retried.decision.toStdString());
    QCOMPARE(decision.value("what", ""), "deny");
    QCOMPARE(decision.value("via", ""), "stored");
    QCOMPARE(decision.value("by", ""), "carol");
    QCOMPARE(decision.value("reason", ""), "no");
    QCOMPARE(decision.value("interaction", ""), id.toStdString());
}

void TestInteractionBroker::runnerQuestionsOfferNoSessionGrant()
{
    const QString state = QStringLiteral("runner-flag.json");
    const json arguments{{"path", "r.txt"}};
    QString id;
    {
        InteractionBroker broker(settings(state), &m_registry);
        QString warning;
        broker.load(&warning);
        // A one-shot runner's session (SessionHost::openLocalSession) ends with its process.
        const auto runner = origin(1, QStringLiteral("local-5f3a9c"));
        bool duplicate = false;
        id = broker.park(m_write, arguments, broker.admit(m_write, arguments, runner), runner, &duplicate);
        QVERIFY(broker.pending().front().fromRunner);
        QString error;
        QVERIFY(!broker.answer(id, InteractionAnswer::decide(Decision::AllowForSession), &error));
        QVERIFY2(error.contains(QStringLiteral("one-shot runner")), qPrintable(error));
        QCOMPARE(broker.pending().size(), 1); // refused: the question is still there
        broker.flush();
    }
    // The flag is kept in the state file, where the console reads a runner's question.
    InteractionBroker console(settings(state), &m_registry);
    QString warning;
    console.load(&warning);
    QVERIFY2(warning.isEmpty(), qPrintable(warning));
    QCOMPARE(console.pending().size(), 1);
    QVERIFY(console.pending().front().fromRunner);

    // The same question asked again by a client over HTTP (same client, tool and arguments) is that
    // session's: a session grant means something again.
    InteractionBroker::Waiter waiter{[](const InteractionAnswer&, const QByteArray&) {}, {}};
    QCOMPARE(console.hold(m_write, arguments, console.admit(m_write, arguments, origin(2)), origin(2), waiter), id);
    QVERIFY(!console.pending().front().fromRunner);
    QString error;
    QVERIFY2(console.answer(id, InteractionAnswer::decide(Decision::AllowForSession), &error), qPrintable(error));

    // A record written before the flag existed reads as not from a runner.
    PendingInteraction question;
    question.id = QStringLiteral("ia-old");
    question.key = QStringLiteral("k");
    question.tool = QStringLiteral("write_file");
    question.arguments = "{}";
    question.renderSpec = "{}";
    question.fromRunner = true;
    json old = question.toJson();
    old.erase("fromRunner");
    PendingInteraction read;
    QString problem;
    QVERIFY2(PendingInteraction::fromJson(old, QStringLiteral("pending[0]"), &read, &problem), qPrintable(problem));
    QVERIFY(!read.fromRunner);
    old["fromRunner"] = "yes";
    QVERIFY(!PendingInteraction::fromJson(old, QStringLiteral("pending[0]"), &read, &problem));
    QVERIFY2(problem.contains(QStringLiteral("fromRunner")), qPrintable(problem));
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
    const json output = ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat"));
    QVERIFY(broker.answer(id, InteractionAnswer::respond(output), &error));
    QCOMPARE(interactionOutcomeName(resolvedSpy.at(0).at(1).value<InteractionOutcome>()), QStringLiteral("stored"));
    QCOMPARE(broker.clientOutputs().size(), 1);

    // A call with other arguments does not take it; the identical one (keys in another order) of the
    // same client does, in another session too.
    QCOMPARE(broker.admit(*m_connect, connectArguments(QStringLiteral("gitlab")), runner).verdict, Verdict::Pause);
    const json reordered = json::parse(R"({"reason":"to read issues","kind":"api_key","provider":"github"})");
    InteractionBroker::CallOrigin retry = origin(11, QStringLiteral("s2"));
    retry.clientName = QStringLiteral("runner");
    const auto retried = broker.admit(*m_connect, reordered, retry);
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

void TestInteractionBroker::storedAnswersAreBoundedByCountAndBytes()
{
    // Answers nobody comes back for must not pile up without end: beyond the count the oldest
    // answer gives way, whichever key it is under.
    ClientOutputStore outputs;
    const auto keyOf = [](int n) {
        return InteractionBroker::keyFor(QStringLiteral("c"), QStringLiteral("t"), json{{"n", n}});
    };
    // Answered out of order: the entries' times, not the order of pushing, say which is oldest.
    QCOMPARE(outputs.push(keyOf(0), {"0", QStringLiteral("ia-0"), 5}), 0);
    for (int n = 1; n < ClientOutputStore::MaxEntries; ++n)
        QCOMPARE(outputs.push(keyOf(n), {"1", QStringLiteral("ia-%1").arg(n), 1000 + n}), 0);
    QCOMPARE(outputs.size(), ClientOutputStore::MaxEntries);
    QCOMPARE(outputs.push(keyOf(-1), {"2", QStringLiteral("ia-new"), 1}), 1);
    QCOMPARE(outputs.size(), ClientOutputStore::MaxEntries);
    // The new answer, stamped 1 ms, is itself the oldest and gives way at once.
    QVERIFY(!outputs.peek(keyOf(-1)));
    QVERIFY(outputs.peek(keyOf(0)));
    QCOMPARE(outputs.push(keyOf(-2), {"3", QStringLiteral("ia-newer"), 999'999}), 1);
    QVERIFY(!outputs.peek(keyOf(0))); // answered at 5 ms, now the oldest
    QVERIFY(outputs.peek(keyOf(-2)));

    // By bytes: a few large answers push the small ones out, and the count of bytes stays exact.
    ClientOutputStore large;
    const QByteArray big = '"' + QByteArray(ClientOutputStore::MaxBytes / 4, 'x') + '"';
    for (int n = 0; n < 10; ++n)
        large.push(keyOf(n), {big, QStringLiteral("ia-%1").arg(n), n});
    QVERIFY(large.bytes() <= ClientOutputStore::MaxBytes);
    QCOMPARE(large.size(), 3);
    QVERIFY(large.peek(keyOf(9)) && large.peek(keyOf(7)) && !large.peek(keyOf(6)));
    while (large.take(keyOf(7)) || large.take(keyOf(8)) || large.take(keyOf(9))) {}
    QCOMPARE(large.size(), 0);
    QCOMPARE(large.bytes(), qint64(0));

    // One-shot approval decisions, likewise by count, oldest first.
    ApprovalStore approvals;
    for (int n = 0; n < ApprovalStore::MaxDecisions; ++n)
        QCOMPARE(
            approvals.pushDecision(keyOf(n % 7), {true, QString(), QStringLiteral("ia-%1").arg(n), QString(), 0, 0}),
            0);
    QCOMPARE(
        approvals.pushDecision(keyOf(100), {false, QStringLiteral("no"), QStringLiteral("ia-last"), QString(), 0, 0}),
        1);
    QCOMPARE(approvals.decisionCount(), ApprovalStore::MaxDecisions);
    // ia-0 (key 0's first) gave way: key 0 now starts with ia-7.
    QCOMPARE(approvals.takeDecision(keyOf(0))->interactionId, QStringLiteral("ia-7"));
    QCOMPARE(approvals.takeDecision(keyOf(100))->interactionId, QStringLiteral("ia-last"));
    QCOMPARE(approvals.decisionCount(), ApprovalStore::MaxDecisions - 2);
}

void TestInteractionBroker::grantsAreBoundedAndAFullStoreRefusesSayingWhy()
{
    // Standing grants are bounded by count: the one beyond is refused with a reason, and nothing the
    // person granted before gives way (dropping a grant silently would be a surprise; refusing one
    // is said to them while they answer).
    const auto grantOf = [](const QString& id, qint64 atMs, const QByteArray& arguments = QByteArray()) {
        ApprovalStore::Grant grant;
        grant.id = id;
        grant.tool = QStringLiteral("write_file");
        grant.arguments = arguments;
        grant.grantedBy = QStringLiteral("alice");
        grant.grantedAtMs = atMs;
        return grant;
    };
    ApprovalStore store;
    QString problem;
    for (int n = 0; n < ApprovalStore::MaxGrants; ++n)
        QVERIFY2(store.grant(grantOf(QStringLiteral("g-%1").arg(n), n, QByteArray::number(n)), &problem),
            qPrintable(problem));
    QVERIFY(!store.grant(grantOf(QStringLiteral("g-new"), 5000), &problem));
    QVERIFY2(problem.contains(QLatin1String("revoke some in the Permissions view")), qPrintable(problem));
    QCOMPARE(store.grants().size(), ApprovalStore::MaxGrants);
    QVERIFY(store.grant(grantOf(QStringLiteral("g-7"), 6000), &problem)); // replacing one takes no room
    QCOMPARE(store.grants().size(), ApprovalStore::MaxGrants);

    // A file beyond the bound (written by hand, merged from several processes) keeps its newest.
    json file = store.toJson();
    file["grants"].push_back(grantOf(QStringLiteral("g-newest"), 9000).toJson());
    ApprovalStore read;
    QVERIFY2(read.fromJson(file, &problem), qPrintable(problem));
    QCOMPARE(read.grants().size(), ApprovalStore::MaxGrants);
    QStringList ids;
    for (const ApprovalStore::Grant& grant : read.grants())
        ids << grant.id;
    QVERIFY(ids.contains(QStringLiteral("g-newest")));
    QVERIFY(ids.contains(QStringLiteral("g-7"))); // granted again at 6000
    QVERIFY(!ids.contains(QStringLiteral("g-0"))); // the oldest gave way
    QVERIFY(ids.contains(QStringLiteral("g-1")));

    // By bytes: one grant's arguments, and all standing grants' arguments together.
    ApprovalStore bytes;
    QVERIFY(!bytes.grant(
        grantOf(QStringLiteral("g-huge"), 1, QByteArray(ApprovalStore::MaxGrantArgumentBytes + 1, 'x')), &problem));
    QVERIFY2(problem.contains(QLatin1String("too large")), qPrintable(problem));
    const int fit = int(ApprovalStore::MaxGrantBytes / ApprovalStore::MaxGrantArgumentBytes);
    for (int n = 0; n < fit; ++n)
        QVERIFY2(bytes.grant(
                     grantOf(QStringLiteral("g-%1").arg(n), n, QByteArray(ApprovalStore::MaxGrantArgumentBytes, 'y')),
                     &problem),
            qPrintable(problem));
    QVERIFY(!bytes.grant(grantOf(QStringLiteral("g-one-more"), 99, QByteArray("{}")), &problem));
    QVERIFY2(problem.contains(QLatin1String("MiB")), qPrintable(problem));
    QVERIFY(bytes.grant(grantOf(QStringLiteral("g-any"), 99), &problem)); // any arguments take no bytes

    // Session grants, by count.
    ApprovalStore sessions;
    ApprovalStore::Grant session = grantOf(QString(), 1);
    session.sessionId = QStringLiteral("s1");
    for (int n = 0; n < ApprovalStore::MaxSessionGrants; ++n) {
        session.id = QStringLiteral("g-s-%1").arg(n);
        QVERIFY(sessions.grant(session, &problem));
    }
    session.id = QStringLiteral("g-s-new");
    QVERIFY(!sessions.grant(session, &problem));
    QVERIFY2(problem.contains(QLatin1String("allow for this session")), qPrintable(problem));

    // Through the broker: the answer that would grant beyond the bound is refused, the question
    // stays open, and allowing once still answers it.
    auto s = settings();
    s.defaultMode = PauseMode::Hold;
    InteractionBroker broker(s, &m_registry);
    for (int n = 0; n < ApprovalStore::MaxGrants; ++n) {
        const json arguments{{"n", n}};
        const auto admission = broker.admit(m_write, arguments, origin(n + 1));
        QCOMPARE(admission.verdict, Verdict::Pause);
        const QString id = broker.hold(m_write, arguments, admission, origin(n + 1), {[](auto&&...) {}, {}});
        QString error;
        QVERIFY2(broker.answer(id, InteractionAnswer::alwaysAllow(false, false), &error), qPrintable(error));
    }
    const json last{{"n", -1}};
    const auto admission = broker.admit(m_write, last, origin(5000));
    QCOMPARE(admission.verdict, Verdict::Pause);
    QByteArray decision;
    const QString id = broker.hold(m_write, last, admission, origin(5000),
        {[&](const InteractionAnswer&, const QByteArray& recorded) { decision = recorded; }, {}});
    QString error;
    QVERIFY(!broker.answer(id, InteractionAnswer::alwaysAllow(false, false), &error));
    QVERIFY2(error.contains(QLatin1String("standing grants")), qPrintable(error));
    QCOMPARE(broker.pending().size(), 1);
    QCOMPARE(broker.pending().front().id, id);
    QVERIFY(decision.isEmpty());
    QCOMPARE(broker.approvals().grants().size(), ApprovalStore::MaxGrants);
    QVERIFY2(broker.answer(id, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce), &error),
        qPrintable(error));
    QCOMPARE(json::parse(decision.toStdString()).value("what", ""), "allow_once");
    QVERIFY(broker.pending().isEmpty());
}

void TestInteractionBroker::theConsoleUserIsNamedWithoutALoginEnvironment()
{
    // Started as a service (no USER, USERNAME or LOGNAME), the grants still say whose they are.
    QHash<QByteArray, QByteArray> saved;
    for (const char* name : {"USER", "USERNAME", "LOGNAME"}) {
        saved.insert(name, qgetenv(name));
        qunsetenv(name);
    }
    const QString user = InteractionBroker::consoleUser();
    for (auto it = saved.cbegin(); it != saved.cend(); ++it) {
        if (!it.value().isEmpty())
            qputenv(it.key().constData(), it.value());
    }
    const passwd* account = getpwuid(geteuid());
    QVERIFY(account && account->pw_name);
    QCOMPARE(user, QString::fromLocal8Bit(account->pw_name));
}

void TestInteractionBroker::outputsAreFifoPerKeyAndPeekDoesNotConsume()
{
    ClientOutputStore store;
    const QString key = InteractionBroker::keyFor(QStringLiteral("client"), QStringLiteral("t"), json{{"a", 1}});
    QVERIFY(!store.peek(key));
    store.push(key, {"\"first\"", QStringLiteral("ia-1"), 1});
    store.push(key, {"\"second\"", QStringLiteral("ia-2"), 2});
    store.push(InteractionBroker::keyFor(QStringLiteral("client"), QStringLiteral("t"), json{{"a", 2}}),
        {"\"other\"", QStringLiteral("ia-3"), 3});
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
        ids << broker.hold(
            *m_connect, arguments, admission, origin(call), {[](const InteractionAnswer&, const QByteArray&) {}, {}});
    }
    for (const QString& id : std::as_const(ids))
        broker.detach(id); // both connections dropped
    QCOMPARE(broker.pending().size(), 2);
    QString error;
    QVERIFY(broker.answer(ids[1],
        InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("second"))),
        &error));
    QVERIFY(broker.answer(ids[0],
        InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("first"))),
        &error));
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
            broker.answer(id, InteractionAnswer::respond(ClientAnswer::submitted(values)), &error), qPrintable(error));
        QCOMPARE(broker.approvals().decisionCount(), 0);
        QVERIFY(broker.approvals().grants().isEmpty());
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
    broker.hold(tool, json::object(), admission, origin(1), {[](const InteractionAnswer&, const QByteArray&) {}, {}});
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
    broker.hold(m_write, arguments, broker.admit(m_write, arguments, from), from,
        {[](const InteractionAnswer&, const QByteArray&) {}, {}});
    QCOMPARE(broker.pending().size(), 1);
    const QByteArray shown = broker.pending().constFirst().arguments;
    QVERIFY2(shown.indexOf("zeta") >= 0 && shown.indexOf("zeta") < shown.indexOf("alpha"), shown.constData());
}

void TestInteractionBroker::droppedCallReattachesOnRetry()
{
    InteractionBroker broker(settings(), &m_registry);
    const json arguments = connectArguments();
    const QString id = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(1)), origin(1),
        {[](const InteractionAnswer&, const QByteArray&) {}, {}});
    broker.detach(id);
    QVERIFY(!broker.pending().front().waiting);
    std::optional<InteractionAnswer> delivered;
    const QString again = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(2)), origin(2),
        {[&](const InteractionAnswer& answer, const QByteArray&) { delivered = answer; }, {}});
    QCOMPARE(again, id);
    QCOMPARE(broker.pending().size(), 1);
    QVERIFY(broker.pending().front().waiting);
    QCOMPARE(broker.pending().front().callId, qint64(2));
    QString error;
    QVERIFY(
        broker.answer(id, InteractionAnswer::respond(ClientAnswer::notConnected(QStringLiteral("declined"))), &error));
    QVERIFY(delivered.has_value());
}

void TestInteractionBroker::withdrawRemovesTheQuestion()
{
    InteractionBroker broker(settings(), &m_registry);
    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    const QString id = broker.hold(m_write, json::object(), broker.admit(m_write, json::object(), origin(1)), origin(1),
        {[](const InteractionAnswer&, const QByteArray&) { QFAIL("a withdrawn question delivers nothing"); }, {}});
    broker.withdraw(id, QStringLiteral("cancelled by the client"));
    QVERIFY(broker.pending().isEmpty());
    QCOMPARE(interactionOutcomeName(resolvedSpy.at(0).at(1).value<InteractionOutcome>()), QStringLiteral("cancelled"));
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
        {[](const InteractionAnswer&, const QByteArray&) {}, [&] { timedOut = true; }});
    QVERIFY(resolvedSpy.wait(10'000));
    QVERIFY(timedOut);
    QCOMPARE(interactionOutcomeName(resolvedSpy.at(0).at(1).value<InteractionOutcome>()), QStringLiteral("timeout"));
    QVERIFY(broker.pending().isEmpty());

    const ToolResult result = m_connect->clientTool->timeoutResult(QStringLiteral("request_connection"), 600);
    QVERIFY(result.isError);
    QVERIFY(result.firstText().contains(QStringLiteral("No one answered")));
    QVERIFY(result.structuredContent == ClientAnswer::notConnected(QStringLiteral("timeout")));
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
        {[](const InteractionAnswer&, const QByteArray&) {}, {}});
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
    QVERIFY(broker.wouldPause(*m_connect, QStringLiteral("s1"), QStringLiteral("client")));
    QVERIFY(broker.wouldPause(m_write, QStringLiteral("s1"), QStringLiteral("client")));
    QVERIFY(
        !broker.wouldPause(plainTool(QStringLiteral("read"), true), QStringLiteral("s1"), QStringLiteral("client")));
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
        heldId = broker.hold(
            *m_connect, arguments, admission, origin(1), {[](const InteractionAnswer&, const QByteArray&) {}, {}});
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
        InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("me"))), &error));
    QCOMPARE(restarted.admit(*m_connect, connectArguments(), origin(5)).verdict, Verdict::Answer);
}

void TestInteractionBroker::stateFileIsOwnerOnlyAndAtomic()
{
    const QString path = m_dir.filePath(QStringLiteral("mode.json"));
    QString error;
    QVERIFY(WorkspaceStateFile::write(path, QByteArray("{\"version\":1}"), &error));
    QCOMPARE(QFile::permissions(path),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
    // A write that cannot happen (the directory is a file) leaves the previous state as it was.
    QVERIFY(!WorkspaceStateFile::write(path + QStringLiteral("/child.json"), QByteArray("{}"), &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
    QCOMPARE(readFile(path), QByteArray("{\"version\":1}"));

    // Atomic for a reader: while large states replace each other, every read sees one of them whole,
    // never a mix or a truncated file.
    const QString shared = m_dir.filePath(QStringLiteral("atomic.json"));
    const QByteArray first = QByteArray(3 * 1024 * 1024, 'a');
    const QByteArray second = QByteArray(2 * 1024 * 1024, 'b');
    QVERIFY(WorkspaceStateFile::write(shared, first, &error));
    std::atomic<bool> writing = true;
    std::atomic<int> writeFailures = 0;
    QThread* writer = QThread::create([&] {
        QString problem;
        for (int round = 0; round < 30; ++round) {
            if (!WorkspaceStateFile::write(shared, round % 2 ? first : second, &problem))
                ++writeFailures;
        }
        writing = false;
    });
    writer->start();
    int reads = 0;
    int partial = 0;
    do {
        const QByteArray seen = readFile(shared);
        ++reads;
        if (seen != first && seen != second)
            ++partial;
    } while (writing);
    writer->wait();
    delete writer;
    QCOMPARE(writeFailures.load(), 0);
    QVERIFY(reads > 0);
    QCOMPARE(partial, 0);

    // Atomic for a failure: a write that fails midway (the file-size limit is hit after 1 MiB of
    // 4 MiB) leaves the old file whole and no temporary file behind.
    QVERIFY(WorkspaceStateFile::write(shared, first.left(1000), &error));
    rlimit before{};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &before), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN); // EFBIG instead of the signal
    rlimit small = before;
    small.rlim_cur = 1024 * 1024;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool written = WorkspaceStateFile::write(shared, QByteArrayList{QByteArray(4 * 1024 * 1024, 'c')}, &error);
    ::setrlimit(RLIMIT_FSIZE, &before);
    std::signal(SIGXFSZ, previousHandler);
    QVERIFY(!written);
    QVERIFY2(error.contains(QStringLiteral("cannot write")), qPrintable(error));
    QCOMPARE(readFile(shared), first.left(1000));
    QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("atomic.json*")}, QDir::Files | QDir::Hidden),
        QStringList{QStringLiteral("atomic.json")});
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
    const json output = ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("octocat"));
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
    waiter.answered = [&](const InteractionAnswer&, const QByteArray&) { ++delivered; };
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

void TestInteractionBroker::mistypedStateIsSetAside_data()
{
    QTest::addColumn<QByteArray>("contents");
    const QByteArray stores = R"("clientOutputs":[],"approvals":{"alwaysAllow":[],"decisions":[]})";
    const QByteArray question
        = R"({"id":"ia-1","kind":"approval","render":"approval","tool":"write_file","toolTitle":"","route":"builtin",)"
          R"("arguments":"{}","renderSpec":"{}","sessionId":"s1","clientName":"c","clientVersion":"1","callId":3,)"
          R"("earlierCallIds":[],"mode":"park","createdAtMs":5,"key":"sha256:00"})";
    // Shapes the first version accepted (or threw on, aborting every start).
    QTest::newRow("version is a string") << QByteArray(R"({"version":"1","pending":[]})");
    QTest::newRow("interactionId is a number")
        << QByteArray(R"({"version":1,"clientOutputs":[{"key":"k","outputs":[{"output":"{}","interactionId":5}]}]})");
    QTest::newRow("pending is an object") << QByteArray(R"({"version":1,"pending":{}})");
    QTest::newRow("alwaysAllow is a string") << QByteArray(R"({"version":1,"approvals":{"alwaysAllow":"echo"}})");
    QTest::newRow("half a file") << QByteArray("{ half a file");
    QTest::newRow("not an object") << QByteArray("[1, 2]");
    // The current version, one field wrong at a time.
    QTest::newRow("unknown field") << QByteArray(R"({"version":2,"pending":[],"extra":1,)" + stores + "}");
    QTest::newRow("missing stores") << QByteArray(R"({"version":2,"pending":[]})");
    QTest::newRow("callId is a string") << QByteArray(R"({"version":2,"pending":[)"
        + QByteArray(question).replace("\"callId\":3", "\"callId\":\"3\"") + "]," + stores + "}");
    QTest::newRow("unknown kind") << QByteArray(R"({"version":2,"pending":[)"
        + QByteArray(question).replace("\"approval\",\"render\"", "\"x\",\"render\"") + "]," + stores + "}");
    QTest::newRow("same id twice") << QByteArray(
        R"({"version":2,"pending":[)" + question + "," + question + "]," + stores + "}");
    QTest::newRow("decision without allow") << QByteArray(
        R"({"version":2,"pending":[],"clientOutputs":[],"approvals":{"alwaysAllow":[],"decisions":[{"key":"k","decisions":[{"reason":"","interactionId":"ia-1"}]}]}})");
    QTest::newRow("output is not JSON") << QByteArray(
        R"({"version":2,"pending":[],"clientOutputs":[{"key":"k","outputs":[{"output":"{no","interactionId":"ia-1","answeredAtMs":1}]}],"approvals":{"alwaysAllow":[],"decisions":[]}})");
    QTest::newRow("directory") << QByteArray();
}

void TestInteractionBroker::mistypedStateIsSetAside()
{
    QFETCH(QByteArray, contents);
    const QString name = QStringLiteral("mistyped-%1.json").arg(QString::fromLatin1(QTest::currentDataTag()));
    const QString path = m_dir.filePath(name);
    if (contents.isEmpty())
        QVERIFY(QDir().mkpath(path));
    else
        writeFile(path, contents);
    {
        InteractionBroker broker(settings(name), &m_registry);
        QString warning;
        // Must not throw; a file set aside is a notice, the state is saved again from now on.
        QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::SetAside);
        QVERIFY2(warning.contains(QStringLiteral("could not be read")) && warning.contains(QStringLiteral("kept as")),
            qPrintable(warning));
        QVERIFY(broker.pending().isEmpty());
        QCOMPARE(broker.clientOutputs().size(), 0);
        QVERIFY(broker.approvals().grants().isEmpty());
        const QStringList aside
            = QDir(m_dir.path())
                  .entryList({name + QStringLiteral(".unreadable-*")}, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(aside.size(), 1);
        QVERIFY(warning.contains(aside.front()));
        if (!contents.isEmpty())
            QCOMPARE(readFile(m_dir.filePath(aside.front())), contents); // kept as it was
        // The console starts clean and writes a state of its own.
        bool duplicate = false;
        broker.park(
            m_write, json{{"path", "p"}}, broker.admit(m_write, json{{"path", "p"}}, origin(1)), origin(1), &duplicate);
        QVERIFY(broker.flush());
    }
    InteractionBroker restarted(settings(name), &m_registry);
    QString warning;
    QCOMPARE(restarted.load(&warning), InteractionBroker::LoadResult::Loaded);
    QVERIFY2(warning.isEmpty(), qPrintable(warning));
    QCOMPARE(restarted.pending().size(), 1);
}

void TestInteractionBroker::stateBeyondTheLimitsIsSetAside_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("why");
    const QByteArray deep = QByteArray(200'000, '[') + QByteArray(200'000, ']');
    const QByteArray stores = R"("clientOutputs":[],"approvals":{"alwaysAllow":[],"decisions":[]})";
    const QByteArray question
        = R"({"id":"ia-1","kind":"approval","render":"approval","tool":"write_file","toolTitle":"","route":"builtin",)"
          R"("arguments":"ARGUMENTS","renderSpec":"{}","sessionId":"s1","clientName":"c","clientVersion":"1",)"
          R"("callId":3,"earlierCallIds":[],"mode":"park","createdAtMs":5,"key":"sha256:00"})";
    const QString tooDeep = QStringLiteral("JSON is nested deeper than 128 levels");
    QTest::newRow("a file nested 200,000 levels") << deep << tooDeep;
    // Strings holding JSON that is parsed later (when the question is restored, when the answer is
    // given to the next call): checked against the same limits when the file is read.
    QTest::newRow("a question's arguments nested 200,000 levels") << QByteArray(
        R"({"version":2,"pending":[)" + QByteArray(question).replace("ARGUMENTS", deep) + "]," + stores + "}")
                                                                  << tooDeep;
    QTest::newRow("a stored answer nested 200,000 levels")
        << QByteArray(R"({"version":2,"pending":[],"clientOutputs":[{"key":"k","outputs":[{"output":")" + deep
               + R"(","interactionId":"ia-1","answeredAtMs":1}]}],"approvals":{"alwaysAllow":[],"decisions":[]}})")
        << tooDeep;
    QByteArray values = R"({"version":2,"pending":[],"clientOutputs":[],"approvals":{"alwaysAllow":[0)";
    for (int i = 0; i < 4'000'000; ++i)
        values += ",0";
    QTest::newRow("more than 4,000,000 values")
        << QByteArray(values + R"(],"decisions":[]}})") << QStringLiteral("JSON has more than 4000000 values");
}

void TestInteractionBroker::stateBeyondTheLimitsIsSetAside()
{
    // A state file is read with the bounded parser, and so is the JSON its strings hold: a question
    // whose arguments nest 200,000 levels was accepted and restored, to be copied recursively later.
    QFETCH(QByteArray, contents);
    QFETCH(QString, why);
    const QString name = QStringLiteral("limits-%1.json")
                             .arg(QString::fromLatin1(QTest::currentDataTag()))
                             .replace(QLatin1Char(' '), QLatin1Char('-'));
    writeFile(m_dir.filePath(name), contents);
    InteractionBroker broker(settings(name), &m_registry);
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::SetAside);
    QVERIFY2(warning.contains(why), qPrintable(warning.left(500)));
    QVERIFY2(warning.size() < 2000, qPrintable(warning.left(500))); // nothing of the file is quoted
    QVERIFY(broker.pending().isEmpty());
    const QStringList aside = QDir(m_dir.path()).entryList({name + QStringLiteral(".unreadable-*")}, QDir::Files);
    QCOMPARE(aside.size(), 1);
    QCOMPARE(readFile(m_dir.filePath(aside.front())), contents); // kept as it was
}

void TestInteractionBroker::setAsideNamesNeverCollide()
{
    const QString path = m_dir.filePath(QStringLiteral("collide.json"));
    // Names for the seconds around now are taken already: setting aside must find others and
    // replace none of them.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QStringList taken;
    for (int second = -1; second <= 2; ++second) {
        taken << path + QStringLiteral(".unreadable-")
                + now.addSecs(second).toString(QStringLiteral("yyyyMMddTHHmmssZ"));
        writeFile(taken.back(), "taken");
    }
    QStringList asides;
    for (int round = 0; round < 3; ++round) {
        writeFile(path, QByteArray("round " + QByteArray::number(round)));
        QString error;
        const QString aside = WorkspaceStateFile::setAside(path, &error);
        QVERIFY2(!aside.isEmpty(), qPrintable(error));
        QVERIFY(!taken.contains(aside));
        QVERIFY(!asides.contains(aside));
        QCOMPARE(readFile(aside), QByteArray("round " + QByteArray::number(round)));
        asides << aside;
    }
    for (const QString& name : std::as_const(taken))
        QCOMPARE(readFile(name), QByteArray("taken"));
    QVERIFY(!QFile::exists(path));
}

void TestInteractionBroker::stateThatCannotBeSetAsideIsNeverOverwritten()
{
    // The file cannot be moved aside: every set-aside name would be longer than a file name may be
    // (NAME_MAX), whatever the time, so it stays where it is. The broker must then leave it alone
    // for the whole run rather than overwrite what it could not read. (Names that are all taken
    // are setAsideNamesNeverCollide's part.)
    const QString name = QString(230, QLatin1Char('s')) + QStringLiteral(".json");
    const QString path = m_dir.filePath(name);
    const QByteArray contents = R"({"version":"1"})";
    writeFile(path, contents);
    InteractionBroker broker(settings(name), &m_registry);
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::NotSaved);
    QVERIFY2(warning.contains(QStringLiteral("could not be moved aside")), qPrintable(warning));
    QVERIFY(warning.contains(QStringLiteral("not saved")));
    bool duplicate = false;
    broker.park(
        m_write, json{{"path", "p"}}, broker.admit(m_write, json{{"path", "p"}}, origin(1)), origin(1), &duplicate);
    QCOMPARE(broker.pending().size(), 1); // the console works, in memory
    QVERIFY(broker.flush());
    QCOMPARE(readFile(path), contents);
}

void TestInteractionBroker::stateWritesAreRetriedAndReported()
{
    // The state directory cannot be created (a file is in the way) until the operator moves it.
    const QString blocker = m_dir.filePath(QStringLiteral("blocked"));
    writeFile(blocker, "in the way");
    auto s = settings();
    s.statePath = blocker + QStringLiteral("/workspace.json");
    s.stateWriteTiming = {0, 20, 200};
    InteractionBroker broker(s, &m_registry);
    QStringList failures;
    int recoveries = 0;
    std::atomic<bool> onWriterThread = false;
    // Connected first, so it runs (on the writer's thread) before the queued slot below is posted.
    connect(
        &broker, &InteractionBroker::stateWriteFailed, &broker,
        [&] {
            char name[16] = {};
            pthread_getname_np(pthread_self(), name, sizeof name);
            onWriterThread = qstrcmp(name, "state-writer") == 0;
        },
        Qt::DirectConnection);
    connect(&broker, &InteractionBroker::stateWriteFailed, &broker, [&](const QString& error) { failures << error; });
    connect(&broker, &InteractionBroker::stateWriteRecovered, &broker, [&] { ++recoveries; });
    bool duplicate = false;
    const QString id = broker.park(
        m_write, json{{"path", "p"}}, broker.admit(m_write, json{{"path", "p"}}, origin(1)), origin(1), &duplicate);
    QTRY_COMPARE_WITH_TIMEOUT(failures.size(), 1, 15'000);
    QVERIFY2(failures.front().contains(QStringLiteral("cannot write")), qPrintable(failures.front()));
    QVERIFY(onWriterThread); // written off the caller's thread, on the writer's own
    QString error;
    QVERIFY(!broker.flush(&error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
    QCOMPARE(recoveries, 0);

    // Retried without any further change once the way is clear; reported once, then recovered.
    QVERIFY(QFile::remove(blocker));
    QTRY_COMPARE_WITH_TIMEOUT(recoveries, 1, 15'000);
    QCOMPARE(failures.size(), 1);
    QVERIFY(readFile(s.statePath).contains(id.toUtf8()));
    QVERIFY(broker.flush());
}

void TestInteractionBroker::stateIsCompactAndWritesAreCoalesced()
{
    auto s = settings(QStringLiteral("coalesced.json"));
    s.stateWriteTiming.minIntervalMs = 600'000; // after the first write, only a flush writes
    InteractionBroker broker(s, &m_registry);
    for (int call = 1; call <= 200; ++call) {
        const json arguments{{"path", "file-" + std::to_string(call)}, {"content", "line\nline"}};
        bool duplicate = false;
        broker.park(m_write, arguments, broker.admit(m_write, arguments, origin(call)), origin(call), &duplicate);
    }
    QVERIFY(broker.flush());
    QVERIFY2(dynamic_cast<const WorkspaceStateStore*>(broker.state())->writer()->writeCount() <= 2,
        qPrintable(QString::number(dynamic_cast<const WorkspaceStateStore*>(broker.state())->writer()->writeCount())));
    const QByteArray contents = readFile(s.statePath);
    QVERIFY(!contents.contains("\n ")); // compact: no indentation
    const json state = json::parse(contents.toStdString());
    QVERIFY(state.at("version") == 2);
    QCOMPARE(state.at("pending").size(), std::size_t(200));
    InteractionBroker restarted(settings(QStringLiteral("coalesced.json")), &m_registry);
    QString warning;
    restarted.load(&warning);
    QVERIFY2(warning.isEmpty(), qPrintable(warning));
    QCOMPARE(restarted.pending().size(), 200);
}

void TestInteractionBroker::newQuestionsBeyondTheLimitAreRefused()
{
    auto s = settings();
    s.maxPending = 3;
    s.defaultMode = PauseMode::Park;
    InteractionBroker broker(s, &m_registry);
    QStringList ids;
    for (int call = 1; call <= 3; ++call) {
        const json arguments{{"path", std::to_string(call)}};
        const auto admission = broker.admit(m_write, arguments, origin(call));
        QCOMPARE(admission.verdict, Verdict::Pause);
        bool duplicate = false;
        ids << broker.park(m_write, arguments, admission, origin(call), &duplicate);
    }
    const auto refused = broker.admit(m_write, json{{"path", "4"}}, origin(4));
    QCOMPARE(refused.verdict, Verdict::Refuse);
    QVERIFY(refused.result.isError);
    QVERIFY2(refused.result.firstText().contains(QStringLiteral("interaction.maxPendingQuestions"))
            && refused.result.firstText().contains(QStringLiteral("the limit is 3")),
        qPrintable(refused.result.firstText()));
    QCOMPARE(broker.admit(*m_connect, connectArguments(), origin(5)).verdict, Verdict::Refuse); // client tools too
    // A question already pending is not a new one: its identical call still parks on it.
    QCOMPARE(broker.admit(m_write, json{{"path", "2"}}, origin(6)).verdict, Verdict::Pause);
    QCOMPARE(broker.pending().size(), 3);
    QString error;
    QVERIFY(broker.answer(ids[0], InteractionAnswer::decide(Decision::Deny), &error));
    QCOMPARE(broker.admit(m_write, json{{"path", "4"}}, origin(7)).verdict, Verdict::Pause);

    // Bounded by bytes as well: a call whose request alone is larger than the budget is refused.
    auto small = settings();
    small.maxPendingBytes = 1024;
    InteractionBroker tight(small, &m_registry);
    InteractionBroker::CallOrigin big = origin(8);
    big.request = QByteArray(2048, ' ');
    QCOMPARE(tight.admit(m_write, json{{"path", "x"}}, big).verdict, Verdict::Refuse);
    QCOMPARE(tight.admit(m_write, json{{"path", "x"}}, origin(9)).verdict, Verdict::Pause);
}

void TestInteractionBroker::storedAnswersBelongToTheClientThatWasAsked()
{
    auto s = settings();
    s.defaultMode = PauseMode::Park;
    InteractionBroker broker(s, &m_registry);
    const auto first = [](qint64 call, const QString& session = QStringLiteral("s1")) {
        return origin(call, session, QStringLiteral("first"));
    };
    const auto second = [](qint64 call) { return origin(call, QStringLiteral("s2"), QStringLiteral("second")); };
    bool duplicate = false;
    QString error;

    // A client tool's stored answer.
    const json arguments = connectArguments();
    const QString asked
        = broker.park(*m_connect, arguments, broker.admit(*m_connect, arguments, first(1)), first(1), &duplicate);
    // The other client's identical call is a question of its own, not a duplicate of the first's.
    const QString other
        = broker.park(*m_connect, arguments, broker.admit(*m_connect, arguments, second(2)), second(2), &duplicate);
    QVERIFY(!duplicate);
    QVERIFY(other != asked);
    QVERIFY(broker.answer(asked,
        InteractionAnswer::respond(ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("first-account"))),
        &error));
    QCOMPARE(broker.admit(*m_connect, arguments, second(3)).verdict, Verdict::Pause);
    const auto retried = broker.admit(*m_connect, arguments, first(4));
    QCOMPARE(retried.verdict, Verdict::Answer);
    QVERIFY(retried.result.structuredContent.at("account") == "first-account");

    // A one-shot approval.
    const json path{{"path", "shared.txt"}};
    const QString approval = broker.park(m_write, path, broker.admit(m_write, path, first(5)), first(5), &duplicate);
    QVERIFY(broker.answer(approval, InteractionAnswer::decide(Decision::AllowOnce), &error));
    QCOMPARE(broker.admit(m_write, path, second(6)).verdict, Verdict::Pause); // not used up by the other client
    QCOMPARE(broker.approvals().decisionCount(), 1);
    QCOMPARE(broker.admit(m_write, path, first(7)).verdict, Verdict::Run);
    QCOMPARE(broker.approvals().decisionCount(), 0);

    // "Allow for this session": that session of that client, nothing stored for anyone else.
    const json sessionPath{{"path", "session.txt"}};
    const QString grant
        = broker.park(m_write, sessionPath, broker.admit(m_write, sessionPath, first(8)), first(8), &duplicate);
    QVERIFY(broker.answer(grant, InteractionAnswer::decide(Decision::AllowForSession), &error));
    QCOMPARE(broker.approvals().decisionCount(), 0);
    QCOMPARE(broker.admit(m_write, sessionPath, first(9)).verdict, Verdict::Run);
    QCOMPARE(broker.admit(m_write, sessionPath, first(10, QStringLiteral("s3"))).verdict, Verdict::Pause);
    QCOMPARE(broker.admit(m_write, sessionPath, origin(11, QStringLiteral("s1"), QStringLiteral("second"))).verdict,
        Verdict::Pause);
}

void TestInteractionBroker::keysAreHashesNotArguments()
{
    auto s = settings(QStringLiteral("keys.json"));
    s.defaultMode = PauseMode::Park;
    InteractionBroker broker(s, &m_registry);
    const json path{{"path", "hunter2-secret-path"}};
    bool duplicate = false;
    const QString id = broker.park(m_write, path, broker.admit(m_write, path, origin(1)), origin(1), &duplicate);
    QVERIFY(broker.pending().front().key.startsWith(QStringLiteral("sha256:")));
    QString error;
    QVERIFY(broker.answer(id, InteractionAnswer::decide(Decision::Deny, QStringLiteral("no")), &error));
    QVERIFY(broker.flush());
    // The question is answered: its arguments are gone from the file, and the stored decision's key
    // does not repeat them.
    const QByteArray contents = readFile(s.statePath);
    QVERIFY2(!contents.contains("hunter2"), contents.constData());
    QCOMPARE(broker.admit(m_write, path, origin(2)).verdict, Verdict::Refuse);
    QCOMPARE(InteractionBroker::keyFor(QStringLiteral("a"), QStringLiteral("t"), json{{"x", 1}}),
        InteractionBroker::keyFor(QStringLiteral("a"), QStringLiteral("t"), json::parse(R"({"x":1})")));
    QVERIFY(InteractionBroker::keyFor(QStringLiteral("ab"), QStringLiteral("t"), json::object())
        != InteractionBroker::keyFor(QStringLiteral("a"), QStringLiteral("bt"), json::object()));
}

// What one paused call costs the server thread with 1,000 questions pending (issue 8, item 10),
// printed for the report and bounded: about a millisecond at the median on a loaded two-core machine
// (85 ms before that issue, 848 ms loaded), so a bound of 20 ms holds under load and still fails a
// state rewritten per change; no single call may hold the thread for a second.
void TestInteractionBroker::latencyWithAThousandPendingQuestions()
{
    auto s = settings(QStringLiteral("latency.json"));
    s.defaultMode = PauseMode::Park;
    s.maxPending = 2'000;
    InteractionBroker broker(s, &m_registry); // writes on its writer's own thread
    const std::string filler(16 * 1024, 'x');
    const auto call = [&](int id) {
        const json arguments{{"path", "file-" + std::to_string(id)}, {"content", filler}};
        InteractionBroker::CallOrigin from = origin(id);
        from.request = QByteArray::fromStdString(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
            {"params", {{"name", "write_file"}, {"arguments", arguments}}}}
                                                     .dump());
        return std::make_pair(arguments, from);
    };
    const auto park = [&](const std::pair<json, InteractionBroker::CallOrigin>& c) {
        bool duplicate = false;
        broker.park(m_write, c.first, broker.admit(m_write, c.first, c.second), c.second, &duplicate);
    };
    for (int id = 1; id <= 1000; ++id)
        park(call(id));
    QCOMPARE(broker.pending().size(), 1000);
    QList<qint64> micros;
    for (int id = 1001; id <= 1050; ++id) {
        const auto c = call(id);
        QElapsedTimer timer;
        timer.start();
        park(c);
        micros << timer.nsecsElapsed() / 1000;
    }
    std::sort(micros.begin(), micros.end());
    QVERIFY(broker.flush());
    qInfo("one paused call with 1,000 questions pending: median %lld us, max %lld us on the server thread; "
          "state file %lld bytes",
        micros.at(micros.size() / 2), micros.constLast(), QFileInfo(s.statePath).size());
    QVERIFY2(micros.at(micros.size() / 2) < 20'000, "a paused call takes the server thread too long at the median");
    QVERIFY2(micros.constLast() < 1'000'000, "a paused call held the server thread for a second");
    QCOMPARE(broker.pending().size(), 1050);
}

// Behind the InteractionState interface the broker speaks in records: a question raised is put,
// an answered one removed, stored answers and rules put on their own; nothing hands over the whole
// state.
void TestInteractionBroker::stateIsHandedOverRecordByRecord()
{
    auto owned = std::make_unique<RecordingState>();
    RecordingState* state = owned.get();
    InteractionBroker broker(settings(), &m_registry, std::move(owned));
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::Loaded);
    const json arguments{{"path", "a.txt"}};
    const auto first = broker.hold(m_write, arguments, broker.admit(m_write, arguments, origin(1)), origin(1), {});
    const json other{{"path", "b.txt"}};
    const auto second = broker.hold(m_write, other, broker.admit(m_write, other, origin(2)), origin(2), {});
    QCOMPARE(state->questions.size(), std::size_t(2));
    QCOMPARE_JSON(state->questions.at(first)["tool"], "write_file");
    QString error;
    QVERIFY(broker.answer(first, InteractionAnswer::alwaysAllow(true, true), &error));
    QCOMPARE(state->log,
        (QStringList{
            QStringLiteral("put ") + first, QStringLiteral("put ") + second, QStringLiteral("remove ") + first}));
    QCOMPARE(state->questions.count(second), std::size_t(1));
    QCOMPARE(state->approvals["grants"].size(), std::size_t(1));
    QCOMPARE_JSON(state->approvals["grants"][0]["tool"], "write_file");
    QCOMPARE_JSON(state->approvals["grants"][0]["client"], "");
    QCOMPARE_JSON(state->approvals["grants"][0]["arguments"], "");
}

void TestInteractionBroker::stateIsRestoredFromRecords()
{
    // A question and a rule from an earlier run come back; records that are not what the broker
    // puts are set aside and the broker starts empty.
    PendingInteraction question;
    question.id = QStringLiteral("ia-earlier");
    question.key = QStringLiteral("k1");
    question.tool = QStringLiteral("write_file");
    question.arguments = R"({"path":"a.txt"})";
    question.renderSpec = R"({"render":"approval"})";
    InteractionState::Records records;
    records.questions.push_back(question.toJson());
    records.approvals = json{{"alwaysAllow", json::array({"echo"})}, {"decisions", json::array()}};
    auto owned = std::make_unique<RecordingState>();
    owned->initial = records;
    InteractionBroker broker(settings(), &m_registry, std::move(owned));
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::Loaded);
    QCOMPARE(broker.pending().size(), 1);
    QCOMPARE(broker.pending().first().id, QStringLiteral("ia-earlier"));
    QCOMPARE(broker.approvals().grants().size(), 1);
    QCOMPARE(broker.approvals().grants().front().id, QStringLiteral("g-always-echo"));

    records.questions.front()["surprise"] = true;
    auto bad = std::make_unique<RecordingState>();
    bad->initial = records;
    RecordingState* badState = bad.get();
    InteractionBroker refused(settings(), &m_registry, std::move(bad));
    QCOMPARE(refused.load(&warning), InteractionBroker::LoadResult::SetAside);
    QCOMPARE(badState->setAsideCalls, 1);
    QVERIFY(refused.pending().isEmpty());
    QVERIFY(refused.approvals().grants().isEmpty());
}

// What another process sharing the state did arrives as the whole state (changedElsewhere): new
// questions are raised here, gone ones resolved (stored when their answer is among the stored
// answers, cancelled otherwise), a call waiting here takes the answer stored for it, changed ones
// are updated, the stores are replaced; nothing the broker already holds is told again.
void TestInteractionBroker::changesMadeElsewhereReachTheBroker()
{
    auto owned = std::make_unique<RecordingState>();
    RecordingState* state = owned.get();
    InteractionBroker broker(settings(), &m_registry, std::move(owned));
    QString warning;
    QCOMPARE(broker.load(&warning), InteractionBroker::LoadResult::Loaded);
    QSignalSpy pendingSpy(&broker, &InteractionBroker::interactionPending);
    QSignalSpy changedSpy(&broker, &InteractionBroker::interactionChanged);
    QSignalSpy resolvedSpy(&broker, &InteractionBroker::interactionResolved);
    QSignalSpy storesSpy(&broker, &InteractionBroker::storesChanged);

    // Here: a held connect question and a parked approval.
    const json arguments = connectArguments();
    std::optional<InteractionAnswer> delivered;
    const QString held = broker.hold(*m_connect, arguments, broker.admit(*m_connect, arguments, origin(1)), origin(1),
        {[&](const InteractionAnswer& answer, const QByteArray&) { delivered = answer; }, {}});
    bool duplicate = false;
    const json path{{"path", "a.txt"}};
    const QString parked = broker.park(m_write, path, broker.admit(m_write, path, origin(2)), origin(2), &duplicate);
    pendingSpy.clear();
    const auto recordOf = [&](const QString& id) { return QByteArray::fromStdString(state->questions.at(id).dump()); };
    const QByteArray emptyOutputs = "[]";
    const QByteArray emptyApprovals = R"({"alwaysAllow":[],"decisions":[]})";

    // A runner parked a question of its own.
    PendingInteraction runnerQuestion;
    runnerQuestion.id = QStringLiteral("ia-runner");
    runnerQuestion.key = QStringLiteral("sha256:runner");
    runnerQuestion.tool = QStringLiteral("write_file");
    runnerQuestion.mode = PauseMode::Park;
    runnerQuestion.callId = 9;
    runnerQuestion.arguments = R"({"path":"b.txt"})";
    runnerQuestion.renderSpec = R"({"render":"approval"})";
    const QByteArray runnerRecord = QByteArray::fromStdString(runnerQuestion.toJson().dump());
    InteractionState::CompactRecords records;
    records.questions = {{held, recordOf(held)}, {parked, recordOf(parked)}, {runnerQuestion.id, runnerRecord}};
    records.clientOutputs = emptyOutputs;
    records.approvals = emptyApprovals;
    Q_EMIT state->changedElsewhere(records);
    QCOMPARE(pendingSpy.count(), 1);
    QCOMPARE(pendingSpy.at(0).at(0).value<PendingInteraction>().id, runnerQuestion.id);
    QCOMPARE(broker.pending().size(), 3);
    QCOMPARE(changedSpy.count(), 0);
    QCOMPARE(resolvedSpy.count(), 0);
    QCOMPARE(storesSpy.count(), 0);

    // The same again tells nothing; a changed record is an update.
    Q_EMIT state->changedElsewhere(records);
    QCOMPARE(pendingSpy.count(), 1);
    runnerQuestion.earlierCallIds = {9};
    runnerQuestion.callId = 10;
    records.questions.back().second = QByteArray::fromStdString(runnerQuestion.toJson().dump());
    Q_EMIT state->changedElsewhere(records);
    QCOMPARE(changedSpy.count(), 1);
    QCOMPARE(broker.pending().back().callId, qint64(10));

    // The parked approval was answered in another console (its decision stored), the runner's
    // question left unanswered, and a second console answered the held question: the call waiting
    // here gets that answer.
    const PendingInteraction heldQuestion = broker.pending().front();
    const json output = ClientAnswer::connected(QStringLiteral("github"), QStringLiteral("elsewhere"));
    records.questions = {};
    records.clientOutputs = QByteArray::fromStdString(json::array(
        {json{{"key", heldQuestion.key.toStdString()},
            {"outputs",
                json::array({json{{"output", output.dump()}, {"interactionId", held.toStdString()},
                    {"answeredAtMs", 5}}})}}}).dump());
    const PendingInteraction parkedQuestion = broker.pending().at(1);
    records.approvals = QByteArray::fromStdString(json{{"alwaysAllow", json::array({"echo"})},
        {"decisions",
            json::array({json{{"key", parkedQuestion.key.toStdString()},
                {"decisions",
                    json::array(
                        {json{{"allow", false}, {"reason", "no"}, {"interactionId", parked.toStdString()}}})}}})}}
                                                      .dump());
    Q_EMIT state->changedElsewhere(records);
    QVERIFY(broker.pending().isEmpty());
    QCOMPARE(resolvedSpy.count(), 3);
    std::map<QString, QString> outcomes;
    for (const QList<QVariant>& resolved : std::as_const(resolvedSpy))
        outcomes[resolved.at(0).toString()] = interactionOutcomeName(resolved.at(1).value<InteractionOutcome>());
    QCOMPARE(outcomes[held], QStringLiteral("answered"));
    QCOMPARE(outcomes[parked], QStringLiteral("stored"));
    QCOMPARE(outcomes[runnerQuestion.id], QStringLiteral("cancelled"));
    QVERIFY(delivered.has_value());
    QVERIFY(json::parse(delivered->output.toStdString()) == output);
    // The held call took its answer: it is not stored for anyone else, and the state hears so.
    QVERIFY(broker.clientOutputs().isEmpty());
    QCOMPARE_JSON(state->outputs, json::array());
    QCOMPARE(broker.approvals().grants().size(), 1);
    QCOMPARE(broker.approvals().grants().front().id, QStringLiteral("g-always-echo"));
    QCOMPARE(broker.approvals().decisionCount(), 1);
    QVERIFY(storesSpy.count() >= 1);
    QVERIFY(state->questions.empty());
    // The decision stored elsewhere is what the parked call's retry gets here.
    const auto retried = broker.admit(m_write, path, origin(3));
    QCOMPARE(retried.verdict, Verdict::Refuse);
    QVERIFY(retried.result.firstText().contains(QStringLiteral("no")));
}

QTEST_GUILESS_MAIN(TestInteractionBroker)
#include "tst_interactionbroker.moc"
