// The git tools that reach a remote: clone, push and pull. They run on a worker with a deadline
// (git.timeoutSeconds); libgit2's transfer callbacks report MCP progress and stop the transfer
// when the call is cancelled (the client cancels, the session ends, the deadline passes).
// Credentials come from the URL itself, then the GitCredentialSource; remote URLs pass the URL
// policy whether a tool was given them or found them in .git/config.

#include "git/gitcredentialsource.h"
#include "git/gitlibrary.h"
#include "git/gitptr.h"
#include "git/gitrepositoryhandle.h"
#include "git/gittoolenvironment.h"
#include "git/gittoolhandlers.h"
#include "git/gittoolresult.h"
#include "git/gittransportstream.h"
#include "git/localobjectcopy.h"
#include "policy/gitpathpolicy.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QUrl>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <signal.h>

using nlohmann::json;

namespace GitToolHandlers {

namespace {

std::string text(const QString& value)
{
    return value.toStdString();
}

// What one transfer's callbacks share.
struct Transfer
{
    Transfer(
        const GitToolEnvironment& environment_, ToolCallContext& context_, GitUrlPolicy::Remote remote_, QString tool_)
        : environment(environment_)
        , context(context_)
        , remote(std::move(remote_))
        , tool(std::move(tool_))
        , scope(context_, remote.isLocal() ? QString() : remote.host, remote.port,
              GitTransportStream::defaultPort(remote.scheme))
    {}
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;

    const GitToolEnvironment& environment;
    ToolCallContext& context;
    GitUrlPolicy::Remote remote;
    QString tool;
    int credentialAttempts = 0;
    bool offeredUrlCredential = false;
    QString credentialProblem; // why no credential could be given, for the failure message
    // Set by the credential callback when only a person can give a credential: the transfer stops,
    // and runTransfer asks the person outside it and runs it again with their credential offered
    // first (askedCredential).
    bool personNeeded = false;
    GitCredentialSource::Request personRequest;
    int personAttempt = 0;
    std::optional<GitCredential> askedCredential;
    QByteArray username; // kept alive while libgit2 copies them
    QByteArray secret;
    std::chrono::steady_clock::time_point lastProgress{};
    // Connections this transfer opens give up when the call is cancelled, and go nowhere but to
    // the remote's own host and port (a credential belongs to them).
    GitTransportStream::Scope scope;
    QStringList rejected; // push: refs the remote refused, with its reason
    bool stoppedByCancellation = false;

    ~Transfer() { secret.fill('\0'); }

    bool stop()
    {
        if (context.isCancelled()) {
            stoppedByCancellation = true;
            return true;
        }
        return false;
    }

