#include "formwidget.h"

#include "boundedjson.h"
#include "clientanswer.h"
#include "schemaform.h"

#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

using nlohmann::ordered_json;

FormWidget::FormWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
{
    addQuestionLabels();

    // Parsed again with ordered_json: the fields appear in the order the schema lists them.
    const auto spec = BoundedJson::parseOrdered(interaction.renderSpec, BoundedJson::Limits::record()).value;
    const ordered_json schema
        = spec.is_object() ? spec.value("schema", ordered_json::object()) : ordered_json::object();
    m_form = new SchemaForm(schema);
    auto* fields = new QWidget;
    auto* layout = new QVBoxLayout(fields);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_form);
    if (m_form->isEmpty())
        layout->addWidget(valueLabel(tr("This form has no fields."), QStringLiteral("noFieldsLabel")));
    layout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("formArea"));
    scroll->setWidget(fields);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    bodyLayout()->addWidget(scroll, 1);
    if (m_form->hasRequiredFields()) {
        QLabel* legend = captionLabel(tr("* required"));
        bodyLayout()->addWidget(legend);
    }

    auto* submitButton = addAnswerButton(tr("&Submit"), QStringLiteral("submitButton"), ButtonPlace::Leading);
    auto* decline = addAnswerButton(tr("&Decline"), QStringLiteral("declineButton"), ButtonPlace::Trailing);
    decline->setToolTip(tr("Do not fill in the form; the client is told you declined"));
    // Return in any field submits, as in a dialog (a missing required field is named, nothing sent).
    setDefaultButton(submitButton);
    connect(submitButton, &QPushButton::clicked, this, &FormWidget::submit);
    // A "Not sent: …" line follows the fields: it names what is still wrong, and goes once nothing is.
    connect(m_form, &SchemaForm::edited, this, [this] {
        if (errorText().isEmpty() || isSending())
            return;
        QString problem;
        if (m_form->values(&problem))
            clearError();
        else
            showError(tr("Not sent: %1.").arg(problem));
    });
    connect(decline, &QPushButton::clicked, this, [this] { respond(ClientAnswer::declined(RenderHint::Form)); });
}

QWidget* FormWidget::editorFor(const QString& property) const
{
    return m_form->editorFor(property);
}

QStringList FormWidget::properties() const
{
    return m_form->properties();
}

void FormWidget::submit()
{
    QString problem;
    const auto values = m_form->values(&problem);
    if (!values) {
        showError(tr("Not sent: %1.").arg(problem));
        return;
    }
    respond(ClientAnswer::submitted(*values));
}

QWidget* FormWidget::initialFocusWidget() const
{
    return m_form->isEmpty() ? InteractionWidget::initialFocusWidget() : m_form->firstEditor();
}
