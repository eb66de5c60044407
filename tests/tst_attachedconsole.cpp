// The window attached to a Switchboard elsewhere: a real Backend serving the operator API on port
// 0, and the real MainWindow on a RemoteOperator pointed at it. A question raised there shows here
// and is answered with a click; the answer is recorded as the operator token's; when the backend
// stops, the window says it is disconnected and takes no answers; when it is back on the same port,
// the window is live again and answers again.

#include "approvalwidget.h"
#include "boundedjson.h"
#include "calllogmodel.h"
#include "core/backend.h"
#include "interactionmodel.h"
#include "interactionpanel.h"
#include "launch.h"
#include "mainwindow.h"
#include "remoteoperator.h"
#include "statuswarning.h"

#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

const QByteArray OperatorToken = "sbop_operator-token-for-the-attached-console-test";
constexpr int TimeoutMs = 20'000;

} // namespace

class TestAttachedConsole : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void answersAnApprovalOverTheNetwork();
    void survivesARestartOfTheBackend();
    void saysWhenTheTokenIsRefused();
    void attachesOverTls();

private:
    void startBackend(quint16 port);
    // The approval of the console's own echo call, once it shows in the attached window.
    ApprovalWidget* raiseApproval();
    void allowOnce(ApprovalWidget* widget);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Backend> m_backend;
    std::unique_ptr<RemoteOperator> m_remote;
    std::unique_ptr<MainWindow> m_window;
    QMap<qint64, ToolCall> m_calls; // as the backend's own interface tells them
};

void TestAttachedConsole::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    startBackend(0);
    RemoteOperator::Settings settings;
    settings.url = m_backend->serverUrl(); // the /mcp URL, as a person would paste it
    settings.token = OperatorToken;
    settings.firstRetryMs = 100;
    settings.maxRetryMs = 500;
    m_remote = std::make_unique<RemoteOperator>(settings);
    m_window = std::make_unique<MainWindow>(m_remote.get(), 1000, false);
    m_window->show();
    m_remote->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_remote->isBackendConnected(), TimeoutMs);
}

void TestAttachedConsole::cleanup()
{
    m_window.reset();
    m_remote.reset();
    m_backend.reset();
    m_dir.reset();
    m_calls.clear();
}

void TestAttachedConsole::startBackend(quint16 port)
{
    const QString configPath = m_dir->filePath(QStringLiteral("config.yaml"));
    QFile file(configPath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("permissions:\n  tools:\n    echo: ask\n");
    file.close();
    BackendOptions options;
    QString error;
    QVERIFY2(SwitchboardConfig::load(configPath, &options.config, &error), qPrintable(error));
    options.configPath = configPath;
    options.stateDirectory = m_dir->filePath(QStringLiteral("state"));
    options.server.port = port;
    options.server.bearerToken = "sb_client-token-for-the-attached-console-test";
    options.operatorTokens = OperatorTokens(OperatorToken, {});
    m_backend = std::make_unique<Backend>(options);
    QVERIFY2(m_backend->start(&error), qPrintable(error));
    connect(m_backend.get(), &OperatorInterface::callsUpdated, this, [this](const ToolCallList& calls) {
        for (const ToolCall& call : calls)
            m_calls.insert(call.id, call);
    });
}

ApprovalWidget* TestAttachedConsole::raiseApproval()
{
    m_backend->callTool(QStringLiteral("echo"), R"({"text":"from afar"})");
    InteractionPanel* panel = m_window->interactionPanel();
    ApprovalWidget* found = nullptr;
    const bool shown = QTest::qWaitFor(
        [&] {
            for (int row = 0; row < panel->model()->rowCount(); ++row) {
                const PendingInteraction interaction = panel->model()->interactionAt(row);
                if (interaction.tool == QLatin1String("echo"))
                    found = qobject_cast<ApprovalWidget*>(panel->widgetFor(interaction.id));
            }
            return found != nullptr;
        },
        TimeoutMs);
    if (!shown)
        return nullptr;
    panel->selectInteraction(found->interactionId());
    return found;
}

void TestAttachedConsole::allowOnce(ApprovalWidget* widget)
{
    auto* allow = widget->findChild<QPushButton*>(QStringLiteral("allowOnceButton"));
    QVERIFY(allow);
    QVERIFY(allow->isEnabled());
    const qint64 before = m_calls.isEmpty() ? 0 : m_calls.lastKey();
    QTest::mouseClick(allow, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(m_window->interactionPanel()->count(), 0, TimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_calls.isEmpty() && m_calls.last().isFinished() && m_calls.lastKey() >= before, TimeoutMs);
    QCOMPARE(m_calls.last().status, CallStatus::Ok);
    const BoundedJson::Result<nlohmann::json> decision
        = BoundedJson::parse(m_calls.last().decision, BoundedJson::Limits::message());
    QVERIFY(decision.ok);
    QCOMPARE(decision.value.value("by", std::string()), std::string("operator:default"));
}

void TestAttachedConsole::answersAnApprovalOverTheNetwork()
{
    const QString name = m_remote->backendName();
    QVERIFY(m_window->windowTitle().contains(name));
    QVERIFY(!m_window->windowTitle().contains(QLatin1String("disconnected")));
    ApprovalWidget* widget = raiseApproval();
    QVERIFY(widget);
    QCOMPARE(widget->interaction().clientName, OperatorInterface::consoleClientName());
    // The call shows in the attached window's log too.
    QTRY_VERIFY_WITH_TIMEOUT(m_window->callLogModel()->rowCount() > 0, TimeoutMs);
    allowOnce(widget);
}

void TestAttachedConsole::survivesARestartOfTheBackend()
{
    const quint16 port = quint16(m_backend->serverUrl().port());
    // A call left waiting for a person when the backend goes: the window must not show it live after.
    ApprovalWidget* waiting = raiseApproval();
    QVERIFY(waiting);
    const qint64 waitingCall = waiting->interaction().callId;
    m_backend.reset();
    // Lost: said, and nothing can be answered from what is shown.
    QTRY_VERIFY_WITH_TIMEOUT(!m_remote->isBackendConnected(), TimeoutMs);
    QCOMPARE(m_window->backendStatus()->state(), StatusWarning::State::Problem);
    QVERIFY(m_window->windowTitle().contains(QLatin1String("disconnected")));
    QVERIFY(!m_window->interactionPanel()->isEnabled());

    // Back on the same port with the same state: live again, and answering again.
    startBackend(port);
    QTRY_VERIFY_WITH_TIMEOUT(m_remote->isBackendConnected(), TimeoutMs);
    QVERIFY(m_window->interactionPanel()->isEnabled());
    QVERIFY(!m_window->windowTitle().contains(QLatin1String("disconnected")));
    // The call that waited when it went ended with it, and the window says so (from history, or
    // as ended by the restart), never Paused.
    const auto shownStatus = [&] {
        const QModelIndex row = m_window->callLogModel()->indexOfCall(waitingCall);
        return row.isValid() ? m_window->callLogModel()->callAt(row.row()).status : CallStatus::Running;
    };
    QTRY_VERIFY_WITH_TIMEOUT(shownStatus() != CallStatus::Paused && shownStatus() != CallStatus::Running, TimeoutMs);
    ApprovalWidget* widget = raiseApproval();
    QVERIFY(widget);
    allowOnce(widget);
}

void TestAttachedConsole::saysWhenTheTokenIsRefused()
{
    RemoteOperator::Settings settings;
    settings.url = m_backend->serverUrl();
    settings.token = "sbop_not-the-operator-token-of-this-backend";
    settings.firstRetryMs = 100;
    RemoteOperator wrong(settings);
    QSignalSpy changed(&wrong, &OperatorInterface::backendConnectionChanged);
    wrong.start();
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), TimeoutMs);
    QCOMPARE(changed.first().at(0).toBool(), false);
    const QString message = changed.first().at(1).toString();
    QVERIFY2(message.contains(QLatin1String("operator token was refused")), qPrintable(message));
    QVERIFY(!message.contains(QLatin1String("sbop_not")));
}

