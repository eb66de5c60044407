#pragma once

// WebhookSink: a sink of type `webhook`: `post` sends its payload as a JSON body to the configured
// URL with the configured headers. A 2xx answer is a success; anything else (a redirect included:
// the payload is never sent on to another address) is a tool error with the status and the start
// of the body. The answer is read up to a bound; the whole call ends after `timeout`.
//
// The URL's path and query often hold the hook's secret (Slack, Discord), and the headers hold
// tokens: results and messages name the target by scheme, host and port only, and never show a
// header.

#include "sinks/sink.h"

class WebhookSink : public Sink
{
public:
    // What is kept of an answer's body; more is read past and dropped, then the reply is aborted.
    static constexpr qint64 MaxResponseBytes = 64 * 1024;
    // How much of the body a result shows.
    static constexpr int ShownResponseChars = 1024;

    using Sink::Sink;

    std::vector<SinkOperation> operations() const override;
    // The configured timeout ends the call first, with its own message; the executor's deadline
    // is only a backstop.
    qint64 deadlineMs() const override { return qint64(m_config.timeout.count()) + 5'000; }
    ToolResult run(const QString& operation, ToolCallContext& context) const override;

    // scheme://host[:port]: the target as results show it.
    QString target() const;

private:
};
