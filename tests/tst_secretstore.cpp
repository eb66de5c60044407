// SecretStore: the owner-only file fallback (round trip, mode 0600, atomic rewrite, refusals, several
// processes changing keys at once under the file's lock), and that keychain mode without any D-Bus
// session bus fails at once with a message saying what to do. The keychain itself is tested against a
// real gnome-keyring in tst_secretstorekeychain.
//
// The test executable is also its own child process: with --save-secrets as its first argument it
// saves keys into a file and exits.

#include "auth/secretstore.h"
#include "config/configsettings.h"
#include "secretstoretestsupport.h"
#include "store/statefilelock.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include <sys/stat.h>
#include <unistd.h>

namespace {

mode_t modeOf(const QString& path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return mode_t(-1);
    return info.st_mode & 0777;
}

QByteArray contentsOf(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

void writeOwnerOnly(const QString& path, const QByteArray& contents)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    QCOMPARE(file.write(contents), contents.size());
}

// Bytes a text-only store would mangle: NUL, invalid UTF-8, a newline.
const QByteArray binarySecret("sk-\0\xff\xfe\n-end", 12);

QByteArray secretFor(const QString& key)
{
    return "secret of " + key.toUtf8();
}

// The child process: saves `count` keys `<prefix><n>` one after the other, each its own read,
// change and write of the file, as a one-shot runner would between the console's.
int saveSecrets(const QString& path, const QString& prefix, int count)
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path);
    for (int n = 0; n < count; ++n) {
        const QString key = prefix + QString::number(n);
        const SecretStoreAnswer saved = SecretStoreWait::save(store, key, secretFor(key), 60'000);
        if (!saved.ok) {
            qWarning("%s: %s", qPrintable(key), qPrintable(saved.error));
            return 1;
        }
    }
    return 0;
}

} // namespace

using namespace SecretStoreWait;

class TestSecretStore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();

    void fileRoundTripIsOwnerOnly();
    void fileCreatedOwnerOnlyWhateverTheUmask();
    void fileSurvivesANewStore();
    void fileOverwriteAndRemove();
    void fileMissingKeyIsNoError();
    void fileCorruptIsReportedAndKept_data();
    void fileCorruptIsReportedAndKept();
    void fileWiderModeIsRefused();
    void fileUnwritableDirectory();
    void operationsAnswerLaterAndInOrder();
    void emptyKeyIsRefused();
    void destroyedStoreNeverCallsBack();
    void fromConfiguration();
    void keychainWithoutSessionBusFailsFast();
    void processesChangingKeysAtOnceLoseNone();
    void fileLockWaitIsBounded();

private:
    QString path() const { return m_dir->filePath(QStringLiteral("state/secrets.json")); }
    QTemporaryDir m_home;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestSecretStore::initTestCase()
{
    // No session bus for this process, whatever the machine has: no address, no per-user bus
    // socket ($XDG_RUNTIME_DIR/bus) and no X display to autolaunch one from. Set before anything
    // touches D-Bus, because QDBusConnection::sessionBus() connects once and keeps the result.
    QVERIFY(m_home.isValid());
    qunsetenv("DBUS_SESSION_BUS_ADDRESS");
    qunsetenv("DISPLAY");
    qunsetenv("WAYLAND_DISPLAY");
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_home.filePath(QStringLiteral("run"))));
    // A home of its own, to see that nothing (such as QtKeychain's plaintext QSettings fallback)
    // writes there.
    qputenv("HOME", QFile::encodeName(m_home.path()));
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home.filePath(QStringLiteral(".config"))));
    qputenv("XDG_DATA_HOME", QFile::encodeName(m_home.filePath(QStringLiteral(".local/share"))));
}

void TestSecretStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestSecretStore::fileRoundTripIsOwnerOnly()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    QCOMPARE(store.mode(), SecretStore::Mode::OwnerOnlyFile);
    QVERIFY(store.description().contains(path()));
    QVERIFY(store.description().contains(QStringLiteral("0600")));
    QVERIFY(store.description().contains(QStringLiteral("not encrypted")));

    const SecretStoreAnswer saved = save(store, QStringLiteral("api-key/github/alice"), binarySecret);
    QVERIFY(saved.answered);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    QCOMPARE(modeOf(path()), mode_t(0600));

    const SecretStoreAnswer loaded = load(store, QStringLiteral("api-key/github/alice"));
    QVERIFY2(loaded.ok, qPrintable(loaded.error));
    QVERIFY(loaded.secret.has_value());
    QCOMPARE(*loaded.secret, binarySecret);

    // No temporary file or copy is left behind; beside the file only its lock (owner-only, holding
    // the pid of the last process that changed it, never a secret).
    QCOMPARE(QDir(m_dir->filePath(QStringLiteral("state"))).entryList(QDir::Files | QDir::Hidden),
        (QStringList{QStringLiteral("secrets.json"), QStringLiteral("secrets.json.lock")}));
    QCOMPARE(modeOf(path() + QStringLiteral(".lock")), mode_t(0600));
    QVERIFY(!contentsOf(path() + QStringLiteral(".lock")).contains(binarySecret.toBase64()));
    const QJsonObject root = QJsonDocument::fromJson(contentsOf(path())).object();
    QCOMPARE(root.value(QLatin1String("version")).toInt(), 1);
    QCOMPARE(
        root.value(QLatin1String("secrets")).toObject().keys(), QStringList{QStringLiteral("api-key/github/alice")});
}

