// GitUrlPolicy: which remotes git tools may reach, and the redaction of URL credentials, on its own
// and through TokenRedactor (which applies it to every call record).

#include "auth/tokenredactor.h"
#include "policy/giturlpolicy.h"

#include <QTest>

#include <nlohmann/json.hpp>

class TestGitUrlPolicy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaults();
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void redact_data();
    void redact();
    void tokenRedactorText_data();
    void tokenRedactorText();
    void tokenRedactorJsonText_data();
    void tokenRedactorJsonText();
    void tokenRedactorParsedJson();
};

namespace {

const QStringList withHttp{
    QStringLiteral("https"), QStringLiteral("http"), QStringLiteral("ssh"), QStringLiteral("git")};

} // namespace

void TestGitUrlPolicy::defaults()
{
    const GitUrlPolicy policy;
    QCOMPARE(policy.schemes(), (QStringList{QStringLiteral("https"), QStringLiteral("ssh"), QStringLiteral("git")}));
    QVERIFY(!policy.allowsLocal());
    // Configured names are compared in lower case, once each.
    const GitUrlPolicy configured({QStringLiteral("HTTPS"), QStringLiteral(" ssh "), QStringLiteral("https")}, true);
    QCOMPARE(configured.schemes(), (QStringList{QStringLiteral("https"), QStringLiteral("ssh")}));
    QVERIFY(configured.allowsLocal());
}

