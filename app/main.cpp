// switchboard: the command. Links no GUI library, so that what runs without a window starts fast:
// headless (`--headless`, or when there is no display) it serves and logs one line per call;
// `switchboard tool NAME` runs one tool call from stdin and exits; `switchboard client-token`
// issues, revokes and lists named client tokens; `switchboard questions`, `answer`, `history`,
// `status`, `grants`, `grant`, `breaker` and `adapter` talk to a running Switchboard's operator API
// (OperatorCommand); when
// a window is wanted it becomes `switchboard-console` (exec, the same process id), installed next
// to it.

#include "clienttokencommand.h"
#include "launch.h"
#include "operatorcommand.h"
#include "toolcommand.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

// The directory this executable lives in, from /proc (no QCoreApplication yet).
std::string executableDirectory()
{
    char path[4096];
    const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0)
        return {};
    std::string result(path, std::size_t(length));
    const auto slash = result.rfind('/');
    return slash == std::string::npos ? std::string() : result.substr(0, slash);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && qstrcmp(argv[1], "tool") == 0)
        return runToolCommand(argc, argv);
    if (argc >= 2 && qstrcmp(argv[1], "client-token") == 0)
        return runClientTokenCommand(argc, argv);
    if (argc >= 2 && OperatorCommand::isCommand(argv[1]))
        return runOperatorCommand(argc, argv);
    const bool headless = Launch::hasArgument(argc, argv, {"--headless"});
    // --help and --version answer without a window
    const bool informational = Launch::hasArgument(argc, argv, {"--help", "-h", "--version", "-v"});
    const bool noDisplay = !headless && !Launch::displayAvailable();
    if (!headless && !noDisplay && !informational) {
        const std::string console = executableDirectory() + "/switchboard-console";
        ::execv(console.c_str(), argv);
        std::fprintf(stderr,
            "switchboard: cannot start the window (%s: %s); run with --headless to serve without one\n",
            console.c_str(), std::strerror(errno));
        return 1;
    }

    Launch::prepareProcess();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHBOARD_VERSION));
    Launch launch;
    if (const std::optional<int> failed = launch.start(app, noDisplay))
        return *failed;
    return launch.runHeadless(app);
}
