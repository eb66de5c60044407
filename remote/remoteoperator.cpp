#include "remoteoperator.h"

#include "boundedjson.h"
#include "operatorurl.h"

#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslConfiguration>
#include <QUrlQuery>

#include <algorithm>

using nlohmann::json;

namespace {

// Every element of `array` read as T (T::fromJson); a malformed one is left out, said once.
template<typename T>
QList<T> listOf(const json& array, const char* what)
{
    QList<T> list;
    if (!array.is_array())
        return list;
    for (const json& item : array) {
        QString problem;
        if (std::optional<T> value = T::fromJson(item, &problem))
            list.append(*value);
        else
            qWarning("switchboard: a %s from the attached backend was left out: %s", what, qPrintable(problem));
    }
    return list;
}

PendingInteractionList questionsOf(const json& array)
{
    PendingInteractionList list;
    if (!array.is_array())
        return list;
    for (const json& item : array) {
        PendingInteraction question;
        QString problem;
        if (PendingInteraction::fromJson(
                item, QStringLiteral("question"), &question, &problem, PendingInteraction::Source::Live))
            list.append(question);
        else
            qWarning("switchboard: a question from the attached backend was left out: %s", qPrintable(problem));
    }
    return list;
}

QString text(const json& object, const char* key)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get_ref<const std::string&>())
                                                 : QString();
}

json answerBody(const InteractionAnswer& answer)
{
    using Decision = InteractionAnswer::Decision;
    switch (answer.decision) {
    case Decision::AllowOnce:
        return json{{"answer", "allow_once"}};
    case Decision::AllowForSession:
        return json{{"answer", "allow_session"}};
    case Decision::AlwaysAllow:
        return json{{"answer", "always_allow"},
            {"scope", std::string(answer.everyClient ? "all" : "client") + (answer.anyArguments ? "-any" : "-args")}};
    case Decision::Deny:
        return json{{"answer", "deny"}, {"reason", answer.reason.toStdString()}};
    case Decision::Respond:
        break;
    }
    const BoundedJson::Result<json> output = BoundedJson::parse(answer.output, BoundedJson::Limits::message());
    return json{{"answer", "respond"}, {"output", output.ok ? output.value : json()}};
}

} // namespace

RemoteOperator::RemoteOperator(Settings settings, QObject* parent)
    : OperatorInterface(parent)
    , m_settings(std::move(settings))
    , m_base(baseUrl(m_settings.url.toString(), &m_urlProblem))
    , m_retryMs(m_settings.firstRetryMs)
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &RemoteOperator::openStream);
    m_silence.setSingleShot(true);
    m_silence.setInterval(m_settings.silenceMs);
    connect(&m_silence, &QTimer::timeout, this, [this] {
        streamLost(QStringLiteral("nothing came for %1 s, not even a keep-alive").arg(m_settings.silenceMs / 1000));
    });
}

RemoteOperator::~RemoteOperator()
{
    stop();
}

QUrl RemoteOperator::baseUrl(const QString& given, QString* error)
{
    QString ignored;
    return OperatorUrl::base(given, error ? error : &ignored).value_or(QUrl());
}

QList<QSslCertificate> RemoteOperator::certificatesFromEnvironment(QString* error)
{
    const QString path = qEnvironmentVariable("SWITCHBOARD_CA_FILE");
    if (path.isEmpty())
        return {};
    const QList<QSslCertificate> certificates = QSslCertificate::fromPath(path, QSsl::Pem);
    if (certificates.isEmpty())
        *error = QStringLiteral("SWITCHBOARD_CA_FILE: %1 holds no PEM certificate").arg(path);
    return certificates;
}

void RemoteOperator::trust(QNetworkRequest& request, const QList<QSslCertificate>& certificates)
{
    if (certificates.isEmpty())
        return;
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.addCaCertificates(certificates);
    request.setSslConfiguration(tls);
}

