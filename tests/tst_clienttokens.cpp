// Named client tokens (ClientTokens): issued, listed and revoked; the file holds digests, never a
// token, and is owner-only; names are checked; nameFor finds a live token and not a revoked one,
// also when another object (another process) changed the file under it; a file that cannot be used
// fails closed, with a message, and is never written over; the count is bounded; writers at once
// lose nothing; a lock held too long fails a change rather than waiting. And the Backend's side of
// the operator interface: the console's commands run off its thread and answer on it.

#include "auth/clienttokens.h"
#include "core/backend.h"
#include "store/statefilelock.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>

#include <sys/stat.h>

namespace {

mode_t modeOf(const QString& path)
{
    struct stat info = {};
    ::stat(QFile::encodeName(path).constData(), &info);
    return info.st_mode & 0777;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& contents)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(contents) == contents.size();
}

QStringList namesOf(const QList<ClientTokens::Entry>& entries)
{
    QStringList names;
    for (const ClientTokens::Entry& entry : entries)
        names << entry.name;
    return names;
}

// A file as Switchboard writes it, with `count` tokens named token-<n> whose digests are random.
QByteArray fileWith(int count)
{
    nlohmann::json tokens = nlohmann::json::array();
    for (int i = 0; i < count; ++i) {
        QByteArray digest(32, Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(digest.data()), 8);
        tokens.push_back({{"name", QStringLiteral("token-%1").arg(i).toStdString()},
            {"sha256", digest.toHex().toStdString()}, {"createdAtMs", 1'700'000'000'000 + i}});
    }
    return QByteArray::fromStdString(nlohmann::json{{"version", 1}, {"tokens", tokens}}.dump(2));
}

} // namespace

class TestClientTokens : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void issueListRevoke();
    void tokensAreLongRandomAndTheirOwnForm();
    void theFileHoldsDigestsNeverATokenAndIsOwnerOnly();
    void aNameTakenTwiceIsRefused();
    void badNamesAreRefused_data();
    void badNamesAreRefused();
    void goodNamesAreTaken_data();
    void goodNamesAreTaken();
    void nameForFindsOnlyLiveTokens();
    void aRevocationByAnotherObjectTakesEffectAtOnce();
    void anIssueByAnotherObjectIsSeen();
    void aFileThatCannotBeUsedFailsClosed_data();
    void aFileThatCannotBeUsedFailsClosed();
    void aFileOthersMayWriteFailsClosedUntilFixed();
    void theCountIsBounded();
    void writersAtOnceLoseNothing();
    void aLockHeldTooLongFailsAChange();
    void theBackendAnswersOnItsOwnThread();
    void aBackendGoingWaitsForNoCommand();
};

void TestClientTokens::issueListRevoke()
{
    QTemporaryDir dir;
    ClientTokens tokens(ClientTokens::defaultPath(dir.path()));
    QCOMPARE(tokens.path(), dir.filePath(QStringLiteral("client-tokens.json")));
    QVERIFY(tokens.list().isEmpty());
    QVERIFY(tokens.problem().isEmpty());

    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    QString error;
    const QByteArray alice = tokens.issue(QStringLiteral("alice"), &error);
    QVERIFY2(!alice.isEmpty(), qPrintable(error));
    const QByteArray bob = tokens.issue(QStringLiteral("bob"), &error);
    QVERIFY2(!bob.isEmpty(), qPrintable(error));
    const qint64 after = QDateTime::currentMSecsSinceEpoch();

    const QList<ClientTokens::Entry> listed = tokens.list();
    QCOMPARE(namesOf(listed), QStringList({QStringLiteral("alice"), QStringLiteral("bob")})); // oldest first
    for (const ClientTokens::Entry& entry : listed)
        QVERIFY(entry.createdAtMs >= before && entry.createdAtMs <= after);
    QCOMPARE(tokens.nameFor(alice), QStringLiteral("alice"));
    QCOMPARE(tokens.nameFor(bob), QStringLiteral("bob"));

    QVERIFY2(tokens.revoke(QStringLiteral("alice"), &error), qPrintable(error));
    QCOMPARE(namesOf(tokens.list()), QStringList{QStringLiteral("bob")});
    QCOMPARE(tokens.nameFor(alice), std::nullopt);
    QCOMPARE(tokens.nameFor(bob), QStringLiteral("bob"));

    // Revoked is gone: a second revoke says so, and the name is free again (for a new token).
    error.clear();
    QVERIFY(!tokens.revoke(QStringLiteral("alice"), &error));
    QVERIFY2(error.contains(QStringLiteral("no client token named alice")), qPrintable(error));
    const QByteArray again = tokens.issue(QStringLiteral("alice"), &error);
    QVERIFY(!again.isEmpty());
    QVERIFY(again != alice);
    QCOMPARE(tokens.nameFor(alice), std::nullopt);
    QCOMPARE(tokens.nameFor(again), QStringLiteral("alice"));
}

