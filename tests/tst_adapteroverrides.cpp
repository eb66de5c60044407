// The operator's adapter overrides kept in the state directory (AdapterOverridesFile) and applied by
// the AdapterRegistry: the file's form and its owner-only atomic writes; a change touches only its
// adapter's entry, so writer processes changing different adapters at once lose nothing; a missing
// file is no overrides; an unreadable one is set aside; a lock held too long fails a change rather
// than waiting. The registry starts adapters with their overrides (a disabled one never connects, a
// forced-open breaker is open from the outset with no new transition), writes the operator's commands
// to the file, follows changes another process makes, and keeps a change it could not save.
//
// The test executable is also its own child process: with --writer as its first argument it changes
// entries of the file instead of running the tests.

#include "adapters/adapteroverridesfile.h"
#include "adapters/adapterregistry.h"
#include "adapters/upstreamadapter.h"
#include "store/statefilelock.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

#include <sys/stat.h>

using nlohmann::json;
using Change = AdapterOverridesFile::Change;
using Overrides = AdapterOverridesFile::Overrides;
using ReadStatus = AdapterOverridesFile::ReadStatus;

namespace {

constexpr int EntriesPerWriter = 40;

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& contents)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(contents), contents.size());
}

// The files a set-aside left beside `path`.
QStringList setAsideBeside(const QString& path)
{
    const QFileInfo info(path);
    return QDir(info.absolutePath())
        .entryList({info.fileName() + QStringLiteral(".unreadable-*")}, QDir::Files | QDir::Hidden);
}

AdapterConfig adapterAt(const QString& name, quint16 port)
{
    AdapterConfig config;
    config.name = name;
    config.endpoint = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
    config.timeout = std::chrono::milliseconds(60'000);
    return config;
}

// --writer PATH PREFIX: changes the entries PREFIX-0 … PREFIX-(EntriesPerWriter - 1), one change per
// entry, each under the lock: disabled for even ones, forced open for odd ones.
int runWriter(const QString& path, const QString& prefix)
{
    const AdapterOverridesFile file(path, std::chrono::seconds(60));
    for (int i = 0; i < EntriesPerWriter; ++i) {
        Overrides after;
        QString error;
        const QString name = QStringLiteral("%1-%2").arg(prefix).arg(i);
        if (!file.change(name, i % 2 == 0 ? Change::Disable : Change::ForceOpen, i + 1, &after, &error)) {
            std::fprintf(stderr, "writer %s: %s\n", qPrintable(prefix), qPrintable(error));
            return 1;
        }
        // What it wrote is in what it wrote, with every entry of its own so far.
        for (int j = 0; j <= i; ++j) {
            if (!after.count(QStringLiteral("%1-%2").arg(prefix).arg(j))) {
                std::fprintf(stderr, "writer %s: its entry %d is gone after entry %d\n", qPrintable(prefix), j, i);
                return 1;
            }
        }
    }
    return 0;
}

} // namespace

class TestAdapterOverrides : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void missingFileIsNoOverrides();
    void changesAreWrittenAndReadBack();
    void unreadableFileIsSetAside_data();
    void unreadableFileIsSetAside();
    void changeToAnUnreadableFileSetsItAsideAndWrites();
    void lockHeldTooLongFailsTheChange();
    void interleavedWriterProcessesLoseNothing();
    void registryStartsAdaptersWithTheirOverrides();
    void registryWritesCommandsAndFollowsOtherProcesses();
    void changeThatCouldNotBeSavedActsHereAndIsNotUndone();
    void adapterDisabledWhileConnectingStaysDisabled();

private:
    QString path() const { return m_dir->filePath(QStringLiteral("adapters.json")); }
    static QString self() { return QCoreApplication::applicationFilePath(); }
    // Keeps each adapter's newest status and breaker state from `registry`.
    void track(AdapterRegistry& registry);

    std::unique_ptr<QTemporaryDir> m_dir;
    QHash<QString, AdapterStatus> m_statuses;
    QHash<QString, BreakerState> m_breakers;
    QList<BreakerTransitionRecord> m_transitions;
};

void TestAdapterOverrides::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_statuses.clear();
    m_breakers.clear();
    m_transitions.clear();
}

void TestAdapterOverrides::cleanup()
{
    m_dir.reset();
}

