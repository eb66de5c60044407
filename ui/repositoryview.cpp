#include "repositoryview.h"
#include "tablelook.h"

#include "commitlistmodel.h"
#include "diffhighlighter.h"
#include "fixedfont.h"
#include "modelroles.h"
#include "operatorinterface.h"
#include "repositoryfilesmodel.h"
#include "repositorylistmodel.h"

#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace {

// The colours the rest of the window uses for problems and quiet notes.

void configureTable(QTableView* table)
{
    applyTableLook(
        table, Qt::ElideMiddle, QHeaderView::ResizeToContents); // paths: the start and the file name matter most
}

QLabel* plainLabel(const QString& objectName)
{
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long paths and summaries are cut by the dock's width instead of widening it.
    label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return label;
}

QLabel* placeholderLabel(const QString& objectName, const QString& text)
{
    auto* label = new QLabel(text);
    label->setObjectName(objectName);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setMargin(12);
    return label;
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

// The start of a long diff, cut after a whole line.
QString shownPart(const QString& text, bool* cut)
{
    if (text.size() <= RepositoryView::MaxShownChars)
        return text;
    *cut = true;
    const qsizetype newline = text.lastIndexOf(QLatin1Char('\n'), RepositoryView::MaxShownChars - 1);
    return text.left(newline > 0 ? newline + 1 : RepositoryView::MaxShownChars);
}

} // namespace

RepositoryView::RepositoryView(OperatorInterface* backend, QWidget* parent)
    : QDockWidget(tr("Repositories"), parent)
    , m_backend(backend)
    , m_repositories(new RepositoryListModel(this))
    , m_files(new RepositoryFilesModel(this))
    , m_commits(new CommitListModel(this))
    , m_chooseDirectory([](QWidget* dialogParent) {
        return QFileDialog::getExistingDirectory(dialogParent, tr("Add a repository"), QString(),
            QFileDialog::ShowDirsOnly | QFileDialog::DontResolveSymlinks);
    })
{
    setObjectName(QStringLiteral("repositoryView"));

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->setObjectName(QStringLiteral("repositorySplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setHandleWidth(10); // as the main window's: the panes' texts do not run together
    m_splitter->addWidget(createRepositoryPane());
    m_splitter->addWidget(createDetailsPane());
    m_splitter->addWidget(createDiffPane());
    // The diff has the longest lines; the lists share the rest.
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setStretchFactor(2, 4);
    m_splitter->setSizes({335, 310, 355});

    auto* contents = new QWidget;
    auto* layout = new QVBoxLayout(contents);
    layout->setContentsMargins(6, 0, 6, 0);
    layout->addWidget(m_splitter);
    setWidget(contents);

    connect(m_repositoryList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &RepositoryView::onCurrentRepositoryChanged);
    connect(m_fileList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &RepositoryView::onCurrentFileChanged);
    connect(this, &QDockWidget::dockLocationChanged, this, &RepositoryView::onDockLocationChanged);

    // Everything the backend says arrives here as signals on this thread; nothing waits for it.
    connect(m_backend, &OperatorInterface::repositoryStatesChanged, this, &RepositoryView::onStatesChanged);
    connect(m_backend, &OperatorInterface::repositoryRemoved, this, &RepositoryView::onRepositoryRemoved);
    connect(m_backend, &OperatorInterface::fileDiffLoaded, this, &RepositoryView::onFileDiffLoaded);
    connect(m_backend, &OperatorInterface::commandFailed, this, &RepositoryView::onCommandFailed);

    clearDetails();
    updateActions();
    updateHighlighterColours();
}

QWidget* RepositoryView::createRepositoryPane()
{
    m_addButton = new QPushButton(tr("Add repository…"));
    m_addButton->setObjectName(QStringLiteral("addRepositoryButton"));
    m_addButton->setToolTip(tr("Show a repository that lies under one of the allowed git roots"));
    connect(m_addButton, &QPushButton::clicked, this, &RepositoryView::chooseRepositoryToAdd);

    m_refreshButton = new QPushButton(tr("Refresh"));
    m_refreshButton->setObjectName(QStringLiteral("refreshRepositoryButton"));
    m_refreshButton->setToolTip(tr("Read the selected repository's status again"));
    connect(m_refreshButton, &QPushButton::clicked, this, &RepositoryView::refreshCurrentRepository);

    m_removeButton = new QPushButton(tr("Remove"));
    m_removeButton->setObjectName(QStringLiteral("removeRepositoryButton"));
    m_removeButton->setToolTip(tr("Stop showing the selected repository (nothing on disk changes)"));
    connect(m_removeButton, &QPushButton::clicked, this, &RepositoryView::removeCurrentRepository);

    m_statusLabel = new StatusNote(QStringLiteral("repositoryStatus"));

    m_repositoryList = new QTableView;
    m_repositoryList->setObjectName(QStringLiteral("repositoryList"));
    configureTable(m_repositoryList);
    m_repositoryList->setTextElideMode(Qt::ElideRight); // names and errors read from the start
    m_repositoryList->setModel(m_repositories);
    QHeaderView* columns = m_repositoryList->horizontalHeader();
    // Rows arrive one by one, which a horizontal header's ResizeToContents does not follow: the
    // columns are fitted after each batch instead (fitRepositoryColumns) and stay resizable. The
    // changes (or why a repository is unreadable) get the spare width.
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setSectionResizeMode(RepositoryListModel::ChangesColumn, QHeaderView::Stretch);
    // The list is narrow; when each was read is in the selected repository's header.
    m_repositoryList->setColumnHidden(RepositoryListModel::RefreshedColumn, true);
    m_repositoryList->setMinimumHeight(
        m_repositoryList->verticalHeader()->defaultSectionSize() * 3 + columns->sizeHint().height());

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_refreshButton);
    buttons->addWidget(m_removeButton);
    buttons->addStretch(1);

    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_repositoryList, 1);
    return pane;
}

