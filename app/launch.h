#pragma once

// Launch: what the switchboard commands share before their first event: the command line and the
// configuration read, the state directory prepared, the server token resolved, the backend started
// and the banner printed; and the headless log. `switchboard` (no GUI libraries) and
// `switchboard-console` (the window) both start through it.

#include "auth/servertoken.h"
#include "commandline.h"
#include "config/switchboardconfig.h"
#include "core/backend.h"

#include <QSslConfiguration>

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>

class QCoreApplication;

struct Launch
{
    CommandLine commandLine;
    SwitchboardConfig config;
    std::unique_ptr<Backend> backend;

    // Process-wide settings that must come before any QCoreApplication (event dispatcher,
    // open-files limit).
    static void prepareProcess();
    // Runs `handle` in the event loop once SIGINT or SIGTERM arrives (the first one).
    static void onTerminationSignal(QCoreApplication& app, std::function<void()> handle);
    // Whether any of `names` is among the arguments, before a QCoreApplication exists to parse them
    // (which program to be, whether a window is wanted).
    static bool hasArgument(int argc, char** argv, std::initializer_list<const char*> names);
    // Whether a window can be shown: a display is set.
    static bool displayAvailable();

    // The backend's options from the command line and the configuration; nullopt with `error` when
    // they do not fit together.
    static std::optional<BackendOptions> backendOptions(
        const CommandLine& line, const SwitchboardConfig& config, QString* error);

    // server.tls's certificate (chain) and key as a server's TLS configuration; nullopt, saying why.
    static std::optional<QSslConfiguration> tlsConfiguration(
        const QString& certificatePath, const QString& keyPath, QString* error);

    // Parses the command line, reads the configuration, starts the backend and prints the banner.
    // Returns the exit code when it could not. `noDisplay` says the window was wanted but there is none.
    std::optional<int> start(QCoreApplication& app, bool noDisplay);
    // Runs the event loop with the headless log (one line per call) until SIGINT or SIGTERM.
    int runHeadless(QCoreApplication& app);
};
