#include "operatoroutput.h"

#include "boundedjson.h"
#include "transport/printabletext.h"

#include <QDateTime>
#include <QList>
#include <QStringList>

#include <algorithm>

using nlohmann::json;
using Command = OperatorInvocation::Command;

namespace {

// The server's JSON is read leniently: a newer server may add members, and a member missing or of
// another type reads as empty rather than failing the whole listing.
QString text(const json& object, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    if (it == object.end())
        return {};
    if (it->is_string())
        return QString::fromStdString(it->get_ref<const std::string&>());
    if (it->is_number())
        return QString::fromStdString(it->dump());
    return {};
}

qint64 integer(const json& object, const char* key, qint64 fallback = 0)
{
    if (!object.is_object())
        return fallback;
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
        return fallback;
    return it->is_number_float() ? qint64(it->get<double>()) : it->get<qint64>();
}

bool boolean(const json& object, const char* key)
{
    if (!object.is_object())
        return false;
    const auto it = object.find(key);
    return it != object.end() && it->is_boolean() && it->get<bool>();
}

const json& member(const json& object, const char* key)
{
    static const json none;
    if (!object.is_object())
        return none;
    const auto it = object.find(key);
    return it == object.end() ? none : *it;
}

// What the server sent, made safe for one line of a terminal (see PrintableText).
QString printable(const QString& value)
{
    return QString::fromUtf8(PrintableText::escaped(value));
}

QString cut(const QString& value, qsizetype maxChars)
{
    return value.size() <= maxChars ? value : value.left(maxChars - 1) + QChar(0x2026);
}

QString isoTime(qint64 ms)
{
    return ms > 0 ? QDateTime::fromMSecsSinceEpoch(ms).toUTC().toString(Qt::ISODate) : QString();
}

// "42s", "3m05s", "2h13m", "4d07h".
QString span(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    const auto two = [](qint64 n) { return QStringLiteral("%1").arg(n, 2, 10, QLatin1Char('0')); };
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1m%2s").arg(s / 60).arg(two(s % 60));
    if (s < 86'400)
        return QStringLiteral("%1h%2m").arg(s / 3600).arg(two(s % 3600 / 60));
    return QStringLiteral("%1d%2h").arg(s / 86'400).arg(two(s % 86'400 / 3600));
}

// A duration in microseconds as a person reads it: "840 ms", "12.3 s".
QString duration(qint64 us)
{
    if (us < 0)
        return QStringLiteral("running");
    if (us < 1000)
        return QStringLiteral("%1 µs").arg(us);
    if (us < 10'000'000)
        return QStringLiteral("%1 ms").arg(us / 1000);
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 1);
}

QByteArray jsonLine(const json& value)
{
    // ASCII only: what a tool or client named reaches the terminal as \u escapes, never as control
    // characters or bidirectional overrides; the line is JSON all the same.
    return QByteArray::fromStdString(value.dump(-1, ' ', true, json::error_handler_t::replace)) + '\n';
}

// Arguments as one line: compact JSON when they parse, else their text with runs of white space as one
// space (a preview cut short is not JSON any more). At most `maxChars`, `wasCut` set when cut.
QString argumentsPreview(const QByteArray& arguments, qsizetype maxChars, bool* wasCut)
{
    QString line;
    const BoundedJson::Result<nlohmann::ordered_json> parsed
        = BoundedJson::parseOrdered(arguments, BoundedJson::Limits::record());
    if (parsed.ok)
        line = QString::fromStdString(parsed.value.dump(-1, ' ', false, json::error_handler_t::replace));
    else
        line = QString::fromUtf8(arguments).simplified();
    *wasCut = line.size() > maxChars;
    return line.left(maxChars);
}

// A call's arguments from its request (a JSON-RPC tools/call), which a history preview may have cut.
QByteArray requestArguments(const QByteArray& request)
{
    const BoundedJson::Result<nlohmann::ordered_json> parsed
        = BoundedJson::parseOrdered(request, BoundedJson::Limits::record());
    if (parsed.ok) {
        const auto params = parsed.value.find("params");
        if (params != parsed.value.end() && params->is_object()) {
            const auto arguments = params->find("arguments");
            if (arguments != params->end())
                return QByteArray::fromStdString(arguments->dump(-1, ' ', false, json::error_handler_t::replace));
        }
        return {};
    }
    const qsizetype at = request.indexOf("\"arguments\":");
    return at < 0 ? QByteArray() : request.mid(at + 12);
}

