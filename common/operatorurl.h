#pragma once

// OperatorUrl: where a Switchboard's operator API is, from what a person gives (--attach,
// SWITCHBOARD_ATTACH): the one reading the command line and an attached window share.

#include <QString>
#include <QUrl>

#include <optional>

namespace OperatorUrl {

// The API's path under the server's base.
inline const QString ApiPath = QStringLiteral("/operator/v1");

// The server's base URL from its base URL (http://host:port), its MCP URL (…/mcp) or the operator
// API's (…/operator/v1), with or without a trailing slash; a path before them (a reverse proxy's
// prefix) is kept. A missing scheme reads as http. nullopt with `error` for what cannot be a
// server's URL (not http or https, no host, a user or password, a query or fragment).
std::optional<QUrl> base(const QString& text, QString* error);

// `pathAndQuery` (e.g. "questions/ia-1/answer", "repositories?path=%2Ftmp") under the API of `base`;
// its percent-encoding is kept.
QUrl endpoint(const QUrl& base, const QString& pathAndQuery);

} // namespace OperatorUrl
