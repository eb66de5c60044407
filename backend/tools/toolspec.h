#pragma once

// ToolSpec: what a tool advertises in tools/list: name, title, description, input and output
// schemas, annotations.

#include <QString>

#include <nlohmann/json.hpp>

struct ToolSpec
{
    // MCP tool names are short identifiers (the specification suggests 1 to 128 characters); a
    // longer one is refused when a tool is registered and when a client asks for it.
    static constexpr qsizetype MaxNameBytes = 128;

    QString name;
    QString title;
    QString description;
    nlohmann::json inputSchema = nlohmann::json::object(); // always a JSON Schema object
    nlohmann::json outputSchema; // null when the tool declares none
    nlohmann::json annotations = nlohmann::json::object(); // readOnlyHint, destructiveHint, …

    bool isReadOnly() const;

    // Whether `name` can name what owns namespaced tools (`owner.tool`: an adapter, a sink) or a
    // command tool: non-empty, at most 64 of [A-Za-z0-9_-]; no '.', which would route a name to
    // an owner. The one rule the features' configurations share (AdapterConfig, SinkConfig,
    // CommandToolConfig).
    static bool isValidOwnerName(const QString& name);

    // The tool as tools/list shows it.
    nlohmann::json toJson() const;

    // Reads a spec written by an operator or a later subsystem. Both "inputSchema" and
    // "input_schema" (and "outputSchema"/"output_schema") are accepted; a spec without a schema
    // advertises {"type": "object"}, never an empty schema. Returns false with a reason when the
    // spec is unusable.
    static bool fromJson(const nlohmann::json& value, ToolSpec* spec, QString* error);
};