QString RemoteOperator::backendName() const
{
    return m_base.port() > 0 ? QStringLiteral("%1:%2").arg(m_base.host()).arg(m_base.port()) : m_base.host();
}

void RemoteOperator::start()
{
    m_stopped = false;
    if (!m_base.isValid()) {
        Q_EMIT backendConnectionChanged(false, m_urlProblem);
        return;
    }
    openStream();
}

void RemoteOperator::stop()
{
    m_stopped = true;
    m_retry.stop();
    m_silence.stop();
    if (QNetworkReply* stream = m_stream.data()) {
        m_stream.clear();
        stream->abort();
        stream->deleteLater();
    }
}

void RemoteOperator::openStream()
{
    if (m_stopped || m_stream)
        return;
    QNetworkRequest request(OperatorUrl::endpoint(m_base, QStringLiteral("events")));
    request.setRawHeader("Authorization", "Bearer " + m_settings.token);
    request.setRawHeader("Accept", "text/event-stream");
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    trust(request, m_settings.caCertificates);
    m_buffer.clear();
    QNetworkReply* stream = m_network.get(request);
    m_stream = stream;
    connect(stream, &QNetworkReply::readyRead, this, &RemoteOperator::readStream);
    connect(stream, &QNetworkReply::finished, this, [this, stream] {
        if (m_stream != stream) {
            stream->deleteLater();
            return;
        }
        const int status = stream->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        QString why;
        if (status == 401 || status == 403) {
            const BoundedJson::Result<json> body
                = BoundedJson::parse(stream->readAll(), BoundedJson::Limits::message());
            why = QStringLiteral("the operator token was refused (%1)")
                      .arg(body.ok ? text(body.value["error"], "message") : QString::number(status));
        } else if (stream->error() != QNetworkReply::NoError) {
            why = stream->errorString();
        } else {
            why = QStringLiteral("the backend ended the event stream (HTTP %1)").arg(status);
        }
        m_stream.clear();
        stream->deleteLater();
        streamLost(why);
    });
    m_silence.start();
}

void RemoteOperator::streamLost(const QString& why)
{
    m_silence.stop();
    if (QNetworkReply* stream = m_stream.data()) {
        m_stream.clear();
        stream->abort();
        stream->deleteLater();
    }
    const bool wasConnected = std::exchange(m_connected, false);
    if (m_stopped)
        return;
    Q_EMIT backendConnectionChanged(false,
        QStringLiteral("%1 %2: %3; trying again in %4 s")
            .arg(wasConnected ? QStringLiteral("Lost") : QStringLiteral("Cannot reach"), backendName(), why)
            .arg(m_retryMs / 1000.0, 0, 'f', 1));
    m_retry.start(m_retryMs);
    m_retryMs = std::min(m_retryMs * 2, m_settings.maxRetryMs);
}

void RemoteOperator::readStream()
{
    QNetworkReply* stream = m_stream.data();
    if (!stream)
        return;
    m_silence.start();
    if (stream->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 200)
        return; // a refusal: its body is read when it finishes
    m_buffer += stream->readAll();
    // Events end with an empty line; each is dispatched whole, then forgotten.
    qsizetype end;
    while ((end = m_buffer.indexOf("\n\n")) >= 0) {
        const QByteArray block = m_buffer.left(end);
        m_buffer.remove(0, end + 2);
        QByteArray event;
        QByteArray data;
        for (const QByteArray& line : block.split('\n')) {
            if (line.startsWith("event: "))
                event = line.mid(7);
            else if (line.startsWith("data: "))
                data += line.mid(6);
            else if (line.startsWith("id: "))
                m_lastSequence = line.mid(4).toULongLong();
        }
        if (!event.isEmpty())
            dispatch(event, data);
        if (m_stream != stream)
            return; // the stream was lost while dispatching
    }
    if (m_buffer.size() > m_settings.maxEventBytes)
        streamLost(QStringLiteral("an event larger than %1 bytes").arg(m_settings.maxEventBytes));
}

