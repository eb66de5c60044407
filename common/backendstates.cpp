#include "backendstates.h"

#include "enumnames.h"
#include "statejsonreader.h"

#include <limits>

using nlohmann::json;

namespace {

constexpr EnumNames<BreakerPhase, 3> phaseNames{{
    {BreakerPhase::Closed, "closed"},
    {BreakerPhase::Open, "open"},
    {BreakerPhase::HalfOpen, "half-open"},
}};

constexpr EnumNames<AdapterConnection, 4> connectionNames{{
    {AdapterConnection::Disabled, "disabled"},
    {AdapterConnection::Connecting, "connecting"},
    {AdapterConnection::Ready, "ready"},
    {AdapterConnection::Failing, "failing"},
}};

std::string text(const QString& value)
{
    return value.toStdString();
}

// An integer field that must fit an int.
bool readInt(StateJsonReader& reader, const char* key, int* out)
{
    qint64 value = 0;
    reader.integer(key, &value);
    if (!reader.ok())
        return false;
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
        reader.fail(QStringLiteral("\"%1\" is out of range").arg(QLatin1String(key)));
        return false;
    }
    *out = int(value);
    return true;
}

} // namespace

QString breakerPhaseName(BreakerPhase phase)
{
    return enumName(phaseNames, phase);
}

std::optional<BreakerPhase> breakerPhaseFromName(const QString& name)
{
    return enumFromName(phaseNames, name);
}

QString adapterConnectionName(AdapterConnection connection)
{
    return enumName(connectionNames, connection);
}

json BreakerState::toJson() const
{
    return json{{"adapter", text(adapter)}, {"phase", text(breakerPhaseName(phase))},
        {"consecutiveFailures", consecutiveFailures}, {"failureThreshold", failureThreshold},
        {"changedAtMs", changedAtMs}, {"retryAtMs", retryAtMs}, {"forcedOpen", forcedOpen},
        {"forcedBy", text(forcedBy)}, {"lastError", text(lastError)}};
}

std::optional<BreakerState> BreakerState::fromJson(const json& value, QString* problem)
{
    BreakerState state;
    QString phase;
    StateJsonReader reader(value, QStringLiteral("breaker state"), problem);
    reader
        .keys({"adapter", "phase", "consecutiveFailures", "failureThreshold", "changedAtMs", "retryAtMs", "forcedOpen",
                  "lastError"},
            {"forcedBy"})
        .string("adapter", &state.adapter)
        .string("phase", &phase)
        .integer("changedAtMs", &state.changedAtMs)
        .integer("retryAtMs", &state.retryAtMs)
        .boolean("forcedOpen", &state.forcedOpen)
        .optionalString("forcedBy", &state.forcedBy)
        .string("lastError", &state.lastError);
    if (!readInt(reader, "consecutiveFailures", &state.consecutiveFailures)
        || !readInt(reader, "failureThreshold", &state.failureThreshold))
        return std::nullopt;
    const auto parsed = breakerPhaseFromName(phase);
    if (!parsed) {
        reader.fail(QStringLiteral("has an unknown phase \"%1\"").arg(phase));
        return std::nullopt;
    }
    state.phase = *parsed;
    return state;
}

json BreakerTransitionRecord::toJson() const
{
    return json{{"adapter", text(adapter)}, {"from", text(breakerPhaseName(from))}, {"to", text(breakerPhaseName(to))},
        {"reason", text(reason)}, {"atMs", atMs}, {"callId", callId}};
}

std::optional<BreakerTransitionRecord> BreakerTransitionRecord::fromJson(const json& value, QString* problem)
{
    BreakerTransitionRecord record;
    QString from;
    QString to;
    StateJsonReader reader(value, QStringLiteral("breaker transition"), problem);
    reader.keys({"adapter", "from", "to", "reason", "atMs", "callId"})
        .string("adapter", &record.adapter)
        .string("from", &from)
        .string("to", &to)
        .string("reason", &record.reason)
        .integer("atMs", &record.atMs)
        .integer("callId", &record.callId);
    if (!reader.ok())
        return std::nullopt;
    const auto parsedFrom = breakerPhaseFromName(from);
    const auto parsedTo = breakerPhaseFromName(to);
    if (!parsedFrom || !parsedTo) {
        reader.fail(QStringLiteral("has an unknown phase \"%1\"").arg(parsedFrom ? to : from));
        return std::nullopt;
    }
    record.from = *parsedFrom;
    record.to = *parsedTo;
    return record;
}

json AdapterStatus::toJson() const
{
    json transitionArray = json::array();
    for (const BreakerTransitionRecord& transition : transitions)
        transitionArray.push_back(transition.toJson());
    return json{{"name", text(name)}, {"endpoint", text(endpoint)},
        {"connection", text(adapterConnectionName(connection))}, {"readOnly", readOnly},
        {"disabledByOperator", disabledByOperator}, {"toolCount", toolCount}, {"changedAtMs", changedAtMs},
        {"lastError", text(lastError)}, {"lastErrorAtMs", lastErrorAtMs}, {"lastSuccessAtMs", lastSuccessAtMs},
        {"calls", calls}, {"rejectedCalls", rejectedCalls}, {"failures", failures},
        {"authenticationFailures", authenticationFailures}, {"latencyP50Us", latencyP50Us},
        {"latencyP99Us", latencyP99Us}, {"transitions", std::move(transitionArray)}};
}