void TestSecretStore::fileCreatedOwnerOnlyWhateverTheUmask()
{
    const mode_t previous = ::umask(0);
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    const SecretStoreAnswer saved = save(store, QStringLiteral("k"), "v");
    ::umask(previous);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    QCOMPARE(modeOf(path()), mode_t(0600));
}

void TestSecretStore::fileSurvivesANewStore()
{
    {
        SecretStore first(SecretStore::Mode::OwnerOnlyFile, path());
        QVERIFY(save(first, QStringLiteral("one"), "first secret").ok);
    }
    SecretStore second(SecretStore::Mode::OwnerOnlyFile, path());
    QVERIFY(save(second, QStringLiteral("two"), "second secret").ok);
    SecretStore third(SecretStore::Mode::OwnerOnlyFile, path());
    QCOMPARE(load(third, QStringLiteral("one")).secret, std::optional<QByteArray>("first secret"));
    QCOMPARE(load(third, QStringLiteral("two")).secret, std::optional<QByteArray>("second secret"));
    QCOMPARE(modeOf(path()), mode_t(0600));
}

void TestSecretStore::fileOverwriteAndRemove()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    QVERIFY(save(store, QStringLiteral("a"), "old").ok);
    QVERIFY(save(store, QStringLiteral("b"), "kept").ok);
    QVERIFY(save(store, QStringLiteral("a"), "new").ok);
    QCOMPARE(load(store, QStringLiteral("a")).secret, std::optional<QByteArray>("new"));
    QVERIFY(!contentsOf(path()).contains(QByteArray("old").toBase64()));

    const SecretStoreAnswer removed = remove(store, QStringLiteral("a"));
    QVERIFY2(removed.ok, qPrintable(removed.error));
    const SecretStoreAnswer gone = load(store, QStringLiteral("a"));
    QVERIFY(gone.ok);
    QVERIFY(!gone.secret.has_value());
    QCOMPARE(load(store, QStringLiteral("b")).secret, std::optional<QByteArray>("kept"));
    QCOMPARE(modeOf(path()), mode_t(0600));

    // Removing what is not there succeeds.
    QVERIFY(remove(store, QStringLiteral("a")).ok);
}

void TestSecretStore::fileMissingKeyIsNoError()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    const SecretStoreAnswer noFile = load(store, QStringLiteral("absent"));
    QVERIFY(noFile.answered);
    QVERIFY(!noFile.secret.has_value());
    QCOMPARE(noFile.error, QString());
    QVERIFY(!QFile::exists(path())); // reading creates nothing
    QVERIFY(remove(store, QStringLiteral("absent")).ok);
    QVERIFY(!QFile::exists(path()));

    QVERIFY(save(store, QStringLiteral("present"), "x").ok);
    const SecretStoreAnswer otherKey = load(store, QStringLiteral("absent"));
    QVERIFY(!otherKey.secret.has_value());
    QCOMPARE(otherKey.error, QString());
}

void TestSecretStore::fileCorruptIsReportedAndKept_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("errorContains");
    QTest::newRow("not json") << QByteArray("{\"version\": 1, \"secrets\": {\"a\": \"c2VjcmV0\"")
                              << QStringLiteral("not JSON");
    QTest::newRow("no secrets object") << QByteArray("{\"version\": 1}") << QStringLiteral("no \"secrets\" object");
    QTest::newRow("array") << QByteArray("[]") << QStringLiteral("no \"secrets\" object");
    QTest::newRow("entry not a string") << QByteArray("{\"version\": 1, \"secrets\": {\"a\": 5}}")
                                        << QStringLiteral("the entry for a is not a string");
    QTest::newRow("newer format") << QByteArray("{\"version\": 2, \"secrets\": {}}") << QStringLiteral("version 2");
}

