// Where the window hears the Backend: every signal of the OperatorInterface is emitted on the
// Backend's own thread (the window's), never straight from the server thread, whatever the event:
// command failures, connect failures and answers, OAuth steps, calls and sessions.

#include "core/backend.h"

#include <QDir>
#include <QFile>
#include <QMetaMethod>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace {

// Hears one signal through a direct connection, so its slot runs on the thread that emits, and tells
// the witness (the slot cannot ask sender() which signal it was: that is not valid off its thread).
class SignalEar : public QObject
{
    Q_OBJECT
public:
    SignalEar(QString name, std::function<void(const QString&)> heard)
        : m_name(std::move(name))
        , m_heard(std::move(heard))
    {}

public Q_SLOTS:
    void heard() { m_heard(m_name); }

private:
    QString m_name;
    std::function<void(const QString&)> m_heard;
};

// Hears every signal of the OperatorInterface that `sender` emits; keeps the names of those heard on
// another thread than `expected`.
class ThreadWitness
{
public:
    ThreadWitness(QObject* sender, QThread* expected)
        : m_expected(expected)
    {
        const QMetaObject* meta = &OperatorInterface::staticMetaObject;
        for (int i = meta->methodOffset(); i < meta->methodCount(); ++i) {
            const QMetaMethod method = meta->method(i);
            if (method.methodType() != QMetaMethod::Signal)
                continue;
            auto ear = std::make_unique<SignalEar>(
                QString::fromLatin1(method.name()), [this](const QString& name) { note(name); });
            const QMetaMethod slot = ear->metaObject()->method(ear->metaObject()->indexOfSlot("heard()"));
            QObject::connect(sender, method, ear.get(), slot, Qt::DirectConnection);
            m_ears.push_back(std::move(ear));
        }
    }

    int signalCount() const { return int(m_ears.size()); }
    QStringList offThread() const
    {
        const std::lock_guard lock(m_mutex);
        return m_offThread;
    }
    QStringList heardSignals() const
    {
        const std::lock_guard lock(m_mutex);
        return m_heard;
    }

private:
    void note(const QString& name)
    {
        const std::lock_guard lock(m_mutex);
        m_heard.append(name);
        if (QThread::currentThread() != m_expected)
            m_offThread.append(name);
    }

    QThread* m_expected;
    std::vector<std::unique_ptr<SignalEar>> m_ears;
    mutable std::mutex m_mutex;
    QStringList m_heard;
    QStringList m_offThread;
};

} // namespace

class TestBackendSignals : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everySignalArrivesOnTheBackendsThread();
};