QWidget* RepositoryView::createDetailsPane()
{
    m_nameLabel = plainLabel(QStringLiteral("repositoryName"));
    QFont bold = m_nameLabel->font();
    bold.setBold(true);
    m_nameLabel->setFont(bold);
    m_nameLabel->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    m_pathLabel = plainLabel(QStringLiteral("repositoryPath"));
    m_pathLabel->setForegroundRole(QPalette::PlaceholderText);
    m_refreshedLabel = new QLabel;
    m_refreshedLabel->setObjectName(QStringLiteral("repositoryRefreshed"));
    m_refreshedLabel->setForegroundRole(QPalette::PlaceholderText);
    m_branchLabel = plainLabel(QStringLiteral("repositoryBranch"));
    m_branchesLabel = plainLabel(QStringLiteral("repositoryBranches"));
    m_headLabel = plainLabel(QStringLiteral("repositoryHead"));
    m_errorLabel = plainLabel(QStringLiteral("repositoryError"));
    m_errorLabel->setStyleSheet(StatusNote::problemStyleSheet());
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Minimum);

    m_callsLabel = new QLabel;
    m_callsLabel->setObjectName(QStringLiteral("repositoryCallsLink"));
    m_callsLabel->setToolTip(tr("Show the calls that touched this repository in the call log"));
    connect(m_callsLabel, &QLabel::linkActivated, this, [this] {
        if (!m_shown.callIds.isEmpty())
            Q_EMIT callsRequested(m_shown.callIds);
    });

    auto* title = new QHBoxLayout;
    title->setSpacing(10);
    title->addWidget(m_nameLabel);
    title->addWidget(m_pathLabel, 1);
    title->addWidget(m_refreshedLabel);
    title->addWidget(m_callsLabel);

    auto* header = new QGridLayout;
    header->setContentsMargins(0, 0, 0, 0);
    header->setVerticalSpacing(2);
    const auto caption = [](const QString& text) {
        auto* label = new QLabel(text);
        label->setForegroundRole(QPalette::PlaceholderText);
        return label;
    };
    header->addLayout(title, 0, 0, 1, 2);
    m_branchCaption = caption(tr("Branch"));
    m_headCaption = caption(tr("HEAD"));
    header->addWidget(m_branchCaption, 1, 0);
    header->addWidget(m_branchLabel, 1, 1);
    m_branchesCaption = caption(tr("Branches"));
    header->addWidget(m_branchesCaption, 2, 0);
    header->addWidget(m_branchesLabel, 2, 1);
    header->addWidget(m_headCaption, 3, 0);
    header->addWidget(m_headLabel, 3, 1);
    header->addWidget(m_errorLabel, 4, 0, 1, 2);
    header->setColumnStretch(1, 1);

    m_fileList = new QTableView;
    m_fileList->setObjectName(QStringLiteral("repositoryFiles"));
    configureTable(m_fileList);
    m_fileList->setModel(m_files);
    // The path is what the person looks for: it is fitted to the paths shown (fitFileColumns), and
    // the description, which the letters and the tooltip also give, takes what is left.
    m_fileList->horizontalHeader()->setSectionResizeMode(RepositoryFilesModel::PathColumn, QHeaderView::Interactive);
    m_fileList->horizontalHeader()->setSectionResizeMode(RepositoryFilesModel::ChangeColumn, QHeaderView::Stretch);

    m_filesNote = new QLabel;
    m_filesNote->setObjectName(QStringLiteral("repositoryFilesNote"));
    m_filesNote->setWordWrap(true);
    m_filesNote->setForegroundRole(QPalette::PlaceholderText);
    m_filesNote->hide();

    auto* filesPage = new QWidget;
    auto* filesLayout = new QVBoxLayout(filesPage);
    filesLayout->setContentsMargins(0, 0, 0, 0);
    filesLayout->setSpacing(2);
    filesLayout->addWidget(m_fileList, 1);
    filesLayout->addWidget(m_filesNote);

    m_commitList = new QTableView;
    m_commitList->setObjectName(QStringLiteral("repositoryCommits"));
    configureTable(m_commitList);
    m_commitList->setTextElideMode(Qt::ElideRight);
    m_commitList->setModel(m_commits);
    m_commitList->horizontalHeader()->setSectionResizeMode(CommitListModel::SummaryColumn, QHeaderView::Stretch);

    m_commitsNote = new QLabel(tr("No commits yet."));
    m_commitsNote->setObjectName(QStringLiteral("repositoryCommitsNote"));
    m_commitsNote->setForegroundRole(QPalette::PlaceholderText);
    m_commitsNote->hide();

    auto* commitsPage = new QWidget;
    auto* commitsLayout = new QVBoxLayout(commitsPage);
    commitsLayout->setContentsMargins(0, 0, 0, 0);
    commitsLayout->setSpacing(2);
    commitsLayout->addWidget(m_commitList, 1);
    commitsLayout->addWidget(m_commitsNote);

    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("repositoryTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(filesPage, tr("Changes"));
    m_tabs->addTab(commitsPage, tr("Commits"));

    m_details = new QWidget;
    auto* detailsLayout = new QVBoxLayout(m_details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addLayout(header);
    detailsLayout->addWidget(m_tabs, 1);

    m_detailsPlaceholder = placeholderLabel(QStringLiteral("repositoryPlaceholder"),
        tr("No repository yet.\n\nThe repositories git tools work on appear here; \"Add repository…\" shows one "
           "under an allowed root."));

    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_details, 1);
    layout->addWidget(m_detailsPlaceholder, 1);
    return pane;
}

