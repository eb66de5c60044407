// The git tools against real repositories made with the git program (which tests may use for
// fixtures and for checking results; the product never runs it): every tool's happy path checked
// against what git itself says about the same repository, the clone contract (a destination is
// never overwritten, a failed clone leaves nothing behind), the refusals of paths, URLs, ref names
// and remote URLs in .git/config with nothing changed on disk, and whom repositoryTouched tells.
//
// Every call also goes through one contract check (see checkContract): arguments valid for the
// tool's inputSchema, structuredContent {status, message, ...} valid for its outputSchema, the text
// blocks the message and the same JSON, isError exactly when the status is "failure", and the
// watcher told once with the canonical path and whether the tool changed the repository.

#include "git/diffmemorybudget.h"
#include "git/gittoolenvironment.h"
#include "git/gittools.h"
#include "processstatus.h"
#include "tools/schemavalidator.h"
#include "tools/toolcallcontext.h"
#include "tools/toolregistry.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>

#include <signal.h>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

constexpr int GitTimeoutMs = 120000;

// The commit author the fixture's global git configuration names; libgit2 reads it too.
const char* const FixtureName = "Fixture Author";
const char* const FixtureEmail = "fixture@example.invalid";

struct GitRun
{
    QStringList arguments;
    QString directory;
    int code = -1;
    QString out;
    QString err;

    // Standard output without its trailing newlines (leading spaces kept: porcelain lines need them).
    QString output() const
    {
        QString text = out;
        while (text.endsWith(QLatin1Char('\n')))
            text.chop(1);
        return text;
    }
    QStringList lines() const
    {
        const QString text = output();
        return text.isEmpty() ? QStringList() : text.split(QLatin1Char('\n'));
    }
    QString describe() const
    {
        return QStringLiteral("git %1 (in %2) exited with %3:\n%4%5")
            .arg(arguments.join(QLatin1Char(' ')), directory)
            .arg(code)
            .arg(out, err);
    }
};

GitRun runGit(const QString& directory, const QStringList& arguments)
{
    GitRun run;
    run.arguments = arguments;
    run.directory = directory;
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"), arguments);
    if (!process.waitForFinished(GitTimeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("did not finish: ") + process.errorString();
        return run;
    }
    run.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

QString argument(const char* text)
{
    return QString::fromUtf8(text);
}

QString argument(const QString& text)
{
    return text;
}

template<typename... Arguments>
GitRun git(const QString& directory, const Arguments&... arguments)
{
    return runGit(directory, QStringList{argument(arguments)...});
}

bool writeFile(const QString& path, const QByteArray& content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(content) == content.size();
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return "<unreadable>";
    return file.readAll();
}

bool copyTree(const QString& from, const QString& to)
{
    if (!QDir().mkpath(to))
        return false;
    const QDir source(from);
    for (const QFileInfo& entry :
        source.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        const QString target = QDir(to).filePath(entry.fileName());
        if (entry.isDir()) {
            if (!copyTree(entry.filePath(), target))
                return false;
        } else if (!QFile::copy(entry.filePath(), target)) {
            return false;
        }
    }
    return true;
}

// Everything below `directory`, byte for byte: files with their contents and permissions,
// directories, and links with their targets (not followed).
using Snapshot = QMap<QString, QByteArray>;

Snapshot snapshot(const QString& directory)
{
    Snapshot entries;
    if (!QFileInfo(directory).isDir())
        return entries;
    QDirIterator it(
        directory, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    const QDir base(directory);
    while (it.hasNext()) {
        it.next();
        const QFileInfo info = it.fileInfo();
        const QString relative = base.relativeFilePath(info.filePath());
        if (info.isSymLink())
            entries.insert(relative, "link " + QFile::encodeName(info.symLinkTarget()));
        else if (info.isDir())
            entries.insert(relative, "directory");
        else
            entries.insert(
                relative, "file " + QByteArray::number(int(info.permissions()), 16) + ' ' + readFile(info.filePath()));
    }
    return entries;
}

// A working tree's snapshot without what a fetch may write into .git (objects, remote-tracking refs,
// FETCH_HEAD, reflogs): what is left is the working tree, the index, HEAD and the local branches.
Snapshot withoutFetchedData(Snapshot shot)
{
    for (auto it = shot.begin(); it != shot.end();) {
        const QString& key = it.key();
        if (key.startsWith(QLatin1String(".git/")) && !key.startsWith(QLatin1String(".git/refs/heads"))
            && key != QLatin1String(".git/HEAD") && key != QLatin1String(".git/index"))
            it = shot.erase(it);
        else
            ++it;
    }
    return shot;
}

// What changed between two snapshots, or nothing.
QString snapshotDifference(const Snapshot& before, const Snapshot& after)
{
    QStringList changes;
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        if (!after.contains(it.key()))
            changes << QStringLiteral("removed ") + it.key();
        else if (after.value(it.key()) != it.value())
            changes << QStringLiteral("changed ") + it.key();
    }
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        if (!before.contains(it.key()))
            changes << QStringLiteral("added ") + it.key();
    }
    return changes.join(QStringLiteral(", "));
}

QString str(const json& value)
{
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString::fromStdString(value.dump());
}

QString messageOf(const ToolResult& result)
{
    return result.structuredContent.is_object() ? str(result.structuredContent.value("message", json())) : QString();
}

QString describe(const ToolResult& result)
{
    return QString::fromStdString(result.toJson().dump(2));
}

QStringList keysOf(const json& object)
{
    QStringList keys;
    if (object.is_object()) {
        for (auto it = object.begin(); it != object.end(); ++it)
            keys << QString::fromStdString(it.key());
    }
    keys.sort();
    return keys;
}

QStringList stringList(const json& array)
{
    QStringList items;
    if (array.is_array()) {
        for (const json& item : array)
            items << str(item);
    }
    return items;
}

// Entries of a status or diff list as "status path" (with " <- old" for renames), sorted.
QStringList entryList(const json& array, const char* statusKey = "status")
{
    QStringList items;
    if (!array.is_array())
        return items;
    for (const json& item : array) {
        QString text = str(item.value(statusKey, json())) + QLatin1Char(' ') + str(item.value("path", json()));
        if (item.contains("old_path"))
            text += QStringLiteral(" <- ") + str(item["old_path"]);
        items << text;
    }
    items.sort();
    return items;
}

// A diff's files as `git diff --numstat` lines ("added<TAB>deleted<TAB>path"), sorted.
QStringList numstat(const json& files)
{
    QStringList lines;
    if (!files.is_array())
        return lines;
    for (const json& file : files)
        lines << QStringLiteral("%1\t%2\t%3")
                     .arg(str(file.value("additions", json())), str(file.value("deletions", json())),
                         str(file.value("path", json())));
    lines.sort();
    return lines;
}

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

bool isReadTool(const QString& tool)
{
    static const QStringList readTools{QStringLiteral("git_status"), QStringLiteral("git_log"),
        QStringLiteral("git_diff"), QStringLiteral("git_show"), QStringLiteral("git_branch_list")};
    return readTools.contains(tool);
}

// Every tool that works on an existing repository, each with arguments that would change something
// (or read something) if the repository were accepted.
std::vector<std::pair<QString, json>> repositoryToolCalls(const QString& repoPath)
{
    const std::string path = repoPath.toStdString();
    return {
        {QStringLiteral("git_status"), json{{"repo_path", path}}},
        {QStringLiteral("git_log"), json{{"repo_path", path}}},
        {QStringLiteral("git_diff"), json{{"repo_path", path}}},
        {QStringLiteral("git_show"), json{{"repo_path", path}}},
        {QStringLiteral("git_branch_list"), json{{"repo_path", path}, {"branch_type", "all"}}},
        {QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"."}}}},
        {QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "refused"}, {"files", {"a.txt"}}}},
        {QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "feature"}}},
        {QStringLiteral("git_create_branch"), json{{"repo_path", path}, {"branch_name", "topic"}, {"checkout", true}}},
        {QStringLiteral("git_push"), json{{"repo_path", path}}},
        {QStringLiteral("git_pull"), json{{"repo_path", path}}},
    };
}

} // namespace

// libgit2 1.5's known leak of PCRE2 match data is suppressed for every test: tests/lsan.supp.

// Fails the test with git's output unless it exits with 0.
#define GIT_OK(directory, ...)                                                                                         \
    do {                                                                                                               \
        const GitRun gitRun = git(directory, __VA_ARGS__);                                                             \
        QVERIFY2(gitRun.code == 0, qPrintable(gitRun.describe()));                                                     \
    } while (false)

// Declares `variable` and sets it to git's output, failing the test unless git exits with 0.
#define GIT_OUT(variable, directory, ...)                                                                              \
    QString variable;                                                                                                  \
    do {                                                                                                               \
        const GitRun gitRun = git(directory, __VA_ARGS__);                                                             \
        QVERIFY2(gitRun.code == 0, qPrintable(gitRun.describe()));                                                     \
        variable = gitRun.output();                                                                                    \
    } while (false)

// A call that must succeed / fail, with the result in the failure message.
#define VERIFY_SUCCESS(expression)                                                                                     \
    do {                                                                                                               \
        const ToolResult verified = (expression);                                                                      \
        QVERIFY2(!verified.isError, qPrintable(describe(verified)));                                                   \
    } while (false)
#define VERIFY_FAILURE(expression, fragment)                                                                           \
    do {                                                                                                               \
        const ToolResult verified = (expression);                                                                      \
        QVERIFY2(verified.isError, qPrintable(describe(verified)));                                                    \
        QVERIFY2(messageOf(verified).contains(fragment), qPrintable(describe(verified)));                              \
    } while (false)

// Compares JSON values by their text (QCOMPARE would try json's implicit conversions).
#define COMPARE_JSON(actual, expected)                                                                                 \
    QCOMPARE(QString::fromStdString(json(actual).dump()), QString::fromStdString(json(expected).dump()))

// Runs a helper that may fail the test, and stops the test if it did.
#define SETUP(statement)                                                                                               \
    do {                                                                                                               \
        statement;                                                                                                     \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)

class TestGitTools : public QObject
{
    Q_OBJECT

public:
    struct Touch
    {
        QString repository;
        qint64 callId = 0;
        bool changed = false;
    };

private:
    QTemporaryDir m_home; // HOME for the git program and libgit2; also the seed and the template
    QString m_template; // a bare repository every test copies as its remote
    QString m_initial; // commits of the template: main is initial ← second
    QString m_second;
    QString m_feature; // feature: second ← "feature work" (changes a.txt, adds feature.txt)
    QString m_release; // release: initial ← "release work" (changes a.txt)

    std::unique_ptr<QTemporaryDir> m_work; // per test
    QString m_workPath; // canonical
    QString m_root; // the allowed root: <work>/root
    QString m_outside; // <work>/outside
    QString m_evil; // <work>/root-evil, a sibling sharing the root's prefix
    QString m_remote; // <root>/remote.git, a copy of the template

    std::shared_ptr<GitToolEnvironment> m_environment;
    std::mutex m_touchMutex;
    std::vector<Touch> m_touches;
    std::vector<json> m_notifications;
    QStringList m_problems; // contract breaches found by checkContract, reported by cleanup()
    // Told each call's context before it runs (from the calling thread), so a test can cancel it.
    std::function<void(const std::shared_ptr<ToolCallContext>&)> m_callStarting;
    qint64 m_lastCallId = 0;

    std::shared_ptr<GitToolEnvironment> makeEnvironment(const QStringList& roots, const GitUrlPolicy& urls)
    {
        GitSettings settings;
        settings.roots = roots;
        settings.schemes = urls.schemes();
        settings.allowLocalRemotes = urls.allowsLocal();
        settings.timeoutSeconds = 120;
        // Member by member, so a member added later keeps its default (no status cache: every
        // git_status is computed).
        auto environment = std::make_shared<GitToolEnvironment>();
        environment->paths = GitPathPolicy(roots);
        environment->urls = urls;
        environment->settings = settings;
        environment->repositoryTouched = [this](const QString& repository, qint64 callId, bool changed) {
            const std::lock_guard lock(m_touchMutex);
            m_touches.push_back({repository, callId, changed});
        };
        return environment;
    }

    std::vector<Touch> touches()
    {
        const std::lock_guard lock(m_touchMutex);
        return m_touches;
    }

    QString expand(QString text) const
    {
        return text.replace(QLatin1String("{REMOTE}"), m_remote)
            .replace(QLatin1String("{ROOT}"), m_root)
            .replace(QLatin1String("{OUT}"), m_outside)
            .replace(QLatin1String("{WORK}"), m_workPath);
    }

    QString rootPath(const QString& relative) const { return m_root + QLatin1Char('/') + relative; }

    ToolResult call(const QString& tool, const json& arguments) { return callIn(m_environment, tool, arguments); }

    ToolResult callIn(const std::shared_ptr<GitToolEnvironment>& environment, const QString& tool,
        const json& arguments, const json& progressToken = nullptr)
    {
        const std::vector<RegisteredTool> tools = gitTools(environment);
        const auto it = std::find_if(
            tools.cbegin(), tools.cend(), [&](const RegisteredTool& candidate) { return candidate.spec.name == tool; });
        if (it == tools.cend()) {
            m_problems << QStringLiteral("there is no tool %1").arg(tool);
            return ToolResult::error(QStringLiteral("no such tool"));
        }
        // The router would refuse arguments its schema does not allow; the tests only send valid ones.
        for (const QString& problem : SchemaValidator::validate(arguments, it->spec.inputSchema))
            m_problems << QStringLiteral("%1: arguments %2 break the inputSchema: %3")
                              .arg(tool, QString::fromStdString(arguments.dump()), problem);
        CallMetadata metadata;
        metadata.callId = ++m_lastCallId;
        metadata.tool = tool;
        metadata.route = ToolRoute::git();
        metadata.progressToken = progressToken;
        ToolCallContext::Hooks hooks;
        hooks.notify = [this](const json& notification) { m_notifications.push_back(notification); };
        hooks.wantsLog = [](LogLevel) { return true; };
        hooks.complete = [](ToolResult) {};
        const auto context = std::make_shared<ToolCallContext>(arguments, metadata, hooks);
        if (m_callStarting)
            m_callStarting(context);
        const std::size_t touchesBefore = touches().size();
        ToolResult result = it->blockingHandler(*context);
        checkContract(*it, metadata.callId, result, touchesBefore);
        return result;
    }

    // What every answer of every git tool must be; breaches are collected and fail the test in cleanup().
    void checkContract(const RegisteredTool& tool, qint64 callId, const ToolResult& result, std::size_t touchesBefore)
    {
        const QString name = tool.spec.name;
        const auto problem = [&](const QString& what) {
            m_problems << QStringLiteral("%1 (call %2): %3\n%4").arg(name).arg(callId).arg(what, describe(result));
        };
        const json& structured = result.structuredContent;
        if (!structured.is_object()) {
            problem(QStringLiteral("structuredContent is not an object"));
            return;
        }
        const QString status = str(structured.value("status", json()));
        if (status != QLatin1String("success") && status != QLatin1String("failure"))
            problem(QStringLiteral("status is neither success nor failure"));
        if (!structured.contains("message") || !structured["message"].is_string() || messageOf(result).isEmpty())
            problem(QStringLiteral("no message"));
        if (result.isError != (status == QLatin1String("failure")))
            problem(QStringLiteral("isError does not match the status"));
        for (const QString& breach : SchemaValidator::validate(structured, tool.spec.outputSchema))
            problem(QStringLiteral("breaks the outputSchema: ") + breach);
        // Two text blocks: the message, then the structuredContent as JSON for clients that read only text.
        if (result.content.size() != 2 || result.content[0].value("type", "") != "text"
            || result.content[1].value("type", "") != "text")
            problem(QStringLiteral("content is not two text blocks"));
        else if (result.content[0].value("text", "") != structured.value("message", "")
            || json::parse(result.content[1].value("text", ""), nullptr, false) != structured)
            problem(QStringLiteral("the text blocks are not the message and the structuredContent"));

        const std::vector<Touch> all = touches();
        const std::vector<Touch> added(all.begin() + qsizetype(touchesBefore), all.end());
        const bool isClone = name == QLatin1String("git_clone_repository");
        if (isClone && (!structured.contains("local_path_created")))
            problem(QStringLiteral("no local_path_created"));
        if (result.isError) {
            if (isClone && !structured.value("local_path_created", json(0)).is_null())
                problem(QStringLiteral("a failed clone names a created path"));
            // A diverged pull reports that it fetched; every other failure touches nothing.
            if (!added.empty() && name != QLatin1String("git_pull"))
                problem(QStringLiteral("a failed call told the watcher the repository was touched"));
            return;
        }
        const QString path = str(structured.value(isClone ? "local_path_created" : "repo_path", json()));
        if (path.isEmpty() || QFileInfo(path).canonicalFilePath() != path)
            problem(QStringLiteral("the repository path %1 is not canonical").arg(path));
        if (added.size() != 1) {
            problem(QStringLiteral("the watcher was told %1 times, not once").arg(added.size()));
            return;
        }
        if (added.front().repository != path || added.front().callId != callId
            || added.front().changed == isReadTool(name))
            problem(QStringLiteral("the watcher was told (%1, %2, %3)")
                        .arg(added.front().repository)
                        .arg(added.front().callId)
                        .arg(added.front().changed));
    }