void TestAdapterOverrides::track(AdapterRegistry& registry)
{
    connect(&registry, &AdapterRegistry::statusChanged, this,
        [this](const AdapterStatus& status) { m_statuses.insert(status.name, status); });
    connect(&registry, &AdapterRegistry::breakerChanged, this,
        [this](const BreakerState& state) { m_breakers.insert(state.adapter, state); });
    connect(&registry, &AdapterRegistry::breakerTransition, this,
        [this](const BreakerTransitionRecord& transition) { m_transitions.append(transition); });
}

void TestAdapterOverrides::missingFileIsNoOverrides()
{
    const AdapterOverridesFile file(path());
    Overrides overrides{{QStringLiteral("stale"), {true, false, 1, QString()}}};
    QString message;
    QCOMPARE(file.read(&overrides, &message), ReadStatus::Missing);
    QVERIFY(overrides.empty());
    QVERIFY(message.isEmpty());
    // A change that leaves no override writes no file.
    Overrides after;
    QString error;
    QVERIFY2(file.change(QStringLiteral("github"), Change::Reset, 5, &after, &error), qPrintable(error));
    QVERIFY(after.empty());
    QVERIFY(!QFile::exists(path()));
}

void TestAdapterOverrides::changesAreWrittenAndReadBack()
{
    const AdapterOverridesFile file(path());
    Overrides after;
    QString error;
    QVERIFY2(file.change(QStringLiteral("github"), Change::Disable, 100, &after, &error), qPrintable(error));
    QVERIFY2(file.change(QStringLiteral("search"), Change::ForceOpen, 200, &after, &error), qPrintable(error));
    QVERIFY2(file.change(QStringLiteral("github"), Change::ForceOpen, 300, &after, &error), qPrintable(error));

    // The form the README shows, owner-only.
    const json written = json::parse(readFile(path()).toStdString(), nullptr, false);
    const json expected = json::parse(R"({"version": 1, "adapters": {
        "github": {"enabled": false, "forcedOpen": true, "changedAtMs": 300},
        "search": {"enabled": true, "forcedOpen": true, "changedAtMs": 200}}})");
    QVERIFY2(written == expected, written.dump().c_str());
    struct stat status = {};
    QCOMPARE(::stat(QFile::encodeName(path()).constData(), &status), 0);
    QCOMPARE(status.st_mode & 0777, mode_t(0600));

    Overrides read;
    QString message;
    QCOMPARE(file.read(&read, &message), ReadStatus::Read);
    QCOMPARE(read.size(), std::size_t(2));
    QVERIFY(read.at(QStringLiteral("github")).disabled && read.at(QStringLiteral("github")).forcedOpen);
    QVERIFY(!read.at(QStringLiteral("search")).disabled && read.at(QStringLiteral("search")).forcedOpen);
    QCOMPARE(read.at(QStringLiteral("search")).changedAtMs, qint64(200));

    // The same change again changes nothing, not even the time.
    QVERIFY2(file.change(QStringLiteral("search"), Change::ForceOpen, 999, &after, &error), qPrintable(error));
    QCOMPARE(after.at(QStringLiteral("search")).changedAtMs, qint64(200));

    // Enable clears the disabling, Reset the forcing; an entry with neither is gone.
    QVERIFY2(file.change(QStringLiteral("github"), Change::Enable, 400, &after, &error), qPrintable(error));
    QVERIFY(!after.at(QStringLiteral("github")).disabled);
    QVERIFY(after.at(QStringLiteral("github")).forcedOpen);
    QVERIFY2(file.change(QStringLiteral("github"), Change::Reset, 500, &after, &error), qPrintable(error));
    QVERIFY(!after.count(QStringLiteral("github")));
    QVERIFY(after.count(QStringLiteral("search")));
    QVERIFY2(file.change(QStringLiteral("search"), Change::Reset, 600, &after, &error), qPrintable(error));
    QVERIFY(after.empty());
    QCOMPARE(file.read(&read, &message), ReadStatus::Read);
    QVERIFY(read.empty());
    QVERIFY(setAsideBeside(path()).isEmpty());

    // A name no adapter can have is refused rather than written (every reader would set the file aside).
    QVERIFY(!file.change(QStringLiteral("not.a name"), Change::Disable, 700, &after, &error));
    QVERIFY2(error.contains(QStringLiteral("cannot name an adapter")), qPrintable(error));
    QCOMPARE(file.read(&read, &message), ReadStatus::Read);
}

