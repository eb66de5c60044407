// GitPathPolicy: where git tools may work, against real directory trees with symlinks, sibling
// prefixes, .git files and worktrees.

#include "policy/gitpathpolicy.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

class TestGitPathPolicy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rootsAreCanonicalAndProblemsSaid();
    void relativeRootIsTakenFromTheCurrentDirectory();
    void contains_data();
    void contains();
    void rootsFromEnvironment();
    void noRootsSaysHowToConfigureOne();
    void resolveRepository_data();
    void resolveRepository();
    void resolveDestination_data();
    void resolveDestination();
    void resolveInsideWorkTree_data();
    void resolveInsideWorkTree();
    void noWorkTree();

private:
    // "{base}" in a row stands for the temporary directory.
    QString expanded(const QString& text) const { return QString(text).replace(QStringLiteral("{base}"), m_base); }
    void makeDirectory(const QString& relative);
    void makeFile(const QString& relative, const QByteArray& content = QByteArray("x\n"));
    void makeLink(const QString& target, const QString& relative);
    GitPathPolicy policy() const
    {
        return GitPathPolicy({m_base + QStringLiteral("/root"), m_base + QStringLiteral("/other-root")});
    }

    QTemporaryDir m_directory;
    QString m_base;
};

void TestGitPathPolicy::makeDirectory(const QString& relative)
{
    QVERIFY2(QDir(m_base).mkpath(relative), qPrintable(relative));
}

void TestGitPathPolicy::makeFile(const QString& relative, const QByteArray& content)
{
    QFile file(m_base + QLatin1Char('/') + relative);
    QVERIFY2(file.open(QIODevice::WriteOnly), qPrintable(relative));
    file.write(content);
}

void TestGitPathPolicy::makeLink(const QString& target, const QString& relative)
{
    QVERIFY2(QFile::link(expanded(target), m_base + QLatin1Char('/') + relative), qPrintable(relative));
}

// {base}/
//   root/                      an allowed root
//     repo/                    a repository (.git directory) with links of every kind
//     plain/  file.txt
//     link-in-root -> repo     link-out -> outside     dangling -> nowhere
//     gitfile-in/.git          "gitdir: ../gitdirs/in.git" (inside)
//     gitfile-out/.git         "gitdir: {base}/outside/repo.git"
//     gitfile-rel-out/.git     "gitdir: ../../outside/repo.git"
//     gitlink-out/.git -> outside/repo.git
//     worktree-out/.git        "gitdir: ../wt/gd", whose commondir is outside
//   root-evil/repo/            a sibling sharing the root's prefix
//   other-root/                another allowed root
//   outside/  secret.txt  repo.git/
//   link-to-root-repo -> root/repo
void TestGitPathPolicy::initTestCase()
{
    QVERIFY(m_directory.isValid());
    m_base = QFileInfo(m_directory.path()).canonicalFilePath();
    for (const char* directory : {"root/repo/.git", "root/repo/sub", "root/plain", "root/gitdirs/in.git",
             "root/gitfile-in", "root/gitfile-out", "root/gitfile-rel-out", "root/gitlink-out", "root/wt/gd",
             "root/worktree-out", "root-evil/repo/.git", "other-root", "outside/repo.git"})
        makeDirectory(QLatin1String(directory));
    makeFile(QStringLiteral("root/repo/.git/HEAD"), "ref: refs/heads/main\n");
    makeFile(QStringLiteral("root/repo/sub/a.txt"));
    makeFile(QStringLiteral("root/file.txt"));
    makeFile(QStringLiteral("outside/secret.txt"));
    makeLink(QStringLiteral("{base}/outside/secret.txt"), QStringLiteral("root/repo/sub/link-to-outside-file"));
    makeLink(QStringLiteral("{base}/outside"), QStringLiteral("root/repo/link-to-outside-dir"));
    makeLink(QStringLiteral("sub"), QStringLiteral("root/repo/link-inside"));
    makeLink(QStringLiteral(".git"), QStringLiteral("root/repo/link-to-dotgit"));
    makeLink(QStringLiteral("{base}/nowhere"), QStringLiteral("root/repo/dangling-in-repo"));
    makeLink(QStringLiteral("repo"), QStringLiteral("root/link-in-root"));
    makeLink(QStringLiteral("{base}/outside"), QStringLiteral("root/link-out"));
    makeLink(QStringLiteral("{base}/nowhere"), QStringLiteral("root/dangling"));
    makeLink(QStringLiteral("{base}/root/repo"), QStringLiteral("link-to-root-repo"));
    makeLink(QStringLiteral("{base}/outside/repo.git"), QStringLiteral("root/gitlink-out/.git"));
    makeFile(QStringLiteral("root/gitfile-in/.git"), "gitdir: ../gitdirs/in.git\n");
    makeFile(QStringLiteral("root/gitfile-out/.git"),
        expanded(QStringLiteral("gitdir: {base}/outside/repo.git\n")).toUtf8());
    makeFile(QStringLiteral("root/gitfile-rel-out/.git"), "gitdir:   ../../outside/repo.git  \n");
    makeFile(QStringLiteral("root/worktree-out/.git"), "gitdir: ../wt/gd\n");
    makeFile(QStringLiteral("root/wt/gd/commondir"), expanded(QStringLiteral("{base}/outside/repo.git\n")).toUtf8());
}

