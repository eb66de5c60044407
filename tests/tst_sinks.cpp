// The sinks as the router runs them: from the configuration, through ToolRegistry (schemas checked)
// and the ToolExecutor's workers. The file sink against real trees with links leading out, its
// size bound and its atomic replace; the jsonl sink under concurrent appends, with timestamps and
// rotation; the webhook sink against a QHttpServer on loopback (the body received exactly, headers
// from ${VAR}, a 500, a server that never answers, a cancelled call).

#include "config/switchboardconfig.h"
#include "sinks/sinkregistry.h"
#include "sinks/webhooksink.h"
#include "tools/schemavalidator.h"
#include "tools/toolexecutor.h"
#include "tools/toolregistry.h"

#include "jsontestsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHostAddress>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace {

// A webhook target on 127.0.0.1: /ok answers 200 with a small JSON body, /fail 500 with a text
// body, /slow never answers (the responder is kept until the server goes away).
class WebhookTestServer
{
public:
    struct Received
    {
        QByteArray path;
        QByteArray body;
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray header(const QByteArray& name) const
        {
            for (const auto& [key, value] : headers) {
                if (key.compare(name, Qt::CaseInsensitive) == 0)
                    return value;
            }
            return {};
        }
    };

    WebhookTestServer()
    {
        m_server.route(QStringLiteral("/ok"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                record(request, "/ok");
                responder.write(QByteArrayLiteral("{\"accepted\":true}"), "application/json");
            });
        m_server.route(QStringLiteral("/fail"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                record(request, "/fail");
                responder.write(QByteArrayLiteral("database is down"), "text/plain",
                    QHttpServerResponder::StatusCode::InternalServerError);
            });
        m_server.route(QStringLiteral("/slow"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                record(request, "/slow");
                m_waiting.push_back(std::make_unique<QHttpServerResponder>(std::move(responder)));
            });
        m_server.route(QStringLiteral("/redirect"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                record(request, "/redirect");
                responder.write({{"Location", "/ok"}, {"Content-Length", "0"}},
                    QHttpServerResponder::StatusCode::TemporaryRedirect);
            });
        m_server.route(QStringLiteral("/big"), QHttpServerRequest::Method::Post,
            [this](const QHttpServerRequest& request, QHttpServerResponder&& responder) {
                record(request, "/big");
                responder.write(QByteArray(1024 * 1024, 'b'), "text/plain");
            });
        port = m_server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    }

    QString url(const char* path) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QLatin1String(path));
    }

    quint16 port = 0;
    std::vector<Received> received;

private:
    void record(const QHttpServerRequest& request, const char* path)
    {
        received.push_back({QByteArray(path), request.body(), request.headers()});
    }

    QHttpServer m_server;
    std::vector<std::unique_ptr<QHttpServerResponder>> m_waiting;
};

QString str(const json& value)
{
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString();
}

QString messageOf(const ToolResult& result)
{
    return str(result.structuredContent.value("message", json()));
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

void writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
}

// A context as the router makes one for a call that runs directly on this thread.
std::shared_ptr<ToolCallContext> directContext(const QString& tool, json arguments)
{
    CallMetadata metadata;
    metadata.tool = tool;
    ToolCallContext::Hooks hooks;
    hooks.notify = [](const json&) {};
    hooks.wantsLog = [](LogLevel) { return false; };
    hooks.complete = [](ToolResult) {};
    return std::make_shared<ToolCallContext>(std::move(arguments), std::move(metadata), std::move(hooks));
}

} // namespace

class TestSinks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void toolsAreNamedRoutedAndAnnotated();
    void fileWritesAndAppendsInsideTheRoot();
    void fileFollowsLinksThatStayInside();
    void fileRefusesEscapes_data();
    void fileRefusesEscapes();
    void fileContentIsBounded();
    void fileWriteIsAtomic();
    void fileErrorsNameTheCause();
    void jsonlConcurrentAppendsStayWholeLines();
    void jsonlTimestampBoundAndRotation();
    void webhookPostsTheBodyWithExpandedHeaders();
    void webhookNon2xxIsAToolError();
    void webhookRedirectIsNotFollowed();
    void webhookAnswerIsBounded();
    void webhookTimesOut();
    void webhookCancellationAbortsThePost();
    void webhookUnreachableIsAToolError();

