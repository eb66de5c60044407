#include "protocol/sessionkind.h"

namespace {

// HTTP sessions are named by 256 random bits (McpHttpServer): one of them starting with one of these
// prefixes is a one in 2^36 chance, and would only lose the "allow for this session" button.
constexpr QLatin1String LocalSessionPrefix("local-");
// A stateless request's session (McpHttpServer::handleModernPost).
constexpr QLatin1String RequestSessionPrefix("request-");

} // namespace

SessionKind sessionKindOf(const QString& sessionId)
{
    if (sessionId.startsWith(LocalSessionPrefix))
        return SessionKind::Local;
    if (sessionId.startsWith(RequestSessionPrefix))
        return SessionKind::Request;
    return SessionKind::Client;
}

QByteArray sessionIdOf(SessionKind kind, const QByteArray& random)
{
    switch (kind) {
    case SessionKind::Local:
        return QByteArray(LocalSessionPrefix.data(), LocalSessionPrefix.size()) + random;
    case SessionKind::Request:
        return QByteArray(RequestSessionPrefix.data(), RequestSessionPrefix.size()) + random;
    case SessionKind::Client:
        break;
    }
    return random;
}