    // At most ten progress notifications a second; the last one always goes out.
    void progress(double done, double total, const QString& message)
    {
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - lastProgress < std::chrono::milliseconds(100))
            return;
        lastProgress = now;
        context.reportProgress(done, total > 0 ? std::optional<double>(total) : std::nullopt, message);
    }
};

int credentialsCallback(
    git_credential** out, const char*, const char* usernameFromUrl, unsigned int allowedTypes, void* payload)
{
    auto* transfer = static_cast<Transfer*>(payload);
    if (transfer->stop())
        return GIT_EUSER;
    const QString urlUser = usernameFromUrl ? QString::fromUtf8(usernameFromUrl) : transfer->remote.username;
    if (allowedTypes & GIT_CREDENTIAL_USERPASS_PLAINTEXT) {
        // The URL's own credentials first, once; then the source's, once per attempt.
        if (!transfer->offeredUrlCredential && transfer->remote.hasCredentials()) {
            transfer->offeredUrlCredential = true;
            transfer->username = transfer->remote.username.toUtf8();
            transfer->secret = transfer->remote.password.toUtf8();
            return git_credential_userpass_plaintext_new(
                out, transfer->username.constData(), transfer->secret.constData());
        }
        if (!transfer->environment.credentials) {
            transfer->credentialProblem = QStringLiteral("%1 asks for credentials and none are configured for git "
                                                         "(git.credentials maps a host to a connection provider).")
                                              .arg(transfer->remote.host);
            return GIT_EAUTH;
        }
        std::optional<GitCredential> credential;
        if (transfer->askedCredential) {
            // What the person gave while no transfer was running.
            credential = std::move(transfer->askedCredential);
            transfer->askedCredential.reset();
        } else {
            if (transfer->credentialAttempts >= 2) // the remote refused what there was
                return GIT_EAUTH;
            GitCredentialSource::Request request{
                transfer->remote.host, transfer->remote.url, urlUser, transfer->tool, false};
            QString problem;
            bool personNeeded = false;
            const int attempt = transfer->credentialAttempts++;
            credential = transfer->environment.credentials->obtain(
                transfer->context, request, attempt, &problem, &personNeeded);
            if (transfer->stop())
                return GIT_EUSER;
            if (!credential && personNeeded) {
                // Not here, holding the connection open while the person answers: the server
                // closes it meanwhile.
                transfer->personNeeded = true;
                transfer->personRequest = request;
                transfer->personAttempt = attempt;
                return GIT_EUSER;
            }
            if (!credential) {
                transfer->credentialProblem = problem;
                return GIT_EAUTH;
            }
        }
        transfer->username = (credential->username.isEmpty() ? (urlUser.isEmpty() ? QStringLiteral("git") : urlUser)
                                                             : credential->username)
                                 .toUtf8();
        transfer->secret = credential->secret;
        return git_credential_userpass_plaintext_new(out, transfer->username.constData(), transfer->secret.constData());
    }
    if (allowedTypes & GIT_CREDENTIAL_USERNAME) {
        const QByteArray user = (urlUser.isEmpty() ? QStringLiteral("git") : urlUser).toUtf8();
        return git_credential_username_new(out, user.constData());
    }
    if ((allowedTypes & GIT_CREDENTIAL_SSH_KEY) && transfer->credentialAttempts++ == 0) {
        // The person's ssh-agent, as the git program would use it.
        const QByteArray user = (urlUser.isEmpty() ? QStringLiteral("git") : urlUser).toUtf8();
        return git_credential_ssh_key_from_agent(out, user.constData());
    }
    transfer->credentialProblem = QStringLiteral("%1 asks for a kind of credential Switchboard cannot give (only "
                                                 "tokens over HTTPS and the ssh-agent over SSH).")
                                      .arg(transfer->remote.host);
    return GIT_EAUTH;
}

int fetchProgressCallback(const git_indexer_progress* stats, void* payload)
{
    auto* transfer = static_cast<Transfer*>(payload);
    if (transfer->stop())
        return GIT_EUSER;
    const bool indexing = stats->received_objects == stats->total_objects && stats->total_objects > 0;
    const double done = double(stats->received_objects) + double(stats->indexed_deltas);
    const double total = double(stats->total_objects) + double(stats->total_deltas);
    transfer->progress(done, total,
        indexing ? QStringLiteral("resolving deltas %1/%2").arg(stats->indexed_deltas).arg(stats->total_deltas)
                 : QStringLiteral("receiving objects %1/%2 (%3 KiB)")
                       .arg(stats->received_objects)
                       .arg(stats->total_objects)
                       .arg(stats->received_bytes / 1024));
    return 0;
}

int sidebandCallback(const char*, int, void* payload)
{
    return static_cast<Transfer*>(payload)->stop() ? GIT_EUSER : 0;
}

int pushProgressCallback(unsigned int current, unsigned int total, size_t bytes, void* payload)
{
    auto* transfer = static_cast<Transfer*>(payload);
    if (transfer->stop())
        return GIT_EUSER;
    transfer->progress(
        current, total, QStringLiteral("pushing objects %1/%2 (%3 KiB)").arg(current).arg(total).arg(bytes / 1024));
    return 0;
}

int packProgressCallback(int, uint32_t, uint32_t, void* payload)
{
    return static_cast<Transfer*>(payload)->stop() ? GIT_EUSER : 0;
}

int pushUpdateReferenceCallback(const char* reference, const char* status, void* payload)
{
    if (status)
        static_cast<Transfer*>(payload)->rejected.append(
            QStringLiteral("%1 (%2)").arg(QString::fromUtf8(reference), QString::fromUtf8(status)));
    return 0;
}

// Runs `attempt` (one libgit2 transfer with the callbacks of `transfer`). When it stopped because
// only a person can give a credential, asks them now that no connection is open, and runs it
// again with their credential offered first (twice at most: a refused token is asked for once
// more, saying so). `attempt` must undo a failed run's effects itself (a clone's staging).
template<typename Attempt>
int runTransfer(Transfer& transfer, Attempt attempt)
{
    int code = attempt();
    for (int asked = 0; code != 0 && transfer.personNeeded && asked < 2; ++asked) {
        transfer.personNeeded = false;
        if (transfer.stop())
            return GIT_EUSER;
        GitCredentialSource::Request request = transfer.personRequest;
        request.mayAskPerson = true;
        QString problem;
        std::optional<GitCredential> credential = transfer.environment.credentials->obtain(
            transfer.context, request, transfer.personAttempt, &problem, nullptr);
        if (transfer.stop())
            return GIT_EUSER;
        if (!credential) {
            transfer.credentialProblem = problem;
            return GIT_EAUTH;
        }
        transfer.askedCredential = std::move(credential);
        git_error_clear();
        code = attempt();
    }
    if (code != 0 && transfer.personNeeded && transfer.credentialProblem.isEmpty())
        transfer.credentialProblem = QStringLiteral("the remote refused the connections the person made.");
    return code;
}

git_remote_callbacks callbacksFor(Transfer& transfer)
{
    git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
    callbacks.credentials = &credentialsCallback;
    callbacks.transfer_progress = &fetchProgressCallback;
    callbacks.sideband_progress = &sidebandCallback;
    callbacks.push_transfer_progress = &pushProgressCallback;
    callbacks.pack_progress = &packProgressCallback;
    callbacks.push_update_reference = &pushUpdateReferenceCallback;
    callbacks.payload = &transfer;
    return callbacks;
}

// libgit2's failure as a message a model can act on.
QString describeFailure(const Transfer& transfer, int code, const QString& operation)
{
    const QString reason = GitLibrary::lastErrorMessage();
    const QString lower = reason.toLower();
    const QString& url = transfer.remote.url;
    if (transfer.stoppedByCancellation || transfer.context.isCancelled())
        return QStringLiteral("%1 of %2 was cancelled; nothing more was transferred.").arg(operation, url);
    if (const QString elsewhere = transfer.scope.refusedEndpoint(); !elsewhere.isEmpty())
        return QStringLiteral("%1 of %2 stopped: the remote redirected to %3, another host than %4 (scheme, host and "
                              "port must stay the same). Nothing was sent there, no credential in particular. If "
                              "you trust %3, give its URL instead.")
            .arg(operation, url, elsewhere,
                transfer.remote.host + QLatin1Char(':')
                    + QString::number(transfer.remote.port >= 0
                            ? transfer.remote.port
                            : GitTransportStream::defaultPort(transfer.remote.scheme)));
    if (!transfer.credentialProblem.isEmpty())
        return QStringLiteral("Authentication failed for %1: %2").arg(url, transfer.credentialProblem);
    if (code == GIT_EAUTH || lower.contains(QLatin1String("authentication")) || lower.contains(QLatin1String("401"))
        || lower.contains(QLatin1String("403")) || lower.contains(QLatin1String("credentials")))
        return QStringLiteral("Authentication failed for %1: the remote refused the credentials%2. Connect again with "
                              "request_connection, or check that the token may access this repository.")
            .arg(url, transfer.credentialAttempts > 0 ? QString() : QStringLiteral(" (none were given)"));
    if (code == GIT_ECERTIFICATE || lower.contains(QLatin1String("certificate")))
        return QStringLiteral("The TLS certificate of %1 could not be verified (%2).")
            .arg(transfer.remote.host, reason);
    if (lower.contains(QLatin1String("404")) || lower.contains(QLatin1String("not found"))
        || lower.contains(QLatin1String("not appear to be a git repository"))
        || lower.contains(QLatin1String("could not find repository")))
        return QStringLiteral("Repository not found: %1 (%2). Check the URL, and that the credentials may see it.")
            .arg(url, reason);
    if (lower.contains(QLatin1String("failed to resolve")) || lower.contains(QLatin1String("failed to connect"))
        || lower.contains(QLatin1String("connection refused")) || lower.contains(QLatin1String("timed out"))
        || (git_error_last() && git_error_last()->klass == GIT_ERROR_NET))
        return QStringLiteral("Could not reach %1: %2.")
            .arg(transfer.remote.host.isEmpty() ? url : transfer.remote.host, reason);
    return QStringLiteral("%1 of %2 failed: %3.").arg(operation, url, reason);
}

// The deepest of `destination` and its parents that exists (before a clone creates the rest).
QString deepestExisting(const QString& destination)
{
    QString path = destination;
    while (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink()) {
        const QString parent = QFileInfo(path).path();
        if (parent == path)
            break;
        path = parent;
    }
    return path;
}

// Removes the (empty) folders made for a clone that failed, up to `existingAncestor`. The clone
// itself was in its staging directory: the destination was never touched.
void removeMadeFolders(const QString& destination, const QString& existingAncestor)
{
    for (QString parent = QFileInfo(destination).path();
         parent.size() > existingAncestor.size() && parent.startsWith(existingAncestor);
         parent = QFileInfo(parent).path()) {
        if (!QDir().rmdir(parent))
            break;
    }
}

// A clone is made in a staging directory beside its destination and renamed into place once
// complete, so a process killed mid-clone never leaves a half-made repository where one was asked
// for: only a staging directory, named with the process id, which a later clone into the same
// folder removes once that process is gone.
const QString StagingPrefix = QStringLiteral(".switchboard-clone-");

QString stagingPathFor(const QString& destination)
{
    const QFileInfo info(destination);
    return QStringLiteral("%1/%2%3-%4-%5")
        .arg(info.path(), StagingPrefix)
        .arg(QCoreApplication::applicationPid())
        .arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'))
        .arg(info.fileName().left(64));
}

// Removes the staging directories in `folder` left by processes that no longer run.
void removeStaleStaging(const QString& folder)
{
    const QDir directory(folder);
    const auto entries = directory.entryInfoList(
        {StagingPrefix + QLatin1Char('*')}, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot | QDir::NoSymLinks);
    for (const QFileInfo& entry : entries) {
        bool ok = false;
        const qint64 pid = entry.fileName().mid(StagingPrefix.size()).section(QLatin1Char('-'), 0, 0).toLongLong(&ok);
        if (!ok || pid <= 0 || pid == QCoreApplication::applicationPid())
            continue;
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH)
            continue; // that process runs (or may): its clone may still be going on
        QDir(entry.filePath()).removeRecursively();
    }
}