void TestGitPathPolicy::rootsAreCanonicalAndProblemsSaid()
{
    const QString root = m_base + QStringLiteral("/root");
    const GitPathPolicy policy({root, m_base + QStringLiteral("/missing"), m_base + QStringLiteral("/root/file.txt"),
        QString(), root + QStringLiteral("/"), m_base + QStringLiteral("/root/link-in-root/../plain/..")});
    QCOMPARE(policy.roots(), QStringList{root});
    QVERIFY(policy.hasRoots());
    QCOMPARE(policy.problems().size(), 3);
    QVERIFY2(policy.problems().at(0).contains(m_base + QStringLiteral("/missing"))
            && policy.problems().at(0).contains(QStringLiteral("does not exist")),
        qPrintable(policy.problems().at(0)));
    QVERIFY2(policy.problems().at(1).contains(QStringLiteral("not a directory")), qPrintable(policy.problems().at(1)));
    QVERIFY2(policy.problems().at(2).contains(QStringLiteral("empty")), qPrintable(policy.problems().at(2)));

    // A root reached through a link is kept as where it leads.
    const GitPathPolicy linked({m_base + QStringLiteral("/link-to-root-repo")});
    QCOMPARE(linked.roots(), QStringList{m_base + QStringLiteral("/root/repo")});
}

void TestGitPathPolicy::relativeRootIsTakenFromTheCurrentDirectory()
{
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(m_base));
    const GitPathPolicy policy({QStringLiteral("root"), QStringLiteral("./other-root/")});
    QVERIFY(QDir::setCurrent(previous));
    QCOMPARE(policy.roots(), (QStringList{m_base + QStringLiteral("/root"), m_base + QStringLiteral("/other-root")}));
}

void TestGitPathPolicy::contains_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("inside");
    QTest::newRow("the root") << QStringLiteral("{base}/root") << true;
    QTest::newRow("below") << QStringLiteral("{base}/root/repo/sub") << true;
    QTest::newRow("the other root") << QStringLiteral("{base}/other-root") << true;
    QTest::newRow("sibling sharing the prefix") << QStringLiteral("{base}/root-evil") << false;
    QTest::newRow("below the sibling") << QStringLiteral("{base}/root-evil/repo") << false;
    QTest::newRow("a prefix of the root") << QStringLiteral("{base}/roo") << false;
    QTest::newRow("above") << QStringLiteral("{base}") << false;
    QTest::newRow("filesystem root") << QStringLiteral("/") << false;
    QTest::newRow("empty") << QString() << false;
}

void TestGitPathPolicy::contains()
{
    QFETCH(QString, path);
    QFETCH(bool, inside);
    QCOMPARE(policy().contains(expanded(path)), inside);
}

