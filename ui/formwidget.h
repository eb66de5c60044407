#pragma once

// FormWidget: a form generated from a client tool's JSON schema (render "form"), its fields a
// SchemaForm: strings as line edits (enums as combo boxes), integers and numbers as spin boxes,
// booleans as check boxes, other types as JSON text; titles label the fields, descriptions are
// their tooltips, required fields are marked. The client receives {"submitted": true, "values":
// {…}}, or {"submitted": false, "reason": "declined"}.

#include "interactionwidget.h"

class SchemaForm;

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
    void submit();

    SchemaForm* m_form = nullptr;
};
