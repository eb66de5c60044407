// ToolSpec parsing, ToolRegistry, and ToolRouter's resolution, aliases, suggestions and validation.

#include "tools/toolrouter.h"

#include "toolcall.h"
#include "tools/toolexecutor.h"

#include "jsontestsupport.h"

#include <QTest>

using nlohmann::json;

namespace {

RegisteredTool makeTool(const QString& name, json schema = json{{"type", "object"}})
{
    RegisteredTool tool;
    tool.spec.name = name;
    tool.spec.description = QStringLiteral("test tool");
    tool.spec.inputSchema = std::move(schema);
    tool.route = ToolRoute::builtin();
    tool.handler = [](const std::shared_ptr<ToolCallContext>& context) {
        context->finish(ToolResult::text(QStringLiteral("ran")));
    };
    return tool;
}

std::shared_ptr<ToolCallContext> contextFor(json arguments, ToolResult* result)
{
    ToolCallContext::Hooks hooks;
    hooks.complete = [result](ToolResult r) { *result = std::move(r); };
    return std::make_shared<ToolCallContext>(std::move(arguments), CallMetadata{}, std::move(hooks));
}

// What the session does with an admitted call: the arguments are checked, then the executor runs it.
void invoke(const RegisteredTool& tool, const std::shared_ptr<ToolCallContext>& context)
{
    const QString error = ToolRouter::argumentError(tool, context->arguments());
    if (!error.isEmpty()) {
        context->finish(ToolResult::error(error));
        return;
    }
    ToolExecutor executor{ToolExecutor::Settings{}};
    executor.run(std::make_shared<const RegisteredTool>(tool), context);
}

} // namespace

class TestToolRouter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void specSchemaSpellings_data();
    void specSchemaSpellings();
    void specErrors_data();
    void specErrors();
    void resolve_data();
    void resolve();
    void invalidArgumentsNeverReachTheTool();
    void throwingToolBecomesToolError();
    void registryNotifiesChanges();
    void longNamesAreRefusedWithoutSearching();
    void namesAreBoundedAtRegistration();
    void uncheckableSchemasAreRefusedAtRegistration();
    void keywordsBeyondTheOldValidatorNeverReachTheTool_data();
    void keywordsBeyondTheOldValidatorNeverReachTheTool();
    void messagesAreBounded();
    void sourcesReplaceTheirToolsInOneStep();
    void namespacedNamesAndTheirAliasesResolve();
    void aliasNamingAnAdapterIsThatAdaptersTool_data();
    void aliasNamingAnAdapterIsThatAdaptersTool();
    void suggestionsLookAtTheOwnersToolsFirst();
};

void TestToolRouter::specSchemaSpellings_data()
{
    QTest::addColumn<QByteArray>("spec");
    QTest::addColumn<QByteArray>("advertisedSchema");
    const QByteArray schema = R"({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]})";
    QTest::newRow("inputSchema") << QByteArray(R"({"name":"t","inputSchema":)" + schema + "}") << schema;
    QTest::newRow("input_schema") << QByteArray(R"({"name":"t","input_schema":)" + schema + "}") << schema;
    QTest::newRow("no schema") << QByteArray(R"({"name":"t"})") << QByteArray(R"({"type":"object"})");
    QTest::newRow("empty schema") << QByteArray(R"({"name":"t","input_schema":{}})")
                                  << QByteArray(R"({"type":"object"})");
    QTest::newRow("properties without type") << QByteArray(R"({"name":"t","inputSchema":{"properties":{}}})")
                                             << QByteArray(R"({"properties":{},"type":"object"})");
}

void TestToolRouter::specSchemaSpellings()
{
    QFETCH(QByteArray, spec);
    QFETCH(QByteArray, advertisedSchema);
    ToolSpec parsed;
    QString error;
    QVERIFY2(ToolSpec::fromJson(json::parse(spec.toStdString()), &parsed, &error), qPrintable(error));
    const json advertised = parsed.toJson()["inputSchema"];
    QVERIFY(!advertised.empty());
    QCOMPARE_JSON(advertised, json::parse(advertisedSchema.toStdString()));
}