void TestGitPathPolicy::rootsFromEnvironment()
{
    QCOMPARE(GitPathPolicy::rootVariables(),
        (QStringList{QStringLiteral("ASSISTOS_FS_ROOT"), QStringLiteral("WORKSPACE_ROOT"),
            QStringLiteral("PLOINKY_WORKSPACE_ROOT")}));
    const QList<QByteArray> variables{"ASSISTOS_FS_ROOT", "WORKSPACE_ROOT", "PLOINKY_WORKSPACE_ROOT"};
    QList<std::optional<QByteArray>> saved;
    for (const QByteArray& variable : variables)
        saved.append(qEnvironmentVariableIsSet(variable.constData()) ? std::optional(qgetenv(variable.constData()))
                                                                     : std::nullopt);

    qputenv("ASSISTOS_FS_ROOT", (m_base + QStringLiteral("/root")).toUtf8());
    qputenv("WORKSPACE_ROOT", QByteArray()); // set but empty: no root
    qputenv("PLOINKY_WORKSPACE_ROOT", (m_base + QStringLiteral("/other-root")).toUtf8());
    const QStringList roots = GitPathPolicy::rootsFromEnvironment();
    qunsetenv("ASSISTOS_FS_ROOT");
    qunsetenv("PLOINKY_WORKSPACE_ROOT");
    qputenv("WORKSPACE_ROOT", (m_base + QStringLiteral("/other-root")).toUtf8());
    const QStringList one = GitPathPolicy::rootsFromEnvironment();
    qunsetenv("WORKSPACE_ROOT");
    const QStringList none = GitPathPolicy::rootsFromEnvironment();
    for (qsizetype i = 0; i < variables.size(); ++i) {
        if (saved.at(i))
            qputenv(variables.at(i).constData(), *saved.at(i));
    }

    QCOMPARE(roots, (QStringList{m_base + QStringLiteral("/root"), m_base + QStringLiteral("/other-root")}));
    QCOMPARE(GitPathPolicy(roots).roots(), roots);
    QCOMPARE(one, QStringList{m_base + QStringLiteral("/other-root")});
    QVERIFY(none.isEmpty());
}

void TestGitPathPolicy::noRootsSaysHowToConfigureOne()
{
    const GitPathPolicy policy;
    QVERIFY(!policy.hasRoots());
    const QString message = GitPathPolicy::noRootsMessage();
    for (const char* part :
        {"git: {roots: [", "--config", "ASSISTOS_FS_ROOT", "WORKSPACE_ROOT", "PLOINKY_WORKSPACE_ROOT"})
        QVERIFY2(message.contains(QLatin1String(part)), part);
    QString error;
    QVERIFY(!policy.resolveRepository(m_base + QStringLiteral("/root/repo"), QStringLiteral("repo_path"), &error));
    QCOMPARE(error, message);
    error.clear();
    QVERIFY(!policy.resolveDestination(m_base + QStringLiteral("/root/new"), QStringLiteral("destination"), &error));
    QCOMPARE(error, message);
    // With only roots that do not exist there is no root either.
    const GitPathPolicy missing({m_base + QStringLiteral("/missing")});
    QVERIFY(!missing.hasRoots());
    QCOMPARE(missing.problems().size(), 1);
}

