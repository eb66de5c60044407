#include "clienttokencommand.h"

#include "auth/clienttokens.h"
#include "commandline.h"
#include "transport/printabletext.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>

#include <algorithm>
#include <cstdio>

namespace {

const QString Command = QStringLiteral("switchboard client-token");

// The reason on stderr, escaped: it may quote what was typed or what the file holds.
int fail(const QString& message)
{
    std::fprintf(stderr, "%s: %s\n", qPrintable(Command), PrintableText::escaped(message).constData());
    return 1;
}

int issue(ClientTokens& tokens, const QString& name)
{
    QString error;
    const QByteArray token = tokens.issue(name, &error);
    if (token.isEmpty())
        return fail(error);
    // The token alone on stdout, so a script can take it (TOKEN=$(switchboard client-token issue ci));
    // what to do with it on stderr, for the person at the terminal.
    std::printf("%s\n", token.constData());
    std::fflush(stdout);
    std::fprintf(stderr,
        "%s: issued a token for %s; it is not shown again. The client sends it as the header "
        "\"Authorization: Bearer <token>\".\n",
        qPrintable(Command), qPrintable(name));
    return 0;
}

int revoke(ClientTokens& tokens, const QString& name)
{
    QString error;
    if (!tokens.revoke(name, &error))
        return fail(error);
    std::printf("revoked the client token %s: its client's next request is refused\n", qPrintable(name));
    return 0;
}

int list(const ClientTokens& tokens)
{
    QString problem;
    const QList<ClientTokens::Entry> entries = tokens.list(&problem);
    if (!problem.isEmpty())
        return fail(problem);
    if (entries.isEmpty()) {
        std::fprintf(stderr, "%s: no client tokens in %s\n", qPrintable(Command), qPrintable(tokens.path()));
        return 0;
    }
    qsizetype width = 4;
    for (const ClientTokens::Entry& entry : entries)
        width = std::max(width, entry.name.size());
    // Names are letters, digits, '.', '_' and '-' (the file is refused otherwise): printable as they are.
    std::printf("%s  ISSUED\n", qPrintable(QStringLiteral("NAME").leftJustified(width)));
    for (const ClientTokens::Entry& entry : entries) {
        const QString issued = QDateTime::fromMSecsSinceEpoch(entry.createdAtMs).toUTC().toString(Qt::ISODate);
        std::printf("%s  %s\n", qPrintable(entry.name.leftJustified(width)), qPrintable(issued));
    }
    return 0;
}

} // namespace

int runClientTokenCommand(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHBOARD_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Issues, revokes and lists named client tokens. Each lets one client in, and its name is that client's "
        "identity; the shared token keeps working beside them. A client sends its token as the header "
        "\"Authorization: Bearer <token>\". A running console takes a change on the client's next request."));
    const QCommandLineOption help(
        QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption stateDir(QStringLiteral("state-dir"),
        QStringLiteral("Where the tokens live (default %1).").arg(CommandLine::defaultStateDirectory()),
        QStringLiteral("dir"));
    parser.addOptions({help, stateDir});
    parser.addPositionalArgument(QStringLiteral("client-token"), QStringLiteral("The word `client-token`."));
    parser.addPositionalArgument(QStringLiteral("ACTION"),
        QStringLiteral("issue NAME (prints the new token, once), revoke NAME, or list."), QStringLiteral("ACTION"));
    parser.addPositionalArgument(QStringLiteral("NAME"),
        QStringLiteral("The client's name: 1-64 letters, digits, '.', '_' and '-', starting with a letter or digit."),
        QStringLiteral("[NAME]"));
    const QString seeHelp = QStringLiteral("; see switchboard client-token --help");
    if (!parser.parse(QCoreApplication::arguments()))
        return fail(parser.errorText() + seeHelp);
    if (parser.isSet(help)) {
        std::printf("%s", qPrintable(parser.helpText()));
        return 0;
    }
    const QStringList words = parser.positionalArguments().mid(1); // after "client-token"
    const QString action = words.value(0);
    const bool named = action == QLatin1String("issue") || action == QLatin1String("revoke");
    if (!named && action != QLatin1String("list"))
        return fail((action.isEmpty()
                            ? QStringLiteral("say issue NAME, revoke NAME or list")
                            : QStringLiteral("unknown action \"%1\": say issue NAME, revoke NAME or list").arg(action))
            + seeHelp);
    if (named && words.size() != 2)
        return fail(QStringLiteral("%1 takes one NAME, got %2").arg(action).arg(words.size() - 1) + seeHelp);
    if (!named && words.size() != 1)
        return fail(QStringLiteral("list takes no NAME, got: %1").arg(words.mid(1).join(u' ')) + seeHelp);

    const QString directory = parser.isSet(stateDir) ? parser.value(stateDir) : CommandLine::defaultStateDirectory();
    ClientTokens tokens(ClientTokens::defaultPath(directory));
    if (action == QLatin1String("issue"))
        return issue(tokens, words.at(1));
    if (action == QLatin1String("revoke"))
        return revoke(tokens, words.at(1));
    return list(tokens);
}