void RemoteOperator::dispatch(const QByteArray& event, const QByteArray& data)
{
    const BoundedJson::Result<json> parsed = BoundedJson::parse(data, BoundedJson::Limits::stateFile());
    if (!parsed.ok || !parsed.value.is_object()) {
        streamLost(QStringLiteral("the backend sent an event that is not JSON"));
        return;
    }
    const json& value = parsed.value;
    if (event == "state") {
        applyState(value);
        return;
    }
    if (event == "calls") {
        emitCalls(listOf<ToolCall>(value["calls"], "call"));
    } else if (event == "questions") {
        for (const json& update : value.value("updates", json::array())) {
            if (update.contains("state")) {
                PendingInteraction question;
                QString problem;
                if (PendingInteraction::fromJson(update["state"], QStringLiteral("question"), &question, &problem,
                        PendingInteraction::Source::Live)) {
                    if (update.value("raised", false))
                        Q_EMIT interactionPending(question);
                    else
                        Q_EMIT interactionChanged(question);
                }
            }
            if (update.contains("resolved")) {
                const QString outcome = text(update, "resolved");
                InteractionOutcome resolved = InteractionOutcome::Answered;
                for (const InteractionOutcome candidate : {InteractionOutcome::Answered, InteractionOutcome::Stored,
                         InteractionOutcome::Cancelled, InteractionOutcome::Timeout}) {
                    if (interactionOutcomeName(candidate) == outcome)
                        resolved = candidate;
                }
                Q_EMIT interactionResolved(text(update, "id"), resolved);
            }
        }
    } else if (event == "sessions") {
        const SessionStateList sessions = listOf<SessionState>(value["sessions"], "session");
        Q_EMIT sessionStatesChanged(sessions);
        countSessions(sessions, false);
    } else if (event == "adapters") {
        Q_EMIT adapterStatusesChanged(listOf<AdapterStatus>(value["adapters"], "adapter"));
    } else if (event == "breakers") {
        Q_EMIT breakerStatesChanged(listOf<BreakerState>(value["breakers"], "breaker"));
    } else if (event == "repositories") {
        Q_EMIT repositoryStatesChanged(listOf<RepositoryState>(value["repositories"], "repository"));
    } else if (event == "repositoryRemoved") {
        Q_EMIT repositoryRemoved(text(value, "path"));
    } else if (event == "transfers") {
        Q_EMIT transfersChanged(listOf<TransferProgress>(value["transfers"], "transfer"));
    } else if (event == "security") {
        Q_EMIT securityEventsRecorded(listOf<SecurityEvent>(value["security"], "security event"));
    } else if (event == "grants") {
        Q_EMIT grantsChanged(listOf<PermissionEntry>(value["grants"], "grant"));
    } else if (event == "tools") {
        Q_EMIT toolsChanged();
    } else if (event == "notice") {
        applyNotice(value, false);
    }
}

void RemoteOperator::applyState(const json& state)
{
    const json& server = state["server"];
    m_mcpUrl = QUrl(text(server, "mcpUrl"));
    m_secretStorage = text(server, "secretStorage");
    const auto requiresToken = server.is_object() ? server.find("requiresToken") : server.end();
    m_requiresToken = requiresToken == server.end() || !requiresToken->is_boolean() || requiresToken->get<bool>();
    m_retryMs = m_settings.firstRetryMs;
    Q_EMIT interactionsListed(questionsOf(state["questions"]));
    const SessionStateList sessions = listOf<SessionState>(state["sessions"], "session");
    Q_EMIT sessionsListed(sessions);
    countSessions(sessions, true);
    Q_EMIT adapterStatusesChanged(listOf<AdapterStatus>(state["adapters"], "adapter"));
    Q_EMIT breakerStatesChanged(listOf<BreakerState>(state["breakers"], "breaker"));
    Q_EMIT repositoryStatesChanged(listOf<RepositoryState>(state["repositories"], "repository"));
    Q_EMIT transfersChanged(listOf<TransferProgress>(state["transfers"], "transfer"));
    Q_EMIT securityEventsRecorded(listOf<SecurityEvent>(state["securityEvents"], "security event"));
    Q_EMIT grantsListed(listOf<PermissionEntry>(state["grants"], "grant"));
    emitCalls(listOf<ToolCall>(state["recentCalls"], "call"));
    Q_EMIT toolsChanged();
    // Problems and recoveries in the order they happened: the window ends showing what is so now.
    for (const json& notice : state.value("notices", json::array()))
        applyNotice(notice, true);
    const QString instance
        = QStringLiteral("%1:%2").arg(server.value("pid", qint64(0))).arg(server.value("startedAtMs", qint64(0)));
    const bool restarted = !m_serverInstance.isEmpty() && instance != m_serverInstance;
    m_serverInstance = instance;
    settleUnfinished(restarted);
    m_connected = true;
    Q_EMIT backendConnectionChanged(true, QStringLiteral("Attached to %1").arg(backendName()));
}