std::optional<AdapterStatus> AdapterStatus::fromJson(const json& value, QString* problem)
{
    AdapterStatus status;
    QString connection;
    StateJsonReader reader(value, QStringLiteral("adapter status"), problem);
    reader
        .keys({"name", "endpoint", "connection", "readOnly", "disabledByOperator", "toolCount", "changedAtMs",
            "lastError", "lastErrorAtMs", "lastSuccessAtMs", "calls", "rejectedCalls", "failures",
            "authenticationFailures", "latencyP50Us", "latencyP99Us", "transitions"})
        .string("name", &status.name)
        .string("endpoint", &status.endpoint)
        .string("connection", &connection)
        .boolean("readOnly", &status.readOnly)
        .boolean("disabledByOperator", &status.disabledByOperator)
        .integer("changedAtMs", &status.changedAtMs)
        .string("lastError", &status.lastError)
        .integer("lastErrorAtMs", &status.lastErrorAtMs)
        .integer("lastSuccessAtMs", &status.lastSuccessAtMs)
        .integer("calls", &status.calls)
        .integer("rejectedCalls", &status.rejectedCalls)
        .integer("failures", &status.failures)
        .integer("authenticationFailures", &status.authenticationFailures)
        .integer("latencyP50Us", &status.latencyP50Us)
        .integer("latencyP99Us", &status.latencyP99Us);
    if (!readInt(reader, "toolCount", &status.toolCount))
        return std::nullopt;
    const json* transitions = reader.array("transitions");
    if (!reader.ok())
        return std::nullopt;
    if (transitions->size() > std::size_t(MaxTransitions)) {
        reader.fail(QStringLiteral("has more than %1 transitions").arg(MaxTransitions));
        return std::nullopt;
    }
    for (const json& item : *transitions) {
        auto transition = BreakerTransitionRecord::fromJson(item, problem);
        if (!transition)
            return std::nullopt;
        status.transitions.append(std::move(*transition));
    }
    const auto parsed = enumFromName(connectionNames, connection);
    if (!parsed) {
        reader.fail(QStringLiteral("has an unknown connection \"%1\"").arg(connection));
        return std::nullopt;
    }
    status.connection = *parsed;
    return status;
}

json RepositoryFile::toJson() const
{
    return json{
        {"path", text(path)}, {"index", text(QString(indexStatus))}, {"workTree", text(QString(workTreeStatus))}};
}

std::optional<RepositoryFile> RepositoryFile::fromJson(const json& value, QString* problem)
{
    RepositoryFile file;
    QString index;
    QString workTree;
    StateJsonReader reader(value, QStringLiteral("repository file"), problem);
    reader.keys({"path", "index", "workTree"})
        .string("path", &file.path)
        .string("index", &index)
        .string("workTree", &workTree);
    if (reader.ok() && (index.size() != 1 || workTree.size() != 1))
        reader.fail(QStringLiteral("has a status that is not one letter"));
    if (!reader.ok())
        return std::nullopt;
    file.indexStatus = index.at(0);
    file.workTreeStatus = workTree.at(0);
    return file;
}

json CommitSummary::toJson() const
{
    return json{{"id", text(id)}, {"summary", text(summary)}, {"author", text(author)}, {"timeMs", timeMs}};
}

std::optional<CommitSummary> CommitSummary::fromJson(const json& value, QString* problem)
{
    CommitSummary commit;
    StateJsonReader reader(value, QStringLiteral("commit"), problem);
    reader.keys({"id", "summary", "author", "timeMs"})
        .string("id", &commit.id)
        .string("summary", &commit.summary)
        .string("author", &commit.author)
        .integer("timeMs", &commit.timeMs);
    return reader.ok() ? std::optional(commit) : std::nullopt;
}

json RepositoryState::toJson() const
{
    json fileArray = json::array();
    for (const RepositoryFile& file : files)
        fileArray.push_back(file.toJson());
    json commitArray = json::array();
    for (const CommitSummary& commit : commits)
        commitArray.push_back(commit.toJson());
    json callArray = json::array();
    for (qint64 id : callIds)
        callArray.push_back(id);
    json branchArray = json::array();
    for (const QString& name : branches)
        branchArray.push_back(text(name));
    return json{{"path", text(path)}, {"branch", text(branch)}, {"upstream", text(upstream)}, {"ahead", ahead},
        {"behind", behind}, {"staged", staged}, {"unstaged", unstaged}, {"untracked", untracked},
        {"headCommit", text(headCommit)}, {"headSummary", text(headSummary)}, {"refreshedAtMs", refreshedAtMs},
        {"error", text(error)}, {"files", std::move(fileArray)}, {"filesTruncated", filesTruncated},
        {"commits", std::move(commitArray)}, {"callIds", std::move(callArray)}, {"branches", std::move(branchArray)},
        {"branchesTruncated", branchesTruncated}};
}

