// SwitchboardConfig: defaults, values, and errors that name the file, line and key.

#include "config/switchboardconfig.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

class TestSwitchboardConfig : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void missingFileMeansDefaults();
    void readsEveryKey();
    void unknownKeysAreWarnings();
    void readsInteractionPermissionsAndClientTools();
    void readsOAuthProviders();
    void readsSecrets();
    void errors_data();
    void errors();
    void emptySectionsAreDefaults();
    void readsExecutionWithoutWarnings();
    void readsGit();
    void readsTheMcpEndpointsExampleAsWritten();
    void mcpEndpointErrors_data();
    void mcpEndpointErrors();
    void readsTheSinksExampleAsWritten();
    void sinkErrors_data();
    void sinkErrors();
    void readsCommandTools();
    void commandToolErrors_data();
    void commandToolErrors();

private:
    // For rows of `text` and `expected`: loading the text fails with `expected` after the file name.
    void refusedWithLineAndKey()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        qunsetenv("SWITCHBOARD_TEST_UNSET_VARIABLE");
        SwitchboardConfig config;
        QString error;
        const QString path = write(text);
        QVERIFY(!SwitchboardConfig::load(path, &config, &error));
        QVERIFY2(error.startsWith(path + expected), qPrintable(error));
    }
    QString write(const QByteArray& text)
    {
        const QString path = m_dir.filePath(QStringLiteral("config-%1.yaml").arg(++m_count));
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(text);
        return path;
    }
    QTemporaryDir m_dir;
    int m_count = 0;
};

void TestSwitchboardConfig::missingFileMeansDefaults()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY(SwitchboardConfig::load(m_dir.filePath(QStringLiteral("absent.yaml")), &config, &error));
    QCOMPARE(config.port, quint16(8765));
    QCOMPARE(config.bindAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(config.maxBodyBytes, qint64(4 * 1024 * 1024));
    QVERIFY(config.warnings.isEmpty());
    QVERIFY(SwitchboardConfig::load(write(""), &config, &error));
}

void TestSwitchboardConfig::readsEveryKey()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("server:\n"
                                           "  port: 9000\n"
                                           "  bind: ::1\n"
                                           "  allowedOrigins: [https://inspector.example]\n"
                                           "  allowedHosts:\n    - switchboard.local\n"
                                           "  maxBodyBytes: 1048576\n"
                                           "  toolsPageSize: 25\n"
                                           "  maxSessions: 8\n"
                                           "console:\n  callLogRows: 500\n  callLogBytes: 8388608\n"
                                           "history:\n  maxCalls: 2000\n"),
                 &config, &error),
        qPrintable(error));
    QCOMPARE(config.port, quint16(9000));
    QCOMPARE(config.bindAddress, QStringLiteral("::1"));
    QCOMPARE(config.allowedOrigins, QStringList{QStringLiteral("https://inspector.example")});
    QCOMPARE(config.allowedHosts, QStringList{QStringLiteral("switchboard.local")});
    QCOMPARE(config.maxBodyBytes, qint64(1048576));
    QCOMPARE(config.toolsPageSize, 25);
    QCOMPARE(config.maxSessions, 8);
    QCOMPARE(config.callLogRows, 500);
    QCOMPARE(config.callLogBytes, qint64(8388608));
    QCOMPARE(config.historyMaxCalls, qint64(2000));
}

void TestSwitchboardConfig::readsInteractionPermissionsAndClientTools()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(
                 write("interaction:\n"
                       "  mode: park\n"
                       "  clients: {claude-code: hold, runner: park, agent: task}\n"
                       "  maxWaitSeconds: 30\n"
                       "  progressIntervalSeconds: 2\n"
                       "tasks:\n"
                       "  promoteAfterMs: 250\n"
                       "  ttlSeconds: 120\n"
                       "  pollIntervalMs: 500\n"
                       "  maxTasks: 50\n"
                       "  maxBytes: 2097152\n"
                       "permissions:\n"
                       "  default: deny\n"
                       "  tools: {echo: allow, push: ask}\n"
                       "  adapters: {github: ask}\n"
                       "  sinks: {slack: deny}\n"
                       "clientTools:\n"
                       "  - name: choose_branch\n"
                       "    description: Which branch?\n"
                       "    input_schema:\n"
                       "      type: object\n"
                       "      properties: {question: {type: string}, count: {type: integer}}\n"
                       "      required: [question]\n"
                       "    render: choice\n"
                       "    choices: [main, develop]\n"
                       "  - name: fill\n"
                       "    render: form\n"
                       "    responseSchema: {type: object, properties: {n: {type: number}, b: {type: string}}}\n"),
                 &config, &error),
        qPrintable(error));
    QCOMPARE(config.interactionMode, QStringLiteral("park"));
    QCOMPARE(config.clientModes.value(QStringLiteral("claude-code")), QStringLiteral("hold"));
    QCOMPARE(config.clientModes.value(QStringLiteral("runner")), QStringLiteral("park"));
    QCOMPARE(config.clientModes.value(QStringLiteral("agent")), QStringLiteral("task"));
    QCOMPARE(config.taskPromoteAfterMs, 250);
    QCOMPARE(config.taskTtlSeconds, 120);
    QCOMPARE(config.taskPollIntervalMs, 500);
    QCOMPARE(config.maxTasks, 50);
    QCOMPARE(config.maxTaskBytes, qint64(2097152));
    QCOMPARE(config.maxWaitSeconds, 30);
    QCOMPARE(config.progressIntervalSeconds, 2);
    QCOMPARE(config.defaultPermission, QStringLiteral("deny"));
    QCOMPARE(config.toolPermissions.value(QStringLiteral("push")), QStringLiteral("ask"));
    QCOMPARE(config.adapterPermissions.value(QStringLiteral("github")), QStringLiteral("ask"));
    QCOMPARE(config.sinkPermissions.value(QStringLiteral("slack")), QStringLiteral("deny"));
    QCOMPARE(int(config.clientTools.size()), 2);
    const ClientToolConfig& choice = config.clientTools.front();
    QCOMPARE(choice.render, QStringLiteral("choice"));
    QCOMPARE(choice.choices, (QStringList{QStringLiteral("main"), QStringLiteral("develop")}));
    QVERIFY(choice.spec.at("name") == "choose_branch");
    QVERIFY(!choice.spec.contains("render"));
    // Schemas keep their JSON types: strings stay strings, lists become arrays.
    QVERIFY(choice.spec.at("input_schema").at("properties").at("count").at("type") == "integer");
    QVERIFY(choice.spec.at("input_schema").at("required") == nlohmann::json::array({"question"}));
    QVERIFY(config.clientTools.back().responseSchema.at("properties").at("n").at("type") == "number");
    // A form shows its fields in the order the operator wrote them, not sorted.
    QCOMPARE(config.clientTools.back().responseSchema.at("properties").begin().key(), std::string("n"));
}