// Columns padded to their widest cell; the last one is not padded. Cells are printable already.
QByteArray table(const QStringList& headers, const QList<QStringList>& rows, const QString& indent = {})
{
    QList<qsizetype> widths;
    for (const QString& header : headers)
        widths.append(header.size());
    for (const QStringList& row : rows) {
        for (qsizetype column = 0; column < row.size() && column < widths.size(); ++column)
            widths[column] = std::max(widths[column], row.at(column).size());
    }
    QString result;
    const auto line = [&](const QStringList& cells) {
        QString text = indent;
        for (qsizetype column = 0; column < cells.size(); ++column) {
            const bool last = column + 1 == cells.size();
            text += last ? cells.at(column) : cells.at(column).leftJustified(widths.at(column)) + QStringLiteral("  ");
        }
        while (text.endsWith(QLatin1Char(' ')))
            text.chop(1);
        result += text + QLatin1Char('\n');
    };
    line(headers);
    for (const QStringList& row : rows)
        line(row);
    return result.toUtf8();
}

QString dash(const QString& value)
{
    return value.isEmpty() ? QStringLiteral("-") : value;
}

OperatorPrinted failed(const OperatorInvocation& invocation, int exitCode, const QString& why)
{
    return {{}, OperatorOutput::message(invocation.word, why), exitCode};
}

// The answers a question takes, in the words of `switchboard answer`.
json answersFor(const QString& render, const json& spec, const json& question)
{
    json answers = json::array();
    if (render == QLatin1String("approval")) {
        answers.push_back("allow_once");
        // A runner's or a stateless client's question has no session to allow for.
        if (!boolean(question, "fromRunner") && !boolean(question, "stateless"))
            answers.push_back("allow_session");
        answers.push_back("always_allow");
        answers.push_back("deny");
        return answers;
    }
    if (render == QLatin1String("connect"))
        answers.push_back("connect");
    else if (render == QLatin1String("confirm"))
        answers.push_back("confirm");
    else if (render == QLatin1String("form"))
        answers.push_back("submit");
    else if (render == QLatin1String("choice")) {
        for (const json& choice : member(spec, "choices")) {
            if (choice.is_string())
                answers.push_back(choice);
        }
    }
    answers.push_back("decline");
    return answers;
}

OperatorPrinted questions(const OperatorInvocation& invocation, const json& body, qint64 nowMs)
{
    const json& list = member(body, "questions");
    if (!list.is_array())
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("the server's answer has no \"questions\" list: is it the operator API v1?"));
    OperatorPrinted printed;
    QList<QStringList> rows;
    for (const json& question : list) {
        const QString id = text(question, "id");
        QString render = text(question, "render");
        if (render.isEmpty())
            render = text(question, "kind");
        const QByteArray specText = text(question, "renderSpec").toUtf8();
        const json spec
            = specText.isEmpty() ? json() : BoundedJson::parse(specText, BoundedJson::Limits::record()).value;
        const qint64 since = integer(question, "createdAtMs");
        bool wasCut = false;
        const QString arguments
            = argumentsPreview(text(question, "arguments").toUtf8(), OperatorOutput::ArgumentsPreviewChars, &wasCut);
        if (invocation.jsonLines) {
            json line{{"id", id.toStdString()}, {"kind", render.toStdString()},
                {"tool", text(question, "tool").toStdString()}, {"client", text(question, "clientName").toStdString()}};
            if (const QString identity = text(question, "identity"); !identity.isEmpty())
                line["identity"] = identity.toStdString();
            line["mode"] = text(question, "mode").toStdString();
            line["arguments"] = arguments.toStdString();
            line["argumentsCut"] = wasCut;
            line["waitingSinceMs"] = since;
            line["waitingSince"] = isoTime(since).toStdString();
            line["answers"] = answersFor(render, spec, question);
            for (const char* key : {"question", "prompt", "provider"}) {
                if (const QString value = text(spec, key); !value.isEmpty())
                    line[key] = value.toStdString();
            }
            printed.out += jsonLine(line);
            continue;
        }
        const QString client = text(question, "clientName");
        rows.append({printable(id), printable(render), printable(cut(text(question, "tool"), 40)),
            printable(cut(client, 30)), since > 0 ? span(nowMs - since) : QStringLiteral("-"),
            printable(cut(arguments + (wasCut ? QString(QChar(0x2026)) : QString()), 60))});
    }
    if (list.empty())
        printed.err = OperatorOutput::message(invocation.word, QStringLiteral("no questions wait"));
    else if (!invocation.jsonLines)
        printed.out = table({QStringLiteral("ID"), QStringLiteral("KIND"), QStringLiteral("TOOL"),
                                QStringLiteral("CLIENT"), QStringLiteral("WAITING"), QStringLiteral("ARGUMENTS")},
            rows);
    return printed;
}