void TestToolRouter::specErrors_data()
{
    QTest::addColumn<QByteArray>("spec");
    QTest::addColumn<QString>("errorContains");
    QTest::newRow("not an object") << QByteArray("[]") << QStringLiteral("mapping");
    QTest::newRow("no name") << QByteArray(R"({"description":"x"})") << QStringLiteral("name");
    QTest::newRow("schema not object") << QByteArray(R"({"name":"t","inputSchema":"x"})")
                                       << QStringLiteral("inputSchema must be");
    QTest::newRow("schema wrong type") << QByteArray(R"({"name":"t","inputSchema":{"type":"string"}})")
                                       << QStringLiteral("\"type\": \"object\"");
    QTest::newRow("output schema") << QByteArray(R"({"name":"t","output_schema":3})") << QStringLiteral("outputSchema");
    QTest::newRow("annotations") << QByteArray(R"({"name":"t","annotations":[]})") << QStringLiteral("annotations");
}

void TestToolRouter::specErrors()
{
    QFETCH(QByteArray, spec);
    QFETCH(QString, errorContains);
    ToolSpec parsed;
    QString error;
    QVERIFY(!ToolSpec::fromJson(json::parse(spec.toStdString()), &parsed, &error));
    QVERIFY2(error.contains(errorContains), qPrintable(error));
}

void TestToolRouter::resolve_data()
{
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("resolved"); // empty: unknown
    QTest::addColumn<QStringList>("suggestions");
    QTest::newRow("exact") << QStringLiteral("echo") << QStringLiteral("echo") << QStringList();
    QTest::newRow("claude code alias") << QStringLiteral("mcp__switchboard__echo") << QStringLiteral("echo")
                                       << QStringList();
    QTest::newRow("alias with any server name")
        << QStringLiteral("mcp__my-server__git_status") << QStringLiteral("git_status") << QStringList();
    QTest::newRow("typo") << QStringLiteral("ecoh") << QString() << QStringList{QStringLiteral("echo")};
    QTest::newRow("prefix") << QStringLiteral("git") << QString()
                            << QStringList{QStringLiteral("git_log"), QStringLiteral("git_status")};
    QTest::newRow("alias typo") << QStringLiteral("mcp__switchboard__git_stats") << QString()
                                << QStringList{QStringLiteral("git_status")};
    QTest::newRow("unrelated") << QStringLiteral("launch_rockets") << QString() << QStringList();
    QTest::newRow("bare prefix is not an alias")
        << QStringLiteral("mcp__echo") << QString() << QStringList{QStringLiteral("echo")};
}

void TestToolRouter::resolve()
{
    QFETCH(QString, requested);
    QFETCH(QString, resolved);
    QFETCH(QStringList, suggestions);
    ToolRegistry registry;
    for (const char* name : {"echo", "git_status", "git_log", "request_connection"})
        QVERIFY(registry.add(makeTool(QString::fromLatin1(name))));
    ToolRouter router(&registry);
    const auto resolution = router.resolve(requested.toStdString());
    if (resolved.isEmpty()) {
        QVERIFY(!resolution.tool);
        QCOMPARE(resolution.route(), ToolRoute());
        for (const QString& s : suggestions)
            QVERIFY2(
                resolution.closestMatches.contains(s), qPrintable(resolution.closestMatches.join(QLatin1Char(','))));
        const QString message = ToolRouter::unknownToolMessage(requested, resolution.closestMatches);
        QVERIFY(message.contains(requested));
        if (suggestions.isEmpty())
            QVERIFY(message.contains(QStringLiteral("tools/list")));
    } else {
        QVERIFY(resolution.tool);
        QCOMPARE(resolution.tool->spec.name, resolved);
    }
}

