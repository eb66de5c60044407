// The git tools that work on a repository on disk: status, log, diff, show, branch list, add,
// commit, checkout and create branch. None of them reaches the network.

#include "git/diffmemorybudget.h"
#include "git/gitlibrary.h"
#include "git/gitptr.h"
#include "git/gitrepositoryhandle.h"
#include "git/gitstatuscache.h"
#include "git/gitstatusscanner.h"
#include "git/gittoolenvironment.h"
#include "git/gittoolhandlers.h"
#include "git/gittoolresult.h"
#include "git/gitupstream.h"
#include "policy/gitpathpolicy.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QTimeZone>

#include <algorithm>
#include <vector>

using nlohmann::json;

namespace GitToolHandlers {

namespace {

// Bounds on what one answer may hold: a model reads it, and the call log keeps it.
constexpr std::size_t MaxStatusEntries = 10'000;
constexpr qsizetype MaxPatchBytes = 1024 * 1024;
constexpr int MaxLogCount = 1'000;
constexpr qsizetype MaxMessageBytes = 64 * 1024;
constexpr std::size_t MaxPathArguments = 10'000;

std::string text(const QString& value)
{
    return value.toStdString();
}

QString fromUtf8(const char* value)
{
    return value ? QString::fromUtf8(value) : QString();
}

QString failureText(const QString& what)
{
    return QStringLiteral("%1: %2").arg(what, GitLibrary::lastErrorMessage());
}

json signatureJson(const git_signature* signature)
{
    if (!signature)
        return nullptr;
    const QDateTime when = QDateTime::fromSecsSinceEpoch(signature->when.time, QTimeZone(signature->when.offset * 60));
    return json{{"name", signature->name ? signature->name : ""}, {"email", signature->email ? signature->email : ""},
        {"date", text(when.toString(Qt::ISODate))}};
}

QString boundedMessage(const char* message)
{
    QByteArray bytes(message ? message : "");
    if (bytes.size() > MaxMessageBytes)
        bytes = bytes.left(MaxMessageBytes) + "\n[message cut at 64 KiB]";
    return QString::fromUtf8(bytes);
}

json commitJson(git_commit* commit, bool withMessage)
{
    json parents = json::array();
    for (unsigned i = 0; i < git_commit_parentcount(commit); ++i)
        parents.push_back(text(oidText(git_commit_parent_id(commit, i))));
    const QString id = oidText(git_commit_id(commit));
    json value{{"id", text(id)}, {"short_id", text(id.left(7))},
        {"summary", text(fromUtf8(git_commit_summary(commit)))}, {"author", signatureJson(git_commit_author(commit))},
        {"committer", signatureJson(git_commit_committer(commit))}, {"parents", std::move(parents)}};
    if (withMessage)
        value["message"] = text(boundedMessage(git_commit_message(commit)));
    return value;
}

// A revision a tool names, as a commit.
GitCommitPtr resolveCommit(git_repository* repository, const QString& revision, const QString& what, QString* error)
{
    if (!checkRevisionText(revision, what, error))
        return nullptr;
    git_object* object = nullptr;
    const QByteArray spec = revision.toUtf8();
    if (git_revparse_single(&object, repository, spec.constData()) != 0) {
        *error = QStringLiteral("%1 \"%2\" names no commit in this repository (%3).")
                     .arg(what, revision, GitLibrary::lastErrorMessage());
        return nullptr;
    }
    GitObjectPtr owned(object);
    git_object* peeled = nullptr;
    if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) {
        *error = QStringLiteral("%1 \"%2\" is not a commit (%3).").arg(what, revision, GitLibrary::lastErrorMessage());
        return nullptr;
    }
    return GitCommitPtr(reinterpret_cast<git_commit*>(peeled));
}

const char* letterWord(QChar letter)
{
    switch (letter.unicode()) {
    case 'A':
        return "added";
    case 'M':
        return "modified";
    case 'D':
        return "deleted";
    case 'R':
        return "renamed";
    case 'T':
        return "typechange";
    case 'U':
        return "unmerged";
    default:
        return "unchanged";
    }
}

// The two letters `git status --porcelain` shows for a conflicted path, from which sides it has.
QString conflictLetters(git_index* index, const char* path)
{
    const git_index_entry* ancestor = nullptr;
    const git_index_entry* ours = nullptr;
    const git_index_entry* theirs = nullptr;
    if (git_index_conflict_get(&ancestor, &ours, &theirs, index, path) != 0)
        return QStringLiteral("UU");
    if (ancestor && ours && theirs)
        return QStringLiteral("UU");
    if (!ancestor && ours && theirs)
        return QStringLiteral("AA");
    if (ancestor && ours)
        return QStringLiteral("UD");
    if (ancestor && theirs)
        return QStringLiteral("DU");
    if (ours)
        return QStringLiteral("AU");
    if (theirs)
        return QStringLiteral("UA");
    return QStringLiteral("DD");
}

// A path as `git status --porcelain` writes it: in double quotes, with C-style escapes, when it
// holds a space, a double quote, a backslash, a control character or a byte beyond ASCII (git's
// default core.quotePath); otherwise as it is.
std::string porcelainPath(const std::string& path)
{
    const auto needsQuotes = [](unsigned char c) { return c <= ' ' || c == '"' || c == '\\' || c >= 0x7f; };
    if (std::none_of(path.begin(), path.end(), needsQuotes))
        return path;
    std::string quoted = "\"";
    for (const char character : path) {
        const auto c = static_cast<unsigned char>(character);
        switch (c) {
        case '\a':
            quoted += "\\a";
            break;
        case '\b':
            quoted += "\\b";
            break;
        case '\t':
            quoted += "\\t";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\v':
            quoted += "\\v";
            break;
        case '\f':
            quoted += "\\f";
            break;
        case '\r':
            quoted += "\\r";
            break;
        case '"':
            quoted += "\\\"";
            break;
        case '\\':
            quoted += "\\\\";
            break;
        default:
            if (c < ' ' || c >= 0x7f) {
                const char octal[] = {'\\', char('0' + (c >> 6)), char('0' + ((c >> 3) & 7)), char('0' + (c & 7)), 0};
                quoted += octal;
            } else {
                quoted += character;
            }
        }
    }
    return quoted + '"';
}

struct BranchInfo
{
    QString branch; // empty when detached
    bool detached = false;
    bool unborn = false;
    QString head; // commit id; empty when unborn
    QString upstream;
    int ahead = 0;
    int behind = 0;
};

BranchInfo branchInfo(git_repository* repository)
{
    BranchInfo info;
    info.detached = git_repository_head_detached(repository) == 1;
    info.unborn = git_repository_head_unborn(repository) == 1;
    if (info.unborn) {
        git_reference* head = nullptr;
        if (git_reference_lookup(&head, repository, "HEAD") == 0) {
            GitReferencePtr owned(head);
            const QString target = fromUtf8(git_reference_symbolic_target(head));
            info.branch = target.startsWith(QLatin1String("refs/heads/")) ? target.mid(11) : target;
        }
        return info;
    }
    git_reference* head = nullptr;
    if (git_repository_head(&head, repository) != 0)
        return info;
    GitReferencePtr ownedHead(head);
    if (const git_oid* target = git_reference_target(head))
        info.head = oidText(target);
    if (info.detached)
        return info;
    info.branch = fromUtf8(git_reference_shorthand(head));
    GitReferencePtr ownedUpstream = GitUpstream::of(repository, head);
    if (git_reference* upstream = ownedUpstream.get()) {
        info.upstream = fromUtf8(git_reference_shorthand(upstream));
        size_t ahead = 0;
        size_t behind = 0;
        const git_oid* local = git_reference_target(head);
        const git_oid* remote = git_reference_target(upstream);
        if (local && remote && git_graph_ahead_behind(&ahead, &behind, repository, local, remote) == 0) {
            info.ahead = int(ahead);
            info.behind = int(behind);
        }
    }
    git_error_clear();
    return info;
}

// Collects a diff's patch text, cut at MaxPatchBytes, and its per-file figures.
struct PatchCollector
{
    QByteArray patch;
    bool truncated = false;

