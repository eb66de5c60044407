#include "git/repositoryinspector.h"

#include "git/gitlibrary.h"
#include "git/gitptr.h"
#include "git/gitrepositoryhandle.h"
#include "git/gitstatusscanner.h"
#include "git/gittoolhandlers.h"
#include "git/gitupstream.h"
#include "policy/gitpathpolicy.h"

#include <QDateTime>
#include <QFile>

#include <iterator>
#include <set>

using GitToolHandlers::indexLetter;
using GitToolHandlers::oidText;
using GitToolHandlers::workTreeLetter;

namespace {

struct DiffText
{
    QByteArray text;
    bool truncated = false;
    static int line(const git_diff_delta*, const git_diff_hunk*, const git_diff_line* line, void* payload)
    {
        auto* self = static_cast<DiffText*>(payload);
        if (self->truncated)
            return 0;
        if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION
            || line->origin == GIT_DIFF_LINE_DELETION)
            self->text.append(line->origin);
        self->text.append(line->content, qsizetype(line->content_len));
        if (self->text.size() > FileDiff::MaxChars) {
            self->text.truncate(FileDiff::MaxChars);
            self->truncated = true;
        }
        return 0;
    }
};

} // namespace

RepositoryState RepositoryInspector::read(const GitPathPolicy& policy, const QString& path)
{
    RepositoryState state;
    state.path = path;
    state.refreshedAtMs = QDateTime::currentMSecsSinceEpoch();
    QString error;
    auto repository = GitRepositoryHandle::open(policy, path, QStringLiteral("repository"), &error);
    if (!repository) {
        state.error = error;
        return state;
    }
    git_repository* repo = repository->get();
    // Branch, head and upstream.
    if (git_repository_head_unborn(repo) == 1) {
        git_reference* rawHead = nullptr;
        if (git_reference_lookup(&rawHead, repo, "HEAD") == 0) {
            GitReferencePtr head(rawHead);
            state.branch = QString::fromUtf8(git_reference_symbolic_target(head.get())).mid(11);
        }
    } else {
        git_reference* rawHead = nullptr;
        if (git_repository_head(&rawHead, repo) == 0) {
            GitReferencePtr head(rawHead);
            if (git_repository_head_detached(repo) != 1)
                state.branch = QString::fromUtf8(git_reference_shorthand(head.get()));
            const git_oid* target = git_reference_target(head.get());
            if (target) {
                state.headCommit = oidText(target);
                if (GitReferencePtr upstream = GitUpstream::of(repo, head.get())) {
                    state.upstream = QString::fromUtf8(git_reference_shorthand(upstream.get()));
                    size_t ahead = 0;
                    size_t behind = 0;
                    if (git_graph_ahead_behind(&ahead, &behind, repo, target, git_reference_target(upstream.get()))
                        == 0) {
                        state.ahead = int(ahead);
                        state.behind = int(behind);
                    }
                }
                // The newest commits.
                git_revwalk* rawWalk = nullptr;
                if (git_revwalk_new(&rawWalk, repo) == 0) {
                    GitRevwalkPtr walk(rawWalk);
                    // As git log --topo-order: a commit never below one of its parents, whatever
                    // the clocks said (a rebase keeps the author's time, a skewed clock lies).
                    git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
                    git_revwalk_push(walk.get(), target);
                    git_oid oid;
                    while (
                        state.commits.size() < RepositoryState::MaxCommits && git_revwalk_next(&oid, walk.get()) == 0) {
                        git_commit* rawCommit = nullptr;
                        if (git_commit_lookup(&rawCommit, repo, &oid) != 0)
                            break;
                        GitCommitPtr commit(rawCommit);
                        const git_signature* author = git_commit_author(commit.get());
                        CommitSummary summary;
                        summary.id = oidText(&oid);
                        summary.summary = QString::fromUtf8(git_commit_summary(commit.get()));
                        summary.author = QStringLiteral("%1 <%2>").arg(
                            QString::fromUtf8(author->name), QString::fromUtf8(author->email));
                        summary.timeMs = qint64(author->when.time) * 1000;
                        if (state.commits.isEmpty())
                            state.headSummary = summary.summary;
                        state.commits.append(summary);
                    }
                }
            }
        }
    }
    // The local branches: the first MaxBranches by name, however many there are.
    git_branch_iterator* rawIterator = nullptr;
    if (git_branch_iterator_new(&rawIterator, repo, GIT_BRANCH_LOCAL) == 0) {
        GitBranchIteratorPtr iterator(rawIterator);
        std::set<QString> names;
        git_reference* rawReference = nullptr;
        git_branch_t type;
        while (git_branch_next(&rawReference, &type, iterator.get()) == 0) {
            GitReferencePtr reference(rawReference);
            const char* name = nullptr;
            if (git_branch_name(&name, reference.get()) != 0 || !name)
                continue;
            names.insert(QString::fromUtf8(name));
            if (names.size() > std::size_t(RepositoryState::MaxBranches)) {
                names.erase(std::prev(names.end()));
                state.branchesTruncated = true;
            }
        }
        for (const QString& name : names)
            state.branches.append(name);
    }
    git_error_clear();
    if (repository->isBare())
        return state;
    // The changed files, scanned as git_status scans them (quickly on a large tree).
    std::vector<GitStatusEntry> entries;
    if (!GitStatusScanner::scan(repo, repository->workTree(), &entries, &error)) {
        state.error = QStringLiteral("Could not read the status: %1").arg(error);
        return state;
    }
    for (const GitStatusEntry& entry : entries) {
        if (entry.flags == GIT_STATUS_CURRENT || (entry.flags & GIT_STATUS_IGNORED))
            continue;
        RepositoryFile file;
        file.path = QString::fromStdString(entry.path);
        if (entry.flags & GIT_STATUS_WT_NEW) {
            file.indexStatus = file.workTreeStatus = QLatin1Char('?');
            ++state.untracked;
        } else if (entry.flags & GIT_STATUS_CONFLICTED) {
            file.indexStatus = file.workTreeStatus = QLatin1Char('U');
            ++state.unstaged;
        } else {
            file.indexStatus = indexLetter(entry.flags);
            file.workTreeStatus = workTreeLetter(entry.flags);
            if (file.isStaged())
                ++state.staged;
            if (file.isUnstaged())
                ++state.unstaged;
        }
        if (state.files.size() < RepositoryState::MaxFiles)
            state.files.append(file);
        else
            state.filesTruncated = true;
    }
    return state;
}

