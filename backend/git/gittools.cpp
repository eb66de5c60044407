#include "git/gittools.h"

#include "git/confinedloosebackend.h"
#include "git/gitlibrary.h"
#include "git/gittoolenvironment.h"
#include "git/gittoolhandlers.h"
#include "git/gittoolresult.h"

using nlohmann::json;

namespace {

using Handler = ToolResult (*)(const GitToolEnvironment&, ToolCallContext&);

json stringProperty(const char* description)
{
    return json{{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}, {"description", description}};
}

json repoPathProperty()
{
    return stringProperty("The repository's top directory: absolute, or relative to the first allowed root.");
}

json objectSchema(json properties, json required)
{
    return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)},
        {"additionalProperties", false}};
}

// Every answer: a status, a message, and the tool's own fields (absent on failure).
json outputSchema(json fields)
{
    json properties{
        {"status", {{"type", "string"}, {"enum", {"success", "failure"}}}}, {"message", {{"type", "string"}}}};
    for (auto it = fields.begin(); it != fields.end(); ++it)
        properties[it.key()] = it.value();
    return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", {"status", "message"}}};
}

json pathListProperty(const char* description)
{
    return json{{"type", "array"}, {"items", {{"type", "string"}, {"minLength", 1}, {"maxLength", 4096}}},
        {"maxItems", 10000}, {"description", description}};
}

json annotations(const char* title, bool readOnly, bool destructive, bool idempotent, bool openWorld)
{
    json value{{"title", title}, {"readOnlyHint", readOnly}, {"openWorldHint", openWorld}};
    if (!readOnly) {
        value["destructiveHint"] = destructive;
        value["idempotentHint"] = idempotent;
    }
    return value;
}

const json entryList{{"type", "array"}, {"items", {{"type", "object"}}}};
const json nullableString{{"type", {"string", "null"}}};

RegisteredTool makeTool(const std::shared_ptr<const GitToolEnvironment>& environment, const char* name,
    const char* title, const char* description, json input, json output, json toolAnnotations, Handler handler,
    const char* pathArgument, bool network)
{
    RegisteredTool tool;
    tool.spec.name = QString::fromLatin1(name);
    tool.spec.title = QString::fromLatin1(title);
    tool.spec.description = QString::fromLatin1(description);
    tool.spec.inputSchema = std::move(input);
    tool.spec.outputSchema = std::move(output);
    tool.spec.annotations = std::move(toolAnnotations);
    tool.route = ToolRoute::git();
    tool.execution = ExecutionPolicy::blocking(network ? qint64(environment->settings.timeoutSeconds) * 1000 : 0);
    // One call at a time per repository (or clone destination), in the order the calls came. The
    // key is the path as the policy resolves it, so two spellings of one repository share a key.
    tool.execution.serializationKey = [environment, argument = std::string(pathArgument)](const json& arguments) {
        const auto it = arguments.find(argument);
        if (it == arguments.end() || !it->is_string())
            return QString();
        const QString path = QString::fromStdString(it->get<std::string>());
        QString ignored;
        // An existing repository (a root itself among them), else a clone destination.
        if (auto resolved = environment->paths.resolveRepository(path, QString(), &ignored))
            return *resolved;
        if (auto resolved = environment->paths.resolveDestination(path, QString(), &ignored))
            return *resolved;
        return path;
    };
    if (network) {
        tool.execution.group = QStringLiteral("git-network");
        tool.execution.groupLimit = 8;
    }
    tool.blockingHandler = [environment, handler](ToolCallContext& context) {
        GitLibrary::ensureInitialized();
        ConfinedLooseBackend::clearLastRefusal(); // what an earlier call on this worker met
        return handler(*environment, context);
    };
    // A call that ends without the handler (refused arguments, the deadline) still answers
    // {"status": "failure", "message", …}, with null for each other field the output requires
    // (git_clone_repository's local_path_created).
    json requiredFields = json::object();
    for (const json& field : tool.spec.outputSchema.value("required", json::array())) {
        if (field.is_string() && field != "status" && field != "message")
            requiredFields[field.get<std::string>()] = nullptr;
    }
    tool.shapeFailure = [requiredFields](const ToolResult& failure) {
        QString message = failure.firstText();
        if (message.isEmpty())
            message = QStringLiteral("The call failed.");
        ToolResult shaped = GitToolResult::failure(message, requiredFields);
        shaped.outcome = failure.outcome;
        return shaped;
    };
    return tool;
}

} // namespace