private:
    // Loads `yaml` as the configuration and registers its sinks' tools in a fresh ToolRegistry.
    bool configure(const QByteArray& yaml);
    // Runs `tool` as the router does (arguments checked against its schema, then the executor) and
    // waits for its result.
    ToolResult call(const QString& tool, const json& arguments, int timeoutMs = 15'000);
    QString root(const QString& relative = {}) const
    {
        return relative.isEmpty() ? m_root->path() : m_root->filePath(relative);
    }
    QString outside(const QString& relative = {}) const
    {
        return relative.isEmpty() ? m_outside->path() : m_outside->filePath(relative);
    }
    QByteArray fileSinkYaml(qint64 maxBytes = 0) const
    {
        QByteArray yaml = "sinks:\n  - name: notes\n    type: file\n    root: " + QFile::encodeName(root()) + "\n";
        if (maxBytes > 0)
            yaml += "    max_bytes: " + QByteArray::number(maxBytes) + "\n";
        return yaml;
    }

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<QTemporaryDir> m_outside;
    std::unique_ptr<ToolExecutor> m_executor;
    std::unique_ptr<ToolRegistry> m_registry;
    std::unique_ptr<SinkRegistry> m_sinks;
    SwitchboardConfig m_config;
    int m_configs = 0;
};

void TestSinks::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    m_outside = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid() && m_outside->isValid());
    m_executor = std::make_unique<ToolExecutor>(ToolExecutor::Settings{});
    m_registry = std::make_unique<ToolRegistry>();
}

void TestSinks::cleanup()
{
    m_executor.reset();
    m_registry.reset();
    m_sinks.reset();
}

bool TestSinks::configure(const QByteArray& yaml)
{
    const QString path = m_outside->filePath(QStringLiteral("config-%1.yaml").arg(++m_configs));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(yaml) != yaml.size())
        return false;
    file.close();
    QString error;
    if (!SwitchboardConfig::load(path, &m_config, &error)) {
        qWarning().noquote() << error;
        return false;
    }
    m_sinks = std::make_unique<SinkRegistry>(m_config.sinks);
    QStringList problems;
    m_registry->replaceSource(SinkRegistry::SourceName, m_sinks->tools(), &problems);
    if (!problems.isEmpty()) {
        qWarning().noquote() << problems.join(QLatin1Char('\n'));
        return false;
    }
    return true;
}

ToolResult TestSinks::call(const QString& name, const json& arguments, int timeoutMs)
{
    const ToolRegistry::ToolPtr tool = m_registry->find(name.toStdString());
    if (!tool)
        return ToolResult::error(QStringLiteral("test: no tool ") + name);
    if (const QStringList problems = tool->argumentValidator->check(arguments); !problems.isEmpty())
        return ToolResult::error(QStringLiteral("test: arguments refused: ") + problems.join(QStringLiteral("; ")));
    auto result = std::make_shared<std::optional<ToolResult>>();
    ToolCallContext::Hooks hooks;
    hooks.notify = [](const json&) {};
    hooks.wantsLog = [](LogLevel) { return false; };
    hooks.complete = [result](ToolResult finished) { *result = std::move(finished); };
    CallMetadata metadata;
    metadata.tool = name;
    metadata.route = tool->route;
    const auto context = std::make_shared<ToolCallContext>(arguments, metadata, hooks, m_executor->home());
    m_executor->run(tool, context);
    QElapsedTimer clock;
    clock.start();
    while (!result->has_value() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!result->has_value())
        return ToolResult::error(QStringLiteral("test: no result within %1 ms").arg(timeoutMs));
    // Every answer is in the one shape, and a success matches the tool's outputSchema.
    const ToolResult& answer = **result;
    const json& structured = answer.structuredContent;
    const bool ok = structured.value("status", "") == "success";
    if (answer.isError == ok || str(structured.value("sink", json())) != tool->route.owner
        || answer.content.size() != 2)
        return ToolResult::error(
            QStringLiteral("test: not a sink answer: ") + QString::fromStdString(answer.toJson().dump()));
    if (const QStringList breaches = SchemaValidator::validate(structured, tool->spec.outputSchema);
        !breaches.isEmpty())
        return ToolResult::error(
            QStringLiteral("test: breaks the outputSchema: ") + breaches.join(QStringLiteral("; ")));
    return answer;
}