    // A clone of the remote made with the git program, at <root>/<name>.
    void cloneWithGit(const QString& name, QString* path)
    {
        *path = rootPath(name);
        GIT_OK(m_root, "clone", "-q", m_remote, *path);
    }

    // Commits `content` to `file` in `repository` with the git program and returns the commit id.
    void commitWithGit(const QString& repository, const QString& file, const QByteArray& content,
        const QString& message, QString* commit)
    {
        QVERIFY(writeFile(repository + QLatin1Char('/') + file, content));
        GIT_OK(repository, "add", "--", file);
        GIT_OK(repository, "commit", "-q", "-m", message);
        GIT_OUT(head, repository, "rev-parse", "HEAD");
        *commit = head;
    }

    QString remoteRef(const QString& ref)
    {
        const GitRun run = git(m_remote, "rev-parse", "--verify", "-q", ref);
        return run.code == 0 ? run.output() : QString();
    }

    // Repositories the refusal tests aim at: outside the root, in its prefix sibling, and the ways
    // the root's own entries lead out of it.
    void makeEscapeFixtures()
    {
        GIT_OK(m_workPath, "clone", "-q", m_remote, m_outside + QStringLiteral("/repo"));
        GIT_OK(m_workPath, "clone", "-q", m_remote, m_evil + QStringLiteral("/repo"));
        QVERIFY(writeFile(m_outside + QStringLiteral("/repo/a.txt"), "changed outside\n"));
        QVERIFY(writeFile(m_evil + QStringLiteral("/repo/a.txt"), "changed in the sibling\n"));
        QVERIFY(QFile::link(m_outside + QStringLiteral("/repo"), rootPath(QStringLiteral("link"))));
        QVERIFY(writeFile(
            rootPath(QStringLiteral("gitfile/.git")), "gitdir: " + QFile::encodeName(m_outside) + "/repo/.git\n"));
        QVERIFY(writeFile(rootPath(QStringLiteral("gitfile/a.txt")), "one\n"));
        QVERIFY(QDir().mkpath(rootPath(QStringLiteral("gitlink"))));
        QVERIFY(QFile::link(m_outside + QStringLiteral("/repo/.git"), rootPath(QStringLiteral("gitlink/.git"))));
        QVERIFY(copyTree(m_template, m_outside + QStringLiteral("/remote.git")));
    }

    // Outside the root: a repository with data of its own (a commit the root's repositories lack,
    // as loose objects; the rest packed; its refs packed and loose), and files a config may name.
    void makeOutsideSecret(QString* secretGit, QString* secretHead)
    {
        const QString secret = m_outside + QStringLiteral("/secret");
        GIT_OK(m_workPath, "clone", "-q", m_remote, secret);
        GIT_OK(secret, "repack", "-q", "-a", "-d");
        SETUP(commitWithGit(
            secret, QStringLiteral("secret.txt"), "outside data\n", QStringLiteral("secret outside"), secretHead));
        GIT_OK(secret, "pack-refs", "--all", "--no-prune");
        GIT_OK(secret, "update-ref", "ORIG_HEAD", "HEAD");
        QVERIFY(writeFile(secret + QStringLiteral("/.git/extra.config"), "[user]\n\tname = Secret Person\n"));
        QVERIFY(writeFile(secret + QStringLiteral("/.git/ignored"), "*.txt\n"));
        QVERIFY(QDir().mkpath(secret + QStringLiteral("/.git/modules")));
        *secretGit = secret + QStringLiteral("/.git");
    }

