#include "git/gitupstream.h"

#include <QByteArray>

namespace GitUpstream {

GitReferencePtr of(git_repository* repository, git_reference* branch)
{
    const QByteArray name = git_reference_name(branch);
    if (!name.startsWith("refs/heads/"))
        return nullptr;
    const QByteArray shortName = name.mid(11);
    git_config* rawConfig = nullptr;
    if (git_repository_config_snapshot(&rawConfig, repository) != 0) {
        git_error_clear();
        return nullptr;
    }
    GitConfigPtr config(rawConfig);
    const char* remote = nullptr;
    const char* merge = nullptr;
    const QByteArray remoteKey = QByteArray("branch.").append(shortName).append(".remote");
    const QByteArray mergeKey = QByteArray("branch.").append(shortName).append(".merge");
    if (git_config_get_string(&remote, config.get(), remoteKey.constData()) != 0
        || git_config_get_string(&merge, config.get(), mergeKey.constData()) != 0) {
        git_error_clear();
        return nullptr;
    }
    const QByteArray mergeRef = merge;
    QByteArray upstream;
    if (QByteArray(remote) == ".")
        upstream = mergeRef;
    else if (mergeRef.startsWith("refs/heads/"))
        upstream = QByteArray("refs/remotes/").append(remote).append('/').append(mergeRef.mid(11));
    else
        return nullptr;
    git_reference* rawUpstream = nullptr;
    if (git_reference_lookup(&rawUpstream, repository, upstream.constData()) != 0) {
        git_error_clear();
        return nullptr;
    }
    return GitReferencePtr(rawUpstream);
}

} // namespace GitUpstream
