#include "operatorinvocation.h"

#include "boundedjson.h"
#include "commandline.h"
#include "operatorurl.h"

#include <QCommandLineParser>

#include <cmath>

using nlohmann::json;

namespace {

const QString& ApiPrefix = OperatorUrl::ApiPath;

// The words of `answer` that are not a choice, as the API spells them.
const QStringList AnswerWords{QStringLiteral("allow_once"), QStringLiteral("allow_session"),
    QStringLiteral("always_allow"), QStringLiteral("deny"), QStringLiteral("confirm"), QStringLiteral("decline"),
    QStringLiteral("submit"), QStringLiteral("connect"), QStringLiteral("choose")};

const QStringList Scopes{
    QStringLiteral("client-args"), QStringLiteral("client-any"), QStringLiteral("all-args"), QStringLiteral("all-any")};

QString segment(const QString& text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

// What every operator command says about itself, after its own description.
QString commonEpilogue()
{
    return QStringLiteral(
        "\n\nThe server is --attach URL, else SWITCHBOARD_ATTACH, else http://127.0.0.1:<port> with the port of the "
        "configuration (--config). The URL may be the base (http://host:8765), the MCP URL (…/mcp) or the operator "
        "API's (…/operator/v1). The operator token is SWITCHBOARD_OPERATOR_TOKEN, else the file "
        "<state-dir>/operator-token (the server writes it there at its first start); an MCP client's token never "
        "opens the operator API.\n\n"
        "Exit status: 0 done; 1 the server refused or the command failed (the reason on stderr); 2 a usage error; "
        "3 no server could be reached, or it did not accept the token.");
}

struct CommandHelp
{
    const char* word;
    const char* synopsis;
    const char* description;
};

const CommandHelp Helps[] = {
    {"questions", "switchboard questions [--json]",
        "Lists the questions that wait for a person, oldest first: approvals of tools whose permission is `ask` and "
        "the client tools' questions. --json prints one JSON object a line (id, kind, tool, client, mode, "
        "arguments cut to 200 characters, waitingSinceMs and waitingSince, the answers it takes)."},
    {"answer", "switchboard answer ID ANSWER [options]",
        "Answers question ID. ANSWER is allow_once, allow_session, always_allow (with --scope), or deny (with an "
        "optional --reason) for an approval; confirm, decline, submit (with --values), connect (the API key is read "
        "from stdin and never shown) for a client tool's question; any other word is the choice of a choice "
        "question (or: choose --choice VALUE)."},
    {"history", "switchboard history [--json] [--limit N] [--client NAME] [--tool NAME]",
        "Lists stored calls, newest first. --json prints one JSON object a line."},
    {"status", "switchboard status [--json]",
        "Shows the server, its sessions, adapters with their breakers, the questions waiting and warnings."},
    {"grants", "switchboard grants [--json]",
        "Lists the standing permissions: grants people gave (with the id `switchboard grant revoke` takes) and the "
        "configuration's rules."},
    {"grant", "switchboard grant revoke ID", "Revokes a grant (admin role): its next call asks again."},
    {"breaker", "switchboard breaker reset|open ADAPTER",
        "Closes an adapter's circuit breaker, or forces it open until it is reset (admin role)."},
    {"adapter", "switchboard adapter enable|disable ADAPTER", "Enables or disables an adapter (admin role)."},
};

const CommandHelp* helpFor(const QString& word)
{
    for (const CommandHelp& help : Helps) {
        if (word == QLatin1String(help.word))
            return &help;
    }
    return nullptr;
}

struct Options
{
    QCommandLineOption help{
        QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help.")};
    QCommandLineOption attach{QStringLiteral("attach"),
        QStringLiteral("The Switchboard to talk to: http://host:port, its /mcp URL or its /operator/v1 URL."),
        QStringLiteral("url")};
    QCommandLineOption config{QStringLiteral("config"),
        QStringLiteral("Configuration file, for the port when neither --attach nor SWITCHBOARD_ATTACH is given "
                       "(default %1).")
            .arg(CommandLine::defaultConfigFile()),
        QStringLiteral("file")};
    QCommandLineOption stateDir{QStringLiteral("state-dir"),
        QStringLiteral("Where operator-token is, when SWITCHBOARD_OPERATOR_TOKEN is not set (default %1).")
            .arg(CommandLine::defaultStateDirectory()),
        QStringLiteral("dir")};
    QCommandLineOption timeout{QStringLiteral("timeout"),
        QStringLiteral("Give up when the server has not answered within this many seconds (default 30)."),
        QStringLiteral("seconds"), QStringLiteral("30")};
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("One JSON object a line instead of a table.")};
    QCommandLineOption limit{QStringLiteral("limit"),
        QStringLiteral("At most this many calls, 1-1000 (default: the server's, 50)."), QStringLiteral("n")};
    QCommandLineOption client{
        QStringLiteral("client"), QStringLiteral("Only this client's calls (its whole name)."), QStringLiteral("name")};
    QCommandLineOption tool{
        QStringLiteral("tool"), QStringLiteral("Only calls of this tool (its whole name)."), QStringLiteral("name")};
    QCommandLineOption reason{QStringLiteral("reason"), QStringLiteral("With deny: the reason, which the client sees."),
        QStringLiteral("text")};
    QCommandLineOption scope{QStringLiteral("scope"),
        QStringLiteral("With always_allow: client-args (this client, these exact arguments; the default), client-any "
                       "(this client, any arguments), all-args (every client, these arguments) or all-any."),
        QStringLiteral("scope")};
    QCommandLineOption values{QStringLiteral("values"),
        QStringLiteral("With submit: the form's values, a JSON object."), QStringLiteral("json")};
    QCommandLineOption provider{QStringLiteral("provider"),
        QStringLiteral("With connect: the provider (default: the one the question names)."), QStringLiteral("name")};
    QCommandLineOption account{QStringLiteral("account"),
        QStringLiteral("With connect: the account the key belongs to."), QStringLiteral("name")};
    QCommandLineOption choice{QStringLiteral("choice"),
        QStringLiteral("With choose: the choice, for one spelled like an answer word."), QStringLiteral("value")};
};

QString answerWord(const QString& given)
{
    // allow-once reads as allow_once: the state file and the window spell the decisions with dashes.
    QString word = given;
    word.replace(QLatin1Char('-'), QLatin1Char('_'));
    return AnswerWords.contains(word) ? word : QString();
}

} // namespace

QUrl OperatorRequest::url(const QUrl& base) const
{
    QUrl result = base;
    result.setPath(base.path(QUrl::FullyEncoded) + path, QUrl::TolerantMode);
    if (!query.isEmpty())
        result.setQuery(query);
    return result;
}

bool OperatorInvocation::isCommand(const QString& word)
{
    return helpFor(word) != nullptr;
}

std::optional<QUrl> OperatorInvocation::baseUrl(const QString& text, QString* error)
{
    return OperatorUrl::base(text, error);
}

std::optional<OperatorInvocation> OperatorInvocation::parse(
    const QStringList& arguments, QString* helpText, QString* error)
{
    const QString word = arguments.value(1);
    const CommandHelp* help = helpFor(word);
    if (!help) {
        *error = QStringLiteral("unknown command \"%1\"").arg(word);
        return std::nullopt;
    }
    const QString seeHelp = QStringLiteral("; see switchboard %1 --help").arg(word);
    const auto refuse = [&](const QString& problem) {
        *error = problem + seeHelp;
        return std::nullopt;
    };

    Options o;
    QCommandLineParser parser;
    parser.setApplicationDescription(QLatin1String(help->description) + commonEpilogue());
    parser.addOptions({o.help, o.attach, o.config, o.stateDir, o.timeout});
    if (word == QLatin1String("questions") || word == QLatin1String("status") || word == QLatin1String("grants"))
        parser.addOption(o.json);
    else if (word == QLatin1String("history"))
        parser.addOptions({o.json, o.limit, o.client, o.tool});
    else if (word == QLatin1String("answer"))
        parser.addOptions({o.reason, o.scope, o.values, o.provider, o.account, o.choice});
    parser.addPositionalArgument(word, QStringLiteral("`%1`").arg(QLatin1String(help->synopsis)));
    if (word == QLatin1String("answer")) {
        parser.addPositionalArgument(QStringLiteral("ID"), QStringLiteral("The question's id (ia-…)."));
        parser.addPositionalArgument(QStringLiteral("ANSWER"), QStringLiteral("The answer, as above."));
    } else if (word == QLatin1String("grant")) {
        parser.addPositionalArgument(QStringLiteral("revoke"), QStringLiteral("The word `revoke`."));
        parser.addPositionalArgument(QStringLiteral("ID"), QStringLiteral("The grant's id (switchboard grants)."));
    } else if (word == QLatin1String("breaker") || word == QLatin1String("adapter")) {
        parser.addPositionalArgument(QStringLiteral("ACTION"),
            word == QLatin1String("breaker") ? QStringLiteral("reset or open.") : QStringLiteral("enable or disable."));
        parser.addPositionalArgument(QStringLiteral("ADAPTER"), QStringLiteral("The adapter's name."));
    }
    if (!parser.parse(arguments))
        return refuse(parser.errorText());
    if (parser.isSet(o.help)) {
        *helpText = parser.helpText();
        return std::nullopt;
    }

    OperatorInvocation invocation;
    invocation.word = word;
    invocation.attach = parser.value(o.attach);
    if (parser.isSet(o.attach) && invocation.attach.trimmed().isEmpty())
        return refuse(QStringLiteral("--attach needs a URL"));
    invocation.configFile = parser.value(o.config);
    invocation.stateDirectory = parser.value(o.stateDir);
    bool secondsOk = false;
    const double seconds = parser.value(o.timeout).toDouble(&secondsOk);
    // toDouble reads "nan" and "inf" as numbers; neither is a number of seconds.
    if (!secondsOk || !std::isfinite(seconds) || seconds <= 0 || seconds > 86'400)
        return refuse(QStringLiteral("--timeout must be a number of seconds above 0, at most 86400"));
    invocation.timeoutMs = std::max(1, int(std::lround(seconds * 1000)));
    invocation.jsonLines = parser.optionNames().contains(QStringLiteral("json"));

    const QStringList words = parser.positionalArguments().mid(1);
    const auto takesWords = [&](qsizetype count, const QString& what) -> bool {
        if (words.size() == count)
            return true;
        *error = (count == 0 ? QStringLiteral("%1 takes no words, got: %2").arg(word, words.join(u' '))
                             : QStringLiteral("%1 takes %2, got %3 word(s)").arg(word, what).arg(words.size()))
            + seeHelp;
        return false;
    };
    OperatorRequest& request = invocation.request;

    if (word == QLatin1String("questions") || word == QLatin1String("status") || word == QLatin1String("grants")) {
        if (!takesWords(0, {}))
            return std::nullopt;
        invocation.command = word == QLatin1String("questions") ? Command::Questions
            : word == QLatin1String("status")                   ? Command::Status
                                                                : Command::Grants;
        request.method = "GET";
        request.path = ApiPrefix + QLatin1Char('/') + word;
        return invocation;
    }

    if (word == QLatin1String("history")) {
        if (!takesWords(0, {}))
            return std::nullopt;
        invocation.command = Command::History;
        request.method = "GET";
        request.path = ApiPrefix + QStringLiteral("/history");
        if (parser.isSet(o.limit)) {
            bool ok = false;
            const int limit = parser.value(o.limit).toInt(&ok);
            if (!ok || limit < 1 || limit > 1000)
                return refuse(QStringLiteral("--limit must be a number from 1 to 1000"));
            request.query.addQueryItem(QStringLiteral("limit"), QString::number(limit));
        }
        // Names go as they are: QUrlQuery encodes them when the URL is made.
        for (const auto& [option, key] :
            {std::pair{&o.client, QStringLiteral("client")}, std::pair{&o.tool, QStringLiteral("tool")}}) {
            if (!parser.isSet(*option))
                continue;
            if (parser.value(*option).isEmpty())
                return refuse(QStringLiteral("--%1 needs a name").arg(key));
            request.query.addQueryItem(key, QString::fromLatin1(QUrl::toPercentEncoding(parser.value(*option))));
        }
        return invocation;
    }

    if (word == QLatin1String("grant")) {
        if (!takesWords(2, QStringLiteral("revoke ID")))
            return std::nullopt;
        if (words.at(0) != QLatin1String("revoke"))
            return refuse(QStringLiteral("unknown action \"%1\": say grant revoke ID (switchboard grants lists them)")
                              .arg(words.at(0)));
        if (words.at(1).isEmpty())
            return refuse(QStringLiteral("the grant's id is empty"));
        invocation.command = Command::RevokeGrant;
        invocation.subject = words.at(1);
        request.method = "DELETE";
        request.path = ApiPrefix + QStringLiteral("/grants/") + segment(invocation.subject);
        return invocation;
    }

    if (word == QLatin1String("breaker") || word == QLatin1String("adapter")) {
        const bool breaker = word == QLatin1String("breaker");
        const QString actions = breaker ? QStringLiteral("reset ADAPTER or open ADAPTER")
                                        : QStringLiteral("enable ADAPTER or disable ADAPTER");
        if (!takesWords(2, actions))
            return std::nullopt;
        const QString action = words.at(0);
        QString pathAction;
        if (breaker && action == QLatin1String("reset")) {
            invocation.command = Command::ResetBreaker;
            pathAction = QStringLiteral("reset");
        } else if (breaker && action == QLatin1String("open")) {
            invocation.command = Command::OpenBreaker;
            pathAction = QStringLiteral("force-open");
        } else if (!breaker && action == QLatin1String("enable")) {
            invocation.command = Command::EnableAdapter;
            pathAction = QStringLiteral("enable");
        } else if (!breaker && action == QLatin1String("disable")) {
            invocation.command = Command::DisableAdapter;
            pathAction = QStringLiteral("disable");
        } else {
            return refuse(QStringLiteral("unknown action \"%1\": say %2 %3").arg(action, word, actions));
        }
        if (words.at(1).isEmpty())
            return refuse(QStringLiteral("the adapter's name is empty"));
        invocation.subject = words.at(1);
        request.method = "POST";
        request.path
            = ApiPrefix + QStringLiteral("/adapters/") + segment(invocation.subject) + QLatin1Char('/') + pathAction;
        return invocation;
    }

    // answer ID ANSWER
    if (!takesWords(2, QStringLiteral("ID ANSWER")))
        return std::nullopt;
    invocation.command = Command::Answer;
    invocation.subject = words.at(0);
    if (invocation.subject.isEmpty())
        return refuse(QStringLiteral("the question's id is empty (switchboard questions lists them)"));
    const QString given = words.at(1);
    if (given.isEmpty())
        return refuse(QStringLiteral("ANSWER is empty"));
    QString answer = answerWord(given);
    json body = json::object();
    if (answer.isEmpty()) {
        if (parser.isSet(o.choice))
            return refuse(QStringLiteral("--choice goes with choose; \"%1\" is a choice already").arg(given));
        answer = QStringLiteral("choose");
        body["choice"] = given.toStdString();
    } else if (answer == QLatin1String("choose")) {
        if (!parser.isSet(o.choice))
            return refuse(QStringLiteral("choose needs --choice VALUE (or give the choice itself as ANSWER)"));
        body["choice"] = parser.value(o.choice).toStdString();
    } else if (parser.isSet(o.choice)) {
        return refuse(QStringLiteral("--choice goes with choose, not with %1").arg(answer));
    }
    body["answer"] = answer.toStdString();

    // Each option belongs to one answer: given with another, it would be ignored, or refused by the
    // server after a round trip; say so at once.
    struct Belongs
    {
        const QCommandLineOption* option;
        const char* answer;
    };
    for (const Belongs& belongs : {Belongs{&o.reason, "deny"}, Belongs{&o.scope, "always_allow"},
             Belongs{&o.values, "submit"}, Belongs{&o.provider, "connect"}, Belongs{&o.account, "connect"}}) {
        if (parser.isSet(*belongs.option) && answer != QLatin1String(belongs.answer))
            return refuse(QStringLiteral("--%1 goes with %2, not with %3")
                              .arg(belongs.option->names().constFirst(), QLatin1String(belongs.answer), answer));
    }
    if (answer == QLatin1String("always_allow")) {
        const QString scope = parser.isSet(o.scope) ? parser.value(o.scope) : QStringLiteral("client-args");
        if (!Scopes.contains(scope))
            return refuse(
                QStringLiteral("unknown scope \"%1\": say client-args, client-any, all-args or all-any").arg(scope));
        body["scope"] = scope.toStdString();
    } else if (answer == QLatin1String("deny") && parser.isSet(o.reason)) {
        body["reason"] = parser.value(o.reason).toStdString();
    } else if (answer == QLatin1String("submit")) {
        if (!parser.isSet(o.values))
            return refuse(QStringLiteral("submit needs --values with the form's values, a JSON object"));
        const QByteArray text = parser.value(o.values).toUtf8();
        BoundedJson::Result<json> values = BoundedJson::parse(text, BoundedJson::Limits::message());
        if (!values.ok)
            return refuse(QStringLiteral("--values is not JSON: %1").arg(QString::fromStdString(values.error)));
        if (!values.value.is_object())
            return refuse(QStringLiteral("--values must be a JSON object ({\"name\": …})"));
        body["values"] = std::move(values.value);
    } else if (answer == QLatin1String("connect")) {
        for (const auto& [option, key] : {std::pair{&o.provider, "provider"}, std::pair{&o.account, "account"}}) {
            if (!parser.isSet(*option))
                continue;
            if (parser.value(*option).isEmpty())
                return refuse(QStringLiteral("--%1 needs a name").arg(QLatin1String(key)));
            body[key] = parser.value(*option).toStdString();
        }
        invocation.readsApiKey = true;
    }
    invocation.answer = answer;
    request.method = "POST";
    request.path = ApiPrefix + QStringLiteral("/questions/") + segment(invocation.subject) + QStringLiteral("/answer");
    request.body = std::move(body);
    return invocation;
}
