// RepositoryView against the OperatorInterface's test double: states become rows, the selected
// repository shows its header, files and commits, a selected file's diff is asked for and shown in
// colour (stale answers dropped), add / remove / refresh send their commands and refusals show, and
// the "Show calls" link hands out the repository's call ids. Offscreen; no backend.

#include "fakeoperator.h"

#include "commitlistmodel.h"
#include "diffhighlighter.h"
#include "modelroles.h"
#include "repositoryfilesmodel.h"
#include "repositorylistmodel.h"
#include "repositoryview.h"
#include "statuscolours.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

namespace {

constexpr qint64 Now = 1'700'000'000'000;
// Out here: moc reads a digit separator inside a class as the start of a character literal.
constexpr int HugeLines = 40'000; // about 900 KB of diff

const QString Alpha = QStringLiteral("/srv/roots/alpha");
const QString Beta = QStringLiteral("/srv/roots/beta");

RepositoryFile makeFile(const QString& path, char index, char workTree)
{
    RepositoryFile file;
    file.path = path;
    file.indexStatus = QLatin1Char(index);
    file.workTreeStatus = QLatin1Char(workTree);
    return file;
}

CommitSummary makeCommit(const QString& id, const QString& summary)
{
    CommitSummary commit;
    commit.id = id.leftJustified(40, QLatin1Char('0'));
    commit.summary = summary;
    commit.author = QStringLiteral("Ada Lovelace <ada@example.org>");
    commit.timeMs = Now;
    return commit;
}

RepositoryState makeState(const QString& path, QList<qint64> callIds = {})
{
    RepositoryState state;
    state.path = path;
    state.branch = QStringLiteral("main");
    state.upstream = QStringLiteral("origin/main");
    state.ahead = 1;
    state.behind = 2;
    state.staged = 1;
    state.unstaged = 1;
    state.untracked = 1;
    state.headCommit = makeCommit(QStringLiteral("c0ffee1"), QStringLiteral("Parse the header")).id;
    state.headSummary = QStringLiteral("Parse the header");
    state.refreshedAtMs = Now;
    state.files = {makeFile(QStringLiteral("README.md"), 'M', ' '), makeFile(QStringLiteral("src/main.cpp"), ' ', 'M'),
        makeFile(QStringLiteral("notes.txt"), '?', '?')};
    state.commits = {makeCommit(QStringLiteral("c0ffee1"), QStringLiteral("Parse the header")),
        makeCommit(QStringLiteral("badf00d"), QStringLiteral("Start"))};
    state.callIds = std::move(callIds);
    return state;
}

// A hunk whose removed line starts with "--" and whose added line starts with "++": only counting
// the hunk's lines tells them from file headers.
const QString UnstagedDiff = QStringLiteral("diff --git a/src/main.cpp b/src/main.cpp\n"
                                            "index 1234567..89abcde 100644\n"
                                            "--- a/src/main.cpp\n"
                                            "+++ b/src/main.cpp\n"
                                            "@@ -1,4 +1,4 @@ int main()\n"
                                            " #include <cstdio>\n"
                                            "--- a removed line that starts with two dashes\n"
                                            "+++ an added line that starts with two pluses\n"
                                            " int main()\n"
                                            "-    return 1;\n"
                                            "+    return 0;\n");

const QString StagedDiff = QStringLiteral("diff --git a/src/main.cpp b/src/main.cpp\n"
                                          "--- a/src/main.cpp\n"
                                          "+++ b/src/main.cpp\n"
                                          "@@ -10 +10 @@\n"
                                          "-old\n"
                                          "+new\n");

FileDiff makeDiff(const QString& repository, const QString& file)
{
    FileDiff diff;
    diff.repository = repository;
    diff.file = file;
    diff.staged = StagedDiff;
    diff.unstaged = UnstagedDiff;
    return diff;
}

// The format the highlighter gave the line that reads exactly `line`.
QTextCharFormat formatOfLine(QPlainTextEdit* edit, const QString& line)
{
    for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next()) {
        if (block.text() != line)
            continue;
        const QList<QTextLayout::FormatRange> formats = block.layout()->formats();
        return formats.isEmpty() ? QTextCharFormat() : formats.first().format;
    }
    return {};
}

int rowOfFile(RepositoryView& view, const QString& file)
{
    return view.filesModel()->indexOfFile(file).row();
}

void selectFile(RepositoryView& view, const QString& file)
{
    view.fileList()->setCurrentIndex(view.filesModel()->indexOfFile(file));
}

} // namespace