void TestToolRouter::invalidArgumentsNeverReachTheTool()
{
    bool ran = false;
    RegisteredTool tool = makeTool(QStringLiteral("greet"),
        json::parse(R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})"));
    tool.handler = [&ran](const std::shared_ptr<ToolCallContext>& context) {
        ran = true;
        context->finish(ToolResult::text(QStringLiteral("hi")));
    };
    ToolResult result;
    invoke(tool, contextFor(json{{"name", 42}}, &result));
    QVERIFY(!ran);
    QVERIFY(result.isError);
    QVERIFY2(result.firstText().contains(QStringLiteral("Invalid arguments for tool \"greet\"")),
        qPrintable(result.firstText()));
    QVERIFY(result.firstText().contains(QStringLiteral("/name: expected string, got integer")));

    invoke(tool, contextFor(json{{"name", "Ada"}}, &result));
    QVERIFY(ran);
    QVERIFY(!result.isError);
}

void TestToolRouter::throwingToolBecomesToolError()
{
    RegisteredTool tool = makeTool(QStringLiteral("boom"));
    tool.handler = [](const std::shared_ptr<ToolCallContext>&) { throw std::runtime_error("disk on fire"); };
    ToolResult result;
    invoke(tool, contextFor(json::object(), &result));
    QVERIFY(result.isError);
    QCOMPARE(result.firstText(), QStringLiteral("Tool \"boom\" failed: disk on fire"));
    QCOMPARE_JSON(result.toJson()["isError"], json(true));
}

void TestToolRouter::registryNotifiesChanges()
{
    ToolRegistry registry;
    int changes = 0;
    connect(&registry, &ToolRegistry::toolsChanged, this, [&changes] { ++changes; });
    QVERIFY(registry.add(makeTool(QStringLiteral("b"))));
    QVERIFY(registry.add(makeTool(QStringLiteral("a"))));
    QString error;
    RegisteredTool noHandler = makeTool(QStringLiteral("c"));
    noHandler.handler = nullptr;
    QVERIFY(!registry.add(noHandler, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(changes, 2);
    const auto tools = registry.tools();
    QCOMPARE(tools.size(), std::size_t(2));
    QCOMPARE(tools.front()->spec.name, QStringLiteral("a")); // listed by name
    QVERIFY(registry.remove(QStringLiteral("a")));
    QVERIFY(!registry.remove(QStringLiteral("a")));
    QCOMPARE(changes, 3);
}

// A 3 MB name (issue 8, item 12) is refused for its length: no lookup by similarity, which cost the
// tools' count times the name's length on the server thread, and a message that quotes only its
// start.
void TestToolRouter::longNamesAreRefusedWithoutSearching()
{
    ToolRegistry registry;
    for (const char* name : {"echo", "git_status"})
        QVERIFY(registry.add(makeTool(QString::fromLatin1(name))));
    ToolRouter router(&registry);
    // Contains "echo": the search would have offered it.
    const std::string name = "echo" + std::string(3 * 1024 * 1024, 'x');
    const auto resolution = router.resolve(name);
    QVERIFY(!resolution.tool);
    QVERIFY(resolution.nameTooLong);
    QVERIFY2(resolution.closestMatches.isEmpty(), qPrintable(resolution.closestMatches.join(QLatin1Char(','))));
    const QString message = ToolRouter::unknownToolMessage(QString::fromStdString(name), resolution.closestMatches);
    QVERIFY2(message.contains(QStringLiteral("the name is 3145732 bytes long and tool names are at most 128 bytes")),
        qPrintable(message.left(400)));
    QVERIFY2(message.size() < 400, qPrintable(QString::number(message.size())));

    // At the limit the search still runs.
    const auto atLimit = router.resolve("echo" + std::string(ToolSpec::MaxNameBytes - 4, 'x'));
    QVERIFY(!atLimit.nameTooLong);
    QVERIFY(atLimit.closestMatches.contains(QStringLiteral("echo")));
}

void TestToolRouter::namesAreBoundedAtRegistration()
{
    ToolRegistry registry;
    QString error;
    QVERIFY(registry.add(makeTool(QString(ToolSpec::MaxNameBytes, QLatin1Char('a'))), &error));
    QVERIFY(!registry.add(makeTool(QString(ToolSpec::MaxNameBytes + 1, QLatin1Char('a'))), &error));
    QVERIFY2(error.contains(QStringLiteral("is 129 bytes long; tool names are at most 128 bytes")), qPrintable(error));
    // Counted in bytes: 43 three-byte characters are 129 bytes.
    QVERIFY(!registry.add(makeTool(QString(43, QChar(0x20AC))), &error));
    ToolSpec spec;
    QVERIFY(!ToolSpec::fromJson(json{{"name", std::string(200, 'n')}}, &spec, &error));
    QVERIFY2(error.contains(QStringLiteral("200 bytes long")), qPrintable(error));
}

// A keyword the validator cannot check is reported when the tool is registered, never skipped.
void TestToolRouter::uncheckableSchemasAreRefusedAtRegistration()
{
    ToolRegistry registry;
    QString error;
    QVERIFY(!registry.add(
        makeTool(QStringLiteral("tuple"), json::parse(R"({"type":"object","properties":{"p":{"prefixItems":[]}}})")),
        &error));
    QVERIFY2(error.contains(QStringLiteral("tool \"tuple\": inputSchema cannot be checked: keyword \"prefixItems\"")),
        qPrintable(error));
    QVERIFY(!registry.find("tuple"));
    QVERIFY(!registry.add(makeTool(QStringLiteral("remote"), json{{"$ref", "https://example.com/s.json"}}), &error));
    QVERIFY2(error.contains(QStringLiteral("another document")), qPrintable(error));
    QCOMPARE(registry.size(), std::size_t(0));
}

void TestToolRouter::keywordsBeyondTheOldValidatorNeverReachTheTool_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QByteArray>("bad");
    QTest::addColumn<QByteArray>("good");
    QTest::newRow("oneOf") << QByteArray(
        R"({"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}})")
                           << QByteArray(R"({"v":true})") << QByteArray(R"({"v":1})");
    QTest::newRow("not") << QByteArray(R"({"type":"object","properties":{"v":{"not":{"const":"root"}}}})")
                         << QByteArray(R"({"v":"root"})") << QByteArray(R"({"v":"ada"})");
    QTest::newRow("$ref") << QByteArray(
        R"({"type":"object","$defs":{"id":{"type":"string","minLength":3}},"properties":{"v":{"$ref":"#/$defs/id"}}})")
                          << QByteArray(R"({"v":"ab"})") << QByteArray(R"({"v":"abc"})");
}

