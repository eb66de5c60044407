#include "editresenddialog.h"

#include "boundedjson.h"
#include "jsoneditor.h"
#include "schemaform.h"
#include "statusnote.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

using nlohmann::json;
using nlohmann::ordered_json;

EditResendDialog::EditResendDialog(const QString& tool, qint64 originalCallId, const QByteArray& arguments,
    const QByteArray& inputSchema, QWidget* parent)
    : QDialog(parent)
    , m_tool(tool)
    , m_originalCallId(originalCallId)
    , m_editor(new JsonEditor)
    , m_formArea(new QScrollArea)
    , m_stack(new QStackedWidget)
    , m_jsonToggle(new QCheckBox(tr("Edit as &JSON")))
    , m_formNote(new QLabel)
    , m_problem(new QLabel)
{
    setObjectName(QStringLiteral("editResendDialog"));
    setWindowTitle(tr("Edit and resend #%1").arg(originalCallId));
    auto* intro = new QLabel(
        tr("Call <b>%1</b> again with these arguments. It goes through the same permissions and checks as a "
           "client's call, and shows in the log linked to #%2.")
            .arg(tool.toHtmlEscaped())
            .arg(originalCallId));
    intro->setWordWrap(true);
    m_editor->setPlainText(arguments.isEmpty() ? QStringLiteral("{}") : QString::fromUtf8(arguments));

    // The form, when the schema gives one and it holds the recorded arguments exactly: a replay
    // with nothing edited must send what was sent.
    const json recorded
        = arguments.isEmpty() ? json::object() : BoundedJson::parse(arguments, BoundedJson::Limits::record()).value;
    const ordered_json schema = inputSchema.isEmpty()
        ? ordered_json()
        : BoundedJson::parseOrdered(inputSchema, BoundedJson::Limits::record()).value;
    QString formProblem;
    if (schema.is_object() && SchemaForm::unsupportedReason(schema).isEmpty()) {
        m_form = new SchemaForm(schema);
        QString ignored;
        const bool holds = recorded.is_object() && m_form->setValues(recorded, &formProblem)
            && m_form->values(&ignored) == std::optional<json>(recorded);
        if (!holds && formProblem.isEmpty())
            formProblem = tr("the form would send them differently");
    }
    m_formArea->setObjectName(QStringLiteral("resendFormArea"));
    m_formArea->setWidgetResizable(true);
    m_formArea->setFrameShape(QFrame::NoFrame);
    if (m_form)
        m_formArea->setWidget(m_form);
    m_stack->addWidget(m_formArea);
    m_stack->addWidget(m_editor);
    m_jsonToggle->setObjectName(QStringLiteral("resendJsonToggle"));
    m_jsonToggle->setToolTip(tr("Edit the arguments as a JSON object instead of in the form"));
    m_jsonToggle->setEnabled(m_form != nullptr);
    m_jsonToggle->setVisible(m_form != nullptr);
    m_formNote->setObjectName(QStringLiteral("resendFormNote"));
    m_formNote->setWordWrap(true);
    m_formNote->setForegroundRole(QPalette::PlaceholderText);
    if (m_form && !formProblem.isEmpty())
        m_formNote->setText(
            tr("The form cannot show these arguments as recorded (%1): edit them as JSON.").arg(formProblem));
    m_formNote->setVisible(!m_formNote->text().isEmpty());

    m_problem->setObjectName(QStringLiteral("argumentsProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(StatusNote::problemStyleSheet());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_send = buttons->addButton(tr("&Send"), QDialogButtonBox::AcceptRole);
    m_send->setObjectName(QStringLiteral("sendButton"));
    // Return sends, from any field: no button takes the default over by having had the focus.
    for (QAbstractButton* button : buttons->buttons())
        static_cast<QPushButton*>(button)->setAutoDefault(false);
    m_send->setDefault(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_jsonToggle);
    layout->addWidget(m_formNote);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &EditResendDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &EditResendDialog::reject);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &EditResendDialog::validate);
    connect(m_jsonToggle, &QCheckBox::toggled, this, &EditResendDialog::setJsonMode);
    {
        const QSignalBlocker quiet(m_jsonToggle);
        m_jsonToggle->setChecked(!m_form || !formProblem.isEmpty());
    }
    setJsonMode(m_jsonToggle->isChecked());
    resize(560, 420);
}

bool EditResendDialog::isJsonMode() const
{
    return m_stack->currentWidget() == m_editor;
}

void EditResendDialog::setJsonMode(bool jsonMode)
{
    if (m_form && jsonMode && !isJsonMode()) {
        // The text starts from what the form holds, when that is valid.
        QString problem;
        if (const auto values = m_form->values(&problem))
            m_editor->setJson(*values);
    } else if (m_form && !jsonMode && isJsonMode()) {
        // Back to the form only when it can hold what the text says; otherwise the text stays.
        QString problem;
        const auto object = m_editor->object(&problem);
        if (!object || !m_form->setValues(*object, &problem)) {
            const QSignalBlocker quiet(m_jsonToggle);
            m_jsonToggle->setChecked(true);
            m_formNote->setText(tr("The form cannot show these arguments (%1): edit them as JSON.").arg(problem));
            m_formNote->setVisible(true);
            return;
        }
        m_formNote->clear();
        m_formNote->setVisible(false);
    }
    m_stack->setCurrentWidget(jsonMode || !m_form ? static_cast<QWidget*>(m_editor) : m_formArea);
    if (isJsonMode())
        m_editor->setFocus();
    else if (QWidget* first = m_form->firstEditor())
        first->setFocus();
    validate();
}

bool EditResendDialog::validate()
{
    // The form's values are checked when Send is pressed (its fields say nothing as they change);
    // the text is checked as it is typed.
    if (!isJsonMode()) {
        m_problem->setVisible(false);
        m_send->setEnabled(true);
        return true;
    }
    QString problem;
    const bool ok = m_editor->object(&problem).has_value();
    m_problem->setText(ok ? QString() : tr("Not sent: %1.").arg(problem));
    m_problem->setVisible(!ok);
    m_send->setEnabled(ok);
    return ok;
}

void EditResendDialog::accept()
{
    QString problem;
    const std::optional<json> arguments = isJsonMode() ? m_editor->object(&problem) : m_form->values(&problem);
    if (!arguments) {
        m_problem->setText(tr("Not sent: %1.").arg(problem));
        m_problem->setVisible(true);
        return;
    }
    m_arguments = QByteArray::fromStdString(arguments->dump());
    QDialog::accept();
}