// What createPrefilledRepository needs: the call, and the local remote's object directories.
struct LocalPrefill
{
    Transfer& transfer;
    QStringList sources;
    QString problem; // why the copy stopped, when it did not
};

// git_clone's repository_cb for a local remote: the new repository, with the remote's objects.
int createPrefilledRepository(git_repository** out, const char* path, int bare, void* payload)
{
    auto* prefill = static_cast<LocalPrefill*>(payload);
    if (const int code = git_repository_init(out, path, unsigned(bare)); code != 0)
        return code;
    GitBuffer objects;
    if (git_repository_item_path(&objects.buf, *out, GIT_REPOSITORY_ITEM_OBJECTS) != 0)
        return -1;
    Transfer& transfer = prefill->transfer;
    const bool copied = LocalObjectCopy::copy(
        prefill->sources, QFile::decodeName(objects.buf.ptr), [&transfer] { return transfer.stop(); },
        [&transfer](qint64 done, qint64 total) {
            transfer.progress(
                double(done), double(total), QStringLiteral("copying objects %1/%2").arg(done).arg(total));
        },
        &prefill->problem);
    if (copied)
        return 0;
    git_repository_free(*out);
    *out = nullptr;
    if (transfer.stoppedByCancellation)
        return GIT_EUSER;
    git_error_set_str(GIT_ERROR_OS, prefill->problem.toStdString().c_str());
    return -1;
}