void TestClientTokens::tokensAreLongRandomAndTheirOwnForm()
{
    static const QRegularExpression form(QStringLiteral("\\Asbc_[A-Za-z0-9_-]{43}\\z"));
    QSet<QByteArray> seen;
    for (int i = 0; i < 200; ++i) {
        const QByteArray token = ClientTokens::generate();
        QVERIFY2(form.match(QString::fromLatin1(token)).hasMatch(), token.constData());
        QVERIFY(token.size() >= 32);
        // Not the shared token's form ("sb_…").
        QVERIFY(!token.startsWith("sb_"));
        seen.insert(token);
    }
    QCOMPARE(seen.size(), 200);
}

void TestClientTokens::theFileHoldsDigestsNeverATokenAndIsOwnerOnly()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    ClientTokens tokens(path);
    QList<QByteArray> issued;
    QString error;
    for (const char* name : {"one", "two", "three"})
        issued << tokens.issue(QString::fromLatin1(name), &error);
    QVERIFY(tokens.revoke(QStringLiteral("two"), &error));

    const QByteArray contents = readFile(path);
    for (const QByteArray& token : std::as_const(issued)) {
        QVERIFY(!contents.contains(token));
        // Nor any recognisable piece of it.
        QVERIFY(!contents.contains(token.mid(4, 16)));
    }
    const nlohmann::json file = nlohmann::json::parse(contents.toStdString());
    QCOMPARE(file["version"].get<int>(), 1);
    QCOMPARE(file["tokens"].size(), std::size_t(2));
    QCOMPARE(file["tokens"][0]["name"].get<std::string>(), "one");
    QCOMPARE(QByteArray::fromStdString(file["tokens"][0]["sha256"].get<std::string>()),
        QCryptographicHash::hash(issued.at(0), QCryptographicHash::Sha256).toHex());
    QCOMPARE(file["tokens"][1]["name"].get<std::string>(), "three");
    QVERIFY(file["tokens"][1]["createdAtMs"].is_number_integer());
    QCOMPARE(modeOf(path), mode_t(0600));
    // The state directory is the operator's alone too.
    QCOMPARE(modeOf(dir.path()), mode_t(0700));
}

void TestClientTokens::aNameTakenTwiceIsRefused()
{
    QTemporaryDir dir;
    ClientTokens tokens(ClientTokens::defaultPath(dir.path()));
    QString error;
    const QByteArray first = tokens.issue(QStringLiteral("ci-runner"), &error);
    QVERIFY(!first.isEmpty());
    const QByteArray before = readFile(tokens.path());
    QVERIFY(tokens.issue(QStringLiteral("ci-runner"), &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("already")), qPrintable(error));
    QCOMPARE(readFile(tokens.path()), before);
    QCOMPARE(tokens.nameFor(first), QStringLiteral("ci-runner"));
}

void TestClientTokens::badNamesAreRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("empty") << QString();
    QTest::newRow("65 characters") << QString(65, QLatin1Char('a'));
    QTest::newRow("space") << QStringLiteral("ci runner");
    QTest::newRow("slash") << QStringLiteral("ci/runner");
    QTest::newRow("colon") << QStringLiteral("shared:claude");
    QTest::newRow("newline") << QStringLiteral("ci\nrunner");
    QTest::newRow("not ASCII") << QStringLiteral("caf\u00e9");
    QTest::newRow("an option") << QStringLiteral("-rf");
    QTest::newRow("dot") << QStringLiteral(".");
    QTest::newRow("dot dot") << QStringLiteral("..");
    QTest::newRow("hidden") << QStringLiteral(".ci");
    QTest::newRow("NUL") << QStringLiteral("ci") + QChar(0) + QStringLiteral("x");
}