void TestGitPathPolicy::resolveRepository_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected"); // empty: refused
    QTest::addColumn<QString>("error"); // a part of the message
    const QString repo = QStringLiteral("{base}/root/repo");
    const QString outside = QStringLiteral("outside the allowed roots ({base}/root, {base}/other-root)");

    QTest::newRow("absolute") << repo << repo << QString();
    QTest::newRow("relative, against the first root") << QStringLiteral("repo") << repo << QString();
    QTest::newRow("trailing slash") << QStringLiteral("{base}/root/repo/") << repo << QString();
    QTest::newRow("dot components") << QStringLiteral("{base}/root/./repo/.") << repo << QString();
    QTest::newRow(".. staying inside") << QStringLiteral("{base}/root/plain/../repo") << repo << QString();
    QTest::newRow("a root itself") << QStringLiteral("{base}/root") << QStringLiteral("{base}/root") << QString();
    QTest::newRow("the second root") << QStringLiteral("{base}/other-root") << QStringLiteral("{base}/other-root")
                                     << QString();
    QTest::newRow("link inside the root") << QStringLiteral("{base}/root/link-in-root") << repo << QString();
    // What counts is where a path leads: a link outside the roots into one leads inside.
    QTest::newRow("link outside leading inside") << QStringLiteral("{base}/link-to-root-repo") << repo << QString();
    QTest::newRow("a .git file pointing inside (relative)")
        << QStringLiteral("{base}/root/gitfile-in") << QStringLiteral("{base}/root/gitfile-in") << QString();

    QTest::newRow("sibling sharing the prefix") << QStringLiteral("{base}/root-evil/repo") << QString()
                                                << QStringLiteral("repo_path '{base}/root-evil/repo' is ") + outside;
    QTest::newRow("link leading out") << QStringLiteral("{base}/root/link-out") << QString()
                                      << QStringLiteral("resolves to '{base}/outside', which is ") + outside;
    QTest::newRow(".. leaving") << QStringLiteral("{base}/root/../outside") << QString() << outside;
    QTest::newRow("relative .. leaving") << QStringLiteral(
        "../outside") << QString() << QStringLiteral("(a relative path is taken from the first root, {base}/root)");
    QTest::newRow("relative .. through the repository") << QStringLiteral("repo/../../outside") << QString() << outside;
    QTest::newRow("missing, outside: outside first")
        << QStringLiteral("{base}/outside/missing") << QString() << outside;
    QTest::newRow("missing") << QStringLiteral("{base}/root/missing") << QString()
                             << QStringLiteral("repo_path '{base}/root/missing' does not exist");
    QTest::newRow("dangling link") << QStringLiteral("{base}/root/dangling") << QString()
                                   << QStringLiteral("does not exist");
    QTest::newRow("a file") << QStringLiteral("{base}/root/file.txt") << QString()
                            << QStringLiteral("is a file, not a directory");
    QTest::newRow(".git file pointing outside (absolute)")
        << QStringLiteral("{base}/root/gitfile-out") << QString()
        << QStringLiteral("has a .git file whose gitdir '{base}/outside/repo.git' lies ") + outside;
    QTest::newRow(".git file pointing outside (relative)")
        << QStringLiteral("{base}/root/gitfile-rel-out") << QString()
        << QStringLiteral("gitdir '../../outside/repo.git' ({base}/outside/repo.git) lies ") + outside;
    QTest::newRow(".git link pointing outside")
        << QStringLiteral("{base}/root/gitlink-out") << QString()
        << QStringLiteral("has a .git link leading to '{base}/outside/repo.git'");
    QTest::newRow("worktree of a repository outside")
        << QStringLiteral("{base}/root/worktree-out") << QString()
        << QStringLiteral("is a worktree of the repository at '{base}/outside/repo.git'");
    QTest::newRow("empty") << QString() << QString() << QStringLiteral("repo_path is empty");
    QTest::newRow("newline") << QStringLiteral("{base}/root/re\npo") << QString()
                             << QStringLiteral("repo_path contains a control character");
    QTest::newRow("NUL") << QStringLiteral("{base}/root/repo") + QChar(0) + QStringLiteral("x") << QString()
                         << QStringLiteral("repo_path contains a control character");
}

void TestGitPathPolicy::resolveRepository()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QFETCH(QString, error);
    QString message;
    const auto resolved = policy().resolveRepository(expanded(path), QStringLiteral("repo_path"), &message);
    if (expected.isEmpty()) {
        QVERIFY2(!resolved, qPrintable(resolved.value_or(QString())));
        QVERIFY2(message.contains(expanded(error)), qPrintable(message));
        QVERIFY2(message.startsWith(QLatin1String("repo_path")), qPrintable(message)); // names the argument
    } else {
        QVERIFY2(resolved, qPrintable(message));
        QCOMPARE(*resolved, expanded(expected));
        QVERIFY(message.isEmpty());
    }
}