OperatorPrinted history(const OperatorInvocation& invocation, const json& body)
{
    const json& list = member(body, "calls");
    if (!list.is_array())
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("the server's answer has no \"calls\" list: is it the operator API v1?"));
    OperatorPrinted printed;
    QList<QStringList> rows;
    for (const json& call : list) {
        const qint64 id = integer(call, "id");
        const qint64 started = integer(call, "startedAtMs");
        const qint64 durationUs = integer(call, "durationUs", -1);
        const QString error = text(call, "error");
        bool wasCut = false;
        const QString arguments = argumentsPreview(
            requestArguments(text(call, "request").toUtf8()), OperatorOutput::ArgumentsPreviewChars, &wasCut);
        if (invocation.jsonLines) {
            json line{{"id", id}, {"startedAtMs", started}, {"startedAt", isoTime(started).toStdString()},
                {"client", text(call, "clientName").toStdString()}, {"tool", text(call, "tool").toStdString()},
                {"route", text(call, "route").toStdString()}, {"status", text(call, "status").toStdString()},
                {"durationUs", durationUs}, {"waitedUs", integer(call, "waitedUs")}, {"error", error.toStdString()},
                {"arguments", arguments.toStdString()}, {"argumentsCut", wasCut}};
            printed.out += jsonLine(line);
            continue;
        }
        const QString detail = error.isEmpty() ? arguments + (wasCut ? QString(QChar(0x2026)) : QString()) : error;
        rows.append({QString::number(id), dash(isoTime(started)), printable(cut(text(call, "clientName"), 30)),
            printable(cut(text(call, "tool"), 40)), printable(text(call, "status")), duration(durationUs),
            printable(cut(detail, 80))});
    }
    if (list.empty())
        printed.err = OperatorOutput::message(invocation.word, QStringLiteral("no calls match"));
    else if (!invocation.jsonLines)
        printed.out
            = table({QStringLiteral("ID"), QStringLiteral("STARTED"), QStringLiteral("CLIENT"), QStringLiteral("TOOL"),
                        QStringLiteral("STATUS"), QStringLiteral("TOOK"), QStringLiteral("ERROR OR ARGUMENTS")},
                rows);
    if (boolean(body, "hasMore"))
        printed.err += OperatorOutput::message(
            invocation.word, QStringLiteral("more calls are stored: raise --limit (at most 1000) to see them"));
    return printed;
}

QString breakerText(const json& breaker, qint64 nowMs)
{
    if (!breaker.is_object())
        return QStringLiteral("-");
    QString phase = printable(text(breaker, "phase"));
    if (boolean(breaker, "forcedOpen")) {
        const QString by = text(breaker, "forcedBy");
        return phase
            + (by.isEmpty() ? QStringLiteral(" (forced)") : QStringLiteral(" (forced by %1)").arg(printable(by)));
    }
    if (const qint64 retry = integer(breaker, "retryAtMs"); phase == QLatin1String("open") && retry > nowMs)
        phase += QStringLiteral(" (retry in %1)").arg(span(retry - nowMs));
    return phase;
}