    static int line(const git_diff_delta*, const git_diff_hunk*, const git_diff_line* line, void* payload)
    {
        auto* self = static_cast<PatchCollector*>(payload);
        if (self->truncated)
            return 0;
        if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION
            || line->origin == GIT_DIFF_LINE_DELETION)
            self->patch.append(line->origin);
        self->patch.append(line->content, qsizetype(line->content_len));
        if (self->patch.size() > MaxPatchBytes) {
            self->patch.truncate(MaxPatchBytes);
            self->truncated = true;
        }
        return 0;
    }
};

const char* deltaWord(git_delta_t status)
{
    switch (status) {
    case GIT_DELTA_ADDED:
        return "added";
    case GIT_DELTA_DELETED:
        return "deleted";
    case GIT_DELTA_MODIFIED:
        return "modified";
    case GIT_DELTA_RENAMED:
        return "renamed";
    case GIT_DELTA_COPIED:
        return "copied";
    case GIT_DELTA_TYPECHANGE:
        return "typechange";
    case GIT_DELTA_UNTRACKED:
        return "untracked";
    case GIT_DELTA_CONFLICTED:
        return "conflicted";
    default:
        return "unmodified";
    }
}

// One side of a delta's size, as far as it is known without reading its content: what the diff
// says, else the object's header, else the working tree's file.
qint64 sideBytes(git_repository* repository, git_odb* odb, const git_diff_file& file)
{
    if (file.size > 0)
        return qint64(file.size);
    if (odb && !git_oid_is_zero(&file.id)) {
        size_t length = 0;
        git_object_t type = GIT_OBJECT_ANY;
        if (git_odb_read_header(&length, &type, odb, &file.id) == 0)
            return qint64(length);
        git_error_clear();
    }
    if (file.path && git_repository_workdir(repository)) {
        const QFileInfo info(QString::fromUtf8(git_repository_workdir(repository)) + QString::fromUtf8(file.path));
        if (info.isFile() && !info.isSymLink())
            return info.size();
    }
    return 0;
}

// The patch text (cut at MaxPatchBytes), files and totals of a diff; nothing, with `error`, when the
// call was cancelled. One file's patch at a time, each within the process's DiffMemoryBudget, so
// memory follows what is compared at once, not the size of the change; a file larger than
// DiffMemoryBudget::MaxComparedFileBytes is listed without being compared line by line.
std::optional<json> describeDiff(
    git_repository* repository, git_diff* diff, const ToolCallContext& context, QStringList* tooLarge, QString* error)
{
    git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
    find.flags = GIT_DIFF_FIND_RENAMES;
    git_diff_find_similar(diff, &find);
    git_odb* rawOdb = nullptr;
    git_repository_odb(&rawOdb, repository);
    const GitOwned<git_odb, git_odb_free> odb(rawOdb);
    DiffMemoryBudget& budget = DiffMemoryBudget::instance();
    const auto cancelled = [&context] { return context.isCancelled(); };
    PatchCollector collector;
    json files = json::array();
    std::size_t insertions = 0;
    std::size_t deletions = 0;
    const std::size_t count = git_diff_num_deltas(diff);
    for (std::size_t i = 0; i < count; ++i) {
        if (context.isCancelled()) {
            *error = QStringLiteral("Cancelled.");
            return std::nullopt;
        }
        const git_diff_delta* delta = git_diff_get_delta(diff, i);
        const QString path = fromUtf8(delta->new_file.path);
        json file{{"path", text(path)}, {"status", deltaWord(delta->status)}};
        if (delta->status == GIT_DELTA_RENAMED || delta->status == GIT_DELTA_COPIED)
            file["old_path"] = delta->old_file.path ? delta->old_file.path : "";
        const qint64 oldBytes = sideBytes(repository, odb.get(), delta->old_file);
        const qint64 newBytes = sideBytes(repository, odb.get(), delta->new_file);
        if (std::max(oldBytes, newBytes) > DiffMemoryBudget::MaxComparedFileBytes) {
            file["binary"] = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
            file["too_large"] = true;
            file["size"] = std::max(oldBytes, newBytes);
            if (tooLarge->size() < 10)
                tooLarge->append(path);
        } else {
            const DiffMemoryBudget::Reservation reservation
                = budget.reserve(DiffMemoryBudget::estimate(oldBytes, newBytes), cancelled);
            if (!reservation.isValid()) {
                *error = QStringLiteral("Cancelled.");
                return std::nullopt;
            }
            git_patch* patch = nullptr;
            if (git_patch_from_diff(&patch, diff, i) == 0 && patch) {
                GitPatchPtr owned(patch);
                if (!collector.truncated)
                    git_patch_print(patch, &PatchCollector::line, &collector);
                size_t contextCount = 0;
                size_t added = 0;
                size_t removed = 0;
                git_patch_line_stats(&contextCount, &added, &removed, patch);
                file["binary"] = (git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) != 0;
                file["additions"] = added;
                file["deletions"] = removed;
                insertions += added;
                deletions += removed;
            }
        }
        if (files.size() < MaxStatusEntries)
            files.push_back(std::move(file));
    }
    git_error_clear();
    return json{{"diff", collector.patch.toStdString()}, {"truncated", collector.truncated},
        {"files", std::move(files)},
        {"stats", {{"files_changed", count}, {"insertions", insertions}, {"deletions", deletions}}}};
}