void TestGitPathPolicy::resolveDestination_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected"); // empty: refused
    QTest::addColumn<QString>("error");
    const QString outside = QStringLiteral("outside the allowed roots ({base}/root, {base}/other-root)");

    QTest::newRow("new, absolute") << QStringLiteral("{base}/root/new") << QStringLiteral("{base}/root/new")
                                   << QString();
    QTest::newRow("new, relative") << QStringLiteral("new") << QStringLiteral("{base}/root/new") << QString();
    QTest::newRow("several missing levels")
        << QStringLiteral("{base}/root/a/./b/c/") << QStringLiteral("{base}/root/a/b/c") << QString();
    QTest::newRow("existing empty directory")
        << QStringLiteral("{base}/root/plain") << QStringLiteral("{base}/root/plain") << QString();
    QTest::newRow("below a link inside") << QStringLiteral("{base}/root/link-in-root/clone")
                                         << QStringLiteral("{base}/root/repo/clone") << QString();
    QTest::newRow("in the second root") << QStringLiteral("{base}/other-root/x")
                                        << QStringLiteral("{base}/other-root/x") << QString();
    QTest::newRow(".. before the missing part")
        << QStringLiteral("{base}/root/plain/../new") << QStringLiteral("{base}/root/new") << QString();

    QTest::newRow("the root itself") << QStringLiteral("{base}/root") << QString()
                                     << QStringLiteral("destination '{base}/root' is an allowed root itself");
    QTest::newRow("the root, trailing slash")
        << QStringLiteral("{base}/root/") << QString() << QStringLiteral("is an allowed root itself");
    QTest::newRow("the root through ..") << QStringLiteral("{base}/root/plain/..") << QString()
                                         << QStringLiteral("is an allowed root itself");
    QTest::newRow("the second root") << QStringLiteral("{base}/other-root") << QString()
                                     << QStringLiteral("is an allowed root itself");
    QTest::newRow(".. in the missing part") << QStringLiteral("{base}/root/new/../x") << QString()
                                            << QStringLiteral("has '..' after a directory that does not exist");
    QTest::newRow(".. in the missing part leaving")
        << QStringLiteral("{base}/root/new/../../outside/x") << QString() << outside;
    QTest::newRow("below a link leading out")
        << QStringLiteral("{base}/root/link-out/new") << QString()
        << QStringLiteral("resolves to '{base}/outside/new', which is ") + outside;
    QTest::newRow("sibling sharing the prefix") << QStringLiteral("{base}/root-evil/new") << QString() << outside;
    QTest::newRow("relative .. leaving") << QStringLiteral("../escape") << QString() << outside;
    QTest::newRow("outside") << QStringLiteral("{base}/outside/new") << QString() << outside;
    QTest::newRow("a dangling link") << QStringLiteral("{base}/root/dangling") << QString()
                                     << QStringLiteral("'dangling' is a symbolic link that leads nowhere");
    QTest::newRow("below a dangling link") << QStringLiteral("{base}/root/dangling/x") << QString()
                                           << QStringLiteral("'dangling' is a symbolic link that leads nowhere");
    QTest::newRow("an existing file") << QStringLiteral("{base}/root/file.txt") << QString()
                                      << QStringLiteral("is an existing file");
    QTest::newRow("below a file") << QStringLiteral("{base}/root/file.txt/x") << QString()
                                  << QStringLiteral("lies below a file");
    QTest::newRow("empty") << QString() << QString() << QStringLiteral("destination is empty");
    QTest::newRow("tab") << QStringLiteral("{base}/root/a\tb") << QString()
                         << QStringLiteral("destination contains a control character");
}

void TestGitPathPolicy::resolveDestination()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QFETCH(QString, error);
    QString message;
    const auto resolved = policy().resolveDestination(expanded(path), QStringLiteral("destination"), &message);
    if (expected.isEmpty()) {
        QVERIFY2(!resolved, qPrintable(resolved.value_or(QString())));
        QVERIFY2(message.contains(expanded(error)), qPrintable(message));
        QVERIFY2(message.startsWith(QLatin1String("destination")), qPrintable(message));
    } else {
        QVERIFY2(resolved, qPrintable(message));
        QCOMPARE(*resolved, expanded(expected));
    }
    QVERIFY2(!QFileInfo::exists(m_base + QStringLiteral("/root/new")), "resolving created something");
}