OperatorPrinted status(const OperatorInvocation& invocation, const json& body, qint64 nowMs)
{
    if (!body.is_object() || !member(body, "server").is_object())
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("the server's answer has no \"server\": is it the operator API v1?"));
    if (invocation.jsonLines)
        return {jsonLine(body), {}, OperatorExit::Ok};
    const json& server = member(body, "server");
    QString out;
    QString headline
        = QStringLiteral("%1 %2").arg(printable(dash(text(server, "name"))), printable(text(server, "version")));
    if (const QString mcpUrl = text(server, "mcpUrl"); !mcpUrl.isEmpty())
        headline += QStringLiteral(" at %1").arg(printable(mcpUrl));
    if (const qint64 started = integer(server, "startedAtMs"); started > 0)
        headline += QStringLiteral(", up %1").arg(span(nowMs - started));
    const json& you = member(server, "operator");
    if (you.is_object())
        headline += QStringLiteral("; you are operator:%1 (%2)")
                        .arg(printable(text(you, "name")), printable(text(you, "role")));
    out += headline.trimmed() + QLatin1Char('\n');

    const json& questionCount = member(body, "questions");
    const qint64 waiting = questionCount.is_array() ? qint64(questionCount.size()) : integer(body, "questions");
    out += QStringLiteral("questions waiting: %1%2\n")
               .arg(waiting)
               .arg(waiting > 0 ? QStringLiteral(" (switchboard questions)") : QString());

    QList<QStringList> sessionRows;
    for (const json& session : member(body, "sessions")) {
        if (boolean(session, "ended"))
            continue;
        const qint64 last = integer(session, "lastActivityMs");
        sessionRows.append({printable(cut(text(session, "id"), 40)), printable(cut(text(session, "clientName"), 30)),
            printable(text(session, "protocolVersion")), QString::number(integer(session, "calls")),
            last > 0 ? span(nowMs - last) + QStringLiteral(" ago") : QStringLiteral("-")});
    }
    out += QStringLiteral("sessions: %1\n").arg(sessionRows.size());
    QByteArray result = out.toUtf8();
    if (!sessionRows.isEmpty())
        result += table({QStringLiteral("ID"), QStringLiteral("CLIENT"), QStringLiteral("PROTOCOL"),
                            QStringLiteral("CALLS"), QStringLiteral("LAST ACTIVE")},
            sessionRows, QStringLiteral("  "));

    const json& breakers = member(body, "breakers");
    const auto breakerOf = [&breakers](const QString& adapter) -> const json& {
        static const json none;
        for (const json& breaker : breakers) {
            if (text(breaker, "adapter") == adapter)
                return breaker;
        }
        return none;
    };
    QList<QStringList> adapterRows;
    for (const json& adapter : member(body, "adapters")) {
        const QString name = text(adapter, "name");
        const json& breaker = breakerOf(name);
        QString connection = printable(text(adapter, "connection"));
        if (boolean(adapter, "disabledByOperator"))
            connection = QStringLiteral("disabled by an operator");
        QString failures = QString::number(integer(breaker, "consecutiveFailures"));
        if (const qint64 threshold = integer(breaker, "failureThreshold"); threshold > 0)
            failures += QLatin1Char('/') + QString::number(threshold);
        adapterRows.append({printable(name), connection, breakerText(breaker, nowMs), failures,
            QString::number(integer(adapter, "toolCount")), printable(cut(dash(text(adapter, "lastError")), 80))});
    }
    result += QStringLiteral("adapters: %1\n").arg(adapterRows.size()).toUtf8();
    if (!adapterRows.isEmpty())
        result += table({QStringLiteral("NAME"), QStringLiteral("CONNECTION"), QStringLiteral("BREAKER"),
                            QStringLiteral("FAILURES"), QStringLiteral("TOOLS"), QStringLiteral("LAST ERROR")},
            adapterRows, QStringLiteral("  "));

    const json& warnings = member(body, "warnings");
    result += QStringLiteral("warnings: %1\n").arg(warnings.is_array() ? warnings.size() : 0).toUtf8();
    for (const json& warning : warnings) {
        if (warning.is_string())
            result += "  " + PrintableText::escaped(QString::fromStdString(warning.get<std::string>())) + '\n';
    }
    return {result, {}, OperatorExit::Ok};
}