void TestSwitchboardConfig::readsOAuthProviders()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("oauthProviders:\n"
                                           "  - name: github\n"
                                           "    title: GitHub\n"
                                           "    authorizationUrl: https://github.com/login/oauth/authorize\n"
                                           "    tokenUrl: https://github.com/login/oauth/access_token\n"
                                           "    clientId: Iv1.abc\n"
                                           "    clientSecret: s3cret\n"
                                           "    scopes: [read:user, user:email]\n"
                                           "    userinfoUrl: https://api.github.com/user\n"
                                           "    accountField: login\n"
                                           "    authorizationParameters: {allow_signup: 'false', prompt: consent}\n"
                                           "  - name: local\n"
                                           "    authorizationUrl: http://127.0.0.1:9000/authorize\n"
                                           "    tokenUrl: http://localhost:9000/token\n"
                                           "    clientId: switchboard\n"),
                 &config, &error),
        qPrintable(error));
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(QLatin1Char('\n'))));
    QCOMPARE(config.oauthProviders.size(), 2);
    const OAuthProvider& github = config.oauthProviders.at(0);
    QCOMPARE(github.name, QStringLiteral("github"));
    QCOMPARE(github.displayTitle(), QStringLiteral("GitHub"));
    QCOMPARE(github.authorizationUrl, QUrl(QStringLiteral("https://github.com/login/oauth/authorize")));
    QCOMPARE(github.tokenUrl, QUrl(QStringLiteral("https://github.com/login/oauth/access_token")));
    QCOMPARE(github.clientId, QStringLiteral("Iv1.abc"));
    QCOMPARE(github.clientSecret, QStringLiteral("s3cret"));
    QCOMPARE(github.scopes, (QStringList{QStringLiteral("read:user"), QStringLiteral("user:email")}));
    QCOMPARE(github.userinfoUrl, QUrl(QStringLiteral("https://api.github.com/user")));
    QCOMPARE(github.accountField, QStringLiteral("login"));
    QCOMPARE(github.authorizationParameters.value(QStringLiteral("allow_signup")), QStringLiteral("false"));
    QCOMPARE(github.authorizationParameters.value(QStringLiteral("prompt")), QStringLiteral("consent"));
    QVERIFY(github.validate().isEmpty());
    // A public client on a loopback server: no secret, http allowed, the title defaults to the name.
    const OAuthProvider& local = config.oauthProviders.at(1);
    QVERIFY(local.clientSecret.isEmpty());
    QCOMPARE(local.displayTitle(), QStringLiteral("local"));
    QVERIFY(local.userinfoUrl.isEmpty());
    QVERIFY(local.validate().isEmpty());
}

void TestSwitchboardConfig::readsSecrets()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY(SwitchboardConfig::load(write("console:\n  callLogRows: 500\n"), &config, &error));
    QCOMPARE(config.secretStorage, SwitchboardConfig::SecretStorage::Keychain);
    QCOMPARE(config.secretsFile, QString());

    QVERIFY2(SwitchboardConfig::load(
                 write("secrets:\n  store: file\n  file: /srv/switchboard/secrets.json\n"), &config, &error),
        qPrintable(error));
    QCOMPARE(config.secretStorage, SwitchboardConfig::SecretStorage::OwnerOnlyFile);
    QCOMPARE(config.secretsFile, QStringLiteral("/srv/switchboard/secrets.json"));
    QVERIFY(config.warnings.isEmpty());

    QVERIFY(SwitchboardConfig::load(write("secrets: file\n"), &config, &error)); // the short form
    QCOMPARE(config.secretStorage, SwitchboardConfig::SecretStorage::OwnerOnlyFile);
    QCOMPARE(config.secretsFile, QString());
    QVERIFY(SwitchboardConfig::load(write("secrets: {store: keychain}\n"), &config, &error));
    QCOMPARE(config.secretStorage, SwitchboardConfig::SecretStorage::Keychain);

    // A file given while the keychain is chosen is a mistake worth a word, not an error.
    QVERIFY(SwitchboardConfig::load(write("secrets:\n  file: /tmp/s.json\n"), &config, &error));
    QCOMPARE(config.secretStorage, SwitchboardConfig::SecretStorage::Keychain);
    QCOMPARE(config.warnings.size(), 1);
    QVERIFY2(config.warnings.first().contains(QStringLiteral(":2: secrets.file is ignored")),
        qPrintable(config.warnings.first()));

    const QList<std::pair<QByteArray, QString>> errors = {
        {"secrets: vault\n", QStringLiteral(":1: secrets.store must be one of keychain, file")},
        {"secrets:\n  store: plaintext\n", QStringLiteral(":2: secrets.store must be one of keychain, file")},
        {"secrets:\n  store: file\n  file: secrets.json\n",
            QStringLiteral(":3: secrets.file must be an absolute path")},
        {"secrets: [file]\n", QStringLiteral("secrets.store must be keychain or file")},
    };
    for (const auto& [text, errorContains] : errors) {
        error.clear();
        QVERIFY2(!SwitchboardConfig::load(write(text), &config, &error), text.constData());
        QVERIFY2(error.contains(errorContains), qPrintable(error));
    }
    QVERIFY(SwitchboardConfig::load(write("secrets:\n  store: file\n  vault: x\n"), &config, &error));
    QVERIFY(config.warnings.join(QLatin1Char('\n')).contains(QStringLiteral("unknown key secrets.vault")));
}

void TestSwitchboardConfig::unknownKeysAreWarnings()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY(SwitchboardConfig::load(write("server:\n  prot: 1\nextra: {}\n"), &config, &error));
    QCOMPARE(config.warnings.size(), 2);
    QVERIFY(config.warnings.join(QLatin1Char('\n')).contains(QStringLiteral(":2: unknown key server.prot")));
    QVERIFY(config.warnings.join(QLatin1Char('\n')).contains(QStringLiteral("unknown key extra")));
}

