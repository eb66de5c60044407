// switchboard-console: the window. `switchboard` runs this program (exec, same process id) when a
// window is wanted and a display is available; run directly without a display, it runs headless
// as `switchboard` would.

#include "calllogmodel.h"
#include "launch.h"
#include "mainwindow.h"

#include <QApplication>
#include <QSettings>

#include <memory>

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
    Launch launch;
    if (const std::optional<int> failed = launch.start(*app, noDisplay))
        return *failed;
    if (headless)
        return launch.runHeadless(*app);

    // Lets desktops match the window to switchboard.desktop and its icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("switchboard"));
    MainWindow window(launch.backend.get(), launch.config.callLogRows, launch.commandLine.noAuth);
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
