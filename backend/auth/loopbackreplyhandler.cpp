#include "auth/loopbackreplyhandler.h"

#include "boundedjson.h"

#include <QHostAddress>
#include <QNetworkReply>
#include <QUrlQuery>

#include <limits>

namespace {

// A server's words in a message: one line, bounded, so a hostile body cannot flood the UI.
QString serverText(const QVariant& value)
{
    QString text = value.toString().simplified();
    if (text.size() > 200)
        text = text.left(200) + QStringLiteral("…");
    return text;
}

// A JSON value as Qt's OAuth flow takes it (what QJsonValue::toVariant gives). Recursive: the value
// comes from the bounded parser, so its depth is bounded.
QVariant variantOf(const nlohmann::json& value)
{
    switch (value.type()) {
    case nlohmann::json::value_t::boolean:
        return value.get<bool>();
    case nlohmann::json::value_t::number_integer:
        return value.get<qint64>();
    case nlohmann::json::value_t::number_unsigned:
        if (value.get<quint64>() <= quint64(std::numeric_limits<qint64>::max()))
            return value.get<qint64>();
        return value.get<double>();
    case nlohmann::json::value_t::number_float:
        return value.get<double>();
    case nlohmann::json::value_t::string:
        return QString::fromStdString(value.get<std::string>());
    case nlohmann::json::value_t::array: {
        QVariantList list;
        for (const nlohmann::json& item : value)
            list.append(variantOf(item));
        return list;
    }
    case nlohmann::json::value_t::object: {
        QVariantMap map;
        for (auto it = value.begin(); it != value.end(); ++it)
            map.insert(QString::fromStdString(it.key()), variantOf(it.value()));
        return map;
    }
    default:
        return QVariant::fromValue(nullptr);
    }
}

// RFC 6749 §5.1 says JSON; some servers (GitHub without an Accept header) answer with a form.
bool parseTokenResponse(const QByteArray& body, const QString& contentType, QVariantMap* values)
{
    const BoundedJson::Result<nlohmann::json> parsed = BoundedJson::parse(body, BoundedJson::Limits::message());
    if (parsed.ok && parsed.value.is_object()) {
        *values = variantOf(parsed.value).toMap();
        return true;
    }
    if (contentType.startsWith(QLatin1String("application/x-www-form-urlencoded"))) {
        QByteArray form = body.trimmed();
        form.replace('+', "%20"); // form encoding's space; QUrlQuery does not know it
        const QUrlQuery query(QString::fromUtf8(form));
        const auto items = query.queryItems(QUrl::FullyDecoded);
        for (const auto& [key, value] : items)
            values->insert(key, value);
        return !values->isEmpty();
    }
    return false;
}

} // namespace

LoopbackReplyHandler::LoopbackReplyHandler(QObject* parent)
    : QOAuthHttpServerReplyHandler(QHostAddress(QHostAddress::LocalHost), 0, parent)
    , m_port(port())
{}

QString LoopbackReplyHandler::callback() const
{
    if (m_port == 0)
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_port);
    // Qt 6.4 keeps the path without its leading slash (later versions keep it).
    const QString path = callbackPath();
    url.setPath(path.startsWith(QLatin1Char('/')) ? path : QLatin1Char('/') + path);
    return url.toString(QUrl::FullyEncoded);
}

void LoopbackReplyHandler::networkReplyFinished(QNetworkReply* reply)
{
    reply->deleteLater();
    if (reply->error() == QNetworkReply::OperationCanceledError)
        return; // aborted because the flow already ended

    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString contentType = reply->header(QNetworkRequest::ContentTypeHeader).toString();
    QVariantMap values;
    const bool parsed = parseTokenResponse(reply->readAll(), contentType, &values);

    if (status == 0) {
        Q_EMIT tokenRequestFailed(QStringLiteral("Could not reach the token endpoint %1: %2")
                                      .arg(reply->url().toDisplayString(QUrl::RemoveQuery), reply->errorString()));
        return;
    }
    const QString oauthError = serverText(values.value(QStringLiteral("error")));
    if (status < 200 || status > 299 || !oauthError.isEmpty()) {
        QString message = QStringLiteral("The token endpoint answered HTTP %1").arg(status);
        if (!oauthError.isEmpty()) {
            message += QStringLiteral(": ") + oauthError;
            const QString description = serverText(values.value(QStringLiteral("error_description")));
            if (!description.isEmpty())
                message += QStringLiteral(" (") + description + QLatin1Char(')');
        } else if (!parsed) {
            message += QStringLiteral(" without an OAuth error in its body");
        }
        Q_EMIT tokenRequestFailed(message);
        return;
    }
    if (!parsed) {
        Q_EMIT tokenRequestFailed(QStringLiteral("The token endpoint's answer is not JSON (Content-Type: %1)")
                                      .arg(contentType.isEmpty() ? QStringLiteral("none") : serverText(contentType)));
        return;
    }
    if (values.value(QStringLiteral("access_token")).toString().isEmpty()) {
        // Qt 6.4's flow would only log this and wait forever.
        Q_EMIT tokenRequestFailed(QStringLiteral("The token endpoint's answer has no access_token"));
        return;
    }
    Q_EMIT tokensReceived(values);
}
