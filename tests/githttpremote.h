#pragma once

// GitHttpRemote: a smart-HTTP git remote on 127.0.0.1 (or another loopback address) for the git
// tools' tests. A lighttpd process of its own (an ephemeral port, its own configuration and logs)
// runs git's git-http-backend as a CGI program, with basic authentication (realm "git") required on
// every URL and pushes enabled; it may redirect (302) requests elsewhere, and its access log
// records the Authorization header of each request. Its
// bare repositories are made with the git program, which tests may use for fixtures (the product
// may not). Everything lives in a temporary directory the fixture owns.
//
// lighttpd and git come from scripts/install-deps.sh --test; available() says what is missing, and
// a test should fail on it, not skip, so a machine without them cannot pass by testing nothing.

#include <QByteArray>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUrl>

class GitHttpRemote
{
public:
    // Bounds on every process the fixture runs or waits for, so a hang fails a test instead of
    // blocking it until the CTest timeout.
    static constexpr int GitTimeoutMs = 60000;
    static constexpr int StartTimeoutMs = 10000;
    static constexpr int StopTimeoutMs = 5000;
    // A free port can be taken by someone else between closing our probe and lighttpd binding it.
    static constexpr int StartAttempts = 5;
    static constexpr int KeepAliveIdleSeconds = 2;

    explicit GitHttpRemote(
        const QString& user = QStringLiteral("alice"), const QString& password = QStringLiteral("s3cret-token"))
        : m_user(user)
        , m_password(password)
    {
        const QDir base(m_dir.path());
        for (const char* sub : {"repos", "home", "seed", "work", "lighttpd/www", "lighttpd/upload"})
            base.mkpath(QString::fromLatin1(sub));
        // The git program's global configuration. No safe.directory entry: the repositories belong to
        // the user the tests (and the server) run as, so neither git's nor libgit2's ownership check
        // objects.
        writeFile(base.filePath(QStringLiteral("home/.gitconfig")),
            "[user]\n"
            "\tname = Switchboard Tests\n"
            "\temail = tests@switchboard.invalid\n"
            "[init]\n"
            "\tdefaultBranch = main\n"
            "[advice]\n"
            "\tdetachedHead = false\n");
        // mod_authn_file's "plain" backend: one user:password line, no hashing tool needed.
        writeFile(lighttpdPath(QStringLiteral("users")), (m_user + QLatin1Char(':') + m_password).toUtf8() + '\n');
        QFile::setPermissions(lighttpdPath(QStringLiteral("users")), QFile::ReadOwner | QFile::WriteOwner);
    }

    ~GitHttpRemote() { stop(); }

    GitHttpRemote(const GitHttpRemote&) = delete;
    GitHttpRemote& operator=(const GitHttpRemote&) = delete;

    static QString lighttpdProgram() { return QStringLiteral("/usr/sbin/lighttpd"); }
    static QString httpBackendProgram() { return QStringLiteral("/usr/lib/git-core/git-http-backend"); }

    // Whether lighttpd (with the modules the configuration loads), git-http-backend and git are
    // installed; if not, `why` says what is missing and how to install it.
    static bool available(QString* why)
    {
        QStringList missing;
        if (!QFileInfo(lighttpdProgram()).isExecutable())
            missing << lighttpdProgram() + QStringLiteral(" (package lighttpd)");
        for (const char* module : {"mod_auth", "mod_authn_file", "mod_cgi", "mod_accesslog"}) {
            const QString path = QStringLiteral("/usr/lib/lighttpd/") + QLatin1String(module) + QStringLiteral(".so");
            if (!QFileInfo::exists(path))
                missing << path + QStringLiteral(" (package lighttpd)");
        }
        if (!QFileInfo(httpBackendProgram()).isExecutable())
            missing << httpBackendProgram() + QStringLiteral(" (package git)");
        if (QStandardPaths::findExecutable(QStringLiteral("git")).isEmpty())
            missing << QStringLiteral("git on PATH (package git)");
        if (missing.isEmpty())
            return true;
        if (why)
            *why = QStringLiteral("The smart-HTTP git remote needs ") + missing.join(QStringLiteral(", "))
                + QStringLiteral("; run scripts/install-deps.sh --test");
        return false;
    }