void TestSecretStore::fileCorruptIsReportedAndKept()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, errorContains);
    QVERIFY(QDir().mkpath(QFileInfo(path()).absolutePath()));
    writeOwnerOnly(path(), contents);

    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    const SecretStoreAnswer loaded = load(store, QStringLiteral("a"));
    QVERIFY(loaded.answered);
    QVERIFY(!loaded.secret.has_value());
    qInfo("%s", qPrintable(loaded.error));
    QVERIFY2(loaded.error.contains(errorContains), qPrintable(loaded.error));
    QVERIFY2(loaded.error.contains(path()), qPrintable(loaded.error));
    QVERIFY(!loaded.error.contains(QStringLiteral("c2VjcmV0"))); // never the stored value

    // Saving must not replace a file it cannot read: the other entries would be lost.
    const SecretStoreAnswer saved = save(store, QStringLiteral("b"), "new");
    QVERIFY(!saved.ok);
    QVERIFY2(saved.error.contains(errorContains), qPrintable(saved.error));
    QVERIFY(!remove(store, QStringLiteral("a")).ok);
    QCOMPARE(contentsOf(path()), contents);
}

void TestSecretStore::fileWiderModeIsRefused()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    QVERIFY(save(store, QStringLiteral("k"), "hunter2").ok);
    QVERIFY(::chmod(QFile::encodeName(path()).constData(), 0644) == 0);
    const QByteArray before = contentsOf(path());

    const SecretStoreAnswer loaded = load(store, QStringLiteral("k"));
    QVERIFY(!loaded.secret.has_value());
    qInfo("%s", qPrintable(loaded.error));
    QVERIFY2(loaded.error.contains(QStringLiteral("mode 0644")), qPrintable(loaded.error));
    QVERIFY2(loaded.error.contains(QStringLiteral("chmod 600")), qPrintable(loaded.error));
    QVERIFY(!loaded.error.contains(QStringLiteral("hunter2")));
    QVERIFY(!save(store, QStringLiteral("k2"), "x").ok);
    // Refused, not quietly tightened: the operator has to look at it.
    QCOMPARE(modeOf(path()), mode_t(0644));
    QCOMPARE(contentsOf(path()), before);

    QVERIFY(::chmod(QFile::encodeName(path()).constData(), 0640) == 0);
    QVERIFY(load(store, QStringLiteral("k")).error.contains(QStringLiteral("mode 0640")));
    QVERIFY(::chmod(QFile::encodeName(path()).constData(), 0600) == 0);
    QCOMPARE(load(store, QStringLiteral("k")).secret, std::optional<QByteArray>("hunter2"));
}

void TestSecretStore::fileUnwritableDirectory()
{
    // A directory that cannot be created (a file stands where it should be): fails for root too.
    const QString blocker = m_dir->filePath(QStringLiteral("blocker"));
    writeOwnerOnly(blocker, "not a directory");
    SecretStore blocked(SecretStore::Mode::OwnerOnlyFile, blocker + QStringLiteral("/secrets.json"));
    const SecretStoreAnswer saved = save(blocked, QStringLiteral("k"), "v");
    QVERIFY(saved.answered);
    QVERIFY(!saved.ok);
    QVERIFY2(saved.error.contains(blocker), qPrintable(saved.error));

    // A directory without write permission (root may write anyway, so only checked for others).
    const QString readOnly = m_dir->filePath(QStringLiteral("read-only"));
    QVERIFY(QDir().mkpath(readOnly));
    QVERIFY(::chmod(QFile::encodeName(readOnly).constData(), 0500) == 0);
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, readOnly + QStringLiteral("/secrets.json"));
    const SecretStoreAnswer denied = save(store, QStringLiteral("k"), "v");
    if (::geteuid() != 0) {
        QVERIFY(!denied.ok);
        QVERIFY2(denied.error.contains(QStringLiteral("cannot write the secrets file")), qPrintable(denied.error));
        QVERIFY(!QFile::exists(readOnly + QStringLiteral("/secrets.json")));
    }
    ::chmod(QFile::encodeName(readOnly).constData(), 0700);
}

