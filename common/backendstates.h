#pragma once

// The states the backend publishes besides calls and questions, as value types with their JSON
// form: each upstream adapter's circuit breaker and connection, each watched repository, and each
// running transfer (a clone, fetch or push). BackendEvents coalesces them per key (the adapter's
// name, the repository's path, the transfer's id), so a flapping breaker or a fast transfer costs
// the window one update per batch, holding the newest state.

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>

enum class BreakerPhase {
    Closed, // calls go through
    Open, // calls fail at once until the recovery timeout passes
    HalfOpen, // a few trial calls decide
};

QString breakerPhaseName(BreakerPhase phase);
// The phase breakerPhaseName() names; none for any other text.
std::optional<BreakerPhase> breakerPhaseFromName(const QString& name);

struct BreakerState
{
    QString adapter;
    BreakerPhase phase = BreakerPhase::Closed;
    int consecutiveFailures = 0;
    int failureThreshold = 0;
    qint64 changedAtMs = 0; // ms since the Unix epoch
    qint64 retryAtMs = 0; // Open: when the breaker lets trial calls through; 0 otherwise
    bool forcedOpen = false; // the operator opened it
    QString lastError;
    QString forcedBy; // which operator forced it open; empty when not forced or not known
    QString backend; // whose adapter, when a window holds several backends (FleetOperator sets it)

    QString key() const { return adapter; }
    nlohmann::json toJson() const;
    static std::optional<BreakerState> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const BreakerState&, const BreakerState&) = default;
};

enum class AdapterConnection {
    Disabled, // enabled: false in the configuration
    Connecting,
    Ready,
    Failing, // the last attempt failed; see lastError
};

QString adapterConnectionName(AdapterConnection connection);

// One change of an adapter's breaker, kept in history beside the calls: `callId` is the call whose
// outcome caused it (0 for the operator, the recovery timer, a configuration reload).
struct BreakerTransitionRecord
{
    QString adapter;
    BreakerPhase from = BreakerPhase::Closed;
    BreakerPhase to = BreakerPhase::Closed;
    QString reason;
    qint64 atMs = 0; // ms since the Unix epoch
    qint64 callId = 0;

    nlohmann::json toJson() const;
    static std::optional<BreakerTransitionRecord> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const BreakerTransitionRecord&, const BreakerTransitionRecord&) = default;
};

// An upstream adapter as its operator watches it: connection, what it offers, its traffic and the
// newest changes of its breaker (the breaker's own state comes as BreakerState).
struct AdapterStatus
{
    static constexpr int MaxTransitions = 50;

    QString name;
    QString endpoint;
    AdapterConnection connection = AdapterConnection::Connecting;
    bool readOnly = false;
    bool disabledByOperator = false; // Disabled by the operator rather than by the configuration
    int toolCount = 0;
    qint64 changedAtMs = 0;
    QString lastError;
    qint64 lastErrorAtMs = 0; // 0: none yet
    qint64 lastSuccessAtMs = 0; // 0: none yet
    qint64 calls = 0; // calls admitted and sent upstream
    qint64 rejectedCalls = 0; // refused by the breaker, a disabled adapter or read-only enforcement
    qint64 failures = 0; // connection errors, timeouts, 5xx, malformed responses
    qint64 authenticationFailures = 0;
    qint64 latencyP50Us = 0; // of the newest tool calls sent upstream (not connecting); 0: no call yet
    qint64 latencyP99Us = 0;
    QList<BreakerTransitionRecord> transitions; // the newest MaxTransitions, oldest first
    QString backend; // whose adapter, when a window holds several backends (FleetOperator sets it)

    QString key() const { return name; }
    nlohmann::json toJson() const;
    static std::optional<AdapterStatus> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const AdapterStatus&, const AdapterStatus&) = default;
};

// One changed path of a repository, in the letters of `git status --porcelain`: indexStatus is
// what is staged (M, A, D, R, T, or a space), workTreeStatus what is not (M, D, T, or a space);
// both are '?' for an untracked path.
struct RepositoryFile
{
    QString path; // relative to the working tree, '/'-separated; a directory ends in '/'
    QChar indexStatus = QLatin1Char(' ');
    QChar workTreeStatus = QLatin1Char(' ');