QWidget* RepositoryView::createDiffPane()
{
    m_diffTitle = plainLabel(QStringLiteral("diffTitle"));
    QFont bold = m_diffTitle->font();
    bold.setBold(true);
    m_diffTitle->setFont(bold);

    m_diffNote = new QLabel;
    m_diffNote->setObjectName(QStringLiteral("diffNote"));
    m_diffNote->setTextFormat(Qt::PlainText);
    m_diffNote->setWordWrap(true);
    m_diffNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_diffNote->setAlignment(Qt::AlignLeft | Qt::AlignTop);

    const auto createEdit = [](const QString& objectName) {
        auto* edit = new QPlainTextEdit;
        edit->setObjectName(objectName);
        edit->setReadOnly(true);
        edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        edit->setFont(fixedFont());
        // Columns matter in a diff: long lines scroll instead of wrapping.
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        // Read-only text replaced as a whole: an undo history would hold a second copy.
        edit->setUndoRedoEnabled(false);
        return edit;
    };
    m_stagedDiff = createEdit(QStringLiteral("stagedDiff"));
    m_unstagedDiff = createEdit(QStringLiteral("unstagedDiff"));
    m_stagedHighlighter = new DiffHighlighter(m_stagedDiff->document());
    m_stagedHighlighter->setHighlightLimit(MaxHighlightedChars);
    m_unstagedHighlighter = new DiffHighlighter(m_unstagedDiff->document());
    m_unstagedHighlighter->setHighlightLimit(MaxHighlightedChars);

    m_stagedCaption = new QLabel(tr("Staged (HEAD → index)"));
    m_stagedCaption->setObjectName(QStringLiteral("stagedCaption"));
    m_unstagedCaption = new QLabel;
    m_unstagedCaption->setObjectName(QStringLiteral("unstagedCaption"));

    const auto part = [](QLabel* caption, QPlainTextEdit* edit) {
        auto* widget = new QWidget;
        auto* layout = new QVBoxLayout(widget);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        QFont font = caption->font();
        font.setBold(true);
        caption->setFont(font);
        layout->addWidget(caption);
        layout->addWidget(edit, 1);
        return widget;
    };
    auto* parts = new QSplitter(Qt::Vertical);
    parts->setObjectName(QStringLiteral("diffSplitter"));
    parts->setChildrenCollapsible(false);
    parts->addWidget(part(m_stagedCaption, m_stagedDiff));
    parts->addWidget(part(m_unstagedCaption, m_unstagedDiff));
    m_diffPanes = parts;

    auto* pane = new QWidget;
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_diffTitle);
    layout->addWidget(m_diffNote);
    layout->addWidget(m_diffPanes, 1);
    return pane;
}