std::vector<RegisteredTool> gitTools(std::shared_ptr<const GitToolEnvironment> environment)
{
    using namespace GitToolHandlers;
    std::vector<RegisteredTool> tools;
    const json commitsList{{"type", "array"}, {"items", {{"type", "object"}}}};

    tools.push_back(makeTool(environment, "git_clone_repository", "Clone a git repository",
        "Clones a remote repository (HTTPS or SSH URL) into local_path, which must be inside an allowed root and "
        "must not exist or be an empty directory. Checks out branch_name, or the remote's default branch. Not "
        "idempotent: a second clone into the same path fails and leaves it untouched. Credentials come from the "
        "connection the person made for the remote's host; never put a token in the URL.",
        objectSchema(
            json{{"repository_url",
                     stringProperty("The remote's URL: https://host/owner/repo.git, "
                                    "ssh://git@host/owner/repo.git or git@host:owner/repo.git")},
                {"local_path", stringProperty("Where to clone: absolute, or relative to the first allowed root")},
                {"branch_name", stringProperty("The branch to check out; the remote's default otherwise")}},
            json{"repository_url", "local_path"}),
        json{{"type", "object"},
            {"properties",
                {{"status", {{"type", "string"}, {"enum", {"success", "failure"}}}}, {"message", {{"type", "string"}}},
                    {"local_path_created", nullableString}}},
            {"required", {"status", "message", "local_path_created"}}, {"additionalProperties", false}},
        annotations("Clone a git repository", false, false, false, true), &cloneRepository, "local_path", true));

    tools.push_back(makeTool(environment, "git_status", "Git status",
        "Shows the working tree's state: branch, upstream with ahead/behind counts, and the staged, unstaged, "
        "untracked and conflicted paths (also as `git status --porcelain` lines).",
        objectSchema(json{{"repo_path", repoPathProperty()}}, json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"branch", {{"type", "string"}}},
            {"detached", {{"type", "boolean"}}}, {"head", nullableString}, {"upstream", nullableString},
            {"ahead", {{"type", "integer"}}}, {"behind", {{"type", "integer"}}}, {"staged", entryList},
            {"unstaged", entryList}, {"untracked", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"conflicted", entryList}, {"clean", {{"type", "boolean"}}},
            {"porcelain", {{"type", "array"}, {"items", {{"type", "string"}}}}}, {"truncated", {{"type", "boolean"}}}}),
        annotations("Git status", true, false, true, false), &status, "repo_path", false));

    tools.push_back(makeTool(environment, "git_log", "Git log",
        "Lists commits reachable from a revision (HEAD by default), newest first.",
        objectSchema(json{{"repo_path", repoPathProperty()},
                         {"max_count",
                             {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 10},
                                 {"description", "How many commits, at most"}}},
                         {"revision", stringProperty("Where to start: a branch, tag or commit id; HEAD by default")}},
            json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"commits", commitsList}}),
        annotations("Git log", true, false, true, false), &log, "repo_path", false));

    tools.push_back(makeTool(environment, "git_diff", "Git diff",
        "Shows a unified diff: unstaged changes (the working tree against the index) by default; staged changes "
        "(the index against HEAD) with staged: true; or the working tree against a target revision.",
        objectSchema(
            json{{"repo_path", repoPathProperty()},
                {"staged", {{"type", "boolean"}, {"default", false}, {"description", "Diff the index against HEAD"}}},
                {"target", stringProperty("A branch, tag or commit to diff the working tree against")},
                {"paths", pathListProperty("Limit the diff to these paths")},
                {"context_lines", {{"type", "integer"}, {"minimum", 0}, {"maximum", 100}, {"default", 3}}}},
            json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"diff", {{"type", "string"}}},
            {"truncated", {{"type", "boolean"}}}, {"files", entryList}, {"stats", {{"type", "object"}}}}),
        annotations("Git diff", true, false, true, false), &diff, "repo_path", false));

    tools.push_back(makeTool(environment, "git_show", "Git show",
        "Shows a commit: its author, message and diff against its first parent.",
        objectSchema(json{{"repo_path", repoPathProperty()},
                         {"revision", stringProperty("A branch, tag or commit id; HEAD by default")},
                         {"context_lines", {{"type", "integer"}, {"minimum", 0}, {"maximum", 100}, {"default", 3}}}},
            json{"repo_path"}),
        outputSchema(
            json{{"repo_path", {{"type", "string"}}}, {"commit", {{"type", "object"}}}, {"diff", {{"type", "string"}}},
                {"truncated", {{"type", "boolean"}}}, {"files", entryList}, {"stats", {{"type", "object"}}}}),
        annotations("Git show", true, false, true, false), &show, "repo_path", false));

    tools.push_back(makeTool(environment, "git_branch_list", "List git branches",
        "Lists local branches (default), remote-tracking branches, or both, with the current branch and upstreams.",
        objectSchema(
            json{{"repo_path", repoPathProperty()},
                {"branch_type", {{"type", "string"}, {"enum", {"local", "remote", "all"}}, {"default", "local"}}}},
            json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"current", nullableString}, {"branches", entryList}}),
        annotations("List git branches", true, false, true, false), &branchList, "repo_path", false));

    tools.push_back(makeTool(environment, "git_add", "Stage changes",
        "Stages files for the next commit, as `git add` does: new and changed files are added, deleted ones "
        "removed. \".\" stages everything. Paths must be inside the repository's working tree.",
        objectSchema(json{{"repo_path", repoPathProperty()},
                         {"files",
                             [] {
                                 json property = pathListProperty("Paths relative to the working tree, or \".\"");
                                 property["minItems"] = 1;
                                 return property;
                             }()}},
            json{"repo_path", "files"}),
        outputSchema(json{
            {"repo_path", {{"type", "string"}}}, {"staged", {{"type", "array"}, {"items", {{"type", "string"}}}}}}),
        annotations("Stage changes", false, false, true, false), &add, "repo_path", false));

    tools.push_back(makeTool(environment, "git_commit", "Commit",
        "Records the staged changes as a new commit on the current branch. `files` are staged first. The author "
        "is author_name/author_email, or the repository's user.name/user.email. No hook runs.",
        objectSchema(json{{"repo_path", repoPathProperty()},
                         {"message",
                             {{"type", "string"}, {"minLength", 1}, {"maxLength", 65536},
                                 {"description", "The commit message"}}},
                         {"files", pathListProperty("Paths to stage before committing")},
                         {"author_name", stringProperty("The author's name")},
                         {"author_email", stringProperty("The author's email")},
                         {"allow_empty", {{"type", "boolean"}, {"default", false}}}},
            json{"repo_path", "message"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"commit_id", {{"type", "string"}}},
            {"short_id", {{"type", "string"}}}, {"branch", {{"type", "string"}}}}),
        annotations("Commit", false, false, false, false), &commit, "repo_path", false));

    tools.push_back(makeTool(environment, "git_checkout", "Switch branches",
        "Switches the working tree to a branch. A branch only origin has gets a local branch tracking it. Never "
        "overwrites local changes: it refuses and names the files instead.",
        objectSchema(
            json{{"repo_path", repoPathProperty()}, {"branch_name", stringProperty("The branch to switch to")}},
            json{"repo_path", "branch_name"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"branch", {{"type", "string"}}},
            {"previous_branch", nullableString}, {"head", {{"type", "string"}}}, {"created", {{"type", "boolean"}}}}),
        annotations("Switch branches", false, true, true, false), &checkout, "repo_path", false));

    tools.push_back(makeTool(environment, "git_create_branch", "Create a branch",
        "Creates a branch at base (HEAD by default), and switches to it when checkout is true.",
        objectSchema(json{{"repo_path", repoPathProperty()}, {"branch_name", stringProperty("The new branch's name")},
                         {"base", stringProperty("Where it starts: a branch, tag or commit; HEAD by default")},
                         {"checkout", {{"type", "boolean"}, {"default", false}}}},
            json{"repo_path", "branch_name"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"branch", {{"type", "string"}}},
            {"commit", {{"type", "string"}}}, {"checked_out", {{"type", "boolean"}}}}),
        annotations("Create a branch", false, false, false, false), &createBranch, "repo_path", false));

    tools.push_back(makeTool(environment, "git_push", "Push",
        "Pushes a branch (the current one by default) to a remote (origin by default), setting its upstream when it "
        "has none. Refused by the remote when it has commits the branch lacks: pull first.",
        objectSchema(
            json{{"repo_path", repoPathProperty()}, {"remote", stringProperty("The remote; origin by default")},
                {"branch", stringProperty("The local branch to push; the current one by default")},
                {"set_upstream", {{"type", "boolean"}, {"default", false}}}},
            json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"remote", {{"type", "string"}}},
            {"branch", {{"type", "string"}}}, {"remote_url", {{"type", "string"}}}, {"commit", {{"type", "string"}}},
            {"upstream_set", {{"type", "boolean"}}}}),
        annotations("Push", false, true, true, true), &push, "repo_path", true));

    tools.push_back(makeTool(environment, "git_pull", "Pull",
        "Fetches from a remote (origin by default) and fast-forwards the current branch to its upstream (or to "
        "`branch` on the remote). Refuses when the histories diverged, and never overwrites local changes.",
        objectSchema(
            json{{"repo_path", repoPathProperty()}, {"remote", stringProperty("The remote; origin by default")},
                {"branch", stringProperty("The remote branch; the upstream's by default")}},
            json{"repo_path"}),
        outputSchema(json{{"repo_path", {{"type", "string"}}}, {"remote", {{"type", "string"}}},
            {"branch", {{"type", "string"}}}, {"remote_url", {{"type", "string"}}}, {"previous_head", nullableString},
            {"head", {{"type", "string"}}}, {"fast_forward", {{"type", "boolean"}}},
            {"updated", {{"type", "boolean"}}}}),
        annotations("Pull", false, true, false, true), &pull, "repo_path", true));
    return tools;
}