OperatorPrinted grants(const OperatorInvocation& invocation, const json& body)
{
    const json& list = member(body, "grants");
    if (!list.is_array())
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("the server's answer has no \"grants\" list: is it the operator API v1?"));
    OperatorPrinted printed;
    QList<QStringList> rows;
    for (const json& grant : list) {
        if (invocation.jsonLines) {
            printed.out += jsonLine(grant);
            continue;
        }
        const QString arguments = text(grant, "arguments");
        bool wasCut = false;
        const QString preview = arguments.isEmpty()
            ? QStringLiteral("any")
            : argumentsPreview(arguments.toUtf8(), 40, &wasCut) + (wasCut ? QString(QChar(0x2026)) : QString());
        const QString client = text(grant, "clientName");
        const QString by = text(grant, "grantedBy");
        const qint64 at = integer(grant, "grantedAtMs");
        QString granted = by;
        if (at > 0)
            granted += (by.isEmpty() ? QString() : QStringLiteral(", ")) + isoTime(at);
        rows.append({printable(dash(text(grant, "id"))), printable(text(grant, "source")),
            printable(cut(text(grant, "subject"), 40)), printable(text(grant, "permission")),
            client.isEmpty() ? QStringLiteral("every client") : printable(cut(client, 30)), printable(preview),
            printable(dash(granted.isEmpty() ? text(grant, "origin") : granted))});
    }
    if (list.empty())
        printed.err = OperatorOutput::message(invocation.word, QStringLiteral("no grants or rules"));
    else if (!invocation.jsonLines)
        printed.out = table(
            {QStringLiteral("ID"), QStringLiteral("SOURCE"), QStringLiteral("SUBJECT"), QStringLiteral("PERMISSION"),
                QStringLiteral("CLIENT"), QStringLiteral("ARGUMENTS"), QStringLiteral("GRANTED OR WRITTEN IN")},
            rows);
    return printed;
}

OperatorPrinted answered(const OperatorInvocation& invocation, const json& body)
{
    const QString outcome = text(body, "outcome");
    const QString by = text(body, "by");
    QString what = QStringLiteral("answered %1 with %2").arg(printable(invocation.subject), invocation.answer);
    if (outcome == QLatin1String("stored"))
        what += QStringLiteral(": no call was waiting; the answer is kept for the client's next identical call");
    else if (outcome == QLatin1String("answered"))
        what += QStringLiteral(": the waiting call has it");
    else if (!outcome.isEmpty())
        what += QStringLiteral(" (%1)").arg(printable(outcome));
    if (!by.isEmpty())
        what += QStringLiteral(" (recorded as %1)").arg(printable(by));
    return {what.toUtf8() + '\n', {}, OperatorExit::Ok};
}

OperatorPrinted done(const OperatorInvocation& invocation, const json& body)
{
    const QString subject = printable(invocation.subject);
    QString what;
    switch (invocation.command) {
    case Command::ResetBreaker:
        what = QStringLiteral("reset the breaker of adapter %1: it is closed").arg(subject);
        break;
    case Command::OpenBreaker:
        what = QStringLiteral("forced the breaker of adapter %1 open: its calls are refused until "
                              "`switchboard breaker reset %1`")
                   .arg(subject);
        break;
    case Command::EnableAdapter:
        what = QStringLiteral("enabled adapter %1").arg(subject);
        break;
    case Command::DisableAdapter:
        what = QStringLiteral("disabled adapter %1").arg(subject);
        break;
    case Command::RevokeGrant:
        what = QStringLiteral("revoked grant %1: the calls it let through ask again").arg(subject);
        break;
    default:
        what = QStringLiteral("done");
        break;
    }
    if (const QString message = text(body, "message"); !message.isEmpty())
        what += QStringLiteral(" (%1)").arg(printable(message));
    return {what.toUtf8() + '\n', {}, OperatorExit::Ok};
}

// The server's own words for a refusal: {"error": {"code", "message"}}.
struct ServerError
{
    bool fromApi = false; // the body is the operator API's error object
    QString code;
    QString message;
};

ServerError serverError(const QByteArray& body)
{
    ServerError error;
    const json parsed = BoundedJson::parse(body, BoundedJson::Limits::message()).value;
    const json& object = member(parsed, "error");
    if (object.is_object()) {
        error.fromApi = true;
        error.code = text(object, "code");
        error.message = text(object, "message");
    }
    return error;
}