void TestClientTokens::badNamesAreRefused()
{
    QFETCH(QString, name);
    QVERIFY(!ClientTokens::problemWithName(name).isEmpty());
    QTemporaryDir dir;
    ClientTokens tokens(ClientTokens::defaultPath(dir.path()));
    QString error;
    QVERIFY(tokens.issue(name, &error).isEmpty());
    QVERIFY(!error.isEmpty());
    QVERIFY(!QFile::exists(tokens.path()));
}

void TestClientTokens::goodNamesAreTaken_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("one letter") << QStringLiteral("a");
    QTest::newRow("one digit") << QStringLiteral("7");
    QTest::newRow("all kinds") << QStringLiteral("Claude-Code_2.laptop");
    QTest::newRow("64 characters") << QString(64, QLatin1Char('z'));
}

void TestClientTokens::goodNamesAreTaken()
{
    QFETCH(QString, name);
    QVERIFY(ClientTokens::problemWithName(name).isEmpty());
    QTemporaryDir dir;
    ClientTokens tokens(ClientTokens::defaultPath(dir.path()));
    QString error;
    const QByteArray token = tokens.issue(name, &error);
    QVERIFY2(!token.isEmpty(), qPrintable(error));
    QCOMPARE(tokens.nameFor(token), name);
}

void TestClientTokens::nameForFindsOnlyLiveTokens()
{
    QTemporaryDir dir;
    ClientTokens tokens(ClientTokens::defaultPath(dir.path()));
    QString error;
    const QByteArray token = tokens.issue(QStringLiteral("ci"), &error);
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
    QCOMPARE(tokens.nameFor(ClientTokens::generate()), std::nullopt); // never issued
    QCOMPARE(tokens.nameFor(QByteArray(token + 'x')), std::nullopt);
    QCOMPARE(tokens.nameFor(token.chopped(1)), std::nullopt);
    QCOMPARE(tokens.nameFor(QByteArray()), std::nullopt);
    QCOMPARE(tokens.nameFor(QByteArray("sb_" + token.mid(4))), std::nullopt); // the shared token's form
    // The digest itself is no token.
    QCOMPARE(tokens.nameFor(QCryptographicHash::hash(token, QCryptographicHash::Sha256).toHex()), std::nullopt);
}

void TestClientTokens::aRevocationByAnotherObjectTakesEffectAtOnce()
{
    // The server's object has the file cached; the command line's (another process) revokes.
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    ClientTokens server(path);
    QString error;
    QList<QByteArray> issued;
    for (int i = 0; i < 5; ++i)
        issued << server.issue(QStringLiteral("client-%1").arg(i), &error);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(server.nameFor(issued.at(i)), QStringLiteral("client-%1").arg(i));
    // One after the other, as fast as they come: each change is seen on the very next check, however
    // close together the writes are (the file's times may not tell them apart; its inode does).
    for (int i = 0; i < 5; ++i) {
        ClientTokens commandLine(path);
        QVERIFY2(commandLine.revoke(QStringLiteral("client-%1").arg(i), &error), qPrintable(error));
        QCOMPARE(server.nameFor(issued.at(i)), std::nullopt);
        for (int j = i + 1; j < 5; ++j)
            QCOMPARE(server.nameFor(issued.at(j)), QStringLiteral("client-%1").arg(j));
    }
    QVERIFY(server.list().isEmpty());
}

void TestClientTokens::anIssueByAnotherObjectIsSeen()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    ClientTokens server(path);
    QVERIFY(server.list().isEmpty()); // no file yet: cached as none
    ClientTokens console(path);
    QString error;
    const QByteArray token = console.issue(QStringLiteral("inspector"), &error);
    QCOMPARE(server.nameFor(token), QStringLiteral("inspector"));
    QCOMPARE(namesOf(server.list()), QStringList{QStringLiteral("inspector")});
    // And the file removed by hand: every named token is revoked.
    QVERIFY(QFile::remove(path));
    QCOMPARE(server.nameFor(token), std::nullopt);
    QVERIFY(server.problem().isEmpty());
}