void TestAdapterOverrides::unreadableFileIsSetAside_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::newRow("not JSON") << QByteArray("{\"version\": 1, \"adapters\": {");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("an array") << QByteArray("[]");
    QTest::newRow("another version") << QByteArray(R"({"version": 2, "adapters": {}})");
    QTest::newRow("no version") << QByteArray(R"({"adapters": {}})");
    QTest::newRow("adapters not an object") << QByteArray(R"({"version": 1, "adapters": []})");
    QTest::newRow("entry not an object") << QByteArray(R"({"version": 1, "adapters": {"github": false}})");
    QTest::newRow("enabled not a boolean")
        << QByteArray(R"({"version": 1, "adapters": {"github": {"enabled": "no"}}})");
    QTest::newRow("forcedOpen not a boolean")
        << QByteArray(R"({"version": 1, "adapters": {"github": {"forcedOpen": 1}}})");
    QTest::newRow("not an adapter's name")
        << QByteArray(R"({"version": 1, "adapters": {"git.hub": {"enabled": false}}})");
    // Valid JSON, but larger than any file Switchboard writes.
    QTest::newRow("too large") << QByteArray(R"({"version": 1, "adapters": {}})")
            + QByteArray(AdapterOverridesFile::MaxFileBytes, ' ');
}

void TestAdapterOverrides::unreadableFileIsSetAside()
{
    QFETCH(QByteArray, contents);
    writeFile(path(), contents);
    const AdapterOverridesFile file(path());
    Overrides overrides;
    QString message;
    QCOMPARE(file.read(&overrides, &message), ReadStatus::SetAside);
    QVERIFY(overrides.empty());
    const QStringList aside = setAsideBeside(path());
    QCOMPARE(aside.size(), 1);
    QVERIFY2(message.contains(aside.front()), qPrintable(message));
    QCOMPARE(readFile(m_dir->filePath(aside.front())), contents); // kept as it was, for the operator
    QVERIFY(!QFile::exists(path()));
    // Now there is nothing: no overrides, and nothing set aside again.
    QCOMPARE(file.read(&overrides, &message), ReadStatus::Missing);
    QCOMPARE(setAsideBeside(path()).size(), 1);
}

void TestAdapterOverrides::changeToAnUnreadableFileSetsItAsideAndWrites()
{
    writeFile(path(), "not json at all");
    const AdapterOverridesFile file(path());
    Overrides after;
    QString error;
    QString notice;
    QVERIFY2(file.change(QStringLiteral("github"), Change::Disable, 7, &after, &error, &notice), qPrintable(error));
    QCOMPARE(setAsideBeside(path()).size(), 1);
    QVERIFY2(notice.contains(setAsideBeside(path()).front()), qPrintable(notice));
    Overrides read;
    QString message;
    QCOMPARE(file.read(&read, &message), ReadStatus::Read);
    QCOMPARE(read.size(), std::size_t(1));
    QVERIFY(read.at(QStringLiteral("github")).disabled);
}

void TestAdapterOverrides::lockHeldTooLongFailsTheChange()
{
    const AdapterOverridesFile file(path(), std::chrono::milliseconds(200));
    Overrides after;
    QString error;
    QVERIFY2(file.change(QStringLiteral("github"), Change::Disable, 1, &after, &error), qPrintable(error));
    const QByteArray before = readFile(path());
    {
        // Another open file description of the lock file: flock excludes it like another process.
        const auto held = StateFileLock::acquire(StateFileLock::lockPathFor(path()), std::chrono::seconds(10), &error);
        QVERIFY2(held, qPrintable(error));
        QVERIFY(!file.change(QStringLiteral("search"), Change::ForceOpen, 2, &after, &error));
        QVERIFY2(error.contains(QStringLiteral("locked by another process")), qPrintable(error));
        QCOMPARE(readFile(path()), before);
        // Reading needs no lock.
        Overrides read;
        QString message;
        QCOMPARE(file.read(&read, &message), ReadStatus::Read);
        QVERIFY(read.at(QStringLiteral("github")).disabled);
    }
    QVERIFY2(file.change(QStringLiteral("search"), Change::ForceOpen, 2, &after, &error), qPrintable(error));
    QCOMPARE(after.size(), std::size_t(2));
}