void TestSwitchboardConfig::errors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("errorContains"); // pieces separated by * appear in this order
    QTest::newRow("malformed yaml") << QByteArray("server: [unclosed\n") << QStringLiteral(":2:");
    QTest::newRow("not a mapping") << QByteArray("- a\n- b\n") << QStringLiteral("mapping of sections");
    QTest::newRow("port type") << QByteArray("server:\n  port: eighty\n")
                               << QStringLiteral(":2: server.port must be a number");
    QTest::newRow("port range") << QByteArray("server:\n  port: 70000\n")
                                << QStringLiteral("server.port must be between 0 and 65535");
    QTest::newRow("origins type") << QByteArray("server:\n  allowedOrigins: yes\n")
                                  << QStringLiteral("server.allowedOrigins must be a list");
    QTest::newRow("mode") << QByteArray("interaction:\n  mode: wait\n")
                          << QStringLiteral("interaction.mode must be one of hold, park, task");
    QTest::newRow("client mode") << QByteArray("interaction:\n  clients: {a: sometimes}\n")
                                 << QStringLiteral("interaction.clients a must be one of hold, park, task");
    QTest::newRow("task lifetime") << QByteArray("tasks:\n  ttlSeconds: 1\n")
                                   << QStringLiteral("tasks.ttlSeconds must be between 10 and 2592000");
    QTest::newRow("permission") << QByteArray("permissions:\n  tools: {rm: maybe}\n")
                                << QStringLiteral(":2: permissions.tools rm must be one of allow, ask, deny");
    QTest::newRow("client tool without name")
        << QByteArray("clientTools:\n  - render: confirm\n") << QStringLiteral("clientTools each entry needs a name");
    QTest::newRow("client tool render") << QByteArray("clientTools:\n  - name: x\n    render: dance\n")
                                        << QStringLiteral("clientTools[].render must be one of connect");
    QTest::newRow("oauth not a list") << QByteArray("oauthProviders: {github: {}}\n")
                                      << QStringLiteral("oauthProviders must be a list of providers");
    QTest::newRow("oauth without name") << QByteArray("oauthProviders:\n  - clientId: x\n")
                                        << QStringLiteral(":2: oauthProviders each entry needs a name");
    QTest::newRow("oauth without client id")
        << QByteArray("oauthProviders:\n  - name: gh\n    authorizationUrl: https://a.example/auth\n"
                      "    tokenUrl: https://a.example/token\n")
        << QStringLiteral("oauthProviders[gh].clientId is required");
    QTest::newRow("oauth without token url")
        << QByteArray("oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/auth\n")
        << QStringLiteral("oauthProviders[gh].tokenUrl is required");
    QTest::newRow("oauth http to a remote host")
        << QByteArray("oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/auth\n"
                      "    tokenUrl: http://a.example/token\n")
        << QStringLiteral(":5: oauthProviders[gh].tokenUrl must be an https URL (http is allowed only for loopback");
    QTest::newRow("oauth other scheme") << QByteArray(
        "oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: ftp://a.example/auth\n"
        "    tokenUrl: https://a.example/token\n")
                                        << QStringLiteral(
                                               "oauthProviders[gh].authorizationUrl must be an https URL, not ftp");
    QTest::newRow("oauth relative url") << QByteArray(
        "oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: /authorize\n"
        "    tokenUrl: https://a.example/token\n")
                                        << QStringLiteral(
                                               "oauthProviders[gh].authorizationUrl must be an absolute http(s) URL");
    QTest::newRow("oauth userinfo url") << QByteArray(
        "oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/a\n"
        "    tokenUrl: https://a.example/t\n    userinfoUrl: http://10.0.0.1/user\n")
                                        << QStringLiteral("oauthProviders[gh].userinfoUrl must be an https URL");
    QTest::newRow("oauth scopes type") << QByteArray(
        "oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/a\n"
        "    tokenUrl: https://a.example/t\n    scopes: repo\n")
                                       << QStringLiteral("oauthProviders[gh].scopes must be a list of strings");
    QTest::newRow("oauth parameters type")
        << QByteArray("oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/a\n"
                      "    tokenUrl: https://a.example/t\n    authorizationParameters: [a]\n")
        << QStringLiteral("oauthProviders[gh].authorizationParameters must be a mapping of strings");
    QTest::newRow("oauth reserved parameter")
        << QByteArray("oauthProviders:\n  - name: gh\n    clientId: x\n    authorizationUrl: https://a.example/a\n"
                      "    tokenUrl: https://a.example/t\n    authorizationParameters: {state: fixed}\n")
        << QStringLiteral("oauthProviders[gh].authorizationParameters must not set state");
    QTest::newRow("oauth duplicate name") << QByteArray(
        "oauthProviders:\n"
        "  - {name: gh, clientId: x, authorizationUrl: 'https://a.example/a', tokenUrl: 'https://a.example/t'}\n"
        "  - {name: gh, clientId: y, authorizationUrl: 'https://a.example/a', tokenUrl: 'https://a.example/t'}\n")
                                          << QStringLiteral(
                                                 ":3: oauthProviders[gh].name is used by an earlier provider");
    QTest::newRow("form without schema") << QByteArray("clientTools:\n  - name: x\n    render: form\n")
                                         << QStringLiteral("responseSchema is required for render: form");
    // Files that crashed or hung the program (issue 8, item 15): each is refused with the file,
    // the line and the key.
    QTest::newRow("complex key") << QByteArray("? [a, b]\n: 1\n")
                                 << QStringLiteral(":1: the document has a key that is a list; keys must be plain");
    QTest::newRow("complex key in a section")
        << QByteArray("server:\n  port: 1\n  ? {a: 1}\n  : 2\n")
        << QStringLiteral(":3: server has a key that is a mapping; keys must be plain strings");
    QTest::newRow("complex key in a schema")
        << QByteArray("clientTools:\n  - name: t\n    inputSchema:\n      properties:\n        ? [x]\n        : 1\n")
        << QStringLiteral(":5: clientTools[0].inputSchema.properties has a key that is a list");
    QTest::newRow("recursive anchor in a client tool schema")
        << QByteArray("clientTools:\n  - name: t\n    inputSchema: &schema\n      type: object\n"
                      "      properties:\n        self: *schema\n")
        << QStringLiteral(":3: clientTools[0].inputSchema.properties.self contains itself (an alias used inside its "
                          "own anchor)");
    QTest::newRow("recursive anchor in a list") << QByteArray("server:\n  allowedHosts: &h [a, *h]\n")
                                                << QStringLiteral("server.allowedHosts[1] contains itself");
    {
        // A billion laughs: nine lines that stand for 10^8 values once the aliases are expanded.
        QByteArray laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (int level = 1; level <= 8; ++level) {
            laughs += "l" + QByteArray::number(level) + ": &l" + QByteArray::number(level) + " [";
            for (int i = 0; i < 10; ++i)
                laughs += (i ? ", *l" : "*l") + QByteArray::number(level - 1);
            laughs += "]\n";
        }
        laughs += "clientTools:\n  - name: t\n    inputSchema: {type: object, default: *l8}\n";
        QTest::newRow("alias chain of 10^8 values")
            << laughs << QStringLiteral(": the file holds more than 100000 values once aliases are expanded");
    }
    {
        QByteArray deep = "clientTools:\n  - name: t\n    inputSchema: ";
        deep += QByteArray(100, '[') + QByteArray(100, ']') + "\n";
        QTest::newRow("nested too deep")
            << deep << QStringLiteral(":3: clientTools[0].inputSchema[0][0]*[0] is nested deeper than 64 levels");
    }
    QTest::newRow("server not a mapping")
        << QByteArray("server: 5\n") << QStringLiteral(":1: server must be a mapping of keys to values");
    QTest::newRow("console not a mapping")
        << QByteArray("console: [callLogRows]\n") << QStringLiteral(":1: console must be a mapping");
    QTest::newRow("history not a mapping")
        << QByteArray("console: {}\nhistory: lots\n") << QStringLiteral(":2: history must be a mapping");
    QTest::newRow("interaction not a mapping")
        << QByteArray("interaction: park\n") << QStringLiteral(":1: interaction must be a mapping");
    QTest::newRow("permissions not a mapping")
        << QByteArray("permissions: [allow]\n") << QStringLiteral(":1: permissions must be a mapping");
    QTest::newRow("clientTools not a list")
        << QByteArray("clientTools: 5\n") << QStringLiteral(":1: clientTools must be a list of tools");
    QTest::newRow("git root relative") << QByteArray("git:\n  roots: [work]\n")
                                       << QStringLiteral(":2: git.roots must be absolute paths");
    QTest::newRow("git scheme") << QByteArray("git:\n  schemes: [https, ext]\n")
                                << QStringLiteral("git.schemes may hold only");
    QTest::newRow("git local not bool") << QByteArray("git:\n  allowLocalRemotes: sometimes\n")
                                        << QStringLiteral("git.allowLocalRemotes must be true or false");
    QTest::newRow("git timeout") << QByteArray("git:\n  timeoutSeconds: 0\n")
                                 << QStringLiteral("git.timeoutSeconds must be between 1 and");
    QTest::newRow("git credentials") << QByteArray("git:\n  credentials: [github]\n")
                                     << QStringLiteral("git.credentials must be a mapping");
    QTest::newRow("rows too small") << QByteArray("console:\n  callLogRows: 3\n")
                                    << QStringLiteral("console.callLogRows must be between");
    QTest::newRow("log bytes too small") << QByteArray("console:\n  callLogBytes: 1000\n")
                                         << QStringLiteral("console.callLogBytes must be between");
}

