#include "tools/schemavalidator.h"

#include "boundedjson.h"

// valijson reports a schema it cannot use by throwing; without this it prints and aborts.
#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/constraint_builder.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <QDate>
#include <QRegularExpression>
#include <QUrl>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>

using nlohmann::json;

namespace {

// The keywords valijson reads under other names, so that no client string reaches std::regex.
constexpr const char* PatternKeyword = "x-switchboard-pattern";
constexpr const char* FormatKeyword = "x-switchboard-format";
// valijson's own multipleOf converts any number to a 64-bit integer (undefined for 1e300, which a
// client may send) and divides by the divisor as given (by zero for a schema's 0).
constexpr const char* MultipleOfKeyword = "x-switchboard-multipleOf";
constexpr int MaxSchemaDepth = 128;
// What every recursive walk here is held to: the limits of anything Switchboard parses.
constexpr BoundedJson::Limits WalkLimits = BoundedJson::Limits::record();
// patternProperties' names are the one place valijson still uses std::regex: it compiles them on
// every validation, throws (and, inside its visitor, terminates the process) on an invalid one, and
// recurses once per nesting level. They are compiled once at registration and bounded here.
constexpr std::size_t MaxPropertyPatternBytes = 1024;
constexpr int MaxPropertyPatternNesting = 32;
// libstdc++'s regex compiler reads a repetition count or a back-reference number into a long
// without a bound (`{9000000000000000000}` overflows, undefined behaviour); counts this long are
// never meant, and far shorter ones already exceed its state limit.
constexpr int MaxPropertyPatternNumberDigits = 6;

// The longest run of digits std::regex would read as a number: inside `{…}` or after a backslash.
int longestRegexNumber(const std::string& pattern)
{
    int longest = 0;
    bool escaped = false;
    bool inBraces = false;
    int run = 0;
    for (const char c : pattern) {
        const bool digit = c >= '0' && c <= '9';
        if (digit && (inBraces || escaped || run > 0)) {
            longest = std::max(longest, ++run);
            escaped = false;
            continue;
        }
        run = 0;
        if (escaped) {
            escaped = false;
        } else if (c == '\\') {
            escaped = true;
        } else if (c == '{') {
            inBraces = true;
        } else if (c == '}' || (inBraces && c != ',')) {
            inBraces = false;
        }
    }
    return longest;
}

// Why `pattern` (a patternProperties name) cannot be used, or an empty string when it can.
QString propertyPatternProblem(const std::string& pattern)
{
    if (pattern.size() > MaxPropertyPatternBytes)
        return QStringLiteral("is longer than %1 bytes").arg(MaxPropertyPatternBytes);
    int depth = 0;
    int deepest = 0;
    bool escaped = false;
    for (const char c : pattern) {
        if (escaped) {
            escaped = false;
        } else if (c == '\\') {
            escaped = true;
        } else if (c == '(' || c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ')' || c == ']' || c == '}') {
            depth = std::max(0, depth - 1);
        }
    }
    if (deepest > MaxPropertyPatternNesting)
        return QStringLiteral("nests groups deeper than %1 levels").arg(MaxPropertyPatternNesting);
    if (longestRegexNumber(pattern) > MaxPropertyPatternNumberDigits)
        return QStringLiteral("has a repetition count or back-reference longer than %1 digits")
            .arg(MaxPropertyPatternNumberDigits);
    try {
        const std::regex compiled(pattern);
    } catch (const std::regex_error& error) {
        return QStringLiteral("is not a valid regular expression (%1)").arg(QString::fromUtf8(error.what()));
    }
    return {};
}

QString typeName(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return QStringLiteral("null");
    case json::value_t::boolean:
        return QStringLiteral("boolean");
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return QStringLiteral("integer");
    case json::value_t::number_float:
        return QStringLiteral("number");
    case json::value_t::string:
        return QStringLiteral("string");
    case json::value_t::array:
        return QStringLiteral("array");
    case json::value_t::object:
        return QStringLiteral("object");
    default:
        return QStringLiteral("unknown");
    }
}

bool matchesType(const json& value, const std::string& type)
{
    if (type == "string")
        return value.is_string();
    if (type == "number")
        return value.is_number();
    if (type == "integer") {
        if (value.is_number_integer())
            return true;
        if (value.is_number_float()) {
            const double d = value.get<double>();
            return std::isfinite(d) && std::floor(d) == d;
        }
        return false;
    }
    if (type == "boolean")
        return value.is_boolean();
    if (type == "object")
        return value.is_object();
    if (type == "array")
        return value.is_array();
    if (type == "null")
        return value.is_null();
    return true; // unknown type names constrain nothing
}

