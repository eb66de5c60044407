#include "commandline.h"

#include "transport/mcphttpserver.h"
#include "transport/printabletext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

#include <cstdio>

QString CommandLine::defaultStateDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
        .filePath(QStringLiteral("switchboard"));
}

QString CommandLine::defaultConfigFile()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(QStringLiteral("switchboard/config.yaml"));
}

CommandLine CommandLine::parse(const QCoreApplication& app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Switchboard: an operator console for MCP tool traffic. Runs an MCP server on loopback "
        "(Streamable HTTP at /mcp) and shows every tool call live.\n\nAlso: `switchboard tool NAME` runs "
        "one tool call; `switchboard client-token issue|revoke|list` manages named client tokens. "
        "Each has --help."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption headless(QStringLiteral("headless"),
        QStringLiteral("Run without a window: print the server URL, then one line per call."));
    const QCommandLineOption port(QStringLiteral("port"),
        QStringLiteral("Port to listen on (default %1; 0 picks a free port).").arg(McpServerOptions::DefaultPort),
        QStringLiteral("port"));
    const QCommandLineOption bind(QStringLiteral("bind"),
        QStringLiteral("Address to listen on (default 127.0.0.1). Anything but loopback "
                       "exposes the server to the network and is warned about."),
        QStringLiteral("address"));
    const QCommandLineOption noAuth(QStringLiteral("no-auth"),
        QStringLiteral("Accept clients without the bearer token. For local experiments only."));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"),
        QStringLiteral("Where history and the token live (default %1).").arg(defaultStateDirectory()),
        QStringLiteral("dir"));
    const QCommandLineOption config(QStringLiteral("config"),
        QStringLiteral("Configuration file (default %1).").arg(defaultConfigFile()), QStringLiteral("file"));
    const QCommandLineOption debugTools(QStringLiteral("debug-tools"),
        QStringLiteral("Also offer the debug.* test tools (block, progress, ignore_cancel, throw), for trying how a "
                       "client handles long, progressing, stuck and failing calls."));
    parser.addOptions({headless, port, bind, noAuth, stateDir, config, debugTools});
    // Anything the command line does not know stops the start (exit status 2, naming it) rather
    // than being ignored: `switchboard --state-dir X tool echo` must not quietly start a server.
    const auto refuse = [](const QString& problem) {
        std::fprintf(stderr, "switchboard: %s; see switchboard --help\n", PrintableText::escaped(problem).constData());
        std::exit(2);
    };
    if (!parser.parse(app.arguments()))
        refuse(parser.errorText());
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(0);
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (const QStringList words = parser.positionalArguments(); !words.isEmpty()) {
        if (words.first() == QLatin1String("tool"))
            refuse(QStringLiteral("unexpected argument \"tool\": the one-shot runner is `switchboard tool NAME "
                                  "[options]`, with `tool` first"));
        if (words.first() == QLatin1String("client-token"))
            refuse(QStringLiteral("unexpected argument \"client-token\": the client tokens command is `switchboard "
                                  "client-token issue|revoke|list [NAME] [options]`, with `client-token` first"));
        refuse(QStringLiteral("unexpected argument \"%1\": switchboard takes options only").arg(words.first()));
    }

    CommandLine line;
    line.headless = parser.isSet(headless);
    line.noAuth = parser.isSet(noAuth);
    line.debugTools = parser.isSet(debugTools);
    if (parser.isSet(port)) {
        bool ok = false;
        const uint value = parser.value(port).toUInt(&ok);
        if (!ok || value > 65535) {
            std::fprintf(stderr, "switchboard: --port must be a number from 0 to 65535\n");
            std::exit(2);
        }
        line.port = quint16(value);
    }
    line.bindAddress = parser.value(bind);
    line.stateDirectory = parser.isSet(stateDir) ? parser.value(stateDir) : defaultStateDirectory();
    line.configFile = parser.isSet(config) ? parser.value(config) : defaultConfigFile();
    return line;
}