void TestSwitchboardConfig::errors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, errorContains);
    SwitchboardConfig config;
    QString error;
    const QString path = write(text);
    QVERIFY(!SwitchboardConfig::load(path, &config, &error));
    qsizetype from = 0;
    for (const QString& piece : errorContains.split(QLatin1Char('*'))) {
        from = error.indexOf(piece, from);
        QVERIFY2(from >= 0, qPrintable(error.left(500)));
    }
    QVERIFY2(error.contains(path), qPrintable(error));
}

void TestSwitchboardConfig::emptySectionsAreDefaults()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("server:\nconsole:\nclientTools:\nsecrets:\n"), &config, &error),
        qPrintable(error));
    QCOMPARE(config.port, quint16(8765));
    QVERIFY(config.clientTools.empty());
    // Aliases within the bounds are read as written.
    QVERIFY2(SwitchboardConfig::load(write("server:\n  allowedHosts: &hosts [a.local, b.local]\n"
                                           "  allowedOrigins: *hosts\n"),
                 &config, &error),
        qPrintable(error));
    QCOMPARE(config.allowedOrigins, (QStringList{QStringLiteral("a.local"), QStringLiteral("b.local")}));
}

// Regression: the execution section (issue 9) was read but not among the known sections, so every
// configuration that used it also got an "unknown key execution" warning.
void TestSwitchboardConfig::readsExecutionWithoutWarnings()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(
                 write("execution:\n  workers: 4\n  deadlines: {git_clone_repository: 1800}\n"), &config, &error),
        qPrintable(error));
    QCOMPARE(config.executionWorkers, 4);
    QCOMPARE(config.toolDeadlineSeconds.value(QStringLiteral("git_clone_repository")), 1800);
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(QLatin1Char('\n'))));
}

void TestSwitchboardConfig::readsGit()
{
    SwitchboardConfig config;
    QString error;
    QCOMPARE(config.git.schemes, (QStringList{QStringLiteral("https"), QStringLiteral("ssh"), QStringLiteral("git")}));
    QVERIFY(!config.git.allowLocalRemotes);
    QCOMPARE(config.git.timeoutSeconds, 300);
    QVERIFY2(SwitchboardConfig::load(write("git:\n"
                                           "  roots: [/srv/work, /home/op/src]\n"
                                           "  schemes: [https, http]\n"
                                           "  allowLocalRemotes: true\n"
                                           "  timeoutSeconds: 60\n"
                                           "  credentials: {GitHub.com: github, git.example: gitea}\n"),
                 &config, &error),
        qPrintable(error));
    QCOMPARE(config.git.roots, (QStringList{QStringLiteral("/srv/work"), QStringLiteral("/home/op/src")}));
    QCOMPARE(config.git.schemes, (QStringList{QStringLiteral("https"), QStringLiteral("http")}));
    QVERIFY(config.git.allowLocalRemotes);
    QCOMPARE(config.git.timeoutSeconds, 60);
    QCOMPARE(config.git.credentialProviders.value(QStringLiteral("github.com")), QStringLiteral("github"));
    QCOMPARE(config.git.credentialProviders.value(QStringLiteral("git.example")), QStringLiteral("gitea"));
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(QLatin1Char('\n'))));
}