void TestSecretStore::operationsAnswerLaterAndInOrder()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    QStringList events;
    store.save(
        QStringLiteral("k"), "one", [&](bool ok, const QString&) { events << QStringLiteral("save %1").arg(ok); });
    store.load(QStringLiteral("k"), [&](std::optional<QByteArray> secret, const QString&) {
        events << QStringLiteral("load %1").arg(QString::fromLatin1(secret.value_or("none")));
    });
    store.remove(QStringLiteral("k"), [&](bool ok, const QString&) { events << QStringLiteral("remove %1").arg(ok); });
    store.load(QStringLiteral("k"), [&](std::optional<QByteArray> secret, const QString&) {
        events << QStringLiteral("load %1").arg(QString::fromLatin1(secret.value_or("none")));
    });
    QVERIFY(events.isEmpty()); // never answered from inside the call
    QTRY_COMPARE(events.size(), 4);
    QCOMPARE(events,
        (QStringList{QStringLiteral("save 1"), QStringLiteral("load one"), QStringLiteral("remove 1"),
            QStringLiteral("load none")}));
}

void TestSecretStore::emptyKeyIsRefused()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    const SecretStoreAnswer saved = save(store, QString(), "v");
    QVERIFY(!saved.ok);
    QVERIFY(saved.error.contains(QStringLiteral("non-empty key")));
    QVERIFY(!QFile::exists(path()));
}

