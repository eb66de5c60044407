// SwitchboardConfig: defaults, values, and errors that name the file, line and key.

#include "config/switchboardconfig.h"

#include <QFile>
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
    void errors_data();
    void errors();

private:
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
                                           "console:\n  callLogRows: 500\n"
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
    QCOMPARE(config.historyMaxCalls, qint64(2000));
}

void TestSwitchboardConfig::readsInteractionPermissionsAndClientTools()
{
    SwitchboardConfig config;
    QString error;
    QVERIFY2(SwitchboardConfig::load(write("interaction:\n"
                                           "  mode: park\n"
                                           "  clients: {claude-code: hold, runner: park}\n"
                                           "  maxWaitSeconds: 30\n"
                                           "  progressIntervalSeconds: 2\n"
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
                                           "    responseSchema: {type: object, properties: {n: {type: number}}}\n"),
                 &config, &error),
        qPrintable(error));
    QCOMPARE(config.interactionMode, QStringLiteral("park"));
    QCOMPARE(config.clientModes.value(QStringLiteral("claude-code")), QStringLiteral("hold"));
    QCOMPARE(config.clientModes.value(QStringLiteral("runner")), QStringLiteral("park"));
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
    QTest::addColumn<QString>("errorContains");
    QTest::newRow("malformed yaml") << QByteArray("server: [unclosed\n") << QStringLiteral(":2:");
    QTest::newRow("not a mapping") << QByteArray("- a\n- b\n") << QStringLiteral("mapping of sections");
    QTest::newRow("port type") << QByteArray("server:\n  port: eighty\n")
                               << QStringLiteral(":2: server.port must be a number");
    QTest::newRow("port range") << QByteArray("server:\n  port: 70000\n")
                                << QStringLiteral("server.port must be between 0 and 65535");
    QTest::newRow("origins type") << QByteArray("server:\n  allowedOrigins: yes\n")
                                  << QStringLiteral("server.allowedOrigins must be a list");
    QTest::newRow("mode") << QByteArray("interaction:\n  mode: wait\n")
                          << QStringLiteral("interaction.mode must be one of hold, park");
    QTest::newRow("client mode") << QByteArray("interaction:\n  clients: {a: sometimes}\n")
                                 << QStringLiteral("interaction.clients a must be one of hold, park");
    QTest::newRow("permission") << QByteArray("permissions:\n  tools: {rm: maybe}\n")
                                << QStringLiteral(":2: permissions.tools rm must be one of allow, ask, deny");
    QTest::newRow("client tool without name")
        << QByteArray("clientTools:\n  - render: confirm\n") << QStringLiteral("clientTools each entry needs a name");
    QTest::newRow("client tool render") << QByteArray("clientTools:\n  - name: x\n    render: dance\n")
                                        << QStringLiteral("clientTools[].render must be one of connect");
    QTest::newRow("form without schema") << QByteArray("clientTools:\n  - name: x\n    render: form\n")
                                         << QStringLiteral("responseSchema is required for render: form");
    QTest::newRow("rows too small") << QByteArray("console:\n  callLogRows: 3\n")
                                    << QStringLiteral("console.callLogRows must be between");
}

void TestSwitchboardConfig::errors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, errorContains);
    SwitchboardConfig config;
    QString error;
    const QString path = write(text);
    QVERIFY(!SwitchboardConfig::load(path, &config, &error));
    QVERIFY2(error.contains(errorContains), qPrintable(error));
    QVERIFY2(error.contains(path), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestSwitchboardConfig)
#include "tst_switchboardconfig.moc"