void TestGitUrlPolicy::accepted_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("schemes");
    QTest::addColumn<bool>("allowLocal");
    QTest::addColumn<QString>("stored");
    QTest::addColumn<QString>("scheme");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("username");
    QTest::addColumn<QString>("password");
    QTest::addColumn<bool>("hasCredentials");
    const QStringList defaults = GitUrlPolicy::defaultSchemes();

    QTest::newRow("https") << QStringLiteral("https://github.com/owner/repo.git") << defaults << false
                           << QStringLiteral("https://github.com/owner/repo.git") << QStringLiteral("https")
                           << QStringLiteral("github.com") << -1 << QString() << QString() << false;
    QTest::newRow("https, token as user")
        << QStringLiteral("https://ghp_T0KEN@github.com/owner/repo.git") << defaults << false
        << QStringLiteral("https://github.com/owner/repo.git") << QStringLiteral("https")
        << QStringLiteral("github.com") << -1 << QStringLiteral("ghp_T0KEN") << QString() << true;
    QTest::newRow("https, user and password, host in capitals, port")
        << QStringLiteral("https://alice:s3cret@GitHub.COM:8443/owner/repo.git") << defaults << false
        << QStringLiteral("https://github.com:8443/owner/repo.git") << QStringLiteral("https")
        << QStringLiteral("github.com") << 8443 << QStringLiteral("alice") << QStringLiteral("s3cret") << true;
    QTest::newRow("https, percent-encoded password")
        << QStringLiteral("https://x-access-token:a%2Fb%40c@host.example/r.git") << defaults << false
        << QStringLiteral("https://host.example/r.git") << QStringLiteral("https") << QStringLiteral("host.example")
        << -1 << QStringLiteral("x-access-token") << QStringLiteral("a/b@c") << true;
    QTest::newRow("http when configured")
        << QStringLiteral("http://tok@intranet/r.git") << withHttp << false << QStringLiteral("http://intranet/r.git")
        << QStringLiteral("http") << QStringLiteral("intranet") << -1 << QStringLiteral("tok") << QString() << true;
    QTest::newRow("ssh://") << QStringLiteral("ssh://git@host.example:2222/owner/repo.git") << defaults << false
                            << QStringLiteral("ssh://git@host.example:2222/owner/repo.git") << QStringLiteral("ssh")
                            << QStringLiteral("host.example") << 2222 << QStringLiteral("git") << QString() << false;
    QTest::newRow("ssh:// with a password")
        << QStringLiteral("ssh://git:pw@host/repo.git") << defaults << false
        << QStringLiteral("ssh://git@host/repo.git") << QStringLiteral("ssh") << QStringLiteral("host") << -1
        << QStringLiteral("git") << QStringLiteral("pw") << true;
    QTest::newRow("git+ssh://") << QStringLiteral("git+ssh://git@host/repo.git") << defaults << false
                                << QStringLiteral("git+ssh://git@host/repo.git") << QStringLiteral("ssh")
                                << QStringLiteral("host") << -1 << QStringLiteral("git") << QString() << false;
    QTest::newRow("scp-like") << QStringLiteral("git@github.com:owner/repo.git") << defaults << false
                              << QStringLiteral("git@github.com:owner/repo.git") << QStringLiteral("ssh")
                              << QStringLiteral("github.com") << -1 << QStringLiteral("git") << QString() << false;
    QTest::newRow("scp-like, no user, host in capitals")
        << QStringLiteral("Host.Example:repo.git") << defaults << false << QStringLiteral("Host.Example:repo.git")
        << QStringLiteral("ssh") << QStringLiteral("host.example") << -1 << QString() << QString() << false;
    QTest::newRow("scp-like, absolute path")
        << QStringLiteral("git@host:/srv/git/repo.git") << defaults << false
        << QStringLiteral("git@host:/srv/git/repo.git") << QStringLiteral("ssh") << QStringLiteral("host") << -1
        << QStringLiteral("git") << QString() << false;
    QTest::newRow("scp-like, bracketed IPv6")
        << QStringLiteral("git@[::1]:repo.git") << defaults << false << QStringLiteral("git@[::1]:repo.git")
        << QStringLiteral("ssh") << QStringLiteral("::1") << -1 << QStringLiteral("git") << QString() << false;
    QTest::newRow("git://") << QStringLiteral("git://example.org/repo.git") << defaults << false
                            << QStringLiteral("git://example.org/repo.git") << QStringLiteral("git")
                            << QStringLiteral("example.org") << -1 << QString() << QString() << false;
    QTest::newRow("file:// when local is allowed")
        << QStringLiteral("file:///srv/repos/a.git") << defaults << true << QStringLiteral("file:///srv/repos/a.git")
        << QStringLiteral("file") << QString() << -1 << QString() << QString() << false;
    QTest::newRow("file://localhost") << QStringLiteral("file://localhost/srv/repos/a.git") << defaults << true
                                      << QStringLiteral("file://localhost/srv/repos/a.git") << QStringLiteral("file")
                                      << QString() << -1 << QString() << QString() << false;
    QTest::newRow("local path when local is allowed")
        << QStringLiteral("/srv/repos/a.git") << defaults << true << QStringLiteral("/srv/repos/a.git")
        << QStringLiteral("file") << QString() << -1 << QString() << QString() << false;
}

void TestGitUrlPolicy::accepted()
{
    QFETCH(QString, url);
    QFETCH(QStringList, schemes);
    QFETCH(bool, allowLocal);
    QFETCH(QString, stored);
    QFETCH(QString, scheme);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, username);
    QFETCH(QString, password);
    QFETCH(bool, hasCredentials);
    QString error;
    const auto remote = GitUrlPolicy(schemes, allowLocal).check(url, &error);
    QVERIFY2(remote, qPrintable(error));
    QCOMPARE(remote->url, stored);
    QCOMPARE(remote->scheme, scheme);
    QCOMPARE(remote->host, host);
    QCOMPARE(remote->port, port);
    QCOMPARE(remote->username, username);
    QCOMPARE(remote->password, password);
    QCOMPARE(remote->hasCredentials(), hasCredentials);
    QCOMPARE(remote->isLocal(), scheme == QLatin1String("file"));
    if (!password.isEmpty())
        QVERIFY(!remote->url.contains(password));
    if (scheme.startsWith(QLatin1String("http")) && !username.isEmpty())
        QVERIFY(!remote->url.contains(username)); // a token stands where the user would
    // The stored URL passes again, and is its own redaction.
    QVERIFY(GitUrlPolicy(schemes, allowLocal).check(remote->url, &error));
    QCOMPARE(GitUrlPolicy::redact(remote->url), remote->url);
}

