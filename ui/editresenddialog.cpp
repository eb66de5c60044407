#include "editresenddialog.h"

#include "jsoneditor.h"
#include "statusnote.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

using nlohmann::json;

EditResendDialog::EditResendDialog(
    const QString& tool, qint64 originalCallId, const QByteArray& arguments, QWidget* parent)
    : QDialog(parent)
    , m_tool(tool)
    , m_originalCallId(originalCallId)
    , m_editor(new JsonEditor)
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
    m_problem->setObjectName(QStringLiteral("argumentsProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(StatusNote::problemStyleSheet());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    m_send = buttons->addButton(tr("&Send"), QDialogButtonBox::AcceptRole);
    m_send->setObjectName(QStringLiteral("sendButton"));
    m_send->setDefault(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &EditResendDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &EditResendDialog::reject);
    connect(m_editor, &QPlainTextEdit::textChanged, this, &EditResendDialog::validate);
    validate();
    resize(560, 420);
    m_editor->setFocus();
}

bool EditResendDialog::validate()
{
    QString problem;
    const bool ok = m_editor->object(&problem).has_value();
    m_problem->setText(ok ? QString() : tr("Not sent: %1.").arg(problem));
    m_problem->setVisible(!ok);
    m_send->setEnabled(ok);
    return ok;
}

void EditResendDialog::accept()
{
    if (!validate())
        return;
    QString problem;
    m_arguments = QByteArray::fromStdString(m_editor->object(&problem)->dump());
    QDialog::accept();
}
