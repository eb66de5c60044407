#pragma once

// FormWidget: a form generated from a client tool's JSON schema (render "form"): strings as line
// edits (enums as combo boxes), integers and numbers as spin boxes, booleans as check boxes, other
// types as JSON text; titles label the fields, descriptions are their tooltips, required fields are
// marked. The client receives {"submitted": true, "values": {…}}, or
// {"submitted": false, "reason": "declined"}.

#include "interactionwidget.h"

class QFormLayout;

class FormWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit FormWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

    // The editor of a property (QLineEdit, QComboBox, QSpinBox, QDoubleSpinBox, QCheckBox), or null.
    QWidget* editorFor(const QString& property) const;
    QStringList properties() const;
    QWidget* initialFocusWidget() const override;

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
    };

    void addField(QFormLayout* form, const QString& name, const nlohmann::ordered_json& schema, bool required);
    void submit();

    QList<Field> m_fields;
};