void RemoteOperator::applyNotice(const json& notice, bool replayed)
{
    const QString kind = text(notice, "kind");
    const QString message = text(notice, "message");
    const qint64 count = notice.is_object() ? notice.value("count", qint64(-1)) : -1;
    if (kind == QLatin1String("historyWriteFailed"))
        Q_EMIT historyWriteFailed(message);
    else if (kind == QLatin1String("historyWriteRecovered"))
        Q_EMIT historyWriteRecovered();
    else if (kind == QLatin1String("historyCallsLeftOut") && count >= 0)
        Q_EMIT historyCallsLeftOut(count);
    else if (kind == QLatin1String("workspaceStateProblem"))
        Q_EMIT workspaceStateProblem(message);
    else if (kind == QLatin1String("workspaceStateRecovered"))
        Q_EMIT workspaceStateRecovered();
    else if (replayed)
        return; // something to read once: not again at every reconnect
    else if (kind == QLatin1String("historyPruned") && count >= 0)
        Q_EMIT historyPruned(count);
    else if (kind == QLatin1String("workspaceStateNotice"))
        Q_EMIT workspaceStateNotice(message);
    else if (kind == QLatin1String("configurationReloaded"))
        Q_EMIT configurationReloaded(text(notice, "level") != QLatin1String("warning"), message);
    else
        Q_EMIT historyNotice(message);
}

void RemoteOperator::emitCalls(const ToolCallList& calls)
{
    for (const ToolCall& call : calls) {
        if (call.isFinished()) {
            m_unfinished.remove(call.id);
            continue;
        }
        m_unfinished.insert(call.id, call);
        if (m_unfinished.size() > MaxUnfinished)
            m_unfinished.erase(m_unfinished.begin());
    }
    Q_EMIT callsUpdated(calls);
}

void RemoteOperator::settleUnfinished(bool restarted)
{
    // What the state's recent calls did not settle; at most a few hundred asked, newest first.
    QList<qint64> ids = m_unfinished.keys();
    std::reverse(ids.begin(), ids.end());
    ids = ids.mid(0, 200);
    for (const qint64 id : std::as_const(ids)) {
        HistoryQuery query;
        query.callId = id;
        query.limit = 1;
        query.bodyPreviewBytes = 2048;
        send("POST", QStringLiteral("history/search"), QByteArray::fromStdString(query.toJson().dump()),
            [this, id, restarted](const Answer& answer) {
                const auto known = m_unfinished.constFind(id);
                if (!answer.ok() || known == m_unfinished.constEnd())
                    return; // settled meanwhile, or history cannot say: the next reconnect asks again
                const ToolCallList found = listOf<ToolCall>(answer.body["calls"], "call");
                ToolCall call = found.isEmpty() ? *known : found.first();
                if (!call.isFinished() && restarted) {
                    call.status = CallStatus::Cancelled;
                    call.error = QStringLiteral("%1 restarted while this call ran: it ended there").arg(backendName());
                }
                if (call.isFinished() || !found.isEmpty())
                    emitCalls({call});
            });
    }
}

