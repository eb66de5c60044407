#pragma once

// CommandLine: what the switchboard command was asked to do.

#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

class QCoreApplication;

struct CommandLine
{
    bool headless = false;
    bool noAuth = false;
    bool debugTools = false;
    std::optional<quint16> port;
    std::optional<quint16> operatorPort; // --operator-port: the operator API on a port of its own
    QString bindAddress; // empty: from configuration
    QString stateDirectory;
    QString configFile;
    // --attach (may be given several times): the window on Switchboards elsewhere, one window for all
    // of them; empty when not asked.
    QList<QUrl> attach;

    // Parses the application's arguments; exits on --help and --version (status 0), and on an error
    // (an unknown option, a bad value, a word it does not expect) with status 2, naming it.
    static CommandLine parse(const QCoreApplication& app);
    static QString defaultStateDirectory();
    static QString defaultConfigFile();
};