QString shortJson(const json& value)
{
    auto text = QString::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
    if (text.size() > 60)
        text = text.left(57) + QStringLiteral("...");
    return text;
}

QString escapePointerToken(const std::string& token)
{
    auto text = QString::fromStdString(token);
    text.replace(QLatin1Char('~'), QStringLiteral("~0"));
    text.replace(QLatin1Char('/'), QStringLiteral("~1"));
    return text;
}

// Where a value sits in the arguments, as a chain of parents: rendered as a JSON Pointer only when
// an error is reported, so valid arguments cost no string building.
struct Path
{
    const Path* parent = nullptr;
    const std::string* key = nullptr; // an object member, or
    std::size_t index = 0; // an array element when key is null

    QString pointer() const
    {
        if (!parent)
            return {};
        return parent->pointer() + QLatin1Char('/') + (key ? escapePointerToken(*key) : QString::number(index));
    }
};

// A regular expression that valijson runs as a constraint: `pattern` on QRegularExpression, or
// `format` for date, time and date-time (other formats are annotations).
class RegexConstraint : public valijson::constraints::PolyConstraint
{
public:
    RegexConstraint(
        std::shared_ptr<const QRegularExpression> expression, std::string description, bool startsWithDate = false)
        : m_expression(std::move(expression))
        , m_description(std::move(description))
        , m_startsWithDate(startsWithDate)
    {}

    bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
        valijson::ValidationResults* results) const override
    {
        if (!m_expression || !target.isString())
            return true;
        const QString text = QString::fromStdString(target.asString());
        if (m_expression->match(text).hasMatch()
            && (!m_startsWithDate || QDate::fromString(text.left(10), Qt::ISODate).isValid()))
            return true;
        if (results)
            results->pushError(context, m_description);
        return false;
    }

private:
    valijson::constraints::Constraint* cloneInto(void* memory) const override
    {
        return new (memory) RegexConstraint(*this);
    }
    std::size_t sizeOf() const override { return sizeof(RegexConstraint); }

    std::shared_ptr<const QRegularExpression> m_expression; // shared by the clones valijson makes
    std::string m_description;
    bool m_startsWithDate = false; // a date: the day must exist in its month (no 2021-02-30)
};

// `multipleOf`: exact for an integer against an integer divisor, otherwise valijson's rule for
// numbers (the IEEE remainder within machine epsilon), for values of any size.
class MultipleOfConstraint : public valijson::constraints::PolyConstraint
{
public:
    MultipleOfConstraint(double divisor, std::int64_t integerDivisor, std::string description)
        : m_divisor(divisor)
        , m_integerDivisor(integerDivisor)
        , m_description(std::move(description))
    {}

    bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
        valijson::ValidationResults* results) const override
    {
        bool multiple = true;
        if (target.isInteger() && m_integerDivisor > 0) {
            multiple = target.getInteger() % m_integerDivisor == 0;
        } else if (target.isNumber()) {
            const double value = target.isInteger() ? double(target.getInteger()) : target.getDouble();
            multiple = value == 0
                || (std::isfinite(value)
                    && std::fabs(std::remainder(value, m_divisor)) <= std::numeric_limits<double>::epsilon());
        }
        if (!multiple && results)
            results->pushError(context, m_description);
        return multiple;
    }

private:
    valijson::constraints::Constraint* cloneInto(void* memory) const override
    {
        return new (memory) MultipleOfConstraint(*this);
    }
    std::size_t sizeOf() const override { return sizeof(MultipleOfConstraint); }

    double m_divisor;
    std::int64_t m_integerDivisor; // 0 unless the divisor is an integer
    std::string m_description;
};

class MultipleOfBuilder : public valijson::ConstraintBuilder
{
public:
    valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override
    {
        // Draft 7: "The value of multipleOf MUST be a number, strictly greater than 0."
        if (value.isInteger()) {
            const std::int64_t divisor = value.getInteger();
            if (divisor <= 0)
                throw std::runtime_error("\"multipleOf\" must be a number greater than 0");
            return new MultipleOfConstraint(
                double(divisor), divisor, "must be a multiple of " + std::to_string(divisor));
        }
        if (!value.isDouble() || !(value.getDouble() > 0) || !std::isfinite(value.getDouble()))
            throw std::runtime_error("\"multipleOf\" must be a number greater than 0");
        const double divisor = value.getDouble();
        return new MultipleOfConstraint(divisor, 0, "must be a multiple of " + json(divisor).dump());
    }
};