void TestToolRouter::keywordsBeyondTheOldValidatorNeverReachTheTool()
{
    QFETCH(QByteArray, schema);
    QFETCH(QByteArray, bad);
    QFETCH(QByteArray, good);
    ToolRegistry registry;
    int runs = 0;
    RegisteredTool tool = makeTool(QStringLiteral("t"), json::parse(schema.toStdString()));
    tool.handler = [&runs](const std::shared_ptr<ToolCallContext>& context) {
        ++runs;
        context->finish(ToolResult::text(QStringLiteral("ran")));
    };
    QString error;
    QVERIFY2(registry.add(tool, &error), qPrintable(error));
    const auto registered = ToolRouter(&registry).resolve("t").tool;
    QVERIFY(registered && registered->argumentValidator);
    ToolResult result;
    invoke(*registered, contextFor(json::parse(bad.toStdString()), &result));
    QCOMPARE(runs, 0);
    QVERIFY(result.isError);
    QVERIFY2(result.firstText().contains(QStringLiteral("Invalid arguments for tool \"t\": /v:")),
        qPrintable(result.firstText()));
    invoke(*registered, contextFor(json::parse(good.toStdString()), &result));
    QCOMPARE(runs, 1);
    QVERIFY(!result.isError);
}

void TestToolRouter::messagesAreBounded()
{
    RegisteredTool tool = makeTool(QStringLiteral("boom"));
    tool.handler = [](const std::shared_ptr<ToolCallContext>&) { throw std::runtime_error(std::string(1 << 20, 'e')); };
    ToolResult result;
    invoke(tool, contextFor(json::object(), &result));
    QVERIFY(result.isError);
    QVERIFY(result.firstText().size() < ToolRouter::MaxMessageChars + 200);
    QVERIFY2(result.firstText().endsWith(QStringLiteral("characters cut]")), qPrintable(result.firstText().right(80)));

    // Call records leave the backend with bounded names and errors.
    ToolCall call;
    call.tool = QString(1 << 20, QLatin1Char('n'));
    call.error = QString(1 << 20, QLatin1Char('e'));
    const ToolCall bounded = call.withBoundedText();
    QVERIFY(bounded.tool.size() < ToolCall::MaxToolChars + 50);
    QVERIFY(bounded.tool.contains(QStringLiteral("[%1 more characters cut]").arg((1 << 20) - ToolCall::MaxToolChars)));
    QVERIFY(bounded.error.size() < ToolCall::MaxErrorChars + 50);
    QCOMPARE(ToolCall::boundedText(QStringLiteral("short"), 10), QStringLiteral("short"));
}

