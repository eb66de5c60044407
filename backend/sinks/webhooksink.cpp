#include "sinks/webhooksink.h"

#include "sinks/sinkresult.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

using nlohmann::json;

namespace {

constexpr int CancellationCheckMs = 100;

} // namespace

QString WebhookSink::target() const
{
    return m_config.url.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

std::vector<SinkOperation> WebhookSink::operations() const
{
    SinkOperation post = operation(QStringLiteral("post"), QStringLiteral("Post to a webhook"),
        QStringLiteral("Sends payload as a JSON body (HTTP POST) to the webhook at %1. Fails with the HTTP status and "
                       "the start of the answer unless the webhook answers 2xx. At most %2 bytes of JSON; gives up "
                       "after %3 seconds.")
            .arg(target())
            .arg(m_config.maxBytes)
            .arg(double(m_config.timeout.count()) / 1000));
    // Any JSON value: an empty schema would do, but a described property helps a model.
    post.inputSchema = json{{"type", "object"},
        {"properties", {{"payload", {{"description", "The JSON body to send: an object, array, string, number, …"}}}}},
        {"required", {"payload"}}, {"additionalProperties", false}};
    post.resultFields = json{{"target", {{"type", "string"}}}, {"http_status", {{"type", "integer"}}},
        {"bytes", {{"type", "integer"}}}, {"response", {{"type", "string"}}},
        {"response_truncated", {{"type", "boolean"}}}};
    post.openWorld = true;
    return {post};
}

// Why blocking work on an executor worker rather than a backend-thread handler with the backend's
// QNetworkAccessManager: the executor then bounds how many posts run at once (the "sinks" group),
// keeps the queue bounded and applies the deadline as it does for every other blocking tool, and
// nothing here has to live on the backend thread or outlive the registry that made the tool. The
// price is a worker per post in flight, for at most `timeout`. The manager and the event loop are
// made on the worker and die with the call; the loop wakes every 100 ms to see the cancellation
// token (ToolCallContext's cancellation handler runs on the backend thread, where this reply does
// not live, so it could not abort it safely).
ToolResult WebhookSink::run(const QString& operation, ToolCallContext& context) const
{
    const auto failure = [&](const QString& message, json fields = json::object()) {
        fields["target"] = target().toStdString();
        return SinkResult::failure(m_config.name, operation, message, std::move(fields));
    };
    const QByteArray body = QByteArray::fromStdString(
        context.arguments().at("payload").dump(-1, ' ', false, json::error_handler_t::replace));
    if (body.size() > m_config.maxBytes)
        return failure(QStringLiteral("the payload is %1 bytes as JSON; this webhook takes at most %2 bytes.")
                           .arg(body.size())
                           .arg(m_config.maxBytes));
    if (context.isCancelled())
        return failure(QStringLiteral("the call was cancelled; nothing was sent."));

    QEventLoop loop; // first: it gives this worker thread the event dispatcher the rest needs
    QNetworkAccessManager network;
    // A redirect is an answer like any other: following it would send the payload somewhere the
    // operator did not configure.
    network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    QNetworkRequest request(m_config.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("switchboard-sink"));
    for (const auto& [header, value] : m_config.headers)
        request.setRawHeader(header, value);
    QNetworkReply* reply = network.post(request, body);

    enum class Stop { None, Cancelled, TimedOut, Truncated };
    Stop stop = Stop::None;
    QByteArray response;
    QObject::connect(reply, &QNetworkReply::readyRead, reply, [&] {
        const QByteArray chunk = reply->readAll();
        response.append(chunk.left(MaxResponseBytes - response.size()));
        // Enough to show; the rest of a large answer is not worth the wait.
        if (response.size() >= MaxResponseBytes && stop == Stop::None) {
            stop = Stop::Truncated;
            reply->abort();
        }
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QElapsedTimer clock;
    clock.start();
    QTimer tick;
    tick.setInterval(CancellationCheckMs);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        if (stop != Stop::None)
            return;
        if (context.isCancelled())
            stop = Stop::Cancelled;
        else if (clock.elapsed() >= qint64(m_config.timeout.count()))
            stop = Stop::TimedOut;
        else
            return;
        reply->abort();
    });
    tick.start();
    if (!reply->isFinished())
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    tick.stop();
    if (stop != Stop::Truncated && reply->bytesAvailable() > 0)
        response.append(reply->readAll().left(MaxResponseBytes - response.size()));

    const QVariant statusAttribute = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const int status = statusAttribute.isValid() ? statusAttribute.toInt() : 0;
    if (stop == Stop::Cancelled)
        return failure(QStringLiteral("the call was cancelled while posting to %1; the webhook may or may not have "
                                      "received the payload.")
                           .arg(target()));
    if (stop == Stop::TimedOut)
        return failure(QStringLiteral("the webhook at %1 did not answer within %2 seconds; it may or may not have "
                                      "received the payload.")
                           .arg(target())
                           .arg(double(m_config.timeout.count()) / 1000));
    if (status == 0) {
        // Qt's messages can quote the whole URL, whose path may be the hook's secret.
        QString reason = reply->errorString();
        reason.replace(m_config.url.toString(), target());
        reason.replace(QString::fromLatin1(m_config.url.toEncoded()), target());
        return failure(QStringLiteral("cannot post to the webhook at %1: %2.").arg(target(), reason));
    }

    const bool truncated = stop == Stop::Truncated;
    const QString answer = QString::fromUtf8(response);
    const bool cut = answer.size() > ShownResponseChars;
    const QString shown = cut ? QString(answer.left(ShownResponseChars) + QStringLiteral("…")) : answer;
    json fields{{"http_status", status}, {"bytes", body.size()}, {"response", shown.toStdString()},
        {"response_truncated", truncated || cut}};
    if (status < 200 || status > 299) {
        const QString reasonPhrase = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
        return failure(QStringLiteral("the webhook at %1 answered HTTP %2%3%4")
                           .arg(target())
                           .arg(status)
                           .arg(reasonPhrase.isEmpty() ? QString() : QString(QLatin1Char(' ') + reasonPhrase),
                               shown.isEmpty() ? QStringLiteral(" with an empty body.")
                                               : QString(QStringLiteral(": ") + shown.left(300))),
            std::move(fields));
    }
    fields["target"] = target().toStdString();
    return SinkResult::success(m_config.name, operation,
        QStringLiteral("Posted %1 bytes to %2: HTTP %3.").arg(body.size()).arg(target()).arg(status),
        std::move(fields));
}
