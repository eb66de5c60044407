#pragma once

// SchemaValidator: checks tool arguments against a tool's inputSchema before the tool runs, so bad
// arguments become a tool error a model can act on rather than reaching the tool.
//
// Supports the JSON Schema keywords tool schemas use in practice: type (also as a list), enum,
// const, required, properties, additionalProperties (boolean or schema), items, minItems, maxItems,
// minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum, exclusiveMaximum, anyOf,
// allOf. Other keywords are ignored rather than rejected.

#include <QStringList>

#include <nlohmann/json.hpp>

class SchemaValidator
{
public:
    // Returns the problems found, each naming the JSON Pointer of the offending value; empty when
    // the value conforms. At most `maxErrors` are reported.
    static QStringList validate(const nlohmann::json& value, const nlohmann::json& schema, int maxErrors = 8);
};
