#include "schemaform.h"

#include "boundedjson.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <limits>

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

QString stringAt(const ordered_json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// The schema's type; of a list such as ["string", "null"], the first that is not null.
QString typeOf(const ordered_json& schema)
{
    const auto it = schema.find("type");
    if (it == schema.end())
        return {};
    if (it->is_string())
        return QString::fromStdString(it->get<std::string>());
    if (it->is_array()) {
        for (const ordered_json& type : *it) {
            if (type.is_string() && type.get<std::string>() != "null")
                return QString::fromStdString(type.get<std::string>());
        }
    }
    return {};
}

std::optional<double> numberAt(const ordered_json& schema, const char* key)
{
    const auto it = schema.find(key);
    return it != schema.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

int clampToInt(double value)
{
    return int(qBound(double(std::numeric_limits<int>::min()), value, double(std::numeric_limits<int>::max())));
}

QString enumText(const ordered_json& value)
{
    return value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString::fromStdString(value.dump());
}

// A buddy label reads "&" as a mnemonic even in plain text.
QString withoutMnemonic(QString text)
{
    return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

} // namespace

SchemaForm::SchemaForm(const ordered_json& schema, QWidget* parent)
    : QWidget(parent)
    , m_layout(new QFormLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    QStringList required;
    if (const auto it = schema.find("required"); it != schema.end() && it->is_array()) {
        for (const ordered_json& name : *it) {
            if (name.is_string())
                required.append(QString::fromStdString(name.get<std::string>()));
        }
    }
    if (const auto it = schema.find("properties"); it != schema.end() && it->is_object()) {
        for (const auto& [name, property] : it->items()) {
            const QString key = QString::fromStdString(name);
            addField(key, property.is_object() ? property : ordered_json::object(), required.contains(key));
        }
    }
}

QString SchemaForm::unsupportedReason(const ordered_json& schema)
{
    if (!schema.is_object() || typeOf(schema) != QStringLiteral("object"))
        return tr("its input is not an object with properties");
    // Keywords that combine or refer to other schemas change what the fields mean; a form of the
    // properties alone would offer what the schema forbids, or miss what it needs.
    for (const char* keyword :
        {"oneOf", "anyOf", "allOf", "not", "$ref", "if", "dependentSchemas", "dependencies", "patternProperties"}) {
        if (schema.contains(keyword))
            return tr("its schema uses \"%1\"").arg(QString::fromLatin1(keyword));
    }
    return {};
}

bool SchemaForm::hasRequiredFields() const
{
    return std::any_of(m_fields.cbegin(), m_fields.cend(), [](const Field& field) { return field.required; });
}

QWidget* SchemaForm::firstEditor() const
{
    return m_fields.isEmpty() ? nullptr : m_fields.first().editor;
}

void SchemaForm::addField(const QString& name, const ordered_json& schema, bool required)
{
    Field field;
    field.name = name;
    field.title = stringAt(schema, "title").isEmpty() ? name : stringAt(schema, "title");
    field.required = required;
    const QString description = stringAt(schema, "description");
    const QString type = typeOf(schema);
    const auto defaultValue = schema.find("default");
    const bool hasDefault = defaultValue != schema.end();

    if (const auto values = schema.find("enum"); values != schema.end() && values->is_array() && !values->empty()) {
        field.type = FieldType::Enum;
        auto* combo = new QComboBox;
        field.enumHasUnset = !required;
        if (field.enumHasUnset)
            combo->addItem(tr("(not set)"));
        field.enumValues = json::array();
        for (const ordered_json& value : *values) {
            combo->addItem(enumText(value));
            field.enumValues.push_back(BoundedJson::parse(value.dump(), BoundedJson::Limits::record()).value);
            if (hasDefault && *defaultValue == value)
                combo->setCurrentIndex(combo->count() - 1);
        }
        // A required choice without a default starts with none: the first value is not an answer
        // the person gave.
        if (required && !hasDefault) {
            combo->setPlaceholderText(tr("(choose one)"));
            combo->setCurrentIndex(-1);
        }
        field.editor = combo;
    } else if (type == QStringLiteral("string")) {
        auto* edit = new QLineEdit;
        edit->setPlaceholderText(description);
        if (const auto maxLength = numberAt(schema, "maxLength"))
            edit->setMaxLength(clampToInt(*maxLength));
        if (hasDefault && defaultValue->is_string())
            edit->setText(QString::fromStdString(defaultValue->get<std::string>()));
        field.editor = edit;
    } else if (type == QStringLiteral("integer")) {
        field.type = FieldType::Integer;
        auto* spin = new QSpinBox;
        int minimum = std::numeric_limits<int>::min();
        int maximum = std::numeric_limits<int>::max();
        if (const auto value = numberAt(schema, "minimum"))
            minimum = clampToInt(std::ceil(*value));
        if (const auto value = numberAt(schema, "exclusiveMinimum"))
            minimum = clampToInt(std::floor(*value) + 1);
        if (const auto value = numberAt(schema, "maximum"))
            maximum = clampToInt(std::floor(*value));
        if (const auto value = numberAt(schema, "exclusiveMaximum"))
            maximum = clampToInt(std::ceil(*value) - 1);
        field.numberHasUnset = !required && !(hasDefault && defaultValue->is_number());
        if (field.numberHasUnset) {
            // One step below the lowest allowed value stands for "not set" and is where it starts.
            if (minimum == std::numeric_limits<int>::min())
                ++minimum;
            spin->setRange(minimum - 1, qMax(minimum, maximum));
            spin->setSpecialValueText(tr("(not set)"));
            spin->setValue(minimum - 1);
        } else {
            spin->setRange(minimum, qMax(minimum, maximum));
            spin->setValue(hasDefault && defaultValue->is_number() ? clampToInt(defaultValue->get<double>())
                                                                   : qBound(minimum, 0, spin->maximum()));
        }
        field.editor = spin;
    } else if (type == QStringLiteral("number")) {
        field.type = FieldType::Number;
        auto* spin = new QDoubleSpinBox;
        // Three decimals unless the schema asks for finer steps.
        int decimals = 3;
        if (const auto step = numberAt(schema, "multipleOf"); step && *step > 0) {
            decimals = qBound(0, int(std::ceil(-std::log10(*step) - 1e-9)), 10);
            spin->setSingleStep(*step);
        }
        spin->setDecimals(decimals);
        double minimum = -1e15;
        double maximum = 1e15;
        if (const auto value = numberAt(schema, "minimum"))
            minimum = *value;
        if (const auto value = numberAt(schema, "maximum"))
            maximum = *value;
        field.numberHasUnset = !required && !(hasDefault && defaultValue->is_number());
        if (field.numberHasUnset) {
            spin->setRange(minimum - spin->singleStep(), qMax(minimum, maximum));
            spin->setSpecialValueText(tr("(not set)"));
            spin->setValue(spin->minimum());
        } else {
            spin->setRange(minimum, qMax(minimum, maximum));
            spin->setValue(hasDefault && defaultValue->is_number() ? defaultValue->get<double>()
                                                                   : qBound(minimum, 0.0, spin->maximum()));
        }
        field.editor = spin;
    } else if (type == QStringLiteral("boolean")) {
        field.type = FieldType::Boolean;
        auto* check = new QCheckBox;
        check->setChecked(hasDefault && defaultValue->is_boolean() && defaultValue->get<bool>());
        field.editor = check;
    } else {
        field.type = FieldType::Json;
        auto* edit = new QLineEdit;
        edit->setPlaceholderText(type == QStringLiteral("array") ? tr("JSON list, e.g. [\"a\", \"b\"]")
                : type == QStringLiteral("object")               ? tr("JSON object, e.g. {\"key\": \"value\"}")
                                                                 : tr("JSON value"));
        if (hasDefault)
            edit->setText(QString::fromStdString(defaultValue->dump()));
        field.editor = edit;
    }

    field.editor->setObjectName(QStringLiteral("field_") + name);
    // A buddy label reads "&" as a mnemonic even in plain text.
    auto* label = new QLabel(withoutMnemonic(required ? field.title + QStringLiteral(" *") : field.title));
    label->setTextFormat(Qt::PlainText);
    label->setBuddy(field.editor);
    if (!description.isEmpty()) {
        label->setToolTip(description);
        field.editor->setToolTip(description);
    }
    m_layout->addRow(label, field.editor);
    if (auto* edit = qobject_cast<QLineEdit*>(field.editor))
        connect(edit, &QLineEdit::textChanged, this, &SchemaForm::edited);
    else if (auto* combo = qobject_cast<QComboBox*>(field.editor))
        connect(combo, &QComboBox::currentIndexChanged, this, &SchemaForm::edited);
    else if (auto* spin = qobject_cast<QSpinBox*>(field.editor))
        connect(spin, &QSpinBox::valueChanged, this, &SchemaForm::edited);
    else if (auto* number = qobject_cast<QDoubleSpinBox*>(field.editor))
        connect(number, &QDoubleSpinBox::valueChanged, this, &SchemaForm::edited);
    else if (auto* check = qobject_cast<QCheckBox*>(field.editor))
        connect(check, &QCheckBox::toggled, this, &SchemaForm::edited);
    m_fields.append(field);
}

QWidget* SchemaForm::editorFor(const QString& property) const
{
    for (const Field& field : m_fields) {
        if (field.name == property)
            return field.editor;
    }
    return nullptr;
}

QStringList SchemaForm::properties() const
{
    QStringList names;
    for (const Field& field : m_fields)
        names.append(field.name);
    return names;
}

std::optional<json> SchemaForm::values(QString* problem) const
{
    json values = json::object();
    QStringList missing;
    QStringList invalid;
    for (const Field& field : std::as_const(m_fields)) {
        const std::string key = field.name.toStdString();
        switch (field.type) {
        case FieldType::String: {
            const QString text = static_cast<QLineEdit*>(field.editor)->text();
            if (!text.isEmpty())
                values[key] = text.toStdString();
            else if (field.required)
                missing.append(field.title);
            break;
        }
        case FieldType::Enum: {
            const int index = static_cast<QComboBox*>(field.editor)->currentIndex() - (field.enumHasUnset ? 1 : 0);
            if (index >= 0 && index < int(field.enumValues.size()))
                values[key] = field.enumValues.at(std::size_t(index));
            else if (field.required)
                missing.append(field.title);
            break;
        }
        case FieldType::Integer: {
            const auto* spin = static_cast<QSpinBox*>(field.editor);
            if (!field.numberHasUnset || spin->value() != spin->minimum())
                values[key] = spin->value();
            break;
        }
        case FieldType::Number: {
            const auto* spin = static_cast<QDoubleSpinBox*>(field.editor);
            if (!field.numberHasUnset || spin->value() != spin->minimum())
                values[key] = spin->value();
            break;
        }
        case FieldType::Boolean:
            values[key] = static_cast<QCheckBox*>(field.editor)->isChecked();
            break;
        case FieldType::Json: {
            const QString text = static_cast<QLineEdit*>(field.editor)->text().trimmed();
            if (text.isEmpty()) {
                if (field.required)
                    missing.append(field.title);
                break;
            }
            BoundedJson::Result<json> value = BoundedJson::parse(text.toUtf8(), BoundedJson::Limits::message());
            if (!value.ok)
                invalid.append(field.title);
            else
                values[key] = std::move(value.value);
            break;
        }
        }
    }
    if (!missing.isEmpty() || !invalid.isEmpty()) {
        QStringList problems;
        if (!missing.isEmpty())
            problems.append(tr("fill in %1").arg(missing.join(QStringLiteral(", "))));
        if (!invalid.isEmpty())
            problems.append(tr("%1: not valid JSON").arg(invalid.join(QStringLiteral(", "))));
        if (problem)
            *problem = problems.join(QStringLiteral("; "));
        return std::nullopt;
    }
    return values;
}

bool SchemaForm::setValues(const json& values, QString* problem)
{
    const auto fail = [problem](const QString& text) {
        if (problem)
            *problem = text;
        return false;
    };
    if (!values.is_object())
        return fail(tr("the arguments are not a JSON object"));
    for (const auto& [key, value] : values.items()) {
        const QString name = QString::fromStdString(key);
        if (std::none_of(
                m_fields.cbegin(), m_fields.cend(), [&name](const Field& field) { return field.name == name; }))
            return fail(tr("\"%1\" is not one of the form's fields").arg(name));
    }
    for (const Field& field : std::as_const(m_fields)) {
        const auto it = values.find(field.name.toStdString());
        const bool present = it != values.end();
        const auto wrong = [&]() { return fail(tr("\"%1\" cannot be shown in its field").arg(field.name)); };
        switch (field.type) {
        case FieldType::String:
            if (present && !it->is_string())
                return wrong();
            static_cast<QLineEdit*>(field.editor)
                ->setText(present ? QString::fromStdString(it->get<std::string>()) : QString());
            break;
        case FieldType::Enum: {
            auto* combo = static_cast<QComboBox*>(field.editor);
            if (!present) {
                if (field.enumHasUnset)
                    combo->setCurrentIndex(0);
                break;
            }
            const auto found = std::find(field.enumValues.begin(), field.enumValues.end(), *it);
            if (found == field.enumValues.end())
                return wrong();
            combo->setCurrentIndex(int(found - field.enumValues.begin()) + (field.enumHasUnset ? 1 : 0));
            break;
        }
        case FieldType::Integer: {
            auto* spin = static_cast<QSpinBox*>(field.editor);
            const int lowest = spin->minimum() + (field.numberHasUnset ? 1 : 0);
            if (!present) {
                if (field.numberHasUnset)
                    spin->setValue(spin->minimum());
                break;
            }
            if (!it->is_number_integer() || it->get<double>() < lowest || it->get<double>() > spin->maximum())
                return wrong();
            spin->setValue(it->get<int>());
            break;
        }
        case FieldType::Number: {
            auto* spin = static_cast<QDoubleSpinBox*>(field.editor);
            const double lowest = field.numberHasUnset ? spin->minimum() + spin->singleStep() : spin->minimum();
            if (!present) {
                if (field.numberHasUnset)
                    spin->setValue(spin->minimum());
                break;
            }
            if (!it->is_number() || it->get<double>() < lowest || it->get<double>() > spin->maximum())
                return wrong();
            spin->setValue(it->get<double>());
            break;
        }
        case FieldType::Boolean:
            if (present && !it->is_boolean())
                return wrong();
            static_cast<QCheckBox*>(field.editor)->setChecked(present && it->get<bool>());
            break;
        case FieldType::Json:
            static_cast<QLineEdit*>(field.editor)->setText(present ? QString::fromStdString(it->dump()) : QString());
            break;
        }
    }
    return true;
}
