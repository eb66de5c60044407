#pragma once

// SchemaForm: the fields of a form generated from a JSON schema of type object: strings as line
// edits (enums as combo boxes), integers and numbers as spin boxes, booleans as check boxes, other
// types (arrays, objects, anything else) as JSON text; titles label the fields, descriptions are
// their tooltips, required fields are marked with "*"; a required enum without a default starts
// with no choice. A client tool's form (FormWidget) and the
// Tools view's call form both use it.

#include <QWidget>

#include <nlohmann/json.hpp>

#include <optional>

class QFormLayout;

class SchemaForm : public QWidget
{
    Q_OBJECT
public:
    explicit SchemaForm(const nlohmann::ordered_json& schema, QWidget* parent = nullptr);

    // Why a form of this schema would not say what the schema does (not an object with properties,
    // or it combines schemas: oneOf, $ref, …), for a caller to offer JSON text instead; empty when
    // the form can render it.
    static QString unsupportedReason(const nlohmann::ordered_json& schema);

    // The editor of a property (QLineEdit, QComboBox, QSpinBox, QDoubleSpinBox, QCheckBox), or null.
    QWidget* editorFor(const QString& property) const;
    QStringList properties() const;
    bool isEmpty() const { return m_fields.isEmpty(); }
    bool hasRequiredFields() const;
    QWidget* firstEditor() const;

    // The values filled in, as a JSON object (unset optional fields left out); nullopt with
    // `problem` naming the fields when a required one is empty or a JSON field does not parse.
    std::optional<nlohmann::json> values(QString* problem) const;
    // Fills the fields from a JSON object (fields it leaves out start unset); false, with `problem`
    // saying which property, when a value is not one its field can hold (a property the form does
    // not have, a string for a number, a value outside the field's range or enum). A form may still
    // hold a value differently (a number's decimals, a boolean always sent): compare values() to
    // what was set where that matters.
    bool setValues(const nlohmann::json& values, QString* problem);

Q_SIGNALS:
    // The person changed a field (typed, chose, toggled).
    void edited();

private:
    enum class FieldType {
        String,
        Enum,
        Integer,
        Number,
        Boolean,
        Json, // arrays, objects and anything else: typed as JSON text
    };
    struct Field
    {
        QString name;
        QString title;
        FieldType type = FieldType::String;
        bool required = false;
        QWidget* editor = nullptr;
        nlohmann::json enumValues; // Enum: the allowed values, in the schema's order
        bool enumHasUnset = false; // Enum: the first item means "not set" (optional fields)
        // Integer, Number: the spin box's lowest value means "not set" (optional fields without a
        // default, which are left out of the arguments rather than sent as 0).
        bool numberHasUnset = false;
    };

    void addField(const QString& name, const nlohmann::ordered_json& schema, bool required);

    QFormLayout* m_layout;
    QList<Field> m_fields;
};