    // Starts lighttpd on a free loopback port and returns once that port answers.
    bool start(QString* error = nullptr)
    {
        if (isRunning())
            return true;
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary directory: ") + m_dir.errorString());
        QString why;
        if (!available(&why))
            return fail(error, why);
        for (int attempt = 1; attempt <= StartAttempts; ++attempt) {
            const quint16 port = freePort();
            if (port == 0)
                return fail(error, QStringLiteral("no free port on ") + m_address);
            writeFile(lighttpdPath(QStringLiteral("lighttpd.conf")), configuration(port).toUtf8());
            // Fresh logs per attempt: "server started" and a lost port must be this attempt's.
            QFile::remove(errorLogPath());
            m_process.setProgram(lighttpdProgram());
            m_process.setArguments(
                {QStringLiteral("-D"), QStringLiteral("-f"), lighttpdPath(QStringLiteral("lighttpd.conf"))});
            // lighttpd hands CGI programs none of its own environment, so this one is for lighttpd only.
            QProcessEnvironment environment;
            environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/sbin:/usr/bin:/sbin:/bin"));
            m_process.setProcessEnvironment(environment);
            m_process.setProcessChannelMode(QProcess::MergedChannels);
            m_process.setStandardOutputFile(lighttpdPath(QStringLiteral("stdout.log")), QIODevice::Truncate);
            m_process.start();
            if (!m_process.waitForStarted(StartTimeoutMs))
                return fail(error, QStringLiteral("lighttpd did not start: ") + m_process.errorString());
            if (waitUntilAnswering(port)) {
                m_port = port;
                return true;
            }
            if (m_process.state() != QProcess::NotRunning) {
                stopProcess();
                return fail(error,
                    QStringLiteral("lighttpd did not answer on port %1 within %2 ms\n").arg(port).arg(StartTimeoutMs)
                        + log());
            }
            // Only a lost race for the port is worth another attempt; a refused configuration is not.
            if (!log().contains(QLatin1String("Address already in use")))
                return fail(
                    error, QStringLiteral("lighttpd exited on start (code %1)\n").arg(m_process.exitCode()) + log());
        }
        return fail(error, QStringLiteral("lighttpd found no free port in %1 attempts\n").arg(StartAttempts) + log());
    }

    void stop()
    {
        stopProcess();
        m_port = 0;
    }

    // Serves on another loopback address than 127.0.0.1 (to a client, another host). Before start().
    void setAddress(const QString& address) { m_address = address; }
    QString address() const { return m_address; }

    // Answers requests whose path matches `pattern` (a lighttpd regular expression) with a 302 to
    // `target` ($1... are the pattern's groups), before asking for credentials when
    // `beforeAuthentication` (a host that sends everyone elsewhere), else only to a client that
    // gave them. Before start().
    void addRedirect(const QString& pattern, const QString& target, bool beforeAuthentication)
    {
        m_redirects.append({pattern, target});
        m_redirectBeforeAuthentication = beforeAuthentication;
    }

    // The Authorization headers of the requests this server received ("-" for none), from its
    // access log: complete once stop() returned.
    QStringList receivedAuthorizations() const
    {
        QStringList headers;
        for (const QByteArray& line : readFile(lighttpdPath(QStringLiteral("access.log"))).split('\n')) {
            const qsizetype at = line.indexOf("authorization=[");
            if (at >= 0)
                headers << QString::fromUtf8(line.mid(at + 15, line.indexOf(']', at) - at - 15));
        }
        return headers;
    }

    bool isRunning() const { return m_port != 0 && m_process.state() != QProcess::NotRunning; }
    quint16 port() const { return m_port; }
    QString user() const { return m_user; }
    QString password() const { return m_password; }
    // GIT_PROJECT_ROOT: the directory the bare repositories are in.
    QString root() const { return m_dir.filePath(QStringLiteral("repos")); }
    // A path in the temporary directory outside root(), for clones and other working copies; its
    // parent exists, the path itself is left for git clone to create.
    QString workPath(const QString& name) const { return m_dir.filePath(QStringLiteral("work/") + name); }
    // The last error createBareRepository or commitFile met (git's own output included).
    QString lastError() const { return m_lastError; }

    // http://127.0.0.1:<port>/<name>.git, without credentials.
    QUrl url(const QString& repoName) const
    {
        QUrl url;
        url.setScheme(QStringLiteral("http"));
        url.setHost(m_address);
        url.setPort(m_port);
        url.setPath(QLatin1Char('/') + repositoryDirName(repoName));
        return url;
    }

    // url() with user and password in it; empty ones mean the fixture's own.
    QUrl urlWithCredentials(const QString& repoName, const QString& user = {}, const QString& password = {}) const
    {
        QUrl url = this->url(repoName);
        url.setUserName(user.isEmpty() ? m_user : user);
        url.setPassword(password.isEmpty() ? m_password : password);
        return url;
    }

