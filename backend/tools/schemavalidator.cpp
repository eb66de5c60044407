#include "tools/schemavalidator.h"

#include <QRegularExpression>

#include <cmath>

using nlohmann::json;

namespace {

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

class Validator
{
public:
    explicit Validator(int maxErrors)
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
                Validator probe(1);
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

QStringList SchemaValidator::validate(const json& value, const json& schema, int maxErrors)
{
    Validator validator(maxErrors);
    validator.check(value, schema, Path());
    return validator.errors();
}