void TestBackendSignals::everySignalArrivesOnTheBackendsThread()
{
    QTemporaryDir stateDir;
    QVERIFY(stateDir.isValid());
    BackendOptions options;
    options.server.port = 0;
    options.stateDirectory = stateDir.path();
    options.config.secretStorage = SwitchboardConfig::SecretStorage::OwnerOnlyFile;
    options.config.secretsFile = stateDir.filePath(QStringLiteral("secrets.json"));
    OAuthProvider provider;
    provider.name = QStringLiteral("loopback");
    // Never contacted: the flow stops at the authorization URL the person would open.
    provider.authorizationUrl = QUrl(QStringLiteral("http://127.0.0.1:9/authorize"));
    provider.tokenUrl = QUrl(QStringLiteral("http://127.0.0.1:9/token"));
    provider.clientId = QStringLiteral("switchboard-test");
    options.config.oauthProviders.append(provider);
    Backend backend(options);
    ThreadWitness witness(&backend, backend.thread());
    QVERIFY(witness.signalCount() > 30);
    QString error;
    QVERIFY2(backend.start(&error), qPrintable(error));

    QSignalSpy commandFailed(&backend, &OperatorInterface::commandFailed);
    QSignalSpy connectFailed(&backend, &OperatorInterface::connectFailed);
    QSignalSpy answerFailed(&backend, &OperatorInterface::interactionAnswerFailed);
    QSignalSpy authorizationUrl(&backend, &OperatorInterface::oauthAuthorizationUrl);

    // A repository that is not there, and one never added.
    backend.addRepository(stateDir.filePath(QStringLiteral("no-such-repository")));
    QTRY_COMPARE_WITH_TIMEOUT(commandFailed.size(), 1, 15'000);
    QCOMPARE(commandFailed.at(0).at(0).toString(), QStringLiteral("addRepository"));
    backend.refreshRepository(stateDir.filePath(QStringLiteral("never-added")));
    QTRY_COMPARE_WITH_TIMEOUT(commandFailed.size(), 2, 15'000);
    QCOMPARE(commandFailed.at(1).at(0).toString(), QStringLiteral("refreshRepository"));

    // An empty key, and an OAuth provider no one configured.
    backend.connectWithApiKey(QStringLiteral("question-1"), QStringLiteral("p"), QString(), QByteArray());
    QTRY_COMPARE_WITH_TIMEOUT(connectFailed.size(), 1, 15'000);
    QCOMPARE(connectFailed.at(0).at(1).toString(), QStringLiteral("Enter the API key first."));
    backend.startOAuth(QStringLiteral("question-2"), QStringLiteral("nobody"), {});
    QTRY_COMPARE_WITH_TIMEOUT(connectFailed.size(), 2, 15'000);
    QVERIFY(connectFailed.at(1).at(1).toString().contains(QStringLiteral("No OAuth provider named")));

    // A key saved for a question that is not pending: the answer is refused.
    backend.connectWithApiKey(QStringLiteral("question-3"), QStringLiteral("p"), QStringLiteral("a"), "key");
    QTRY_COMPARE_WITH_TIMEOUT(answerFailed.size(), 1, 15'000);
    QCOMPARE(answerFailed.at(0).at(0).toString(), QStringLiteral("question-3"));

    // A secrets file that others may read is refused: the key is not saved.
    QVERIFY(QFile::setPermissions(
        options.config.secretsFile, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther));
    backend.connectWithApiKey(QStringLiteral("question-4"), QStringLiteral("p"), QStringLiteral("a"), "key");
    QTRY_COMPARE_WITH_TIMEOUT(connectFailed.size(), 3, 15'000);
    QCOMPARE(connectFailed.at(2).at(0).toString(), QStringLiteral("question-4"));
    QVERIFY(connectFailed.at(2).at(1).toString().contains(QStringLiteral("could not be saved")));

    // An OAuth sign-in: the page to open, then the person cancels.
    backend.startOAuth(QStringLiteral("question-5"), QStringLiteral("loopback"), {});
    QTRY_COMPARE_WITH_TIMEOUT(authorizationUrl.size(), 1, 15'000);
    QCOMPARE(authorizationUrl.at(0).at(1).toUrl().host(), QStringLiteral("127.0.0.1"));
    backend.cancelOAuth(QStringLiteral("question-5"));
    QTRY_COMPARE_WITH_TIMEOUT(connectFailed.size(), 4, 15'000);
    QCOMPARE(connectFailed.at(3).at(0).toString(), QStringLiteral("question-5"));

    // And the events that always came through the window's thread: a call, the grants, the tools.
    QSignalSpy calls(&backend, &OperatorInterface::callsUpdated);
    backend.callTool(QStringLiteral("echo"), R"({"message":"hi"})");
    QVERIFY(calls.wait(15'000));
    QSignalSpy grants(&backend, &OperatorInterface::grantsListed);
    backend.listGrants();
    QVERIFY(grants.wait(15'000));

    const QStringList heard = witness.heardSignals();
    for (const char* name : {"commandFailed", "connectFailed", "interactionAnswerFailed", "oauthAuthorizationUrl",
             "callsUpdated", "toolCallStarted", "grantsListed"})
        QVERIFY2(heard.contains(QLatin1String(name)), name);
    QVERIFY2(witness.offThread().isEmpty(),
        qPrintable(
            QStringLiteral("emitted off the Backend's thread: ") + witness.offThread().join(QStringLiteral(", "))));
    backend.stop();
    QVERIFY2(witness.offThread().isEmpty(), qPrintable(witness.offThread().join(QStringLiteral(", "))));
}

QTEST_GUILESS_MAIN(TestBackendSignals)
#include "tst_backendsignals.moc"
