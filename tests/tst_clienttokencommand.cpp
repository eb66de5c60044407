// `switchboard client-token issue|revoke|list` as a person or a script runs it, against the built
// binary: the token printed once, alone on stdout, with how a client sends it on stderr; the list
// never shows a token; what the server checks (ClientTokens on the same directory) follows at once;
// exit status 0, or 1 with a clear reason for every mistake; a file that cannot be used refused;
// several processes issuing at once lose nothing.

#include "auth/clienttokens.h"
#include "testpaths.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

QStringList withStateDir(const QTemporaryDir& dir, const QStringList& words)
{
    // The directory first: a name after "--" takes everything after it as words.
    return QStringList{QStringLiteral("client-token"), QStringLiteral("--state-dir"), dir.path()} + words;
}

Run run(const QStringList& arguments)
{
    QProcess process;
    process.start(TestPaths::switchboardBinary(), arguments);
    Run result;
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

} // namespace

class TestClientTokenCommand : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void issueListRevoke();
    void mistakesAreRefusedClearly_data();
    void mistakesAreRefusedClearly();
    void helpSaysHow();
    void aFileThatCannotBeUsedIsRefused();
    void processesIssuingAtOnceLoseNothing();
    void theServerCommandPointsHere();
};

void TestClientTokenCommand::issueListRevoke()
{
    QTemporaryDir dir;
    const Run issued = run(withStateDir(dir, {QStringLiteral("issue"), QStringLiteral("ci-runner")}));
    QVERIFY2(issued.exitCode == 0, issued.err.constData());
    // The token alone on stdout, for TOKEN=$(switchboard client-token issue ci-runner).
    static const QRegularExpression tokenLine(QStringLiteral("\\Asbc_[A-Za-z0-9_-]{43}\\n\\z"));
    QVERIFY2(tokenLine.match(QString::fromLatin1(issued.out)).hasMatch(), issued.out.constData());
    const QByteArray token = issued.out.trimmed();
    QVERIFY2(issued.err.contains("Authorization: Bearer"), issued.err.constData());
    QVERIFY2(issued.err.contains("not shown again"), issued.err.constData());
    QVERIFY(!issued.err.contains(token));

    // What the server checks knows it at once.
    const ClientTokens server(ClientTokens::defaultPath(dir.path()));
    QCOMPARE(server.nameFor(token), QStringLiteral("ci-runner"));

    const Run second = run(withStateDir(dir, {QStringLiteral("issue"), QStringLiteral("laptop")}));
    QCOMPARE(second.exitCode, 0);
    const Run listed = run(withStateDir(dir, {QStringLiteral("list")}));
    QCOMPARE(listed.exitCode, 0);
    const QList<QByteArray> lines = listed.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines.at(0).startsWith("NAME"));
    QVERIFY(lines.at(0).contains("ISSUED"));
    QVERIFY(lines.at(1).startsWith("ci-runner  "));
    QVERIFY(lines.at(2).startsWith("laptop     "));
    static const QRegularExpression isoTime(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$"));
    QVERIFY2(isoTime.match(QString::fromLatin1(lines.at(1))).hasMatch(), lines.at(1).constData());
    QVERIFY(!listed.out.contains(token));
    QVERIFY(!listed.out.contains(second.out.trimmed()));

    const Run revoked = run(withStateDir(dir, {QStringLiteral("revoke"), QStringLiteral("ci-runner")}));
    QVERIFY2(revoked.exitCode == 0, revoked.err.constData());
    QVERIFY(revoked.out.contains("revoked the client token ci-runner"));
    QCOMPARE(server.nameFor(token), std::nullopt); // the next request is refused
    QCOMPARE(server.nameFor(second.out.trimmed()), QStringLiteral("laptop"));

    const Run again = run(withStateDir(dir, {QStringLiteral("revoke"), QStringLiteral("ci-runner")}));
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains("no client token named ci-runner"), again.err.constData());

    QCOMPARE(run(withStateDir(dir, {QStringLiteral("revoke"), QStringLiteral("laptop")})).exitCode, 0);
    const Run empty = run(withStateDir(dir, {QStringLiteral("list")}));
    QCOMPARE(empty.exitCode, 0);
    QVERIFY(empty.out.isEmpty());
    QVERIFY2(empty.err.contains("no client tokens"), empty.err.constData());
}