class PatternBuilder : public valijson::ConstraintBuilder
{
public:
    valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override
    {
        std::string source;
        if (!value.getString(source))
            throw std::runtime_error("\"pattern\" must be a string");
        auto expression = std::make_shared<QRegularExpression>(QString::fromStdString(source));
        if (!expression->isValid())
            throw std::runtime_error("\"pattern\" " + source
                + " is not a valid regular expression: " + expression->errorString().toStdString());
        return new RegexConstraint(std::move(expression), "must match the pattern " + source);
    }
};

class FormatBuilder : public valijson::ConstraintBuilder
{
public:
    valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override
    {
        std::string format;
        if (!value.getString(format))
            throw std::runtime_error("\"format\" must be a string");
        // RFC 3339, as valijson's own checks read it.
        static const QString date = QStringLiteral("([0-9]{4})-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])");
        static const QString time = QStringLiteral(
            "([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])");
        QString expression;
        if (format == "date")
            expression = QLatin1Char('^') + date + QLatin1Char('$');
        else if (format == "time")
            expression = QLatin1Char('^') + time + QLatin1Char('$');
        else if (format == "date-time")
            expression = QLatin1Char('^') + date + QStringLiteral("[Tt]") + time + QLatin1Char('$');
        else
            return new RegexConstraint(nullptr, {});
        return new RegexConstraint(
            std::make_shared<QRegularExpression>(expression), "must be a " + format + " (RFC 3339)", format != "time");
    }
};

// Keywords of drafts after 7 that valijson does not know: a schema using them would pass values
// its author meant to refuse.
const std::set<std::string>& uncheckedKeywords()
{
    static const std::set<std::string> keywords = {"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
        "unevaluatedProperties", "unevaluatedItems", "prefixItems", "dependentSchemas", "dependentRequired",
        "minContains", "maxContains", "contentSchema"};
    return keywords;
}

std::string escapeToken(const std::string& token)
{
    std::string escaped;
    for (const char c : token) {
        if (c == '~')
            escaped += "~0";
        else if (c == '/')
            escaped += "~1";
        else
            escaped += c;
    }
    return escaped;
}

QString where(const std::string& pointer)
{
    return pointer.empty() ? QStringLiteral("the schema's root") : QString::fromStdString(pointer);
}

// Walks every subschema: refuses what valijson cannot check, and renames `pattern` and `format`
// in a copy for valijson so they run on the constraints above.
class SchemaScan
{
public:
    explicit SchemaScan(const json& root)
        : m_root(root)
        , m_rewritten(root)
    {
        walk(root, std::string(), 0);
        if (problems.isEmpty())
            findEndlessRecursion();
    }