void TestClientTokens::aFileThatCannotBeUsedFailsClosed_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("why");
    QTest::newRow("empty") << QByteArray() << QStringLiteral("not JSON");
    QTest::newRow("not JSON") << QByteArray("{\"version\": 1, \"tokens\": [") << QStringLiteral("not JSON");
    QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("not a JSON object");
    QTest::newRow("another version") << QByteArray(R"({"version": 2, "tokens": []})") << QStringLiteral("version");
    QTest::newRow("no tokens") << QByteArray(R"({"version": 1})") << QStringLiteral("\"tokens\"");
    QTest::newRow("a token not an object")
        << QByteArray(R"({"version": 1, "tokens": ["x"]})") << QStringLiteral("token 1");
    QTest::newRow("a short digest") << QByteArray(
        R"({"version": 1, "tokens": [{"name": "a", "sha256": "abcd", "createdAtMs": 1}]})")
                                    << QStringLiteral("64");
    QTest::newRow("a digest not hex") << (QByteArray(R"({"version": 1, "tokens": [{"name": "a", "sha256": ")")
        + QByteArray(64, 'g') + QByteArray(R"(", "createdAtMs": 1}]})"))
                                      << QStringLiteral("64");
    QTest::newRow("a bad name") << (QByteArray(R"({"version": 1, "tokens": [{"name": "a b", "sha256": ")")
        + QByteArray(64, 'a') + QByteArray(R"(", "createdAtMs": 1}]})"))
                                << QStringLiteral("cannot name");
    QTest::newRow("a name twice") << (QByteArray(R"({"version": 1, "tokens": [{"name": "a", "sha256": ")")
        + QByteArray(64, 'a') + QByteArray(R"(", "createdAtMs": 1}, {"name": "a", "sha256": ")") + QByteArray(64, 'b')
        + QByteArray(R"(", "createdAtMs": 2}]})"))
                                  << QStringLiteral("twice");
    QTest::newRow("a time not a number") << (QByteArray(R"({"version": 1, "tokens": [{"name": "a", "sha256": ")")
        + QByteArray(64, 'a') + QByteArray(R"(", "createdAtMs": "today"}]})"))
                                         << QStringLiteral("createdAtMs");
    QTest::newRow("more than MaxTokens") << fileWith(ClientTokens::MaxTokens + 1) << QStringLiteral("1001 tokens");
    QTest::newRow("larger than MaxFileBytes")
        << (fileWith(1) + QByteArray(ClientTokens::MaxFileBytes, ' ')) << QStringLiteral("bytes");
    QTest::newRow("nested deep") << (QByteArray(R"({"version": 1, "tokens": [)") + QByteArray(100, '[')
        + QByteArray(100, ']') + "]}")
                                 << QStringLiteral("deeper");
}

void TestClientTokens::aFileThatCannotBeUsedFailsClosed()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, why);
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    ClientTokens tokens(path);
    QString error;
    const QByteArray token = tokens.issue(QStringLiteral("ci"), &error);
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
    const QByteArray good = readFile(path);

    QVERIFY(writeFile(path, contents));
    // No named token gets in, and the message says which file, what is wrong, and what to do.
    QCOMPARE(tokens.nameFor(token), std::nullopt);
    const QString problem = tokens.problem();
    QVERIFY2(problem.contains(path), qPrintable(problem));
    QVERIFY2(problem.contains(why), qPrintable(problem));
    QVERIFY2(problem.contains(QStringLiteral("shared token still works")), qPrintable(problem));
    QString listProblem;
    QVERIFY(tokens.list(&listProblem).isEmpty());
    QCOMPARE(listProblem, problem);
    // Another object (a restart, the command line) finds the same: nothing is cached as fine.
    ClientTokens fresh(path);
    QCOMPARE(fresh.nameFor(token), std::nullopt);
    QVERIFY(!fresh.problem().isEmpty());

    // Never written over, by an issue or a revoke.
    QVERIFY(tokens.issue(QStringLiteral("other"), &error).isEmpty());
    QVERIFY2(error.contains(path), qPrintable(error));
    error.clear();
    QVERIFY(!tokens.revoke(QStringLiteral("ci"), &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QCOMPARE(readFile(path), contents);

    // Fixed: the token works again.
    QVERIFY(writeFile(path, good));
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
    QVERIFY(tokens.problem().isEmpty());
}

void TestClientTokens::aFileOthersMayWriteFailsClosedUntilFixed()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    ClientTokens tokens(path);
    QString error;
    const QByteArray token = tokens.issue(QStringLiteral("ci"), &error);
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
    // A digest could have been put there by anyone: the contents are not to be trusted.
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
    QCOMPARE(tokens.nameFor(token), std::nullopt);
    QVERIFY2(tokens.problem().contains(QStringLiteral("chmod 600")), qPrintable(tokens.problem()));
    QVERIFY(tokens.issue(QStringLiteral("other"), &error).isEmpty());
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0600) == 0);
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
    // A read-only mode for the owner is fine.
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0400) == 0);
    QCOMPARE(tokens.nameFor(token), QStringLiteral("ci"));
}