void TestAttachedConsole::attachesOverTls()
{
    // A certificate of its own for 127.0.0.1, as an operator would make one.
    const QString certificate = m_dir->filePath(QStringLiteral("cert.pem"));
    const QString key = m_dir->filePath(QStringLiteral("key.pem"));
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
            QStringLiteral("-nodes"), QStringLiteral("-keyout"), key, QStringLiteral("-out"), certificate,
            QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1"),
            QStringLiteral("-addext"), QStringLiteral("subjectAltName=IP:127.0.0.1")});
    QVERIFY(openssl.waitForFinished(60'000));
    QCOMPARE(openssl.exitCode(), 0);
    QString error;
    const std::optional<QSslConfiguration> tls = Launch::tlsConfiguration(certificate, key, &error);
    QVERIFY2(tls, qPrintable(error));

    BackendOptions options;
    options.stateDirectory = m_dir->filePath(QStringLiteral("tls-state"));
    options.server.port = 0;
    options.server.bearerToken = "sb_client-token-for-the-attached-console-test";
    options.server.tls = *tls;
    options.operatorTokens = OperatorTokens(OperatorToken, {});
    Backend secure(options);
    QVERIFY2(secure.start(&error), qPrintable(error));
    QCOMPARE(secure.serverUrl().scheme(), QStringLiteral("https"));

    const auto attach = [&](const QUrl& url, const QList<QSslCertificate>& trusted) {
        RemoteOperator::Settings settings;
        settings.url = url;
        settings.token = OperatorToken;
        settings.firstRetryMs = 100;
        settings.caCertificates = trusted;
        auto remote = std::make_unique<RemoteOperator>(settings);
        return remote;
    };
    // Trusting its certificate: attached.
    auto trusted = attach(secure.serverUrl(), QSslCertificate::fromPath(certificate));
    QSignalSpy changed(trusted.get(), &OperatorInterface::backendConnectionChanged);
    trusted->start();
    QTRY_VERIFY_WITH_TIMEOUT(trusted->isBackendConnected(), TimeoutMs);
    QCOMPARE(trusted->serverUrl().scheme(), QStringLiteral("https"));
    // Not trusting it: refused, and said.
    auto stranger = attach(secure.serverUrl(), {});
    QSignalSpy refused(stranger.get(), &OperatorInterface::backendConnectionChanged);
    stranger->start();
    QTRY_VERIFY_WITH_TIMEOUT(!refused.isEmpty(), TimeoutMs);
    QCOMPARE(refused.first().at(0).toBool(), false);
    QVERIFY(!stranger->isBackendConnected());
    // Plain HTTP to it gets nowhere either.
    QUrl plain = secure.serverUrl();
    plain.setScheme(QStringLiteral("http"));
    auto clear = attach(plain, {});
    QSignalSpy unreached(clear.get(), &OperatorInterface::backendConnectionChanged);
    clear->start();
    QTRY_VERIFY_WITH_TIMEOUT(!unreached.isEmpty(), TimeoutMs);
    QCOMPARE(unreached.first().at(0).toBool(), false);
}

QTEST_MAIN(TestAttachedConsole)
#include "tst_attachedconsole.moc"