void RemoteOperator::countSessions(const SessionStateList& sessions, bool whole)
{
    const qsizetype before = m_openSessions.size();
    if (whole)
        m_openSessions.clear();
    for (const SessionState& session : sessions) {
        if (session.ended)
            m_openSessions.remove(session.id);
        else
            m_openSessions.insert(session.id);
    }
    if (whole || m_openSessions.size() != before)
        Q_EMIT sessionsChanged(int(m_openSessions.size()));
}

void RemoteOperator::send(const QByteArray& method, const QString& path, const QByteArray& body, Done done)
{
    QNetworkRequest request(OperatorUrl::endpoint(m_base, path));
    request.setRawHeader("Authorization", "Bearer " + m_settings.token);
    request.setTransferTimeout(m_settings.requestTimeoutMs);
    trust(request, m_settings.caCertificates);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply* reply = m_network.sendCustomRequest(request, method, body);
    connect(reply, &QNetworkReply::finished, this, [reply, done = std::move(done)] {
        reply->deleteLater();
        Answer answer;
        answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const BoundedJson::Result<json> parsed = BoundedJson::parse(reply->readAll(), BoundedJson::Limits::stateFile());
        if (parsed.ok)
            answer.body = parsed.value;
        const bool fine = answer.status >= 200 && answer.status < 300 && parsed.ok;
        if (fine)
            answer.error.clear();
        else if (answer.status == 0)
            answer.error = reply->errorString();
        else if (const QString message = text(answer.body["error"], "message"); !message.isEmpty())
            answer.error = message;
        else
            answer.error = QStringLiteral("HTTP %1").arg(answer.status);
        done(answer);
    });
}

quint64 RemoteOperator::loadRecentCalls(int limit, qsizetype bodyPreviewBytes)
{
    HistoryQuery query;
    query.limit = std::clamp(limit, 1, 1000);
    query.bodyPreviewBytes = bodyPreviewBytes;
    return queryHistory(query);
}

quint64 RemoteOperator::queryHistory(const HistoryQuery& query)
{
    const quint64 id = m_nextRequestId++;
    HistoryQuery bounded = query;
    bounded.limit = std::clamp(query.limit, 1, 1000);
    send("POST", QStringLiteral("history/search"), QByteArray::fromStdString(bounded.toJson().dump()),
        [this, id](const Answer& answer) {
            if (!answer.ok()) {
                Q_EMIT historyNotice(
                    QStringLiteral("History of %1 could not be read: %2").arg(backendName(), answer.error));
                Q_EMIT historyLoaded(id, {}, false);
                return;
            }
            Q_EMIT historyLoaded(
                id, listOf<ToolCall>(answer.body["calls"], "call"), answer.body.value("hasMore", false));
        });
    return id;
}

quint64 RemoteOperator::countHistory(const HistoryQuery& query)
{
    const quint64 id = m_nextRequestId++;
    send("POST", QStringLiteral("history/count"), QByteArray::fromStdString(query.toJson().dump()),
        [this, id](const Answer& answer) {
            Q_EMIT historyCounted(id, answer.ok() ? answer.body.value("count", qint64(-1)) : -1);
        });
    return id;
}

void RemoteOperator::listInteractions()
{
    send("GET", QStringLiteral("questions"), {}, [this](const Answer& answer) {
        if (answer.ok())
            Q_EMIT interactionsListed(questionsOf(answer.body["questions"]));
    });
}

void RemoteOperator::answer(const QString& interactionId, const json& body)
{
    send("POST", QStringLiteral("questions/%1/answer").arg(QString::fromLatin1(QUrl::toPercentEncoding(interactionId))),
        QByteArray::fromStdString(body.dump()), [this, interactionId](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT interactionAnswerFailed(interactionId, answer.error);
        });
}

void RemoteOperator::answerInteraction(const QString& interactionId, const InteractionAnswer& decided)
{
    answer(interactionId, answerBody(decided));
}