// A remote URL a tool was given or found in .git/config: through the URL policy, and a local
// remote must lie inside the roots like every repository.
std::optional<GitUrlPolicy::Remote> checkRemote(const GitToolEnvironment& environment, const QString& url,
    const QString& what, QString* error, QStringList* localObjectDirectories = nullptr)
{
    auto remote = environment.urls.check(url, error);
    if (!remote) {
        *error = QStringLiteral("%1: %2").arg(what, *error);
        return std::nullopt;
    }
    if (remote->isLocal()) {
        // libgit2 opens it again by itself, with none of the handle's checks: everything it will
        // read there (loose objects included) is looked at now.
        QString problem;
        QString path = remote->url;
        if (path.startsWith(QLatin1String("file://")))
            path = QUrl(path).toLocalFile();
        const auto resolved = environment.paths.resolveRepository(path, what, &problem);
        if (!resolved) {
            *error = problem;
            return std::nullopt;
        }
        if (git_repository_open_ext(
                nullptr, QFile::encodeName(*resolved).constData(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr)
            != 0) {
            *error = QStringLiteral("Repository not found: %1 is not a git repository (%2).")
                         .arg(remote->url, GitLibrary::lastErrorMessage());
            return std::nullopt;
        }
        const auto handle = GitRepositoryHandle::open(
            environment.paths, *resolved, what, &problem, GitDataConfinement::LooseObjects::CheckedNow);
        if (!handle) {
            *error = problem;
            return std::nullopt;
        }
        if (localObjectDirectories)
            *localObjectDirectories = handle->objectDirectories();
    }
    return remote;
}

} // namespace