std::optional<RepositoryState> RepositoryState::fromJson(const json& value, QString* problem)
{
    RepositoryState state;
    StateJsonReader reader(value, QStringLiteral("repository state"), problem);
    reader
        .keys({"path", "branch", "upstream", "ahead", "behind", "staged", "unstaged", "untracked", "headCommit",
                  "headSummary", "refreshedAtMs", "error", "files", "filesTruncated", "commits", "callIds"},
            // Added later: states written before them lack them.
            {"branches", "branchesTruncated"})
        .string("path", &state.path)
        .string("branch", &state.branch)
        .string("upstream", &state.upstream)
        .string("headCommit", &state.headCommit)
        .string("headSummary", &state.headSummary)
        .integer("refreshedAtMs", &state.refreshedAtMs)
        .string("error", &state.error)
        .boolean("filesTruncated", &state.filesTruncated)
        .optionalBoolean("branchesTruncated", &state.branchesTruncated);
    for (const auto& [key, field] :
        {std::pair{"ahead", &state.ahead}, std::pair{"behind", &state.behind}, std::pair{"staged", &state.staged},
            std::pair{"unstaged", &state.unstaged}, std::pair{"untracked", &state.untracked}}) {
        if (!readInt(reader, key, field))
            return std::nullopt;
    }
    const json* files = reader.array("files");
    const json* commits = reader.array("commits");
    const json* callIds = reader.array("callIds");
    const json* branches = reader.optionalArray("branches");
    if (!reader.ok())
        return std::nullopt;
    if (branches) {
        if (branches->size() > std::size_t(MaxBranches)) {
            reader.fail(QStringLiteral("lists more branches than a repository state may"));
            return std::nullopt;
        }
        for (const json& name : *branches) {
            if (!name.is_string()) {
                reader.fail(QStringLiteral("has a branch name that is not a string"));
                return std::nullopt;
            }
            state.branches.append(QString::fromStdString(name.get<std::string>()));
        }
    }
    if (files->size() > std::size_t(MaxFiles) || commits->size() > std::size_t(MaxCommits)
        || callIds->size() > std::size_t(MaxCallIds)) {
        reader.fail(QStringLiteral("holds more entries than a repository state may"));
        return std::nullopt;
    }
    for (const json& entry : *files) {
        auto file = RepositoryFile::fromJson(entry, problem);
        if (!file)
            return std::nullopt;
        state.files.append(std::move(*file));
    }
    for (const json& entry : *commits) {
        auto commit = CommitSummary::fromJson(entry, problem);
        if (!commit)
            return std::nullopt;
        state.commits.append(std::move(*commit));
    }
    for (const json& entry : *callIds) {
        if (!entry.is_number_integer()) {
            reader.fail(QStringLiteral("has a call id that is not an integer"));
            return std::nullopt;
        }
        state.callIds.append(entry.get<qint64>());
    }
    return state;
}

json FileDiff::toJson() const
{
    return json{{"repository", text(repository)}, {"file", text(file)}, {"staged", text(staged)},
        {"unstaged", text(unstaged)}, {"truncated", truncated}, {"error", text(error)}};
}

std::optional<FileDiff> FileDiff::fromJson(const json& value, QString* problem)
{
    FileDiff diff;
    StateJsonReader reader(value, QStringLiteral("file diff"), problem);
    reader.keys({"repository", "file", "staged", "unstaged", "truncated", "error"})
        .string("repository", &diff.repository)
        .string("file", &diff.file)
        .string("staged", &diff.staged)
        .string("unstaged", &diff.unstaged)
        .boolean("truncated", &diff.truncated)
        .string("error", &diff.error);
    return reader.ok() ? std::optional(diff) : std::nullopt;
}

json TransferProgress::toJson() const
{
    return json{{"id", text(id)}, {"callId", callId}, {"operation", text(operation)}, {"target", text(target)},
        {"receivedObjects", receivedObjects}, {"totalObjects", totalObjects}, {"receivedBytes", receivedBytes},
        {"finished", finished}, {"error", text(error)}};
}

std::optional<TransferProgress> TransferProgress::fromJson(const json& value, QString* problem)
{
    TransferProgress progress;
    StateJsonReader reader(value, QStringLiteral("transfer"), problem);
    reader
        .keys({"id", "callId", "operation", "target", "receivedObjects", "totalObjects", "receivedBytes", "finished",
            "error"})
        .string("id", &progress.id)
        .integer("callId", &progress.callId)
        .string("operation", &progress.operation)
        .string("target", &progress.target)
        .integer("receivedObjects", &progress.receivedObjects)
        .integer("totalObjects", &progress.totalObjects)
        .integer("receivedBytes", &progress.receivedBytes)
        .boolean("finished", &progress.finished)
        .string("error", &progress.error);
    return reader.ok() ? std::optional(progress) : std::nullopt;
}