void TestClientTokenCommand::mistakesAreRefusedClearly_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QString>("says");
    QTest::newRow("no action") << QStringList() << QStringLiteral("say issue NAME, revoke NAME or list");
    QTest::newRow("unknown action") << QStringList{QStringLiteral("create"), QStringLiteral("x")}
                                    << QStringLiteral("unknown action \"create\"");
    QTest::newRow("issue without a name")
        << QStringList{QStringLiteral("issue")} << QStringLiteral("issue takes one NAME, got 0");
    QTest::newRow("issue two names") << QStringList{QStringLiteral("issue"), QStringLiteral("a"), QStringLiteral("b")}
                                     << QStringLiteral("issue takes one NAME, got 2");
    QTest::newRow("revoke without a name")
        << QStringList{QStringLiteral("revoke")} << QStringLiteral("revoke takes one NAME");
    QTest::newRow("list with a name") << QStringList{QStringLiteral("list"), QStringLiteral("a")}
                                      << QStringLiteral("list takes no NAME");
    QTest::newRow("a bad name") << QStringList{QStringLiteral("issue"), QStringLiteral("ci runner")}
                                << QStringLiteral("cannot name a client token");
    QTest::newRow("a name too long") << QStringList{QStringLiteral("issue"), QString(65, QLatin1Char('x'))}
                                     << QStringLiteral("at most 64");
    QTest::newRow("an unknown option") << QStringList{QStringLiteral("list"), QStringLiteral("--colour")}
                                       << QStringLiteral("Unknown option 'colour'");
    // A name that reads as an option is one: after --, it is refused as a name.
    QTest::newRow("a name like an option") << QStringList{QStringLiteral("issue"), QStringLiteral("--"),
        QStringLiteral("-rf")} << QStringLiteral("starting with a letter or digit");
}

void TestClientTokenCommand::mistakesAreRefusedClearly()
{
    QFETCH(QStringList, words);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const Run result = run(withStateDir(dir, words));
    QCOMPARE(result.exitCode, 1);
    QVERIFY(result.out.isEmpty());
    QVERIFY2(result.err.startsWith("switchboard client-token: "), result.err.constData());
    QVERIFY2(result.err.contains(says.toUtf8()), result.err.constData());
    QVERIFY(!QFile::exists(ClientTokens::defaultPath(dir.path())));
}

void TestClientTokenCommand::helpSaysHow()
{
    const Run help = run({QStringLiteral("client-token"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("issue NAME"));
    QVERIFY(help.out.contains("--state-dir"));
    QVERIFY(help.out.contains("Authorization: Bearer"));
}

void TestClientTokenCommand::aFileThatCannotBeUsedIsRefused()
{
    QTemporaryDir dir;
    const QString path = ClientTokens::defaultPath(dir.path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"version\": 1, \"tokens\": [");
    file.close();
    for (const QStringList& words :
        {QStringList{QStringLiteral("list")}, QStringList{QStringLiteral("issue"), QStringLiteral("ci")},
            QStringList{QStringLiteral("revoke"), QStringLiteral("ci")}}) {
        const Run result = run(withStateDir(dir, words));
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.out.isEmpty());
        QVERIFY2(result.err.contains("cannot be used"), result.err.constData());
        QVERIFY2(result.err.contains(path.toUtf8()), result.err.constData());
    }
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("{\"version\": 1, \"tokens\": ["));
}

void TestClientTokenCommand::processesIssuingAtOnceLoseNothing()
{
    QTemporaryDir dir;
    constexpr int Processes = 8;
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int i = 0; i < Processes; ++i) {
        auto process = std::make_unique<QProcess>();
        process->start(TestPaths::switchboardBinary(),
            withStateDir(dir, {QStringLiteral("issue"), QStringLiteral("client-%1").arg(i)}));
        processes.push_back(std::move(process));
    }
    const ClientTokens server(ClientTokens::defaultPath(dir.path()));
    for (int i = 0; i < Processes; ++i) {
        QProcess& process = *processes[std::size_t(i)];
        QVERIFY(process.waitForFinished(120'000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QCOMPARE(server.nameFor(process.readAllStandardOutput().trimmed()), QStringLiteral("client-%1").arg(i));
    }
    QCOMPARE(server.list().size(), Processes);
}

void TestClientTokenCommand::theServerCommandPointsHere()
{
    QTemporaryDir dir;
    const Run misplaced = run({QStringLiteral("--headless"), QStringLiteral("--state-dir"), dir.path(),
        QStringLiteral("client-token"), QStringLiteral("list")});
    QCOMPARE(misplaced.exitCode, 2);
    QVERIFY2(misplaced.err.contains("with `client-token` first"), misplaced.err.constData());
}

QTEST_GUILESS_MAIN(TestClientTokenCommand)
#include "tst_clienttokencommand.moc"
