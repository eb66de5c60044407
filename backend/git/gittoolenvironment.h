#pragma once

// GitToolEnvironment: what every git tool consults: where it may work (the path policy), which
// remotes it may reach (the URL policy), how long network work may take, where credentials come
// from, and whom to tell that a repository changed. Shared by the tools' workers; immutable after
// construction, and its collaborators are thread-safe.

#include "git/gitsettings.h"
#include "policy/gitpathpolicy.h"
#include "policy/giturlpolicy.h"

#include <QString>

#include <functional>
#include <memory>

class GitCredentialSource;
class GitStatusCache;

struct GitToolEnvironment
{
    GitPathPolicy paths;
    GitUrlPolicy urls;
    GitSettings settings;
    // Where push, pull and clone find a token when the remote asks for one; null: only what the
    // URL itself carries.
    std::shared_ptr<GitCredentialSource> credentials;
    // Told (from any thread, so it must only post) when a tool read or changed the repository at
    // a canonical path; empty: nobody watches.
    std::function<void(const QString& repository, qint64 callId, bool changed)> repositoryTouched;
    // git_status's answers for unchanged trees; null: computed every time.
    std::shared_ptr<GitStatusCache> statusCache;
};