// Writer processes change entries of their own at the same time, each a read-change-write under the
// lock: every entry of every writer is in the file at the end, and so is the one there before.
void TestAdapterOverrides::interleavedWriterProcessesLoseNothing()
{
    const AdapterOverridesFile file(path());
    Overrides after;
    QString error;
    QVERIFY2(file.change(QStringLiteral("before"), Change::ForceOpen, 1, &after, &error), qPrintable(error));

    constexpr int Writers = 3;
    std::vector<std::unique_ptr<QProcess>> writers;
    for (int n = 0; n < Writers; ++n) {
        auto writer = std::make_unique<QProcess>();
        writer->setProcessChannelMode(QProcess::ForwardedChannels);
        writer->start(self(), {QStringLiteral("--writer"), path(), QStringLiteral("w%1").arg(n)});
        writers.push_back(std::move(writer));
    }
    for (int n = 0; n < Writers; ++n) {
        QProcess& writer = *writers[std::size_t(n)];
        QVERIFY2(writer.waitForFinished(240'000), qPrintable(QStringLiteral("writer %1 did not finish").arg(n)));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
    }
    Overrides read;
    QString message;
    QCOMPARE(file.read(&read, &message), ReadStatus::Read);
    QCOMPARE(read.size(), std::size_t(Writers * EntriesPerWriter + 1));
    QVERIFY(read.at(QStringLiteral("before")).forcedOpen);
    for (int n = 0; n < Writers; ++n) {
        for (int i = 0; i < EntriesPerWriter; ++i) {
            const QString name = QStringLiteral("w%1-%2").arg(n).arg(i);
            QVERIFY2(read.count(name), qPrintable(name));
            QCOMPARE(read.at(name).disabled, i % 2 == 0);
            QCOMPARE(read.at(name).forcedOpen, i % 2 == 1);
        }
    }
}

// The file says `quiet` is disabled and `held`'s breaker was forced open; `plain` has no entry, and
// `gone` is not configured. Upstreams that accept connections and never answer show who connects:
// `plain` does, the other two never try.
void TestAdapterOverrides::registryStartsAdaptersWithTheirOverrides()
{
    writeFile(path(), R"({"version": 1, "adapters": {
        "quiet": {"enabled": false, "forcedOpen": false, "changedAtMs": 10},
        "held": {"enabled": true, "forcedOpen": true, "changedAtMs": 1234},
        "gone": {"enabled": false}}})");
    QTcpServer overridden;
    QTcpServer control;
    QVERIFY(overridden.listen(QHostAddress::LocalHost, 0));
    QVERIFY(control.listen(QHostAddress::LocalHost, 0));
    QSignalSpy overriddenConnected(&overridden, &QTcpServer::newConnection);
    QSignalSpy controlConnected(&control, &QTcpServer::newConnection);

    AdapterRegistry registry(nullptr, nullptr);
    track(registry);
    QSignalSpy notices(&registry, &AdapterRegistry::overridesNotice);
    registry.useOverridesFile(path(), false);
    QCOMPARE(registry.overrides().size(), std::size_t(3));
    registry.apply({adapterAt(QStringLiteral("quiet"), overridden.serverPort()),
        adapterAt(QStringLiteral("held"), overridden.serverPort()),
        adapterAt(QStringLiteral("plain"), control.serverPort())});

    QTRY_VERIFY_WITH_TIMEOUT(controlConnected.count() >= 1, 30'000); // the control adapter connects
    QTRY_COMPARE_WITH_TIMEOUT(
        m_statuses.value(QStringLiteral("quiet")).connection, AdapterConnection::Disabled, 30'000);
    QVERIFY(m_statuses.value(QStringLiteral("quiet")).disabledByOperator);
    QTRY_VERIFY_WITH_TIMEOUT(m_breakers.value(QStringLiteral("held")).forcedOpen, 30'000);
    const BreakerState held = m_breakers.value(QStringLiteral("held"));
    QCOMPARE(held.phase, BreakerPhase::Open);
    QCOMPARE(held.changedAtMs, qint64(1234)); // when the operator forced it, not when this process started
    QCOMPARE(held.retryAtMs, qint64(0)); // no trial calls until reset
    QCOMPARE(m_breakers.value(QStringLiteral("quiet")).phase, BreakerPhase::Closed);
    QCOMPARE(m_breakers.value(QStringLiteral("plain")).phase, BreakerPhase::Closed);
    // Restored, not repeated: the transition was recorded when the operator forced it.
    QVERIFY(m_transitions.isEmpty());
    QCOMPARE(overriddenConnected.count(), 0);
    QVERIFY(!overridden.hasPendingConnections());
    QCOMPARE(notices.count(), 0);

    QVERIFY2(registry.unavailableReason(QStringLiteral("quiet"))
                 .contains(QStringLiteral("adapter quiet is disabled by the Switchboard operator")),
        qPrintable(registry.unavailableReason(QStringLiteral("quiet"))));
    QVERIFY2(registry.unavailableReason(QStringLiteral("held"))
                 .contains(QStringLiteral("opened by the Switchboard operator")),
        qPrintable(registry.unavailableReason(QStringLiteral("held"))));

    // The entry of the adapter that is not configured is kept when the registry writes.
    QString error;
    QVERIFY2(registry.setEnabled(QStringLiteral("plain"), false, &error), qPrintable(error));
    Overrides read;
    QString message;
    QCOMPARE(AdapterOverridesFile(path()).read(&read, &message), ReadStatus::Read);
    QVERIFY(read.at(QStringLiteral("gone")).disabled);
    QVERIFY(read.at(QStringLiteral("plain")).disabled);
    QVERIFY(read.at(QStringLiteral("held")).forcedOpen);

    // A reset lets the adapter connect at once.
    QVERIFY2(registry.resetBreaker(QStringLiteral("held"), &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(overriddenConnected.count() >= 1, 30'000);
    QCOMPARE(AdapterOverridesFile(path()).read(&read, &message), ReadStatus::Read);
    QVERIFY(!read.count(QStringLiteral("held")));
}

// The console (a registry following the file) and another process (here: the file changed through an
// AdapterOverridesFile of its own, which is all a process shares) see each other's changes.
void TestAdapterOverrides::registryWritesCommandsAndFollowsOtherProcesses()
{
    QTcpServer upstream; // accepts, never answers: the adapters stay connecting
    QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
    AdapterRegistry registry(nullptr, nullptr);
    track(registry);
    registry.useOverridesFile(path(), true);
    registry.apply({adapterAt(QStringLiteral("alpha"), upstream.serverPort()),
        adapterAt(QStringLiteral("beta"), upstream.serverPort())});
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.contains(QStringLiteral("alpha")), 30'000);
    QCOMPARE(m_statuses.value(QStringLiteral("alpha")).disabledByOperator, false);

    const AdapterOverridesFile elsewhere(path());
    Overrides after;
    QString error;
    QVERIFY2(elsewhere.change(QStringLiteral("alpha"), Change::Disable, 1, &after, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.value(QStringLiteral("alpha")).disabledByOperator, 30'000);
    QCOMPARE(m_statuses.value(QStringLiteral("alpha")).connection, AdapterConnection::Disabled);

    QVERIFY2(elsewhere.change(QStringLiteral("beta"), Change::ForceOpen, 2, &after, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(m_breakers.value(QStringLiteral("beta")).forcedOpen, 30'000);
    QCOMPARE(m_transitions.size(), 1); // a change here, told like the operator's own
    QVERIFY2(m_transitions.front().reason.contains(QStringLiteral("another Switchboard process")),
        qPrintable(m_transitions.front().reason));

    // The registry's own commands go to the file, keeping what the other process wrote.
    QVERIFY2(registry.setEnabled(QStringLiteral("alpha"), true, &error), qPrintable(error));
    QVERIFY2(registry.forceOpenBreaker(QStringLiteral("alpha"), &error), qPrintable(error));
    Overrides read;
    QString message;
    QCOMPARE(elsewhere.read(&read, &message), ReadStatus::Read);
    QCOMPARE(read.size(), std::size_t(2));
    QVERIFY(!read.at(QStringLiteral("alpha")).disabled);
    QVERIFY(read.at(QStringLiteral("alpha")).forcedOpen);
    QVERIFY(read.at(QStringLiteral("beta")).forcedOpen);
    // An unknown adapter is refused and writes nothing.
    const QByteArray before = readFile(path());
    QVERIFY(!registry.setEnabled(QStringLiteral("nosuch"), false, &error));
    QVERIFY2(error.contains(QStringLiteral("alpha")), qPrintable(error));
    QCOMPARE(readFile(path()), before);

    // Reset elsewhere: the breaker here closes; the other entry stays.
    QVERIFY2(elsewhere.change(QStringLiteral("beta"), Change::Reset, 3, &after, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(m_breakers.value(QStringLiteral("beta")).phase, BreakerPhase::Closed, 30'000);
    QVERIFY(m_breakers.value(QStringLiteral("alpha")).forcedOpen);

    // The file deleted by hand: no overrides, here too.
    QVERIFY(QFile::remove(path()));
    QTRY_VERIFY_WITH_TIMEOUT(!m_breakers.value(QStringLiteral("alpha")).forcedOpen, 30'000);
    QVERIFY(registry.overrides().empty());
}

void TestAdapterOverrides::changeThatCouldNotBeSavedActsHereAndIsNotUndone()
{
    QTcpServer upstream;
    QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
    AdapterRegistry registry(nullptr, nullptr);
    track(registry);
    registry.useOverridesFile(path(), false, std::chrono::milliseconds(200));
    registry.apply({adapterAt(QStringLiteral("alpha"), upstream.serverPort())});
    QString error;
    {
        const auto held = StateFileLock::acquire(StateFileLock::lockPathFor(path()), std::chrono::seconds(10), &error);
        QVERIFY2(held, qPrintable(error));
        QVERIFY(!registry.setEnabled(QStringLiteral("alpha"), false, &error));
        QVERIFY2(error.contains(QStringLiteral("Adapter alpha is disabled in this Switchboard, but it could not be "
                                               "saved")),
            qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("locked by another process")), qPrintable(error));
    }
    QTRY_VERIFY_WITH_TIMEOUT(m_statuses.value(QStringLiteral("alpha")).disabledByOperator, 30'000);
    QVERIFY(!QFile::exists(path()));
    // The file, read again, does not say otherwise than it did: the change here stays.
    registry.reloadOverrides();
    QCoreApplication::processEvents();
    QVERIFY(m_statuses.value(QStringLiteral("alpha")).disabledByOperator);
    QVERIFY(registry.unavailableReason(QStringLiteral("alpha")).contains(QStringLiteral("disabled")));
}

// Disabled (as when following another process) while its first connection is under way: the attempt
// failing afterwards is recorded, but the adapter stays disabled rather than "failing".
void TestAdapterOverrides::adapterDisabledWhileConnectingStaysDisabled()
{
    QTcpServer upstream;
    QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
    AdapterRegistry registry(nullptr, nullptr);
    track(registry);
    registry.apply({adapterAt(QStringLiteral("alpha"), upstream.serverPort())});
    QTRY_VERIFY_WITH_TIMEOUT(upstream.hasPendingConnections(), 30'000);
    QCOMPARE(m_statuses.value(QStringLiteral("alpha")).connection, AdapterConnection::Connecting);
    QString error;
    QVERIFY2(registry.setEnabled(QStringLiteral("alpha"), false, &error), qPrintable(error));
    QCOMPARE(m_statuses.value(QStringLiteral("alpha")).connection, AdapterConnection::Disabled);

    // The upstream drops the connection: the attempt fails.
    const auto dropAll = [&upstream] {
        while (upstream.hasPendingConnections())
            upstream.nextPendingConnection()->abort();
    };
    connect(&upstream, &QTcpServer::newConnection, this, dropAll);
    dropAll();
    QTRY_VERIFY_WITH_TIMEOUT(!m_statuses.value(QStringLiteral("alpha")).lastError.isEmpty(), 30'000);
    QCOMPARE(m_statuses.value(QStringLiteral("alpha")).connection, AdapterConnection::Disabled);
    QVERIFY(registry.unavailableReason(QStringLiteral("alpha")).contains(QStringLiteral("disabled")));
}

int main(int argc, char** argv)
{
    if (argc >= 4 && qstrcmp(argv[1], "--writer") == 0) {
        QCoreApplication app(argc, argv);
        return runWriter(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    }
    QCoreApplication app(argc, argv);
    TestAdapterOverrides test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_adapteroverrides.moc"