    // Makes root()/<name>.git with `git init --bare`, its HEAD on `defaultBranch`; with an initial
    // commit (a README.md) on that branch, pushed from a seed clone. Returns the bare repository's
    // directory, or an empty string (lastError() says why). Works whether or not the server runs.
    QString createBareRepository(
        const QString& name, bool withInitialCommit = true, const QString& defaultBranch = QStringLiteral("main"))
    {
        const QString bare = repositoryPath(name);
        if (QFileInfo::exists(bare))
            return failed(QStringLiteral("%1 exists already").arg(bare));
        int code = 0;
        QString output = git({QStringLiteral("init"), QStringLiteral("--quiet"), QStringLiteral("--bare"),
                                 QStringLiteral("--initial-branch=") + defaultBranch, bare},
            root(), &code);
        if (code != 0)
            return failed(QStringLiteral("git init --bare %1: ").arg(bare) + output);
        if (!withInitialCommit)
            return bare;

        const QString seed = m_dir.filePath(QStringLiteral("seed/") + repositoryDirName(name));
        output = git({QStringLiteral("init"), QStringLiteral("--quiet"),
                         QStringLiteral("--initial-branch=") + defaultBranch, seed},
            m_dir.path(), &code);
        if (code != 0)
            return failed(QStringLiteral("git init %1: ").arg(seed) + output);
        const QString readme = QStringLiteral("# ") + name
            + QStringLiteral("\n\nA repository on the smart-HTTP remote of the git tools' tests.\n");
        if (commitFile(seed, QStringLiteral("README.md"), readme.toUtf8(), QStringLiteral("Initial commit")).isEmpty())
            return {};
        // The local path, not the server: a repository can be made before start().
        output = git({QStringLiteral("push"), QStringLiteral("--quiet"), bare,
                         QStringLiteral("HEAD:refs/heads/") + defaultBranch},
            seed, &code);
        if (code != 0)
            return failed(QStringLiteral("git push to %1: ").arg(bare) + output);
        return bare;
    }

    // Writes `fileName` in the working copy `workdir`, adds and commits it; returns the new commit's
    // id, or an empty string (lastError() says why).
    QString commitFile(
        const QString& workdir, const QString& fileName, const QByteArray& content, const QString& message)
    {
        const QString path = QDir(workdir).filePath(fileName);
        QDir().mkpath(QFileInfo(path).absolutePath());
        if (!writeFile(path, content))
            return failed(QStringLiteral("cannot write %1").arg(path));
        int code = 0;
        QString output = git({QStringLiteral("add"), QStringLiteral("--"), fileName}, workdir, &code);
        if (code != 0)
            return failed(QStringLiteral("git add %1: ").arg(fileName) + output);
        output
            = git({QStringLiteral("commit"), QStringLiteral("--quiet"), QStringLiteral("-m"), message}, workdir, &code);
        if (code != 0)
            return failed(QStringLiteral("git commit in %1: ").arg(workdir) + output);
        output = git({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, workdir, &code);
        if (code != 0)
            return failed(QStringLiteral("git rev-parse HEAD in %1: ").arg(workdir) + output);
        return output.trimmed();
    }

    // The commit `branch` points at in a bare repository (a directory, or a name under root()), or an
    // empty string if there is no such branch.
    QString headOf(const QString& bareRepo, const QString& branch = QStringLiteral("main")) const
    {
        int code = 0;
        const QString output = git({QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("--quiet"),
                                       QStringLiteral("refs/heads/") + branch + QStringLiteral("^{commit}")},
            repositoryPath(bareRepo), &code);
        return code == 0 ? output.trimmed() : QString();
    }

    // Runs the git program in `workdir` (the work directory if empty) with gitEnvironment() and
    // returns its output, stdout and stderr merged. `exitCode` gets -1 if git did not start or did
    // not finish within GitTimeoutMs (it is killed then, and the output says so).
    QString git(const QStringList& args, const QString& workdir = {}, int* exitCode = nullptr) const
    {
        QProcess process;
        process.setProcessEnvironment(gitEnvironment());
        process.setWorkingDirectory(workdir.isEmpty() ? m_dir.filePath(QStringLiteral("work")) : workdir);
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QStringLiteral("git"), args);
        const QString command = QStringLiteral("git ") + args.join(QLatin1Char(' '));
        int code = -1;
        QString output;
        if (!process.waitForStarted(GitTimeoutMs)) {
            output = command + QStringLiteral(": did not start: ") + process.errorString();
        } else if (!process.waitForFinished(GitTimeoutMs)) {
            process.kill();
            process.waitForFinished(StopTimeoutMs);
            output = QString::fromUtf8(process.readAll()) + QLatin1Char('\n') + command
                + QStringLiteral(": did not finish within %1 ms").arg(GitTimeoutMs);
        } else {
            output = QString::fromUtf8(process.readAll());
            code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        }
        if (exitCode)
            *exitCode = code;
        return output;
    }