ToolResult cloneRepository(const GitToolEnvironment& environment, ToolCallContext& context)
{
    GitLibrary::ensureInitialized();
    const json& arguments = context.arguments();
    const auto failure = [](const QString& message) {
        return GitToolResult::failure(message, json{{"local_path_created", nullptr}});
    };
    if (!environment.paths.hasRoots())
        return failure(GitPathPolicy::noRootsMessage());
    QString error;
    QStringList localObjects;
    const auto remote = checkRemote(environment, stringArgument(arguments, "repository_url"),
        QStringLiteral("repository_url"), &error, &localObjects);
    if (!remote)
        return failure(error);
    const auto destination = environment.paths.resolveDestination(
        stringArgument(arguments, "local_path"), QStringLiteral("local_path"), &error);
    if (!destination)
        return failure(error);
    const QString branch = stringArgument(arguments, "branch_name");
    if (arguments.contains("branch_name") && !checkBranchName(branch, QStringLiteral("branch_name"), &error))
        return failure(error);
    const QFileInfo info(*destination);
    const bool existedBefore = info.exists() || info.isSymLink();
    // Missing parents are made; a failed clone removes them again.
    const QString existingAncestor = deepestExisting(*destination);
    if (existedBefore
        && (!info.isDir() || info.isSymLink()
            || !QDir(*destination)
                    .entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)
                    .isEmpty()))
        return failure(QStringLiteral("Destination path already exists and is not an empty directory: %1. Choose "
                                      "another local_path; nothing was changed.")
                           .arg(*destination));

    Transfer transfer(environment, context, *remote, QStringLiteral("git_clone_repository"));
    git_clone_options options = GIT_CLONE_OPTIONS_INIT;
    options.checkout_opts.checkout_strategy = GIT_CHECKOUT_SAFE;
    options.fetch_opts.callbacks = callbacksFor(transfer);
    // A local remote's objects are put in the new repository first (LocalObjectCopy), so the fetch
    // has nothing to pack: libgit2's local transport would otherwise build a pack with a delta search
    // that no cancellation stops (and its copy of a local path, instead, cannot be stopped either).
    LocalPrefill prefill{transfer, localObjects, {}};
    if (remote->isLocal()) {
        options.local = GIT_CLONE_NO_LOCAL;
        options.repository_cb = &createPrefilledRepository;
        options.repository_cb_payload = &prefill;
    }
    // No submodule is fetched: libgit2's clone never recurses into them, and nothing here asks it to.
    const QByteArray branchBytes = branch.toUtf8();
    if (!branch.isEmpty())
        options.checkout_branch = branchBytes.constData();
    git_repository* rawRepository = nullptr;
    const QByteArray url = remote->url.toUtf8();
    // The destination's folder first (with the parents it lacks), then the staging directory in it.
    const QString folder = QFileInfo(*destination).path();
    if (!QDir().mkpath(folder)) {
        removeMadeFolders(*destination, existingAncestor);
        return failure(QStringLiteral("Could not create %1.").arg(folder));
    }
    removeStaleStaging(folder);
    const QString staging = stagingPathFor(*destination);
    const QByteArray path = QFile::encodeName(staging);
    // A clone that did not end in place: its staging directory goes, with the folders made for it.
    const auto abandon = [&] {
        QDir(staging).removeRecursively();
        if (!existedBefore)
            removeMadeFolders(*destination, existingAncestor);
    };
    context.reportProgress(
        0, std::nullopt, QStringLiteral("connecting to %1").arg(remote->host.isEmpty() ? remote->url : remote->host));
    const int code = runTransfer(transfer, [&] {
        // A run stopped to ask a person may have left its staging directory.
        QDir(staging).removeRecursively();
        return git_clone(&rawRepository, url.constData(), path.constData(), &options);
    });
    GitRepositoryPtr cloned(rawRepository);
    if (code != 0) {
        QString message = describeFailure(transfer, code, QStringLiteral("Clone"));
        const QString reason = GitLibrary::lastErrorMessage().toLower();
        if (!branch.isEmpty() && reason.contains(QLatin1String("reference")) && reason.contains(branch.toLower()))
            message = QStringLiteral("Branch \"%1\" was not found in %2.").arg(branch, remote->url);
        cloned.reset();
        abandon();
        return failure(message);
    }
    cloned.reset();
    // Into place: rename(2) replaces an empty directory atomically and refuses a non-empty one
    // (something may have been put there during the clone).
    if (::rename(path.constData(), QFile::encodeName(*destination).constData()) != 0) {
        const int why = errno;
        if (why == ENOTEMPTY || why == EEXIST || why == ENOTDIR || why == EISDIR) {
            // Something is at the destination now: its folders stay with it.
            QDir(staging).removeRecursively();
            return failure(QStringLiteral("Destination path already exists and is not an empty directory: %1. "
                                          "Something was put there during the clone; it was left as it was.")
                               .arg(*destination));
        }
        abandon();
        return failure(QStringLiteral("Could not move the clone into %1: %2.")
                           .arg(*destination, QString::fromLocal8Bit(std::strerror(why))));
    }
    const QString created = QFileInfo(*destination).canonicalFilePath();
    auto handle = GitRepositoryHandle::openCreated(created, &error);
    if (handle)
        noteTouched(environment, context, *handle, true);
    return GitToolResult::success(
        QStringLiteral("Cloned %1 into %2%3.")
            .arg(remote->url, created, branch.isEmpty() ? QString() : QStringLiteral(" on branch %1").arg(branch)),
        json{{"local_path_created", text(created)}});
}