// The store is destroyed while an operation is running on the thread pool: the operation still
// completes (the file is written), but its callback never runs.
void TestSecretStore::destroyedStoreNeverCallsBack()
{
    auto store = std::make_unique<SecretStore>(SecretStore::Mode::OwnerOnlyFile, path());
    bool firstAnswered = false;
    bool secondCalledBack = false;
    // The second operation starts the moment the first one's callback returns (same event), so a
    // destruction queued from that callback comes while the second is in flight.
    store->save(QStringLiteral("first"), "1", [&](bool ok, const QString& error) {
        QVERIFY2(ok, qPrintable(error));
        firstAnswered = true;
        QMetaObject::invokeMethod(
            this, [&store] { store.reset(); }, Qt::QueuedConnection);
    });
    store->save(QStringLiteral("second"), "2", [&](bool, const QString&) { secondCalledBack = true; });
    QTRY_VERIFY_WITH_TIMEOUT(firstAnswered, 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(!store, 20'000);

    // The second save ran to its end on the pool: another store reads what it wrote. That read
    // goes through the same stages (pool, watcher, queued callback) after the second save's did,
    // so had the destroyed store been going to call back, it would have by now.
    QThreadPool::globalInstance()->waitForDone();
    SecretStore reader(SecretStore::Mode::OwnerOnlyFile, path());
    const SecretStoreAnswer second = load(reader, QStringLiteral("second"));
    QVERIFY2(second.answered && second.ok, qPrintable(second.error));
    QCOMPARE(second.secret, std::optional<QByteArray>("2"));
    QVERIFY(!secondCalledBack);
}

void TestSecretStore::fromConfiguration()
{
    SwitchboardConfig config;
    const QString state = m_dir->filePath(QStringLiteral("state"));
    SecretStore byDefault(ConfigSettings::secretStore(config), state);
    QCOMPARE(byDefault.mode(), SecretStore::Mode::Keychain);
    QVERIFY(byDefault.description().contains(QStringLiteral("keychain")));

    config.secretStorage = SwitchboardConfig::SecretStorage::OwnerOnlyFile;
    SecretStore inStateDirectory(ConfigSettings::secretStore(config), state);
    QCOMPARE(inStateDirectory.mode(), SecretStore::Mode::OwnerOnlyFile);
    QCOMPARE(inStateDirectory.filePath(), SecretStore::defaultFilePath(state));
    QCOMPARE(QFileInfo(inStateDirectory.filePath()).fileName(), QStringLiteral("secrets.json"));

    config.secretsFile = m_dir->filePath(QStringLiteral("elsewhere/s.json"));
    SecretStore configured(ConfigSettings::secretStore(config), state);
    QCOMPARE(configured.filePath(), config.secretsFile);
    QVERIFY(configured.description().contains(config.secretsFile));
}

void TestSecretStore::keychainWithoutSessionBusFailsFast()
{
    SecretStore store;
    QCOMPARE(store.mode(), SecretStore::Mode::Keychain);
    QElapsedTimer elapsed;
    elapsed.start();
    const SecretStoreAnswer saved = save(store, QStringLiteral("api-key/github/alice"), "hunter2", 5000);
    QVERIFY(saved.answered);
    QVERIFY(elapsed.elapsed() < 3000);
    QVERIFY(!saved.ok);
    qInfo("%s", qPrintable(saved.error)); // for whoever reads the log: what the operator sees
    QVERIFY2(saved.error.contains(QStringLiteral("no D-Bus session bus")), qPrintable(saved.error));
    QVERIFY2(saved.error.contains(QStringLiteral("secrets: file")), qPrintable(saved.error)); // the remedy
    QVERIFY(saved.error.contains(QStringLiteral("api-key/github/alice")));
    QVERIFY(!saved.error.contains(QStringLiteral("hunter2")));

    // A load is a failure too, not a "missing" secret.
    const SecretStoreAnswer loaded = load(store, QStringLiteral("api-key/github/alice"), 5000);
    QVERIFY(loaded.answered);
    QVERIFY(!loaded.secret.has_value());
    QVERIFY2(loaded.error.contains(QStringLiteral("no D-Bus session bus")), qPrintable(loaded.error));
    const SecretStoreAnswer removed = remove(store, QStringLiteral("api-key/github/alice"), 5000);
    QVERIFY(removed.answered);
    QVERIFY(!removed.ok);
    QVERIFY(elapsed.elapsed() < 5000);

    // Never QtKeychain's plaintext fallback, nor a file of ours.
    QVERIFY(!QFile::exists(path()));
    QCOMPARE(QDir(m_home.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
}

// Processes that each save keys of their own into one file at the same time: every key is there
// afterwards with its own secret (without the file's lock, one process's write would replace the
// file another had just read and changed).
void TestSecretStore::processesChangingKeysAtOnceLoseNone()
{
    {
        SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
        QVERIFY(save(store, QStringLiteral("before"), secretFor(QStringLiteral("before"))).ok);
    }
    constexpr int Processes = 8;
    constexpr int KeysEach = 15;
    std::vector<std::unique_ptr<QProcess>> children;
    for (int n = 0; n < Processes; ++n) {
        auto child = std::make_unique<QProcess>();
        child->setProcessChannelMode(QProcess::ForwardedChannels);
        child->start(QCoreApplication::applicationFilePath(),
            {QStringLiteral("--save-secrets"), path(), QStringLiteral("p%1/").arg(n), QString::number(KeysEach)});
        children.push_back(std::move(child));
    }
    for (auto& child : children) {
        QVERIFY(child->waitForFinished(120'000));
        QCOMPARE(child->exitStatus(), QProcess::NormalExit);
        QCOMPARE(child->exitCode(), 0);
    }
    const QJsonObject secrets
        = QJsonDocument::fromJson(contentsOf(path())).object().value(QLatin1String("secrets")).toObject();
    QCOMPARE(secrets.size(), Processes * KeysEach + 1);
    SecretStore reader(SecretStore::Mode::OwnerOnlyFile, path());
    QCOMPARE(
        load(reader, QStringLiteral("before")).secret, std::optional<QByteArray>(secretFor(QStringLiteral("before"))));
    for (int n = 0; n < Processes; ++n) {
        for (int key = 0; key < KeysEach; ++key) {
            const QString name = QStringLiteral("p%1/%2").arg(n).arg(key);
            QCOMPARE(load(reader, name).secret, std::optional<QByteArray>(secretFor(name)));
        }
    }
    QCOMPARE(modeOf(path()), mode_t(0600));
}

// A process that holds the file's lock and does not let go makes a save fail after the wait, naming
// it, with the file untouched; once it lets go, saves go through.
void TestSecretStore::fileLockWaitIsBounded()
{
    SecretStore store(SecretStore::Mode::OwnerOnlyFile, path());
    QVERIFY(save(store, QStringLiteral("a"), "first").ok);
    const QByteArray before = contentsOf(path());
    QString error;
    auto held = StateFileLock::acquire(StateFileLock::lockPathFor(path()), std::chrono::milliseconds(0), &error);
    QVERIFY2(held, qPrintable(error));
    store.setFileLockTimeout(std::chrono::milliseconds(200));
    const SecretStoreAnswer refused = save(store, QStringLiteral("b"), "second");
    QVERIFY(refused.answered);
    QVERIFY(!refused.ok);
    QVERIFY2(refused.error.contains(QStringLiteral("cannot write the secrets file"))
            && refused.error.contains(
                QStringLiteral("the secrets file is locked by another process (pid %1").arg(::getpid())),
        qPrintable(refused.error));
    QVERIFY(!remove(store, QStringLiteral("a")).ok);
    QCOMPARE(contentsOf(path()), before);
    QCOMPARE(load(store, QStringLiteral("a")).secret, std::optional<QByteArray>("first")); // reads need no lock
    held.reset();
    QVERIFY(save(store, QStringLiteral("b"), "second").ok);
    QCOMPARE(load(store, QStringLiteral("b")).secret, std::optional<QByteArray>("second"));
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (argc >= 5 && qstrcmp(argv[1], "--save-secrets") == 0)
        return saveSecrets(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]), atoi(argv[4]));
    TestSecretStore test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_secretstore.moc"