// A source's update is one change however many tools it brings; a name another source offers, or a
// tool without the handler its kind needs, is left out and said, and the rest goes on.
void TestToolRouter::sourcesReplaceTheirToolsInOneStep()
{
    ToolRegistry registry;
    int changes = 0;
    connect(&registry, &ToolRegistry::toolsChanged, this, [&changes] { ++changes; });
    QVERIFY(registry.add(makeTool(QStringLiteral("echo"))));
    std::vector<RegisteredTool> tools;
    for (const char* name : {"github.list_issues", "github.create_issue", "echo"})
        tools.push_back(makeTool(QString::fromLatin1(name)));
    RegisteredTool blockingWithoutHandler = makeTool(QStringLiteral("github.clone"));
    blockingWithoutHandler.execution = ExecutionPolicy::blocking();
    tools.push_back(blockingWithoutHandler);
    QStringList problems;
    changes = 0;
    QCOMPARE(registry.replaceSource(QStringLiteral("adapter:github"), tools, &problems), 2);
    QCOMPARE(changes, 1);
    QCOMPARE(problems.size(), 2);
    QVERIFY2(problems.join(QLatin1Char('\n')).contains(QStringLiteral("\"echo\" is already offered by builtin")),
        qPrintable(problems.join(QLatin1Char('\n'))));
    QVERIFY(problems.join(QLatin1Char('\n')).contains(QStringLiteral("no blocking handler")));
    QCOMPARE(registry.toolsOf(QStringLiteral("adapter:github")).size(), std::size_t(2));
    QCOMPARE(registry.find("github.list_issues")->source, QStringLiteral("adapter:github"));

    // The adapter comes back with one tool: the others go, in one step again.
    QCOMPARE(registry.replaceSource(QStringLiteral("adapter:github"), {makeTool(QStringLiteral("github.search"))}), 1);
    QCOMPARE(changes, 2);
    QVERIFY(!registry.find("github.list_issues"));
    QVERIFY(registry.find("github.search"));
    QVERIFY(registry.find("echo")); // another source's tools stay
    QCOMPARE(registry.replaceSource(QStringLiteral("adapter:github"), {}), 0);
    QVERIFY(!registry.sources().contains(QStringLiteral("adapter:github")));
}

void TestToolRouter::namespacedNamesAndTheirAliasesResolve()
{
    ToolRegistry registry;
    RegisteredTool tool = makeTool(QStringLiteral("github.create_issue"));
    tool.route = ToolRoute::adapter(QStringLiteral("github"));
    QVERIFY(registry.add(tool));
    const ToolRouter router(&registry);
    for (const char* name : {"github.create_issue", "mcp__switchboard__github.create_issue"}) {
        const auto resolution = router.resolve(name);
        QVERIFY2(resolution.tool, name);
        QCOMPARE(resolution.route(), ToolRoute::adapter(QStringLiteral("github")));
    }
    QVERIFY(!router.resolve("gitlab.create_issue").tool);
}