QString credentialAdvice(const AttachToken& credential)
{
    return QStringLiteral(
        "the operator API needs the operator token: set SWITCHBOARD_OPERATOR_TOKEN to the content "
        "of the server's <state-dir>/operator-token (on this machine: %1), or to the SWITCHBOARD_OPERATOR_TOKEN "
        "the server was started with")
        .arg(credential.tokenFile);
}

OperatorPrinted refused(const OperatorInvocation& invocation, const AttachTarget& target, int httpStatus,
    const QByteArray& body, const QByteArray& location)
{
    const ServerError error = serverError(body);
    const QString server = target.base.toDisplayString();
    const QString said
        = error.message.isEmpty() ? QString() : QStringLiteral(" (the server says: %1)").arg(error.message);
    const AttachToken& credential = target.credential;
    switch (httpStatus) {
    case 401: {
        const QString lower = error.message.toLower();
        if (credential.token.isEmpty())
            return failed(invocation, OperatorExit::Unreachable,
                QStringLiteral("no operator token: SWITCHBOARD_OPERATOR_TOKEN is not set and %1 %2; %3")
                    .arg(credential.tokenFile, credential.problem, credentialAdvice(credential)));
        if (credential.clientToken || lower.contains(QLatin1String("client")) || lower.contains(QLatin1String("mcp")))
            return failed(invocation, OperatorExit::Unreachable,
                QStringLiteral("the token from %1 is an MCP client token; the operator API needs the operator token "
                               "from <state-dir>/operator-token (on this machine: %2) or SWITCHBOARD_OPERATOR_TOKEN%3")
                    .arg(credential.source, credential.tokenFile, said));
        return failed(invocation, OperatorExit::Unreachable,
            QStringLiteral("%1 did not accept the operator token from %2: a wrong token (from another state directory, "
                           "or replaced when the server started anew)%3; %4")
                .arg(server, credential.source, said, credentialAdvice(credential)));
    }
    case 403:
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("not allowed: %1")
                .arg(error.message.isEmpty() ? QStringLiteral("the operator token's role may not do this")
                                             : error.message));
    case 404:
        // Not the API's answer, or the API saying the path is none of its own ("this server has no
        // operator API", "no such operator API path"): not a missing question or adapter.
        if (error.code != QLatin1String("not_found") || error.message.contains(QLatin1String("operator API")))
            return failed(invocation, OperatorExit::Unreachable,
                QStringLiteral("%1 has no operator API (HTTP 404 for %2%3): is it a Switchboard that serves "
                               "/operator/v1, and is %4 its URL?")
                    .arg(server, invocation.request.path, said, target.origin));
        switch (invocation.command) {
        case Command::Answer:
            return failed(invocation, OperatorExit::Failed,
                QStringLiteral("no question %1: answered already or never asked (switchboard questions lists those "
                               "that wait)")
                    .arg(invocation.subject));
        case Command::RevokeGrant:
            return failed(invocation, OperatorExit::Failed,
                QStringLiteral("no grant %1: revoked already or never given (switchboard grants lists them)")
                    .arg(invocation.subject));
        case Command::ResetBreaker:
        case Command::OpenBreaker:
        case Command::EnableAdapter:
        case Command::DisableAdapter:
            return failed(invocation, OperatorExit::Failed,
                QStringLiteral("no adapter named %1 (switchboard status lists them)").arg(invocation.subject));
        default:
            return failed(invocation, OperatorExit::Failed,
                error.message.isEmpty() ? QStringLiteral("not found") : error.message);
        }
    case 409:
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("refused: %1")
                .arg(error.message.isEmpty() ? QStringLiteral("the server refused the command") : error.message));
    case 503:
        return failed(invocation, OperatorExit::Unreachable,
            QStringLiteral("%1 cannot serve now%2; try again shortly").arg(server, said));
    default:
        break;
    }
    if (httpStatus >= 300 && httpStatus < 400)
        return failed(invocation, OperatorExit::Unreachable,
            QStringLiteral("%1 answered with a redirect (HTTP %2%3): give %4 the server's own URL")
                .arg(server)
                .arg(httpStatus)
                .arg(location.isEmpty() ? QString() : QStringLiteral(" to ") + QString::fromUtf8(location),
                    target.origin));
    if (!error.fromApi)
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("%1 answered HTTP %2, not as the operator API does: is it a Switchboard?")
                .arg(server)
                .arg(httpStatus));
    return failed(invocation, OperatorExit::Failed,
        QStringLiteral("the server refused (HTTP %1%2): %3")
            .arg(httpStatus)
            .arg(error.code.isEmpty() ? QString() : QStringLiteral(", ") + error.code,
                error.message.isEmpty() ? QStringLiteral("no reason given") : error.message));
}

} // namespace

