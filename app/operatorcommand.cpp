#include "operatorcommand.h"

#include "commandline.h"
#include "config/switchboardconfig.h"
#include "operatorinvocation.h"
#include "operatoroutput.h"
#include "remoteoperator.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

using nlohmann::json;
using Unreached = OperatorOutput::Unreached;

namespace {

// No answer of the operator API comes near this (history's largest page is 1,000 previews of 4 KiB);
// more is not a Switchboard, and is not read.
constexpr qint64 MaxAnswerBytes = qint64(256) * 1024 * 1024;
// An API key, a token: far below this.
constexpr qsizetype MaxSecretBytes = 64 * 1024;
constexpr qsizetype MaxTokenFileBytes = 4096;

// A token file's content, trimmed; empty with `problem` when it gives none.
QByteArray readTokenFile(const QString& path, QString* problem)
{
    QFile file(path);
    if (!file.exists()) {
        *problem = QStringLiteral("does not exist");
        return {};
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("cannot be read (%1)").arg(file.errorString());
        return {};
    }
    const QByteArray token = file.read(MaxTokenFileBytes).trimmed();
    if (token.isEmpty())
        *problem = QStringLiteral("is empty");
    return token;
}

// The operator token: SWITCHBOARD_OPERATOR_TOKEN, else <state-dir>/operator-token. Whether it is an
// MCP client's token instead is told by the prefixes Switchboard gives the tokens it makes (sbc_ a
// named client token, sb_ the shared one; sbop_ is the operator's) and by the client tokens of the
// same environment and state directory.
AttachToken findToken(const OperatorInvocation& invocation, const OperatorCommand::Environment& environment)
{
    const QString directory
        = invocation.stateDirectory.isEmpty() ? CommandLine::defaultStateDirectory() : invocation.stateDirectory;
    AttachToken found;
    found.tokenFile = QDir(directory).filePath(QStringLiteral("operator-token"));
    if (const QByteArray variable = environment.operatorToken.trimmed(); !variable.isEmpty()) {
        found.token = variable;
        found.source = QStringLiteral("SWITCHBOARD_OPERATOR_TOKEN");
    } else {
        found.token = readTokenFile(found.tokenFile, &found.problem);
        found.source = found.tokenFile;
    }
    if (found.token.isEmpty())
        return found;
    QString ignored;
    const QByteArray localClientToken = readTokenFile(QDir(directory).filePath(QStringLiteral("token")), &ignored);
    found.clientToken = found.token.startsWith("sbc_")
        || (found.token.startsWith("sb_") && !found.token.startsWith("sbop_"))
        || (!environment.clientToken.trimmed().isEmpty() && found.token == environment.clientToken.trimmed())
        || (!localClientToken.isEmpty() && found.token == localClientToken);
    return found;
}

// The server: --attach, else SWITCHBOARD_ATTACH, else the configured port on this machine.
std::optional<AttachTarget> findTarget(const OperatorInvocation& invocation,
    const OperatorCommand::Environment& environment, QString* error, int* exitCode)
{
    AttachTarget target;
    QString text;
    if (!invocation.attach.isEmpty()) {
        text = invocation.attach;
        target.origin = QStringLiteral("--attach");
    } else if (!environment.attach.trimmed().isEmpty()) {
        text = environment.attach;
        target.origin = QStringLiteral("SWITCHBOARD_ATTACH");
    } else {
        const QString file = invocation.configFile.isEmpty() ? CommandLine::defaultConfigFile() : invocation.configFile;
        SwitchboardConfig configuration;
        if (!SwitchboardConfig::load(file, &configuration, error)) {
            *exitCode = OperatorExit::Failed;
            return std::nullopt;
        }
        // A server bound to every address is reached on loopback; one bound to an address, there.
        const QHostAddress bound(configuration.bindAddress);
        const bool any = bound.isNull() || bound == QHostAddress::AnyIPv4 || bound == QHostAddress::AnyIPv6
            || bound == QHostAddress::Any;
        QUrl url;
        url.setScheme(QStringLiteral("http"));
        url.setHost(any ? QStringLiteral("127.0.0.1") : configuration.bindAddress);
        url.setPort(configuration.port);
        target.base = url;
        target.origin = QFileInfo::exists(file)
            ? QStringLiteral("the port in %1").arg(file)
            : QStringLiteral("the default port (no %1; give --attach URL)").arg(file);
        target.credential = findToken(invocation, environment);
        return target;
    }
    const std::optional<QUrl> base = OperatorInvocation::baseUrl(text, error);
    if (!base) {
        *error = QStringLiteral("%1: %2").arg(target.origin, *error);
        *exitCode = OperatorExit::Usage;
        return std::nullopt;
    }
    target.base = *base;
    target.credential = findToken(invocation, environment);
    return target;
}

struct Exchange
{
    bool answered = false;
    int status = 0;
    QByteArray body;
    QByteArray location;
    Unreached why = Unreached::Other;
    QString detail;
};

Unreached unreachedFor(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return Unreached::Refused;
    case QNetworkReply::HostNotFoundError:
        return Unreached::HostNotFound;
    case QNetworkReply::TimeoutError:
        return Unreached::TimedOut;
    case QNetworkReply::RemoteHostClosedError:
        return Unreached::Closed;
    case QNetworkReply::SslHandshakeFailedError:
        return Unreached::Tls;
    default:
        return Unreached::Other;
    }
}