void RepositoryView::setDirectoryChooser(DirectoryChooser chooser)
{
    m_chooseDirectory = std::move(chooser);
}

bool RepositoryView::selectRepository(const QString& path)
{
    const QModelIndex row = m_repositories->indexOfRepository(path);
    if (!row.isValid())
        return false;
    m_repositoryList->setCurrentIndex(row);
    m_repositoryList->scrollTo(row);
    return true;
}

bool RepositoryView::showRepositoryForCall(const ToolCall& call)
{
    const QModelIndex row = m_repositories->indexForCall(call);
    if (!row.isValid()) {
        // Its state is probably on its way (the backend publishes a repository after the call).
        m_pendingCallId = call.id;
        return false;
    }
    m_pendingCallId = 0;
    m_repositoryList->setCurrentIndex(row);
    m_repositoryList->scrollTo(row);
    return true;
}

void RepositoryView::chooseRepositoryToAdd()
{
    const QString path = m_chooseDirectory ? m_chooseDirectory(this) : QString();
    if (!path.isEmpty())
        addRepository(path);
}

void RepositoryView::addRepository(const QString& path)
{
    m_pendingAdd = path;
    // The backend answers with the canonical path; a symlinked directory would not match otherwise.
    m_pendingAddCanonical = QFileInfo(path).canonicalFilePath();
    if (!selectRepository(path) && !m_pendingAddCanonical.isEmpty())
        selectRepository(m_pendingAddCanonical);
    m_statusLabel->showPending(tr("Adding %1…").arg(path)); // until the backend answers
    m_backend->addRepository(path);
}

