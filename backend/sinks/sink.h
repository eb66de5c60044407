#pragma once

// Sink: a place a tool call can send output to (a directory of files, a JSON-lines log, a webhook).
// Each sink offers a few operations; SinkRegistry turns each into a tool named `sinkname.op` routed
// to ToolRoute::sink(sinkname), and runs it as blocking work on the tool executor.
//
// Implementations are immutable after construction and safe to run from several workers at once.

#include "sinks/sinkconfig.h"
#include "tools/toolcallcontext.h"
#include "tools/toolresult.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <vector>

struct SinkOperation
{
    QString name; // "write", "append", "post": the part of the tool's name after the '.'
    QString title;
    QString description;
    nlohmann::json inputSchema; // the arguments, a JSON Schema object
    nlohmann::json resultFields = nlohmann::json::object(); // properties its structuredContent adds
    bool destructive = false; // replaces what was there (a file write), rather than adding to it
    bool idempotent = false;
    bool openWorld = false; // reaches beyond this machine (a webhook)
};

class Sink
{
public:
    explicit Sink(SinkConfig config)
        : m_config(std::move(config))
    {}
    virtual ~Sink() = default;

    // The configured name; its tools are `name.op`.
    QString name() const { return m_config.name; }
    // "file", "jsonl" or "webhook".
    QString kind() const { return SinkConfig::typeName(m_config.type); }
    const SinkConfig& config() const { return m_config; }

    virtual std::vector<SinkOperation> operations() const = 0;
    // How long one call may run (the executor's deadline for its tools).
    virtual qint64 deadlineMs() const = 0;
    // Runs `operation` with the context's arguments (already checked against its inputSchema) on a
    // worker of the executor. Returns a SinkResult; failures are tool errors, never exceptions.
    virtual ToolResult run(const QString& operation, ToolCallContext& context) const = 0;

protected:
    // An operation named `name`: its title names the sink, and its description opens with the
    // operator's own description of the sink, which tells a model what the sink is for.
    SinkOperation operation(const QString& name, const QString& title, const QString& description) const
    {
        SinkOperation made;
        made.name = name;
        made.title = title + QStringLiteral(" (") + m_config.name + QLatin1Char(')');
        made.description = m_config.description.isEmpty()
            ? description
            : QString(m_config.description + QLatin1Char(' ') + description);
        return made;
    }

    const SinkConfig m_config;
};