std::optional<QString> OperatorOutput::connectProvider(const QByteArray& questionsBody, const QString& id)
{
    const json body = BoundedJson::parse(questionsBody, BoundedJson::Limits::record()).value;
    for (const json& question : member(body, "questions")) {
        if (text(question, "id") != id)
            continue;
        const QByteArray spec = text(question, "renderSpec").toUtf8();
        return text(BoundedJson::parse(spec, BoundedJson::Limits::record()).value, "provider");
    }
    return std::nullopt;
}

QByteArray OperatorOutput::message(const QString& word, const QString& text)
{
    return "switchboard " + word.toUtf8() + ": " + PrintableText::escaped(text) + '\n';
}

OperatorPrinted OperatorOutput::reply(const OperatorInvocation& invocation, const AttachTarget& target, int httpStatus,
    const QByteArray& body, qint64 nowMs, const QByteArray& location)
{
    if (httpStatus < 200 || httpStatus >= 300)
        return refused(invocation, target, httpStatus, body, location);
    const BoundedJson::Result<json> parsed = BoundedJson::parse(body, BoundedJson::Limits::record());
    if (!parsed.ok || !parsed.value.is_object())
        return failed(invocation, OperatorExit::Failed,
            QStringLiteral("the answer of %1 is not a JSON object (%2): is it a Switchboard's operator API?")
                .arg(target.base.toDisplayString(),
                    parsed.ok ? QStringLiteral("another JSON value") : QString::fromStdString(parsed.error)));
    const json& value = parsed.value;
    switch (invocation.command) {
    case Command::Questions:
        return questions(invocation, value, nowMs);
    case Command::History:
        return history(invocation, value);
    case Command::Status:
        return status(invocation, value, nowMs);
    case Command::Grants:
        return grants(invocation, value);
    case Command::Answer:
        return answered(invocation, value);
    case Command::RevokeGrant:
    case Command::ResetBreaker:
    case Command::OpenBreaker:
    case Command::EnableAdapter:
    case Command::DisableAdapter:
        break;
    }
    return done(invocation, value);
}

OperatorPrinted OperatorOutput::unreached(
    const OperatorInvocation& invocation, const AttachTarget& target, Unreached why, const QString& detail)
{
    const QString server = target.base.toDisplayString();
    QString text;
    switch (why) {
    case Unreached::Refused:
        text = QStringLiteral("no Switchboard answers at %1: is it running? (the URL is from %2)")
                   .arg(server, target.origin);
        break;
    case Unreached::HostNotFound:
        text = QStringLiteral("cannot find the host %1 (the URL %2 is from %3)")
                   .arg(target.base.host(), server, target.origin);
        break;
    case Unreached::TimedOut:
        text = QStringLiteral("no answer from %1 within %2 s (--timeout)")
                   .arg(server)
                   .arg(double(invocation.timeoutMs) / 1000.0);
        break;
    case Unreached::Closed:
        text = QStringLiteral("%1 closed the connection without an answer (%2)").arg(server, detail);
        break;
    case Unreached::Tls:
        text = QStringLiteral("TLS with %1 failed: %2").arg(server, detail);
        break;
    case Unreached::TooLarge:
        text = QStringLiteral("the answer of %1 is larger than the operator API ever sends (%2)").arg(server, detail);
        break;
    case Unreached::Other:
        text = QStringLiteral("cannot reach %1: %2").arg(server, detail);
        break;
    }
    return failed(invocation, OperatorExit::Unreachable, text);
}
