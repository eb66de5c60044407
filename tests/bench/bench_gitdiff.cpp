// Figures for git_diff's memory (issue 23, item 6): runs git_diff (unstaged changes) on each
// repository named on the command line, all at once on threads of their own, and prints each
// answer's size, whether its patch was cut, and the process's peak resident memory (VmHWM) before
// and after. tests/bench/run-git-diff-bench.sh makes the repositories and runs it.
//
//   bench_gitdiff ROOT REPOSITORY...     (repositories inside the allowed root ROOT)

#include "git/gitlibrary.h"
#include "git/gittoolenvironment.h"
#include "git/gittools.h"
#include "processstatus.h"
#include "tools/toolcallcontext.h"
#include "tools/toolregistry.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

QByteArray peakResident()
{
    const qint64 bytes = processStatusBytes("VmHWM");
    return bytes < 0 ? QByteArray("unknown") : QByteArray::number(bytes / 1024) + " kB";
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication application(argc, argv);
    const QStringList arguments = application.arguments();
    if (arguments.size() < 3) {
        std::fprintf(stderr, "usage: bench_gitdiff ROOT REPOSITORY...\n");
        return 2;
    }
    GitLibrary::ensureInitialized();
    auto environment = std::make_shared<GitToolEnvironment>();
    environment->paths = GitPathPolicy({arguments.at(1)});
    std::shared_ptr<const RegisteredTool> diff;
    for (RegisteredTool& tool : gitTools(environment)) {
        if (tool.spec.name == QLatin1String("git_diff"))
            diff = std::make_shared<const RegisteredTool>(std::move(tool));
    }
    std::printf("peak resident memory before: %s\n", peakResident().constData());
    QElapsedTimer clock;
    clock.start();
    std::vector<std::thread> calls;
    for (const QString& repository : arguments.mid(2)) {
        calls.emplace_back([&diff, &clock, repository] {
            CallMetadata metadata;
            metadata.tool = diff->spec.name;
            ToolCallContext::Hooks hooks;
            hooks.notify = [](const json&) {};
            hooks.wantsLog = [](LogLevel) { return false; };
            hooks.complete = [](ToolResult) {};
            auto context
                = std::make_shared<ToolCallContext>(json{{"repo_path", repository.toStdString()}}, metadata, hooks);
            const ToolResult result = diff->blockingHandler(*context);
            const std::string answer = result.toJson().dump();
            std::printf("%s: %lld ms, answer %zu bytes, patch cut: %s; %s\n", qPrintable(repository), clock.elapsed(),
                answer.size(), result.structuredContent.value("truncated", json()).dump().c_str(),
                result.structuredContent.value("message", std::string()).c_str());
        });
    }
    for (std::thread& call : calls)
        call.join();
    std::printf("peak resident memory after: %s\n", peakResident().constData());
    return 0;
}