FileDiff RepositoryInspector::fileDiff(const GitPathPolicy& policy, const QString& path, const QString& file)
{
    FileDiff result;
    result.repository = path;
    result.file = file;
    QString error;
    auto repository = GitRepositoryHandle::open(policy, path, QStringLiteral("repository"), &error);
    if (!repository) {
        result.error = error;
        return result;
    }
    if (repository->isBare()) {
        result.error = QStringLiteral("%1 is a bare repository.").arg(path);
        return result;
    }
    const auto relative = GitPathPolicy::resolveInsideWorkTree(repository->workTree(), file, &error);
    if (!relative || *relative == QLatin1String(".")) {
        result.error = relative ? QStringLiteral("Name one file.") : error;
        return result;
    }
    QByteArray spec = relative->toUtf8();
    char* specs[] = {spec.data()};
    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    options.pathspec = git_strarray{specs, 1};
    options.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_SHOW_UNTRACKED_CONTENT
        | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
    git_repository* repo = repository->get();
    GitTreePtr headTree;
    if (git_repository_head_unborn(repo) != 1) {
        git_object* rawObject = nullptr;
        if (git_revparse_single(&rawObject, repo, "HEAD^{tree}") == 0)
            headTree.reset(reinterpret_cast<git_tree*>(rawObject));
    }
    DiffText staged;
    git_diff* rawDiff = nullptr;
    if (git_diff_tree_to_index(&rawDiff, repo, headTree.get(), nullptr, &options) == 0) {
        GitDiffPtr diff(rawDiff);
        git_diff_print(diff.get(), GIT_DIFF_FORMAT_PATCH, &DiffText::line, &staged);
    }
    DiffText unstaged;
    rawDiff = nullptr;
    if (git_diff_index_to_workdir(&rawDiff, repo, nullptr, &options) == 0) {
        GitDiffPtr diff(rawDiff);
        git_diff_print(diff.get(), GIT_DIFF_FORMAT_PATCH, &DiffText::line, &unstaged);
    }
    git_error_clear();
    result.staged = QString::fromUtf8(staged.text);
    result.unstaged = QString::fromUtf8(unstaged.text);
    result.truncated = staged.truncated || unstaged.truncated;
    return result;
}