void TestClientTokens::theCountIsBounded()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    // One short of the bound, written as Switchboard would (a thousand issues would be a thousand fsyncs).
    QVERIFY(writeFile(path, fileWith(ClientTokens::MaxTokens - 1)));
    ClientTokens tokens(path);
    QCOMPARE(tokens.list().size(), ClientTokens::MaxTokens - 1);
    QString error;
    const QByteArray last = tokens.issue(QStringLiteral("last"), &error);
    QVERIFY2(!last.isEmpty(), qPrintable(error));
    QCOMPARE(tokens.list().size(), ClientTokens::MaxTokens);
    QVERIFY(tokens.issue(QStringLiteral("one-too-many"), &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("revoke one first")), qPrintable(error));
    QCOMPARE(tokens.list().size(), ClientTokens::MaxTokens);
    QCOMPARE(tokens.nameFor(last), QStringLiteral("last"));
    QVERIFY(readFile(path).size() < ClientTokens::MaxFileBytes / 4);
    // Room again once one is revoked.
    QVERIFY(tokens.revoke(QStringLiteral("token-0"), &error));
    QVERIFY(!tokens.issue(QStringLiteral("one-too-many"), &error).isEmpty());
}

void TestClientTokens::writersAtOnceLoseNothing()
{
    // Two objects on the same file, as two processes would be, issuing at once; each takes the file's
    // lock on a descriptor of its own, as another process does.
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    constexpr int PerWriter = 25;
    ClientTokens first(path);
    ClientTokens second(path);
    QList<QByteArray> issued[2];
    QStringList errors[2];
    std::atomic<int> ready{0};
    const auto writer = [&](ClientTokens* tokens, int which) {
        ++ready;
        while (ready.load() < 2) {}
        for (int i = 0; i < PerWriter; ++i) {
            QString error;
            const QByteArray token = tokens->issue(QStringLiteral("w%1-%2").arg(which).arg(i), &error);
            if (token.isEmpty())
                errors[which] << error;
            issued[which] << token;
        }
    };
    std::thread one(writer, &first, 0);
    std::thread two(writer, &second, 1);
    one.join();
    two.join();
    QVERIFY2(errors[0].isEmpty() && errors[1].isEmpty(), qPrintable((errors[0] + errors[1]).join(u'\n')));

    ClientTokens reader(path);
    QCOMPARE(reader.list().size(), 2 * PerWriter);
    for (int which = 0; which < 2; ++which) {
        for (int i = 0; i < PerWriter; ++i)
            QCOMPARE(reader.nameFor(issued[which].at(i)), QStringLiteral("w%1-%2").arg(which).arg(i));
    }
    // Revoking at once, too: every one of them goes, none comes back.
    std::thread revokeOne([&] {
        QString error;
        for (int i = 0; i < PerWriter; ++i)
            first.revoke(QStringLiteral("w1-%1").arg(i), &error);
    });
    std::thread revokeTwo([&] {
        QString error;
        for (int i = 0; i < PerWriter; ++i)
            second.revoke(QStringLiteral("w0-%1").arg(i), &error);
    });
    revokeOne.join();
    revokeTwo.join();
    QVERIFY(reader.list().isEmpty());
}

void TestClientTokens::aLockHeldTooLongFailsAChange()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    QString error;
    std::optional<StateFileLock> held
        = StateFileLock::acquire(StateFileLock::lockPathFor(path), std::chrono::seconds(5), &error);
    QVERIFY2(held, qPrintable(error));
    ClientTokens tokens(path, std::chrono::milliseconds(200));
    QVERIFY(tokens.issue(QStringLiteral("ci"), &error).isEmpty());
    QVERIFY2(error.contains(QStringLiteral("locked")), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    held.reset();
    QVERIFY(!tokens.issue(QStringLiteral("ci"), &error).isEmpty());
}

