#pragma once

// The git tools' blocking handlers, one per tool, shared by gittools.cpp (which declares their
// specs) and the files that implement them: gitlocaltools.cpp (the repository on disk) and
// gitremotetools.cpp (clone, push and pull, with credentials, progress and cancellation).
// Each runs on a worker of the ToolExecutor and answers through GitToolResult.

#include "tools/toolcallcontext.h"
#include "tools/toolresult.h"

#include <QString>

#include <git2.h>
#include <nlohmann/json.hpp>

#include <optional>

struct GitToolEnvironment;
class GitPathPolicy;
class GitRepositoryHandle;

namespace GitToolHandlers {

ToolResult status(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult log(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult diff(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult show(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult branchList(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult add(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult commit(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult checkout(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult createBranch(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult cloneRepository(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult push(const GitToolEnvironment& environment, ToolCallContext& context);
ToolResult pull(const GitToolEnvironment& environment, ToolCallContext& context);

// git_status's fields (and its "message") for the repository at `path`, computed now; what the
// GitStatusCache keeps. Nothing, with `error`, when the repository cannot be read.
// Trees of `quickThreshold` index entries or more are compared with the index file on two threads
// first, and libgit2 looks only at what may have changed (GitStatusScanner).
std::optional<nlohmann::json> statusFields(
    const GitPathPolicy& policy, const QString& path, QString* error, std::size_t quickThreshold = 4'000);

// Shared helpers.
QString stringArgument(const nlohmann::json& arguments, const char* name, const QString& fallback = {});
// A branch name, ref or revision a tool was given: refused when it begins with '-' (it could be
// taken for an option), is empty, or holds control characters. `what` names the argument.
bool checkRevisionText(const QString& text, const QString& what, QString* error);
// A branch name: checkRevisionText, then libgit2's own validation of refs/heads/<name>.
bool checkBranchName(const QString& name, const QString& what, QString* error);
QString oidText(const git_oid* oid);
// The letters `git status --porcelain` shows for a status entry's index and working-tree sides.
QChar indexLetter(unsigned flags);
QChar workTreeLetter(unsigned flags);
// Checks out `commit`'s tree without ever overwriting local changes; the refusal names the files.
bool checkoutCommitSafely(git_repository* repository, git_commit* commit, QString* error);
// The repository a tool's "repo_path" names, inside the roots (the message says how to configure
// roots when there are none).
std::optional<GitRepositoryHandle> openRepository(
    const GitToolEnvironment& environment, const ToolCallContext& context, QString* error);
// Tells the environment's watcher that the tool read or changed the repository.
void noteTouched(const GitToolEnvironment& environment, const ToolCallContext& context,
    const GitRepositoryHandle& repository, bool changed);

} // namespace GitToolHandlers
