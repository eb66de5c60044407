#include "git/gitlibrary.h"

#include "git/confinedloosebackend.h"
#include "git/gitcancellationfilter.h"
#include "git/gittransportstream.h"
#include "policy/giturlpolicy.h"

#include <git2.h>

#include <mutex>

void GitLibrary::ensureInitialized()
{
    static std::once_flag once;
    std::call_once(once, [] {
        git_libgit2_init();
        // On by default in libgit2 1.5; set anyway so a later default can never turn it off here.
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 1);
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 1);
        git_libgit2_opts(GIT_OPT_ENABLE_STRICT_SYMBOLIC_REF_CREATION, 1);
        // Connections that give up when their call is cancelled or runs out of time.
        GitTransportStream::install();
        // And a checkout that stops when its call is cancelled.
        GitCancellationFilter::install();
    });
}

QString GitLibrary::lastErrorMessage()
{
    const git_error* error = git_error_last();
    QString message = error && error->message ? QString::fromUtf8(error->message).trimmed() : QString();
    // An object refused for leading outside the roots: libgit2 may have reported the failure in
    // words of its own.
    const QString refusal = ConfinedLooseBackend::lastRefusal();
    if (!refusal.isEmpty() && !message.contains(refusal))
        message = message.isEmpty() ? refusal : message + QStringLiteral(" (") + refusal + QLatin1Char(')');
    if (message.isEmpty())
        return QStringLiteral("unknown error");
    return GitUrlPolicy::redact(message);
}

int GitLibrary::lastErrorClass()
{
    const git_error* error = git_error_last();
    return error ? error->klass : 0;
}
