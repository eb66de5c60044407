#pragma once

// SessionKind: what kind of session a call came in, read from the session's id: a client's HTTP
// session, a caller inside the process (the one-shot runner), or one stateless (2026-07-28)
// request. Local and request sessions end with their process or their request, so nothing can be
// granted to them for later calls. The transport names sessions so (SessionHost, McpHttpServer);
// the interaction layer below it reads the kind without knowing the transport.

#include <QByteArray>
#include <QString>

enum class SessionKind {
    Client, // an HTTP session a client opened (2025 protocol eras)
    Local, // a session for a caller inside the process (SessionHost::openLocalSession)
    Request, // the session of one stateless (2026-07-28) request
};

SessionKind sessionKindOf(const QString& sessionId);
// A new id for a session of `kind` (Local or Request); `random` is the caller's random part.
QByteArray sessionIdOf(SessionKind kind, const QByteArray& random);