// What a diff's message adds about what it left out.
QString omissions(const json& fields, const QStringList& tooLarge)
{
    QString message;
    if (!tooLarge.isEmpty())
        message += QStringLiteral(" Not compared line by line (larger than %1 MiB): %2.")
                       .arg(DiffMemoryBudget::MaxComparedFileBytes / (1024 * 1024))
                       .arg(tooLarge.join(QStringLiteral(", ")));
    if (fields.value("truncated", false))
        message += QStringLiteral(" The patch is cut at %1 KiB; name paths to see the rest.").arg(MaxPatchBytes / 1024);
    return message;
}

int contextLines(const json& arguments)
{
    const auto it = arguments.find("context_lines");
    return it != arguments.end() && it->is_number_integer() ? std::clamp(it->get<int>(), 0, 100) : 3;
}

// The paths a tool was given, each resolved inside the working tree.
std::optional<QStringList> workTreePaths(
    const GitRepositoryHandle& repository, const json& arguments, const char* name, QString* error)
{
    QStringList paths;
    const auto it = arguments.find(name);
    if (it == arguments.end())
        return paths;
    if (it->size() > MaxPathArguments) {
        *error = QStringLiteral("%1 lists more than %2 paths; give directories instead.")
                     .arg(QLatin1String(name))
                     .arg(MaxPathArguments);
        return std::nullopt;
    }
    for (const json& item : *it) {
        const auto relative = GitPathPolicy::resolveInsideWorkTree(
            repository.workTree(), QString::fromStdString(item.get<std::string>()), error);
        if (!relative)
            return std::nullopt;
        if (!paths.contains(*relative))
            paths.append(*relative);
    }
    return paths;
}

// libgit2 treats pathspecs as globs: a literal path is escaped so "a[1].txt" names only itself.
QByteArray literalPathspec(const QString& path)
{
    QByteArray bytes;
    for (const char c : path.toUtf8()) {
        if (c == '*' || c == '?' || c == '[' || c == '\\')
            bytes.append('\\');
        bytes.append(c);
    }
    return bytes;
}

// Stages `paths` ("." for everything) as `git add` does: new and changed files are added, deleted
// ones removed. Returns false with a reason.
bool stagePaths(
    git_repository* repository, git_index* index, const QString& workTree, const QStringList& paths, QString* error)
{
    for (const QString& path : paths) {
        const QFileInfo info(workTree + QLatin1Char('/') + path);
        const QByteArray bytes = path.toUtf8();
        if (path == QLatin1String(".") || (info.isDir() && !info.isSymLink())) {
            // A directory's files: libgit2 takes a pathspec with an (escaped) glob character for a
            // pattern and then no longer matches the directory's contents by its prefix, so
            // "g[1]" would stage nothing; "g\[1\]/*" matches everything below it, as '*' crosses '/'.
            QByteArray spec = path == QLatin1String(".") ? QByteArray() : QByteArray(literalPathspec(path) + "/*");
            char* specs[] = {spec.data()};
            git_strarray pathspec{specs, spec.isEmpty() ? 0u : 1u};
            if (git_index_add_all(index, &pathspec, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr) != 0
                || git_index_update_all(index, &pathspec, nullptr, nullptr) != 0) {
                *error = failureText(QStringLiteral("Could not stage %1").arg(path));
                return false;
            }
            continue;
        }
        if (info.exists() || info.isSymLink()) {
            int ignored = 0;
            if (git_status_should_ignore(&ignored, repository, bytes.constData()) == 0 && ignored
                && !git_index_get_bypath(index, bytes.constData(), 0)) {
                *error = QStringLiteral("%1 is ignored by .gitignore; it was not staged.").arg(path);
                return false;
            }
            if (git_index_add_bypath(index, bytes.constData()) != 0) {
                *error = failureText(QStringLiteral("Could not stage %1").arg(path));
                return false;
            }
        } else if (git_index_get_bypath(index, bytes.constData(), 0)) {
            if (git_index_remove_bypath(index, bytes.constData()) != 0) {
                *error = failureText(QStringLiteral("Could not stage the deletion of %1").arg(path));
                return false;
            }
        } else {
            *error = QStringLiteral("%1 matches no file in the working tree or the index.").arg(path);
            return false;
        }
    }
    return true;
}

QString currentBranchName(git_repository* repository)
{
    return branchInfo(repository).branch;
}

} // namespace