void TestClientTokens::theBackendAnswersOnItsOwnThread()
{
    QTemporaryDir dir;
    BackendOptions options;
    options.stateDirectory = dir.path();
    options.listen = false;
    Backend backend(options);
    QCOMPARE(backend.clientTokens()->path(), ClientTokens::defaultPath(dir.path()));
    QThread* const own = backend.thread();
    QList<QThread*> threads;
    const auto note = [&] { threads << QThread::currentThread(); };
    connect(&backend, &OperatorInterface::clientTokensListed, this, note, Qt::DirectConnection);
    connect(&backend, &OperatorInterface::clientTokenIssued, this, note, Qt::DirectConnection);
    connect(&backend, &OperatorInterface::clientTokenRevoked, this, note, Qt::DirectConnection);
    connect(&backend, &OperatorInterface::commandFailed, this, note, Qt::DirectConnection);
    QSignalSpy listed(&backend, &OperatorInterface::clientTokensListed);
    QSignalSpy issued(&backend, &OperatorInterface::clientTokenIssued);
    QSignalSpy revoked(&backend, &OperatorInterface::clientTokenRevoked);
    QSignalSpy failed(&backend, &OperatorInterface::commandFailed);

    // Asked one after another without waiting: answered in that order.
    backend.issueClientToken(QStringLiteral("ci"));
    backend.issueClientToken(QStringLiteral("ci"));
    backend.issueClientToken(QStringLiteral("bad name"));
    backend.listClientTokens();
    QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 2, 15'000); // after the issue, and as asked
    QCOMPARE(issued.size(), 1);
    QCOMPARE(issued.at(0).at(0).toString(), QStringLiteral("ci"));
    const QByteArray token = issued.at(0).at(1).toByteArray();
    QCOMPARE(backend.clientTokens()->nameFor(token), QStringLiteral("ci"));
    QCOMPARE(failed.size(), 2);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("issueClientToken"));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("already")));
    QVERIFY(failed.at(1).at(1).toString().contains(QStringLiteral("cannot name")));
    const auto tokens = listed.at(1).at(0).value<ClientTokenInfoList>();
    QCOMPARE(tokens.size(), 1);
    QCOMPARE(tokens.at(0).name, QStringLiteral("ci"));
    QVERIFY(tokens.at(0).createdAtMs > 0);
    QVERIFY(listed.at(1).at(1).toString().isEmpty());

    backend.revokeClientToken(QStringLiteral("ci"));
    QTRY_COMPARE_WITH_TIMEOUT(revoked.size(), 1, 15'000);
    QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 3, 15'000);
    QVERIFY(listed.at(2).at(0).value<ClientTokenInfoList>().isEmpty());
    QCOMPARE(backend.clientTokens()->nameFor(token), std::nullopt);
    backend.revokeClientToken(QStringLiteral("ci"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 3, 15'000);
    QCOMPARE(failed.at(2).at(0).toString(), QStringLiteral("revokeClientToken"));

    // A file that cannot be used is listed with why.
    QVERIFY(writeFile(backend.clientTokens()->path(), "garbage"));
    backend.listClientTokens();
    QTRY_COMPARE_WITH_TIMEOUT(listed.size(), 4, 15'000);
    QVERIFY(listed.at(3).at(1).toString().contains(QStringLiteral("cannot be used")));

    for (QThread* thread : std::as_const(threads))
        QCOMPARE(thread, own);
}

void TestClientTokens::aBackendGoingWaitsForNoCommand()
{
    // A command waiting for the file's lock (another process holds it) when the window closes: the
    // Backend goes at once, the command ends on its own and tells no one.
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    QString error;
    std::optional<StateFileLock> held
        = StateFileLock::acquire(StateFileLock::lockPathFor(path), std::chrono::seconds(5), &error);
    QVERIFY2(held, qPrintable(error));
    QElapsedTimer clock;
    {
        BackendOptions options;
        options.stateDirectory = dir.path();
        options.listen = false;
        Backend backend(options);
        backend.issueClientToken(QStringLiteral("late"));
        QTest::qWait(200); // the command is waiting for the lock
        clock.start();
    }
    QVERIFY2(clock.elapsed() < 2'000, qPrintable(QString::number(clock.elapsed())));
    held.reset();
    const ClientTokens tokens(path);
    QTRY_COMPARE_WITH_TIMEOUT(namesOf(tokens.list()), QStringList{QStringLiteral("late")}, 15'000);
}

QTEST_GUILESS_MAIN(TestClientTokens)
#include "tst_clienttokens.moc"
