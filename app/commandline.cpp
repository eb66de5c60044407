#include "commandline.h"

#include "operatorinvocation.h"
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
        "one tool call; `switchboard client-token issue|revoke|list` manages named client tokens; "
        "`switchboard questions|answer|history|status|grants|grant|breaker|adapter` talk to a running "
        "Switchboard's operator API, here or on another machine (--attach URL). Each has --help."));
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
    const QCommandLineOption attach(QStringLiteral("attach"),
        QStringLiteral("Open the window on a Switchboard running elsewhere (often --headless), through its operator "
                       "API: its base URL or its /mcp URL. The operator token comes from "
                       "SWITCHBOARD_OPERATOR_TOKEN, else from the operator-token file of --state-dir. Given "
                       "several times, one window follows them all (File ▸ Attach… adds more, with tokens of "
                       "their own)."),
        QStringLiteral("url"));
    const QCommandLineOption operatorPort(QStringLiteral("operator-port"),
        QStringLiteral("Serve the operator API on a port of its own (0 picks a free one) instead of under "
                       "/operator/ on --port."),
        QStringLiteral("port"));
    parser.addOptions({headless, port, bind, noAuth, stateDir, config, debugTools, attach, operatorPort});
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
        if (OperatorInvocation::isCommand(words.first()))
            refuse(QStringLiteral("unexpected argument \"%1\": the operator commands are `switchboard %1 …`, with "
                                  "`%1` first")
                       .arg(words.first()));
        refuse(QStringLiteral("unexpected argument \"%1\": switchboard takes options only").arg(words.first()));
    }

    CommandLine line;
    line.headless = parser.isSet(headless);
    line.noAuth = parser.isSet(noAuth);
    line.debugTools = parser.isSet(debugTools);
    if (parser.isSet(attach)) {
        for (const QString& url : parser.values(attach))
            line.attach.append(QUrl(url));
        if (parser.isSet(headless))
            refuse(
                QStringLiteral("--attach opens a window on another Switchboard; --headless has none. From a "
                               "terminal, answer with `switchboard questions --attach URL` and `switchboard answer`"));
        for (const QCommandLineOption& serving : {port, bind, noAuth, config, debugTools, operatorPort}) {
            if (parser.isSet(serving))
                refuse(QStringLiteral("--%1 sets up a server, and --attach starts none").arg(serving.names().first()));
        }
    }
    if (parser.isSet(operatorPort)) {
        bool ok = false;
        const uint value = parser.value(operatorPort).toUInt(&ok);
        if (!ok || value > 65535)
            refuse(QStringLiteral("--operator-port must be a number from 0 to 65535"));
        line.operatorPort = quint16(value);
    }
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
