// SecretStore against a real Secret Service: gnome-keyring-daemon on a private session bus, set up
// by tests/keyring/with-keyring.sh. What SecretStore saves is read back independently with
// secret-tool (libsecret's command-line client), and what secret-tool stores SecretStore reads:
// proof that the secrets really are in the keyring and nowhere else.
//
// Two scenarios, chosen by the wrapper through SWITCHBOARD_TEST_KEYRING:
//   unlocked   an unlocked login keyring (run once with Qt's GLib dispatcher and once with
//              QT_NO_GLIB=1, as the switchboard binary runs)
//   none       a session bus with no keychain on it: saving fails with a message saying so

#include "auth/secretstore.h"
#include "secretstoretestsupport.h"

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

namespace {

struct ToolRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

ToolRun run(const QString& program, const QStringList& arguments, const QByteArray& input = {})
{
    QProcess process;
    process.start(program, arguments);
    ToolRun result;
    if (!process.waitForStarted(10'000))
        return result;
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(20'000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

// The attributes QtKeychain's libsecret backend stores a binary secret under (schema
// org.qt.keychain): user = the key, server = the service, type = base64 (the secret base64-encoded).
QStringList attributes(const QString& key)
{
    return {QStringLiteral("user"), key, QStringLiteral("server"), SecretStore::keychainService(),
        QStringLiteral("type"), QStringLiteral("base64")};
}

ToolRun secretTool(const QStringList& arguments, const QByteArray& input = {})
{
    return run(QStringLiteral("secret-tool"), arguments, input);
}

// What the keyring holds for `key`, read by libsecret's own client; nullopt when nothing.
std::optional<QByteArray> lookUp(const QString& key)
{
    const ToolRun lookup = secretTool(QStringList{QStringLiteral("lookup")} + attributes(key));
    if (lookup.exitCode != 0)
        return std::nullopt;
    return QByteArray::fromBase64(lookup.out.trimmed());
}

int itemCount(const QString& key)
{
    const ToolRun search = secretTool(QStringList{QStringLiteral("search"), QStringLiteral("--all"),
        QStringLiteral("user"), key, QStringLiteral("server"), SecretStore::keychainService()});
    int count = 0;
    for (const QByteArray& line : search.out.split('\n')) {
        if (line.startsWith('['))
            ++count;
    }
    return count;
}

// The Secret Service's own answer, locked items included (secret-tool would try to unlock them).
QByteArray searchItems(const QString& key)
{
    return run(QStringLiteral("dbus-send"),
        {QStringLiteral("--session"), QStringLiteral("--print-reply"), QStringLiteral("--dest=org.freedesktop.secrets"),
            QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service.SearchItems"),
            QStringLiteral("dict:string:string:user,%1,server,%2").arg(key, SecretStore::keychainService())})
        .out;
}

const QByteArray binarySecret("sk-\0\xff\xfe\n-end", 12);

} // namespace

using namespace SecretStoreWait;

class TestSecretStoreKeychain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void roundTripThroughTheSecretService();
    void readsWhatAnotherClientStored();
    void overwriteLeavesOneItem();
    void removeAndMissingKeys();
    void queuedOperationsAnswerInOrder();
    void lockedKeyringFailsClearly(); // last: it leaves the keyring locked (it cannot be unlocked without a prompt)
};

void TestSecretStoreKeychain::initTestCase()
{
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("secret-tool")).isEmpty(),
        "secret-tool is missing: install libsecret-tools (scripts/install-deps.sh --test)");
    const QAbstractEventDispatcher* dispatcher = QAbstractEventDispatcher::instance();
    const bool glibDispatcher = dispatcher->inherits("QEventDispatcherGlib");
    qInfo("event dispatcher: %s", dispatcher->metaObject()->className());
    // The variant registered with QT_NO_GLIB=1 must really run without GLib's dispatcher, since
    // that is what it is there to prove works.
    QCOMPARE(glibDispatcher, qEnvironmentVariableIsEmpty("QT_NO_GLIB"));
}

void TestSecretStoreKeychain::roundTripThroughTheSecretService()
{
    SecretStore store;
    QCOMPARE(store.description(), QStringLiteral("desktop keychain (Secret Service)"));
    const QString key = QStringLiteral("api-key/github/alice");
    const SecretStoreAnswer saved = save(store, key, binarySecret);
    QVERIFY(saved.answered);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    QCOMPARE(lookUp(key), std::optional<QByteArray>(binarySecret));
    QCOMPARE(itemCount(key), 1);

    SecretStore another;
    const SecretStoreAnswer loaded = load(another, key);
    QVERIFY2(loaded.ok, qPrintable(loaded.error));
    QCOMPARE(loaded.secret, std::optional<QByteArray>(binarySecret));

    // Nothing was written to files in this (temporary) home: no QSettings plaintext fallback.
    const QString settings = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QCOMPARE(QDir(settings).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList());
}

void TestSecretStoreKeychain::readsWhatAnotherClientStored()
{
    const QString key = QStringLiteral("oauth/gitlab/bob");
    const QByteArray secret("glpat-from-another-client");
    const ToolRun stored = secretTool(QStringList{QStringLiteral("store"), QStringLiteral("--label=switchboard test")}
            + attributes(key) + QStringList{QStringLiteral("xdg:schema"), QStringLiteral("org.qt.keychain")},
        secret.toBase64());
    QVERIFY2(stored.exitCode == 0, stored.err.constData());

    SecretStore store;
    const SecretStoreAnswer loaded = load(store, key);
    QVERIFY2(loaded.ok, qPrintable(loaded.error));
    QCOMPARE(loaded.secret, std::optional<QByteArray>(secret));
}

void TestSecretStoreKeychain::overwriteLeavesOneItem()
{
    SecretStore store;
    const QString key = QStringLiteral("api-key/openai/carol");
    QVERIFY(save(store, key, "first").ok);
    const SecretStoreAnswer overwritten = save(store, key, "second");
    QVERIFY2(overwritten.ok, qPrintable(overwritten.error));
    QCOMPARE(load(store, key).secret, std::optional<QByteArray>("second"));
    QCOMPARE(lookUp(key), std::optional<QByteArray>("second"));
    QCOMPARE(itemCount(key), 1);
}

void TestSecretStoreKeychain::removeAndMissingKeys()
{
    SecretStore store;
    const QString key = QStringLiteral("api-key/anthropic/dave");
    QVERIFY(save(store, key, "to be removed").ok);
    QVERIFY(save(store, QStringLiteral("api-key/anthropic/erin"), "stays").ok);

    const SecretStoreAnswer removed = remove(store, key);
    QVERIFY2(removed.ok, qPrintable(removed.error));
    QCOMPARE(lookUp(key), std::nullopt);
    QCOMPARE(itemCount(key), 0);
    const SecretStoreAnswer missing = load(store, key);
    QVERIFY(missing.answered);
    QCOMPARE(missing.secret, std::nullopt);
    QCOMPARE(missing.error, QString());
    QCOMPARE(load(store, QStringLiteral("api-key/anthropic/erin")).secret, std::optional<QByteArray>("stays"));

    const SecretStoreAnswer removedAgain = remove(store, key);
    QVERIFY2(removedAgain.ok, qPrintable(removedAgain.error));
    const SecretStoreAnswer neverSaved = load(store, QStringLiteral("never/saved"));
    QVERIFY(neverSaved.answered);
    QCOMPARE(neverSaved.secret, std::nullopt);
    QCOMPARE(neverSaved.error, QString());
}

void TestSecretStoreKeychain::queuedOperationsAnswerInOrder()
{
    SecretStore store;
    const QString key = QStringLiteral("queued");
    QStringList events;
    auto loaded = [&events](std::optional<QByteArray> secret, const QString& error) {
        events << QStringLiteral("load %1%2").arg(QString::fromLatin1(secret.value_or("none")), error);
    };
    store.save(
        key, "one", [&](bool ok, const QString& error) { events << QStringLiteral("save %1%2").arg(ok).arg(error); });
    store.load(key, loaded);
    store.save(
        key, "two", [&](bool ok, const QString& error) { events << QStringLiteral("save %1%2").arg(ok).arg(error); });
    store.load(key, loaded);
    store.remove(
        key, [&](bool ok, const QString& error) { events << QStringLiteral("remove %1%2").arg(ok).arg(error); });
    store.load(key, loaded);
    QVERIFY(events.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 6, 20'000);
    QCOMPARE(events,
        (QStringList{QStringLiteral("save 1"), QStringLiteral("load one"), QStringLiteral("save 1"),
            QStringLiteral("load two"), QStringLiteral("remove 1"), QStringLiteral("load none")}));
}

void TestSecretStoreKeychain::lockedKeyringFailsClearly()
{
    SecretStore store;
    QVERIFY(save(store, QStringLiteral("saved-before-locking"), "kept").ok);
    const ToolRun locked = run(QStringLiteral("dbus-send"),
        {QStringLiteral("--session"), QStringLiteral("--print-reply"), QStringLiteral("--dest=org.freedesktop.secrets"),
            QStringLiteral("/org/freedesktop/secrets"), QStringLiteral("org.freedesktop.Secret.Service.Lock"),
            QStringLiteral("array:objpath:/org/freedesktop/secrets/collection/login")});
    QVERIFY2(locked.exitCode == 0, locked.err.constData());

    // The unlock prompt cannot be shown here (no display), so the Secret Service refuses at once:
    // saving fails with the keyring's reason and the remedy; nothing hangs.
    QElapsedTimer elapsed;
    elapsed.start();
    const SecretStoreAnswer saved = save(store, QStringLiteral("while-locked"), "hunter2");
    QVERIFY(saved.answered);
    QVERIFY(!saved.ok);
    qInfo("%s", qPrintable(saved.error)); // for whoever reads the log: what the operator sees
    QVERIFY2(saved.error.contains(QStringLiteral("locked")), qPrintable(saved.error));
    QVERIFY2(saved.error.contains(QStringLiteral("secrets: file")), qPrintable(saved.error));
    QVERIFY(!saved.error.contains(QStringLiteral("hunter2")));

    // QtKeychain alone would call a secret in a locked keyring "not found" and its removal done.
    const SecretStoreAnswer loaded = load(store, QStringLiteral("saved-before-locking"));
    QVERIFY(loaded.answered);
    QCOMPARE(loaded.secret, std::nullopt);
    qInfo("%s", qPrintable(loaded.error));
    QVERIFY2(loaded.error.contains(QStringLiteral("the keyring is locked")), qPrintable(loaded.error));
    const SecretStoreAnswer missing = load(store, QStringLiteral("never-saved"));
    QVERIFY2(missing.error.contains(QStringLiteral("the keyring is locked")), qPrintable(missing.error));
    const SecretStoreAnswer removed = remove(store, QStringLiteral("saved-before-locking"));
    QVERIFY(removed.answered);
    QVERIFY(!removed.ok);
    QVERIFY2(removed.error.contains(QStringLiteral("the keyring is locked")), qPrintable(removed.error));
    QVERIFY(elapsed.elapsed() < 15'000);

    // The Secret Service still lists the first among its (locked) items, and never got the second.
    QVERIFY(searchItems(QStringLiteral("saved-before-locking")).contains("/org/freedesktop/secrets/collection/login/"));
    QVERIFY(!searchItems(QStringLiteral("while-locked")).contains("/org/freedesktop/secrets/collection/"));
}

class TestNoKeychainOnBus : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void savingFailsNamingTheMissingKeychain();
};

void TestNoKeychainOnBus::savingFailsNamingTheMissingKeychain()
{
    SecretStore store;
    QElapsedTimer elapsed;
    elapsed.start();
    const SecretStoreAnswer saved = save(store, QStringLiteral("api-key/github/alice"), "hunter2");
    QVERIFY(saved.answered);
    QVERIFY(!saved.ok);
    qInfo("%s", qPrintable(saved.error)); // for whoever reads the log: what the operator sees
    QVERIFY2(saved.error.contains(QStringLiteral("no keychain on it")), qPrintable(saved.error));
    QVERIFY2(saved.error.contains(QStringLiteral("secrets: file")), qPrintable(saved.error));
    QVERIFY(!saved.error.contains(QStringLiteral("hunter2")));

    const SecretStoreAnswer loaded = load(store, QStringLiteral("api-key/github/alice"));
    QVERIFY(loaded.answered);
    QCOMPARE(loaded.secret, std::nullopt);
    QVERIFY2(loaded.error.contains(QStringLiteral("no keychain on it")), qPrintable(loaded.error));
    QVERIFY(elapsed.elapsed() < 5000);

    const QString settings = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QCOMPARE(QDir(settings).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList());
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QByteArray scenario = qgetenv("SWITCHBOARD_TEST_KEYRING");
    if (scenario == "unlocked") {
        TestSecretStoreKeychain test;
        return QTest::qExec(&test, argc, argv);
    }
    if (scenario == "none") {
        TestNoKeychainOnBus test;
        return QTest::qExec(&test, argc, argv);
    }
    // Never against the real user's keyring.
    qCritical("run this test through tests/keyring/with-keyring.sh (it needs a private keyring)");
    return 1;
}

#include "tst_secretstorekeychain.moc"