void TestToolRouter::aliasNamingAnAdapterIsThatAdaptersTool_data()
{
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("resolved"); // empty: unknown
    QTest::addColumn<QString>("unavailable"); // the reason given when unknown, if any
    QTest::newRow("the adapter's tool, not the builtin of the same name")
        << QStringLiteral("mcp__everything__echo") << QStringLiteral("everything.echo") << QString();
    QTest::newRow("a tool only the adapter has")
        << QStringLiteral("mcp__everything__get-sum") << QStringLiteral("everything.get-sum") << QString();
    QTest::newRow("a tool the adapter lacks is unknown, not the builtin")
        << QStringLiteral("mcp__everything__git_status") << QString() << QString();
    QTest::newRow("an adapter offering no tools says why, and is not the builtin")
        << QStringLiteral("mcp__down__echo") << QString() << QStringLiteral("adapter down is disabled");
    QTest::newRow("a server part that names no adapter is Switchboard")
        << QStringLiteral("mcp__switchboard__echo") << QStringLiteral("echo") << QString();
    QTest::newRow("an adapter's tool through Switchboard's name")
        << QStringLiteral("mcp__switchboard__everything.echo") << QStringLiteral("everything.echo") << QString();
    QTest::newRow("an adapter whose name has a double underscore")
        << QStringLiteral("mcp__my__adapter__echo") << QStringLiteral("my__adapter.echo") << QString();
}

// mcp__<server>__<tool>: when <server> names an adapter here, the name is that adapter's tool or an
// explicit error, never a builtin that happens to share the tool part.
void TestToolRouter::aliasNamingAnAdapterIsThatAdaptersTool()
{
    QFETCH(QString, requested);
    QFETCH(QString, resolved);
    QFETCH(QString, unavailable);
    ToolRegistry registry;
    for (const char* name : {"echo", "git_status"})
        QVERIFY(registry.add(makeTool(QString::fromLatin1(name))));
    for (const char* name : {"everything.echo", "everything.get-sum", "my__adapter.echo"}) {
        RegisteredTool tool = makeTool(QString::fromLatin1(name));
        tool.route = ToolRoute::adapter(QString::fromLatin1(name).section(QLatin1Char('.'), 0, 0));
        QVERIFY(registry.add(tool));
    }
    // "down" is configured but offers no tools (disabled).
    registry.setOwnerCheck([](const QString& owner) { return owner == QStringLiteral("down"); });
    registry.setUnavailableExplainer([](const QString& owner) {
        return owner == QStringLiteral("down")
            ? ToolRegistry::Unavailability{QStringLiteral("adapter down is disabled"), CallStatus::UpstreamError}
            : ToolRegistry::Unavailability();
    });
    const ToolRouter router(&registry);
    const ToolRouter::Resolution resolution = router.resolve(requested.toStdString());
    if (resolved.isEmpty()) {
        QVERIFY2(!resolution.tool, qPrintable(resolution.tool ? resolution.tool->spec.name : QString()));
        QCOMPARE(resolution.unavailableReason, unavailable);
        const QString message = ToolRouter::unknownToolMessage(requested, resolution);
        QVERIFY2(message.contains(requested), qPrintable(message));
    } else {
        QVERIFY2(resolution.tool, qPrintable(requested));
        QCOMPARE(resolution.tool->spec.name, resolved);
    }
}

// With thousands of tools the search for close matches stops comparing by edit distance after a
// fixed amount of work; an owner's own tools are compared first, so a typo in a namespaced name
// still finds its tool.
void TestToolRouter::suggestionsLookAtTheOwnersToolsFirst()
{
    ToolRegistry registry;
    std::vector<RegisteredTool> many;
    for (int i = 0; i < 20'000; ++i)
        many.push_back(makeTool(QStringLiteral("b%1.create_x").arg(i, 5, 10, QLatin1Char('0'))));
    // Names as long as the typo, so each would be compared by edit distance: far more than the
    // budget allows, and all of them listed before "zz.".
    QCOMPARE(registry.replaceSource(QStringLiteral("bulk"), many), 20'000);
    QVERIFY(registry.add(makeTool(QStringLiteral("zz.create_issue"))));
    const ToolRouter router(&registry);
    const auto resolution = router.resolve("zz.create_isue");
    QVERIFY(!resolution.tool);
    QCOMPARE(resolution.closestMatches.value(0), QStringLiteral("zz.create_issue"));
    QVERIFY(resolution.closestMatches.size() <= 3);
}

QTEST_GUILESS_MAIN(TestToolRouter)
#include "tst_toolrouter.moc"