    // What the git program runs with: nothing of the caller's environment but PATH (no proxies, no
    // credential helpers, no system or user configuration), HOME in the temporary directory, C
    // messages, and no way to ask for a password: no terminal prompt, an askpass program that fails.
    QProcessEnvironment gitEnvironment() const
    {
        QProcessEnvironment environment;
        const QString path = qEnvironmentVariable("PATH");
        environment.insert(
            QStringLiteral("PATH"), path.isEmpty() ? QStringLiteral("/usr/local/bin:/usr/bin:/bin") : path);
        environment.insert(QStringLiteral("HOME"), m_dir.filePath(QStringLiteral("home")));
        environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
        environment.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
        environment.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
        environment.insert(QStringLiteral("GIT_ASKPASS"), QStringLiteral("/bin/false"));
        environment.insert(QStringLiteral("SSH_ASKPASS"), QStringLiteral("/bin/false"));
        return environment;
    }

    // The tail of lighttpd's error log (which also gets git-http-backend's stderr), of its access log
    // and of what it printed, for failure messages. The error log is written as things happen; the
    // access log in batches about once a second, complete only after stop().
    QString log() const
    {
        return QStringLiteral("--- lighttpd error log (%1):\n").arg(errorLogPath()) + tail(errorLogPath())
            + QStringLiteral("--- lighttpd access log:\n") + tail(lighttpdPath(QStringLiteral("access.log")))
            + QStringLiteral("--- lighttpd output:\n") + tail(lighttpdPath(QStringLiteral("stdout.log")));
    }

    QString errorLogPath() const { return lighttpdPath(QStringLiteral("error.log")); }

private:
    QString lighttpdPath(const QString& name) const { return m_dir.filePath(QStringLiteral("lighttpd/") + name); }

    static QString repositoryDirName(const QString& name)
    {
        return name.endsWith(QLatin1String(".git")) ? name : name + QStringLiteral(".git");
    }

    QString repositoryPath(const QString& nameOrPath) const
    {
        if (QDir::isAbsolutePath(nameOrPath))
            return nameOrPath;
        return QDir(root()).filePath(repositoryDirName(nameOrPath));
    }

    // A lighttpd configuration string literal.
    static QString quoted(QString value)
    {
        value.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
        value.replace(QLatin1Char('"'), QLatin1String("\\\""));
        return QLatin1Char('"') + value + QLatin1Char('"');
    }

