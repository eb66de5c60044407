// switchboard-console: the window. `switchboard` runs this program (exec, same process id) when a
// window is wanted and a display is available; run directly without a display, it runs headless
// as `switchboard` would.

#include "calllogmodel.h"
#include "fleetoperator.h"
#include "launch.h"
#include "mainwindow.h"
#include "remoteoperator.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QSettings>

#include <cstdio>
#include <memory>

namespace {

// The window on Switchboards elsewhere (--attach URL, once or more), through their operator APIs: one
// window for all of them, each row, question and state named with its backend.
int runAttached(QApplication& app, const CommandLine& line)
{
    QString problem;
    QList<QUrl> bases;
    for (const QUrl& given : line.attach) {
        const QUrl base = RemoteOperator::baseUrl(given.toString(), &problem);
        if (!base.isValid()) {
            std::fprintf(stderr, "switchboard: --attach %s: %s\n", qPrintable(given.toString()), qPrintable(problem));
            return 2;
        }
        bases.append(base);
    }
    // The operator's credential: from the environment, else the state directory's (a backend on this
    // machine, or a copy of its file). One for every --attach; File ▸ Attach… takes others.
    QByteArray token = qgetenv("SWITCHBOARD_OPERATOR_TOKEN").trimmed();
    const QString tokenFile = QDir(line.stateDirectory).filePath(QStringLiteral("operator-token"));
    if (token.isEmpty()) {
        QFile file(tokenFile);
        if (file.open(QIODevice::ReadOnly))
            token = file.readAll().trimmed();
    }
    if (token.isEmpty()) {
        std::fprintf(stderr,
            "switchboard: --attach needs the operator token of the Switchboard at %s: set SWITCHBOARD_OPERATOR_TOKEN "
            "(its value is in the operator-token file of that Switchboard's state directory), or put it in %s\n",
            qPrintable(bases.first().toString()), qPrintable(tokenFile));
        return 2;
    }
    const QList<QSslCertificate> trusted = RemoteOperator::certificatesFromEnvironment(&problem);
    if (!problem.isEmpty()) {
        std::fprintf(stderr, "switchboard: %s\n", qPrintable(problem));
        return 2;
    }
    FleetOperator fleet;
    QList<RemoteOperator*> remotes;
    for (const QUrl& url : line.attach) {
        RemoteOperator::Settings attached;
        attached.url = url;
        attached.token = token;
        attached.caCertificates = trusted;
        auto* remote = new RemoteOperator(attached);
        if (!fleet.addBackend(remote, remote->backendName(), true, true)) {
            std::fprintf(stderr, "switchboard: --attach %s is given twice\n", qPrintable(remote->backendName()));
            delete remote;
            return 2;
        }
        remotes.append(remote);
    }
    const SwitchboardConfig defaults;
    QGuiApplication::setDesktopFileName(QStringLiteral("switchboard"));
    MainWindow window(&fleet, defaults.callLogRows, false);
    window.callLogModel()->setByteBudget(defaults.callLogBytes);
    QSettings settings(QStringLiteral("switchboard"), QStringLiteral("console"));
    window.restoreLayout(settings);
    window.show();
    for (RemoteOperator* remote : std::as_const(remotes))
        remote->start();
    Launch::onTerminationSignal(app, [] { QCoreApplication::exit(0); });
    const int code = app.exec();
    window.saveLayout(settings);
    return code;
}

} // namespace

int main(int argc, char** argv)
{
    Launch::prepareProcess();
    // Decide on a window before any QCoreApplication exists: QApplication aborts without a display.
    bool headless = Launch::hasArgument(argc, argv, {"--headless"});
    const bool noDisplay = !headless && !Launch::displayAvailable();
    headless = headless || noDisplay;

    std::unique_ptr<QCoreApplication> app(headless ? new QCoreApplication(argc, argv) : new QApplication(argc, argv));
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHBOARD_VERSION));
    if (const CommandLine line = CommandLine::parse(*app); !line.attach.isEmpty()) {
        if (headless) {
            std::fprintf(stderr,
                "switchboard: --attach opens a window, and there is no display. From a terminal, answer with "
                "`switchboard questions --attach URL` and `switchboard answer ID ANSWER --attach URL`\n");
            return 2;
        }
        return runAttached(static_cast<QApplication&>(*app), line);
    }
    Launch launch;
    if (const std::optional<int> failed = launch.start(*app, noDisplay))
        return *failed;
    if (headless)
        return launch.runHeadless(*app);

    // Lets desktops match the window to switchboard.desktop and its icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("switchboard"));
    // The window's own backend, under FleetOperator so that File ▸ Attach… can add others beside it
    // (alone, it passes everything through unchanged).
    FleetOperator fleet;
    fleet.addBackend(launch.backend.get(), FleetOperator::localName(), false, false);
    MainWindow window(&fleet, launch.config.callLogRows, launch.commandLine.noAuth);
    window.callLogModel()->setByteBudget(launch.config.callLogBytes);
    // Where the person left the window, its docks and the log's columns (on Linux in
    // ~/.config/switchboard/console.conf); saved when the window has closed.
    QSettings settings(QStringLiteral("switchboard"), QStringLiteral("console"));
    window.restoreLayout(settings);
    window.show();
    const int code = app->exec();
    window.saveLayout(settings);
    return code;
}