// The example from issue 11, as written, with its snake_case keys and ${VAR} tokens.
void TestSwitchboardConfig::readsTheMcpEndpointsExampleAsWritten()
{
    qputenv("MCP_FS_TOKEN", "fs-secret");
    qputenv("MCP_DB_TOKEN", "db-secret");
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("mcp_endpoints:\n"
                                           "  - name: filesystem\n"
                                           "    endpoint: http://mcp-filesystem:8080\n"
                                           "    auth_token: ${MCP_FS_TOKEN}\n"
                                           "    read_only: true\n"
                                           "    enabled: true\n"
                                           "  - name: database\n"
                                           "    endpoint: http://mcp-database:8080\n"
                                           "    auth_token: ${MCP_DB_TOKEN}\n"
                                           "    read_only: false  # Allow writes\n"
                                           "    enabled: true\n"
                                           "    elicitation: client\n"
                                           "  - name: slow-one_2\n"
                                           "    endpoint: https://127.0.0.1:9/mcp\n"
                                           "    auth_token: pre-${MCP_FS_TOKEN}-$${LITERAL}\n"
                                           "    enabled: false\n"
                                           "    timeout: 2.5\n"
                                           "    circuit_breaker:\n"
                                           "      failure_threshold: 3\n"
                                           "      recovery_timeout: 0.25\n"
                                           "      half_open_max_calls: 2\n"),
                 &config, &error),
        qPrintable(error));
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(u'\n')));
    QCOMPARE(config.adapters.size(), 3);
    const AdapterConfig& filesystem = config.adapters[0];
    QCOMPARE(filesystem.name, QStringLiteral("filesystem"));
    QCOMPARE(filesystem.endpoint, QUrl(QStringLiteral("http://mcp-filesystem:8080")));
    QCOMPARE(filesystem.authToken, QStringLiteral("fs-secret"));
    QVERIFY(filesystem.readOnly);
    QVERIFY(filesystem.enabled);
    // The documented defaults.
    QCOMPARE(filesystem.timeout, std::chrono::milliseconds(30'000));
    QCOMPARE(filesystem.breaker.failureThreshold, 5);
    QCOMPARE(filesystem.breaker.recoveryTimeout, std::chrono::milliseconds(30'000));
    QCOMPARE(filesystem.breaker.halfOpenMaxCalls, 1);
    const AdapterConfig& database = config.adapters[1];
    QCOMPARE(database.authToken, QStringLiteral("db-secret"));
    QVERIFY(!database.readOnly);
    QVERIFY(database.elicitationByClient);
    QVERIFY(!filesystem.elicitationByClient); // console, the default
    const AdapterConfig& slow = config.adapters[2];
    QCOMPARE(slow.authToken, QStringLiteral("pre-fs-secret-${LITERAL}"));
    QVERIFY(!slow.enabled);
    QCOMPARE(slow.timeout, std::chrono::milliseconds(2'500));
    QCOMPARE(slow.breaker.failureThreshold, 3);
    QCOMPARE(slow.breaker.recoveryTimeout, std::chrono::milliseconds(250));
    QCOMPARE(slow.breaker.halfOpenMaxCalls, 2);
}

void TestSwitchboardConfig::mcpEndpointErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected"); // in the error, after the file name

    const QByteArray head = "mcp_endpoints:\n  - name: fs\n    endpoint: http://127.0.0.1:1\n";
    QTest::newRow("an unset variable is named")
        << head + "    auth_token: ${SWITCHBOARD_TEST_UNSET_VARIABLE}\n"
        << QStringLiteral(":4: mcp_endpoints[fs].auth_token uses the environment variable "
                          "SWITCHBOARD_TEST_UNSET_VARIABLE, which is not set");
    QTest::newRow("not a variable name") << head + "    auth_token: ${1x}\n"
                                         << QStringLiteral(":4: mcp_endpoints[fs].auth_token refers to ${1x}");
    QTest::newRow("a name with a dot") << QByteArray("mcp_endpoints:\n  - name: a.b\n    endpoint: http://h:1\n")
                                       << QStringLiteral(":2: mcp_endpoints[a.b].name must be 1 to 64 letters");
    QTest::newRow("the same name twice") << head + "  - name: fs\n    endpoint: http://127.0.0.1:2\n"
                                         << QStringLiteral(":4: mcp_endpoints[fs].name is used by an earlier endpoint");
    QTest::newRow("no endpoint") << QByteArray("mcp_endpoints:\n  - name: fs\n")
                                 << QStringLiteral(":2: mcp_endpoints[fs].endpoint is required");
    QTest::newRow("not an http URL") << QByteArray("mcp_endpoints:\n  - name: fs\n    endpoint: ftp://h/x\n")
                                     << QStringLiteral(
                                            ":3: mcp_endpoints[fs].endpoint must be an http:// or https:// URL");
    QTest::newRow("a threshold of zero")
        << head + "    circuit_breaker:\n      failure_threshold: 0\n"
        << QStringLiteral(":5: mcp_endpoints[fs].circuit_breaker.failure_threshold must be between 1 and 1000000");
    QTest::newRow("a negative recovery timeout")
        << head + "    circuit_breaker: {recovery_timeout: -1}\n"
        << QStringLiteral(":4: mcp_endpoints[fs].circuit_breaker.recovery_timeout must be between 0 and 86400 seconds");
    QTest::newRow("a timeout that is no number") << head + "    timeout: soon\n"
                                                 << QStringLiteral(":4: mcp_endpoints[fs].timeout must be a number");
    QTest::newRow("read_only that is no boolean") << head
            + "    read_only: maybe\n" << QStringLiteral(":4: mcp_endpoints[fs].read_only must be true or false");
    QTest::newRow("not a list") << QByteArray("mcp_endpoints: {fs: http://h}\n")
                                << QStringLiteral(":1: mcp_endpoints must be a list of endpoints");
    QTest::newRow("an entry without a name") << QByteArray("mcp_endpoints:\n  - endpoint: http://h:1\n")
                                             << QStringLiteral(":2: mcp_endpoints each entry needs a name");
}

void TestSwitchboardConfig::mcpEndpointErrors()
{
    refusedWithLineAndKey();
}

// The README's sinks example, as written.
void TestSwitchboardConfig::readsTheSinksExampleAsWritten()
{
    qputenv("ALERTS_TOKEN", "alerts-secret");
    qputenv("NOTES_ROOT", "/srv/notes");
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("sinks:\n"
                                           "  - name: notes\n"
                                           "    type: file\n"
                                           "    root: ${NOTES_ROOT}\n"
                                           "    description: Meeting notes, one Markdown file per meeting.\n"
                                           "  - name: exports\n"
                                           "    type: file\n"
                                           "    roots: [/srv/exports, /srv/shared]\n"
                                           "    max_bytes: 1048576\n"
                                           "  - name: audit\n"
                                           "    type: jsonl\n"
                                           "    path: /var/log/switchboard/audit.jsonl\n"
                                           "    add_timestamp: true\n"
                                           "    max_file_bytes: 104857600\n"
                                           "  - name: alerts\n"
                                           "    type: webhook\n"
                                           "    url: https://hooks.example.com/services/T000/B000\n"
                                           "    headers:\n"
                                           "      Authorization: Bearer ${ALERTS_TOKEN}\n"
                                           "      X-Literal: $${NOT_EXPANDED}\n"
                                           "    timeout: 5\n"),
                 &config, &error),
        qPrintable(error));
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(u'\n')));
    QCOMPARE(config.sinks.size(), std::size_t(4));
    const SinkConfig& notes = config.sinks[0];
    QCOMPARE(notes.name, QStringLiteral("notes"));
    QCOMPARE(notes.type, SinkConfig::Type::File);
    QCOMPARE(notes.roots, QStringList{QStringLiteral("/srv/notes")});
    QCOMPARE(notes.description, QStringLiteral("Meeting notes, one Markdown file per meeting."));
    QCOMPARE(notes.maxBytes, qint64(10) * 1024 * 1024); // the documented default
    const SinkConfig& exports = config.sinks[1];
    QCOMPARE(exports.roots, QStringList({QStringLiteral("/srv/exports"), QStringLiteral("/srv/shared")}));
    QCOMPARE(exports.maxBytes, qint64(1048576));
    const SinkConfig& audit = config.sinks[2];
    QCOMPARE(audit.type, SinkConfig::Type::Jsonl);
    QCOMPARE(audit.path, QStringLiteral("/var/log/switchboard/audit.jsonl"));
    QVERIFY(audit.addTimestamp);
    QCOMPARE(audit.maxBytes, qint64(1024) * 1024);
    QCOMPARE(audit.maxFileBytes, qint64(104857600));
    const SinkConfig& alerts = config.sinks[3];
    QCOMPARE(alerts.type, SinkConfig::Type::Webhook);
    QCOMPARE(alerts.url, QUrl(QStringLiteral("https://hooks.example.com/services/T000/B000")));
    QCOMPARE(alerts.timeout, std::chrono::milliseconds(5'000));
    QCOMPARE(alerts.maxBytes, qint64(1024) * 1024);
    const QList<QPair<QByteArray, QByteArray>> headers
        = {{"Authorization", "Bearer alerts-secret"}, {"X-Literal", "${NOT_EXPANDED}"}};
    QCOMPARE(alerts.headers, headers);

    // Defaults of the other keys.
    QVERIFY(SwitchboardConfig::load(
        write(
            "sinks:\n  - {name: a, type: jsonl, path: /tmp/a.jsonl}\n  - {name: b, type: webhook, url: http://h/x}\n"),
        &config, &error));
    QVERIFY(!config.sinks[0].addTimestamp);
    QCOMPARE(config.sinks[0].maxFileBytes, qint64(0));
    QCOMPARE(config.sinks[1].timeout, std::chrono::milliseconds(10'000));
    QVERIFY(config.sinks[1].headers.isEmpty());
}

void TestSwitchboardConfig::sinkErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected"); // in the error, after the file name

    const QByteArray file = "sinks:\n  - name: notes\n    type: file\n    root: /srv/notes\n";
    const QByteArray webhook = "sinks:\n  - name: alerts\n    type: webhook\n    url: https://h/x\n";
    QTest::newRow("not a list") << QByteArray("sinks: {notes: file}\n")
                                << QStringLiteral(":1: sinks must be a list of sinks");
    QTest::newRow("an entry without a name")
        << QByteArray("sinks:\n  - type: file\n") << QStringLiteral(":2: sinks each entry needs a name");
    QTest::newRow("a name with a dot") << QByteArray("sinks:\n  - name: a.b\n    type: file\n    root: /x\n")
                                       << QStringLiteral(":2: sinks[a.b].name must be 1 to 64 letters");
    QTest::newRow("a name too long") << "sinks:\n  - name: " + QByteArray(65, 'n') + "\n    type: file\n"
                                     << QStringLiteral(":2: sinks[%1].name must be 1 to 64").arg(QString(65, u'n'));
    QTest::newRow("the same name twice") << file + "  - name: notes\n    type: jsonl\n    path: /x.jsonl\n"
                                         << QStringLiteral(":5: sinks[notes].name is used by an earlier sink");
    QTest::newRow("no type") << QByteArray("sinks:\n  - name: notes\n    root: /x\n")
                             << QStringLiteral(":2: sinks[notes].type is required: one of file, jsonl, webhook");
    QTest::newRow("an unknown type") << QByteArray("sinks:\n  - name: notes\n    type: s3\n")
                                     << QStringLiteral(":3: sinks[notes].type must be one of file, jsonl, webhook");
    QTest::newRow("an unknown key") << file + "    max_byte: 5\n"
                                    << QStringLiteral(
                                           ":5: sinks[notes].max_byte is not a key of a file sink (its keys: "
                                           "name, type, description, max_bytes, root, roots)");
    QTest::newRow("a key of another type") << file + "    url: https://h/x\n"
                                           << QStringLiteral(":5: sinks[notes].url is not a key of a file sink");
    QTest::newRow("a file sink without a root") << QByteArray("sinks:\n  - name: notes\n    type: file\n")
                                                << QStringLiteral(":2: sinks[notes].root is required");
    QTest::newRow("a relative root") << QByteArray("sinks:\n  - name: notes\n    type: file\n    root: notes\n")
                                     << QStringLiteral(":4: sinks[notes].root must be an absolute path");
    QTest::newRow("a relative root in a list")
        << QByteArray("sinks:\n  - name: notes\n    type: file\n    roots: [/a, b]\n")
        << QStringLiteral(":4: sinks[notes].roots must be an absolute path (\"b\" is not)");
    QTest::newRow("root and roots") << file + "    roots: [/a]\n"
                                    << QStringLiteral(":5: sinks[notes].roots and root cannot both be given");
    QTest::newRow("max_bytes of zero") << file + "    max_bytes: 0\n"
                                       << QStringLiteral(":5: sinks[notes].max_bytes must be between 1 and 1073741824");
    QTest::newRow("an unset variable in a root")
        << QByteArray("sinks:\n  - name: notes\n    type: file\n    root: ${SWITCHBOARD_TEST_UNSET_VARIABLE}/n\n")
        << QStringLiteral(":4: sinks[notes].root uses the environment variable SWITCHBOARD_TEST_UNSET_VARIABLE, "
                          "which is not set");
    QTest::newRow("a jsonl sink without a path") << QByteArray("sinks:\n  - name: audit\n    type: jsonl\n")
                                                 << QStringLiteral(":2: sinks[audit].path is required");
    QTest::newRow("a relative jsonl path")
        << QByteArray("sinks:\n  - name: audit\n    type: jsonl\n    path: audit.jsonl\n")
        << QStringLiteral(":4: sinks[audit].path must be an absolute path");
    QTest::newRow("add_timestamp that is no boolean")
        << QByteArray("sinks:\n  - name: audit\n    type: jsonl\n    path: /a.jsonl\n    add_timestamp: often\n")
        << QStringLiteral(":5: sinks[audit].add_timestamp must be true or false");
    QTest::newRow("a negative max_file_bytes")
        << QByteArray("sinks:\n  - name: audit\n    type: jsonl\n    path: /a.jsonl\n    max_file_bytes: -1\n")
        << QStringLiteral(":5: sinks[audit].max_file_bytes must be between 0 and");
    QTest::newRow("a webhook without a url") << QByteArray("sinks:\n  - name: alerts\n    type: webhook\n")
                                             << QStringLiteral(":2: sinks[alerts].url is required");
    QTest::newRow("a webhook that is not http")
        << QByteArray("sinks:\n  - name: alerts\n    type: webhook\n    url: ftp://h/x\n")
        << QStringLiteral(":4: sinks[alerts].url must be an http:// or https:// URL");
    QTest::newRow("a webhook URL without a host")
        << QByteArray("sinks:\n  - name: alerts\n    type: webhook\n    url: https:///x\n")
        << QStringLiteral(":4: sinks[alerts].url must be an http:// or https:// URL");
    QTest::newRow("a timeout of zero") << webhook + "    timeout: 0\n"
                                       << QStringLiteral(":5: sinks[alerts].timeout must be between 0.001 and 3600");
    QTest::newRow("headers that are a list") << webhook + "    headers: [a, b]\n"
                                             << QStringLiteral(":5: sinks[alerts].headers must be a mapping");
    QTest::newRow("a header name with a space") << webhook + "    headers: {\"X Bad\": v}\n"
                                                << QStringLiteral(":5: sinks[alerts].headers has \"X Bad\", which is "
                                                                  "not a header name");
    QTest::newRow("a reserved header") << webhook + "    headers: {Content-Length: \"5\"}\n"
                                       << QStringLiteral(":5: sinks[alerts].headers must not set Content-Length");
    QTest::newRow("a header value that is a list") << webhook + "    headers: {X-A: [1]}\n"
                                                   << QStringLiteral(":5: sinks[alerts].headers X-A must be a string");
    QTest::newRow("a line break in a header value")
        << webhook + "    headers: {X-A: \"one\\r\\nX-Injected: two\"}\n"
        << QStringLiteral(":5: sinks[alerts].headers X-A has a line break or NUL in its value");
    QTest::newRow("an unset variable in a header")
        << webhook + "    headers: {Authorization: \"Bearer ${SWITCHBOARD_TEST_UNSET_VARIABLE}\"}\n"
        << QStringLiteral(":5: sinks[alerts].headers uses the environment variable SWITCHBOARD_TEST_UNSET_VARIABLE");
}

void TestSwitchboardConfig::sinkErrors()
{
    refusedWithLineAndKey();
}

// The README's command_tools example, and the defaults.
void TestSwitchboardConfig::readsCommandTools()
{
    qputenv("WC_API_KEY", "wc-secret");
    qputenv("TOOLS_DIR", "/srv/tools");
    SwitchboardConfig config;
    QString error;
    const QString path = write("command_tools:\n"
                               "  - name: word_count\n"
                               "    description: Counts the words of a text.\n"
                               "    command: ${TOOLS_DIR}/wc-tool\n"
                               "    args: [--json, \"--root=${TOOLS_DIR}\"]\n"
                               "    env: {LANG: C.UTF-8, API_KEY: \"${WC_API_KEY}\", LITERAL: \"$${HOME}\"}\n"
                               "    cwd: /srv/tools\n"
                               "    timeout: 2.5\n"
                               "    max_concurrent: 2\n"
                               "    input_schema:\n"
                               "      type: object\n"
                               "      properties: {text: {type: string}}\n"
                               "      required: [text]\n"
                               "    annotations: {readOnlyHint: true}\n"
                               "  - name: plain\n"
                               "    command: jq\n");
    QVERIFY2(SwitchboardConfig::load(path, &config, &error), qPrintable(error));
    QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(QLatin1Char('\n'))));
    QCOMPARE(config.commandTools.size(), std::size_t(2));
    const CommandToolConfig& wc = config.commandTools[0];
    QCOMPARE(wc.spec.name, QStringLiteral("word_count"));
    QCOMPARE(wc.spec.description, QStringLiteral("Counts the words of a text."));
    QCOMPARE(wc.command, QStringLiteral("/srv/tools/wc-tool"));
    QCOMPARE(wc.args, (QStringList{QStringLiteral("--json"), QStringLiteral("--root=/srv/tools")}));
    const QList<QPair<QString, QString>> env = {{QStringLiteral("LANG"), QStringLiteral("C.UTF-8")},
        {QStringLiteral("API_KEY"), QStringLiteral("wc-secret")},
        {QStringLiteral("LITERAL"), QStringLiteral("${HOME}")}};
    QCOMPARE(wc.env, env);
    QCOMPARE(wc.workingDirectory, QStringLiteral("/srv/tools"));
    QCOMPARE(wc.timeout, std::chrono::milliseconds(2'500));
    QCOMPARE(wc.maxConcurrent, 2);
    QVERIFY(wc.spec.isReadOnly());
    QVERIFY2(wc.spec.inputSchema["required"] == nlohmann::json::array({"text"}), wc.spec.inputSchema.dump().c_str());
    const CommandToolConfig& plain = config.commandTools[1];
    QCOMPARE(plain.command, QStringLiteral("jq"));
    QVERIFY(plain.args.isEmpty());
    QCOMPARE(plain.workingDirectory, QFileInfo(path).absolutePath());
    QCOMPARE(plain.timeout, std::chrono::milliseconds(60'000));
    QCOMPARE(plain.maxConcurrent, CommandToolConfig::DefaultMaxConcurrent);
    QVERIFY(!plain.spec.isReadOnly());
    QVERIFY2(plain.spec.inputSchema == nlohmann::json({{"type", "object"}}), plain.spec.inputSchema.dump().c_str());
}

void TestSwitchboardConfig::commandToolErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected"); // in the error, after the file name

    const QByteArray tool = "command_tools:\n  - name: wc\n    command: /bin/wc\n";
    QTest::newRow("not a list") << QByteArray("command_tools: {wc: /bin/wc}\n")
                                << QStringLiteral(":1: command_tools must be a list of tools");
    QTest::newRow("an entry without a name") << QByteArray("command_tools:\n  - command: /bin/wc\n")
                                             << QStringLiteral(":2: command_tools each entry needs a name");
    QTest::newRow("a name with a dot") << QByteArray("command_tools:\n  - name: a.b\n    command: /bin/wc\n")
                                       << QStringLiteral(":2: command_tools[a.b].name must be 1 to 64 letters");
    QTest::newRow("the same name twice") << tool + "  - name: wc\n    command: /bin/cat\n"
                                         << QStringLiteral(":4: command_tools[wc].name is used by an earlier tool");
    QTest::newRow("no command") << QByteArray("command_tools:\n  - name: wc\n")
                                << QStringLiteral(":2: command_tools[wc].command is required");
    QTest::newRow("a relative command with a slash")
        << QByteArray("command_tools:\n  - name: wc\n    command: bin/wc\n")
        << QStringLiteral(":3: command_tools[wc].command must be an absolute path or a bare name");
    QTest::newRow("a command that is a list") << QByteArray("command_tools:\n  - name: wc\n    command: [a]\n")
                                              << QStringLiteral(":3: command_tools[wc].command must be a string");
    QTest::newRow("an unknown key") << tool + "    timout: 5\n"
                                    << QStringLiteral(":4: command_tools[wc].timout is not a key of a command tool "
                                                      "(its keys: name, description, command, args, env, cwd, timeout");
    QTest::newRow("args that are a mapping") << tool + "    args: {a: b}\n"
                                             << QStringLiteral(":4: command_tools[wc].args must be a list of strings");
    QTest::newRow("env that is a list") << tool + "    env: [A=b]\n"
                                        << QStringLiteral(":4: command_tools[wc].env must be a mapping");
    QTest::newRow("an env name that is no variable")
        << tool + "    env: {\"A-B\": x}\n"
        << QStringLiteral(":4: command_tools[wc].env has \"A-B\", which is "
                          "not a variable name");
    QTest::newRow("env setting TOOL_NAME") << tool + "    env: {TOOL_NAME: other}\n"
                                           << QStringLiteral(":4: command_tools[wc].env must not set TOOL_NAME");
    QTest::newRow("an env value that is a list") << tool + "    env: {A: [1]}\n"
                                                 << QStringLiteral(":4: command_tools[wc].env A must be a string");
    QTest::newRow("an unset variable in env")
        << tool + "    env: {A: \"${SWITCHBOARD_TEST_UNSET_VARIABLE}\"}\n"
        << QStringLiteral(":4: command_tools[wc].env uses the environment variable SWITCHBOARD_TEST_UNSET_VARIABLE, "
                          "which is not set");
    QTest::newRow("an unset variable in args") << tool + "    args: [\"${SWITCHBOARD_TEST_UNSET_VARIABLE}\"]\n"
                                               << QStringLiteral(":4: command_tools[wc].args uses the environment "
                                                                 "variable SWITCHBOARD_TEST_UNSET_VARIABLE");
    QTest::newRow("a relative cwd") << tool + "    cwd: tools\n"
                                    << QStringLiteral(":4: command_tools[wc].cwd must be an absolute path");
    QTest::newRow("a timeout of zero") << tool
            + "    timeout: 0\n" << QStringLiteral(":4: command_tools[wc].timeout must be between 0.001 and 86400");
    QTest::newRow("a timeout that is text") << tool
            + "    timeout: soon\n" << QStringLiteral(":4: command_tools[wc].timeout must be a number of seconds");
    QTest::newRow("max_concurrent of zero") << tool + "    max_concurrent: 0\n"
                                            << QStringLiteral(":4: command_tools[wc].max_concurrent must be between 1 "
                                                              "and 1000");
    QTest::newRow("a schema that is a list") << tool + "    inputSchema: [a]\n"
                                             << QStringLiteral(":4: command_tools[wc].inputSchema must be a JSON "
                                                               "schema object");
    QTest::newRow("both schema spellings")
        << tool + "    inputSchema: {type: object}\n    input_schema: {type: object}\n"
        << QStringLiteral(":5: command_tools[wc].input_schema and inputSchema "
                          "cannot both be given");
    QTest::newRow("annotations that are a list") << tool + "    annotations: [readOnlyHint]\n"
                                                 << QStringLiteral(":4: command_tools[wc].annotations must be a "
                                                                   "mapping");
    QTest::newRow("a description that is a mapping") << tool + "    description: {a: b}\n"
                                                     << QStringLiteral(":4: command_tools[wc].description must be a "
                                                                       "string");
}

void TestSwitchboardConfig::commandToolErrors()
{
    refusedWithLineAndKey();
}

QTEST_GUILESS_MAIN(TestSwitchboardConfig)
#include "tst_switchboardconfig.moc"