std::optional<GitRepositoryHandle> openRepository(
    const GitToolEnvironment& environment, const ToolCallContext& context, QString* error)
{
    if (!environment.paths.hasRoots()) {
        *error = GitPathPolicy::noRootsMessage();
        return std::nullopt;
    }
    return GitRepositoryHandle::open(
        environment.paths, stringArgument(context.arguments(), "repo_path"), QStringLiteral("repo_path"), error);
}

QString stringArgument(const json& arguments, const char* name, const QString& fallback)
{
    const auto it = arguments.find(name);
    if (it == arguments.end() || !it->is_string())
        return fallback;
    return QString::fromStdString(it->get<std::string>());
}

bool checkRevisionText(const QString& text, const QString& what, QString* error)
{
    if (text.isEmpty()) {
        *error = QStringLiteral("%1 is empty.").arg(what);
        return false;
    }
    if (text.startsWith(QLatin1Char('-'))) {
        *error = QStringLiteral("%1 \"%2\" begins with '-', which could be taken for an option; it is refused.")
                     .arg(what, text);
        return false;
    }
    for (const QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            *error = QStringLiteral("%1 holds a control character; it is refused.").arg(what);
            return false;
        }
    }
    return true;
}

bool checkBranchName(const QString& name, const QString& what, QString* error)
{
    if (!checkRevisionText(name, what, error))
        return false;
    // libgit2's rules are git's (check-ref-format --branch); "@" alone passes them, but git reads it
    // as HEAD wherever a revision is named, so such a branch could never be named again.
    int valid = 0;
    const QByteArray bytes = name.toUtf8();
    if (git_branch_name_is_valid(&valid, bytes.constData()) != 0 || !valid || name == QLatin1String("@")) {
        git_error_clear();
        *error = QStringLiteral("%1 \"%2\" is not a valid branch name (git forbids HEAD, '@' alone, spaces, '..', "
                                "'@{', '~', '^', ':', '?', '*', '[', '\\', a leading or trailing '/' or '.', and "
                                "names ending in \".lock\").")
                     .arg(what, name);
        return false;
    }
    return true;
}

QChar indexLetter(unsigned flags)
{
    if (flags & GIT_STATUS_INDEX_NEW)
        return QLatin1Char('A');
    if (flags & GIT_STATUS_INDEX_RENAMED)
        return QLatin1Char('R');
    if (flags & GIT_STATUS_INDEX_DELETED)
        return QLatin1Char('D');
    if (flags & GIT_STATUS_INDEX_TYPECHANGE)
        return QLatin1Char('T');
    if (flags & GIT_STATUS_INDEX_MODIFIED)
        return QLatin1Char('M');
    return QLatin1Char(' ');
}

QChar workTreeLetter(unsigned flags)
{
    if (flags & GIT_STATUS_WT_DELETED)
        return QLatin1Char('D');
    if (flags & GIT_STATUS_WT_TYPECHANGE)
        return QLatin1Char('T');
    if (flags & (GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_RENAMED))
        return QLatin1Char('M');
    return QLatin1Char(' ');
}