    QStringList problems;
    bool usesPatternProperties = false;
    const json& rewritten() const { return m_rewritten; }

private:
    void walk(const json& schema, const std::string& pointer, int depth)
    {
        if (!schema.is_object() || !m_visited.insert(pointer).second)
            return;
        if (depth > MaxSchemaDepth) {
            problems << QStringLiteral("%1 is nested deeper than %2 levels").arg(where(pointer)).arg(MaxSchemaDepth);
            return;
        }
        const auto child = [&](const json& value, const std::string& path) { walk(value, path, depth + 1); };
        for (auto it = schema.begin(); it != schema.end(); ++it) {
            const std::string& key = it.key();
            const std::string path = pointer + '/' + escapeToken(key);
            if (uncheckedKeywords().count(key)) {
                problems << QStringLiteral("keyword \"%1\" at %2 cannot be checked (only draft 7 keywords are)")
                                .arg(QString::fromStdString(key), where(pointer));
            } else if (key == "pattern" || key == "format" || key == "multipleOf") {
                json& rewritten = m_rewritten.at(json::json_pointer(pointer));
                rewritten[key == "pattern" ? PatternKeyword
                        : key == "format"  ? FormatKeyword
                                           : MultipleOfKeyword]
                    = *it;
                rewritten.erase(key);
            } else if (key == "$ref") {
                if (const auto target = resolve(*it, pointer)) {
                    m_sameValue[pointer].push_back(*target);
                    walk(m_root.at(json::json_pointer(*target)), *target, depth + 1);
                }
            } else if (key == "patternProperties") {
                usesPatternProperties = true;
                if (it->is_object()) {
                    for (auto sub = it->begin(); sub != it->end(); ++sub) {
                        if (const QString problem = propertyPatternProblem(sub.key()); !problem.isEmpty()) {
                            problems << QStringLiteral("the patternProperties name at %1 %2")
                                            .arg(QString::fromStdString(path + '/' + escapeToken(sub.key())), problem);
                        }
                        child(*sub, path + '/' + escapeToken(sub.key()));
                    }
                }
            } else if (key == "properties" || key == "definitions" || key == "$defs" || key == "dependencies") {
                if (it->is_object()) {
                    for (auto sub = it->begin(); sub != it->end(); ++sub) {
                        const std::string subPath = path + '/' + escapeToken(sub.key());
                        if (key == "dependencies" && sub->is_object())
                            m_sameValue[pointer].push_back(subPath);
                        child(*sub, subPath);
                    }
                }
            } else if (key == "allOf" || key == "anyOf" || key == "oneOf" || (key == "items" && it->is_array())) {
                if (it->is_array()) {
                    for (std::size_t i = 0; i < it->size(); ++i) {
                        const std::string subPath = path + '/' + std::to_string(i);
                        if (key != "items")
                            m_sameValue[pointer].push_back(subPath);
                        child((*it)[i], subPath);
                    }
                }
            } else if (key == "items" || key == "additionalItems" || key == "additionalProperties" || key == "contains"
                || key == "propertyNames" || key == "if" || key == "then" || key == "else" || key == "not") {
                if (key == "if" || key == "then" || key == "else" || key == "not")
                    m_sameValue[pointer].push_back(path);
                child(*it, path);
            }
        }
    }

    // The pointer a local $ref names, or nothing (with a problem noted) when it names none.
    std::optional<std::string> resolve(const json& reference, const std::string& from)
    {
        if (!reference.is_string()) {
            problems << QStringLiteral("$ref at %1 must be a string").arg(where(from));
            return std::nullopt;
        }
        const auto& text = reference.get_ref<const std::string&>();
        if (text.empty() || text[0] != '#') {
            problems << QStringLiteral("$ref \"%1\" at %2 refers to another document; only references within the "
                                       "schema (#/…) are supported")
                            .arg(QString::fromStdString(text), where(from));
            return std::nullopt;
        }
        const std::string pointer = QUrl::fromPercentEncoding(QByteArray::fromStdString(text.substr(1))).toStdString();
        try {
            if (!pointer.empty() && pointer[0] != '/')
                throw std::invalid_argument("not a JSON Pointer");
            (void)m_root.at(json::json_pointer(pointer));
            return pointer;
        } catch (const std::exception&) {
            problems << QStringLiteral("$ref \"%1\" at %2 points to nothing in the schema")
                            .arg(QString::fromStdString(text), where(from));
            return std::nullopt;
        }
    }

    // A $ref that leads back to where it started without descending into the value (through
    // other $refs, allOf, anyOf, oneOf, not, if/then/else or dependencies) would apply the same
    // schema to the same value forever: valijson recursed until the stack overflowed.
    void findEndlessRecursion()
    {
        std::map<std::string, int> state; // absent: not seen; 1: on the current path; 2: done
        for (const auto& [from, targets] : m_sameValue) {
            if (!state.count(from) && leadsBack(from, &state))
                return;
        }
    }

    bool leadsBack(const std::string& from, std::map<std::string, int>* state)
    {
        (*state)[from] = 1;
        if (const auto edges = m_sameValue.find(from); edges != m_sameValue.end()) {
            for (const std::string& next : edges->second) {
                const auto seen = state->find(next);
                if (seen != state->end() && seen->second == 1) {
                    problems << QStringLiteral("$ref at %1 leads back to itself without descending into the value")
                                    .arg(where(from));
                    return true;
                }
                if (seen == state->end() && leadsBack(next, state))
                    return true;
            }
        }
        (*state)[from] = 2;
        return false;
    }

    const json& m_root;
    json m_rewritten;
    std::set<std::string> m_visited;
    // Schema locations that apply to the same value as another (allOf/…, not, $ref, …).
    std::map<std::string, std::vector<std::string>> m_sameValue;
};

