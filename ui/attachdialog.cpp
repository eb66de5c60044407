#include "attachdialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QUrl>

AttachDialog::AttachDialog(QWidget* parent)
    : QDialog(parent)
    , m_url(new QLineEdit)
    , m_token(new QLineEdit)
    , m_caFile(new QLineEdit)
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setWindowTitle(tr("Attach a Switchboard"));
    m_url->setObjectName(QStringLiteral("attachUrlEdit"));
    m_url->setPlaceholderText(QStringLiteral("http://build-host:8765"));
    m_token->setObjectName(QStringLiteral("attachTokenEdit"));
    // The token answers that Switchboard's questions: it is typed or pasted, never shown.
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("its operator-token file, or SWITCHBOARD_OPERATOR_TOKEN there"));
    m_caFile->setObjectName(QStringLiteral("attachCaFileEdit"));
    m_caFile->setPlaceholderText(tr("only for a certificate of its own (server.tls)"));
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Certificates to trust"), m_caFile->text(), tr("PEM certificates (*.pem *.crt);;All files (*)"));
        if (!path.isEmpty())
            m_caFile->setText(path);
    });
    auto* caRow = new QHBoxLayout;
    caRow->addWidget(m_caFile, 1);
    caRow->addWidget(browse);

    auto* note = new QLabel(tr("The window follows that Switchboard beside what it shows now: its calls, questions, "
                               "adapters and sessions, each named with it. File ▸ Detach stops following it."));
    note->setWordWrap(true);
    auto* form = new QFormLayout(this);
    form->addRow(note);
    form->addRow(tr("&URL:"), m_url);
    form->addRow(tr("Operator &token:"), m_token);
    // A label of a layout has no buddy of its own: the field is its shortcut's target.
    auto* caLabel = new QLabel(tr("&CA file:"));
    caLabel->setBuddy(m_caFile);
    form->addRow(caLabel, caRow);
    form->addRow(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_url, &QLineEdit::textChanged, this, &AttachDialog::updateButtons);
    connect(m_token, &QLineEdit::textChanged, this, &AttachDialog::updateButtons);
    updateButtons();
    resize(fontMetrics().averageCharWidth() * 70, sizeHint().height());
}

QUrl AttachDialog::url() const
{
    return QUrl::fromUserInput(m_url->text().trimmed());
}

QByteArray AttachDialog::token() const
{
    return m_token->text().trimmed().toUtf8();
}

QString AttachDialog::caFile() const
{
    return m_caFile->text().trimmed();
}

void AttachDialog::updateButtons()
{
    m_buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(!m_url->text().trimmed().isEmpty() && !m_token->text().trimmed().isEmpty());
}