void RepositoryView::refreshCurrentRepository()
{
    if (m_currentPath.isEmpty())
        return;
    m_refreshingPath = m_currentPath;
    // Until the state arrives.
    m_statusLabel->showPending(tr("Refreshing %1…").arg(RepositoryListModel::repositoryName(m_currentPath)));
    m_backend->refreshRepository(m_currentPath);
}

void RepositoryView::removeCurrentRepository()
{
    if (m_currentPath.isEmpty())
        return;
    // Nothing on disk changes, so no confirmation: adding it again brings it back.
    m_backend->removeRepository(m_currentPath);
}

void RepositoryView::onStatesChanged(const RepositoryStateList& states)
{
    m_repositories->applyStates(states);
    fitRepositoryColumns();

    QString select;
    for (const RepositoryState& state : states) {
        if (!m_pendingAdd.isEmpty() && (state.path == m_pendingAdd || state.path == m_pendingAddCanonical)) {
            select = state.path;
            m_statusLabel->showNote(tr("Added %1").arg(state.path));
            m_pendingAdd.clear();
            m_pendingAddCanonical.clear();
        }
        if (!m_refreshingPath.isEmpty() && state.path == m_refreshingPath) {
            m_refreshingPath.clear();
            m_statusLabel->clearNote();
        }
        if (m_pendingCallId != 0 && state.callIds.contains(m_pendingCallId)) {
            select = state.path;
            m_pendingCallId = 0;
        }
    }
    if (!select.isEmpty() && select != m_currentPath) {
        selectRepository(select);
        return; // the selection change shows it
    }
    if (!m_repositoryList->currentIndex().isValid() && m_repositories->count() > 0) {
        m_repositoryList->setCurrentIndex(m_repositories->index(0, 0));
        return;
    }
    const QModelIndex current = m_repositories->indexOfRepository(m_currentPath);
    if (!current.isValid())
        return;
    const RepositoryState& state = m_repositories->stateAt(current.row());
    if (!(state == m_shown))
        showDetails(state, true);
}

void RepositoryView::onRepositoryRemoved(const QString& path)
{
    // The view moves the current row to a neighbour, or clears it when none is left.
    m_repositories->removeRepository(path);
    if (m_repositories->count() == 0)
        clearDetails();
    updateActions();
}

void RepositoryView::onCommandFailed(const QString& command, const QString& message)
{
    if (command == QLatin1String("refreshRepository"))
        m_refreshingPath.clear();
    if (command == QLatin1String("addRepository")) {
        m_pendingAdd.clear();
        m_pendingAddCanonical.clear();
        m_statusLabel->showProblem(tr("Could not add the repository: %1").arg(message));
    } else if (command == QLatin1String("removeRepository")) {
        m_statusLabel->showProblem(tr("Could not remove the repository: %1").arg(message));
    } else if (command == QLatin1String("refreshRepository")) {
        m_statusLabel->showProblem(tr("Could not refresh the repository: %1").arg(message));
    } else if (command == QLatin1String("loadFileDiff")) {
        if (m_diffLoading) {
            m_diffLoading = false;
            showDiffMessage(message);
            m_diffNote->setStyleSheet(StatusNote::problemStyleSheet());
        } else {
            m_statusLabel->showProblem(message);
        }
    }
}

void RepositoryView::onCurrentRepositoryChanged()
{
    const QModelIndex current = m_repositoryList->currentIndex();
    updateActions();
    if (!current.isValid()) {
        clearDetails();
        return;
    }
    const QString path = current.data(RepositoryPathRole).toString();
    if (path != m_currentPath)
        m_pendingCallId = 0; // the person (or a call) chose a repository; an older wish is moot
    const RepositoryState& state = m_repositories->stateAt(current.row());
    showDetails(state, path == m_currentPath);
}