// Draft 6 and later count 2.0 as an integer; valijson 1.0 does not. Numerically equal values are
// equal for every keyword, so checking a copy with such floats as integers changes nothing else.
bool hasIntegralFloat(const json& value)
{
    if (value.is_number_float()) {
        const double d = value.get<double>();
        return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15;
    }
    if (value.is_structured()) {
        for (const auto& item : value) {
            if (hasIntegralFloat(item))
                return true;
        }
    }
    return false;
}

json withIntegralFloatsAsIntegers(const json& value)
{
    if (value.is_number_float() && hasIntegralFloat(value))
        return json(static_cast<std::int64_t>(value.get<double>()));
    if (value.is_object()) {
        json copy = json::object();
        for (auto it = value.begin(); it != value.end(); ++it)
            copy[it.key()] = withIntegralFloatsAsIntegers(it.value());
        return copy;
    }
    if (value.is_array()) {
        json copy = json::array();
        for (const auto& item : value)
            copy.push_back(withIntegralFloatsAsIntegers(item));
        return copy;
    }
    return value;
}

// The first property name, anywhere in `value`, too long to match against patternProperties.
const json* overlongPropertyName(const json& value, std::string* name)
{
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (it.key().size() > SchemaValidator::MaxPatternPropertyNameBytes) {
                *name = it.key();
                return &value;
            }
            if (const json* found = overlongPropertyName(it.value(), name))
                return found;
        }
    } else if (value.is_array()) {
        for (const auto& item : value) {
            if (const json* found = overlongPropertyName(item, name))
                return found;
        }
    }
    return nullptr;
}

// valijson names where a value sits as "<root>", "[name]", "[0]"; a model reads JSON Pointers.
QString pointerFromContext(const std::vector<std::string>& context)
{
    QString pointer;
    for (const auto& element : context) {
        if (element == "<root>")
            continue;
        std::string token = element;
        if (token.size() >= 2 && token.front() == '[' && token.back() == ']')
            token = token.substr(1, token.size() - 2);
        pointer += QLatin1Char('/') + escapePointerToken(token);
    }
    return pointer;
}

class Explainer
{
public:
    explicit Explainer(int maxErrors)
        : m_maxErrors(maxErrors)
    {}

    void check(const json& value, const json& schema, const Path& path)
    {
        if (full())
            return;
        if (schema.is_boolean()) {
            if (!schema.get<bool>())
                add(path, QStringLiteral("no value is allowed here"));
            return;
        }
        if (!schema.is_object())
            return;

        if (const auto it = schema.find("type"); it != schema.end()) {
            bool ok = false;
            QStringList names;
            if (it->is_string()) {
                ok = matchesType(value, it->get<std::string>());
                names << QString::fromStdString(it->get<std::string>());
            } else if (it->is_array()) {
                for (const auto& t : *it) {
                    if (!t.is_string())
                        continue;
                    names << QString::fromStdString(t.get<std::string>());
                    ok = ok || matchesType(value, t.get<std::string>());
                }
            } else {
                ok = true;
            }
            if (!ok) {
                add(path,
                    QStringLiteral("expected %1, got %2").arg(names.join(QStringLiteral(" or ")), typeName(value)));
                return; // the remaining keywords would only repeat the type mismatch
            }
        }
        if (const auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
            bool found = false;
            for (const auto& allowed : *it)
                found = found || allowed == value;
            if (!found) {
                QStringList allowed;
                for (const auto& a : *it)
                    allowed << shortJson(a);
                add(path,
                    QStringLiteral("must be one of %1, got %2")
                        .arg(allowed.join(QStringLiteral(", ")), shortJson(value)));
            }
        }
        if (const auto it = schema.find("const"); it != schema.end() && *it != value)
            add(path, QStringLiteral("must be %1").arg(shortJson(*it)));

        if (value.is_object())
            checkObject(value, schema, path);
        else if (value.is_array())
            checkArray(value, schema, path);
        else if (value.is_string())
            checkString(value.get_ref<const std::string&>(), schema, path);
        else if (value.is_number())
            checkNumber(value.get<double>(), schema, path);

        if (const auto it = schema.find("allOf"); it != schema.end() && it->is_array()) {
            for (const auto& sub : *it)
                check(value, sub, path);
        }
        if (const auto it = schema.find("anyOf"); it != schema.end() && it->is_array() && !it->empty()) {
            bool any = false;
            for (const auto& sub : *it) {
                Explainer probe(1);
                probe.check(value, sub, path);
                any = any || probe.m_errors.isEmpty();
            }
            if (!any)
                add(path, QStringLiteral("does not match any of the allowed forms"));
        }
    }