    bool isUntracked() const { return indexStatus == QLatin1Char('?'); }
    bool isStaged() const { return !isUntracked() && indexStatus != QLatin1Char(' '); }
    bool isUnstaged() const { return !isUntracked() && workTreeStatus != QLatin1Char(' '); }
    nlohmann::json toJson() const;
    static std::optional<RepositoryFile> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const RepositoryFile&, const RepositoryFile&) = default;
};

struct CommitSummary
{
    QString id; // full hex object id
    QString summary; // the first line of the message
    QString author; // "Name <email>"
    qint64 timeMs = 0; // author time, ms since the Unix epoch

    nlohmann::json toJson() const;
    static std::optional<CommitSummary> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const CommitSummary&, const CommitSummary&) = default;
};

// A repository the repository view shows: touched by a git tool or added by the operator, always
// inside an allowed root. Its lists are bounded (MaxFiles, MaxCommits, MaxCallIds) so a huge
// working tree costs the window a bounded update.
struct RepositoryState
{
    static constexpr int MaxFiles = 1'000;
    static constexpr int MaxCommits = 20;
    static constexpr int MaxCallIds = 100;
    static constexpr int MaxBranches = 100;

    QString path; // canonical
    QString branch; // empty when HEAD is detached
    QString upstream;
    int ahead = 0;
    int behind = 0;
    int staged = 0;
    int unstaged = 0;
    int untracked = 0;
    QString headCommit;
    QString headSummary;
    qint64 refreshedAtMs = 0;
    QString error; // set when the repository could not be read
    QList<RepositoryFile> files; // the first MaxFiles changed paths, sorted by path
    bool filesTruncated = false; // more changed paths than `files` holds
    QList<CommitSummary> commits; // the newest MaxCommits commits reachable from HEAD
    QList<qint64> callIds; // the newest MaxCallIds calls that touched it, oldest first
    QStringList branches; // the local branches, the first MaxBranches by name
    bool branchesTruncated = false; // more local branches than `branches` holds

    QString key() const { return path; }
    nlohmann::json toJson() const;
    static std::optional<RepositoryState> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const RepositoryState&, const RepositoryState&) = default;
};

struct TransferProgress
{
    QString id; // unique per transfer
    qint64 callId = 0; // the tool call that runs it
    QString operation; // clone, fetch, push
    QString target; // the repository path or URL, for the operator
    qint64 receivedObjects = 0;
    qint64 totalObjects = 0;
    qint64 receivedBytes = 0;
    bool finished = false;
    QString error;

    QString key() const { return id; }
    nlohmann::json toJson() const;
    static std::optional<TransferProgress> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const TransferProgress&, const TransferProgress&) = default;
};

// The diff of one file of a repository, as unified diff text, for the repository view.
struct FileDiff
{
    // More text than this is cut, saying so in `truncated`.
    static constexpr qsizetype MaxChars = 2 * 1024 * 1024;

    QString repository; // canonical path
    QString file; // relative to the working tree
    QString staged; // HEAD against the index
    QString unstaged; // the index against the working tree (the whole file for an untracked one)
    bool truncated = false;
    QString error;

    nlohmann::json toJson() const;
    static std::optional<FileDiff> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const FileDiff&, const FileDiff&) = default;
};

using BreakerStateList = QList<BreakerState>;
using BreakerTransitionList = QList<BreakerTransitionRecord>;
using AdapterStatusList = QList<AdapterStatus>;
using RepositoryStateList = QList<RepositoryState>;
using TransferProgressList = QList<TransferProgress>;

Q_DECLARE_METATYPE(BreakerState)
Q_DECLARE_METATYPE(AdapterStatus)
Q_DECLARE_METATYPE(BreakerTransitionRecord)
Q_DECLARE_METATYPE(BreakerTransitionList)
Q_DECLARE_METATYPE(RepositoryState)
Q_DECLARE_METATYPE(TransferProgress)
Q_DECLARE_METATYPE(FileDiff)
Q_DECLARE_METATYPE(BreakerStateList)
Q_DECLARE_METATYPE(AdapterStatusList)
Q_DECLARE_METATYPE(RepositoryStateList)
Q_DECLARE_METATYPE(TransferProgressList)