void RepositoryView::showDetails(const RepositoryState& state, bool sameRepository)
{
    m_currentPath = state.path;
    m_shown = state;
    m_detailsPlaceholder->hide();
    m_details->show();

    m_nameLabel->setText(RepositoryListModel::repositoryName(state.path));
    m_pathLabel->setText(state.path);
    m_pathLabel->setToolTip(state.path);
    const QString refreshed = RepositoryListModel::refreshedLabel(state.refreshedAtMs);
    m_refreshedLabel->setText(refreshed.isEmpty() ? QString() : tr("read %1").arg(refreshed));
    m_refreshedLabel->setToolTip(m_repositories->indexOfRepository(state.path, RepositoryListModel::RefreshedColumn)
                                     .data(Qt::ToolTipRole)
                                     .toString());
    QString branch = RepositoryListModel::branchLabel(state);
    if (!state.upstream.isEmpty())
        branch += QStringLiteral("  →  ") + RepositoryListModel::upstreamLabel(state);
    else if (!branch.isEmpty())
        branch += QLatin1String("  ") + tr("(no upstream)");
    m_branchLabel->setText(branch);
    m_branchLabel->setToolTip(RepositoryListModel::upstreamDescription(state));
    m_headLabel->setText(state.headCommit.isEmpty()
            ? QString()
            : state.headCommit.left(CommitListModel::ShortIdLength) + QLatin1Char(' ') + state.headSummary);
    m_headLabel->setToolTip(state.headCommit);
    // An unreadable repository has neither; its error takes their place.
    m_branchCaption->setVisible(!branch.isEmpty());
    m_branchLabel->setVisible(!branch.isEmpty());
    // Every local branch, the checked-out one first and marked, so the others are not missed.
    QStringList branches;
    if (state.branches.contains(state.branch))
        branches << QStringLiteral("%1 (current)").arg(state.branch);
    for (const QString& name : state.branches) {
        if (name != state.branch)
            branches << name;
    }
    const QString branchList = branches.join(QStringLiteral(" · "))
        + (state.branchesTruncated ? QStringLiteral(" · ") + tr("and more") : QString());
    m_branchesLabel->setText(branchList);
    m_branchesLabel->setToolTip(state.branches.isEmpty()
            ? QString()
            : (state.branches.size() == 1 ? tr("1 local branch") : tr("%1 local branches").arg(state.branches.size()))
                + (state.branchesTruncated ? tr(" (the first by name)") : QString()) + QLatin1Char('\n')
                + state.branches.join(QLatin1Char('\n')));
    m_branchesCaption->setVisible(!branchList.isEmpty());
    m_branchesLabel->setVisible(!branchList.isEmpty());
    m_headCaption->setVisible(!state.headCommit.isEmpty());
    m_headLabel->setVisible(!state.headCommit.isEmpty());
    m_errorLabel->setText(state.error);
    m_errorLabel->setVisible(!state.error.isEmpty());
    const qsizetype calls = state.callIds.size();
    m_callsLabel->setText(calls == 0 ? QString()
                                     : QStringLiteral("<a href=\"calls\">%1</a>")
                                           .arg(calls == 1 ? tr("Show 1 call") : tr("Show %1 calls").arg(calls)));
    m_callsLabel->setVisible(calls > 0);

    // The lists are replaced whole; the file the person reads and where they scrolled to stay.
    const int fileScroll = sameRepository ? m_fileList->verticalScrollBar()->value() : 0;
    const int commitScroll = sameRepository ? m_commitList->verticalScrollBar()->value() : 0;
    const QString file = sameRepository ? m_diffFile : QString();
    if (!sameRepository) {
        m_diffRepository.clear();
        m_diffFile.clear();
    }
    m_restoringFile = true;
    m_files->setFiles(state.files, state.filesTruncated);
    fitFileColumns();
    m_commits->setCommits(state.commits);
    const QModelIndex fileRow = file.isEmpty() ? QModelIndex() : m_files->indexOfFile(file);
    if (fileRow.isValid())
        m_fileList->setCurrentIndex(fileRow);
    m_restoringFile = false;
    m_fileList->verticalScrollBar()->setValue(fileScroll);
    m_commitList->verticalScrollBar()->setValue(commitScroll);

    // Paths, as the list shows them: the counts beside them count a path staged and unstaged twice.
    const int paths = m_files->count();
    m_tabs->setTabText(0,
        paths == 0 ? tr("Changes") : (m_files->isTruncated() ? tr("Changes (%L1+)") : tr("Changes (%L1)")).arg(paths));
    m_tabs->setTabText(1, state.commits.isEmpty() ? tr("Commits") : tr("Commits (%1)").arg(state.commits.size()));
    // An unreadable repository has no lists; its error says why.
    if (m_files->isTruncated())
        m_filesNote->setText(tr("Showing the first %L1 changed paths; there are more.").arg(paths));
    else if (m_files->count() == 0 && state.error.isEmpty())
        m_filesNote->setText(tr("No changes: the working tree and the index match HEAD."));
    else
        m_filesNote->clear();
    m_filesNote->setVisible(!m_filesNote->text().isEmpty());
    m_commitsNote->setVisible(m_commits->count() == 0 && state.error.isEmpty());

    if (fileRow.isValid()) {
        // The file may have changed with the repository: ask again, and keep the old diff until then.
        requestDiff();
    } else if (!file.isEmpty()) {
        m_diffRepository.clear();
        m_diffFile.clear();
        showDiffMessage(tr("%1 has no changes any more.").arg(file));
    } else {
        showDiffMessage(m_files->count() == 0 ? QString() : tr("Select a changed file to see its diff."));
    }
}