    QStringList errors() const { return m_errors; }

private:
    bool full() const { return m_errors.size() >= m_maxErrors; }

    void add(const Path& path, const QString& message)
    {
        if (full())
            return;
        const QString pointer = path.pointer();
        m_errors << (pointer.isEmpty() ? QStringLiteral("arguments") : pointer) + QStringLiteral(": ") + message;
    }

    void checkObject(const json& value, const json& schema, const Path& path)
    {
        const auto properties = schema.find("properties");
        const bool hasProperties = properties != schema.end() && properties->is_object();
        if (const auto required = schema.find("required"); required != schema.end() && required->is_array()) {
            for (const auto& name : *required) {
                if (name.is_string() && !value.contains(name.get<std::string>()))
                    add(path,
                        QStringLiteral("missing required property \"%1\"")
                            .arg(QString::fromStdString(name.get<std::string>())));
            }
        }
        const auto additional = schema.find("additionalProperties");
        for (auto it = value.begin(); it != value.end(); ++it) {
            const Path childPath{&path, &it.key(), 0};
            if (hasProperties) {
                if (const auto property = properties->find(it.key()); property != properties->end()) {
                    check(it.value(), *property, childPath);
                    continue;
                }
            }
            if (additional == schema.end())
                continue;
            if (additional->is_boolean() && !additional->get<bool>())
                add(path, QStringLiteral("unexpected property \"%1\"").arg(QString::fromStdString(it.key())));
            else if (additional->is_object())
                check(it.value(), *additional, childPath);
        }
    }

    void checkArray(const json& value, const json& schema, const Path& path)
    {
        if (const auto it = schema.find("minItems");
            it != schema.end() && it->is_number_unsigned() && value.size() < it->get<std::size_t>())
            add(path, QStringLiteral("needs at least %1 items").arg(it->get<std::size_t>()));
        if (const auto it = schema.find("maxItems");
            it != schema.end() && it->is_number_unsigned() && value.size() > it->get<std::size_t>())
            add(path, QStringLiteral("allows at most %1 items").arg(it->get<std::size_t>()));
        if (const auto items = schema.find("items");
            items != schema.end() && (items->is_object() || items->is_boolean())) {
            for (std::size_t i = 0; i < value.size() && !full(); ++i)
                check(value[i], *items, Path{&path, nullptr, i});
        }
    }

    void checkString(const std::string& value, const json& schema, const Path& path)
    {
        const auto length = QString::fromStdString(value).size();
        if (const auto it = schema.find("minLength");
            it != schema.end() && it->is_number_unsigned() && std::size_t(length) < it->get<std::size_t>())
            add(path, QStringLiteral("must be at least %1 characters long").arg(it->get<std::size_t>()));
        if (const auto it = schema.find("maxLength");
            it != schema.end() && it->is_number_unsigned() && std::size_t(length) > it->get<std::size_t>())
            add(path, QStringLiteral("must be at most %1 characters long").arg(it->get<std::size_t>()));
        if (const auto it = schema.find("pattern"); it != schema.end() && it->is_string()) {
            const QRegularExpression pattern(QString::fromStdString(it->get<std::string>()));
            if (pattern.isValid() && !pattern.match(QString::fromStdString(value)).hasMatch())
                add(path,
                    QStringLiteral("must match the pattern %1").arg(QString::fromStdString(it->get<std::string>())));
        }
    }

    void checkNumber(double value, const json& schema, const Path& path)
    {
        if (const auto it = schema.find("minimum"); it != schema.end() && it->is_number() && value < it->get<double>())
            add(path, QStringLiteral("must be at least %1").arg(shortJson(*it)));
        if (const auto it = schema.find("maximum"); it != schema.end() && it->is_number() && value > it->get<double>())
            add(path, QStringLiteral("must be at most %1").arg(shortJson(*it)));
        if (const auto it = schema.find("exclusiveMinimum");
            it != schema.end() && it->is_number() && value <= it->get<double>())
            add(path, QStringLiteral("must be greater than %1").arg(shortJson(*it)));
        if (const auto it = schema.find("exclusiveMaximum");
            it != schema.end() && it->is_number() && value >= it->get<double>())
            add(path, QStringLiteral("must be less than %1").arg(shortJson(*it)));
    }

