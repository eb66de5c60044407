#pragma once

// SchemaValidator: checks tool arguments against a tool's inputSchema before the tool runs, so bad
// arguments become a tool error a model can act on rather than reaching the tool or a person.
//
// valijson (draft 7 semantics) decides whether a value conforms; every draft 7 assertion keyword
// is checked: type, enum, const, properties, required, additionalProperties, patternProperties,
// propertyNames, dependencies, min/maxProperties, items, additionalItems, contains, min/maxItems,
// uniqueItems, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, allOf, anyOf, oneOf, not, if/then/else, $ref within the schema
// (#, #/definitions/…, #/$defs/…). `pattern` runs on QRegularExpression (PCRE2) instead of
// valijson's std::regex, whose recursion overflows the stack on long strings. `format` is checked
// for date, time and date-time; other formats are annotations, as draft 7 allows.
//
// A schema valijson cannot honour is refused when it is compiled, never half-checked: keywords of
// later drafts it does not know ($dynamicRef, unevaluatedProperties, prefixItems, …), $ref to
// another document, a cycle of $refs, and malformed keywords. schemaError() says which and where.
//
// Messages name the argument by JSON Pointer and say what was expected ("/age: must be at least
// 0"), so a model can fix its call.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <memory>

namespace valijson {
class Schema;
}

class SchemaValidator
{
public:
    // Compiles `schema`. When it cannot be checked, isUsable() is false, schemaError() says why
    // and check() reports that instead of passing anything.
    explicit SchemaValidator(const nlohmann::json& schema);
    ~SchemaValidator();
    SchemaValidator(const SchemaValidator&) = delete;
    SchemaValidator& operator=(const SchemaValidator&) = delete;

    bool isUsable() const { return m_schemaError.isEmpty(); }
    QString schemaError() const { return m_schemaError; }

    // The problems found, each naming the JSON Pointer of the offending value; empty when the
    // value conforms. At most `maxErrors` are reported.
    QStringList check(const nlohmann::json& value, int maxErrors = 8) const;

    // Compiles `schema` and checks `value` against it, in one go.
    static QStringList validate(const nlohmann::json& value, const nlohmann::json& schema, int maxErrors = 8);

    // Property names longer than this are refused where patternProperties would match them:
    // valijson matches those with std::regex, which recurses once per character.
    static constexpr std::size_t MaxPatternPropertyNameBytes = 1024;

private:
    nlohmann::json m_schema; // as written, for messages
    std::unique_ptr<valijson::Schema> m_compiled;
    QString m_schemaError;
    bool m_usesPatternProperties = false;
};