namespace {

struct RemoteContext
{
    GitRemotePtr remote;
    GitUrlPolicy::Remote checked;
    QString name;
    QStringList localObjects; // a local remote's object directories
};

std::optional<RemoteContext> lookupRemote(const GitToolEnvironment& environment, git_repository* repository,
    const QString& name, bool forPush, QString* error)
{
    if (!checkRevisionText(name, QStringLiteral("remote"), error))
        return std::nullopt;
    git_remote* rawRemote = nullptr;
    const QByteArray nameBytes = name.toUtf8();
    if (git_remote_lookup(&rawRemote, repository, nameBytes.constData()) != 0) {
        *error = QStringLiteral("The repository has no remote named \"%1\".").arg(name);
        return std::nullopt;
    }
    RemoteContext result;
    result.remote.reset(rawRemote);
    result.name = name;
    const char* url
        = forPush && git_remote_pushurl(rawRemote) ? git_remote_pushurl(rawRemote) : git_remote_url(rawRemote);
    const auto checked = checkRemote(environment, QString::fromUtf8(url ? url : ""),
        QStringLiteral("the URL of remote \"%1\"").arg(name), error, &result.localObjects);
    if (!checked)
        return std::nullopt;
    result.checked = *checked;
    return result;
}

} // namespace

ToolResult push(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    const json& arguments = context.arguments();
    const QString remoteName = stringArgument(arguments, "remote", QStringLiteral("origin"));
    QString branch = stringArgument(arguments, "branch");
    if (branch.isEmpty()) {
        if (git_repository_head_detached(repository->get()) == 1 || git_repository_head_unborn(repository->get()) == 1)
            return GitToolResult::failure(
                QStringLiteral("HEAD is not on a branch with commits: name the branch to push."));
        git_reference* rawHead = nullptr;
        git_repository_head(&rawHead, repository->get());
        GitReferencePtr head(rawHead);
        branch = QString::fromUtf8(git_reference_shorthand(head.get()));
    }
    if (!checkBranchName(branch, QStringLiteral("branch"), &error))
        return GitToolResult::failure(error);
    const QByteArray branchBytes = branch.toUtf8();
    git_reference* rawLocal = nullptr;
    if (git_branch_lookup(&rawLocal, repository->get(), branchBytes.constData(), GIT_BRANCH_LOCAL) != 0)
        return GitToolResult::failure(QStringLiteral("There is no local branch \"%1\" to push.").arg(branch));
    GitReferencePtr local(rawLocal);
    auto remote = lookupRemote(environment, repository->get(), remoteName, true, &error);
    if (!remote)
        return GitToolResult::failure(error);

    Transfer transfer(environment, context, remote->checked, QStringLiteral("git_push"));
    git_push_options options = GIT_PUSH_OPTIONS_INIT;
    options.callbacks = callbacksFor(transfer);
    QByteArray refspec
        = QByteArrayLiteral("refs/heads/") + branchBytes + QByteArrayLiteral(":refs/heads/") + branchBytes;
    char* specs[] = {refspec.data()};
    const git_strarray refspecs{specs, 1};
    context.reportProgress(0, std::nullopt, QStringLiteral("pushing %1 to %2").arg(branch, remoteName));
    const int code = runTransfer(transfer, [&] {
        git_remote_disconnect(remote->remote.get());
        return git_remote_push(remote->remote.get(), &refspecs, &options);
    });
    // libgit2 refuses a non-fast-forward push itself, before sending anything, when it sees from
    // the remote's refs that the branch lacks commits the remote has.
    if (code == GIT_ENONFASTFORWARD && !transfer.stoppedByCancellation)
        return GitToolResult::failure(
            QStringLiteral("The push of %1 to %2 was refused: %3 has commits that %1 does not have (%4). Pull them "
                           "first (git_pull), then push again.")
                .arg(branch, remoteName, remoteName + QLatin1Char('/') + branch, GitLibrary::lastErrorMessage()));
    if (code != 0)
        return GitToolResult::failure(describeFailure(transfer, code, QStringLiteral("Push")));
    if (!transfer.rejected.isEmpty())
        return GitToolResult::failure(
            QStringLiteral("The remote rejected the push: %1. The remote has commits this branch does not have: pull "
                           "them first (git_pull), then push again.")
                .arg(transfer.rejected.join(QLatin1String("; "))));
    bool upstreamSet = false;
    git_reference* rawUpstream = nullptr;
    const bool hadUpstream = git_branch_upstream(&rawUpstream, local.get()) == 0;
    GitReferencePtr upstream(rawUpstream);
    git_error_clear();
    if (arguments.value("set_upstream", false) || !hadUpstream) {
        const QByteArray upstreamName = remoteName.toUtf8() + '/' + branchBytes;
        upstreamSet = git_branch_set_upstream(local.get(), upstreamName.constData()) == 0;
        git_error_clear();
    }
    noteTouched(environment, context, *repository, true);
    const QString pushed = oidText(git_reference_target(local.get()));
    return GitToolResult::success(
        QStringLiteral("Pushed %1 (%2) to %3 (%4).").arg(branch, pushed.left(7), remoteName, remote->checked.url),
        json{{"repo_path", text(repository->path())}, {"remote", text(remoteName)}, {"branch", text(branch)},
            {"remote_url", text(remote->checked.url)}, {"commit", text(pushed)}, {"upstream_set", upstreamSet}});
}