void TestGitUrlPolicy::refused_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("schemes");
    QTest::addColumn<bool>("allowLocal");
    QTest::addColumn<QString>("error"); // a part of the message
    const QStringList defaults = GitUrlPolicy::defaultSchemes();
    const QString option = QStringLiteral("could be taken for an option");

    QTest::newRow("empty") << QString() << defaults << true << QStringLiteral("url is empty");
    QTest::newRow("ext::") << QStringLiteral("ext::sh -c touch% /tmp/pwned") << defaults << true
                           << QStringLiteral("<transport>::<address> form (transport 'ext')");
    QTest::newRow("fd::") << QStringLiteral("fd::17") << defaults << true << QStringLiteral("(transport 'fd')");
    QTest::newRow("other transport") << QStringLiteral("persistent-https::host/repo") << defaults << true
                                     << QStringLiteral("<transport>::<address>");
    QTest::newRow("http by default") << QStringLiteral("http://host/repo.git") << defaults << false
                                     << QStringLiteral("plain http is taken only when the configuration lists it");
    QTest::newRow("ftp") << QStringLiteral("ftp://host/repo.git") << defaults << false
                         << QStringLiteral("the scheme 'ftp', which is not allowed (allowed: https, ssh, git)");
    QTest::newRow("ftp, configured") << QStringLiteral("ftp://host/repo.git")
                                     << QStringList{QStringLiteral("https"), QStringLiteral("ftp")} << false
                                     << QStringLiteral("which git tools cannot speak");
    QTest::newRow("unknown scheme") << QStringLiteral("foo://host/repo") << defaults << true
                                    << QStringLiteral("the scheme 'foo'");
    QTest::newRow("option before a URL") << QStringLiteral("-uhttps://x") << defaults << false
                                         << QStringLiteral("begins with '-'");
    QTest::newRow("ssh host option") << QStringLiteral("ssh://-oProxyCommand=touch%20x/repo") << defaults << false
                                     << option;
    QTest::newRow("ssh user option") << QStringLiteral("ssh://-oProxyCommand=x@host/repo") << defaults << false
                                     << option;
    QTest::newRow("scp-like host option") << QStringLiteral("git@-oProxyCommand=x:repo") << defaults << false << option;
    QTest::newRow("scp-like user option")
        << QStringLiteral("-oProxyCommand=x@host:repo") << defaults << false << QStringLiteral("begins with '-'");
    QTest::newRow("scp-like path option") << QStringLiteral("git@host:-repo") << defaults << false << option;
    QTest::newRow("https host option") << QStringLiteral("https://-host/repo") << defaults << false << option;
    QTest::newRow("https path option") << QStringLiteral("https://host/-repo") << defaults << false << option;
    QTest::newRow("space") << QStringLiteral("https://host/repo name") << defaults << false
                           << QStringLiteral("whitespace or a control character (at position 17)");
    QTest::newRow("newline") << QStringLiteral("https://host/repo\nx") << defaults << false
                             << QStringLiteral("whitespace or a control character");
    QTest::newRow("NUL") << QStringLiteral("https://host/repo") + QChar(0) << defaults << false
                         << QStringLiteral("whitespace or a control character");
    QTest::newRow("bidi override") << QStringLiteral("https://host/\u202erepo") << defaults << false
                                   << QStringLiteral("whitespace or a control character");
    QTest::newRow("encoded newline") << QStringLiteral("https://host/re%0Apo") << defaults << false
                                     << QStringLiteral("control character or whitespace in its host, user or path");
    QTest::newRow("no host") << QStringLiteral("https:///repo") << defaults << false << QStringLiteral("no host");
    QTest::newRow("ssh, no host") << QStringLiteral("ssh://git@/repo") << defaults << false
                                  << QStringLiteral("no host");
    QTest::newRow("scp-like, no host") << QStringLiteral("git@:repo") << defaults << false
                                       << QStringLiteral("names no host");
    QTest::newRow("scp-like, no path") << QStringLiteral("git@host:") << defaults << false
                                       << QStringLiteral("names no path");
    QTest::newRow("scp-like without ssh") << QStringLiteral("git@host:repo") << QStringList{QStringLiteral("https")}
                                          << false << QStringLiteral("ssh is not allowed");
    QTest::newRow("scp-like with a password")
        << QStringLiteral("user:s3cret@host:repo.git") << defaults << false << QStringLiteral("takes no password");
    QTest::newRow("host not a name") << QStringLiteral("https://ho$t/repo") << defaults << false
                                     << QStringLiteral("'https://ho$t/repo' is not a valid URL");
    QTest::newRow("relative path") << QStringLiteral("../repo") << defaults << true
                                   << QStringLiteral("a relative path is never taken");
    QTest::newRow("bare name") << QStringLiteral("repo") << defaults << true
                               << QStringLiteral("neither a URL nor an absolute local path");
    QTest::newRow("file:// without local") << QStringLiteral("file:///srv/repo.git") << defaults << false
                                           << QStringLiteral("does not allow local remotes");
    QTest::newRow("local path without local")
        << QStringLiteral("/srv/repo.git") << defaults << false << QStringLiteral("does not allow local remotes");
    QTest::newRow("file:// naming a host")
        << QStringLiteral("file://server/srv/repo.git") << defaults << true << QStringLiteral("names a host");
    QTest::newRow("file:// without a path")
        << QStringLiteral("file://") << defaults << true << QStringLiteral("names no absolute local path");
    // Refused, and the message keeps the secret out.
    QTest::newRow("http with a token") << QStringLiteral("http://hunter2@host/repo.git") << defaults << false
                                       << QStringLiteral("'http://***@host/repo.git'");
    QTest::newRow("ftp with a password") << QStringLiteral("ftp://user:hunter2@host/repo.git") << defaults << false
                                         << QStringLiteral("'ftp://***@host/repo.git'");
    QTest::newRow("bad host with a token") << QStringLiteral("https://hunter2@-host/repo") << defaults << false
                                           << QStringLiteral("'https://***@-host/repo'");
    QTest::newRow("option with a token") << QStringLiteral("-uhttps://hunter2@host/x") << defaults << false
                                         << QStringLiteral("'-uhttps://***@host/x'");
    QTest::newRow("scp-like option with a password")
        << QStringLiteral("-o:hunter2@host:repo") << defaults << false << QStringLiteral("'***@host:repo'");
}

