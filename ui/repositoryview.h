#pragma once

// RepositoryView: the "Repositories" dock: the repositories the git tools work on (and those the
// operator added), and for the selected one its branch and upstream, its changed files, its newest
// commits and the coloured diff of the selected file. Talks to the backend only through the
// OperatorInterface: states, diffs and refusals arrive as signals, and add, remove, refresh and
// load-diff go out as commands that never block. A diff answer that is no longer for the selected
// repository and file is dropped.

#include "backendstates.h"
#include "toolcall.h"

#include "statusnote.h"

#include <QDockWidget>

#include <functional>

class CommitListModel;
class DiffHighlighter;
class OperatorInterface;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class RepositoryFilesModel;
class RepositoryListModel;

class RepositoryView : public QDockWidget
{
    Q_OBJECT
public:
    // Asks the person for a directory; empty when they cancel. Tests replace the file dialog.
    using DirectoryChooser = std::function<QString(QWidget* parent)>;

    explicit RepositoryView(OperatorInterface* backend, QWidget* parent = nullptr);

    RepositoryListModel* repositoryModel() const { return m_repositories; }
    RepositoryFilesModel* filesModel() const { return m_files; }
    CommitListModel* commitModel() const { return m_commits; }
    QTableView* repositoryList() const { return m_repositoryList; }
    QTableView* fileList() const { return m_fileList; }
    QTableView* commitList() const { return m_commitList; }
    QPlainTextEdit* stagedDiff() const { return m_stagedDiff; }
    QPlainTextEdit* unstagedDiff() const { return m_unstagedDiff; }
    DiffHighlighter* stagedHighlighter() const { return m_stagedHighlighter; }
    DiffHighlighter* unstagedHighlighter() const { return m_unstagedHighlighter; }
    QLabel* statusLabel() const { return m_statusLabel; }
    QLabel* diffNote() const { return m_diffNote; }
    QLabel* callsLink() const { return m_callsLabel; }
    QLabel* filesNote() const { return m_filesNote; }

    // The selected repository's path, or empty.
    QString currentRepository() const { return m_currentPath; }
    // The selected file (relative to the working tree), or empty.
    QString currentFile() const { return m_diffFile; }

    void setDirectoryChooser(DirectoryChooser chooser);

    // Diff text beyond this (per part) is not shown, and beyond the highlight limit not coloured,
    // so a large diff costs the GUI thread a bounded time.
    static constexpr qsizetype MaxShownChars = 512 * 1024;
    static constexpr qsizetype MaxHighlightedChars = 256 * 1024;

public Q_SLOTS:
    // Selects the repository's row; false when it is not shown.
    bool selectRepository(const QString& path);
    // Selects the repository a git call worked on (see RepositoryListModel::indexForCall). When
    // none matches yet, the first state that names the call selects it.
    bool showRepositoryForCall(const ToolCall& call);
    // The call log moved on from that call: a state that names it later selects nothing.
    void forgetPendingCall() { m_pendingCallId = 0; }
    // Asks for a directory and adds it.
    void chooseRepositoryToAdd();
    void addRepository(const QString& path);
    void refreshCurrentRepository();
    void removeCurrentRepository();

Q_SIGNALS:
    // The person asked to see the calls that touched the selected repository (its callIds).
    void callsRequested(const QList<qint64>& callIds);

protected:
    void changeEvent(QEvent* event) override;

private:
    QWidget* createRepositoryPane();
    QWidget* createDetailsPane();
    QWidget* createDiffPane();
    void onStatesChanged(const RepositoryStateList& states);
    void onRepositoryRemoved(const QString& path);
    void onFileDiffLoaded(const FileDiff& diff);
    void onCommandFailed(const QString& command, const QString& message);
    void onCurrentRepositoryChanged();
    void onCurrentFileChanged();
    void onDockLocationChanged(Qt::DockWidgetArea area);
    // Shows the state's header, files and commits; `sameRepository` keeps the selected file and
    // where the lists were scrolled to.
    void showDetails(const RepositoryState& state, bool sameRepository);
    void clearDetails();
    void showDiffMessage(const QString& text);
    void showDiff(const FileDiff& diff);
    void requestDiff();
    void fitRepositoryColumns();
    void fitFileColumns();
    void updateActions();
    void updateHighlighterColours();

    OperatorInterface* m_backend;
    RepositoryListModel* m_repositories;
    RepositoryFilesModel* m_files;
    CommitListModel* m_commits;
    DirectoryChooser m_chooseDirectory;

    QSplitter* m_splitter = nullptr;
    QPushButton* m_addButton = nullptr;
    QPushButton* m_refreshButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    StatusNote* m_statusLabel = nullptr;
    QTableView* m_repositoryList = nullptr;

    QWidget* m_details = nullptr;
    QLabel* m_detailsPlaceholder = nullptr;
    QLabel* m_nameLabel = nullptr;
    QLabel* m_pathLabel = nullptr;
    QLabel* m_refreshedLabel = nullptr;
    QLabel* m_branchCaption = nullptr;
    QLabel* m_branchLabel = nullptr;
    QLabel* m_branchesCaption = nullptr;
    QLabel* m_branchesLabel = nullptr; // every local branch, the current one marked
    QLabel* m_headCaption = nullptr;
    QLabel* m_headLabel = nullptr;
    QLabel* m_errorLabel = nullptr;
    QLabel* m_callsLabel = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_fileList = nullptr;
    QLabel* m_filesNote = nullptr;
    QTableView* m_commitList = nullptr;
    QLabel* m_commitsNote = nullptr;

    QLabel* m_diffTitle = nullptr;
    QLabel* m_diffNote = nullptr;
    QWidget* m_diffPanes = nullptr;
    QLabel* m_stagedCaption = nullptr;
    QLabel* m_unstagedCaption = nullptr;
    QPlainTextEdit* m_stagedDiff = nullptr;
    QPlainTextEdit* m_unstagedDiff = nullptr;
    DiffHighlighter* m_stagedHighlighter = nullptr;
    DiffHighlighter* m_unstagedHighlighter = nullptr;

    // What the details show: the selected repository's path and the state shown for it.
    QString m_currentPath;
    RepositoryState m_shown;
    // The diff the panes show or wait for; answers for anything else are stale.
    QString m_diffRepository;
    QString m_diffFile;
    bool m_diffLoading = false;
    // Set while the file list's selection is put back after a reset, so that is not a new choice.
    bool m_restoringFile = false;
    // A directory the person added and its canonical form, selected when its state arrives.
    QString m_pendingAdd;
    QString m_pendingAddCanonical;
    // The repository a refresh was asked for, whose next state ends the "Refreshing…" note.
    QString m_refreshingPath;
    // A git call selected in the call log whose repository has not been published yet.
    qint64 m_pendingCallId = 0;
};
