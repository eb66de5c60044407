#pragma once

// CallEnvelope: what a 2026-07-28 request says of itself: its revision and W3C trace context (in
// params._meta), and whether it answers an earlier input_required result (params.inputResponses). A
// 2026 client has no session, so this is how the console tells the eras apart, shows the trace and
// groups a stateless client's calls; a 2025 request has none of it.

#include <QByteArray>
#include <QString>

struct CallEnvelope
{
    QString version; // io.modelcontextprotocol/protocolVersion; empty for a 2025 request
    QString traceparent; // W3C: version-traceid-parentid-flags
    QString tracestate;
    // The retry of an input_required call: its params carry inputResponses (and requestState).
    bool answersInput = false;

    bool isStateless() const { return !version.isEmpty(); }
    // The trace id of traceparent (32 hex digits), or empty.
    QString traceId() const;

    // Empty for a request that names no revision, and for one that does not parse (a preview cut
    // before its _meta).
    static CallEnvelope of(const QByteArray& request);
};
