#include "interaction/requeststate.h"

#include "boundedjson.h"
#include "store/workspacestatefile.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>

#include <array>

using nlohmann::json;

namespace {

constexpr int KeyBytes = 32;
constexpr QByteArray::Base64Options Base64Url = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;
// A state is a few hundred bytes; anything far larger is not one of ours, and is not parsed.
constexpr qsizetype MaxStateBytes = 16 * 1024;

QByteArray randomBytes(int count)
{
    QByteArray bytes(count, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32*>(bytes.data()), count / 4);
    return bytes;
}

} // namespace

RequestStates::RequestStates(QByteArray key, Settings settings)
    : m_key(std::move(key))
    , m_settings(std::move(settings))
{}

std::optional<RequestStates> RequestStates::open(const QString& keyPath, Settings settings, QString* error)
{
    if (keyPath.isEmpty())
        return RequestStates(randomBytes(KeyBytes), std::move(settings));
    QByteArray contents;
    QString problem;
    const auto status = WorkspaceStateFile::read(keyPath, 1024, &contents, &problem);
    if (status == WorkspaceStateFile::ReadStatus::Unreadable) {
        *error = QStringLiteral("the request-state key %1 cannot be read: %2").arg(keyPath, problem);
        return std::nullopt;
    }
    if (status == WorkspaceStateFile::ReadStatus::Missing) {
        // Written atomically and owner-only; a process that raced this one to it wins, and both use
        // what is on disk afterwards.
        if (!WorkspaceStateFile::write(keyPath, randomBytes(KeyBytes).toBase64() + '\n', &problem)) {
            *error = QStringLiteral("the request-state key %1 cannot be written: %2").arg(keyPath, problem);
            return std::nullopt;
        }
        if (WorkspaceStateFile::read(keyPath, 1024, &contents, &problem) != WorkspaceStateFile::ReadStatus::Read) {
            *error = QStringLiteral("the request-state key %1 cannot be read: %2").arg(keyPath, problem);
            return std::nullopt;
        }
    }
    const auto decoded = QByteArray::fromBase64Encoding(contents.trimmed(), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.size() != KeyBytes) {
        *error
            = QStringLiteral("%1 is not a request-state key (%2 random bytes in Base64); remove it to make a new one, "
                             "which ends every input_required round in progress")
                  .arg(keyPath)
                  .arg(KeyBytes);
        return std::nullopt;
    }
    return RequestStates(decoded.decoded, std::move(settings));
}

QByteArray RequestStates::digestOf(const json& arguments)
{
    // nlohmann's object keys are sorted: the same arguments give the same text in any key order.
    return QCryptographicHash::hash(QByteArray::fromStdString(arguments.dump()), QCryptographicHash::Sha256).toHex();
}

qint64 RequestStates::now() const
{
    return m_settings.clock ? m_settings.clock() : QDateTime::currentMSecsSinceEpoch();
}

QByteArray RequestStates::mac(const QByteArray& payload) const
{
    return QMessageAuthenticationCode::hash(payload, m_key, QCryptographicHash::Sha256);
}

QByteArray RequestStates::issue(Claims claims)
{
    forgetExpired();
    if (m_answered.size() >= m_settings.maxRemembered)
        return {};
    claims.nonce = QString::fromLatin1(randomBytes(16).toHex());
    claims.expiresAtMs = now() + m_settings.lifetimeMs;
    json keys = json::array();
    for (const QString& key : std::as_const(claims.keys))
        keys.push_back(key.toStdString());
    const json payload{{"v", 1}, {"sub", claims.identity.toStdString()}, {"tool", claims.tool.toStdString()},
        {"args", claims.argumentsDigest.toStdString()}, {"exp", claims.expiresAtMs}, {"round", claims.round},
        {"call", claims.callId}, {"keys", std::move(keys)}, {"nonce", claims.nonce.toStdString()}};
    const QByteArray body = QByteArray::fromStdString(payload.dump()).toBase64(Base64Url);
    return body + '.' + mac(body).toBase64(Base64Url);
}

std::variant<RequestStates::Claims, QString> RequestStates::verify(
    const QByteArray& state, const QString& identity, const QString& tool, const QByteArray& argumentsDigest)
{
    const qsizetype dot = state.indexOf('.');
    if (state.size() > MaxStateBytes || dot <= 0 || state.indexOf('.', dot + 1) >= 0)
        return QStringLiteral("requestState is not one this server gave out");
    const QByteArray body = state.left(dot);
    const auto signature
        = QByteArray::fromBase64Encoding(state.mid(dot + 1), Base64Url | QByteArray::AbortOnBase64DecodingErrors);
    // Constant time, so the comparison's duration tells nothing about how much of a forgery matched.
    const QByteArray expected = mac(body);
    if (!signature || signature.decoded.size() != expected.size())
        return QStringLiteral(
            "requestState was altered: its signature does not match (send it back exactly as received)");
    unsigned difference = 0;
    for (qsizetype i = 0; i < expected.size(); ++i)
        difference |= unsigned(char(expected[i] ^ signature.decoded[i]));
    if (difference != 0)
        return QStringLiteral(
            "requestState was altered: its signature does not match (send it back exactly as received)");
    const auto decoded = QByteArray::fromBase64Encoding(body, Base64Url | QByteArray::AbortOnBase64DecodingErrors);
    const BoundedJson::Result<json> parsed
        = decoded ? BoundedJson::parse(decoded.decoded, BoundedJson::Limits::message()) : BoundedJson::Result<json>{};
    if (!parsed.ok || !parsed.value.is_object() || parsed.value.value("v", 0) != 1)
        return QStringLiteral("requestState is not one this server gave out");
    const json& payload = parsed.value;
    Claims claims;
    try {
        claims.identity = QString::fromStdString(payload.at("sub").get<std::string>());
        claims.tool = QString::fromStdString(payload.at("tool").get<std::string>());
        claims.argumentsDigest = QByteArray::fromStdString(payload.at("args").get<std::string>());
        claims.expiresAtMs = payload.at("exp").get<qint64>();
        claims.round = payload.at("round").get<int>();
        claims.callId = payload.at("call").get<qint64>();
        for (const json& key : payload.at("keys"))
            claims.keys.append(QString::fromStdString(key.get<std::string>()));
        claims.nonce = QString::fromStdString(payload.at("nonce").get<std::string>());
    } catch (const json::exception&) {
        // Signed by this server, so only a change of format gets here.
        return QStringLiteral("requestState is not one this server gave out");
    }
    if (claims.identity != identity)
        return QStringLiteral("requestState was given to another client");
    if (claims.tool != tool || claims.argumentsDigest != argumentsDigest)
        return QStringLiteral("requestState belongs to another call (%1 with other arguments): retry the same call "
                              "with the same arguments")
            .arg(claims.tool);
    if (now() >= claims.expiresAtMs)
        return QStringLiteral("requestState has expired: call the tool again without it to be asked again");
    if (m_answered.contains(claims.nonce))
        return QStringLiteral("requestState was used already: each one answers its call once");
    return claims;
}

void RequestStates::consume(const Claims& claims)
{
    forgetExpired();
    if (m_answered.contains(claims.nonce))
        return;
    m_answered.insert(claims.nonce, claims.expiresAtMs);
    m_expiries.emplace(claims.expiresAtMs, claims.nonce);
}

void RequestStates::forgetExpired()
{
    const qint64 time = now();
    while (!m_expiries.empty() && m_expiries.begin()->first <= time) {
        m_answered.remove(m_expiries.begin()->second);
        m_expiries.erase(m_expiries.begin());
    }
}
