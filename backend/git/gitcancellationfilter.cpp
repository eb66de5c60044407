#include "git/gitcancellationfilter.h"

#include "git/gittransportstream.h"
#include "tools/toolcallcontext.h"

#include <git2.h>
#include <git2/sys/filter.h>

namespace {

int check(git_filter*, void**, const git_filter_source* source, const char**)
{
    const ToolCallContext* context = GitTransportStream::Scope::current();
    if (context && context->isCancelled() && git_filter_source_mode(source) == GIT_FILTER_TO_WORKTREE) {
        git_error_set_str(GIT_ERROR_CHECKOUT, "the call was cancelled while the working tree was written");
        return GIT_EUSER;
    }
    return GIT_PASSTHROUGH;
}

git_filter filter = [] {
    git_filter value{};
    git_filter_init(&value, GIT_FILTER_VERSION);
    value.attributes = nullptr; // every file: check() alone decides
    value.check = &check;
    return value;
}();

} // namespace

void GitCancellationFilter::install()
{
    // Before libgit2's own (CRLF at 0, drivers at 200): a file is refused before any work on it.
    constexpr int Priority = 1000;
    git_filter_register("switchboard-cancellation", &filter, Priority);
}