void TestSinks::toolsAreNamedRoutedAndAnnotated()
{
    qputenv("SINK_TEST_TOKEN", "t0ken");
    QVERIFY(configure(fileSinkYaml()
        + "  - name: audit\n    type: jsonl\n    path: " + QFile::encodeName(outside(QStringLiteral("audit.jsonl")))
        + "\n  - name: alerts\n    type: webhook\n    url: http://127.0.0.1:9/hook\n"));
    QStringList names;
    for (const ToolRegistry::ToolPtr& tool : m_registry->toolsOf(SinkRegistry::SourceName))
        names << tool->spec.name;
    names.sort();
    QCOMPARE(names,
        QStringList({QStringLiteral("alerts.post"), QStringLiteral("audit.append"), QStringLiteral("notes.append"),
            QStringLiteral("notes.write")}));

    const auto annotationsOf = [this](const char* name) { return m_registry->find(name)->spec.annotations; };
    QCOMPARE(m_registry->find("notes.write")->route, ToolRoute::sink(QStringLiteral("notes")));
    QCOMPARE(m_registry->find("alerts.post")->route, ToolRoute::sink(QStringLiteral("alerts")));
    for (const char* name : {"notes.write", "notes.append", "audit.append", "alerts.post"}) {
        const ToolRegistry::ToolPtr tool = m_registry->find(name);
        QCOMPARE(tool->execution.kind, ExecutionKind::Blocking);
        QCOMPARE(tool->execution.group, QStringLiteral("sinks"));
        QVERIFY(tool->execution.groupLimit > 0);
        QVERIFY(tool->execution.deadlineMs > 0);
        QVERIFY(!tool->spec.isReadOnly());
        QCOMPARE(annotationsOf(name).value("readOnlyHint", true), false);
        QVERIFY(tool->spec.outputSchema.is_object());
    }
    QCOMPARE(annotationsOf("notes.write").value("destructiveHint", false), true);
    QCOMPARE(annotationsOf("notes.append").value("destructiveHint", true), false);
    QCOMPARE(annotationsOf("audit.append").value("destructiveHint", true), false);
    QCOMPARE(annotationsOf("alerts.post").value("openWorldHint", false), true);
    QCOMPARE(annotationsOf("notes.write").value("openWorldHint", true), false);
    // The URL's path may be the hook's secret: descriptions name scheme, host and port only.
    QVERIFY(!m_registry->find("alerts.post")->spec.description.contains(QStringLiteral("/hook")));
    // Arguments the schema forbids never reach a sink.
    QVERIFY(!m_registry->find("notes.write")->argumentValidator->check(json{{"path", "a"}}).isEmpty());
    QVERIFY(!m_registry->find("audit.append")->argumentValidator->check(json{{"record", "text"}}).isEmpty());
}