    int m_maxErrors;
    QStringList m_errors;
};

} // namespace

SchemaValidator::SchemaValidator(const json& schema)
{
    // Copying the schema, the scan and valijson's parser all recurse once per level.
    if (const std::string beyond = BoundedJson::exceeded(schema, WalkLimits); !beyond.empty()) {
        m_schemaError = QStringLiteral("the schema cannot be checked: %1").arg(QString::fromStdString(beyond));
        return;
    }
    m_schema = schema;
    if (!schema.is_object() && !schema.is_boolean()) {
        m_schemaError = QStringLiteral("a JSON schema must be an object or a boolean");
        return;
    }
    const SchemaScan scan(schema);
    if (!scan.problems.isEmpty()) {
        m_schemaError = scan.problems.join(QStringLiteral("; "));
        return;
    }
    m_usesPatternProperties = scan.usesPatternProperties;
    try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        // The parser owns and deletes its builders.
        parser.addConstraintBuilder(PatternKeyword, new PatternBuilder);
        parser.addConstraintBuilder(FormatKeyword, new FormatBuilder);
        parser.addConstraintBuilder(MultipleOfKeyword, new MultipleOfBuilder);
        auto compiled = std::make_unique<valijson::Schema>();
        const valijson::adapters::NlohmannJsonAdapter adapter(scan.rewritten());
        parser.populateSchema(adapter, *compiled);
        m_compiled = std::move(compiled);
    } catch (const std::exception& e) {
        m_schemaError = QStringLiteral("not a valid JSON schema: %1").arg(QString::fromUtf8(e.what()));
    }
}

SchemaValidator::~SchemaValidator() = default;

QStringList SchemaValidator::check(const json& value, int maxErrors) const
{
    if (!m_compiled)
        return {
            QStringLiteral("arguments: cannot be checked: the tool's inputSchema is unusable (%1)").arg(m_schemaError)};
    // valijson, the explainer and the walks below recurse once per level: a value deeper than any
    // parsed one may be (one built in code from pieces) is refused, never walked.
    if (const std::string beyond = BoundedJson::exceeded(value, WalkLimits); !beyond.empty())
        return {QStringLiteral("arguments: cannot be checked: %1").arg(QString::fromStdString(beyond))};
    if (m_usesPatternProperties) {
        std::string name;
        if (overlongPropertyName(value, &name))
            return {QStringLiteral("arguments: a property name of %1 bytes (\"%2…\") is longer than the %3 bytes "
                                   "a name matched against patternProperties may have")
                        .arg(name.size())
                        .arg(QString::fromStdString(name.substr(0, 32)))
                        .arg(MaxPatternPropertyNameBytes)};
    }
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::ValidationResults results;
    bool valid = false;
    if (hasIntegralFloat(value)) {
        const json normalised = withIntegralFloatsAsIntegers(value);
        valid = validator.validate(*m_compiled, valijson::adapters::NlohmannJsonAdapter(normalised), &results);
    } else {
        valid = validator.validate(*m_compiled, valijson::adapters::NlohmannJsonAdapter(value), &results);
    }
    if (valid)
        return {};

    // valijson decides; the explainer says it the way a model can act on (expected and got, the
    // allowed values). Where the explainer has nothing to say (oneOf, not, $ref, …), valijson's
    // own findings are reported, leaves only.
    Explainer explainer(maxErrors);
    explainer.check(value, m_schema, Path());
    QStringList errors = explainer.errors();
    if (!errors.isEmpty())
        return errors;
    valijson::ValidationResults::Error error;
    while (errors.size() < maxErrors && results.popError(error)) {
        if (error.description.rfind("Failed to validate against schema associated with", 0) == 0
            || error.description.rfind("Failed to validate item #", 0) == 0)
            continue; // a parent of a finding already reported
        const QString pointer = pointerFromContext(error.context);
        const QString line = (pointer.isEmpty() ? QStringLiteral("arguments") : pointer) + QStringLiteral(": ")
            + QString::fromStdString(error.description);
        if (!errors.contains(line))
            errors << line;
    }
    if (errors.isEmpty())
        errors << QStringLiteral("arguments: do not match the tool's inputSchema");
    return errors;
}

QStringList SchemaValidator::validate(const json& value, const json& schema, int maxErrors)
{
    return SchemaValidator(schema).check(value, maxErrors);
}