class TestRepositoryView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void statesBecomeRowsAndTheFirstIsShown()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        QAbstractItemModelTester tester(view.repositoryModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("repositoryPlaceholder"))->isVisibleTo(&view));

        Q_EMIT backend.repositoryStatesChanged({makeState(Beta), makeState(Alpha)});
        QCOMPARE(view.repositoryModel()->count(), 2);
        QCOMPARE(view.repositoryModel()->index(0, 0).data(RepositoryPathRole).toString(), Alpha);
        // Something to read at once: the first repository is selected.
        QCOMPARE(view.currentRepository(), Alpha);
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("repositoryName"))->text(), QStringLiteral("alpha"));
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("repositoryPath"))->text(), Alpha);
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("repositoryBranch"))->text(),
            QStringLiteral("main  →  origin/main ↑1 ↓2"));
        QVERIFY(
            view.findChild<QLabel*>(QStringLiteral("repositoryHead"))->text().startsWith(QStringLiteral("c0ffee1")));
        QVERIFY(
            view.findChild<QLabel*>(QStringLiteral("repositoryRefreshed"))->text().startsWith(QStringLiteral("read ")));
        QVERIFY(!view.findChild<QLabel*>(QStringLiteral("repositoryError"))->isVisibleTo(&view));
        QVERIFY(!view.findChild<QLabel*>(QStringLiteral("repositoryPlaceholder"))->isVisibleTo(&view));
        QVERIFY(view.findChild<QPushButton*>(QStringLiteral("refreshRepositoryButton"))->isEnabled());
    }

    void selectingARepositoryShowsItsFilesAndCommits()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        QAbstractItemModelTester files(view.filesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester commits(view.commitModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        RepositoryState beta = makeState(Beta);
        beta.files = {makeFile(QStringLiteral("only.txt"), 'A', ' ')};
        beta.filesTruncated = true;
        beta.commits = {makeCommit(QStringLiteral("abc"), QStringLiteral("Only"))};
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha), beta});
        QCOMPARE(view.filesModel()->count(), 3);
        QCOMPARE(view.commitModel()->count(), 2);
        auto* tabs = view.findChild<QTabWidget*>(QStringLiteral("repositoryTabs"));
        // Paths, not the counts: a file staged and unstaged is one row.
        QCOMPARE(tabs->tabText(0), QStringLiteral("Changes (3)"));
        QCOMPARE(tabs->tabText(1), QStringLiteral("Commits (2)"));

        QVERIFY(view.selectRepository(Beta));
        QCOMPARE(view.currentRepository(), Beta);
        QCOMPARE(tabs->tabText(0), QStringLiteral("Changes (1+)"));
        QVERIFY(view.filesNote()->text().contains(QStringLiteral("there are more")));
        QCOMPARE(view.filesModel()->count(), 1);
        QCOMPARE(view.filesModel()->index(0, 0).data(FilePathRole).toString(), QStringLiteral("only.txt"));
        QCOMPARE(view.commitModel()->count(), 1);
        QCOMPARE(
            view.commitModel()->index(0, CommitListModel::SummaryColumn).data().toString(), QStringLiteral("Only"));
        // Nothing is asked until the person picks a file.
        QVERIFY(backend.diffLoads.isEmpty());
        QVERIFY(!view.selectRepository(QStringLiteral("/srv/roots/unknown")));
    }

    void selectingAFileLoadsItsDiffAndShowsItInColour()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        view.resize(1200, 400);
        view.show();
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha)});

        selectFile(view, QStringLiteral("src/main.cpp"));
        QCOMPARE(backend.diffLoads.size(), 1);
        QCOMPARE(backend.diffLoads.first(), qMakePair(Alpha, QStringLiteral("src/main.cpp")));
        QCOMPARE(view.currentFile(), QStringLiteral("src/main.cpp"));
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("Loading")));
        QVERIFY(!view.unstagedDiff()->isVisible());

        Q_EMIT backend.fileDiffLoaded(makeDiff(Alpha, QStringLiteral("src/main.cpp")));
        QCOMPARE(view.unstagedDiff()->toPlainText(), UnstagedDiff);
        QCOMPARE(view.stagedDiff()->toPlainText(), StagedDiff);
        QVERIFY(view.unstagedDiff()->isVisible());
        QVERIFY(view.stagedDiff()->isVisible());
        QVERIFY(view.unstagedDiff()->isReadOnly());
        QCOMPARE(view.unstagedDiff()->font().family(), QFontDatabase::systemFont(QFontDatabase::FixedFont).family());
        QCOMPARE(
            view.findChild<QLabel*>(QStringLiteral("stagedCaption"))->text(), QStringLiteral("Staged (HEAD → index)"));
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("unstagedCaption"))->text(),
            QStringLiteral("Unstaged (index → working tree)"));

        DiffHighlighter* highlighter = view.unstagedHighlighter();
        const QColor added = highlighter->format(DiffHighlighter::Token::Added).foreground().color();
        const QColor removed = highlighter->format(DiffHighlighter::Token::Removed).foreground().color();
        const QColor hunk = highlighter->format(DiffHighlighter::Token::HunkHeader).foreground().color();
        QVERIFY(added != removed);
        QCOMPARE(formatOfLine(view.unstagedDiff(), QStringLiteral("+    return 0;")).foreground().color(), added);
        QCOMPARE(formatOfLine(view.unstagedDiff(), QStringLiteral("-    return 1;")).foreground().color(), removed);
        QCOMPARE(
            formatOfLine(view.unstagedDiff(), QStringLiteral("@@ -1,4 +1,4 @@ int main()")).foreground().color(), hunk);
        QCOMPARE(
            formatOfLine(view.unstagedDiff(), QStringLiteral("--- a/src/main.cpp")).fontWeight(), int(QFont::Bold));
        QCOMPARE(
            formatOfLine(view.unstagedDiff(), QStringLiteral("+++ b/src/main.cpp")).fontWeight(), int(QFont::Bold));
        // Inside the hunk, lines that look like file headers are what the hunk says they are.
        const QTextCharFormat dashes
            = formatOfLine(view.unstagedDiff(), QStringLiteral("--- a removed line that starts with two dashes"));
        QCOMPARE(dashes.foreground().color(), removed);
        QVERIFY(dashes.fontWeight() != QFont::Bold);
        QCOMPARE(formatOfLine(view.unstagedDiff(), QStringLiteral("+++ an added line that starts with two pluses"))
                     .foreground()
                     .color(),
            added);
        // A context line is left alone.
        QVERIFY(!formatOfLine(view.unstagedDiff(), QStringLiteral(" int main()")).foreground().style());
        // The staged part: a hunk header without counts (one line each).
        QCOMPARE(formatOfLine(view.stagedDiff(), QStringLiteral("-old")).foreground().color(),
            view.stagedHighlighter()->format(DiffHighlighter::Token::Removed).foreground().color());
        QCOMPARE(formatOfLine(view.stagedDiff(), QStringLiteral("+new")).foreground().color(),
            view.stagedHighlighter()->format(DiffHighlighter::Token::Added).foreground().color());
    }

    void darkPalettesGetTheirOwnColours()
    {
        QTextDocument document;
        DiffHighlighter highlighter(&document);
        const QColor lightAdded = highlighter.format(DiffHighlighter::Token::Added).foreground().color();
        highlighter.setDarkBackground(true);
        const QColor darkAdded = highlighter.format(DiffHighlighter::Token::Added).foreground().color();
        QVERIFY(lightAdded != darkAdded);
        // Readable: light text on a dark background, dark text on a light one.
        QVERIFY(darkAdded.lightness() > 128);
        QVERIFY(lightAdded.lightness() < 128);

        // The view follows its palette.
        FakeOperator backend;
        RepositoryView view(&backend);
        QPalette palette = view.palette();
        palette.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        view.setPalette(palette);
        QCOMPARE(view.unstagedHighlighter()->format(DiffHighlighter::Token::Added).foreground().color(), darkAdded);
        QCOMPARE(view.stagedHighlighter()->format(DiffHighlighter::Token::Added).foreground().color(), darkAdded);
    }

    // The status letters (staged green, unstaged red) and a failed repository's name keep AA contrast
    // on the table's rows in a dark palette as in a light one: in the hue where it reads, nearer the
    // text where it does not.
    void marksKeepAaContrastInDarkPalettes()
    {
        const QPalette before = QApplication::palette();
        const auto restore = qScopeGuard([&] { QApplication::setPalette(before); });
        for (const QPalette& palette : {StatusColours::lightPalette(), StatusColours::darkPalette()}) {
            QApplication::setPalette(palette);
            FakeOperator backend;
            RepositoryView view(&backend);
            RepositoryState broken = makeState(Beta);
            broken.error = QStringLiteral("not a git repository");
            Q_EMIT backend.repositoryStatesChanged({makeState(Alpha), broken});
            QCOMPARE(view.currentRepository(), Alpha);
            const QAbstractItemModel* files = view.filesModel();
            QVERIFY(files->rowCount() > 0);
            int checked = 0;
            const auto check = [&](const QModelIndex& index) {
                const QVariant foreground = index.data(Qt::ForegroundRole);
                if (!foreground.isValid())
                    return;
                const QColor colour = foreground.value<QColor>();
                for (const QPalette::ColorRole role : {QPalette::Base, QPalette::AlternateBase}) {
                    const double ratio = StatusColours::contrast(colour, palette.color(QPalette::Active, role));
                    QVERIFY2(ratio >= StatusColours::MinimumContrast,
                        qPrintable(
                            QStringLiteral("%1 on %2: %3").arg(colour.name(), palette.color(role).name()).arg(ratio)));
                }
                ++checked;
            };
            for (int row = 0; row < files->rowCount(); ++row) {
                for (int column = 0; column < files->columnCount(); ++column)
                    check(files->index(row, column));
            }
            const QAbstractItemModel* repositories = view.repositoryModel();
            for (int row = 0; row < repositories->rowCount(); ++row) {
                for (int column = 0; column < repositories->columnCount(); ++column)
                    check(repositories->index(row, column));
            }
            QVERIFY(checked >= 4);
        }
    }

    // Every local branch is listed, the checked-out one first and marked.
    void localBranchesAreListed()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        RepositoryState state = makeState(Alpha);
        state.branches = {QStringLiteral("feature"), QStringLiteral("main"), QStringLiteral("release")};
        Q_EMIT backend.repositoryStatesChanged({state});
        auto* branches = view.findChild<QLabel*>(QStringLiteral("repositoryBranches"));
        QVERIFY(branches);
        QVERIFY(branches->isVisibleTo(&view));
        QCOMPARE(branches->text(), QStringLiteral("main (current) · feature · release"));
        QVERIFY(branches->toolTip().startsWith(QStringLiteral("3 local branches")));
        state.branchesTruncated = true;
        Q_EMIT backend.repositoryStatesChanged({state});
        QVERIFY(branches->text().endsWith(QStringLiteral("and more")));
    }

    void aStaleDiffIsIgnored()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha), makeState(Beta)});
        selectFile(view, QStringLiteral("src/main.cpp"));
        selectFile(view, QStringLiteral("README.md"));
        QCOMPARE(backend.diffLoads.size(), 2);

        // The answer for the file the person left, then one for the same file in another repository.
        Q_EMIT backend.fileDiffLoaded(makeDiff(Alpha, QStringLiteral("src/main.cpp")));
        Q_EMIT backend.fileDiffLoaded(makeDiff(Beta, QStringLiteral("README.md")));
        QVERIFY(view.unstagedDiff()->toPlainText().isEmpty());
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("Loading")));

        FileDiff readme = makeDiff(Alpha, QStringLiteral("README.md"));
        readme.staged = QStringLiteral("@@ -1 +1 @@\n-# Old\n+# New\n");
        readme.unstaged.clear();
        Q_EMIT backend.fileDiffLoaded(readme);
        QCOMPARE(view.stagedDiff()->toPlainText(), readme.staged);
        // An empty part is not shown at all.
        QVERIFY(!view.unstagedDiff()->isVisibleTo(&view));
        QVERIFY(view.stagedDiff()->isVisibleTo(&view));

        // Another repository selected: an answer for the old one is stale too.
        QVERIFY(view.selectRepository(Beta));
        Q_EMIT backend.fileDiffLoaded(readme);
        QVERIFY(view.stagedDiff()->toPlainText().isEmpty());
    }

    void truncatedAndFailedDiffsSaySo()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha)});
        selectFile(view, QStringLiteral("notes.txt"));
        FileDiff diff = makeDiff(Alpha, QStringLiteral("notes.txt"));
        diff.staged.clear();
        diff.unstaged = QStringLiteral("+line\n");
        diff.truncated = true;
        Q_EMIT backend.fileDiffLoaded(diff);
        QVERIFY(view.diffNote()->isVisibleTo(&view));
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("only its start is shown")));
        // An untracked file's unstaged part is the whole file.
        QCOMPARE(view.findChild<QLabel*>(QStringLiteral("unstagedCaption"))->text(),
            QStringLiteral("Untracked (the whole file)"));

        selectFile(view, QStringLiteral("README.md"));
        FileDiff failed = makeDiff(Alpha, QStringLiteral("README.md"));
        failed.staged.clear();
        failed.unstaged.clear();
        failed.error = QStringLiteral("the file is not valid UTF-8");
        Q_EMIT backend.fileDiffLoaded(failed);
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("the file is not valid UTF-8")));

        // Longer than the view shows: the start, cut after a whole line, and a note.
        selectFile(view, QStringLiteral("src/main.cpp"));
        FileDiff huge = makeDiff(Alpha, QStringLiteral("src/main.cpp"));
        huge.staged.clear();
        huge.unstaged = QStringLiteral("@@ -1,40000 +1,40000 @@\n")
            + QStringLiteral("+an added line of text\n").repeated(HugeLines);
        Q_EMIT backend.fileDiffLoaded(huge);
        const QString shown = view.unstagedDiff()->toPlainText();
        QVERIFY(shown.size() <= RepositoryView::MaxShownChars);
        QVERIFY(shown.size() > RepositoryView::MaxShownChars - 100);
        QVERIFY(shown.endsWith(QStringLiteral("+an added line of text\n")));
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("only the first")));

        // A backend that cannot load diffs at all says so through commandFailed.
        selectFile(view, QStringLiteral("notes.txt"));
        Q_EMIT backend.commandFailed(QStringLiteral("loadFileDiff"), QStringLiteral("no git tools here"));
        QCOMPARE(view.diffNote()->text(), QStringLiteral("no git tools here"));
    }

    void anUpdateKeepsTheSelectedFileAndAsksForItsDiffAgain()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha)});
        selectFile(view, QStringLiteral("src/main.cpp"));
        Q_EMIT backend.fileDiffLoaded(makeDiff(Alpha, QStringLiteral("src/main.cpp")));

        RepositoryState newer = makeState(Alpha);
        newer.files.prepend(makeFile(QStringLiteral("AAA.txt"), '?', '?'));
        newer.refreshedAtMs = Now + 1000;
        Q_EMIT backend.repositoryStatesChanged({newer});
        QCOMPARE(view.fileList()->currentIndex().row(), rowOfFile(view, QStringLiteral("src/main.cpp")));
        QCOMPARE(backend.diffLoads.size(), 2);
        QCOMPARE(backend.diffLoads.last(), qMakePair(Alpha, QStringLiteral("src/main.cpp")));
        // The old diff stays until the new one arrives: no flicker.
        QCOMPARE(view.unstagedDiff()->toPlainText(), UnstagedDiff);

        // The same state again (a coalesced repeat) asks for nothing.
        Q_EMIT backend.repositoryStatesChanged({newer});
        QCOMPARE(backend.diffLoads.size(), 2);

        // The file was committed: it leaves the list, and the diff says so.
        RepositoryState committed = newer;
        committed.files.removeIf([](const RepositoryFile& file) { return file.path == QLatin1String("src/main.cpp"); });
        Q_EMIT backend.repositoryStatesChanged({committed});
        QVERIFY(view.currentFile().isEmpty());
        QVERIFY(view.unstagedDiff()->toPlainText().isEmpty());
        QVERIFY(view.diffNote()->text().contains(QStringLiteral("no changes any more")));
    }

    void addRefreshAndRemoveSendTheirCommands()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha)});
        view.setDirectoryChooser([](QWidget*) { return Beta; });

        QTest::mouseClick(view.findChild<QPushButton*>(QStringLiteral("addRepositoryButton")), Qt::LeftButton);
        QCOMPARE(backend.repositoryAdds, QStringList{Beta});
        QVERIFY(view.statusLabel()->text().contains(Beta));
        // Its state arrives: it is selected, and the note says it was added.
        Q_EMIT backend.repositoryStatesChanged({makeState(Beta)});
        QCOMPARE(view.currentRepository(), Beta);
        QVERIFY(view.statusLabel()->text().startsWith(QStringLiteral("Added")));

        QTest::mouseClick(view.findChild<QPushButton*>(QStringLiteral("refreshRepositoryButton")), Qt::LeftButton);
        QCOMPARE(backend.repositoryRefreshes, QStringList{Beta});
        QVERIFY(view.statusLabel()->text().startsWith(QStringLiteral("Refreshing")));
        Q_EMIT backend.repositoryStatesChanged({makeState(Beta)});
        QVERIFY(view.statusLabel()->text().isEmpty());

        QTest::mouseClick(view.findChild<QPushButton*>(QStringLiteral("removeRepositoryButton")), Qt::LeftButton);
        QCOMPARE(backend.repositoryRemovals, QStringList{Beta});
        // The row goes when the backend says so, not before.
        QCOMPARE(view.repositoryModel()->count(), 2);

        // A cancelled dialog adds nothing.
        view.setDirectoryChooser([](QWidget*) { return QString(); });
        view.chooseRepositoryToAdd();
        QCOMPARE(backend.repositoryAdds.size(), 1);
    }

    void aRefusedAddIsShown()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        view.addRepository(QStringLiteral("/etc"));
        QCOMPARE(backend.repositoryAdds, QStringList{QStringLiteral("/etc")});
        Q_EMIT backend.commandFailed(
            QStringLiteral("addRepository"), QStringLiteral("/etc is outside every allowed root"));
        QVERIFY(view.statusLabel()->isVisibleTo(&view));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("/etc is outside every allowed root")));
        QVERIFY(view.statusLabel()->styleSheet().contains(QStringLiteral("#c01c28")));
        // Other commands' refusals are not this view's.
        Q_EMIT backend.commandFailed(QStringLiteral("resetBreaker"), QStringLiteral("no adapters"));
        QVERIFY(view.statusLabel()->text().contains(QStringLiteral("/etc is outside every allowed root")));
    }

    void repositoryRemovedTakesTheRowAway()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha), makeState(Beta)});
        QVERIFY(view.selectRepository(Beta));
        Q_EMIT backend.repositoryRemoved(Beta);
        QCOMPARE(view.repositoryModel()->count(), 1);
        QCOMPARE(view.currentRepository(), Alpha);
        Q_EMIT backend.repositoryRemoved(Alpha);
        QCOMPARE(view.repositoryModel()->count(), 0);
        QVERIFY(view.currentRepository().isEmpty());
        QCOMPARE(view.filesModel()->count(), 0);
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("repositoryPlaceholder"))->isVisibleTo(&view));
        QVERIFY(!view.findChild<QPushButton*>(QStringLiteral("removeRepositoryButton"))->isEnabled());
    }

    void anUnreadableRepositoryShowsItsError()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        RepositoryState broken = makeState(Alpha);
        broken.error = QStringLiteral("could not open the repository: corrupt index");
        broken.files.clear();
        broken.commits.clear();
        Q_EMIT backend.repositoryStatesChanged({broken});
        auto* error = view.findChild<QLabel*>(QStringLiteral("repositoryError"));
        QVERIFY(error->isVisibleTo(&view));
        QCOMPARE(error->text(), broken.error);
    }

    void theCallsLinkHandsOutTheCallIds()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        QSignalSpy requested(&view, &RepositoryView::callsRequested);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha, {3, 5, 9})});
        QVERIFY(view.callsLink()->isVisibleTo(&view));
        QVERIFY(view.callsLink()->text().contains(QStringLiteral("Show 3 calls")));
        Q_EMIT view.callsLink()->linkActivated(QStringLiteral("calls"));
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.first().at(0).value<QList<qint64>>(), (QList<qint64>{3, 5, 9}));

        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha)});
        QVERIFY(!view.callsLink()->isVisibleTo(&view));
    }

    void aGitCallSelectsItsRepository()
    {
        FakeOperator backend;
        RepositoryView view(&backend);
        Q_EMIT backend.repositoryStatesChanged({makeState(Alpha, {1}), makeState(Beta, {2})});
        ToolCall call;
        call.id = 2;
        call.route = ToolRoute{RouteKind::Git, {}};
        QVERIFY(view.showRepositoryForCall(call));
        QCOMPARE(view.currentRepository(), Beta);

        // A call whose repository is not published yet: its state, when it comes, selects it.
        call.id = 7;
        QVERIFY(!view.showRepositoryForCall(call));
        QCOMPARE(view.currentRepository(), Beta);
        Q_EMIT backend.repositoryStatesChanged({makeState(QStringLiteral("/srv/roots/gamma"), {7})});
        QCOMPARE(view.currentRepository(), QStringLiteral("/srv/roots/gamma"));

        // Forgotten once the log moves on.
        call.id = 8;
        QVERIFY(!view.showRepositoryForCall(call));
        view.forgetPendingCall();
        Q_EMIT backend.repositoryStatesChanged({makeState(QStringLiteral("/srv/roots/delta"), {8})});
        QCOMPARE(view.currentRepository(), QStringLiteral("/srv/roots/gamma"));
    }
};

QTEST_MAIN(TestRepositoryView)
#include "tst_repositoryview.moc"