    // A bare repository at `path` made with git fast-import: `commits` commits each changing a few
    // bytes of one large file (libgit2's local transport spends seconds on their deltas, on every
    // core, before it sends anything), and `files` small files in the last one (a checkout of that
    // many files takes a while).
    void makeLargeRemote(const QString& path, int commits, int blobBytes, int files)
    {
        GIT_OK(m_workPath, "init", "-q", "--bare", "-b", "main", path);
        QByteArray stream;
        QByteArray blob(blobBytes, Qt::Uninitialized);
        quint32 seed = 7;
        const auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
        for (char& byte : blob)
            byte = char(next() >> 24);
        QProcess importer;
        importer.setWorkingDirectory(path);
        importer.start(QStringLiteral("git"), {QStringLiteral("fast-import"), QStringLiteral("--quiet")});
        QVERIFY(importer.waitForStarted());
        for (int commit = 0; commit < commits; ++commit) {
            for (int change = 0; change < 20; ++change)
                blob[int(next() % quint32(blobBytes))] = char(next() >> 24);
            stream = "commit refs/heads/main\ncommitter A <a@example.invalid> "
                + QByteArray::number(1600000000 + commit) + " +0000\ndata 7\ncommit\n";
            stream += "M 100644 inline large.bin\ndata " + QByteArray::number(blob.size()) + '\n' + blob + '\n';
            if (commit == commits - 1) {
                for (int file = 0; file < files; ++file) {
                    const QByteArray content = "file " + QByteArray::number(file) + '\n';
                    stream += "M 100644 inline files/" + QByteArray::number(file / 100) + "/f"
                        + QByteArray::number(file) + ".txt\ndata " + QByteArray::number(content.size()) + '\n' + content
                        + '\n';
                }
            }
            stream += '\n';
            importer.write(stream);
            QVERIFY(importer.waitForBytesWritten(GitTimeoutMs) || importer.bytesToWrite() == 0);
        }
        importer.closeWriteChannel();
        QVERIFY(importer.waitForFinished(GitTimeoutMs));
        QVERIFY2(importer.exitCode() == 0, importer.readAllStandardError().constData());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        const QString home = QFileInfo(m_home.path()).canonicalFilePath();
        // The git program and libgit2 both read $HOME/.gitconfig (libgit2 from its first use on, so
        // this comes before any tool runs); neither reads /etc/gitconfig's surprises.
        QVERIFY(writeFile(home + QStringLiteral("/.gitconfig"),
            QByteArray("[user]\n\tname = ") + FixtureName + "\n\temail = " + FixtureEmail
                + "\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[protocol \"file\"]\n"
                  "\tallow = always\n"));
        qputenv("HOME", QFile::encodeName(home));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home + QStringLiteral("/.config")));
        qputenv("GIT_CONFIG_NOSYSTEM", "1");
        qputenv("GIT_TERMINAL_PROMPT", "0");
        qputenv("LC_ALL", "C");
        for (const char* variable :
            {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_GLOBAL", "GIT_OBJECT_DIRECTORY",
                "GIT_CEILING_DIRECTORIES", "ASSISTOS_FS_ROOT", "WORKSPACE_ROOT", "PLOINKY_WORKSPACE_ROOT"})
            qunsetenv(variable);
        const GitRun version = git(home, "--version");
        QVERIFY2(version.code == 0, "the git program is needed for the fixtures");

        // The template: main (initial ← second), feature (second ← feature work), release
        // (initial ← release work).
        const QString seed = home + QStringLiteral("/seed");
        GIT_OK(home, "init", "-q", "-b", "main", seed);
        QVERIFY(writeFile(seed + QStringLiteral("/README.md"), "hello\n"));
        QVERIFY(writeFile(seed + QStringLiteral("/a.txt"), "one\n"));
        QVERIFY(writeFile(seed + QStringLiteral("/c.txt"), "gamma\n"));
        QVERIFY(writeFile(seed + QStringLiteral("/d.txt"), "delta\n"));
        GIT_OK(seed, "add", ".");
        GIT_OK(seed, "commit", "-q", "-m", "initial");
        GIT_OUT(initial, seed, "rev-parse", "HEAD");
        m_initial = initial;
        SETUP(commitWithGit(seed, QStringLiteral("a.txt"), "one\ntwo\n", QStringLiteral("second"), &m_second));
        GIT_OK(seed, "checkout", "-q", "-b", "feature");
        QVERIFY(writeFile(seed + QStringLiteral("/feature.txt"), "feature\n"));
        GIT_OK(seed, "add", "feature.txt");
        SETUP(commitWithGit(
            seed, QStringLiteral("a.txt"), "one\ntwo\nfeature\n", QStringLiteral("feature work"), &m_feature));
        GIT_OK(seed, "checkout", "-q", "-b", "release", m_initial);
        SETUP(
            commitWithGit(seed, QStringLiteral("a.txt"), "one\nrelease\n", QStringLiteral("release work"), &m_release));
        GIT_OK(seed, "checkout", "-q", "main");
        m_template = home + QStringLiteral("/template.git");
        GIT_OK(home, "clone", "-q", "--bare", seed, m_template);
    }

    void init()
    {
        m_work = std::make_unique<QTemporaryDir>();
        QVERIFY(m_work->isValid());
        m_workPath = QFileInfo(m_work->path()).canonicalFilePath();
        m_root = m_workPath + QStringLiteral("/root");
        m_outside = m_workPath + QStringLiteral("/outside");
        m_evil = m_workPath + QStringLiteral("/root-evil");
        for (const QString& directory : {m_root, m_outside, m_evil})
            QVERIFY(QDir().mkpath(directory));
        m_remote = rootPath(QStringLiteral("remote.git"));
        QVERIFY(copyTree(m_template, m_remote));
        {
            const std::lock_guard lock(m_touchMutex);
            m_touches.clear();
        }
        m_notifications.clear();
        m_problems.clear();
        m_callStarting = nullptr;
        m_environment = makeEnvironment({m_root}, GitUrlPolicy(GitUrlPolicy::defaultSchemes(), true));
    }

    void cleanup()
    {
        m_environment.reset();
        QVERIFY2(m_problems.isEmpty(), qPrintable(m_problems.join(QStringLiteral("\n\n"))));
        QVERIFY2(!QFileInfo::exists(m_workPath + QStringLiteral("/pwned")), "a command in a URL ran");
        m_work.reset();
    }

    // --- clone ---------------------------------------------------------------------------------

    void cloneRepository_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("branch");
        QTest::addColumn<QString>("localPath");
        QTest::addColumn<QString>("precreate"); // a directory made before the clone
        QTest::addColumn<QString>("expected"); // the canonical path of the clone

        QTest::newRow("file:// URL") << QStringLiteral("file://{REMOTE}") << QString()
                                     << QStringLiteral("{ROOT}/viafile") << QString()
                                     << QStringLiteral("{ROOT}/viafile");
        QTest::newRow("absolute path") << QStringLiteral("{REMOTE}") << QString() << QStringLiteral("{ROOT}/viapath")
                                       << QString() << QStringLiteral("{ROOT}/viapath");
        QTest::newRow("branch_name") << QStringLiteral("file://{REMOTE}") << QStringLiteral("feature")
                                     << QStringLiteral("{ROOT}/onfeature") << QString()
                                     << QStringLiteral("{ROOT}/onfeature");
        QTest::newRow("relative local_path") << QStringLiteral("{REMOTE}") << QString() << QStringLiteral("relative")
                                             << QString() << QStringLiteral("{ROOT}/relative");
        QTest::newRow("existing empty directory")
            << QStringLiteral("{REMOTE}") << QString() << QStringLiteral("{ROOT}/empty")
            << QStringLiteral("{ROOT}/empty") << QStringLiteral("{ROOT}/empty");
        QTest::newRow("through a link inside the root")
            << QStringLiteral("{REMOTE}") << QString() << QStringLiteral("{ROOT}/alias/x")
            << QStringLiteral("{ROOT}/real") << QStringLiteral("{ROOT}/real/x");
    }

    void cloneRepository()
    {
        QFETCH(QString, url);
        QFETCH(QString, branch);
        QFETCH(QString, localPath);
        QFETCH(QString, precreate);
        QFETCH(QString, expected);
        url = expand(url);
        localPath = expand(localPath);
        expected = expand(expected);
        if (!precreate.isEmpty())
            QVERIFY(QDir().mkpath(expand(precreate)));
        if (qstrcmp(QTest::currentDataTag(), "through a link inside the root") == 0)
            QVERIFY(QFile::link(rootPath(QStringLiteral("real")), rootPath(QStringLiteral("alias"))));

        json arguments{{"repository_url", url.toStdString()}, {"local_path", localPath.toStdString()}};
        if (!branch.isEmpty())
            arguments["branch_name"] = branch.toStdString();
        ToolResult result = callIn(m_environment, QStringLiteral("git_clone_repository"), arguments, "clone-1");
        VERIFY_SUCCESS(result);
        QCOMPARE(keysOf(result.structuredContent),
            QStringList({QStringLiteral("local_path_created"), QStringLiteral("message"), QStringLiteral("status")}));
        QCOMPARE(str(result.structuredContent["status"]), QStringLiteral("success"));
        QCOMPARE(str(result.structuredContent["local_path_created"]), expected);
        QVERIFY2(messageOf(result).contains(expected), qPrintable(messageOf(result)));

        // What git says of the clone: the branch asked for (or the remote's default) at the
        // remote's commit, tracking origin, the whole tree checked out, and the URL as given.
        const QString expectedBranch = branch.isEmpty() ? QStringLiteral("main") : branch;
        GIT_OUT(head, expected, "rev-parse", "HEAD");
        QCOMPARE(head, branch.isEmpty() ? m_second : m_feature);
        GIT_OUT(current, expected, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(current, expectedBranch);
        GIT_OUT(upstream, expected, "rev-parse", "--abbrev-ref", "@{upstream}");
        QCOMPARE(upstream, QStringLiteral("origin/") + expectedBranch);
        GIT_OUT(status, expected, "status", "--porcelain");
        QCOMPARE(status, QString());
        GIT_OUT(storedUrl, expected, "config", "remote.origin.url");
        QCOMPARE(storedUrl, url);
        GIT_OUT(remoteBranches, expected, "for-each-ref", "--format=%(refname)", "refs/remotes/origin/feature",
            "refs/remotes/origin/main", "refs/remotes/origin/release");
        QCOMPARE(remoteBranches.split(QLatin1Char('\n')).size(), 3);
        QCOMPARE(readFile(expected + QStringLiteral("/a.txt")),
            QByteArray(branch.isEmpty() ? "one\ntwo\n" : "one\ntwo\nfeature\n"));
        QCOMPARE(QFileInfo::exists(expected + QStringLiteral("/feature.txt")), !branch.isEmpty());

        // Progress went to the client that asked for it.
        QVERIFY(!m_notifications.empty());
        for (const json& notification : m_notifications) {
            QCOMPARE(str(notification.value("method", json())), QStringLiteral("notifications/progress"));
            COMPARE_JSON(notification["params"]["progressToken"], json("clone-1"));
        }
    }

    void cloneIntoOccupiedDestinationChangesNothing_data()
    {
        QTest::addColumn<bool>("cloneFirst");
        QTest::addColumn<QString>("localPath");

        QTest::newRow("a second clone into the same path") << true << QStringLiteral("{ROOT}/twice");
        QTest::newRow("a directory with files") << false << QStringLiteral("{ROOT}/occupied");
        QTest::newRow("a directory with only a hidden file") << false << QStringLiteral("{ROOT}/hidden");
        QTest::newRow("relative, a directory with files") << false << QStringLiteral("occupied");
    }

    void cloneIntoOccupiedDestinationChangesNothing()
    {
        QFETCH(bool, cloneFirst);
        QFETCH(QString, localPath);
        const json arguments{
            {"repository_url", m_remote.toStdString()}, {"local_path", expand(localPath).toStdString()}};
        if (cloneFirst) {
            VERIFY_SUCCESS(call(QStringLiteral("git_clone_repository"), arguments));
        } else if (localPath.endsWith(QLatin1String("hidden"))) {
            QVERIFY(writeFile(rootPath(QStringLiteral("hidden/.keep")), ""));
        } else {
            QVERIFY(writeFile(rootPath(QStringLiteral("occupied/keep.txt")), "precious\n"));
            QVERIFY(writeFile(rootPath(QStringLiteral("occupied/.hidden")), "also precious\n"));
            QVERIFY(writeFile(rootPath(QStringLiteral("occupied/sub/deep.bin")), QByteArray("\0\1\2\3\xff", 5)));
        }
        const Snapshot before = snapshot(m_root);
        const std::size_t touchesBefore = touches().size();

        ToolResult result = call(QStringLiteral("git_clone_repository"), arguments);
        VERIFY_FAILURE(result, QLatin1String("Destination path already exists and is not an empty directory"));
        QCOMPARE(keysOf(result.structuredContent),
            QStringList({QStringLiteral("local_path_created"), QStringLiteral("message"), QStringLiteral("status")}));
        QCOMPARE(str(result.structuredContent["status"]), QStringLiteral("failure"));
        QVERIFY(result.structuredContent["local_path_created"].is_null());
        const QString difference = snapshotDifference(before, snapshot(m_root));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QCOMPARE(touches().size(), touchesBefore);
    }

    void cloneFailureLeavesNothing_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("branch");
        QTest::addColumn<QString>("localPath"); // below the root
        QTest::addColumn<bool>("precreate"); // the destination exists (empty) before the clone
        QTest::addColumn<QString>("fragment");

        const QString dest = QStringLiteral("dest");
        const QString nested = QStringLiteral("new/deeper/dest");
        const QString notFound = QStringLiteral("Repository not found");
        const QString noBranch = QStringLiteral("Branch \"nope\" was not found");
        QTest::newRow("missing repository")
            << QStringLiteral("{ROOT}/missing.git") << QString() << dest << false << QStringLiteral("does not exist");
        QTest::newRow("missing repository, file:// URL") << QStringLiteral("file://{ROOT}/missing.git") << QString()
                                                         << dest << false << QStringLiteral("does not exist");
        QTest::newRow("a directory that is no repository")
            << QStringLiteral("{ROOT}/plain") << QString() << dest << false << notFound;
        QTest::newRow("a directory that is no repository, into an empty directory")
            << QStringLiteral("file://{ROOT}/plain") << QString() << dest << true << notFound;
        QTest::newRow("a directory that is no repository, into new directories")
            << QStringLiteral("{ROOT}/plain") << QString() << nested << false << notFound;
        QTest::newRow("missing branch") << QStringLiteral("{REMOTE}") << QStringLiteral("nope") << dest << false
                                        << noBranch;
        QTest::newRow("missing branch, into an empty directory")
            << QStringLiteral("file://{REMOTE}") << QStringLiteral("nope") << dest << true << noBranch;
        QTest::newRow("missing branch, into new directories")
            << QStringLiteral("{REMOTE}") << QStringLiteral("nope") << nested << false << noBranch;
    }

    void cloneFailureLeavesNothing()
    {
        QFETCH(QString, url);
        QFETCH(QString, branch);
        QFETCH(QString, localPath);
        QFETCH(bool, precreate);
        QFETCH(QString, fragment);
        QVERIFY(writeFile(rootPath(QStringLiteral("plain/file.txt")), "not a repository\n"));
        const QString destination = rootPath(localPath);
        if (precreate)
            QVERIFY(QDir().mkpath(destination));
        const Snapshot before = snapshot(m_root);

        json arguments{{"repository_url", expand(url).toStdString()}, {"local_path", destination.toStdString()}};
        if (!branch.isEmpty())
            arguments["branch_name"] = branch.toStdString();
        ToolResult result = call(QStringLiteral("git_clone_repository"), arguments);
        VERIFY_FAILURE(result, fragment);
        QVERIFY(result.structuredContent["local_path_created"].is_null());
        QCOMPARE(QFileInfo::exists(destination), precreate);
        const QString difference = snapshotDifference(before, snapshot(m_root));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    // A clone from a local remote past its deadline (the executor cancels the call then): it stops
    // within seconds, not after libgit2 has packed and written everything, and leaves nothing
    // behind; or it was done by then, whole. (libgit2's local transport built a pack on every core,
    // with a delta search no cancellation stops: 40 s past a 2 s deadline.)
    void localCloneStopsAtItsDeadline()
    {
        const QString remote = rootPath(QStringLiteral("large.git"));
        SETUP(makeLargeRemote(remote, 400, 512 * 1024, 3000));
        const QString destination = rootPath(QStringLiteral("dest"));
        static constexpr int DeadlineMs = 1000;
        QElapsedTimer clock;
        std::thread deadline;
        std::atomic<qint64> cancelledAt{-1};
        m_callStarting = [&](const std::shared_ptr<ToolCallContext>& context) {
            clock.start();
            deadline = std::thread([context, &clock, &cancelledAt] {
                std::this_thread::sleep_for(std::chrono::milliseconds(DeadlineMs)); // the deadline itself
                cancelledAt = clock.elapsed();
                context->cancel();
            });
        };
        const ToolResult result = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", QString(QStringLiteral("file://") + remote).toStdString()},
                {"local_path", destination.toStdString()}});
        const qint64 returnedAt = clock.elapsed();
        deadline.join();
        QVERIFY2(returnedAt < DeadlineMs + 4000,
            qPrintable(QStringLiteral("returned %1 ms after its deadline: %2")
                           .arg(returnedAt - DeadlineMs)
                           .arg(describe(result))));
        if (result.isError) {
            QVERIFY2(messageOf(result).contains(QLatin1String("cancelled")), qPrintable(describe(result)));
            QVERIFY(!QFileInfo::exists(destination));
        } else {
            QVERIFY2(returnedAt <= cancelledAt || cancelledAt < 0, "a clone past its deadline succeeded");
            GIT_OUT(status, destination, "status", "--porcelain");
            QCOMPARE(status, QString());
        }
        QCOMPARE(QDir(m_root).entryList({QStringLiteral(".switchboard-clone-*")}, QDir::AllEntries | QDir::Hidden),
            QStringList());
    }

    // The same for a pull from a local remote that fetches much: back soon after its deadline.
    void localPullStopsAtItsDeadline()
    {
        const QString remote = rootPath(QStringLiteral("large.git"));
        SETUP(makeLargeRemote(remote, 400, 512 * 1024, 3000));
        const QString local = rootPath(QStringLiteral("local"));
        GIT_OK(m_root, "init", "-q", "-b", "main", local);
        GIT_OK(local, "remote", "add", "origin", remote);
        static constexpr int DeadlineMs = 1000;
        QElapsedTimer clock;
        std::thread deadline;
        m_callStarting = [&](const std::shared_ptr<ToolCallContext>& context) {
            clock.start();
            deadline = std::thread([context] {
                std::this_thread::sleep_for(std::chrono::milliseconds(DeadlineMs)); // the deadline itself
                context->cancel();
            });
        };
        const ToolResult result = call(QStringLiteral("git_pull"), json{{"repo_path", local.toStdString()}});
        const qint64 returnedAt = clock.elapsed();
        deadline.join();
        QVERIFY2(returnedAt < DeadlineMs + 4000,
            qPrintable(QStringLiteral("returned %1 ms after its deadline: %2")
                           .arg(returnedAt - DeadlineMs)
                           .arg(describe(result))));
        if (result.isError) {
            QVERIFY2(messageOf(result).contains(QLatin1String("cancelled")), qPrintable(describe(result)));
        } else {
            GIT_OUT(status, local, "status", "--porcelain");
            QCOMPARE(status, QString());
        }
    }

    // A clone cancelled while libgit2 writes its working tree stops there (libgit2's checkout has
    // no way to be stopped; every file it writes passes the registered filters) and leaves nothing.
    void cloneCancelledDuringItsCheckoutStops()
    {
        const QString remote = rootPath(QStringLiteral("files.git"));
        SETUP(makeLargeRemote(remote, 1, 1024, 5000));
        const QString destination = rootPath(QStringLiteral("dest"));
        std::thread watcher;
        std::atomic<bool> done{false};
        QElapsedTimer cancelled;
        m_callStarting = [&](const std::shared_ptr<ToolCallContext>& context) {
            // The first file of the working tree in the staging directory: cancel.
            watcher = std::thread([this, context, &done, &cancelled] {
                while (!done) {
                    const QStringList staging = QDir(m_root).entryList(
                        {QStringLiteral(".switchboard-clone-*")}, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
                    if (!staging.isEmpty()
                        && QFileInfo::exists(m_root + QLatin1Char('/') + staging.first() + QStringLiteral("/files"))) {
                        cancelled.start();
                        context->cancel();
                        return;
                    }
                    std::this_thread::yield();
                }
            });
        };
        const ToolResult result = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", remote.toStdString()}, {"local_path", destination.toStdString()}});
        done = true;
        watcher.join();
        QVERIFY2(cancelled.isValid(), "the checkout was never seen");
        QVERIFY2(result.isError, qPrintable(describe(result)));
        QVERIFY2(messageOf(result).contains(QLatin1String("cancelled")), qPrintable(describe(result)));
        QVERIFY2(cancelled.elapsed() < 5000, qPrintable(QString::number(cancelled.elapsed())));
        QVERIFY(!QFileInfo::exists(destination));
        QCOMPARE(QDir(m_root).entryList({QStringLiteral(".switchboard-clone-*")}, QDir::AllEntries | QDir::Hidden),
            QStringList());
    }

    // A clone killed with its process (kill -9) leaves only its staging directory, named with the
    // process id: the next clone into the same folder removes it once that process is gone, and
    // leaves a running process's alone.
    void cloneRemovesStagingLeftByDeadProcesses()
    {
        // A process id no process has: from the top of the range down.
        QFile pidMax(QStringLiteral("/proc/sys/kernel/pid_max"));
        QVERIFY(pidMax.open(QIODevice::ReadOnly));
        qint64 deadPid = pidMax.readAll().trimmed().toLongLong() - 1;
        while (deadPid > 300 && !(::kill(pid_t(deadPid), 0) != 0 && errno == ESRCH))
            --deadPid;
        QVERIFY(deadPid > 300);
        QProcess running;
        running.start(QStringLiteral("sleep"), {QStringLiteral("60")});
        QVERIFY(running.waitForStarted());
        const auto stop = qScopeGuard([&] {
            running.kill();
            running.waitForFinished();
        });
        const QString folder = rootPath(QStringLiteral("staged"));
        const QString dead = folder + QStringLiteral("/.switchboard-clone-%1-0badf00d-killed").arg(deadPid);
        const QString alive
            = folder + QStringLiteral("/.switchboard-clone-%1-0badf00d-running").arg(running.processId());
        QVERIFY(writeFile(dead + QStringLiteral("/.git/HEAD"), "ref: refs/heads/main\n"));
        QVERIFY(writeFile(alive + QStringLiteral("/.git/HEAD"), "ref: refs/heads/main\n"));
        const QString destination = folder + QStringLiteral("/killed");
        VERIFY_SUCCESS(call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", m_remote.toStdString()}, {"local_path", destination.toStdString()}}));
        QVERIFY(QFileInfo::exists(destination + QStringLiteral("/.git/HEAD")));
        QVERIFY(!QFileInfo::exists(dead));
        QVERIFY(QFileInfo::exists(alive));
        // Nothing else is left beside the clone.
        QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
            QStringList({QFileInfo(alive).fileName(), QStringLiteral("killed")}));
    }

    // A local remote is opened as it is named, never by searching upwards: a directory inside the
    // root that is no repository must not lead to an enclosing repository outside the roots.
    void cloneOfDirectoryInsideOutsideRepositoryIsRefused()
    {
        const QString enclosing = m_outside + QStringLiteral("/enclosing");
        GIT_OK(m_workPath, "clone", "-q", m_remote, enclosing);
        const QString root = enclosing + QStringLiteral("/root");
        QVERIFY(writeFile(root + QStringLiteral("/notrepo/file.txt"), "inside the root\n"));
        const auto environment = makeEnvironment({root}, GitUrlPolicy(GitUrlPolicy::defaultSchemes(), true));
        const QString destination = root + QStringLiteral("/dest");

        for (const QString& url : QStringList{root + QStringLiteral("/notrepo"), QStringLiteral("file://") + root}) {
            ToolResult result = callIn(environment, QStringLiteral("git_clone_repository"),
                json{{"repository_url", url.toStdString()}, {"local_path", destination.toStdString()}});
            QVERIFY2(result.isError, qPrintable(describe(result)));
            QVERIFY(!QFileInfo::exists(destination));
        }
    }

    // --- read tools ----------------------------------------------------------------------------

    void status()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const json arguments{{"repo_path", clone.toStdString()}};

        ToolResult result = call(QStringLiteral("git_status"), arguments);
        VERIFY_SUCCESS(result);
        json fields = result.structuredContent;
        QCOMPARE(messageOf(result),
            QStringLiteral("On branch main: nothing to commit, working tree clean. 0 ahead, 0 behind origin/main."));
        QCOMPARE(str(fields["repo_path"]), clone);
        QCOMPARE(str(fields["branch"]), QStringLiteral("main"));
        COMPARE_JSON(fields["detached"], json(false));
        QCOMPARE(str(fields["head"]), m_second);
        QCOMPARE(str(fields["upstream"]), QStringLiteral("origin/main"));
        COMPARE_JSON(fields["ahead"], json(0));
        COMPARE_JSON(fields["behind"], json(0));
        COMPARE_JSON(fields["clean"], json(true));
        COMPARE_JSON(fields["porcelain"], json::array());

        // Ahead after a local commit; behind too once another clone's push is fetched.
        QString local;
        SETUP(commitWithGit(clone, QStringLiteral("c.txt"), "gamma\nlocal\n", QStringLiteral("local"), &local));
        result = call(QStringLiteral("git_status"), arguments);
        VERIFY_SUCCESS(result);
        COMPARE_JSON(result.structuredContent["ahead"], json(1));
        COMPARE_JSON(result.structuredContent["behind"], json(0));
        QCOMPARE(str(result.structuredContent["head"]), local);
        QString other;
        SETUP(cloneWithGit(QStringLiteral("other"), &other));
        QString pushed;
        SETUP(commitWithGit(other, QStringLiteral("e.txt"), "pushed\n", QStringLiteral("pushed"), &pushed));
        GIT_OK(other, "push", "-q", "origin", "main");
        GIT_OK(clone, "fetch", "-q");
        result = call(QStringLiteral("git_status"), arguments);
        VERIFY_SUCCESS(result);
        GIT_OUT(counts, clone, "rev-list", "--left-right", "--count", "main...origin/main");
        QCOMPARE(counts, QStringLiteral("1\t1"));
        COMPARE_JSON(result.structuredContent["ahead"], json(1));
        COMPARE_JSON(result.structuredContent["behind"], json(1));
        QVERIFY2(messageOf(result).endsWith(QLatin1String(" 1 ahead, 1 behind origin/main.")),
            qPrintable(messageOf(result)));

        // Every kind of change at once: a staged rename, staged and unstaged changes to one file, a
        // staged addition, an unstaged and a staged deletion, and untracked files and a directory.
        GIT_OK(clone, "mv", "README.md", "README.rst");
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "one\ntwo\nstaged\n"));
        GIT_OK(clone, "add", "a.txt");
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "one\ntwo\nstaged\nunstaged\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/b.txt"), "bee\n"));
        GIT_OK(clone, "add", "b.txt");
        QVERIFY(QFile::remove(clone + QStringLiteral("/c.txt")));
        GIT_OK(clone, "rm", "-q", "d.txt");
        QVERIFY(writeFile(clone + QStringLiteral("/dir/x.txt"), "x\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/dir/y.txt"), "y\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/a[1].txt"), "glob\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/f.txt"), "f\n"));
        // Names git's porcelain quotes: a space, a double quote, a byte beyond ASCII.
        QVERIFY(writeFile(clone + QStringLiteral("/sp ace.txt"), "space\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/qu\"ote.txt"), "quote\n"));
        GIT_OK(clone, "add", "qu\"ote.txt");
        QVERIFY(writeFile(clone + QString::fromUtf8("/\xc3\xa9.txt"), "accent\n"));

        result = call(QStringLiteral("git_status"), arguments);
        VERIFY_SUCCESS(result);
        fields = result.structuredContent;
        const GitRun porcelain = git(clone, "status", "--porcelain");
        QVERIFY2(porcelain.code == 0, qPrintable(porcelain.describe()));
        QCOMPARE(stringList(fields["porcelain"]), porcelain.lines());
        QCOMPARE(entryList(fields["staged"]),
            sorted({QStringLiteral("renamed README.rst <- README.md"), QStringLiteral("modified a.txt"),
                QStringLiteral("added b.txt"), QStringLiteral("deleted d.txt"), QStringLiteral("added qu\"ote.txt")}));
        QCOMPARE(
            entryList(fields["unstaged"]), sorted({QStringLiteral("modified a.txt"), QStringLiteral("deleted c.txt")}));
        QCOMPARE(stringList(fields["untracked"]),
            QStringList({QStringLiteral("a[1].txt"), QStringLiteral("dir/"), QStringLiteral("f.txt"),
                QStringLiteral("sp ace.txt"), QString::fromUtf8("\xc3\xa9.txt")}));
        COMPARE_JSON(fields["conflicted"], json::array());
        COMPARE_JSON(fields["clean"], json(false));
        COMPARE_JSON(fields["truncated"], json(false));
        QCOMPARE(messageOf(result),
            QStringLiteral("On branch main: 5 staged, 2 unstaged, 5 untracked, 0 conflicted. 1 ahead, 1 behind "
                           "origin/main."));
    }

    // A merge that stopped on a conflict: the conflicted path as git shows it, and no commit on top.
    void statusDuringMergeConflict()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(writeFile(clone + QStringLiteral("/c.txt"), "gamma\nmerged cleanly\n"));
        GIT_OK(clone, "commit", "-q", "-am", "change c");
        QVERIFY(git(clone, "merge", "-q", "origin/release").code != 0);
        QVERIFY(writeFile(clone + QStringLiteral("/u.txt"), "untracked\n"));
        const std::string path = clone.toStdString();

        ToolResult result = call(QStringLiteral("git_status"), json{{"repo_path", path}});
        VERIFY_SUCCESS(result);
        const GitRun porcelain = git(clone, "status", "--porcelain");
        QVERIFY2(porcelain.code == 0, qPrintable(porcelain.describe()));
        QCOMPARE(stringList(result.structuredContent["porcelain"]), porcelain.lines());
        QCOMPARE(entryList(result.structuredContent["conflicted"]), QStringList{QStringLiteral("UU a.txt")});
        QCOMPARE(stringList(result.structuredContent["untracked"]), QStringList{QStringLiteral("u.txt")});
        COMPARE_JSON(result.structuredContent["clean"], json(false));

        GIT_OUT(head, clone, "rev-parse", "HEAD");
        VERIFY_FAILURE(call(QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "merge"}}),
            QLatin1String("in the middle of a merge"));
        VERIFY_FAILURE(
            call(QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "merge"}, {"files", {"a.txt"}}}),
            QLatin1String("in the middle of a merge"));
        GIT_OUT(unchanged, clone, "rev-parse", "HEAD");
        QCOMPARE(unchanged, head);
        GIT_OUT(stillConflicted, clone, "diff", "--name-only", "--diff-filter=U");
        QCOMPARE(stillConflicted, QStringLiteral("a.txt"));
    }

    void log()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        ToolResult result = call(QStringLiteral("git_log"), json{{"repo_path", clone.toStdString()}});
        VERIFY_SUCCESS(result);
        json commits = result.structuredContent["commits"];
        QStringList ids;
        for (const json& commit : commits)
            ids << str(commit.value("id", json()));
        GIT_OUT(all, clone, "rev-list", "HEAD");
        QCOMPARE(ids, all.split(QLatin1Char('\n')));
        QCOMPARE(ids, QStringList({m_second, m_initial}));
        QCOMPARE(messageOf(result), QStringLiteral("2 commit(s) from HEAD."));
        json newest = commits[0];
        QCOMPARE(str(newest["short_id"]), m_second.left(7));
        QCOMPARE(str(newest["summary"]), QStringLiteral("second"));
        QCOMPARE(str(newest["message"]), QStringLiteral("second\n"));
        QCOMPARE(str(newest["author"]["name"]), QString::fromUtf8(FixtureName));
        QCOMPARE(str(newest["author"]["email"]), QString::fromUtf8(FixtureEmail));
        GIT_OUT(date, clone, "log", "-1", "--format=%aI", m_second);
        QCOMPARE(str(newest["author"]["date"]), date);
        QCOMPARE(stringList(newest["parents"]), QStringList{m_initial});
        COMPARE_JSON(commits[1]["parents"], json::array());

        result = call(QStringLiteral("git_log"), json{{"repo_path", clone.toStdString()}, {"max_count", 1}});
        VERIFY_SUCCESS(result);
        QCOMPARE(result.structuredContent["commits"].size(), std::size_t(1));
        QCOMPARE(str(result.structuredContent["commits"][0]["id"]), m_second);

        for (const QString& revision : {QStringLiteral("origin/feature"), QStringLiteral("origin/release"),
                 QStringLiteral("HEAD~1"), m_feature.left(10)}) {
            result = call(QStringLiteral("git_log"),
                json{{"repo_path", clone.toStdString()}, {"revision", revision.toStdString()}});
            VERIFY_SUCCESS(result);
            GIT_OUT(expected, clone, "rev-list", revision);
            QStringList got;
            for (const json& commit : result.structuredContent["commits"])
                got << str(commit.value("id", json()));
            QCOMPARE(got, expected.split(QLatin1Char('\n')));
        }

        result = call(QStringLiteral("git_log"), json{{"repo_path", clone.toStdString()}, {"revision", "nope"}});
        VERIFY_FAILURE(result, QLatin1String("revision \"nope\" names no commit"));
    }

    void diff()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "one\ntwo\nthree\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/b.txt"), "bee\n"));
        GIT_OK(clone, "add", "b.txt");
        QVERIFY(writeFile(clone + QStringLiteral("/d.txt"), "delta\nchanged\n"));
        const std::string path = clone.toStdString();

        // Unstaged: the working tree against the index.
        ToolResult result = call(QStringLiteral("git_diff"), json{{"repo_path", path}});
        VERIFY_SUCCESS(result);
        GIT_OUT(unstaged, clone, "diff", "--numstat");
        QCOMPARE(numstat(result.structuredContent["files"]), sorted(unstaged.split(QLatin1Char('\n'))));
        QCOMPARE(entryList(result.structuredContent["files"]),
            QStringList({QStringLiteral("modified a.txt"), QStringLiteral("modified d.txt")}));
        COMPARE_JSON(
            result.structuredContent["stats"], (json{{"files_changed", 2}, {"insertions", 2}, {"deletions", 0}}));
        GIT_OUT(unstagedPatch, clone, "diff");
        QCOMPARE(str(result.structuredContent["diff"]), unstagedPatch + QLatin1Char('\n'));
        COMPARE_JSON(result.structuredContent["truncated"], json(false));
        QCOMPARE(messageOf(result), QStringLiteral("2 file(s) differ in unstaged changes."));

        // Staged: the index against HEAD.
        result = call(QStringLiteral("git_diff"), json{{"repo_path", path}, {"staged", true}});
        VERIFY_SUCCESS(result);
        QCOMPARE(entryList(result.structuredContent["files"]), QStringList{QStringLiteral("added b.txt")});
        GIT_OUT(stagedPatch, clone, "diff", "--cached");
        QCOMPARE(str(result.structuredContent["diff"]), stagedPatch + QLatin1Char('\n'));

        // The working tree against a revision, whole and limited to paths.
        result = call(QStringLiteral("git_diff"), json{{"repo_path", path}, {"target", "HEAD~1"}});
        VERIFY_SUCCESS(result);
        GIT_OUT(againstInitial, clone, "diff", "--numstat", "HEAD~1");
        QCOMPARE(numstat(result.structuredContent["files"]), sorted(againstInitial.split(QLatin1Char('\n'))));
        COMPARE_JSON(result.structuredContent["stats"]["files_changed"], json(3));
        result = call(QStringLiteral("git_diff"),
            json{{"repo_path", path}, {"target", m_initial.toStdString()}, {"paths", {"a.txt"}}});
        VERIFY_SUCCESS(result);
        QCOMPARE(numstat(result.structuredContent["files"]), QStringList{QStringLiteral("2\t0\ta.txt")});
        result
            = call(QStringLiteral("git_diff"), json{{"repo_path", path}, {"paths", {clone.toStdString() + "/d.txt"}}});
        VERIFY_SUCCESS(result);
        QCOMPARE(entryList(result.structuredContent["files"]), QStringList{QStringLiteral("modified d.txt")});

        // Nothing to show, and a question that makes no sense.
        result = call(QStringLiteral("git_diff"), json{{"repo_path", path}, {"paths", {"c.txt"}}});
        VERIFY_SUCCESS(result);
        COMPARE_JSON(result.structuredContent["files"], json::array());
        QCOMPARE(str(result.structuredContent["diff"]), QString());
        QCOMPARE(messageOf(result), QStringLiteral("No differences in unstaged changes."));
        result = call(QStringLiteral("git_diff"), json{{"repo_path", path}, {"staged", true}, {"target", "HEAD"}});
        VERIFY_FAILURE(result, QLatin1String("not both"));
    }

    // A change far larger than the answer: memory follows the answer, not the change. A 40 MB file
    // rewritten took about 300 MB to diff for an answer cut at 1 MiB (three such calls at once,
    // three times that); it is now listed as too large to compare line by line. Many files
    // changed give a patch cut at 1 MiB that says so, with the totals of the whole change.
    void diffOfALargeChangeIsBounded()
    {
        const QString repository = rootPath(QStringLiteral("large"));
        GIT_OK(m_root, "init", "-q", "-b", "main", repository);
        const auto lines = [](const char* word, int count) {
            QByteArray text;
            for (int line = 0; line < count; ++line)
                text += word + QByteArray::number(line) + ' ' + QByteArray(50, 'x') + '\n';
            return text;
        };
        QVERIFY(writeFile(repository + QStringLiteral("/big.txt"), lines("line ", 650'000)));
        for (int file = 0; file < 100; ++file)
            QVERIFY(writeFile(repository + QStringLiteral("/small/f%1.txt").arg(file), lines("line ", 400)));
        GIT_OK(repository, "add", ".");
        GIT_OK(repository, "commit", "-q", "-m", "base");
        QVERIFY(writeFile(repository + QStringLiteral("/big.txt"), lines("LINE ", 650'000)));
        for (int file = 0; file < 100; ++file)
            QVERIFY(writeFile(repository + QStringLiteral("/small/f%1.txt").arg(file), lines("LINE ", 400)));
        QVERIFY(QFileInfo(repository + QStringLiteral("/big.txt")).size() > 40'000'000);

        // The peak of this process's resident memory, from now on (Linux resets it on "5").
        QFile clearRefs(QStringLiteral("/proc/self/clear_refs"));
        QVERIFY(clearRefs.open(QIODevice::WriteOnly));
        QCOMPARE(clearRefs.write("5"), qint64(1));
        clearRefs.close();
        const qint64 before = processStatusBytes("VmRSS");

        const ToolResult result = call(QStringLiteral("git_diff"), json{{"repo_path", repository.toStdString()}});
        const qint64 grown = processStatusBytes("VmHWM") - before;
        VERIFY_SUCCESS(result);
        QVERIFY2(
            grown < 64 * 1024 * 1024, qPrintable(QStringLiteral("the diff took %1 MiB").arg(grown / (1024 * 1024))));
        const json& fields = result.structuredContent;
        QVERIFY(result.toJson().dump().size() < 3 * 1024 * 1024);
        COMPARE_JSON(fields["truncated"], json(true));
        QVERIFY(str(fields["diff"]).toUtf8().size() <= 1024 * 1024);
        QVERIFY2(messageOf(result).contains(QLatin1String("The patch is cut at 1024 KiB"))
                && messageOf(result).contains(QLatin1String("Not compared line by line (larger than 8 MiB): big.txt")),
            qPrintable(messageOf(result)));
        // The whole change is counted, the large file aside; the patch is git's, as far as it goes.
        COMPARE_JSON(fields["stats"], (json{{"files_changed", 101}, {"insertions", 40'000}, {"deletions", 40'000}}));
        const auto big = std::find_if(fields["files"].begin(), fields["files"].end(),
            [](const json& file) { return file.value("path", "") == "big.txt"; });
        QVERIFY(big != fields["files"].end());
        COMPARE_JSON((*big)["too_large"], json(true));
        GIT_OUT(patch, repository, "diff", "--", "small");
        QVERIFY(patch.toUtf8().startsWith(str(fields["diff"]).toUtf8()));
    }

    // Diffs running at once share one budget: a reservation waits while others hold the room it
    // needs, and gives up when its call is cancelled meanwhile.
    void diffMemoryBudgetIsShared()
    {
        DiffMemoryBudget budget(100);
        DiffMemoryBudget::Reservation first = budget.reserve(60, nullptr);
        QVERIFY(first.isValid());
        QCOMPARE(budget.reserved(), qint64(60));
        std::atomic<bool> secondHeld{false};
        std::atomic<qint64> reservedWithSecond{-1};
        std::thread second([&] {
            const DiffMemoryBudget::Reservation reservation = budget.reserve(60, nullptr);
            reservedWithSecond = budget.reserved(); // only after the first let go: 60, not 120
            secondHeld = true;
        });
        std::atomic<bool> cancelled{false};
        std::atomic<bool> gaveUp{false};
        std::thread third([&] {
            // More than the whole budget is the whole budget.
            const DiffMemoryBudget::Reservation reservation = budget.reserve(1000, [&] { return cancelled.load(); });
            gaveUp = !reservation.isValid();
        });
        cancelled = true;
        third.join();
        QVERIFY(gaveUp);
        QVERIFY(!secondHeld);
        first = DiffMemoryBudget::Reservation();
        second.join();
        QVERIFY(secondHeld);
        QCOMPARE(reservedWithSecond.load(), qint64(60));
        QCOMPARE(budget.reserved(), qint64(0));
    }

    void show()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const std::string path = clone.toStdString();
        ToolResult result = call(QStringLiteral("git_show"), json{{"repo_path", path}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["commit"]["id"]), m_second);
        QCOMPARE(str(result.structuredContent["commit"]["summary"]), QStringLiteral("second"));
        QCOMPARE(stringList(result.structuredContent["commit"]["parents"]), QStringList{m_initial});
        QCOMPARE(numstat(result.structuredContent["files"]), QStringList{QStringLiteral("1\t0\ta.txt")});
        QCOMPARE(messageOf(result), QStringLiteral("Commit %1: second").arg(m_second.left(7)));
        GIT_OUT(patch, clone, "show", "--format=", m_second);
        QCOMPARE(str(result.structuredContent["diff"]), patch + QLatin1Char('\n'));

        for (const QString& revision :
            {m_initial, QStringLiteral("origin/feature"), QStringLiteral("origin/release")}) {
            result = call(QStringLiteral("git_show"), json{{"repo_path", path}, {"revision", revision.toStdString()}});
            VERIFY_SUCCESS(result);
            GIT_OUT(id, clone, "rev-parse", revision);
            QCOMPARE(str(result.structuredContent["commit"]["id"]), id);
            GIT_OUT(expected, clone, "show", "--numstat", "--format=", revision);
            QCOMPARE(numstat(result.structuredContent["files"]), sorted(expected.split(QLatin1Char('\n'))));
        }
        // The first commit: everything added.
        result = call(QStringLiteral("git_show"), json{{"repo_path", path}, {"revision", m_initial.toStdString()}});
        QCOMPARE(entryList(result.structuredContent["files"]),
            QStringList({QStringLiteral("added README.md"), QStringLiteral("added a.txt"),
                QStringLiteral("added c.txt"), QStringLiteral("added d.txt")}));
        COMPARE_JSON(result.structuredContent["commit"]["parents"], json::array());

        result = call(QStringLiteral("git_show"), json{{"repo_path", path}, {"revision", "HEAD~5"}});
        VERIFY_FAILURE(result, QLatin1String("names no commit"));
    }

    void branchList()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        GIT_OK(clone, "branch", "-q", "topic", m_initial);
        const std::string path = clone.toStdString();
        GIT_OUT(localRefs, clone, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads");
        GIT_OUT(remoteRefs, clone, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/remotes");

        const auto namesOf = [](const json& branches) {
            QStringList names;
            for (const json& branch : branches)
                names << str(branch.value("type", json())) + QLatin1Char(' ') + str(branch.value("name", json()));
            names.sort();
            return names;
        };
        const auto prefixed = [](const QString& type, const QString& lines) {
            QStringList names;
            for (const QString& line : lines.split(QLatin1Char('\n')))
                names << type + QLatin1Char(' ') + line;
            return names;
        };

        ToolResult result = call(QStringLiteral("git_branch_list"), json{{"repo_path", path}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["current"]), QStringLiteral("main"));
        QCOMPARE(namesOf(result.structuredContent["branches"]), sorted(prefixed(QStringLiteral("local"), localRefs)));
        QCOMPARE(namesOf(result.structuredContent["branches"]),
            QStringList({QStringLiteral("local main"), QStringLiteral("local topic")}));
        for (const json& branch : result.structuredContent["branches"]) {
            const bool isMain = str(branch.value("name", json())) == QLatin1String("main");
            COMPARE_JSON(branch.value("current", json()), json(isMain));
            QCOMPARE(str(branch.value("commit", json())), isMain ? m_second : m_initial);
            if (isMain)
                QCOMPARE(str(branch.value("upstream", json())), QStringLiteral("origin/main"));
            else
                QVERIFY(!branch.contains("upstream"));
        }
        QCOMPARE(messageOf(result), QStringLiteral("2 local branch(es); on main."));

        result = call(QStringLiteral("git_branch_list"), json{{"repo_path", path}, {"branch_type", "remote"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(namesOf(result.structuredContent["branches"]), sorted(prefixed(QStringLiteral("remote"), remoteRefs)));
        QVERIFY(namesOf(result.structuredContent["branches"]).contains(QStringLiteral("remote origin/feature")));
        QVERIFY(result.structuredContent["current"].is_null());

        result = call(QStringLiteral("git_branch_list"), json{{"repo_path", path}, {"branch_type", "all"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(namesOf(result.structuredContent["branches"]),
            sorted(prefixed(QStringLiteral("local"), localRefs) + prefixed(QStringLiteral("remote"), remoteRefs)));
        QCOMPARE(str(result.structuredContent["current"]), QStringLiteral("main"));
    }

    // --- write tools ---------------------------------------------------------------------------

    void add()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const std::string path = clone.toStdString();
        const auto stagedNow = [&clone]() { return git(clone, "diff", "--cached", "--name-status").lines(); };

        // Named files: a new one and a changed one; other changes stay unstaged.
        QVERIFY(writeFile(clone + QStringLiteral("/b.txt"), "bee\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/c.txt"), "gamma\nchanged\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "one\ntwo\nunstaged\n"));
        ToolResult result = call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"b.txt", "c.txt"}}});
        VERIFY_SUCCESS(result);
        QCOMPARE(stringList(result.structuredContent["staged"]),
            QStringList({QStringLiteral("b.txt"), QStringLiteral("c.txt")}));
        QCOMPARE(messageOf(result), QStringLiteral("Staged 2 path(s)."));
        QCOMPARE(stagedNow(), QStringList({QStringLiteral("A\tb.txt"), QStringLiteral("M\tc.txt")}));

        // A deletion.
        QVERIFY(QFile::remove(clone + QStringLiteral("/d.txt")));
        VERIFY_SUCCESS(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"d.txt"}}}));
        QCOMPARE(stagedNow(),
            QStringList({QStringLiteral("A\tb.txt"), QStringLiteral("M\tc.txt"), QStringLiteral("D\td.txt")}));

        // Glob characters name only themselves, for a file and for a directory.
        QVERIFY(writeFile(clone + QStringLiteral("/a[1].txt"), "literal\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/a1.txt"), "matched by the glob\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/g[1]/x.txt"), "literal directory\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/g1/y.txt"), "matched by the glob\n"));
        VERIFY_SUCCESS(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"a[1].txt"}}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"g[1]"}}}));
        QCOMPARE(stagedNow(),
            QStringList({QStringLiteral("A\ta[1].txt"), QStringLiteral("A\tb.txt"), QStringLiteral("M\tc.txt"),
                QStringLiteral("D\td.txt"), QStringLiteral("A\tg[1]/x.txt")}));

        // An absolute path inside the tree comes back relative.
        QVERIFY(writeFile(clone + QStringLiteral("/sub/e.txt"), "e\n"));
        result = call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {path + "/sub/e.txt"}}});
        VERIFY_SUCCESS(result);
        QCOMPARE(stringList(result.structuredContent["staged"]), QStringList{QStringLiteral("sub/e.txt")});

        // Ignored files are not staged, and a path matching nothing is an error; neither stages anything.
        QVERIFY(writeFile(clone + QStringLiteral("/.gitignore"), "*.log\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/x.log"), "noise\n"));
        const QStringList before = stagedNow();
        VERIFY_FAILURE(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"x.log"}}}),
            QLatin1String("x.log is ignored"));
        VERIFY_FAILURE(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"b.txt", "nothing.txt"}}}),
            QLatin1String("nothing.txt matches no file"));
        QCOMPARE(stagedNow(), before);

        // "." stages everything else, deletions included, and leaves ignored files alone.
        QVERIFY(QFile::remove(clone + QStringLiteral("/README.md")));
        VERIFY_SUCCESS(call(QStringLiteral("git_add"), json{{"repo_path", path}, {"files", {"."}}}));
        const GitRun status = git(clone, "status", "--porcelain", "--ignored");
        QVERIFY2(status.code == 0, qPrintable(status.describe()));
        QCOMPARE(status.lines(),
            QStringList({QStringLiteral("A  .gitignore"), QStringLiteral("D  README.md"), QStringLiteral("M  a.txt"),
                QStringLiteral("A  a1.txt"), QStringLiteral("A  a[1].txt"), QStringLiteral("A  b.txt"),
                QStringLiteral("M  c.txt"), QStringLiteral("D  d.txt"), QStringLiteral("A  g1/y.txt"),
                QStringLiteral("A  g[1]/x.txt"), QStringLiteral("A  sub/e.txt"), QStringLiteral("!! x.log")}));
    }

    void commit()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const std::string path = clone.toStdString();

        // The staged change, by the configured author, on the current branch.
        QVERIFY(writeFile(clone + QStringLiteral("/b.txt"), "bee\n"));
        GIT_OK(clone, "add", "b.txt");
        ToolResult result = call(QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "Add b"}});
        VERIFY_SUCCESS(result);
        GIT_OUT(head, clone, "rev-parse", "HEAD");
        QCOMPARE(str(result.structuredContent["commit_id"]), head);
        QCOMPARE(str(result.structuredContent["short_id"]), head.left(7));
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("main"));
        QCOMPARE(messageOf(result), QStringLiteral("Committed %1 on main.").arg(head.left(7)));
        GIT_OUT(described, clone, "log", "-1", "--format=%P|%an|%ae|%cn|%ce|%B");
        QCOMPARE(described,
            QStringLiteral("%1|%2|%3|%2|%3|Add b")
                .arg(m_second, QString::fromUtf8(FixtureName), QString::fromUtf8(FixtureEmail)));
        GIT_OUT(files, clone, "show", "--name-status", "--format=", "HEAD");
        QCOMPARE(files, QStringLiteral("A\tb.txt"));

        // Nothing staged: refused, nothing made.
        result = call(QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "Again"}});
        VERIFY_FAILURE(result, QLatin1String("Nothing to commit"));
        GIT_OUT(unchanged, clone, "rev-parse", "HEAD");
        QCOMPARE(unchanged, head);

        // files are staged first; other changes stay out; the author as given.
        QVERIFY(writeFile(clone + QStringLiteral("/c.txt"), "gamma\nchanged\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "one\ntwo\nnot committed\n"));
        result = call(QStringLiteral("git_commit"),
            json{{"repo_path", path}, {"message", "Change c\n\nWith a body.\n"}, {"files", {"c.txt"}},
                {"author_name", "Ada Lovelace"}, {"author_email", "ada@example.invalid"}});
        VERIFY_SUCCESS(result);
        GIT_OUT(second, clone, "rev-parse", "HEAD");
        QCOMPARE(str(result.structuredContent["commit_id"]), second);
        GIT_OUT(author, clone, "log", "-1", "--format=%P|%an|%ae");
        QCOMPARE(author, QStringLiteral("%1|Ada Lovelace|ada@example.invalid").arg(head));
        GIT_OUT(body, clone, "cat-file", "commit", "HEAD");
        QVERIFY2(body.endsWith(QLatin1String("\n\nChange c\n\nWith a body.")), qPrintable(body));
        GIT_OUT(changed, clone, "show", "--name-status", "--format=", "HEAD");
        QCOMPARE(changed, QStringLiteral("M\tc.txt"));
        GIT_OUT(left, clone, "status", "--porcelain");
        QCOMPARE(left, QStringLiteral(" M a.txt"));

        // A deletion named in files.
        QVERIFY(QFile::remove(clone + QStringLiteral("/d.txt")));
        result = call(
            QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "Remove d"}, {"files", {"d.txt"}}});
        VERIFY_SUCCESS(result);
        GIT_OUT(removed, clone, "show", "--name-status", "--format=", "HEAD");
        QCOMPARE(removed, QStringLiteral("D\td.txt"));
        GIT_OUT(afterRemoval, clone, "status", "--porcelain");
        QCOMPARE(afterRemoval, QStringLiteral(" M a.txt"));

        // Half an author is refused; allow_empty makes a commit with HEAD's tree.
        VERIFY_FAILURE(call(QStringLiteral("git_commit"),
                           json{{"repo_path", path}, {"message", "x"}, {"author_name", "Ada"}, {"allow_empty", true}}),
            QLatin1String("Give both author_name and author_email"));
        result = call(
            QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "Empty"}, {"allow_empty", true}});
        VERIFY_SUCCESS(result);
        GIT_OUT(trees, clone, "rev-parse", "HEAD^{tree}", "HEAD~1^{tree}");
        QCOMPARE(trees.split(QLatin1Char('\n')).first(), trees.split(QLatin1Char('\n')).last());

        // The first commit on an unborn branch.
        const QString fresh = rootPath(QStringLiteral("fresh"));
        GIT_OK(m_root, "init", "-q", "-b", "trunk", fresh);
        QVERIFY(writeFile(fresh + QStringLiteral("/x.txt"), "first\n"));
        result = call(QStringLiteral("git_log"), json{{"repo_path", fresh.toStdString()}});
        VERIFY_SUCCESS(result);
        COMPARE_JSON(result.structuredContent["commits"], json::array());
        result = call(QStringLiteral("git_commit"),
            json{{"repo_path", fresh.toStdString()}, {"message", "First"}, {"files", {"x.txt"}}});
        VERIFY_SUCCESS(result);
        GIT_OUT(first, fresh, "rev-list", "--parents", "HEAD");
        QCOMPARE(first, str(result.structuredContent["commit_id"]));
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("trunk"));
        GIT_OUT(tree, fresh, "ls-tree", "--name-only", "HEAD");
        QCOMPARE(tree, QStringLiteral("x.txt"));
    }

    // git_create_branch takes exactly the names git takes as a branch it can name again:
    // `git check-ref-format --branch` accepts them unchanged, and git's revision syntax reads the
    // name back as that branch ("@" alone is HEAD to git, whatever branch HEAD is on).
    void branchNamesAsGitTakesThem_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"topic", "feature/x", "a@b", "@x", "x@", "@@", "\xc3\xa9t\xc3\xa9", "refs/heads/x",
                 "HEAD/x", "a-b_c.d", "FETCH_HEAD", "x.locked", "@", "@{", "a@{b", "@{-1}", "a@{1}", "HEAD", "-a",
                 "--force", "a..b", "a.lock", "x.lock/y", "a/b.lock", "a/.b", ".a", "a/", "/a", "a//b", "a b", "a~b",
                 "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a.", "a\tb", "a\x7f", "a/./b", "a/../b", ".", ".."})
            QTest::newRow(name) << QString::fromUtf8(name);
    }

    void branchNamesAsGitTakesThem()
    {
        QFETCH(QString, name);
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        // What git says, in a repository of its own.
        const QString witness = rootPath(QStringLiteral("witness"));
        GIT_OK(m_root, "clone", "-q", m_remote, witness);
        const GitRun format = git(witness, "check-ref-format", "--branch", name);
        bool gitTakesIt = format.code == 0 && format.output() == name;
        if (gitTakesIt) {
            GIT_OK(witness, "branch", name);
            const GitRun named = git(witness, "rev-parse", "--symbolic-full-name", name);
            gitTakesIt = named.code == 0 && named.output() == QStringLiteral("refs/heads/") + name;
        }
        const ToolResult result = call(QStringLiteral("git_create_branch"),
            json{{"repo_path", clone.toStdString()}, {"branch_name", name.toStdString()}});
        QVERIFY2(result.isError == !gitTakesIt,
            qPrintable(QStringLiteral("git %1 it (%2); git_create_branch: %3")
                           .arg(gitTakesIt ? QStringLiteral("takes") : QStringLiteral("refuses"), format.describe(),
                               describe(result))));
        const GitRun created = git(clone, "rev-parse", "--verify", "-q", QStringLiteral("refs/heads/") + name);
        QCOMPARE(created.code == 0, gitTakesIt);
        if (result.isError)
            QVERIFY2(messageOf(result).contains(QLatin1String("branch_name")), qPrintable(describe(result)));
    }

    void createBranch()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const std::string path = clone.toStdString();

        ToolResult result
            = call(QStringLiteral("git_create_branch"), json{{"repo_path", path}, {"branch_name", "topic"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("topic"));
        QCOMPARE(str(result.structuredContent["commit"]), m_second);
        COMPARE_JSON(result.structuredContent["checked_out"], json(false));
        GIT_OUT(topic, clone, "rev-parse", "refs/heads/topic");
        QCOMPARE(topic, m_second);
        GIT_OUT(current, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(current, QStringLiteral("main"));

        // From another base, switching to it.
        result = call(QStringLiteral("git_create_branch"),
            json{{"repo_path", path}, {"branch_name", "work/feature-copy"}, {"base", "origin/feature"},
                {"checkout", true}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["commit"]), m_feature);
        COMPARE_JSON(result.structuredContent["checked_out"], json(true));
        GIT_OUT(switched, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(switched, QStringLiteral("work/feature-copy"));
        GIT_OUT(head, clone, "rev-parse", "HEAD");
        QCOMPARE(head, m_feature);
        QCOMPARE(readFile(clone + QStringLiteral("/feature.txt")), QByteArray("feature\n"));
        GIT_OUT(clean, clone, "status", "--porcelain");
        QCOMPARE(clean, QString());

        // Names that exist.
        for (const char* existing : {"main", "topic"}) {
            VERIFY_FAILURE(
                call(QStringLiteral("git_create_branch"), json{{"repo_path", path}, {"branch_name", existing}}),
                QStringLiteral("A branch named \"%1\" already exists.").arg(QLatin1String(existing)));
        }
        GIT_OUT(stillTopic, clone, "rev-parse", "refs/heads/topic");
        QCOMPARE(stillTopic, m_second);

        // Switching would overwrite a local change: refused, the file kept, no branch left behind.
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "local edit\n"));
        result = call(QStringLiteral("git_create_branch"),
            json{{"repo_path", path}, {"branch_name", "from-release"}, {"base", "origin/release"}, {"checkout", true}});
        VERIFY_FAILURE(result, QLatin1String("would be overwritten"));
        QVERIFY2(messageOf(result).contains(QLatin1String("a.txt")), qPrintable(messageOf(result)));
        QCOMPARE(readFile(clone + QStringLiteral("/a.txt")), QByteArray("local edit\n"));
        GIT_OUT(branches, clone, "branch", "--list", "from-release");
        QCOMPARE(branches, QString());
        GIT_OUT(stillOn, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(stillOn, QStringLiteral("work/feature-copy"));
    }

    void checkout()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        const std::string path = clone.toStdString();
        GIT_OK(clone, "branch", "-q", "topic", m_initial);

        // An existing local branch.
        ToolResult result = call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "topic"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(messageOf(result), QStringLiteral("Switched to branch topic."));
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("topic"));
        QCOMPARE(str(result.structuredContent["previous_branch"]), QStringLiteral("main"));
        QCOMPARE(str(result.structuredContent["head"]), m_initial);
        COMPARE_JSON(result.structuredContent["created"], json(false));
        GIT_OUT(current, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(current, QStringLiteral("topic"));
        QCOMPARE(readFile(clone + QStringLiteral("/a.txt")), QByteArray("one\n"));
        GIT_OUT(clean, clone, "status", "--porcelain");
        QCOMPARE(clean, QString());

        // A branch only origin has: created, tracking it.
        result = call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "feature"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(messageOf(result), QStringLiteral("Switched to a new branch feature tracking origin/feature."));
        COMPARE_JSON(result.structuredContent["created"], json(true));
        QCOMPARE(str(result.structuredContent["previous_branch"]), QStringLiteral("topic"));
        QCOMPARE(str(result.structuredContent["head"]), m_feature);
        GIT_OUT(upstream, clone, "rev-parse", "--abbrev-ref", "feature@{upstream}");
        QCOMPARE(upstream, QStringLiteral("origin/feature"));
        GIT_OUT(onFeature, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(onFeature, QStringLiteral("feature"));
        QCOMPARE(readFile(clone + QStringLiteral("/feature.txt")), QByteArray("feature\n"));
        GIT_OUT(stillClean, clone, "status", "--porcelain");
        QCOMPARE(stillClean, QString());

        // Back: the file only the feature branch has goes away.
        VERIFY_SUCCESS(call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "main"}}));
        QVERIFY(!QFileInfo::exists(clone + QStringLiteral("/feature.txt")));
        QCOMPARE(readFile(clone + QStringLiteral("/a.txt")), QByteArray("one\ntwo\n"));

        // Local changes that would be overwritten: refused, naming the file, which stays as it was.
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "local edit\n"));
        for (const char* branch : {"feature", "release"}) {
            result = call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", branch}});
            VERIFY_FAILURE(result, QLatin1String("Your local changes to these files would be overwritten: a.txt."));
            QCOMPARE(readFile(clone + QStringLiteral("/a.txt")), QByteArray("local edit\n"));
            GIT_OUT(stillMain, clone, "symbolic-ref", "--short", "HEAD");
            QCOMPARE(stillMain, QStringLiteral("main"));
            GIT_OUT(mainHead, clone, "rev-parse", "HEAD");
            QCOMPARE(mainHead, m_second);
        }
        // The tracking branch made for the refused checkout is gone again, its configuration too.
        GIT_OUT(release, clone, "branch", "--list", "release");
        QCOMPARE(release, QString());
        QCOMPARE(git(clone, "config", "--get-regexp", "^branch\\.release\\.").output(), QString());
        GIT_OUT(changes, clone, "status", "--porcelain");
        QCOMPARE(changes, QStringLiteral(" M a.txt"));

        // An untracked file the branch would overwrite is a local change too.
        GIT_OK(clone, "checkout", "-q", "--", "a.txt");
        QVERIFY(writeFile(clone + QStringLiteral("/feature.txt"), "mine\n"));
        result = call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "feature"}});
        VERIFY_FAILURE(result, QLatin1String("would be overwritten: feature.txt."));
        QCOMPARE(readFile(clone + QStringLiteral("/feature.txt")), QByteArray("mine\n"));
        GIT_OUT(stillOnMain, clone, "symbolic-ref", "--short", "HEAD");
        QCOMPARE(stillOnMain, QStringLiteral("main"));

        VERIFY_FAILURE(call(QStringLiteral("git_checkout"), json{{"repo_path", path}, {"branch_name", "nope"}}),
            QLatin1String("There is no branch \"nope\""));
    }

    void push()
    {
        QString first;
        QString second;
        SETUP(cloneWithGit(QStringLiteral("first"), &first));
        SETUP(cloneWithGit(QStringLiteral("second"), &second));

        // The current branch, which already tracks origin/main.
        QString commit;
        SETUP(commitWithGit(first, QStringLiteral("e.txt"), "pushed\n", QStringLiteral("to push"), &commit));
        ToolResult result = call(QStringLiteral("git_push"), json{{"repo_path", first.toStdString()}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["commit"]), commit);
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("main"));
        QCOMPARE(str(result.structuredContent["remote"]), QStringLiteral("origin"));
        QCOMPARE(str(result.structuredContent["remote_url"]), m_remote);
        COMPARE_JSON(result.structuredContent["upstream_set"], json(false));
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/main")), commit);
        GIT_OUT(tracking, first, "rev-parse", "refs/remotes/origin/main");
        QCOMPARE(tracking, commit);

        // A new branch gets its upstream.
        GIT_OK(first, "checkout", "-q", "-b", "topic");
        QString topic;
        SETUP(commitWithGit(first, QStringLiteral("t.txt"), "topic\n", QStringLiteral("topic"), &topic));
        result = call(QStringLiteral("git_push"), json{{"repo_path", first.toStdString()}});
        VERIFY_SUCCESS(result);
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("topic"));
        COMPARE_JSON(result.structuredContent["upstream_set"], json(true));
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/topic")), topic);
        GIT_OUT(upstream, first, "rev-parse", "--abbrev-ref", "topic@{upstream}");
        QCOMPARE(upstream, QStringLiteral("origin/topic"));
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/main")), commit);

        // A named branch that is not the current one.
        GIT_OK(first, "branch", "-q", "side", m_initial);
        result = call(QStringLiteral("git_push"), json{{"repo_path", first.toStdString()}, {"branch", "side"}});
        VERIFY_SUCCESS(result);
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/side")), m_initial);

        // The second clone is behind: its push is refused, and the remote keeps the first one's commit.
        QString behind;
        SETUP(commitWithGit(second, QStringLiteral("f.txt"), "late\n", QStringLiteral("late"), &behind));
        const Snapshot remoteBefore = snapshot(m_remote);
        result = call(QStringLiteral("git_push"), json{{"repo_path", second.toStdString()}});
        VERIFY_FAILURE(result, QLatin1String("pull"));
        QVERIFY2(messageOf(result).contains(QLatin1String("git_pull")), qPrintable(messageOf(result)));
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/main")), commit);
        QString difference = snapshotDifference(remoteBefore, snapshot(m_remote));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        // Also when the clone has fetched the remote's commit and so has its objects.
        GIT_OK(second, "fetch", "-q");
        result = call(QStringLiteral("git_push"), json{{"repo_path", second.toStdString()}});
        VERIFY_FAILURE(result, QLatin1String("Pull them first (git_pull)"));
        QCOMPARE(remoteRef(QStringLiteral("refs/heads/main")), commit);
        difference = snapshotDifference(remoteBefore, snapshot(m_remote));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));

        VERIFY_FAILURE(call(QStringLiteral("git_push"), json{{"repo_path", first.toStdString()}, {"branch", "nope"}}),
            QLatin1String("There is no local branch \"nope\""));
        VERIFY_FAILURE(
            call(QStringLiteral("git_push"), json{{"repo_path", first.toStdString()}, {"remote", "upstream"}}),
            QLatin1String("no remote named \"upstream\""));
    }

    void pull()
    {
        QString first;
        QString second;
        SETUP(cloneWithGit(QStringLiteral("first"), &first));
        SETUP(cloneWithGit(QStringLiteral("second"), &second));
        const json arguments{{"repo_path", first.toStdString()}};

        // Fast-forward to what the other clone pushed.
        QString pushed;
        SETUP(commitWithGit(second, QStringLiteral("a.txt"), "one\ntwo\npushed\n", QStringLiteral("pushed"), &pushed));
        GIT_OK(second, "push", "-q", "origin", "main");
        ToolResult result = call(QStringLiteral("git_pull"), arguments);
        VERIFY_SUCCESS(result);
        QCOMPARE(messageOf(result), QStringLiteral("Fast-forwarded main to %1 (origin/main).").arg(pushed.left(7)));
        QCOMPARE(str(result.structuredContent["previous_head"]), m_second);
        QCOMPARE(str(result.structuredContent["head"]), pushed);
        COMPARE_JSON(result.structuredContent["fast_forward"], json(true));
        COMPARE_JSON(result.structuredContent["updated"], json(true));
        QCOMPARE(str(result.structuredContent["branch"]), QStringLiteral("main"));
        QCOMPARE(str(result.structuredContent["remote_url"]), m_remote);
        GIT_OUT(head, first, "rev-parse", "HEAD");
        QCOMPARE(head, pushed);
        QCOMPARE(readFile(first + QStringLiteral("/a.txt")), QByteArray("one\ntwo\npushed\n"));
        GIT_OUT(clean, first, "status", "--porcelain");
        QCOMPARE(clean, QString());

        // Again: nothing new.
        result = call(QStringLiteral("git_pull"), arguments);
        VERIFY_SUCCESS(result);
        QCOMPARE(messageOf(result), QStringLiteral("Already up to date with origin/main."));
        COMPARE_JSON(result.structuredContent["updated"], json(false));
        COMPARE_JSON(result.structuredContent["fast_forward"], json(false));
        QCOMPARE(str(result.structuredContent["head"]), pushed);

        // Local changes a fast-forward would overwrite: refused, naming the file, nothing moved.
        QString more;
        QVERIFY(writeFile(second + QStringLiteral("/new.txt"), "from the remote\n"));
        GIT_OK(second, "add", "new.txt");
        SETUP(
            commitWithGit(second, QStringLiteral("a.txt"), "one\ntwo\npushed\nmore\n", QStringLiteral("more"), &more));
        GIT_OK(second, "push", "-q", "origin", "main");
        QVERIFY(writeFile(first + QStringLiteral("/a.txt"), "local edit\n"));
        result = call(QStringLiteral("git_pull"), arguments);
        VERIFY_FAILURE(result, QLatin1String("a.txt"));
        GIT_OUT(unmoved, first, "rev-parse", "HEAD");
        QCOMPARE(unmoved, pushed);
        QCOMPARE(readFile(first + QStringLiteral("/a.txt")), QByteArray("local edit\n"));
        GIT_OK(first, "checkout", "-q", "--", "a.txt");
        // An untracked file in the way counts as well.
        QVERIFY(writeFile(first + QStringLiteral("/new.txt"), "mine\n"));
        result = call(QStringLiteral("git_pull"), arguments);
        VERIFY_FAILURE(result, QLatin1String("new.txt"));
        QCOMPARE(readFile(first + QStringLiteral("/new.txt")), QByteArray("mine\n"));
        GIT_OUT(stillUnmoved, first, "rev-parse", "HEAD");
        QCOMPARE(stillUnmoved, pushed);
        QVERIFY(QFile::remove(first + QStringLiteral("/new.txt")));

        // Diverged: refused; the branch and the working tree stay as they were.
        QString local;
        SETUP(commitWithGit(first, QStringLiteral("l.txt"), "local\n", QStringLiteral("local"), &local));
        QString diverging;
        SETUP(commitWithGit(second, QStringLiteral("r.txt"), "remote\n", QStringLiteral("remote"), &diverging));
        GIT_OK(second, "push", "-q", "origin", "main");
        const Snapshot before = snapshot(first);
        result = call(QStringLiteral("git_pull"), arguments);
        VERIFY_FAILURE(result, QLatin1String("main and origin/main have diverged"));
        GIT_OUT(stillLocal, first, "rev-parse", "HEAD");
        QCOMPARE(stillLocal, local);
        // The fetch itself may update the remote-tracking branch and write objects, as git fetch does.
        const QString difference = snapshotDifference(withoutFetchedData(before), withoutFetchedData(snapshot(first)));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(!QFileInfo::exists(first + QStringLiteral("/r.txt")));
    }

    // --- refusals ------------------------------------------------------------------------------

    // libgit2's ownership check stays on: a repository owned by another user is refused, saying so.
    void repositoryOwnedByAnotherUserIsRefused()
    {
        if (::geteuid() != 0)
            QSKIP("only root can give a repository to another user; CI runs this as root");
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("foreign"), &clone));
        QDirIterator it(
            clone, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
        QVERIFY(::lchown(QFile::encodeName(clone).constData(), 65534, 65534) == 0);
        while (it.hasNext())
            QVERIFY(::lchown(QFile::encodeName(it.next()).constData(), 65534, 65534) == 0);
        const Snapshot before = snapshot(clone);
        for (const char* tool : {"git_status", "git_log", "git_branch_list"}) {
            const ToolResult result = call(QString::fromLatin1(tool), json{{"repo_path", clone.toStdString()}});
            VERIFY_FAILURE(result, QLatin1String("is owned by another user"));
        }
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "changed\n"));
        const ToolResult commit = call(QStringLiteral("git_commit"),
            json{{"repo_path", clone.toStdString()}, {"message", "not mine"}, {"files", {"a.txt"}}});
        VERIFY_FAILURE(commit, QLatin1String("is owned by another user"));
        QString difference = snapshotDifference(before, snapshot(clone));
        // Only the file this test wrote differs.
        QVERIFY2(difference.count(QLatin1Char('\n')) <= 1 && !difference.contains(QLatin1String(".git/")),
            qPrintable(difference));
    }

    // No hook and no filter driver ever runs: a repository whose hooks (client side, and the
    // remote's server side) and whose clean/smudge/process filter would each leave a marker file,
    // worked on with every tool that could set one off.
    void hooksAndFilterDriversNeverRun()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("hooked"), &clone));
        const QString markers = m_workPath + QStringLiteral("/markers");
        QVERIFY(QDir().mkpath(markers));
        // Every file goes through the "evil" filter; committed before the filter exists, so the git
        // program itself runs nothing.
        QVERIFY(writeFile(clone + QStringLiteral("/.gitattributes"), "* filter=evil\n"));
        GIT_OK(clone, "add", ".gitattributes");
        GIT_OK(clone, "commit", "-q", "-m", "attributes");
        GIT_OK(clone, "push", "-q", "origin", "main");
        const QByteArray touch = "touch " + QFile::encodeName(markers) + "/";
        GIT_OK(clone, "config", "filter.evil.clean", QString::fromUtf8(touch + "clean; cat"));
        GIT_OK(clone, "config", "filter.evil.smudge", QString::fromUtf8(touch + "smudge; cat"));
        GIT_OK(clone, "config", "filter.evil.process", QString::fromUtf8(touch + "process"));
        GIT_OK(clone, "config", "filter.evil.required", "true");
        const QStringList clientHooks{QStringLiteral("pre-commit"), QStringLiteral("prepare-commit-msg"),
            QStringLiteral("commit-msg"), QStringLiteral("post-commit"), QStringLiteral("post-checkout"),
            QStringLiteral("pre-push"), QStringLiteral("post-merge"), QStringLiteral("reference-transaction"),
            QStringLiteral("post-rewrite"), QStringLiteral("pre-auto-gc"), QStringLiteral("fsmonitor-watchman")};
        const QStringList serverHooks{QStringLiteral("pre-receive"), QStringLiteral("update"),
            QStringLiteral("post-receive"), QStringLiteral("post-update"), QStringLiteral("reference-transaction")};
        const auto installHook = [&](const QString& directory, const QString& hook) {
            const QString path = directory + QStringLiteral("/hooks/") + hook;
            QVERIFY(writeFile(path, "#!/bin/sh\n" + touch + hook.toUtf8() + "\nexit 0\n"));
            QVERIFY(
                QFile::setPermissions(path, QFile::permissions(path) | QFileDevice::ExeOwner | QFileDevice::ExeUser));
        };
        for (const QString& hook : clientHooks)
            installHook(clone + QStringLiteral("/.git"), hook);
        for (const QString& hook : serverHooks)
            installHook(m_remote, hook);

        const std::string repo = clone.toStdString();
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "through the filter?\n"));
        QVERIFY(writeFile(clone + QStringLiteral("/new.txt"), "new\n"));
        VERIFY_SUCCESS(call(QStringLiteral("git_add"), json{{"repo_path", repo}, {"files", {"a.txt", "new.txt"}}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_commit"), json{{"repo_path", repo}, {"message", "hooked commit"}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_create_branch"),
            json{{"repo_path", repo}, {"branch_name", "hooked-topic"}, {"checkout", true}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_checkout"), json{{"repo_path", repo}, {"branch_name", "main"}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_checkout"), json{{"repo_path", repo}, {"branch_name", "feature"}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_checkout"), json{{"repo_path", repo}, {"branch_name", "main"}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_push"), json{{"repo_path", repo}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_status"), json{{"repo_path", repo}}));
        VERIFY_SUCCESS(call(QStringLiteral("git_diff"), json{{"repo_path", repo}, {"target", "HEAD~1"}}));
        // Another clone pushes; the hooked one pulls (post-merge, post-checkout, smudge).
        QString other;
        SETUP(cloneWithGit(QStringLiteral("other"), &other));
        QString pushed;
        SETUP(
            commitWithGit(other, QStringLiteral("b.txt"), "from the other clone\n", QStringLiteral("other"), &pushed));
        // The git program would run the remote's hooks on this push: they are set aside meanwhile.
        QVERIFY(QDir(m_remote).rename(QStringLiteral("hooks"), QStringLiteral("hooks-aside")));
        GIT_OK(other, "push", "-q", "origin", "main");
        QVERIFY(QDir(m_remote).rename(QStringLiteral("hooks-aside"), QStringLiteral("hooks")));
        QVERIFY(QDir(markers).entryList(QDir::Files).isEmpty());
        VERIFY_SUCCESS(call(QStringLiteral("git_pull"), json{{"repo_path", repo}}));
        // A clone of the remote (whose hooks would run on a fetch served by the git program).
        VERIFY_SUCCESS(call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", m_remote.toStdString()}, {"local_path", "hooked-clone"}}));

        const QStringList left = QDir(markers).entryList(QDir::Files);
        QVERIFY2(left.isEmpty(), qPrintable(QStringLiteral("ran: ") + left.join(QStringLiteral(", "))));
        // The filter did not rewrite what was staged: the blob is the file's bytes.
        GIT_OUT(blob, clone, "show", "HEAD~1:a.txt");
        QCOMPARE(blob, QStringLiteral("through the filter?"));
        // The fixture is armed: the git program sets the markers off (its filter process, which
        // exits at once, then fails the commit; that is the git program's business).
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "by the git program\n"));
        git(clone, "commit", "-q", "-am", "by the git program");
        const QStringList armed = QDir(markers).entryList(QDir::Files);
        QVERIFY2(armed.contains(QStringLiteral("process")), qPrintable(armed.join(QStringLiteral(", "))));
        GIT_OK(clone, "config", "--unset", "filter.evil.process");
        git(clone, "commit", "-q", "-am", "by the git program");
        const QStringList armedAgain = QDir(markers).entryList(QDir::Files);
        QVERIFY2(armedAgain.contains(QStringLiteral("clean")) && armedAgain.contains(QStringLiteral("pre-commit")),
            qPrintable(armedAgain.join(QStringLiteral(", "))));
    }

    // Submodules are not fetched: a clone of a repository with a submodule leaves its directory
    // empty.
    void submodulesAreNotFetched()
    {
        QString parent;
        SETUP(cloneWithGit(QStringLiteral("with-submodule"), &parent));
        const QString library = m_workPath + QStringLiteral("/library.git");
        QVERIFY(copyTree(m_template, library));
        GIT_OK(parent, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "lib");
        GIT_OK(parent, "commit", "-q", "-m", "add a submodule");
        GIT_OK(parent, "push", "-q", "origin", "main");
        const ToolResult result = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", m_remote.toStdString()}, {"local_path", "no-submodules"}});
        VERIFY_SUCCESS(result);
        const QString cloned = rootPath(QStringLiteral("no-submodules"));
        QVERIFY(QFileInfo::exists(cloned + QStringLiteral("/.gitmodules")));
        QVERIFY(QFileInfo(cloned + QStringLiteral("/lib")).isDir());
        QVERIFY(QDir(cloned + QStringLiteral("/lib"))
                    .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
                    .isEmpty());
        QVERIFY(!QFileInfo::exists(cloned + QStringLiteral("/.git/modules")));
        // A pull does not fetch it either.
        VERIFY_SUCCESS(call(QStringLiteral("git_pull"), json{{"repo_path", cloned.toStdString()}}));
        QVERIFY(QDir(cloned + QStringLiteral("/lib"))
                    .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
                    .isEmpty());
    }

    void repositoryPathRefusals_data()
    {
        QTest::addColumn<QString>("repoPath");
        QTest::addColumn<QString>("fragment");

        const QString outside = QStringLiteral("is outside the allowed roots");
        QTest::newRow("absolute, outside") << QStringLiteral("{OUT}/repo") << outside;
        QTest::newRow("sibling sharing the prefix") << QStringLiteral("{WORK}/root-evil/repo") << outside;
        QTest::newRow("relative sibling sharing the prefix") << QStringLiteral("../root-evil/repo") << outside;
        QTest::newRow("absolute .. escape") << QStringLiteral("{ROOT}/../outside/repo") << outside;
        QTest::newRow("relative .. escape") << QStringLiteral("../outside/repo") << outside;
        QTest::newRow(".. escape through a directory") << QStringLiteral("remote.git/../../outside/repo") << outside;
        QTest::newRow("symlink leading out")
            << QStringLiteral("{ROOT}/link") << QStringLiteral("resolves to '{OUT}/repo'");
        QTest::newRow("relative symlink leading out") << QStringLiteral("link") << outside;
        QTest::newRow(".git file pointing out")
            << QStringLiteral("{ROOT}/gitfile") << QStringLiteral("has a .git file whose gitdir");
        QTest::newRow(".git link pointing out")
            << QStringLiteral("{ROOT}/gitlink") << QStringLiteral("has a .git link leading to '{OUT}/repo/.git'");
        QTest::newRow("missing") << QStringLiteral("{ROOT}/missing") << QStringLiteral("does not exist");
        QTest::newRow("the filesystem root") << QStringLiteral("/") << outside;
    }

    void repositoryPathRefusals()
    {
        QFETCH(QString, repoPath);
        QFETCH(QString, fragment);
        SETUP(makeEscapeFixtures());
        const Snapshot outsideBefore = snapshot(m_outside);
        const Snapshot evilBefore = snapshot(m_evil);
        const Snapshot rootBefore = snapshot(m_root);

        for (const auto& [tool, arguments] : repositoryToolCalls(expand(repoPath))) {
            ToolResult result = call(tool, arguments);
            QVERIFY2(result.isError, qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(
                messageOf(result).contains(expand(fragment)), qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(messageOf(result).contains(QLatin1String("repo_path")), qPrintable(describe(result)));
        }
        QString difference = snapshotDifference(outsideBefore, snapshot(m_outside));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        difference = snapshotDifference(evilBefore, snapshot(m_evil));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        difference = snapshotDifference(rootBefore, snapshot(m_root));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    // A repository inside the root whose git data (objects, refs, logs, the index, its config and
    // the files the config names, alternates) leads to a repository outside through its own .git:
    // every tool refuses it, naming what leads out; a clone from it too; nothing outside changes
    // (git_commit would write its objects, refs and reflog there), nothing is created there.
    void gitDataLeadingOutsideIsRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("fragment"); // what the refusal names

        const auto row = [](const char* kind, const char* fragment) {
            QTest::newRow(kind) << QString::fromLatin1(kind) << QString::fromLatin1(fragment);
        };
        row("objects", ".git/objects");
        row("refs", ".git/refs");
        row("refs/heads", ".git/refs/heads");
        row("refs/heads/main", ".git/refs/heads/main");
        row("packed-refs", ".git/packed-refs");
        row("HEAD", ".git/HEAD");
        row("index", ".git/index");
        row("config", ".git/config");
        row("logs", ".git/logs");
        row("logs/HEAD, leading nowhere yet", ".git/logs/HEAD");
        row("ORIG_HEAD", ".git/ORIG_HEAD");
        row("info/exclude", ".git/info/exclude");
        row("modules", ".git/modules");
        row("objects/pack", ".git/objects/pack");
        row("a pack file", ".git/objects/pack/pack-");
        row("a loose object directory", ".git/objects/");
        row("alternates, absolute", ".git/objects/info/alternates");
        row("alternates, relative", ".git/objects/info/alternates");
        row("alternates of an alternate", "middle.git/objects/info/alternates");
        row("include.path", "include.path");
        row("include.path, relative", "include.path");
        row("includeIf", "includeif.gitdir:/.path");
        row("core.excludesFile", "core.excludesfile");
        row("core.attributesFile", "core.attributesfile");
        row("core.worktree", "outside the allowed roots");
        row("commondir", "is a worktree of the repository at");
    }

    void gitDataLeadingOutsideIsRefused()
    {
        QFETCH(QString, kind);
        QFETCH(QString, fragment);
        QString secretGit;
        QString secretHead;
        SETUP(makeOutsideSecret(&secretGit, &secretHead));

        // Inside: a clone made by git, then one of its entries made to lead out.
        const QString inside = rootPath(QStringLiteral("inside"));
        GIT_OK(m_root, "clone", "-q", m_remote, inside);
        QVERIFY(writeFile(inside + QStringLiteral("/a.txt"), "changed inside\n"));
        const QString dotGit = inside + QStringLiteral("/.git");
        // Replaces `entry` of the inside .git by a link to the same entry of the secret one.
        const auto linkOut = [&](const QString& entry, const QString& target = QString()) {
            const QString path = dotGit + QLatin1Char('/') + entry;
            if (QFileInfo(path).isDir() && !QFileInfo(path).isSymLink())
                QDir(path).removeRecursively();
            else
                QFile::remove(path);
            return QFile::link(target.isEmpty() ? secretGit + QLatin1Char('/') + entry : target, path);
        };
        // Reads the secret commit through what leads out, when the tools follow it.
        const auto pointMainAtSecret
            = [&] { return writeFile(dotGit + QStringLiteral("/refs/heads/main"), secretHead.toLatin1() + '\n'); };
        const QString looseDirectory = QStringLiteral("objects/") + secretHead.left(2);
        if (kind == QLatin1String("logs/HEAD, leading nowhere yet")) {
            QVERIFY(linkOut(QStringLiteral("logs/HEAD"), m_outside + QStringLiteral("/created-by-a-reflog")));
        } else if (kind == QLatin1String("a pack file")) {
            QDir packs(secretGit + QStringLiteral("/objects/pack"));
            const QStringList files = packs.entryList({QStringLiteral("pack-*")}, QDir::Files);
            QVERIFY(!files.isEmpty());
            for (const QString& file : files)
                QVERIFY(QFile::link(packs.filePath(file), dotGit + QStringLiteral("/objects/pack/") + file));
        } else if (kind == QLatin1String("a loose object directory")) {
            QVERIFY(linkOut(looseDirectory));
            QVERIFY(pointMainAtSecret());
        } else if (kind.startsWith(QLatin1String("alternates"))) {
            QString alternate = secretGit + QStringLiteral("/objects");
            if (kind == QLatin1String("alternates, relative")) {
                alternate = QStringLiteral("../../../../outside/secret/.git/objects");
            } else if (kind == QLatin1String("alternates of an alternate")) {
                // An alternate inside the root is fine; its own alternate leads out.
                const QString middle = rootPath(QStringLiteral("middle.git"));
                GIT_OK(m_root, "clone", "-q", "--bare", m_remote, middle);
                QVERIFY(writeFile(
                    middle + QStringLiteral("/objects/info/alternates"), QFile::encodeName(secretGit) + "/objects\n"));
                alternate = middle + QStringLiteral("/objects");
            }
            QVERIFY(
                writeFile(dotGit + QStringLiteral("/objects/info/alternates"), QFile::encodeName(alternate) + '\n'));
            QVERIFY(pointMainAtSecret());
        } else if (kind == QLatin1String("include.path")) {
            GIT_OK(inside, "config", "include.path", secretGit + QStringLiteral("/extra.config"));
        } else if (kind == QLatin1String("include.path, relative")) {
            GIT_OK(inside, "config", "include.path", "../../../outside/secret/.git/extra.config");
        } else if (kind == QLatin1String("includeIf")) {
            GIT_OK(inside, "config", "includeIf.gitdir:/.path", secretGit + QStringLiteral("/extra.config"));
        } else if (kind == QLatin1String("core.excludesFile")) {
            GIT_OK(inside, "config", "core.excludesFile", secretGit + QStringLiteral("/ignored"));
        } else if (kind == QLatin1String("core.attributesFile")) {
            GIT_OK(inside, "config", "core.attributesFile", secretGit + QStringLiteral("/ignored"));
        } else if (kind == QLatin1String("core.worktree")) {
            GIT_OK(inside, "config", "core.worktree", QFileInfo(secretGit).path());
        } else if (kind == QLatin1String("commondir")) {
            QVERIFY(writeFile(dotGit + QStringLiteral("/commondir"), QFile::encodeName(secretGit) + '\n'));
        } else {
            QVERIFY(QFileInfo::exists(secretGit + QLatin1Char('/') + kind));
            QVERIFY(linkOut(kind));
        }
        const Snapshot outsideBefore = snapshot(m_outside);
        const Snapshot rootBefore = snapshot(m_root);

        auto calls = repositoryToolCalls(inside);
        // A clone from it (a local remote) would copy what it reads.
        calls.emplace_back(QStringLiteral("git_clone_repository"),
            json{{"repository_url", inside.toStdString()},
                {"local_path", rootPath(QStringLiteral("copy")).toStdString()}});
        for (const auto& [tool, arguments] : calls) {
            ToolResult result = call(tool, arguments);
            QVERIFY2(result.isError, qPrintable(tool + QLatin1Char(' ') + describe(result)));
            const QString message = messageOf(result);
            QVERIFY2(message.contains(fragment) && message.contains(QLatin1String("outside the allowed roots")),
                qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(!message.contains(QLatin1String("secret outside")) && !message.contains(QLatin1String("Secret")),
                qPrintable(tool + QLatin1Char(' ') + describe(result)));
        }
        QString difference = snapshotDifference(outsideBefore, snapshot(m_outside));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(!QFileInfo::exists(m_outside + QStringLiteral("/created-by-a-reflog")));
        difference = snapshotDifference(rootBefore, snapshot(m_root));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    // A loose object whose file is a link to one outside the root: too many to look at when a
    // repository opens, each is looked at when it is read. The tools that read it fail naming it,
    // nothing shows what it holds; a clone from the repository (which libgit2 reads by itself)
    // is refused before anything is copied.
    void looseObjectLeadingOutsideIsRefusedWhenRead()
    {
        QString secretGit;
        QString secretHead;
        SETUP(makeOutsideSecret(&secretGit, &secretHead));
        const QString inside = rootPath(QStringLiteral("inside"));
        GIT_OK(m_root, "clone", "-q", m_remote, inside);
        const QString object = QStringLiteral("objects/") + secretHead.left(2) + QLatin1Char('/') + secretHead.mid(2);
        QVERIFY(QDir().mkpath(inside + QStringLiteral("/.git/objects/") + secretHead.left(2)));
        QVERIFY(QFile::link(secretGit + QLatin1Char('/') + object, inside + QStringLiteral("/.git/") + object));
        QVERIFY(writeFile(inside + QStringLiteral("/.git/refs/heads/main"), secretHead.toLatin1() + '\n'));
        const Snapshot outsideBefore = snapshot(m_outside);

        const std::string path = inside.toStdString();
        const QString named = QStringLiteral(".git/") + object + QStringLiteral(" leads to '") + secretGit
            + QLatin1Char('/') + object + QStringLiteral("', outside the allowed roots");
        const std::vector<std::pair<QString, json>> reads{
            {QStringLiteral("git_log"), json{{"repo_path", path}}},
            {QStringLiteral("git_show"), json{{"repo_path", path}, {"revision", secretHead.toStdString()}}},
            {QStringLiteral("git_show"), json{{"repo_path", path}, {"revision", secretHead.left(9).toStdString()}}},
            {QStringLiteral("git_status"), json{{"repo_path", path}}},
            {QStringLiteral("git_diff"), json{{"repo_path", path}, {"target", "HEAD"}}},
            {QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "on top"}, {"allow_empty", true}}},
            {QStringLiteral("git_create_branch"), json{{"repo_path", path}, {"branch_name", "topic"}}},
        };
        for (const auto& [tool, arguments] : reads) {
            ToolResult result = call(tool, arguments);
            QVERIFY2(result.isError, qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(messageOf(result).contains(named), qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(!QString::fromStdString(result.toJson().dump()).contains(QLatin1String("secret outside")),
                qPrintable(describe(result)));
        }
        ToolResult clone = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", path}, {"local_path", rootPath(QStringLiteral("copy")).toStdString()}});
        QVERIFY2(clone.isError, qPrintable(describe(clone)));
        QVERIFY2(messageOf(clone).contains(named), qPrintable(describe(clone)));
        QVERIFY(!QFileInfo::exists(rootPath(QStringLiteral("copy"))));
        const QString difference = snapshotDifference(outsideBefore, snapshot(m_outside));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        // The same repository with its own object back is read again.
        QVERIFY(QFile::remove(inside + QStringLiteral("/.git/") + object));
        GIT_OK(inside, "update-ref", "refs/heads/main", m_second);
        VERIFY_SUCCESS(call(QStringLiteral("git_log"), json{{"repo_path", path}}));
    }

    // The same kinds of link and alternate, leading to places inside the roots, are used.
    void gitDataInsideTheRootsIsUsed()
    {
        // A clone sharing the remote's objects (objects/info/alternates inside the root).
        const QString shared = rootPath(QStringLiteral("shared"));
        GIT_OK(m_root, "clone", "-q", "--shared", m_remote, shared);
        QVERIFY(QFileInfo::exists(shared + QStringLiteral("/.git/objects/info/alternates")));
        // A clone whose refs and logs live elsewhere in the root, behind links.
        const QString linked = rootPath(QStringLiteral("linked"));
        GIT_OK(m_root, "clone", "-q", m_remote, linked);
        const QString store = rootPath(QStringLiteral("store"));
        QVERIFY(QDir().mkpath(store));
        for (const QString& entry : {QStringLiteral("refs"), QStringLiteral("logs")}) {
            QVERIFY(QDir().rename(linked + QStringLiteral("/.git/") + entry, store + QLatin1Char('/') + entry));
            QVERIFY(QFile::link(store + QLatin1Char('/') + entry, linked + QStringLiteral("/.git/") + entry));
        }
        GIT_OK(linked, "config", "include.path", store + QStringLiteral("/extra.config"));
        QVERIFY(writeFile(store + QStringLiteral("/extra.config"), "[user]\n\tname = Included Author\n"));

        for (const QString& repository : {shared, linked}) {
            const std::string path = repository.toStdString();
            ToolResult result = call(QStringLiteral("git_log"), json{{"repo_path", path}});
            VERIFY_SUCCESS(result);
            QCOMPARE(str(result.structuredContent["commits"][0]["id"]), m_second);
            QVERIFY(writeFile(repository + QStringLiteral("/b.txt"), "bee\n"));
            VERIFY_SUCCESS(call(
                QStringLiteral("git_commit"), json{{"repo_path", path}, {"message", "Add b"}, {"files", {"b.txt"}}}));
            GIT_OUT(author, repository, "log", "-1", "--format=%an");
            QCOMPARE(author, repository == linked ? QStringLiteral("Included Author") : QString::fromUtf8(FixtureName));
            GIT_OUT(status, repository, "status", "--porcelain");
            QCOMPARE(status, QString());
        }
        QVERIFY(QFileInfo::exists(store + QStringLiteral("/logs/HEAD")));
    }

    void noRootsConfigured()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "changed\n"));
        const auto environment = makeEnvironment({}, GitUrlPolicy(GitUrlPolicy::defaultSchemes(), true));
        // A configured root that does not exist is no root either.
        const auto missingRoot = makeEnvironment(
            {m_workPath + QStringLiteral("/not-there")}, GitUrlPolicy(GitUrlPolicy::defaultSchemes(), true));
        QVERIFY(!missingRoot->paths.hasRoots());
        const Snapshot before = snapshot(m_workPath);

        for (const auto& current : {environment, missingRoot}) {
            auto calls = repositoryToolCalls(clone);
            calls.emplace_back(QStringLiteral("git_clone_repository"),
                json{{"repository_url", m_remote.toStdString()},
                    {"local_path", rootPath(QStringLiteral("new")).toStdString()}});
            for (const auto& [tool, arguments] : calls) {
                ToolResult result = callIn(current, tool, arguments);
                QVERIFY2(result.isError, qPrintable(tool + QLatin1Char(' ') + describe(result)));
                const QString message = messageOf(result);
                QVERIFY2(message.contains(QLatin1String("roots")) && message.contains(QLatin1String("ASSISTOS_FS_ROOT"))
                        && message.contains(QLatin1String("WORKSPACE_ROOT")),
                    qPrintable(tool + QLatin1Char(' ') + message));
            }
        }
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    void workTreePathRefusals_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("fragment");

        const QString leaves = QStringLiteral("leaves the repository's working tree");
        const QString gitDirectory = QStringLiteral("is inside a .git directory");
        QTest::newRow("relative ..") << QStringLiteral("../outside.txt") << leaves;
        QTest::newRow("absolute outside") << QStringLiteral("{OUT}/repo/a.txt") << leaves;
        QTest::newRow("absolute in the root, outside the tree") << QStringLiteral("{ROOT}/remote.git/HEAD") << leaves;
        QTest::newRow(".. after a directory") << QStringLiteral("sub/../../x.txt") << leaves;
        QTest::newRow(".git itself") << QStringLiteral(".git") << gitDirectory;
        QTest::newRow(".git/config") << QStringLiteral(".git/config") << gitDirectory;
        QTest::newRow(".git/hooks") << QStringLiteral(".git/hooks/pre-commit") << gitDirectory;
        QTest::newRow(".GIT in another case") << QStringLiteral(".GIT/config") << gitDirectory;
        QTest::newRow(".git through ..") << QStringLiteral("sub/../.git/HEAD") << gitDirectory;
        QTest::newRow("absolute .git") << QStringLiteral("{ROOT}/clone/.git/index") << gitDirectory;
        QTest::newRow("through a link leading out")
            << QStringLiteral("escape/a.txt") << QStringLiteral("passes through a symbolic link leading to");
        QTest::newRow("through a link into .git")
            << QStringLiteral("gitdir/config") << QStringLiteral("leads into the .git directory");
    }

    void workTreePathRefusals()
    {
        QFETCH(QString, path);
        QFETCH(QString, fragment);
        SETUP(makeEscapeFixtures());
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(QFile::link(m_outside + QStringLiteral("/repo"), clone + QStringLiteral("/escape")));
        QVERIFY(QFile::link(clone + QStringLiteral("/.git"), clone + QStringLiteral("/gitdir")));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "changed\n"));
        const Snapshot before = snapshot(m_workPath);

        const std::string repoPath = clone.toStdString();
        const std::string given = expand(path).toStdString();
        const std::vector<std::pair<QString, json>> calls{
            {QStringLiteral("git_add"), json{{"repo_path", repoPath}, {"files", {given}}}},
            {QStringLiteral("git_add"), json{{"repo_path", repoPath}, {"files", {"a.txt", given}}}},
            {QStringLiteral("git_commit"), json{{"repo_path", repoPath}, {"message", "refused"}, {"files", {given}}}},
            {QStringLiteral("git_commit"),
                json{{"repo_path", repoPath}, {"message", "refused"}, {"files", {"a.txt", given}}}},
            {QStringLiteral("git_diff"), json{{"repo_path", repoPath}, {"paths", {given}}}},
        };
        for (const auto& [tool, arguments] : calls) {
            ToolResult result = call(tool, arguments);
            QVERIFY2(result.isError, qPrintable(tool + QLatin1Char(' ') + describe(result)));
            QVERIFY2(messageOf(result).contains(fragment), qPrintable(tool + QLatin1Char(' ') + describe(result)));
        }
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    void cloneUrlRefusals_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("allowLocal");
        QTest::addColumn<QString>("fragment");

        const QString helper = QStringLiteral("runs a helper program; it is refused");
        const QString dash = QStringLiteral("could be taken for an option; it is refused");
        const QString noLocal = QStringLiteral("the configuration does not allow local remotes");
        QTest::newRow("ext::") << QStringLiteral("ext::sh -c touch% {WORK}/pwned") << true << helper;
        QTest::newRow("ext:: without spaces") << QStringLiteral("ext::touch%{WORK}/pwned") << true << helper;
        QTest::newRow("fd::") << QStringLiteral("fd::3") << true << helper;
        QTest::newRow("ftp") << QStringLiteral("ftp://example.com/repo.git") << true
                             << QStringLiteral("uses the scheme 'ftp', which is not allowed");
        QTest::newRow("http with the default schemes") << QStringLiteral(
            "http://example.com/repo.git") << true << QStringLiteral("uses the scheme 'http', which is not allowed");
        QTest::newRow("ssh host beginning with -")
            << QStringLiteral("ssh://-oProxyCommand=touch%20{WORK}/pwned/x") << true << dash;
        QTest::newRow("scp-like host beginning with -")
            << QStringLiteral("git@-oProxyCommand=touch:repo") << true << dash;
        QTest::newRow("scp-like path beginning with -") << QStringLiteral("git@example.com:-repo") << true << dash;
        QTest::newRow("URL beginning with -") << QStringLiteral("-uhttps://x") << true << dash;
        QTest::newRow("--upload-pack") << QStringLiteral("--upload-pack=touch%20{WORK}/pwned") << true << dash;
        QTest::newRow("--upload-pack with a space") << QStringLiteral("--upload-pack=touch {WORK}/pwned") << true
                                                    << QStringLiteral("whitespace or a control character");
        QTest::newRow("file:// not allowed") << QStringLiteral("file://{REMOTE}") << false << noLocal;
        QTest::newRow("local path not allowed") << QStringLiteral("{REMOTE}") << false << noLocal;
        QTest::newRow("relative path") << QStringLiteral("remote.git") << true
                                       << QStringLiteral("neither a URL nor an absolute local path");
        QTest::newRow("local remote outside the roots")
            << QStringLiteral("{OUT}/remote.git") << true << QStringLiteral("is outside the allowed roots");
        QTest::newRow("file:// remote outside the roots")
            << QStringLiteral("file://{OUT}/remote.git") << true << QStringLiteral("is outside the allowed roots");
        QTest::newRow("file:// remote in the prefix sibling") << QStringLiteral("file://{WORK}/root-evil/remote.git")
                                                              << true << QStringLiteral("is outside the allowed roots");
        QTest::newRow("local remote through a link leading out")
            << QStringLiteral("{ROOT}/outlink") << true << QStringLiteral("is outside the allowed roots");
        QTest::newRow("file:// with a host")
            << QStringLiteral("file://example.com{REMOTE}") << true << QStringLiteral("names a host");
        QTest::newRow("newline") << QStringLiteral("https://example.com/repo.git\n--upload-pack=x") << true
                                 << QStringLiteral("whitespace or a control character");
    }

    void cloneUrlRefusals()
    {
        QFETCH(QString, url);
        QFETCH(bool, allowLocal);
        QFETCH(QString, fragment);
        QVERIFY(copyTree(m_template, m_outside + QStringLiteral("/remote.git")));
        QVERIFY(copyTree(m_template, m_evil + QStringLiteral("/remote.git")));
        QVERIFY(QFile::link(m_outside + QStringLiteral("/remote.git"), rootPath(QStringLiteral("outlink"))));
        const auto environment = makeEnvironment({m_root}, GitUrlPolicy(GitUrlPolicy::defaultSchemes(), allowLocal));
        const Snapshot before = snapshot(m_workPath);
        const QString destination = rootPath(QStringLiteral("dest"));

        ToolResult result = callIn(environment, QStringLiteral("git_clone_repository"),
            json{{"repository_url", expand(url).toStdString()}, {"local_path", destination.toStdString()}});
        VERIFY_FAILURE(result, expand(fragment));
        QVERIFY2(messageOf(result).contains(QLatin1String("repository_url")), qPrintable(describe(result)));
        QVERIFY(result.structuredContent["local_path_created"].is_null());
        QVERIFY(!QFileInfo::exists(destination));
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    void cloneDestinationRefusals_data()
    {
        QTest::addColumn<QString>("localPath");
        QTest::addColumn<QString>("fragment");

        const QString outside = QStringLiteral("is outside the allowed roots");
        QTest::newRow("absolute, outside") << QStringLiteral("{OUT}/dest") << outside;
        QTest::newRow("sibling sharing the prefix") << QStringLiteral("{WORK}/root-evil/dest") << outside;
        QTest::newRow("relative .. escape") << QStringLiteral("../outside/dest") << outside;
        QTest::newRow(".. escape through a new directory")
            << QStringLiteral("{ROOT}/new/../../outside/dest") << outside;
        QTest::newRow(".. inside a new directory")
            << QStringLiteral("{ROOT}/new/../dest") << QStringLiteral("has '..' after a directory that does not exist");
        QTest::newRow("through a link leading out") << QStringLiteral("{ROOT}/outlink/dest") << outside;
        QTest::newRow("the root itself") << QStringLiteral("{ROOT}") << QStringLiteral("is an allowed root itself");
        QTest::newRow("the root, relative") << QStringLiteral(".") << QStringLiteral("is an allowed root itself");
        QTest::newRow("an existing file") << QStringLiteral("{ROOT}/file.txt") << QStringLiteral("is an existing file");
        QTest::newRow("below a file") << QStringLiteral("{ROOT}/file.txt/dest") << QStringLiteral("lies below a file");
        QTest::newRow("a dangling link") << QStringLiteral("{ROOT}/dangling")
                                         << QStringLiteral("is a symbolic link that leads nowhere");
    }

    void cloneDestinationRefusals()
    {
        QFETCH(QString, localPath);
        QFETCH(QString, fragment);
        QVERIFY(QDir().mkpath(m_outside + QStringLiteral("/target")));
        QVERIFY(QFile::link(m_outside + QStringLiteral("/target"), rootPath(QStringLiteral("outlink"))));
        QVERIFY(QFile::link(m_workPath + QStringLiteral("/nowhere"), rootPath(QStringLiteral("dangling"))));
        QVERIFY(writeFile(rootPath(QStringLiteral("file.txt")), "a file\n"));
        const Snapshot before = snapshot(m_workPath);

        ToolResult result = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", m_remote.toStdString()}, {"local_path", expand(localPath).toStdString()}});
        VERIFY_FAILURE(result, fragment);
        QVERIFY2(messageOf(result).contains(QLatin1String("local_path")), qPrintable(describe(result)));
        QVERIFY(result.structuredContent["local_path_created"].is_null());
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    void revisionRefusals_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments"); // JSON; {ROOT} and the like are replaced
        QTest::addColumn<QString>("fragment");

        const QString dash = QStringLiteral("begins with '-', which could be taken for an option");
        const QString invalid = QStringLiteral("is not a valid branch name");
        const auto row = [](const char* name, const char* tool, const char* arguments, const QString& fragment) {
            QTest::newRow(name) << QString::fromLatin1(tool) << QString::fromLatin1(arguments) << fragment;
        };
        row("checkout --upload-pack", "git_checkout", R"({"branch_name": "--upload-pack=touch {WORK}/pwned"})", dash);
        row("checkout -b", "git_checkout", R"({"branch_name": "-b"})", dash);
        row("checkout a..b", "git_checkout", R"({"branch_name": "a..b"})", invalid);
        row("checkout x.lock", "git_checkout", R"({"branch_name": "x.lock"})", invalid);
        row("checkout has space", "git_checkout", R"({"branch_name": "has space"})", invalid);
        row("checkout HEAD", "git_checkout", R"({"branch_name": "HEAD"})", invalid);
        row("checkout control character", "git_checkout", R"({"branch_name": "a\u0007b"})",
            QStringLiteral("holds a control character"));
        row("create_branch -b", "git_create_branch", R"({"branch_name": "-b"})", dash);
        row("create_branch --upload-pack", "git_create_branch", R"({"branch_name": "--upload-pack=x"})", dash);
        row("create_branch a..b", "git_create_branch", R"({"branch_name": "a..b"})", invalid);
        row("create_branch x.lock", "git_create_branch", R"({"branch_name": "x.lock"})", invalid);
        row("create_branch has space", "git_create_branch", R"({"branch_name": "has space"})", invalid);
        row("create_branch trailing slash", "git_create_branch", R"({"branch_name": "topic/"})", invalid);
        row("create_branch tilde", "git_create_branch", R"({"branch_name": "a~1"})", invalid);
        row("create_branch base --orphan", "git_create_branch", R"({"branch_name": "ok", "base": "--orphan"})", dash);
        row("log revision --all", "git_log", R"({"revision": "--all"})", dash);
        row("log revision --output", "git_log", R"({"revision": "--output={WORK}/pwned"})", dash);
        row("show revision -p", "git_show", R"({"revision": "-p"})", dash);
        row("diff target --output", "git_diff", R"({"target": "--output={WORK}/pwned"})", dash);
        row("push branch --force", "git_push", R"({"branch": "--force"})", dash);
        row("push branch a..b", "git_push", R"({"branch": "a..b"})", invalid);
        row("push remote --mirror", "git_push", R"({"remote": "--mirror"})", dash);
        row("push remote --receive-pack", "git_push", R"({"remote": "--receive-pack=touch {WORK}/pwned"})", dash);
        row("pull branch --rebase", "git_pull", R"({"branch": "--rebase"})", dash);
        row("pull branch x.lock", "git_pull", R"({"branch": "x.lock"})", invalid);
        row("pull remote --upload-pack", "git_pull", R"({"remote": "--upload-pack=touch {WORK}/pwned"})", dash);
        row("clone branch_name --upload-pack", "git_clone_repository",
            R"({"repository_url": "{REMOTE}", "local_path": "{ROOT}/dest", "branch_name": "--upload-pack=x"})", dash);
        row("clone branch_name -b", "git_clone_repository",
            R"({"repository_url": "{REMOTE}", "local_path": "{ROOT}/dest", "branch_name": "-b"})", dash);
        row("clone branch_name a..b", "git_clone_repository",
            R"({"repository_url": "{REMOTE}", "local_path": "{ROOT}/dest", "branch_name": "a..b"})", invalid);
        row("clone branch_name has space", "git_clone_repository",
            R"({"repository_url": "{REMOTE}", "local_path": "{ROOT}/dest", "branch_name": "has space"})", invalid);
    }

    void revisionRefusals()
    {
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        QFETCH(QString, fragment);
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(writeFile(clone + QStringLiteral("/a.txt"), "changed\n"));
        GIT_OK(clone, "commit", "-q", "-am", "local");
        const Snapshot before = snapshot(m_workPath);

        json parsed = json::parse(expand(arguments).toStdString());
        if (tool != QLatin1String("git_clone_repository"))
            parsed["repo_path"] = clone.toStdString();
        ToolResult result = call(tool, parsed);
        VERIFY_FAILURE(result, fragment);
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    void refusedRemoteUrlInConfig_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("fragment");

        QTest::newRow("ext:: url") << QStringLiteral("remote.origin.url")
                                   << QStringLiteral("ext::sh -c touch% {WORK}/pwned")
                                   << QStringLiteral("runs a helper program");
        QTest::newRow("fd:: url") << QStringLiteral("remote.origin.url") << QStringLiteral("fd::3")
                                  << QStringLiteral("runs a helper program");
        QTest::newRow("ssh option url") << QStringLiteral("remote.origin.url")
                                        << QStringLiteral("ssh://-oProxyCommand=touch%20{WORK}/pwned/x")
                                        << QStringLiteral("could be taken for an option");
        QTest::newRow("http url") << QStringLiteral("remote.origin.url") << QStringLiteral("http://127.0.0.1:9/x.git")
                                  << QStringLiteral("uses the scheme 'http', which is not allowed");
        QTest::newRow("local remote outside the roots")
            << QStringLiteral("remote.origin.url") << QStringLiteral("{OUT}/remote.git")
            << QStringLiteral("is outside the allowed roots");
        QTest::newRow("file:// remote outside the roots")
            << QStringLiteral("remote.origin.url") << QStringLiteral("file://{OUT}/remote.git")
            << QStringLiteral("is outside the allowed roots");
        QTest::newRow("ext:: pushurl") << QStringLiteral("remote.origin.pushurl")
                                       << QStringLiteral("ext::sh -c touch% {WORK}/pwned")
                                       << QStringLiteral("runs a helper program");
        QTest::newRow("pushurl outside the roots")
            << QStringLiteral("remote.origin.pushurl") << QStringLiteral("{OUT}/remote.git")
            << QStringLiteral("is outside the allowed roots");
    }

    void refusedRemoteUrlInConfig()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, fragment);
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(copyTree(m_template, m_outside + QStringLiteral("/remote.git")));
        GIT_OK(clone, "config", key, expand(value));
        QString local;
        SETUP(commitWithGit(clone, QStringLiteral("e.txt"), "local\n", QStringLiteral("local"), &local));
        // Something to pull, so a pull that went through would change the clone.
        QString other;
        SETUP(cloneWithGit(QStringLiteral("other"), &other));
        QString ahead;
        SETUP(commitWithGit(other, QStringLiteral("f.txt"), "remote\n", QStringLiteral("remote"), &ahead));
        GIT_OK(other, "push", "-q", "origin", "main");
        const Snapshot before = snapshot(m_workPath);

        const bool pushOnly = key.endsWith(QLatin1String("pushurl"));
        QStringList tools{QStringLiteral("git_push")};
        if (!pushOnly)
            tools << QStringLiteral("git_pull");
        for (const QString& tool : tools) {
            ToolResult result = call(tool, json{{"repo_path", clone.toStdString()}});
            VERIFY_FAILURE(result, expand(fragment));
            QVERIFY2(messageOf(result).contains(QLatin1String("the URL of remote \"origin\"")),
                qPrintable(describe(result)));
        }
        const QString difference = snapshotDifference(before, snapshot(m_workPath));
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(touches().empty());
    }

    // --- who is told -----------------------------------------------------------------------------

    // However the repository is named (a link inside the root, a relative path), the watcher hears
    // its canonical path with the call's id; read tools say they changed nothing, write tools that
    // they did.
    void repositoryTouchedNamesTheCanonicalPath()
    {
        QString clone;
        SETUP(cloneWithGit(QStringLiteral("clone"), &clone));
        QVERIFY(QFile::link(clone, rootPath(QStringLiteral("alias"))));
        GIT_OK(clone, "branch", "-q", "topic");
        QVERIFY(writeFile(clone + QStringLiteral("/b.txt"), "bee\n"));
        const std::string viaLink = rootPath(QStringLiteral("alias")).toStdString();
        const std::string relative = "clone";

        struct Expected
        {
            QString tool;
            json arguments;
            bool changed;
        };
        const std::vector<Expected> calls{
            {QStringLiteral("git_status"), json{{"repo_path", viaLink}}, false},
            {QStringLiteral("git_log"), json{{"repo_path", relative}}, false},
            {QStringLiteral("git_diff"), json{{"repo_path", viaLink}}, false},
            {QStringLiteral("git_show"), json{{"repo_path", relative}}, false},
            {QStringLiteral("git_branch_list"), json{{"repo_path", viaLink}}, false},
            {QStringLiteral("git_add"), json{{"repo_path", relative}, {"files", {"b.txt"}}}, true},
            {QStringLiteral("git_commit"), json{{"repo_path", viaLink}, {"message", "b"}}, true},
            {QStringLiteral("git_create_branch"), json{{"repo_path", relative}, {"branch_name", "other"}}, true},
            {QStringLiteral("git_checkout"), json{{"repo_path", viaLink}, {"branch_name", "topic"}}, true},
            {QStringLiteral("git_checkout"), json{{"repo_path", relative + "/."}, {"branch_name", "main"}}, true},
            {QStringLiteral("git_push"), json{{"repo_path", viaLink}}, true},
            {QStringLiteral("git_pull"), json{{"repo_path", relative}}, true},
        };
        for (const Expected& expected : calls) {
            const std::size_t before = touches().size();
            ToolResult result = call(expected.tool, expected.arguments);
            VERIFY_SUCCESS(result);
            const std::vector<Touch> all = touches();
            QCOMPARE(all.size(), before + 1);
            QCOMPARE(all.back().repository, clone);
            QCOMPARE(all.back().callId, m_lastCallId);
            QCOMPARE(all.back().changed, expected.changed);
        }

        const std::size_t before = touches().size();
        ToolResult result = call(QStringLiteral("git_clone_repository"),
            json{{"repository_url", m_remote.toStdString()}, {"local_path", "alias/../second"}});
        VERIFY_SUCCESS(result);
        const std::vector<Touch> all = touches();
        QCOMPARE(all.size(), before + 1);
        QCOMPARE(all.back().repository, str(result.structuredContent["local_path_created"]));
        QCOMPARE(all.back().changed, true);
        QCOMPARE(all.back().callId, m_lastCallId);

        // Refused calls tell nobody.
        const std::size_t afterAll = touches().size();
        VERIFY_FAILURE(call(QStringLiteral("git_status"), json{{"repo_path", m_outside.toStdString()}}),
            QLatin1String("outside the allowed roots"));
        VERIFY_FAILURE(call(QStringLiteral("git_commit"), json{{"repo_path", relative}, {"message", "nothing"}}),
            QLatin1String("Nothing to commit"));
        QCOMPARE(touches().size(), afterAll);
    }
};

QTEST_GUILESS_MAIN(TestGitTools)
#include "tst_gittools.moc"
