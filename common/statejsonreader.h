#pragma once

// StateJsonReader: reads one object of the workspace state file strictly. Every field must be there
// with the type the program writes, and no other field may be: anything else means the file is not
// what the program wrote, and the caller sets the whole file aside. Never throws (nlohmann's get<>
// and value() do on a wrong type, which aborted every start).

#include <QString>

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <string_view>

class StateJsonReader
{
public:
    // `where` names the object in messages, e.g. "pending[3]".
    StateJsonReader(const nlohmann::json& object, QString where, QString* problem)
        : m_object(object)
        , m_where(std::move(where))
        , m_problem(problem)
    {
        if (!object.is_object())
            fail(QStringLiteral("is not an object"));
    }

    bool ok() const { return m_ok; }

    // Fails unless the object has exactly these keys, and perhaps some of `optional` (fields added
    // later, which older files lack).
    StateJsonReader& keys(
        std::initializer_list<std::string_view> expected, std::initializer_list<std::string_view> optional = {})
    {
        if (!m_ok)
            return *this;
        for (auto it = m_object.begin(); it != m_object.end(); ++it) {
            const std::string& key = it.key();
            bool known = false;
            for (std::string_view name : expected)
                known = known || key == name;
            for (std::string_view name : optional)
                known = known || key == name;
            if (!known)
                return fail(QStringLiteral("has an unknown field \"%1\"").arg(QString::fromStdString(key)));
        }
        for (std::string_view name : expected) {
            if (!m_object.contains(std::string(name)))
                return fail(
                    QStringLiteral("has no field \"%1\"").arg(QLatin1String(name.data(), qsizetype(name.size()))));
        }
        return *this;
    }

    StateJsonReader& string(const char* key, QString* out)
    {
        if (const nlohmann::json* value = field(key, nlohmann::json::value_t::string, "a string"))
            *out = QString::fromStdString(value->get_ref<const std::string&>());
        return *this;
    }
    StateJsonReader& string(const char* key, QByteArray* out)
    {
        if (const nlohmann::json* value = field(key, nlohmann::json::value_t::string, "a string"))
            *out = QByteArray::fromStdString(value->get_ref<const std::string&>());
        return *this;
    }
    StateJsonReader& integer(const char* key, qint64* out)
    {
        if (!m_ok)
            return *this;
        const auto it = m_object.find(key);
        if (it == m_object.end() || !it->is_number_integer())
            return fail(QStringLiteral("\"%1\" is missing or not an integer").arg(QLatin1String(key)));
        *out = it->get<qint64>();
        return *this;
    }
    // A field that may be missing (one of keys()' `optional`): `out` is left as it is then.
    StateJsonReader& optionalBoolean(const char* key, bool* out)
    {
        return m_ok && m_object.contains(key) ? boolean(key, out) : *this;
    }
    StateJsonReader& optionalString(const char* key, QByteArray* out)
    {
        return m_ok && m_object.contains(key) ? string(key, out) : *this;
    }
    StateJsonReader& optionalString(const char* key, QString* out)
    {
        return m_ok && m_object.contains(key) ? string(key, out) : *this;
    }
    StateJsonReader& optionalInteger(const char* key, qint64* out)
    {
        return m_ok && m_object.contains(key) ? integer(key, out) : *this;
    }
    StateJsonReader& boolean(const char* key, bool* out)
    {
        if (const nlohmann::json* value = field(key, nlohmann::json::value_t::boolean, "true or false"))
            *out = value->get<bool>();
        return *this;
    }
    // The array or object at `key`, or nullptr (and failed) when it is missing or another type.
    const nlohmann::json* array(const char* key) { return field(key, nlohmann::json::value_t::array, "an array"); }
    const nlohmann::json* object(const char* key) { return field(key, nlohmann::json::value_t::object, "an object"); }
    // The same for a field that may be missing: nullptr without failing then.
    const nlohmann::json* optionalArray(const char* key)
    {
        return m_ok && m_object.contains(key) ? array(key) : nullptr;
    }

    StateJsonReader& fail(const QString& what)
    {
        if (m_ok && m_problem)
            *m_problem = m_where + QLatin1Char(' ') + what;
        m_ok = false;
        return *this;
    }

private:
    const nlohmann::json* field(const char* key, nlohmann::json::value_t type, const char* typeName)
    {
        if (!m_ok)
            return nullptr;
        const auto it = m_object.find(key);
        if (it == m_object.end() || it->type() != type) {
            fail(QStringLiteral("\"%1\" is missing or not %2").arg(QLatin1String(key), QLatin1String(typeName)));
            return nullptr;
        }
        return &*it;
    }

    const nlohmann::json& m_object;
    QString m_where;
    QString* m_problem;
    bool m_ok = true;
};