void RemoteOperator::connectWithApiKey(
    const QString& interactionId, const QString& provider, const QString& account, const QByteArray& apiKey)
{
    const json body{{"answer", "connect"}, {"provider", provider.toStdString()}, {"account", account.toStdString()},
        {"apiKey", apiKey.toStdString()}};
    send("POST", QStringLiteral("questions/%1/answer").arg(QString::fromLatin1(QUrl::toPercentEncoding(interactionId))),
        QByteArray::fromStdString(body.dump()), [this, interactionId](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT connectFailed(interactionId, answer.error);
        });
}

void RemoteOperator::startOAuth(const QString& interactionId, const QString&, const QStringList&)
{
    Q_EMIT connectFailed(interactionId,
        QStringLiteral("An OAuth sign-in comes back to the machine %1 runs on, so it cannot start from an attached "
                       "window: connect with an API key, or sign in at a window on that machine.")
            .arg(backendName()));
}

void RemoteOperator::cancelOAuth(const QString&) {}

void RemoteOperator::adapterCommand(const QString& command, const QString& adapter, const QString& verb)
{
    send("POST", QStringLiteral("adapters/%1/%2").arg(QString::fromLatin1(QUrl::toPercentEncoding(adapter)), verb), {},
        [this, command](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(command, answer.error);
        });
}

void RemoteOperator::resetBreaker(const QString& adapter)
{
    adapterCommand(QStringLiteral("resetBreaker"), adapter, QStringLiteral("reset"));
}

void RemoteOperator::forceOpenBreaker(const QString& adapter)
{
    adapterCommand(QStringLiteral("forceOpenBreaker"), adapter, QStringLiteral("force-open"));
}

void RemoteOperator::setAdapterEnabled(const QString& adapter, bool enabled)
{
    adapterCommand(
        QStringLiteral("setAdapterEnabled"), adapter, enabled ? QStringLiteral("enable") : QStringLiteral("disable"));
}

void RemoteOperator::reloadConfiguration()
{
    send("POST", QStringLiteral("configuration/reload"), {}, [this](const Answer& answer) {
        Q_EMIT configurationReloaded(answer.ok(), answer.ok() ? text(answer.body, "message") : answer.error);
    });
}

void RemoteOperator::notOverTheApi(const QString& command, const QString& what)
{
    // Told later, as every answer is: the caller has returned before it hears.
    const QString message
        = QStringLiteral("%1 is not offered to an attached window yet: do it at a window on the machine %2 runs on.")
              .arg(what, backendName());
    QMetaObject::invokeMethod(
        this, [this, command, message] { Q_EMIT commandFailed(command, message); }, Qt::QueuedConnection);
}

void RemoteOperator::refreshRepository(const QString& path)
{
    send("POST", QStringLiteral("repositories/refresh"),
        QByteArray::fromStdString(json{{"path", path.toStdString()}}.dump()), [this](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(QStringLiteral("refreshRepository"), answer.error);
        });
}

void RemoteOperator::addRepository(const QString& path)
{
    send("POST", QStringLiteral("repositories"), QByteArray::fromStdString(json{{"path", path.toStdString()}}.dump()),
        [this](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(QStringLiteral("addRepository"), answer.error);
        });
}

void RemoteOperator::removeRepository(const QString& path)
{
    send("DELETE", QStringLiteral("repositories?path=") + QString::fromLatin1(QUrl::toPercentEncoding(path)), {},
        [this](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(QStringLiteral("removeRepository"), answer.error);
        });
}

void RemoteOperator::loadFileDiff(const QString& repositoryPath, const QString& file)
{
    send("GET",
        QStringLiteral("repositories/diff?path=%1&file=%2")
            .arg(QString::fromLatin1(QUrl::toPercentEncoding(repositoryPath)),
                QString::fromLatin1(QUrl::toPercentEncoding(file))),
        {}, [this, repositoryPath, file](const Answer& answer) {
            QString problem;
            std::optional<FileDiff> diff
                = answer.ok() ? FileDiff::fromJson(answer.body["diff"], &problem) : std::nullopt;
            if (!diff) {
                diff = FileDiff{};
                diff->repository = repositoryPath;
                diff->file = file;
                diff->error = answer.ok() ? problem : answer.error;
            }
            Q_EMIT fileDiffLoaded(*diff);
        });
}