void RepositoryView::clearDetails()
{
    m_currentPath.clear();
    m_shown = RepositoryState();
    m_diffRepository.clear();
    m_diffFile.clear();
    m_diffLoading = false;
    m_files->clear();
    m_commits->clear();
    m_details->hide();
    m_detailsPlaceholder->setText(m_repositories->count() == 0
            ? tr("No repository yet.\n\nThe repositories git tools work on appear here; \"Add repository…\" shows "
                 "one under an allowed root.")
            : tr("Select a repository to see its changes and commits."));
    m_detailsPlaceholder->show();
    showDiffMessage(QString());
    updateActions();
}

void RepositoryView::onCurrentFileChanged()
{
    if (m_restoringFile)
        return;
    const QModelIndex current = m_fileList->currentIndex();
    if (!current.isValid())
        return;
    const QString file = current.data(FilePathRole).toString();
    if (m_diffRepository == m_currentPath && m_diffFile == file)
        return;
    m_diffRepository = m_currentPath;
    m_diffFile = file;
    showDiffMessage(tr("Loading the diff…"));
    m_diffTitle->setText(file);
    requestDiff();
}

void RepositoryView::requestDiff()
{
    if (m_diffRepository.isEmpty() || m_diffFile.isEmpty())
        return;
    m_diffLoading = true;
    m_backend->loadFileDiff(m_diffRepository, m_diffFile);
}

void RepositoryView::onFileDiffLoaded(const FileDiff& diff)
{
    // An answer for a file (or repository) the person has since left.
    if (diff.repository != m_diffRepository || diff.file != m_diffFile)
        return;
    m_diffLoading = false;
    showDiff(diff);
}

void RepositoryView::showDiffMessage(const QString& text)
{
    m_diffTitle->setText(m_diffFile);
    m_diffTitle->setVisible(!m_diffFile.isEmpty());
    m_diffNote->setStyleSheet(QString());
    m_diffNote->setForegroundRole(QPalette::PlaceholderText);
    m_diffNote->setText(text);
    m_diffNote->setVisible(!text.isEmpty());
    m_diffPanes->hide();
    m_stagedDiff->clear();
    m_unstagedDiff->clear();
}

