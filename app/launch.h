#pragma once

// Launch: what the switchboard commands share before their first event: the command line and the
// configuration read, the state directory prepared, the server token resolved, the backend started
// and the banner printed; and the headless log. `switchboard` (no GUI libraries) and
// `switchboard-console` (the window) both start through it.

#include "auth/servertoken.h"
#include "backend.h"
#include "commandline.h"
#include "config/switchboardconfig.h"

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
    // Whether a window can be shown: a display is set.
    static bool displayAvailable();

    // Parses the command line, reads the configuration, starts the backend and prints the banner.
    // Returns the exit code when it could not. `noDisplay` says the window was wanted but there is none.
    std::optional<int> start(QCoreApplication& app, bool noDisplay);
    // Runs the event loop with the headless log (one line per call) until SIGINT or SIGTERM.
    int runHeadless(QCoreApplication& app);
};
