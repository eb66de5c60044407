// GitHttpRemote, the smart-HTTP remote the git tools are tested against, proved with the git program
// and a plain HTTP client before anything of ours relies on it: every URL needs the password, the
// right one clones, pulls and pushes, a wrong one is refused, and fixtures run side by side.

#include "githttpremote.h"

#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QTest>

namespace {

struct HttpAnswer
{
    int status = 0;
    QByteArray wwwAuthenticate;
    QByteArray contentType;
};

// One GET with the given Authorization header (none if empty), from a manager of its own so no
// credentials carry over between requests.
HttpAnswer get(const QUrl& url, const QByteArray& authorization = {})
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(url);
    request.setTransferTimeout(GitHttpRemote::StartTimeoutMs);
    if (!authorization.isEmpty())
        request.setRawHeader("Authorization", authorization);
    std::unique_ptr<QNetworkReply> reply(manager.get(request));
    QSignalSpy finished(reply.get(), &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(GitHttpRemote::StartTimeoutMs + 1000))
        return {};
    return {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->rawHeader("WWW-Authenticate"),
        reply->header(QNetworkRequest::ContentTypeHeader).toByteArray()};
}

QByteArray basic(const QString& user, const QString& password)
{
    return "Basic " + (user + QLatin1Char(':') + password).toUtf8().toBase64();
}

QUrl advertisement(QUrl url)
{
    url.setPath(url.path() + QStringLiteral("/info/refs"));
    url.setQuery(QStringLiteral("service=git-upload-pack"));
    return url;
}

QByteArray message(const QString& what, const QString& output, const GitHttpRemote& remote)
{
    return (what + QStringLiteral("\n--- git:\n") + output + QLatin1Char('\n') + remote.log()).toUtf8();
}

} // namespace

// Starts `remote` or fails the test with lighttpd's log.
#define START(remote)                                                                                                  \
    do {                                                                                                               \
        QString startError;                                                                                            \
        QVERIFY2((remote).start(&startError), qPrintable(startError));                                                 \
    } while (false)

// Runs git and fails the test with its output and the server's log unless it exits with 0.
#define GIT_OK(remote, args, workdir)                                                                                  \
    do {                                                                                                               \
        int gitCode = 0;                                                                                               \
        const QString gitOutput = (remote).git(args, workdir, &gitCode);                                               \
        QVERIFY2(gitCode == 0, message(QStringLiteral("git failed"), gitOutput, remote).constData());                  \
    } while (false)