QString oidText(const git_oid* oid)
{
    char buffer[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(buffer, sizeof buffer, oid);
    return QString::fromLatin1(buffer);
}

void noteTouched(const GitToolEnvironment& environment, const ToolCallContext& context,
    const GitRepositoryHandle& repository, bool changed)
{
    if (environment.repositoryTouched)
        environment.repositoryTouched(repository.path(), context.metadata().callId, changed);
}

std::optional<json> statusFields(
    const GitPathPolicy& policy, const QString& repositoryPath, QString* error, std::size_t quickThreshold)
{
    auto repository = GitRepositoryHandle::open(policy, repositoryPath, QStringLiteral("repo_path"), error);
    if (!repository)
        return std::nullopt;
    if (repository->isBare()) {
        *error
            = QStringLiteral("%1 is a bare repository: it has no working tree to report on.").arg(repository->path());
        return std::nullopt;
    }
    std::vector<GitStatusEntry> entries;
    if (!GitStatusScanner::scan(repository->get(), repository->workTree(), &entries, error, quickThreshold)) {
        *error = QStringLiteral("Could not read the status of %1: %2").arg(repository->path(), *error);
        return std::nullopt;
    }
    // Read only for conflicts: reading a large index costs as much as a quick scan.
    GitIndexPtr index;
    const auto conflictIndex = [&] {
        if (!index) {
            git_index* rawIndex = nullptr;
            git_repository_index(&rawIndex, repository->get());
            index.reset(rawIndex);
        }
        return index.get();
    };

    json staged = json::array();
    json unstaged = json::array();
    json untracked = json::array();
    json conflicted = json::array();
    json porcelain = json::array();
    const std::size_t count = entries.size();
    std::size_t shown = 0;
    for (std::size_t i = 0; i < count && shown < MaxStatusEntries; ++i) {
        const GitStatusEntry& entry = entries[i];
        const unsigned flags = entry.flags;
        if (flags == GIT_STATUS_CURRENT || (flags & GIT_STATUS_IGNORED))
            continue;
        ++shown;
        const std::string& path = entry.path;
        if (flags & GIT_STATUS_CONFLICTED) {
            const QString letters = conflictLetters(conflictIndex(), path.c_str());
            conflicted.push_back(json{{"path", path}, {"status", text(letters)}});
            porcelain.push_back(text(letters) + " " + porcelainPath(path));
            continue;
        }
        if (flags & GIT_STATUS_WT_NEW) {
            untracked.push_back(path);
            continue;
        }
        const QChar x = indexLetter(flags);
        const QChar y = workTreeLetter(flags);
        if (x != QLatin1Char(' ')) {
            json item{{"path", path}, {"status", letterWord(x)}};
            if (x == QLatin1Char('R') && !entry.oldPath.empty())
                item["old_path"] = entry.oldPath;
            staged.push_back(std::move(item));
        }
        if (y != QLatin1Char(' '))
            unstaged.push_back(json{{"path", path}, {"status", letterWord(y)}});
        std::string line = text(QString(x) + y) + " ";
        if (x == QLatin1Char('R') && !entry.oldPath.empty())
            line += porcelainPath(entry.oldPath) + " -> ";
        porcelain.push_back(line + porcelainPath(path));
    }
    // As `git status --porcelain` lists them: untracked paths after every change to tracked ones.
    for (const json& path : untracked)
        porcelain.push_back("?? " + porcelainPath(path.get<std::string>()));
    const BranchInfo branch = branchInfo(repository->get());
    const bool truncated = shown < count && shown >= MaxStatusEntries;
    const bool clean = staged.empty() && unstaged.empty() && untracked.empty() && conflicted.empty();
    QString message;
    if (clean)
        message = QStringLiteral("On branch %1: nothing to commit, working tree clean.")
                      .arg(branch.detached ? QStringLiteral("(detached HEAD)") : branch.branch);
    else
        message = QStringLiteral("On branch %1: %2 staged, %3 unstaged, %4 untracked, %5 conflicted.")
                      .arg(branch.detached ? QStringLiteral("(detached HEAD)") : branch.branch)
                      .arg(staged.size())
                      .arg(unstaged.size())
                      .arg(untracked.size())
                      .arg(conflicted.size());
    if (!branch.upstream.isEmpty())
        message += QStringLiteral(" %1 ahead, %2 behind %3.").arg(branch.ahead).arg(branch.behind).arg(branch.upstream);
    if (truncated)
        message += QStringLiteral(" Only the first %1 changed paths are listed.").arg(MaxStatusEntries);
    return json{{"message", text(message)}, {"repo_path", text(repository->path())}, {"branch", text(branch.branch)},
        {"detached", branch.detached}, {"head", branch.head.isEmpty() ? json(nullptr) : json(text(branch.head))},
        {"upstream", branch.upstream.isEmpty() ? json(nullptr) : json(text(branch.upstream))}, {"ahead", branch.ahead},
        {"behind", branch.behind}, {"staged", std::move(staged)}, {"unstaged", std::move(unstaged)},
        {"untracked", std::move(untracked)}, {"conflicted", std::move(conflicted)}, {"clean", clean},
        {"porcelain", std::move(porcelain)}, {"truncated", truncated}};
}

ToolResult status(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    // The same answer, from the cache while the watched tree has not changed.
    std::optional<json> fields = environment.statusCache ? environment.statusCache->status(repository->path())
                                                         : statusFields(environment.paths, repository->path(), &error);
    if (!fields && environment.statusCache) // the cache does not keep the reason: ask again for it
        fields = statusFields(environment.paths, repository->path(), &error);
    if (!fields)
        return GitToolResult::failure(error);
    const QString message = QString::fromStdString((*fields)["message"].get<std::string>());
    fields->erase("message");
    noteTouched(environment, context, *repository, false);
    return GitToolResult::success(message, std::move(*fields));
}

ToolResult log(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    const json& arguments = context.arguments();
    const int maxCount = arguments.contains("max_count") && arguments["max_count"].is_number_integer()
        ? std::clamp(arguments["max_count"].get<int>(), 1, MaxLogCount)
        : 10;
    const QString revision = stringArgument(arguments, "revision", QStringLiteral("HEAD"));
    if (git_repository_head_unborn(repository->get()) == 1 && revision == QLatin1String("HEAD")) {
        noteTouched(environment, context, *repository, false);
        return GitToolResult::success(QStringLiteral("The branch has no commits yet."),
            json{{"repo_path", text(repository->path())}, {"commits", json::array()}});
    }
    GitCommitPtr start = resolveCommit(repository->get(), revision, QStringLiteral("revision"), &error);
    if (!start)
        return GitToolResult::failure(error);
    git_revwalk* rawWalk = nullptr;
    git_revwalk_new(&rawWalk, repository->get());
    GitRevwalkPtr walk(rawWalk);
    // Newest first, but never a parent before its child: commits made within one second (as tools
    // make them) have equal times, and a time sort alone orders those at random.
    git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
    git_revwalk_push(walk.get(), git_commit_id(start.get()));
    json commits = json::array();
    git_oid oid;
    while (int(commits.size()) < maxCount && git_revwalk_next(&oid, walk.get()) == 0) {
        if (context.isCancelled())
            return GitToolResult::failure(QStringLiteral("Cancelled."));
        git_commit* rawCommit = nullptr;
        if (git_commit_lookup(&rawCommit, repository->get(), &oid) != 0)
            break;
        GitCommitPtr commit(rawCommit);
        commits.push_back(commitJson(commit.get(), true));
    }
    noteTouched(environment, context, *repository, false);
    const QString message = QStringLiteral("%1 commit(s) from %2.").arg(commits.size()).arg(revision);
    return GitToolResult::success(
        message, json{{"repo_path", text(repository->path())}, {"commits", std::move(commits)}});
}

ToolResult diff(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    if (repository->isBare())
        return GitToolResult::failure(
            QStringLiteral("%1 is a bare repository: it has no working tree to diff.").arg(repository->path()));
    const json& arguments = context.arguments();
    const bool staged = arguments.value("staged", false);
    const QString target = stringArgument(arguments, "target");
    if (staged && !target.isEmpty())
        return GitToolResult::failure(
            QStringLiteral("Give either staged: true (the index against HEAD) or a target (the working tree against a "
                           "revision), not both."));
    const auto paths = workTreePaths(*repository, arguments, "paths", &error);
    if (!paths)
        return GitToolResult::failure(error);
    std::vector<QByteArray> specBytes;
    for (const QString& path : *paths)
        specBytes.push_back(path == QLatin1String(".") ? QByteArray() : path.toUtf8());
    specBytes.erase(std::remove(specBytes.begin(), specBytes.end(), QByteArray()), specBytes.end());
    std::vector<char*> specs;
    for (QByteArray& bytes : specBytes)
        specs.push_back(bytes.data());

    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    options.context_lines = uint32_t(contextLines(arguments));
    options.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
    options.pathspec = git_strarray{specs.data(), specs.size()};
    git_diff* rawDiff = nullptr;
    QString what;
    int failed = 0;
    if (!target.isEmpty()) {
        GitCommitPtr commit = resolveCommit(repository->get(), target, QStringLiteral("target"), &error);
        if (!commit)
            return GitToolResult::failure(error);
        git_tree* rawTree = nullptr;
        git_commit_tree(&rawTree, commit.get());
        GitTreePtr tree(rawTree);
        failed = git_diff_tree_to_workdir_with_index(&rawDiff, repository->get(), tree.get(), &options);
        what = QStringLiteral("the working tree against %1").arg(target);
    } else if (staged) {
        GitTreePtr tree;
        if (git_repository_head_unborn(repository->get()) != 1) {
            GitCommitPtr head
                = resolveCommit(repository->get(), QStringLiteral("HEAD"), QStringLiteral("HEAD"), &error);
            if (!head)
                return GitToolResult::failure(error);
            git_tree* rawTree = nullptr;
            git_commit_tree(&rawTree, head.get());
            tree.reset(rawTree);
        }
        failed = git_diff_tree_to_index(&rawDiff, repository->get(), tree.get(), nullptr, &options);
        what = QStringLiteral("staged changes");
    } else {
        failed = git_diff_index_to_workdir(&rawDiff, repository->get(), nullptr, &options);
        what = QStringLiteral("unstaged changes");
    }
    if (failed != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not diff %1").arg(what)));
    GitDiffPtr result(rawDiff);
    QStringList tooLarge;
    std::optional<json> described = describeDiff(repository->get(), result.get(), context, &tooLarge, &error);
    if (!described)
        return GitToolResult::failure(error);
    json fields = std::move(*described);
    fields["repo_path"] = text(repository->path());
    const auto files = fields["stats"]["files_changed"].get<std::size_t>();
    noteTouched(environment, context, *repository, false);
    // Before the fields are moved: the arguments' order of evaluation is unspecified.
    const QString message = (files == 0 ? QStringLiteral("No differences in %1.").arg(what)
                                        : QStringLiteral("%1 file(s) differ in %2.").arg(files).arg(what))
        + omissions(fields, tooLarge);
    return GitToolResult::success(message, std::move(fields));
}

ToolResult show(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    const QString revision = stringArgument(context.arguments(), "revision", QStringLiteral("HEAD"));
    GitCommitPtr commit = resolveCommit(repository->get(), revision, QStringLiteral("revision"), &error);
    if (!commit)
        return GitToolResult::failure(error);
    git_tree* rawTree = nullptr;
    git_commit_tree(&rawTree, commit.get());
    GitTreePtr tree(rawTree);
    GitTreePtr parentTree;
    if (git_commit_parentcount(commit.get()) > 0) {
        git_commit* rawParent = nullptr;
        if (git_commit_parent(&rawParent, commit.get(), 0) == 0) {
            GitCommitPtr parent(rawParent);
            git_tree* rawParentTree = nullptr;
            git_commit_tree(&rawParentTree, parent.get());
            parentTree.reset(rawParentTree);
        }
    }
    git_diff_options options = GIT_DIFF_OPTIONS_INIT;
    options.context_lines = uint32_t(contextLines(context.arguments()));
    git_diff* rawDiff = nullptr;
    if (git_diff_tree_to_tree(&rawDiff, repository->get(), parentTree.get(), tree.get(), &options) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not diff %1").arg(revision)));
    GitDiffPtr result(rawDiff);
    QStringList tooLarge;
    std::optional<json> described = describeDiff(repository->get(), result.get(), context, &tooLarge, &error);
    if (!described)
        return GitToolResult::failure(error);
    json fields = std::move(*described);
    fields["repo_path"] = text(repository->path());
    fields["commit"] = commitJson(commit.get(), true);
    noteTouched(environment, context, *repository, false);
    const QString message
        = QStringLiteral("Commit %1: %2")
              .arg(oidText(git_commit_id(commit.get())).left(7), fromUtf8(git_commit_summary(commit.get())))
        + omissions(fields, tooLarge);
    return GitToolResult::success(message, std::move(fields));
}

ToolResult branchList(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    const QString type = stringArgument(context.arguments(), "branch_type", QStringLiteral("local"));
    const git_branch_t flags = type == QLatin1String("remote") ? GIT_BRANCH_REMOTE
        : type == QLatin1String("all")                         ? GIT_BRANCH_ALL
                                                               : GIT_BRANCH_LOCAL;
    git_branch_iterator* rawIterator = nullptr;
    if (git_branch_iterator_new(&rawIterator, repository->get(), flags) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not list branches")));
    GitBranchIteratorPtr iterator(rawIterator);
    json branches = json::array();
    QString current;
    git_reference* rawReference = nullptr;
    git_branch_t branchType;
    while (branches.size() < MaxStatusEntries && git_branch_next(&rawReference, &branchType, iterator.get()) == 0) {
        GitReferencePtr reference(rawReference);
        const char* name = nullptr;
        git_branch_name(&name, reference.get());
        json branch{{"name", name ? name : ""}, {"type", branchType == GIT_BRANCH_REMOTE ? "remote" : "local"},
            {"current", git_branch_is_head(reference.get()) == 1}};
        if (const git_oid* target = git_reference_target(reference.get()))
            branch["commit"] = text(oidText(target));
        if (branchType == GIT_BRANCH_LOCAL) {
            if (GitReferencePtr upstream = GitUpstream::of(repository->get(), reference.get()))
                branch["upstream"] = git_reference_shorthand(upstream.get());
            if (branch["current"].get<bool>())
                current = fromUtf8(name);
        }
        branches.push_back(std::move(branch));
    }
    git_error_clear();
    noteTouched(environment, context, *repository, false);
    // Counted before the list is moved into the fields: the arguments' order of evaluation is unspecified.
    const std::size_t branchCount = branches.size();
    return GitToolResult::success(QStringLiteral("%1 %2 branch(es)%3.")
                                      .arg(branchCount)
                                      .arg(type)
                                      .arg(current.isEmpty() ? QString() : QStringLiteral("; on %1").arg(current)),
        json{{"repo_path", text(repository->path())},
            {"current", current.isEmpty() ? json(nullptr) : json(text(current))}, {"branches", std::move(branches)}});
}

ToolResult add(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    if (repository->isBare())
        return GitToolResult::failure(
            QStringLiteral("%1 is a bare repository: there is nothing to stage.").arg(repository->path()));
    const auto paths = workTreePaths(*repository, context.arguments(), "files", &error);
    if (!paths)
        return GitToolResult::failure(error);
    if (paths->isEmpty())
        return GitToolResult::failure(QStringLiteral("files is empty: name the files to stage, or \".\" for all."));
    git_index* rawIndex = nullptr;
    if (git_repository_index(&rawIndex, repository->get()) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not read the index")));
    GitIndexPtr index(rawIndex);
    if (!stagePaths(repository->get(), index.get(), repository->workTree(), *paths, &error))
        return GitToolResult::failure(error);
    if (git_index_write(index.get()) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not write the index")));
    noteTouched(environment, context, *repository, true);
    json staged = json::array();
    for (const QString& path : *paths)
        staged.push_back(text(path));
    return GitToolResult::success(QStringLiteral("Staged %1 path(s).").arg(paths->size()),
        json{{"repo_path", text(repository->path())}, {"staged", std::move(staged)}});
}

ToolResult commit(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    if (repository->isBare())
        return GitToolResult::failure(
            QStringLiteral("%1 is a bare repository: commit in a clone of it.").arg(repository->path()));
    const json& arguments = context.arguments();
    const QString message = stringArgument(arguments, "message");
    if (message.trimmed().isEmpty())
        return GitToolResult::failure(QStringLiteral("message is empty: a commit needs a message."));
    if (message.toUtf8().size() > MaxMessageBytes)
        return GitToolResult::failure(QStringLiteral("message is longer than 64 KiB."));
    const git_repository_state_t state = git_repository_state_t(git_repository_state(repository->get()));
    if (state != GIT_REPOSITORY_STATE_NONE)
        return GitToolResult::failure(
            QStringLiteral("%1 is in the middle of a merge, rebase or similar operation; finish or abort it with the "
                           "git program first.")
                .arg(repository->path()));
    const auto paths = workTreePaths(*repository, arguments, "files", &error);
    if (!paths)
        return GitToolResult::failure(error);

    git_index* rawIndex = nullptr;
    if (git_repository_index(&rawIndex, repository->get()) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not read the index")));
    GitIndexPtr index(rawIndex);
    if (!paths->isEmpty()) {
        if (!stagePaths(repository->get(), index.get(), repository->workTree(), *paths, &error))
            return GitToolResult::failure(error);
        if (git_index_write(index.get()) != 0)
            return GitToolResult::failure(failureText(QStringLiteral("Could not write the index")));
    }
    if (git_index_has_conflicts(index.get()))
        return GitToolResult::failure(
            QStringLiteral("The index has unresolved conflicts; resolve and stage them first."));

    git_signature* rawSignature = nullptr;
    const QString authorName = stringArgument(arguments, "author_name");
    const QString authorEmail = stringArgument(arguments, "author_email");
    if (!authorName.isEmpty() || !authorEmail.isEmpty()) {
        if (authorName.trimmed().isEmpty() || authorEmail.trimmed().isEmpty())
            return GitToolResult::failure(QStringLiteral("Give both author_name and author_email, or neither."));
        if (git_signature_now(&rawSignature, authorName.toUtf8().constData(), authorEmail.toUtf8().constData()) != 0)
            return GitToolResult::failure(failureText(QStringLiteral("The author is not usable")));
    } else if (git_signature_default(&rawSignature, repository->get()) != 0) {
        return GitToolResult::failure(
            QStringLiteral("No author: give author_name and author_email, or set user.name and user.email in the "
                           "repository's git config."));
    }
    GitSignaturePtr signature(rawSignature);

    git_oid treeId;
    if (git_index_write_tree(&treeId, index.get()) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not write the tree")));
    git_tree* rawTree = nullptr;
    git_tree_lookup(&rawTree, repository->get(), &treeId);
    GitTreePtr tree(rawTree);

    GitCommitPtr parent;
    if (git_repository_head_unborn(repository->get()) != 1) {
        parent = resolveCommit(repository->get(), QStringLiteral("HEAD"), QStringLiteral("HEAD"), &error);
        if (!parent)
            return GitToolResult::failure(error);
        if (git_oid_equal(git_commit_tree_id(parent.get()), &treeId) && !arguments.value("allow_empty", false))
            return GitToolResult::failure(
                QStringLiteral("Nothing to commit: the staged tree is the same as HEAD's. Stage changes with git_add "
                               "(or pass files), or set allow_empty."));
    }
    const git_commit* parents[] = {parent.get()};
    git_oid commitId;
    const QByteArray messageBytes = message.toUtf8();
    if (git_commit_create(&commitId, repository->get(), "HEAD", signature.get(), signature.get(), nullptr,
            messageBytes.constData(), tree.get(), parent ? 1 : 0, parent ? parents : nullptr)
        != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not create the commit")));
    noteTouched(environment, context, *repository, true);
    const QString id = oidText(&commitId);
    const QString branch = currentBranchName(repository->get());
    return GitToolResult::success(QStringLiteral("Committed %1 on %2.").arg(id.left(7), branch),
        json{{"repo_path", text(repository->path())}, {"commit_id", text(id)}, {"short_id", text(id.left(7))},
            {"branch", text(branch)}});
}

namespace {

// Collects the paths a safe checkout refused to overwrite.
int collectConflicts(git_checkout_notify_t, const char* path, const git_diff_file*, const git_diff_file*,
    const git_diff_file*, void* payload)
{
    auto* paths = static_cast<QStringList*>(payload);
    if (paths->size() < 50)
        paths->append(fromUtf8(path));
    return 0;
}

// Checks out `commit`'s tree safely (never overwriting local changes) and points HEAD at `reference`.
bool checkoutTree(git_repository* repository, git_commit* commit, QString* error)
{
    git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
    options.checkout_strategy = GIT_CHECKOUT_SAFE;
    QStringList conflicts;
    options.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
    options.notify_cb = &collectConflicts;
    options.notify_payload = &conflicts;
    if (git_checkout_tree(repository, reinterpret_cast<git_object*>(commit), &options) != 0) {
        if (!conflicts.isEmpty())
            *error = QStringLiteral("Your local changes to these files would be overwritten: %1. Commit them first, "
                                    "or discard them with the git program.")
                         .arg(conflicts.join(QLatin1String(", ")));
        else
            *error = failureText(QStringLiteral("Could not check out"));
        return false;
    }
    return true;
}

} // namespace

bool checkoutCommitSafely(git_repository* repository, git_commit* commit, QString* error)
{
    return checkoutTree(repository, commit, error);
}

ToolResult checkout(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    if (repository->isBare())
        return GitToolResult::failure(
            QStringLiteral("%1 is a bare repository: it has no working tree.").arg(repository->path()));
    const QString branch = stringArgument(context.arguments(), "branch_name");
    if (!checkBranchName(branch, QStringLiteral("branch_name"), &error))
        return GitToolResult::failure(error);
    const QString previous = currentBranchName(repository->get());
    const QByteArray branchBytes = branch.toUtf8();
    git_reference* rawLocal = nullptr;
    bool created = false;
    if (git_branch_lookup(&rawLocal, repository->get(), branchBytes.constData(), GIT_BRANCH_LOCAL) != 0) {
        // As `git checkout NAME` does: a branch only the remote has gets a local branch tracking it.
        git_reference* rawRemote = nullptr;
        const QByteArray remoteName = QByteArrayLiteral("origin/") + branchBytes;
        if (git_branch_lookup(&rawRemote, repository->get(), remoteName.constData(), GIT_BRANCH_REMOTE) != 0)
            return GitToolResult::failure(
                QStringLiteral("There is no branch \"%1\" (local, or on origin). git_branch_list shows the branches; "
                               "git_create_branch makes a new one.")
                    .arg(branch));
        GitReferencePtr remote(rawRemote);
        git_commit* rawTarget = nullptr;
        git_commit_lookup(&rawTarget, repository->get(), git_reference_target(remote.get()));
        GitCommitPtr target(rawTarget);
        if (!target || git_branch_create(&rawLocal, repository->get(), branchBytes.constData(), target.get(), 0) != 0)
            return GitToolResult::failure(failureText(QStringLiteral("Could not create the branch %1").arg(branch)));
        git_branch_set_upstream(rawLocal, remoteName.constData());
        created = true;
    }
    GitReferencePtr local(rawLocal);
    git_commit* rawCommit = nullptr;
    if (git_commit_lookup(&rawCommit, repository->get(), git_reference_target(local.get())) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not read the branch %1").arg(branch)));
    GitCommitPtr commit(rawCommit);
    if (!checkoutTree(repository->get(), commit.get(), &error)) {
        if (created)
            git_branch_delete(local.get());
        return GitToolResult::failure(error);
    }
    if (git_repository_set_head(repository->get(), git_reference_name(local.get())) != 0)
        return GitToolResult::failure(failureText(QStringLiteral("Could not switch HEAD to %1").arg(branch)));
    noteTouched(environment, context, *repository, true);
    return GitToolResult::success(created
            ? QStringLiteral("Switched to a new branch %1 tracking origin/%1.").arg(branch)
            : QStringLiteral("Switched to branch %1.").arg(branch),
        json{{"repo_path", text(repository->path())}, {"branch", text(branch)},
            {"previous_branch", previous.isEmpty() ? json(nullptr) : json(text(previous))},
            {"head", text(oidText(git_commit_id(commit.get())))}, {"created", created}});
}

ToolResult createBranch(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    const json& arguments = context.arguments();
    const QString branch = stringArgument(arguments, "branch_name");
    if (!checkBranchName(branch, QStringLiteral("branch_name"), &error))
        return GitToolResult::failure(error);
    const QString base = stringArgument(arguments, "base", QStringLiteral("HEAD"));
    if (git_repository_head_unborn(repository->get()) == 1 && base == QLatin1String("HEAD"))
        return GitToolResult::failure(
            QStringLiteral("The repository has no commits yet: commit once before branching."));
    GitCommitPtr start = resolveCommit(repository->get(), base, QStringLiteral("base"), &error);
    if (!start)
        return GitToolResult::failure(error);
    git_reference* rawBranch = nullptr;
    const QByteArray branchBytes = branch.toUtf8();
    if (git_branch_create(&rawBranch, repository->get(), branchBytes.constData(), start.get(), 0) != 0) {
        if (git_error_last() && GitLibrary::lastErrorMessage().contains(QLatin1String("exists")))
            return GitToolResult::failure(QStringLiteral("A branch named \"%1\" already exists.").arg(branch));
        return GitToolResult::failure(failureText(QStringLiteral("Could not create the branch %1").arg(branch)));
    }
    GitReferencePtr created(rawBranch);
    const bool switchTo = arguments.value("checkout", false);
    if (switchTo) {
        if (!checkoutTree(repository->get(), start.get(), &error)) {
            git_branch_delete(created.get());
            return GitToolResult::failure(error);
        }
        if (git_repository_set_head(repository->get(), git_reference_name(created.get())) != 0)
            return GitToolResult::failure(failureText(QStringLiteral("Could not switch HEAD to %1").arg(branch)));
    }
    noteTouched(environment, context, *repository, true);
    const QString head = oidText(git_commit_id(start.get()));
    return GitToolResult::success(
        QStringLiteral("Created branch %1 at %2%3.")
            .arg(branch, head.left(7), switchTo ? QStringLiteral(" and switched to it") : QString()),
        json{{"repo_path", text(repository->path())}, {"branch", text(branch)}, {"commit", text(head)},
            {"checked_out", switchTo}});
}

} // namespace GitToolHandlers