void TestGitUrlPolicy::refused()
{
    QFETCH(QString, url);
    QFETCH(QStringList, schemes);
    QFETCH(bool, allowLocal);
    QFETCH(QString, error);
    QString message;
    const auto remote = GitUrlPolicy(schemes, allowLocal).check(url, &message);
    QVERIFY2(!remote, qPrintable(remote ? remote->url : QString()));
    QVERIFY2(message.contains(error), qPrintable(message));
    QVERIFY2(message.startsWith(QLatin1String("url")), qPrintable(message)); // names the argument
    for (const char* secret : {"hunter2", "s3cret"})
        QVERIFY2(!message.contains(QLatin1String(secret)), qPrintable(message));
    for (const QChar c : message)
        QVERIFY2(c.unicode() >= 0x20, qPrintable(message));
}

void TestGitUrlPolicy::redact_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");

    QTest::newRow("no @") << QStringLiteral("see https://host/x and ssh://host/y") << QString();
    QTest::newRow("@ without a URL") << QStringLiteral("mail alice@example.org, or git@host:repo") << QString();
    QTest::newRow("@ after the authority") << QStringLiteral("https://host/path@v1?u=a@b#c@d") << QString();
    QTest::newRow("@ in another word") << QStringLiteral("https://host/x then bob@example.org") << QString();
    QTest::newRow("https token") << QStringLiteral("clone https://ghp_abc@github.com/o/r.git failed")
                                 << QStringLiteral("clone https://***@github.com/o/r.git failed");
    QTest::newRow("https user and password")
        << QStringLiteral("https://alice:pw@host/r") << QStringLiteral("https://***@host/r");
    QTest::newRow("password holding @") << QStringLiteral("https://u:p@ss@host/r")
                                        << QStringLiteral("https://***@host/r");
    QTest::newRow("port, end of text") << QStringLiteral("https://tok@host:443")
                                       << QStringLiteral("https://***@host:443");
    QTest::newRow("capital scheme") << QStringLiteral("HTTPS://tok@host/r") << QStringLiteral("HTTPS://***@host/r");
    QTest::newRow("git+https") << QStringLiteral("git+https://tok@host/r") << QStringLiteral("git+https://***@host/r");
    QTest::newRow("http") << QStringLiteral("(http://tok@host)") << QStringLiteral("(http://***@host)");
    QTest::newRow("quoted") << QStringLiteral("url 'https://tok@host/r' refused")
                            << QStringLiteral("url 'https://***@host/r' refused");
    QTest::newRow("ssh with a password") << QStringLiteral("ssh://git:secret@host/r")
                                         << QStringLiteral("ssh://git:***@host/r");
    QTest::newRow("ssh without a password") << QStringLiteral("ssh://git@host/r") << QString();
    QTest::newRow("git://user") << QStringLiteral("git://me@host/r") << QString();
    QTest::newRow("a URL right after another")
        << QStringLiteral("https://x,https://tok@host/r") << QStringLiteral("https://x,https://***@host/r");
    QTest::newRow("already redacted") << QStringLiteral("https://***@host/r ssh://git:***@host/r") << QString();
    QTest::newRow("several URLs")
        << QStringLiteral("https://a@h1/x and ssh://u:p@h2/y and https://h3/z?u=a@b then http://c:d@h4")
        << QStringLiteral("https://***@h1/x and ssh://u:***@h2/y and https://h3/z?u=a@b then http://***@h4");
    QTest::newRow("JSON, escaped slashes") << QString::fromUtf8(R"({"url":"https:\/\/tok@host\/r","n":1})")
                                           << QString::fromUtf8(R"({"url":"https:\/\/***@host\/r","n":1})");
    QTest::newRow("JSON, plain slashes") << QString::fromUtf8(R"({"a":"https://tok@host/r","b":"ssh://g:p@h"})")
                                         << QString::fromUtf8(R"({"a":"https://***@host/r","b":"ssh://g:***@h"})");
    QTest::newRow("JSON, escaped quote in the password") << QString::fromUtf8(R"({"url":"https://u:p\"w@host/r"})")
                                                         << QString::fromUtf8(R"({"url":"https://***@host/r"})");
    QTest::newRow("JSON, an escaped newline ends the URL")
        << QString::fromUtf8(R"({"m":"https://host\nuser@x"})") << QString();
    QTest::newRow("JSON, an escaped backslash is part of it")
        << QString::fromUtf8(R"({"m":"https://a\\b@x"})") << QString::fromUtf8(R"({"m":"https://***@x"})");
    QTest::newRow("JSON, a quote ends the URL")
        << QString::fromUtf8(R"({"url":"https://host","who":"a@b"})") << QString();
    QTest::newRow("@ percent-encoded") << QStringLiteral("https://alice:pw%40host/r")
                                       << QStringLiteral("https://***%40host/r");
    QTest::newRow("ssh, @ percent-encoded")
        << QStringLiteral("ssh://git:pw%40host/r") << QStringLiteral("ssh://git:***%40host/r");
    QTest::newRow("%40 after the authority") << QStringLiteral("https://host/a%40b") << QString();
    QTest::newRow("non-ASCII around") << QStringLiteral("\u00e9 https://t\u00f6k@host/r \u4e16")
                                      << QStringLiteral("\u00e9 https://***@host/r \u4e16");
}

void TestGitUrlPolicy::redact()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const QString result = GitUrlPolicy::redact(text);
    if (expected.isEmpty()) {
        QCOMPARE(result, text);
        QCOMPARE(result.constData(), text.constData()); // the same string back, not a copy
    } else {
        QCOMPARE(result, expected);
    }
    const QByteArray bytes = text.toUtf8();
    const QByteArray redactedBytes = GitUrlPolicy::redact(bytes);
    QCOMPARE(redactedBytes, (expected.isEmpty() ? text : expected).toUtf8());
    if (expected.isEmpty())
        QCOMPARE(redactedBytes.constData(), bytes.constData());
    QCOMPARE(GitUrlPolicy::redact(result), result); // once is enough
}

void TestGitUrlPolicy::tokenRedactorText_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // empty: unchanged
    QTest::newRow("no token, URL") << QByteArray() << QStringLiteral("fatal: https://ghp_x@github.com/o/r")
                                   << QStringLiteral("fatal: https://***@github.com/o/r");
    QTest::newRow("no token, no @") << QByteArray() << QStringLiteral("fatal: https://github.com/o/r") << QString();
    QTest::newRow("no token, ssh user") << QByteArray() << QStringLiteral("ssh://git@host/r") << QString();
    QTest::newRow("token and URL") << QByteArray("sb_secret-token")
                                   << QStringLiteral("sb_secret-token at https://u:p@h/x")
                                   << QStringLiteral("[redacted] at https://***@h/x");
    QTest::newRow("token as a URL's user")
        << QByteArray("sb_secret-token") << QStringLiteral("ssh://sb_secret-token@h/x")
        << QStringLiteral("ssh://[redacted]@h/x");
}

void TestGitUrlPolicy::tokenRedactorText()
{
    QFETCH(QByteArray, token);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const TokenRedactor redactor = token.isEmpty() ? TokenRedactor() : TokenRedactor(token);
    QCOMPARE(redactor.isActive(), !token.isEmpty());
    const QString result = redactor.text(text);
    QCOMPARE(result, expected.isEmpty() ? text : expected);
    if (expected.isEmpty())
        QCOMPARE(result.constData(), text.constData());
}

void TestGitUrlPolicy::tokenRedactorJsonText_data()
{
    QTest::addColumn<QByteArray>("token");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("expected"); // empty: unchanged, the same bytes
    const QByteArray token("sb_secret-token");

    QTest::newRow("no token, no @") << QByteArray() << QByteArray(R"({"url":"https:\/\/host\/r","m":"line\nnext"})")
                                    << QByteArray();
    QTest::newRow("no token, @ but no URL")
        << QByteArray() << QByteArray(R"({"who":"a@b","m":"x\ny"})") << QByteArray();
    QTest::newRow("no token, ssh user") << QByteArray() << QByteArray(R"({"url":"ssh://git@host/r"})") << QByteArray();
    QTest::newRow("no token, plain") << QByteArray() << QByteArray(R"({"url":"https://tok@host/r","n":[1,2]})")
                                     << QByteArray(R"({"url":"https://***@host/r","n":[1,2]})");
    // Escapes other than \u are read as what they stand for; the bytes are replaced, formatting kept.
    QTest::newRow("no token, other escapes")
        << QByteArray() << QByteArray(R"({"message":"line\nclone https://tok@host/r"})")
        << QByteArray(R"({"message":"line\nclone https://***@host/r"})");
    QTest::newRow("no token, escaped slashes") << QByteArray() << QByteArray(R"({"url":"https:\/\/tok@host\/r","n":1})")
                                               << QByteArray(R"({"url":"https:\/\/***@host\/r","n":1})");
    QTest::newRow("no token, escaped newline ends the URL")
        << QByteArray() << QByteArray(R"({"m":"https://host\nuser@x"})") << QByteArray();
    // With \u escapes the strings are compared decoded and the text serialised again.
    QTest::newRow("no token, \\u escape elsewhere")
        << QByteArray() << QByteArray(R"({"m":"caf\u00e9 https:\/\/tok@host\/r"})")
        << QByteArray("{\"m\":\"caf\xc3\xa9 https://***@host/r\"}");
    // '@' itself escaped: the value is what counts, not its spelling.
    QTest::newRow("no token, escaped @") << QByteArray() << QByteArray(R"({"url":"https://tok\u0040host/r"})")
                                         << QByteArray(R"({"url":"https://***@host/r"})");
    QTest::newRow("no token, escaped @ in a key")
        << QByteArray() << QByteArray(R"({"ssh://g:pw\u0040h":1})") << QByteArray(R"({"ssh://g:***@h":1})");
    QTest::newRow("no token, escaped @ without a URL")
        << QByteArray() << QByteArray(R"({"who":"alice\u0040example.org"})") << QByteArray();
    QTest::newRow("no token, escaped colon") << QByteArray() << QByteArray(R"({"url":"https\u003a//tok@host/r"})")
                                             << QByteArray(R"({"url":"https://***@host/r"})");
    QTest::newRow("no token, in a key") << QByteArray() << QByteArray(R"({"https://tok@host":{"k":"\t"}})")
                                        << QByteArray(R"({"https://***@host":{"k":"\t"}})");
    QTest::newRow("no token, key order kept")
        << QByteArray() << QByteArray(R"({"z":"\n","a":"ssh://g:pw@h/r","m":null})")
        << QByteArray(R"({"z":"\n","a":"ssh://g:***@h/r","m":null})");
    QTest::newRow("no token, not JSON") << QByteArray() << QByteArray(R"(oops https:\/\/tok@host\/r)")
                                        << QByteArray(R"(oops https:\/\/***@host\/r)");
    QTest::newRow("token and URL") << token << QByteArray(R"({"a":"sb_secret-token","u":"https://tok@host/r"})")
                                   << QByteArray(R"({"a":"[redacted]","u":"https://***@host/r"})");
    QTest::newRow("token and URL, escaped")
        << token << QByteArray(R"({"a":"sb_\u0073ecret-token","u":"https:\/\/tok@host\/r"})")
        << QByteArray(R"({"a":"[redacted]","u":"https://***@host/r"})");
    QTest::newRow("token, no URL") << token << QByteArray(R"({"a":"sb_secret-token"})")
                                   << QByteArray(R"({"a":"[redacted]"})");
    QTest::newRow("token, nothing to redact") << token << QByteArray(R"({"a":"a@b"})") << QByteArray();
}

void TestGitUrlPolicy::tokenRedactorJsonText()
{
    QFETCH(QByteArray, token);
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, expected);
    const TokenRedactor redactor = token.isEmpty() ? TokenRedactor() : TokenRedactor(token);
    const QByteArray result = redactor.jsonText(text);
    if (expected.isEmpty()) {
        QCOMPARE(result, text);
        QCOMPARE(result.constData(), text.constData());
        return;
    }
    QCOMPARE(result, expected);
    if (!nlohmann::json::accept(text.toStdString()))
        return;
    QVERIFY2(nlohmann::json::accept(result.toStdString()), result.constData()); // still JSON
}

void TestGitUrlPolicy::tokenRedactorParsedJson()
{
    nlohmann::json value = nlohmann::json::parse(R"({"u":["https://tok@host/r"],"ssh://g:pw@h":"sb_secret-token"})");
    QVERIFY(TokenRedactor().redactJson(value));
    QCOMPARE(QByteArray::fromStdString(value.dump()),
        QByteArray(R"({"ssh://g:***@h":"sb_secret-token","u":["https://***@host/r"]})"));
    QVERIFY(!TokenRedactor().redactJson(value)); // nothing left
    QVERIFY(TokenRedactor("sb_secret-token").redactJson(value));
    QCOMPARE(QByteArray::fromStdString(value.dump()),
        QByteArray(R"({"ssh://g:***@h":"[redacted]","u":["https://***@host/r"]})"));
    nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(R"({"b":"x","a":"https://t@h"})");
    QVERIFY(TokenRedactor().redactJson(ordered));
    QCOMPARE(QByteArray::fromStdString(ordered.dump()), QByteArray(R"({"b":"x","a":"https://***@h"})"));
}

QTEST_GUILESS_MAIN(TestGitUrlPolicy)
#include "tst_giturlpolicy.moc"