class TestGitHttpRemote : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!GitHttpRemote::available(&why))
            QFAIL(qPrintable(why));
    }

    void everyRequestNeedsThePassword()
    {
        GitHttpRemote remote;
        QVERIFY2(!remote.createBareRepository(QStringLiteral("project")).isEmpty(), qPrintable(remote.lastError()));
        START(remote);

        const HttpAnswer anonymous = get(advertisement(remote.url(QStringLiteral("project"))));
        QCOMPARE(anonymous.status, 401);
        QVERIFY2(anonymous.wwwAuthenticate.startsWith("Basic realm=\"git\""), anonymous.wwwAuthenticate.constData());
        // Not even whether a repository exists is told without credentials.
        QCOMPARE(get(advertisement(remote.url(QStringLiteral("nothing-here")))).status, 401);
        QCOMPARE(get(remote.url(QStringLiteral("project"))).status, 401);

        const HttpAnswer wrong = get(advertisement(remote.url(QStringLiteral("project"))),
            basic(remote.user(), remote.password() + QStringLiteral("x")));
        QCOMPARE(wrong.status, 401);
        QCOMPARE(get(advertisement(remote.url(QStringLiteral("project"))),
                     basic(QStringLiteral("mallory"), remote.password()))
                     .status,
            401);

        const HttpAnswer right
            = get(advertisement(remote.url(QStringLiteral("project"))), basic(remote.user(), remote.password()));
        QCOMPARE(right.status, 200);
        QCOMPARE(right.contentType, QByteArray("application/x-git-upload-pack-advertisement"));
        QCOMPARE(get(advertisement(remote.url(QStringLiteral("nothing-here"))), basic(remote.user(), remote.password()))
                     .status,
            404);
    }

    void anonymousCloneFails()
    {
        GitHttpRemote remote;
        QVERIFY2(!remote.createBareRepository(QStringLiteral("project")).isEmpty(), qPrintable(remote.lastError()));
        START(remote);

        int code = 0;
        const QString output = remote.git({QStringLiteral("clone"), remote.url(QStringLiteral("project")).toString(),
                                              remote.workPath(QStringLiteral("anonymous"))},
            {}, &code);
        QVERIFY2(code > 0, message(QStringLiteral("an anonymous clone worked"), output, remote).constData());
        // git asks for a user name only after the server answered 401; with no way to ask, it gives up.
        QVERIFY2(output.contains(QLatin1String("could not read Username")), qPrintable(output));
        // lighttpd writes its access log in batches; stopping it writes the rest.
        remote.stop();
        QVERIFY2(remote.log().contains(QLatin1String("/project.git/info/refs?service=git-upload-pack HTTP/1.1\" 401")),
            qPrintable(remote.log()));
        QVERIFY(!QFileInfo::exists(remote.workPath(QStringLiteral("anonymous"))));
    }

    void cloneWithCredentials()
    {
        GitHttpRemote remote;
        const QString bare = remote.createBareRepository(QStringLiteral("project"));
        QVERIFY2(!bare.isEmpty(), qPrintable(remote.lastError()));
        START(remote);

        const QString clone = remote.workPath(QStringLiteral("clone"));
        GIT_OK(remote,
            QStringList(
                {QStringLiteral("clone"), remote.urlWithCredentials(QStringLiteral("project")).toString(), clone}),
            QString());
        QFile readme(QDir(clone).filePath(QStringLiteral("README.md")));
        QVERIFY(readme.open(QIODevice::ReadOnly));
        QVERIFY(readme.readAll().startsWith("# project\n"));
        QCOMPARE(
            remote.git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, clone).trimmed(), remote.headOf(bare));
        QCOMPARE(remote.git({QStringLiteral("branch"), QStringLiteral("--show-current")}, clone).trimmed(),
            QStringLiteral("main"));
    }

    void pushLandsAndPullBringsIt()
    {
        GitHttpRemote remote;
        const QString bare = remote.createBareRepository(QStringLiteral("project"));
        QVERIFY2(!bare.isEmpty(), qPrintable(remote.lastError()));
        START(remote);
        const QString url = remote.urlWithCredentials(QStringLiteral("project")).toString();
        const QString first = remote.workPath(QStringLiteral("first"));
        const QString second = remote.workPath(QStringLiteral("second"));
        GIT_OK(remote, QStringList({QStringLiteral("clone"), url, first}), QString());
        GIT_OK(remote, QStringList({QStringLiteral("clone"), url, second}), QString());
        const QString before = remote.headOf(bare);
        QVERIFY(!before.isEmpty());

        const QString commit = remote.commitFile(
            first, QStringLiteral("notes/today.txt"), "pushed over smart HTTP\n", QStringLiteral("Add today's notes"));
        QVERIFY2(!commit.isEmpty(), qPrintable(remote.lastError()));
        GIT_OK(remote, QStringList({QStringLiteral("push"), QStringLiteral("origin"), QStringLiteral("main")}), first);
        QCOMPARE(remote.headOf(bare), commit);

        // A new branch too, then both come down in the other clone.
        GIT_OK(remote, QStringList({QStringLiteral("push"), QStringLiteral("origin"), QStringLiteral("main:feature")}),
            first);
        QCOMPARE(remote.headOf(QStringLiteral("project"), QStringLiteral("feature")), commit);
        GIT_OK(remote, QStringList({QStringLiteral("pull"), QStringLiteral("--ff-only")}), second);
        QCOMPARE(remote.git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, second).trimmed(), commit);
        QVERIFY(QFileInfo::exists(QDir(second).filePath(QStringLiteral("notes/today.txt"))));
        QCOMPARE(remote.git({QStringLiteral("rev-parse"), QStringLiteral("origin/feature")}, second).trimmed(), commit);
    }

    void wrongPasswordFails()
    {
        GitHttpRemote remote;
        const QString bare = remote.createBareRepository(QStringLiteral("project"));
        QVERIFY2(!bare.isEmpty(), qPrintable(remote.lastError()));
        START(remote);

        int code = 0;
        QString output = remote.git(
            {QStringLiteral("clone"),
                remote.urlWithCredentials(QStringLiteral("project"), {}, QStringLiteral("guess")).toString(),
                remote.workPath(QStringLiteral("refused"))},
            {}, &code);
        QVERIFY2(code > 0, message(QStringLiteral("a clone with a wrong password worked"), output, remote).constData());
        QVERIFY2(output.contains(QLatin1String("Authentication failed")), qPrintable(output));
        QVERIFY(remote.log().contains(QLatin1String("password doesn't match")));

        // A push with a wrong password changes nothing.
        const QString clone = remote.workPath(QStringLiteral("clone"));
        GIT_OK(remote,
            QStringList(
                {QStringLiteral("clone"), remote.urlWithCredentials(QStringLiteral("project")).toString(), clone}),
            QString());
        const QString before = remote.headOf(bare);
        QVERIFY(!remote.commitFile(clone, QStringLiteral("x.txt"), "x\n", QStringLiteral("Not to land")).isEmpty());
        output = remote.git(
            {QStringLiteral("push"),
                remote.urlWithCredentials(QStringLiteral("project"), {}, QStringLiteral("guess")).toString(),
                QStringLiteral("main")},
            clone, &code);
        QVERIFY2(code > 0, message(QStringLiteral("a push with a wrong password worked"), output, remote).constData());
        QVERIFY2(output.contains(QLatin1String("Authentication failed")), qPrintable(output));
        QCOMPARE(remote.headOf(bare), before);
    }

    void emptyRepositoryAndAnotherDefaultBranch()
    {
        GitHttpRemote remote;
        const QString empty = remote.createBareRepository(QStringLiteral("empty"), false);
        QVERIFY2(!empty.isEmpty(), qPrintable(remote.lastError()));
        QVERIFY(remote.headOf(empty).isEmpty());
        const QString trunk = remote.createBareRepository(QStringLiteral("trunk"), true, QStringLiteral("trunk"));
        QVERIFY2(!trunk.isEmpty(), qPrintable(remote.lastError()));
        QVERIFY(remote.headOf(trunk).isEmpty());
        QVERIFY(!remote.headOf(trunk, QStringLiteral("trunk")).isEmpty());
        QVERIFY(remote.createBareRepository(QStringLiteral("trunk")).isEmpty());
        QVERIFY(remote.lastError().contains(QLatin1String("exists")));
        START(remote);

        // A clone of an empty repository, whose first push makes its branch.
        const QString fresh = remote.workPath(QStringLiteral("fresh"));
        GIT_OK(remote,
            QStringList(
                {QStringLiteral("clone"), remote.urlWithCredentials(QStringLiteral("empty")).toString(), fresh}),
            QString());
        const QString commit
            = remote.commitFile(fresh, QStringLiteral("README.md"), "first\n", QStringLiteral("First"));
        QVERIFY2(!commit.isEmpty(), qPrintable(remote.lastError()));
        GIT_OK(remote, QStringList({QStringLiteral("push"), QStringLiteral("origin"), QStringLiteral("HEAD:main")}),
            fresh);
        QCOMPARE(remote.headOf(empty), commit);

        // The server's HEAD names the default branch, so a clone checks it out.
        const QString trunkClone = remote.workPath(QStringLiteral("trunk"));
        GIT_OK(remote,
            QStringList(
                {QStringLiteral("clone"), remote.urlWithCredentials(QStringLiteral("trunk")).toString(), trunkClone}),
            QString());
        QCOMPARE(remote.git({QStringLiteral("branch"), QStringLiteral("--show-current")}, trunkClone).trimmed(),
            QStringLiteral("trunk"));
    }

    void twoRemotesAtOnce()
    {
        GitHttpRemote one;
        GitHttpRemote two(QStringLiteral("bob"), QStringLiteral("another:secret"));
        QVERIFY2(!one.createBareRepository(QStringLiteral("first")).isEmpty(), qPrintable(one.lastError()));
        QVERIFY2(!two.createBareRepository(QStringLiteral("second")).isEmpty(), qPrintable(two.lastError()));
        START(one);
        START(two);
        QVERIFY(one.port() != two.port());

        GIT_OK(one,
            QStringList({QStringLiteral("clone"), one.urlWithCredentials(QStringLiteral("first")).toString(),
                one.workPath(QStringLiteral("first"))}),
            QString());
        // A password with a colon in it: the URL and the user file both end the user name at the first.
        GIT_OK(two,
            QStringList({QStringLiteral("clone"), two.urlWithCredentials(QStringLiteral("second")).toString(),
                two.workPath(QStringLiteral("second"))}),
            QString());
        // Each serves its own repositories and knows only its own user.
        int code = 0;
        QString output = one.git(
            {QStringLiteral("ls-remote"), one.urlWithCredentials(QStringLiteral("second")).toString()}, {}, &code);
        QVERIFY2(code > 0, qPrintable(output));
        QVERIFY2(output.contains(QLatin1String("not found")), qPrintable(output));
        output = two.git({QStringLiteral("ls-remote"),
                             two.urlWithCredentials(QStringLiteral("second"), one.user(), one.password()).toString()},
            {}, &code);
        QVERIFY2(code > 0, qPrintable(output));
        QVERIFY2(output.contains(QLatin1String("Authentication failed")), qPrintable(output));

        // Stopping one leaves the other serving, and a stopped one starts again on a new port.
        const quint16 oldPort = one.port();
        one.stop();
        QVERIFY(!one.isRunning());
        QTcpSocket socket;
        socket.connectToHost(QHostAddress(QHostAddress::LocalHost), oldPort);
        QVERIFY(!socket.waitForConnected(1000));
        GIT_OK(two,
            QStringList({QStringLiteral("ls-remote"), two.urlWithCredentials(QStringLiteral("second")).toString()}),
            QString());
        START(one);
        GIT_OK(one,
            QStringList({QStringLiteral("ls-remote"), one.urlWithCredentials(QStringLiteral("first")).toString()}),
            QString());
    }
};

QTEST_GUILESS_MAIN(TestGitHttpRemote)
#include "tst_githttpremote.moc"