// Sends `request` and waits, in an event loop of its own, for the whole answer or `timeoutMs`.
Exchange exchange(const AttachTarget& target, const OperatorRequest& request, int timeoutMs)
{
    QNetworkAccessManager network;
    // A redirect would carry the token elsewhere: it is reported instead of followed.
    network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    QNetworkRequest outgoing(request.url(target.base));
    outgoing.setRawHeader("Accept", "application/json");
    outgoing.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("switchboard/" SWITCHBOARD_VERSION));
    if (!target.credential.token.isEmpty())
        outgoing.setRawHeader("Authorization", "Bearer " + target.credential.token);
    // A server with a certificate of its own (server.tls) is trusted through SWITCHBOARD_CA_FILE.
    QString caProblem;
    RemoteOperator::trust(outgoing, RemoteOperator::certificatesFromEnvironment(&caProblem));
    if (!caProblem.isEmpty())
        qWarning("switchboard: %s", qPrintable(caProblem));
    QByteArray data;
    if (request.body) {
        outgoing.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        data = QByteArray::fromStdString(request.body->dump(-1, ' ', false, json::error_handler_t::replace));
    }
    QPointer<QNetworkReply> reply = network.sendCustomRequest(outgoing, request.method, data);

    Exchange result;
    bool timedOut = false;
    bool tooLarge = false;
    QEventLoop loop;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, &loop, [&] {
        timedOut = true;
        if (reply)
            reply->abort();
    });
    QObject::connect(reply, &QNetworkReply::downloadProgress, &loop, [&](qint64 received, qint64) {
        if (received > MaxAnswerBytes && reply) {
            tooLarge = true;
            reply->abort();
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    deadline.start(timeoutMs);
    if (!reply->isFinished())
        loop.exec();
    deadline.stop();

    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (timedOut) {
        result.why = Unreached::TimedOut;
    } else if (tooLarge) {
        result.why = Unreached::TooLarge;
        result.detail = QStringLiteral("more than %1 MiB").arg(MaxAnswerBytes / (1024 * 1024));
    } else if (status.isValid()) {
        result.answered = true;
        result.status = status.toInt();
        result.body = reply->readAll();
        result.location = reply->rawHeader("Location");
    } else {
        result.why = unreachedFor(reply->error());
        result.detail = reply->errorString();
    }
    return result; // the reply goes with `network`
}

// A line typed at a terminal without echo.
std::optional<QByteArray> readHiddenLine(int timeoutMs, QString* error)
{
    std::fprintf(stderr, "API key (not shown): ");
    std::fflush(stderr);
    termios saved{};
    const bool terminal = ::tcgetattr(STDIN_FILENO, &saved) == 0;
    if (terminal) {
        termios hidden = saved;
        hidden.c_lflag &= ~tcflag_t(ECHO);
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden);
    }
    QByteArray line;
    bool ok = true;
    char c = 0;
    pollfd input{STDIN_FILENO, POLLIN, 0};
    while (line.size() <= MaxSecretBytes) {
        // A person takes their time, but not for ever: ten times --timeout, at least five minutes.
        const int ready = ::poll(&input, 1, std::max(timeoutMs * 10, 300'000));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            *error = QStringLiteral("no API key was typed");
            ok = false;
            break;
        }
        const ssize_t got = ::read(STDIN_FILENO, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || c == '\n')
            break;
        line.append(c);
    }
    if (terminal)
        ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    std::fprintf(stderr, "\n");
    if (!ok)
        return std::nullopt;
    return line;
}

// The whole of stdin, to its end.
std::optional<QByteArray> readAllInput(int timeoutMs, QString* error)
{
    QByteArray text;
    char buffer[4096];
    pollfd input{STDIN_FILENO, POLLIN, 0};
    while (text.size() <= MaxSecretBytes) {
        const int ready = ::poll(&input, 1, timeoutMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0) {
            *error = QStringLiteral("stdin was not closed within %1 s: pipe the API key in and close stdin")
                         .arg(double(timeoutMs) / 1000.0);
            return std::nullopt;
        }
        const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (got == 0)
            break;
        if (got < 0) {
            if (errno == EINTR)
                continue;
            *error = QStringLiteral("cannot read stdin: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
            return std::nullopt;
        }
        text.append(buffer, qsizetype(got));
    }
    return text;
}

} // namespace

OperatorCommand::Environment OperatorCommand::Environment::fromProcess()
{
    Environment environment;
    environment.attach = qEnvironmentVariable("SWITCHBOARD_ATTACH");
    environment.operatorToken = qgetenv("SWITCHBOARD_OPERATOR_TOKEN");
    environment.clientToken = qgetenv("SWITCHBOARD_TOKEN");
    environment.readSecret = [](int timeoutMs, QString* error) {
        return ::isatty(STDIN_FILENO) ? readHiddenLine(timeoutMs, error) : readAllInput(timeoutMs, error);
    };
    return environment;
}

bool OperatorCommand::isCommand(const char* word)
{
    return word && OperatorInvocation::isCommand(QString::fromLocal8Bit(word));
}

int OperatorCommand::run(const QStringList& arguments, const Environment& environment, QByteArray* out, QByteArray* err)
{
    const QString word = arguments.value(1);
    QString helpText;
    QString error;
    std::optional<OperatorInvocation> invocation = OperatorInvocation::parse(arguments, &helpText, &error);
    if (!invocation) {
        if (!helpText.isEmpty()) {
            *out += helpText.toUtf8();
            return OperatorExit::Ok;
        }
        *err += OperatorOutput::message(word, error);
        return OperatorExit::Usage;
    }

    int failure = OperatorExit::Failed;
    const std::optional<AttachTarget> target = findTarget(*invocation, environment, &error, &failure);
    if (!target) {
        *err += OperatorOutput::message(word, error);
        return failure;
    }

    if (invocation->readsApiKey && !invocation->request.body->contains("provider")) {
        // The API takes the provider with the key; the question names it.
        OperatorRequest questions;
        questions.method = "GET";
        questions.path = QStringLiteral("/operator/v1/questions");
        const Exchange listed = exchange(*target, questions, invocation->timeoutMs);
        if (!listed.answered || listed.status != 200) {
            const OperatorPrinted printed = listed.answered
                ? OperatorOutput::reply(*invocation, *target, listed.status, listed.body, 0, listed.location)
                : OperatorOutput::unreached(*invocation, *target, listed.why, listed.detail);
            *err += printed.err;
            return printed.exitCode;
        }
        const std::optional<QString> provider = OperatorOutput::connectProvider(listed.body, invocation->subject);
        if (!provider) {
            const OperatorPrinted printed = OperatorOutput::reply(*invocation, *target, 404,
                QByteArrayLiteral(R"({"error": {"code": "not_found", "message": "no such question"}})"), 0);
            *err += printed.err;
            return printed.exitCode;
        }
        if (provider->isEmpty()) {
            *err += OperatorOutput::message(word,
                QStringLiteral("question %1 names no provider: say which with --provider").arg(invocation->subject));
            return OperatorExit::Usage;
        }
        (*invocation->request.body)["provider"] = provider->toStdString();
    }

    if (invocation->readsApiKey) {
        if (!environment.readSecret) {
            *err += OperatorOutput::message(word, QStringLiteral("connect reads the API key from stdin"));
            return OperatorExit::Usage;
        }
        std::optional<QByteArray> key = environment.readSecret(invocation->timeoutMs, &error);
        if (!key) {
            *err += OperatorOutput::message(word, error);
            return OperatorExit::Usage;
        }
        const QByteArray trimmed = key->trimmed();
        if (trimmed.isEmpty()) {
            *err += OperatorOutput::message(word,
                QStringLiteral("connect reads the API key from stdin, and stdin held none: pipe it in "
                               "(e.g. switchboard answer ID connect < key-file)"));
            return OperatorExit::Usage;
        }
        if (trimmed.size() > MaxSecretBytes) {
            *err += OperatorOutput::message(
                word, QStringLiteral("the API key on stdin is longer than %1 KiB").arg(MaxSecretBytes / 1024));
            return OperatorExit::Usage;
        }
        (*invocation->request.body)["apiKey"] = trimmed.toStdString();
    }

    // A token over plain HTTP to another machine can be read on the way.
    const QHostAddress host(target->base.host());
    if (target->base.scheme() == QLatin1String("http") && !target->credential.token.isEmpty()
        && !(host.isLoopback() || target->base.host() == QLatin1String("localhost")))
        *err += OperatorOutput::message(word,
            QStringLiteral("warning: the operator token goes to %1 unencrypted (http); configure TLS on the server "
                           "and attach with https")
                .arg(target->base.host()));

    const Exchange exchanged = exchange(*target, invocation->request, invocation->timeoutMs);
    const OperatorPrinted printed = exchanged.answered
        ? OperatorOutput::reply(*invocation, *target, exchanged.status, exchanged.body,
            QDateTime::currentMSecsSinceEpoch(), exchanged.location)
        : OperatorOutput::unreached(*invocation, *target, exchanged.why, exchanged.detail);
    *out += printed.out;
    *err += printed.err;
    return printed.exitCode;
}

int runOperatorCommand(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchboard"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SWITCHBOARD_VERSION));
    QByteArray out;
    QByteArray err;
    const int status
        = OperatorCommand::run(QCoreApplication::arguments(), OperatorCommand::Environment::fromProcess(), &out, &err);
    std::fwrite(out.constData(), 1, std::size_t(out.size()), stdout);
    std::fflush(stdout);
    std::fwrite(err.constData(), 1, std::size_t(err.size()), stderr);
    std::fflush(stderr);
    return status;
}