void TestGitPathPolicy::resolveInsideWorkTree_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected"); // empty: refused
    QTest::addColumn<QString>("error");
    const QString leaves = QStringLiteral("leaves the repository's working tree '{base}/root/repo'");

    QTest::newRow("dot") << QStringLiteral(".") << QStringLiteral(".") << QString();
    QTest::newRow("the tree, absolute") << QStringLiteral("{base}/root/repo") << QStringLiteral(".") << QString();
    QTest::newRow("the tree, absolute with slash")
        << QStringLiteral("{base}/root/repo/") << QStringLiteral(".") << QString();
    QTest::newRow("relative") << QStringLiteral("a/b.txt") << QStringLiteral("a/b.txt") << QString();
    QTest::newRow("existing") << QStringLiteral("sub/a.txt") << QStringLiteral("sub/a.txt") << QString();
    QTest::newRow("absolute inside") << QStringLiteral("{base}/root/repo/sub/a.txt") << QStringLiteral("sub/a.txt")
                                     << QString();
    QTest::newRow("absolute through a link to the tree")
        << QStringLiteral("{base}/link-to-root-repo/sub/a.txt") << QStringLiteral("sub/a.txt") << QString();
    QTest::newRow("./ and //") << QStringLiteral("./sub//a.txt") << QStringLiteral("sub/a.txt") << QString();
    QTest::newRow("directory with slash") << QStringLiteral("sub/") << QStringLiteral("sub") << QString();
    QTest::newRow(".. staying inside") << QStringLiteral("sub/../a.txt") << QStringLiteral("a.txt") << QString();
    QTest::newRow("deleted file") << QStringLiteral("deleted.txt") << QStringLiteral("deleted.txt") << QString();
    QTest::newRow("deleted directory") << QStringLiteral("gone/dir/x.txt") << QStringLiteral("gone/dir/x.txt")
                                       << QString();
    // The last component is not followed: git stores a link as a link.
    QTest::newRow("link to a file outside, last")
        << QStringLiteral("sub/link-to-outside-file") << QStringLiteral("sub/link-to-outside-file") << QString();
    QTest::newRow("link to a directory outside, last")
        << QStringLiteral("link-to-outside-dir") << QStringLiteral("link-to-outside-dir") << QString();
    QTest::newRow("through a link inside")
        << QStringLiteral("link-inside/a.txt") << QStringLiteral("link-inside/a.txt") << QString();

    QTest::newRow("..") << QStringLiteral("../x") << QString() << leaves;
    QTest::newRow(".. after a directory") << QStringLiteral("sub/../../x") << QString() << leaves;
    QTest::newRow("absolute outside") << QStringLiteral("{base}/outside/secret.txt") << QString() << leaves;
    QTest::newRow("absolute sibling prefix") << QStringLiteral("{base}/root/repo2/x") << QString() << leaves;
    QTest::newRow(".git/config") << QStringLiteral(".git/config") << QString()
                                 << QStringLiteral("path '.git/config' is inside a .git directory");
    QTest::newRow(".git") << QStringLiteral(".git") << QString() << QStringLiteral("inside a .git directory");
    QTest::newRow(".GIT/config") << QStringLiteral(".GIT/config") << QString()
                                 << QStringLiteral("inside a .git directory");
    QTest::newRow("absolute .git/HEAD") << QStringLiteral("{base}/root/repo/.git/HEAD") << QString()
                                        << QStringLiteral("inside a .git directory");
    QTest::newRow("a nested .git") << QStringLiteral("sub/.git") << QString()
                                   << QStringLiteral("inside a .git directory");
    QTest::newRow("through a link to .git")
        << QStringLiteral("link-to-dotgit/config") << QString() << QStringLiteral("leads into the .git directory");
    QTest::newRow("through a link leading out")
        << QStringLiteral("link-to-outside-dir/file") << QString()
        << QStringLiteral("path 'link-to-outside-dir/file' passes through a symbolic link leading to "
                          "'{base}/outside', outside the repository's working tree");
    QTest::newRow("through a dangling link")
        << QStringLiteral("dangling-in-repo/x") << QString() << QStringLiteral("passes through 'dangling-in-repo'");
    QTest::newRow("empty") << QString() << QString() << QStringLiteral("path is empty");
    QTest::newRow("newline") << QStringLiteral("a\nb") << QString()
                             << QStringLiteral("path contains a control character");
}

void TestGitPathPolicy::resolveInsideWorkTree()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    QFETCH(QString, error);
    QString message;
    const auto resolved
        = GitPathPolicy::resolveInsideWorkTree(m_base + QStringLiteral("/root/repo"), expanded(path), &message);
    if (expected.isEmpty()) {
        QVERIFY2(!resolved, qPrintable(resolved.value_or(QString())));
        QVERIFY2(message.contains(expanded(error)), qPrintable(message));
        QVERIFY2(message.startsWith(QLatin1String("path")), qPrintable(message));
    } else {
        QVERIFY2(resolved, qPrintable(message));
        QCOMPARE(*resolved, expected);
    }
}

// A bare repository has no working tree; an empty one must not stand for "/".
void TestGitPathPolicy::noWorkTree()
{
    for (const QString& tree : {QString(), QStringLiteral("relative/tree")}) {
        QString message;
        QVERIFY(!GitPathPolicy::resolveInsideWorkTree(tree, QStringLiteral("/etc/passwd"), &message));
        QCOMPARE(message, QStringLiteral("path cannot be used: the repository has no working tree."));
        QVERIFY(!GitPathPolicy::resolveInsideWorkTree(tree, QStringLiteral("a.txt"), &message));
    }
}

QTEST_GUILESS_MAIN(TestGitPathPolicy)
#include "tst_gitpathpolicy.moc"