void RemoteOperator::listGrants()
{
    send("GET", QStringLiteral("grants"), {}, [this](const Answer& answer) {
        if (answer.ok())
            Q_EMIT grantsListed(listOf<PermissionEntry>(answer.body["grants"], "grant"));
        else
            Q_EMIT commandFailed(QStringLiteral("listGrants"), answer.error);
    });
}

void RemoteOperator::revokeGrant(const QString& grantId)
{
    send("DELETE", QStringLiteral("grants/%1").arg(QString::fromLatin1(QUrl::toPercentEncoding(grantId))), {},
        [this](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(QStringLiteral("revokeGrant"), answer.error);
        });
}

void RemoteOperator::listSessions()
{
    send("GET", QStringLiteral("state"), {}, [this](const Answer& answer) {
        if (answer.ok())
            Q_EMIT sessionsListed(listOf<SessionState>(answer.body["sessions"], "session"));
    });
}

void RemoteOperator::endSession(const QString& sessionId)
{
    send("DELETE", QStringLiteral("sessions/%1").arg(QString::fromLatin1(QUrl::toPercentEncoding(sessionId))), {},
        [this](const Answer& answer) {
            if (!answer.ok())
                Q_EMIT commandFailed(QStringLiteral("endSession"), answer.error);
        });
}

quint64 RemoteOperator::callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf)
{
    const quint64 id = m_nextRequestId++;
    // The arguments go as the person typed them; text that is not JSON is refused here, as the
    // in-process backend refuses it.
    const BoundedJson::Result<json> parsed = BoundedJson::parse(
        arguments.trimmed().isEmpty() ? QByteArrayLiteral("{}") : arguments, BoundedJson::Limits::message());
    if (!parsed.ok) {
        const QString message = QStringLiteral("%1 was not called: the arguments are not valid JSON (%2)")
                                    .arg(tool, QString::fromStdString(parsed.error));
        QMetaObject::invokeMethod(
            this, [this, message] { Q_EMIT commandFailed(QStringLiteral("callTool"), message); }, Qt::QueuedConnection);
        return id;
    }
    const json body{{"tool", tool.toStdString()}, {"arguments", parsed.value}, {"replayOf", replayOf}};
    send("POST", QStringLiteral("calls"), QByteArray::fromStdString(body.dump()), [this, id](const Answer& answer) {
        if (answer.ok())
            Q_EMIT toolCallStarted(id, answer.body.value("callId", qint64(0)));
        else
            Q_EMIT commandFailed(QStringLiteral("callTool"), answer.error);
    });
    return id;
}

void RemoteOperator::listTools()
{
    send("GET", QStringLiteral("tools"), {}, [this](const Answer& answer) {
        if (answer.ok())
            Q_EMIT toolsListed(listOf<ToolInfo>(answer.body["tools"], "tool"));
    });
}

void RemoteOperator::listClientTokens()
{
    const QString problem = QStringLiteral("Client tokens are kept on the machine %1 runs on: list them there with "
                                           "`switchboard client-token list`.")
                                .arg(backendName());
    QMetaObject::invokeMethod(
        this, [this, problem] { Q_EMIT clientTokensListed({}, problem); }, Qt::QueuedConnection);
}

void RemoteOperator::issueClientToken(const QString&)
{
    notOverTheApi(QStringLiteral("issueClientToken"), QStringLiteral("Issuing a client token"));
}

void RemoteOperator::revokeClientToken(const QString&)
{
    notOverTheApi(QStringLiteral("revokeClientToken"), QStringLiteral("Revoking a client token"));
}