    QString configuration(quint16 port) const
    {
        // lighttpd 1.4.69 builds mod_alias and mod_setenv in; it wants mod_auth listed before
        // backends such as mod_cgi (and warns otherwise).
        // alias.url maps every URL below git-http-backend's own path; lighttpd runs the program and
        // hands it the rest (/<name>.git/info/refs) as PATH_INFO. cgi.assign with an empty
        // extension executes it directly. A CGI program gets none of lighttpd's environment (no PATH,
        // no HOME), only the CGI variables and setenv's.
        // Pushes: git-http-backend allows receive-pack when REMOTE_USER is set, which mod_auth does;
        // http.receivepack=true says so outright instead of leaning on that. GIT_CONFIG_NOSYSTEM
        // keeps the machine's /etc/gitconfig out of the server.
        // auth.require "" matches every URL, so nothing (not even a 404) answers without credentials.
        // mod_redirect answers before mod_auth asks for credentials when it comes first.
        const QString modules = m_redirectBeforeAuthentication
            ? QStringLiteral("\"mod_redirect\", \"mod_auth\", \"mod_authn_file\"")
            : QStringLiteral("\"mod_auth\", \"mod_authn_file\", \"mod_redirect\"");
        QStringList redirects;
        for (const auto& [pattern, target] : m_redirects)
            redirects << quoted(pattern) + QStringLiteral(" => ") + quoted(target);
        QStringList lines = {
            QStringLiteral("# Written by GitHttpRemote (tests/githttpremote.h) for one test run."),
            QStringLiteral("server.modules = (") + modules
                + QStringLiteral(", \"mod_alias\", \"mod_setenv\", \"mod_cgi\", \"mod_accesslog\")"),
            // lighttpd answers a wrong password a second late (against guessing); tests try wrong
            // ones on purpose, and libgit2 may ask more than once.
            QStringLiteral("server.feature-flags = (\"auth.delay-invalid-creds\" => \"disable\")"),
            QStringLiteral("server.bind = ") + quoted(m_address),
            // An idle keep-alive connection is closed after 2 s (lighttpd's default is 5 s), so a
            // test that lets a person take their time sees what a real server does to it quickly.
            QStringLiteral("server.max-keep-alive-idle = %1").arg(KeepAliveIdleSeconds),
            QStringLiteral("server.port = %1").arg(port),
            QStringLiteral("server.document-root = ") + quoted(lighttpdPath(QStringLiteral("www"))),
            QStringLiteral("server.upload-dirs = (") + quoted(lighttpdPath(QStringLiteral("upload")))
                + QLatin1Char(')'),
            QStringLiteral("server.errorlog = ") + quoted(errorLogPath()),
            QStringLiteral("accesslog.filename = ") + quoted(lighttpdPath(QStringLiteral("access.log"))),
            // lighttpd's own format, and what each request carried in Authorization, so a test can tell
            // where credentials went.
            QStringLiteral(
                "accesslog.format = \"%h %V %u %t \\\"%r\\\" %>s %b \\\"%{Referer}i\\\" \\\"%{User-Agent}i\\\" "
                "authorization=[%{Authorization}i]\""),
            QStringLiteral("alias.url = (\"/\" => ") + quoted(httpBackendProgram() + QLatin1Char('/'))
                + QLatin1Char(')'),
            QStringLiteral("cgi.assign = (\"\" => \"\")"),
            QStringLiteral("setenv.set-environment = (\"GIT_PROJECT_ROOT\" => ") + quoted(root())
                + QStringLiteral(", \"GIT_HTTP_EXPORT_ALL\" => \"1\", \"GIT_CONFIG_NOSYSTEM\" => \"1\", "
                                 "\"GIT_CONFIG_COUNT\" => \"1\", \"GIT_CONFIG_KEY_0\" => \"http.receivepack\", "
                                 "\"GIT_CONFIG_VALUE_0\" => \"true\")"),
            QStringLiteral("auth.backend = \"plain\""),
            QStringLiteral("auth.backend.plain.userfile = ") + quoted(lighttpdPath(QStringLiteral("users"))),
            QStringLiteral("auth.require = (\"\" => (\"method\" => \"basic\", \"realm\" => \"git\", "
                           "\"require\" => \"valid-user\"))"),
        };
        if (!redirects.isEmpty()) {
            lines << QStringLiteral("url.redirect = (") + redirects.join(QStringLiteral(", ")) + QLatin1Char(')');
            lines << QStringLiteral("url.redirect-code = 302");
        }
        return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }

    // Ready means this process is still running, its error log says it started (so it bound the port
    // and not someone else who took the port meanwhile), and the port accepts a connection.
    bool waitUntilAnswering(quint16 port)
    {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < StartTimeoutMs) {
            if (m_process.state() == QProcess::NotRunning || m_process.waitForFinished(25))
                return false;
            if (!readFile(errorLogPath()).contains("server started"))
                continue;
            QTcpSocket socket;
            socket.connectToHost(QHostAddress(m_address), port);
            if (socket.waitForConnected(1000))
                return m_process.state() != QProcess::NotRunning;
        }
        return false;
    }

    void stopProcess()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(StopTimeoutMs)) {
            m_process.kill();
            m_process.waitForFinished(StopTimeoutMs);
        }
    }

    quint16 freePort() const
    {
        QTcpServer probe;
        if (!probe.listen(QHostAddress(m_address), 0))
            return 0;
        const quint16 port = probe.serverPort();
        probe.close();
        return port;
    }

    static bool writeFile(const QString& path, const QByteArray& content)
    {
        QFile file(path);
        return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
    }

    static QByteArray readFile(const QString& path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    static QString tail(const QString& path, qsizetype maxBytes = 4000)
    {
        const QByteArray content = readFile(path);
        return QString::fromUtf8(content.size() > maxBytes ? content.right(maxBytes) : content);
    }

    static bool fail(QString* error, const QString& why)
    {
        if (error)
            *error = why;
        return false;
    }

    QString failed(const QString& why)
    {
        m_lastError = why;
        return {};
    }

    QTemporaryDir m_dir;
    QString m_address = QStringLiteral("127.0.0.1");
    QList<std::pair<QString, QString>> m_redirects;
    bool m_redirectBeforeAuthentication = false;
    QString m_user;
    QString m_password;
    QProcess m_process;
    quint16 m_port = 0;
    QString m_lastError;
};
