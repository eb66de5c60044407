#pragma once

// The git tools (git_clone_repository, git_status, git_commit, git_push, git_pull,
// git_create_branch, git_log, git_diff, git_show, git_add, git_checkout, git_branch_list): their
// specs, with input and output schemas and annotations (read tools are readOnlyHint, so the
// permission defaults let them run; the others ask), and their blocking handlers on libgit2. Every
// call runs on the ToolExecutor's workers, one at a time per repository; clone, push and pull have
// the deadline git.timeoutSeconds.

#include "tools/toolregistry.h"

#include <memory>
#include <vector>

struct GitToolEnvironment;

std::vector<RegisteredTool> gitTools(std::shared_ptr<const GitToolEnvironment> environment);