ToolResult pull(const GitToolEnvironment& environment, ToolCallContext& context)
{
    QString error;
    auto repository = openRepository(environment, context, &error);
    if (!repository)
        return GitToolResult::failure(error);
    if (repository->isBare())
        return GitToolResult::failure(
            QStringLiteral("%1 is a bare repository: pull into a clone of it.").arg(repository->path()));
    const json& arguments = context.arguments();
    const QString remoteName = stringArgument(arguments, "remote", QStringLiteral("origin"));
    if (git_repository_head_detached(repository->get()) == 1)
        return GitToolResult::failure(
            QStringLiteral("HEAD is detached: check out a branch (git_checkout) before pulling."));
    git_reference* rawHead = nullptr;
    const bool unborn = git_repository_head_unborn(repository->get()) == 1;
    QString localBranch;
    GitReferencePtr head;
    if (!unborn) {
        git_repository_head(&rawHead, repository->get());
        head.reset(rawHead);
        localBranch = QString::fromUtf8(git_reference_shorthand(head.get()));
    } else {
        git_reference* rawSymbolic = nullptr;
        git_reference_lookup(&rawSymbolic, repository->get(), "HEAD");
        GitReferencePtr symbolic(rawSymbolic);
        localBranch = QString::fromUtf8(git_reference_symbolic_target(symbolic.get())).mid(11);
    }
    QString branch = stringArgument(arguments, "branch");
    if (branch.isEmpty()) {
        branch = localBranch;
        if (head) {
            git_buf merge = GIT_BUF_INIT;
            const QByteArray name = git_reference_name(head.get());
            if (git_branch_upstream_merge(&merge, repository->get(), name.constData()) == 0) {
                const QString ref = QString::fromUtf8(merge.ptr);
                if (ref.startsWith(QLatin1String("refs/heads/")))
                    branch = ref.mid(11);
            }
            git_buf_dispose(&merge);
            git_error_clear();
        }
    }
    if (!checkBranchName(branch, QStringLiteral("branch"), &error))
        return GitToolResult::failure(error);
    auto remote = lookupRemote(environment, repository->get(), remoteName, false, &error);
    if (!remote)
        return GitToolResult::failure(error);

    Transfer transfer(environment, context, remote->checked, QStringLiteral("git_pull"));
    git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
    options.callbacks = callbacksFor(transfer);
    // Submodules are never fetched: only the remote's own refspecs are.
    context.reportProgress(0, std::nullopt, QStringLiteral("fetching from %1").arg(remoteName));
    // From a local remote, its objects first (as for a clone): libgit2's local transport would pack
    // what is missing with a delta search that no cancellation stops.
    if (remote->checked.isLocal()) {
        GitBuffer objects;
        QString problem;
        if (git_repository_item_path(&objects.buf, repository->get(), GIT_REPOSITORY_ITEM_OBJECTS) != 0
            || !LocalObjectCopy::copy(
                remote->localObjects, QFile::decodeName(objects.buf.ptr), [&transfer] { return transfer.stop(); },
                [&transfer](qint64 done, qint64 total) {
                    transfer.progress(
                        double(done), double(total), QStringLiteral("copying objects %1/%2").arg(done).arg(total));
                },
                &problem)) {
            if (transfer.stoppedByCancellation)
                return GitToolResult::failure(describeFailure(transfer, GIT_EUSER, QStringLiteral("Fetch")));
            return GitToolResult::failure(QStringLiteral("Fetch of %1 failed: %2.").arg(remote->checked.url, problem));
        }
    }
    const int code = runTransfer(transfer, [&] {
        git_remote_disconnect(remote->remote.get());
        return git_remote_fetch(remote->remote.get(), nullptr, &options, "pull");
    });
    if (code != 0)
        return GitToolResult::failure(describeFailure(transfer, code, QStringLiteral("Fetch")));

    const QByteArray trackingName = QByteArrayLiteral("refs/remotes/") + remoteName.toUtf8() + '/' + branch.toUtf8();
    git_reference* rawTracking = nullptr;
    if (git_reference_lookup(&rawTracking, repository->get(), trackingName.constData()) != 0)
        return GitToolResult::failure(
            QStringLiteral("Branch \"%1\" was not found on %2 (%3).").arg(branch, remoteName, remote->checked.url));
    GitReferencePtr tracking(rawTracking);
    git_annotated_commit* rawIncoming = nullptr;
    git_annotated_commit_from_ref(&rawIncoming, repository->get(), tracking.get());
    GitAnnotatedCommitPtr incoming(rawIncoming);
    git_merge_analysis_t analysis;
    git_merge_preference_t preference;
    const git_annotated_commit* heads[] = {incoming.get()};
    if (git_merge_analysis(&analysis, &preference, repository->get(), heads, 1) != 0)
        return GitToolResult::failure(
            QStringLiteral("Could not compare with %1/%2: %3").arg(remoteName, branch, GitLibrary::lastErrorMessage()));
    const QString incomingId = oidText(git_annotated_commit_id(incoming.get()));
    json fields{{"repo_path", text(repository->path())}, {"remote", text(remoteName)}, {"branch", text(branch)},
        {"remote_url", text(remote->checked.url)}};
    if (analysis & GIT_MERGE_ANALYSIS_UP_TO_DATE) {
        noteTouched(environment, context, *repository, true);
        fields["head"] = text(oidText(git_reference_target(head.get())));
        fields["fast_forward"] = false;
        fields["updated"] = false;
        return GitToolResult::success(
            QStringLiteral("Already up to date with %1/%2.").arg(remoteName, branch), std::move(fields));
    }
    if (!(analysis & (GIT_MERGE_ANALYSIS_FASTFORWARD | GIT_MERGE_ANALYSIS_UNBORN))) {
        noteTouched(environment, context, *repository, true);
        return GitToolResult::failure(
            QStringLiteral("%1 and %2/%3 have diverged: git_pull only fast-forwards. Merge or rebase with the git "
                           "program, or push to another branch.")
                .arg(localBranch, remoteName, branch),
            std::move(fields));
    }
    git_commit* rawTarget = nullptr;
    git_commit_lookup(&rawTarget, repository->get(), git_annotated_commit_id(incoming.get()));
    GitCommitPtr target(rawTarget);
    if (!checkoutCommitSafely(repository->get(), target.get(), &error))
        return GitToolResult::failure(error, std::move(fields));
    const QString previous = head ? oidText(git_reference_target(head.get())) : QString();
    const QByteArray message = QByteArrayLiteral("pull: fast-forward to ") + incomingId.toUtf8();
    if (head) {
        git_reference* rawUpdated = nullptr;
        if (git_reference_set_target(
                &rawUpdated, head.get(), git_annotated_commit_id(incoming.get()), message.constData())
            != 0)
            return GitToolResult::failure(
                QStringLiteral("Could not move %1: %2").arg(localBranch, GitLibrary::lastErrorMessage()));
        git_reference_free(rawUpdated);
    } else {
        const QByteArray localRef = QByteArrayLiteral("refs/heads/") + localBranch.toUtf8();
        git_reference* rawCreated = nullptr;
        if (git_reference_create(&rawCreated, repository->get(), localRef.constData(),
                git_annotated_commit_id(incoming.get()), 0, message.constData())
            != 0)
            return GitToolResult::failure(
                QStringLiteral("Could not create %1: %2").arg(localBranch, GitLibrary::lastErrorMessage()));
        git_reference_free(rawCreated);
    }
    noteTouched(environment, context, *repository, true);
    fields["previous_head"] = previous.isEmpty() ? json(nullptr) : json(text(previous));
    fields["head"] = text(incomingId);
    fields["fast_forward"] = true;
    fields["updated"] = true;
    return GitToolResult::success(
        QStringLiteral("Fast-forwarded %1 to %2 (%3/%4).").arg(localBranch, incomingId.left(7), remoteName, branch),
        std::move(fields));
}

} // namespace GitToolHandlers