void TestSinks::fileWritesAndAppendsInsideTheRoot()
{
    QVERIFY(configure(fileSinkYaml()));
    ToolResult result
        = call(QStringLiteral("notes.write"), json{{"path", "meetings/2026/monday.md"}, {"content", "# Monday\n"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(readFile(root(QStringLiteral("meetings/2026/monday.md"))), QByteArray("# Monday\n"));
    QCOMPARE(result.structuredContent.value("created", false), true);
    QCOMPARE(result.structuredContent.value("bytes", 0), 9);
    QCOMPARE(str(result.structuredContent["path"]),
        QFileInfo(root(QStringLiteral("meetings/2026/monday.md"))).canonicalFilePath());
    QCOMPARE(str(result.structuredContent["op"]), QStringLiteral("write"));

    result = call(QStringLiteral("notes.append"), json{{"path", "meetings/2026/monday.md"}, {"content", "- item\n"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(result.structuredContent.value("created", true), false);
    QCOMPARE(readFile(root(QStringLiteral("meetings/2026/monday.md"))), QByteArray("# Monday\n- item\n"));

    // Replaced, keeping the file's permissions; absolute inside the root works too.
    QVERIFY(QFile::setPermissions(
        root(QStringLiteral("meetings/2026/monday.md")), QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    result = call(QStringLiteral("notes.write"),
        json{{"path", root(QStringLiteral("meetings/2026/monday.md")).toStdString()}, {"content", "new"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(result.structuredContent.value("created", true), false);
    QCOMPARE(readFile(root(QStringLiteral("meetings/2026/monday.md"))), QByteArray("new"));
    QCOMPARE(QFile::permissions(root(QStringLiteral("meetings/2026/monday.md"))),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);

    // Bytes as base64; an append that creates its file.
    result
        = call(QStringLiteral("notes.write"), json{{"path", "bin"}, {"content", "AAEC/w=="}, {"encoding", "base64"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(readFile(root(QStringLiteral("bin"))), QByteArray("\x00\x01\x02\xff", 4));
    result = call(
        QStringLiteral("notes.write"), json{{"path", "bin"}, {"content", "not base64!"}, {"encoding", "base64"}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("base64")), qPrintable(messageOf(result)));
    result = call(QStringLiteral("notes.append"), json{{"path", "./log.txt"}, {"content", "one\n"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(result.structuredContent.value("created", false), true);
    QCOMPARE(readFile(root(QStringLiteral("log.txt"))), QByteArray("one\n"));
    // No temporary file is left behind.
    QCOMPARE(QDir(root()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList({QStringLiteral("bin"), QStringLiteral("log.txt"), QStringLiteral("meetings")}));
}

void TestSinks::fileFollowsLinksThatStayInside()
{
    QVERIFY(configure(fileSinkYaml()));
    QVERIFY(QDir(root()).mkpath(QStringLiteral("real")));
    writeFile(root(QStringLiteral("real/target.txt")), "old");
    QVERIFY(QFile::link(root(QStringLiteral("real/target.txt")), root(QStringLiteral("alias.txt"))));
    QVERIFY(QFile::link(root(QStringLiteral("real")), root(QStringLiteral("shortcut"))));
    ToolResult result = call(QStringLiteral("notes.write"), json{{"path", "alias.txt"}, {"content", "via link"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(readFile(root(QStringLiteral("real/target.txt"))), QByteArray("via link"));
    QVERIFY(QFileInfo(root(QStringLiteral("alias.txt"))).isSymLink()); // the link stays a link
    result = call(QStringLiteral("notes.append"), json{{"path", "shortcut/target.txt"}, {"content", "!"}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(readFile(root(QStringLiteral("real/target.txt"))), QByteArray("via link!"));
}

void TestSinks::fileRefusesEscapes_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("path"); // "<outside>" stands for the directory outside the root
    QTest::addColumn<QString>("expected"); // in the message

    for (const QString& op : {QStringLiteral("write"), QStringLiteral("append")}) {
        const auto row
            = [&op](const char* name) -> QTestData& { return QTest::addRow("%s: %s", qPrintable(op), name); };
        row("dot-dot") << op << QStringLiteral("../escaped.txt") << QStringLiteral("contains '..'");
        row("dot-dot inside") << op << QStringLiteral("a/../../escaped.txt") << QStringLiteral("contains '..'");
        row("absolute outside") << op << QStringLiteral("<outside>/escaped.txt")
                                << QStringLiteral("is outside the sink's roots");
        row("a link to a file outside") << op << QStringLiteral("link-out.txt")
                                        << QStringLiteral("leads (through a symbolic link) to");
        row("a symlinked parent outside")
            << op << QStringLiteral("dir-out/escaped.txt") << QStringLiteral("is outside the sink's roots");
        row("a dangling link") << op << QStringLiteral("dangling/escaped.txt")
                               << QStringLiteral("a symbolic link that leads nowhere");
        row("the root itself") << op << QStringLiteral(".") << QStringLiteral("the sink's root directory itself");
        row("a directory") << op << QStringLiteral("sub") << QStringLiteral("is a directory");
        row("a trailing slash") << op << QStringLiteral("new/") << QStringLiteral("names a directory");
        row("below a file") << op << QStringLiteral("plain.txt/escaped.txt") << QStringLiteral("which is a file");
        row("a control character") << op << QStringLiteral("a\nb") << QStringLiteral("control character");
        if (op == QLatin1String("append"))
            row("a hard link to a file outside")
                << op << QStringLiteral("hardlink.txt") << QStringLiteral("it has other hard links");
    }
}

void TestSinks::fileRefusesEscapes()
{
    QFETCH(QString, op);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QVERIFY(configure(fileSinkYaml()));
    writeFile(outside(QStringLiteral("secret.txt")), "secret");
    QVERIFY(QFile::link(outside(QStringLiteral("secret.txt")), root(QStringLiteral("link-out.txt"))));
    QVERIFY(QFile::link(outside(), root(QStringLiteral("dir-out"))));
    QVERIFY(QFile::link(outside(QStringLiteral("nothing-here")), root(QStringLiteral("dangling"))));
    QVERIFY(QDir(root()).mkpath(QStringLiteral("sub")));
    writeFile(root(QStringLiteral("plain.txt")), "plain");
    // Both temporary directories are below /tmp, so on one file system.
    QCOMPARE(::link(QFile::encodeName(outside(QStringLiteral("secret.txt"))).constData(),
                 QFile::encodeName(root(QStringLiteral("hardlink.txt"))).constData()),
        0);
    const QStringList outsideBefore = QDir(outside()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    const QStringList rootBefore = QDir(root()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);

    path.replace(QStringLiteral("<outside>"), outside());
    const ToolResult result
        = call(QStringLiteral("notes.") + op, json{{"path", path.toStdString()}, {"content", "escaped"}});
    QVERIFY2(result.isError, qPrintable(result.firstText()));
    QVERIFY2(messageOf(result).contains(expected), qPrintable(messageOf(result)));
    QCOMPARE(str(result.structuredContent["status"]), QStringLiteral("failure"));
    // Nothing changed on either side.
    QCOMPARE(readFile(outside(QStringLiteral("secret.txt"))), QByteArray("secret"));
    QCOMPARE(QDir(outside()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), outsideBefore);
    QCOMPARE(QDir(root()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), rootBefore);
    QCOMPARE(readFile(root(QStringLiteral("plain.txt"))), QByteArray("plain"));
}

void TestSinks::fileContentIsBounded()
{
    QVERIFY(configure(fileSinkYaml(16)));
    ToolResult result = call(QStringLiteral("notes.write"), json{{"path", "a.txt"}, {"content", std::string(16, 'x')}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    result = call(QStringLiteral("notes.write"), json{{"path", "a.txt"}, {"content", std::string(17, 'y')}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("at most 16 bytes")), qPrintable(messageOf(result)));
    result = call(QStringLiteral("notes.append"), json{{"path", "a.txt"}, {"content", std::string(17, 'y')}});
    QVERIFY(result.isError);
    // 17 bytes as base64 is 24 characters: refused after decoding.
    result = call(QStringLiteral("notes.write"),
        json{{"path", "a.txt"}, {"content", QByteArray(17, 'z').toBase64().toStdString()}, {"encoding", "base64"}});
    QVERIFY(result.isError);
    QCOMPARE(readFile(root(QStringLiteral("a.txt"))), QByteArray(16, 'x'));

    // The default is 10 MiB.
    QVERIFY(configure(fileSinkYaml()));
    QCOMPARE(m_config.sinks.front().maxBytes, qint64(10) * 1024 * 1024);
}

// A reader never sees a half-written file: it sees one whole version or the other.
void TestSinks::fileWriteIsAtomic()
{
    QVERIFY(configure(fileSinkYaml()));
    const std::string a(512 * 1024, 'a');
    const std::string b(256 * 1024, 'b');
    ToolResult result = call(QStringLiteral("notes.write"), json{{"path", "big.txt"}, {"content", a}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    std::atomic<bool> stop{false};
    std::atomic<int> reads{0};
    std::atomic<int> torn{0};
    const QString path = root(QStringLiteral("big.txt"));
    std::thread reader([&] {
        while (!stop) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly))
                continue; // between unlink and rename there is no gap, but be lenient about opening
            const QByteArray seen = file.readAll();
            ++reads;
            if (seen != QByteArray::fromStdString(a) && seen != QByteArray::fromStdString(b))
                ++torn;
        }
    });
    for (int i = 0; i < 20; ++i) {
        result = call(QStringLiteral("notes.write"), json{{"path", "big.txt"}, {"content", i % 2 ? a : b}});
        if (result.isError)
            break;
    }
    stop = true;
    reader.join();
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QVERIFY(reads > 0);
    QCOMPARE(torn.load(), 0);
    QCOMPARE(QDir(root()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList({QStringLiteral("big.txt")}));
}

void TestSinks::fileErrorsNameTheCause()
{
    QVERIFY(configure(fileSinkYaml()));
    // errno in words: a name longer than the file system takes.
    const std::string longName(300, 'n');
    ToolResult result = call(QStringLiteral("notes.write"), json{{"path", longName}, {"content", "x"}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("the name is too long")), qPrintable(messageOf(result)));
    QCOMPARE(QDir(root()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());

    // A root that does not exist: reported when the sinks are built, and in every call.
    QVERIFY(
        configure("sinks:\n  - name: notes\n    type: file\n    root: " + QFile::encodeName(root()) + "/missing\n"));
    QCOMPARE(m_sinks->problems().size(), 1);
    QVERIFY2(m_sinks->problems().first().contains(QStringLiteral("is not an existing directory")),
        qPrintable(m_sinks->problems().first()));
    result = call(QStringLiteral("notes.write"), json{{"path", "a"}, {"content", "x"}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("do not exist")), qPrintable(messageOf(result)));

    if (::geteuid() == 0)
        QSKIP("root writes into read-only directories");
    QVERIFY(QDir(root()).mkpath(QStringLiteral("locked")));
    QVERIFY(QFile::setPermissions(root(QStringLiteral("locked")), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    QVERIFY(configure(fileSinkYaml()));
    result = call(QStringLiteral("notes.write"), json{{"path", "locked/a.txt"}, {"content", "x"}});
    QVERIFY(QFile::setPermissions(
        root(QStringLiteral("locked")), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("permission denied")), qPrintable(messageOf(result)));
}

// 8 threads × 200 appends of records of different lengths: every record arrives whole, on a line
// of its own.
void TestSinks::jsonlConcurrentAppendsStayWholeLines()
{
    const QString log = outside(QStringLiteral("logs/audit.jsonl")); // the directory is created
    QVERIFY(configure("sinks:\n  - name: audit\n    type: jsonl\n    path: " + QFile::encodeName(log) + "\n"));
    const std::shared_ptr<const Sink> sink = m_sinks->find(QStringLiteral("audit"));
    QVERIFY(sink);
    const ToolRegistry::ToolPtr tool = m_registry->find("audit.append");
    constexpr int Threads = 8;
    constexpr int Appends = 200;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < Threads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < Appends; ++i) {
                const json arguments{{"record",
                    {{"thread", t}, {"i", i},
                        {"text", std::string(std::size_t((t * 977 + i * 131) % 9000), char('a' + t))},
                        {"newline", "one\ntwo"}}}};
                const auto context = directContext(QStringLiteral("audit.append"), arguments);
                if (tool->blockingHandler(*context).isError)
                    ++failures;
            }
        });
    }
    for (std::thread& thread : threads)
        thread.join();
    QCOMPARE(failures.load(), 0);
    const QList<QByteArray> lines = readFile(log).split('\n');
    QCOMPARE(lines.size(), Threads * Appends + 1);
    QVERIFY(lines.last().isEmpty());
    std::set<std::pair<int, int>> seen;
    for (qsizetype n = 0; n + 1 < lines.size(); ++n) {
        const json record = json::parse(lines.at(n).toStdString(), nullptr, false);
        QVERIFY2(record.is_object(), lines.at(n).left(200).constData());
        const int t = record.value("thread", -1);
        const int i = record.value("i", -1);
        QCOMPARE(
            record.value("text", std::string()), std::string(std::size_t((t * 977 + i * 131) % 9000), char('a' + t)));
        QCOMPARE(record.value("newline", std::string()), std::string("one\ntwo"));
        QVERIFY(!record.contains("ts"));
        seen.insert({t, i});
    }
    QCOMPARE(int(seen.size()), Threads * Appends);
}

void TestSinks::jsonlTimestampBoundAndRotation()
{
    const QString log = outside(QStringLiteral("audit.jsonl"));
    QVERIFY(configure("sinks:\n  - name: audit\n    type: jsonl\n    path: " + QFile::encodeName(log)
        + "\n    add_timestamp: true\n    max_bytes: 100\n    max_file_bytes: 150\n"));
    const QDateTime before = QDateTime::currentDateTimeUtc().addMSecs(-1);
    ToolResult result = call(QStringLiteral("audit.append"), json{{"record", {{"event", "login"}, {"ts", "forged"}}}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(result.structuredContent.value("rotated", true), false);
    const json first = json::parse(readFile(log).trimmed().toStdString());
    QCOMPARE(first.value("event", std::string()), std::string("login"));
    const QDateTime stamped = QDateTime::fromString(str(first["ts"]), Qt::ISODateWithMs);
    QVERIFY2(
        stamped.isValid() && stamped >= before && stamped <= QDateTime::currentDateTimeUtc(), first.dump().c_str());
    QVERIFY(str(first["ts"]).endsWith(QLatin1Char('Z')));

    // A record over max_bytes is refused whole.
    result = call(QStringLiteral("audit.append"), json{{"record", {{"text", std::string(100, 'x')}}}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("at most 100 bytes")), qPrintable(messageOf(result)));

    // Past max_file_bytes the log moves to .1 and a new one starts.
    const QByteArray firstLine = readFile(log);
    for (int i = 0; i < 3; ++i) {
        result = call(QStringLiteral("audit.append"), json{{"record", {{"n", i}}}});
        QVERIFY2(!result.isError, qPrintable(result.firstText()));
    }
    QVERIFY(QFileInfo(log).size() <= 150);
    QVERIFY(QFileInfo::exists(log + QStringLiteral(".1")));
    QVERIFY(readFile(log + QStringLiteral(".1")).startsWith(firstLine));
    const QByteArray both = readFile(log + QStringLiteral(".1")) + readFile(log);
    QCOMPARE(both.count('\n'), 4);
}

void TestSinks::webhookPostsTheBodyWithExpandedHeaders()
{
    WebhookTestServer server;
    QVERIFY(server.port);
    qputenv("SINK_TEST_TOKEN", "s3cret-token");
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/ok").toUtf8()
        + "\n    headers:\n      Authorization: Bearer ${SINK_TEST_TOKEN}\n      X-Source: switchboard\n"));
    const json payload{
        {"level", "warning"}, {"text", "disk at 91% — ünïcode\nand a newline"}, {"values", {1, 2.5, nullptr}}};
    const ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", payload}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(server.received.size(), std::size_t(1));
    const WebhookTestServer::Received& received = server.received.front();
    QCOMPARE(received.body, QByteArray::fromStdString(payload.dump()));
    QCOMPARE(received.header("Content-Type"), QByteArray("application/json"));
    QCOMPARE(received.header("Authorization"), QByteArray("Bearer s3cret-token"));
    QCOMPARE(received.header("X-Source"), QByteArray("switchboard"));
    QCOMPARE(result.structuredContent.value("http_status", 0), 200);
    QCOMPARE(result.structuredContent.value("bytes", 0), int(payload.dump().size()));
    QCOMPARE(str(result.structuredContent["response"]), QStringLiteral("{\"accepted\":true}"));
    QCOMPARE(str(result.structuredContent["target"]), QStringLiteral("http://127.0.0.1:%1").arg(server.port));
    // Neither the token nor the hook's path shows in the answer.
    const QString everything = QString::fromStdString(result.toJson().dump());
    QVERIFY(!everything.contains(QStringLiteral("s3cret")));
    QVERIFY(!everything.contains(QStringLiteral("/ok")));

    // A payload that is not an object is sent as it is.
    const ToolResult list = call(QStringLiteral("alerts.post"), json{{"payload", json::array({"a", 1})}});
    QVERIFY2(!list.isError, qPrintable(list.firstText()));
    QCOMPARE(server.received.back().body, QByteArray("[\"a\",1]"));
}

void TestSinks::webhookNon2xxIsAToolError()
{
    WebhookTestServer server;
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/fail").toUtf8()
        + "\n    max_bytes: 64\n"));
    ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", {{"a", 1}}}});
    QVERIFY(result.isError);
    QCOMPARE(result.structuredContent.value("http_status", 0), 500);
    QVERIFY2(messageOf(result).contains(QStringLiteral("answered HTTP 500")), qPrintable(messageOf(result)));
    QVERIFY2(messageOf(result).contains(QStringLiteral("database is down")), qPrintable(messageOf(result)));
    QCOMPARE(str(result.structuredContent["response"]), QStringLiteral("database is down"));
    QVERIFY(!messageOf(result).contains(QStringLiteral("/fail")));

    // Over max_bytes, nothing is sent.
    result = call(QStringLiteral("alerts.post"), json{{"payload", std::string(100, 'x')}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("at most 64 bytes")), qPrintable(messageOf(result)));
    QCOMPARE(server.received.size(), std::size_t(1));
}

// A redirect is not followed: the payload goes only where the operator said.
void TestSinks::webhookRedirectIsNotFollowed()
{
    WebhookTestServer server;
    QVERIFY(
        configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/redirect").toUtf8() + "\n"));
    const ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", {{"a", 1}}}});
    QVERIFY(result.isError);
    QCOMPARE(result.structuredContent.value("http_status", 0), 307);
    QVERIFY2(messageOf(result).contains(QStringLiteral("answered HTTP 307")), qPrintable(messageOf(result)));
    QCOMPARE(server.received.size(), std::size_t(1));
    QCOMPARE(server.received.front().path, QByteArray("/redirect"));
}

// A large answer is read only up to the bound; the post itself succeeded.
void TestSinks::webhookAnswerIsBounded()
{
    WebhookTestServer server;
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/big").toUtf8() + "\n"));
    const ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", {{"a", 1}}}});
    QVERIFY2(!result.isError, qPrintable(result.firstText()));
    QCOMPARE(result.structuredContent.value("http_status", 0), 200);
    QCOMPARE(result.structuredContent.value("response_truncated", false), true);
    QVERIFY(str(result.structuredContent["response"]).size() <= WebhookSink::ShownResponseChars + 1);
}

void TestSinks::webhookTimesOut()
{
    WebhookTestServer server;
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/slow").toUtf8()
        + "\n    timeout: 0.4\n"));
    QElapsedTimer clock;
    clock.start();
    const ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", {{"a", 1}}}});
    QVERIFY(result.isError);
    QVERIFY2(
        messageOf(result).contains(QStringLiteral("did not answer within 0.4 seconds")), qPrintable(messageOf(result)));
    QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(server.received.size(), std::size_t(1));
}

void TestSinks::webhookCancellationAbortsThePost()
{
    WebhookTestServer server;
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: " + server.url("/slow").toUtf8()
        + "\n    timeout: 60\n"));
    const ToolRegistry::ToolPtr tool = m_registry->find("alerts.post");
    bool completed = false;
    ToolCallContext::Hooks hooks;
    hooks.notify = [](const json&) {};
    hooks.wantsLog = [](LogLevel) { return false; };
    hooks.complete = [&completed](ToolResult) { completed = true; };
    CallMetadata metadata;
    metadata.callId = 7;
    metadata.tool = QStringLiteral("alerts.post");
    const auto context
        = std::make_shared<ToolCallContext>(json{{"payload", {{"a", 1}}}}, metadata, hooks, m_executor->home());
    QSignalSpy ended(m_executor.get(), &ToolExecutor::blockingWorkEnded);
    m_executor->run(tool, context);
    QTRY_COMPARE(server.received.size(), std::size_t(1)); // the request is at the server
    QElapsedTimer clock;
    clock.start();
    context->cancel();
    QVERIFY(ended.wait(5000));
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(ended.first().first().toLongLong(), qint64(7));
    QVERIFY(!completed); // a cancelled call's result is dropped
    QCOMPARE(m_executor->runningBlockingCount(), 0);
}

void TestSinks::webhookUnreachableIsAToolError()
{
    // A port nothing listens on: a listening server is made and closed to find one.
    quint16 port = 0;
    {
        WebhookTestServer server;
        port = server.port;
    }
    QVERIFY(configure("sinks:\n  - name: alerts\n    type: webhook\n    url: http://127.0.0.1:"
        + QByteArray::number(port) + "/secret-path\n    timeout: 5\n"));
    const ToolResult result = call(QStringLiteral("alerts.post"), json{{"payload", 1}});
    QVERIFY(result.isError);
    QVERIFY2(messageOf(result).contains(QStringLiteral("cannot post to the webhook at http://127.0.0.1:")),
        qPrintable(messageOf(result)));
    QVERIFY2(!messageOf(result).contains(QStringLiteral("secret-path")), qPrintable(messageOf(result)));
}

QTEST_GUILESS_MAIN(TestSinks)
#include "tst_sinks.moc"