void RepositoryView::showDiff(const FileDiff& diff)
{
    m_diffTitle->setText(diff.file);
    m_diffTitle->setVisible(true);

    bool cut = false;
    const QString staged = shownPart(diff.staged, &cut);
    const QString unstaged = shownPart(diff.unstaged, &cut);
    QStringList notes;
    if (!diff.error.isEmpty())
        notes << tr("Could not read the diff: %1").arg(diff.error);
    if (diff.truncated)
        notes << tr("The diff is longer than %1; only its start is shown.")
                     .arg(QLocale().formattedDataSize(
                         FileDiff::MaxChars * qint64(sizeof(QChar)), 0, QLocale::DataSizeTraditionalFormat));
    else if (cut)
        notes << tr("The diff is long; only the first %1 of each part is shown.")
                     .arg(QLocale().formattedDataSize(
                         MaxShownChars * qint64(sizeof(QChar)), 0, QLocale::DataSizeTraditionalFormat));
    if (diff.error.isEmpty() && staged.isEmpty() && unstaged.isEmpty())
        notes << tr("No differences in the text (only the file's mode may have changed).");
    m_diffNote->setText(notes.join(QLatin1Char(' ')));
    m_diffNote->setStyleSheet(diff.error.isEmpty() ? QString() : StatusNote::problemStyleSheet());
    m_diffNote->setForegroundRole(diff.error.isEmpty() ? QPalette::PlaceholderText : QPalette::WindowText);
    m_diffNote->setVisible(!notes.isEmpty());

    const QModelIndex row = m_files->indexOfFile(diff.file);
    const bool untracked = row.isValid() && m_files->fileAt(row.row()).isUntracked();
    m_unstagedCaption->setText(untracked ? tr("Untracked (the whole file)") : tr("Unstaged (index → working tree)"));

    // Setting the same text again would move the person back to the top.
    if (m_stagedDiff->toPlainText() != staged)
        m_stagedDiff->setPlainText(staged);
    if (m_unstagedDiff->toPlainText() != unstaged)
        m_unstagedDiff->setPlainText(unstaged);
    m_stagedDiff->parentWidget()->setVisible(!staged.isEmpty());
    m_unstagedDiff->parentWidget()->setVisible(!unstaged.isEmpty());
    m_diffPanes->setVisible(!staged.isEmpty() || !unstaged.isEmpty());
}

void RepositoryView::fitRepositoryColumns()
{
    // A long name, branch or upstream is cut (its tooltip has it whole) rather than pushing the
    // changes out of sight.
    const int charWidth = m_repositoryList->fontMetrics().averageCharWidth();
    const std::pair<int, int> widest[] = {
        {RepositoryListModel::NameColumn, 20 * charWidth},
        {RepositoryListModel::BranchColumn, 16 * charWidth},
        {RepositoryListModel::UpstreamColumn, 24 * charWidth},
    };
    for (const auto& [column, limit] : widest) {
        m_repositoryList->resizeColumnToContents(column);
        if (m_repositoryList->columnWidth(column) > limit)
            m_repositoryList->setColumnWidth(column, limit);
    }
}

void RepositoryView::fitFileColumns()
{
    // The view measures only the rows in sight, so a thousand paths cost no more than twenty.
    m_fileList->resizeColumnToContents(RepositoryFilesModel::PathColumn);
    const int widest = 48 * m_fileList->fontMetrics().averageCharWidth();
    if (m_fileList->columnWidth(RepositoryFilesModel::PathColumn) > widest)
        m_fileList->setColumnWidth(RepositoryFilesModel::PathColumn, widest);
}

void RepositoryView::updateActions()
{
    const bool selected = m_repositoryList->currentIndex().isValid();
    m_refreshButton->setEnabled(selected);
    m_removeButton->setEnabled(selected);
}

void RepositoryView::onDockLocationChanged(Qt::DockWidgetArea area)
{
    // Side by side below the call log; stacked when docked at a side, where the dock is tall.
    const bool tall = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
    m_splitter->setOrientation(tall ? Qt::Vertical : Qt::Horizontal);
}

void RepositoryView::changeEvent(QEvent* event)
{
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateHighlighterColours();
}

void RepositoryView::updateHighlighterColours()
{
    // This widget's own palette: when it hears of a change, its children may not have theirs yet.
    const bool dark = isDark(palette());
    m_stagedHighlighter->setDarkBackground(dark);
    m_unstagedHighlighter->setDarkBackground(dark);
}
