#pragma once

// What the health dashboard shows besides calls: the MCP sessions clients hold open, and the
// requests the server refused at its door (a missing or wrong token, an Origin or Host it does not
// serve), as value types with their JSON form. BackendEvents coalesces session states per session
// id, so a busy session costs the window one update per batch; security events are kept in order,
// bounded per batch, because a client hammering the door must not grow memory without end.

#include <QList>
#include <QMetaType>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

// One client's session on the MCP server (over HTTP; the one-shot runner's in-process sessions are
// not listed: no client could be told they ended).
struct SessionState
{
    QString id; // the Mcp-Session-Id
    QString clientName;
    QString clientVersion;
    QString protocolVersion; // negotiated
    qint64 startedAtMs = 0; // ms since the Unix epoch
    qint64 lastActivityMs = 0;
    qint64 calls = 0; // tools/call requests received
    bool ended = false; // the session is gone (deleted, evicted, ended by the operator, server stopped)
    QString backend; // whose session, when a window holds several backends (FleetOperator sets it)

    QString key() const { return id; }
    nlohmann::json toJson() const;
    static std::optional<SessionState> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const SessionState&, const SessionState&) = default;
};

enum class SecurityEventKind {
    MissingToken, // no Authorization header (or not a bearer one)
    WrongToken, // a bearer token that is not the server's
    BadOrigin, // an Origin header the server does not serve (a web page of another site)
    BadHost, // a Host header that does not name this server (DNS rebinding)
};

QString securityEventKindName(SecurityEventKind kind);
std::optional<SecurityEventKind> securityEventKindFromName(const QString& name);

// A request refused at the door. `detail` never holds a token: only what the client named (its
// Origin or Host, cut to MaxDetailChars) and the request line.
struct SecurityEvent
{
    static constexpr qsizetype MaxDetailChars = 300;

    qint64 atMs = 0; // ms since the Unix epoch
    SecurityEventKind kind = SecurityEventKind::MissingToken;
    QString remoteAddress;
    QString detail;

    nlohmann::json toJson() const;
    static std::optional<SecurityEvent> fromJson(const nlohmann::json& value, QString* problem);
    friend bool operator==(const SecurityEvent&, const SecurityEvent&) = default;
};

using SessionStateList = QList<SessionState>;
using SecurityEventList = QList<SecurityEvent>;

Q_DECLARE_METATYPE(SessionState)
Q_DECLARE_METATYPE(SecurityEvent)
Q_DECLARE_METATYPE(SessionStateList)
Q_DECLARE_METATYPE(SecurityEventList)
