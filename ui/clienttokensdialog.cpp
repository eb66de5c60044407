#include "clienttokensdialog.h"

#include "copybutton.h"
#include "operatorinterface.h"
#include "snippetwidget.h"
#include "statusnote.h"

#include <QAction>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QLabel* note(const QString& text)
{
    auto* label = new QLabel(text);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

} // namespace

ClientTokensDialog::ClientTokensDialog(OperatorInterface* backend, QWidget* parent)
    : QDialog(parent)
    , m_backend(backend)
{
    setWindowTitle(tr("Client tokens"));

    auto* layout = new QVBoxLayout(this);
    layout->setSpacing(6);
    layout->addWidget(note(tr("A named token lets one client in, and its name is that client's identity: its tasks "
                              "and the answers kept for it are its own, whatever name the client gives itself. "
                              "The shared token (Connect a client…) keeps working beside them.")));
    if (!m_backend->requiresToken()) {
        auto* noAuth = note(tr("The server runs without authentication (--no-auth): no token is checked until it "
                               "runs with them."));
        noAuth->setObjectName(QStringLiteral("noAuthWarning"));
        noAuth->setStyleSheet(StatusNote::problemStyleSheet());
        layout->addWidget(noAuth);
    }
    // Why no named token works now (their file cannot be used): shown until it is fixed.
    m_fileProblem = note(QString());
    m_fileProblem->setObjectName(QStringLiteral("clientTokensProblem"));
    m_fileProblem->setStyleSheet(StatusNote::problemStyleSheet());
    m_fileProblem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_fileProblem->hide();
    layout->addWidget(m_fileProblem);

    m_list = new QTreeWidget;
    m_list->setObjectName(QStringLiteral("clientTokenList"));
    m_list->setColumnCount(NumColumns);
    m_list->setHeaderLabels({tr("Name"), tr("Issued")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAllColumnsShowFocus(true);
    m_list->header()->setStretchLastSection(true);
    m_list->setColumnWidth(NameColumn, 28 * m_list->fontMetrics().averageCharWidth());
    connect(m_list, &QTreeWidget::currentItemChanged, this, &ClientTokensDialog::updateButtons);
    // Delete on the list revokes the selected token, as the button does (after the confirmation).
    auto* revokeAction = new QAction(tr("Revoke token"), m_list);
    revokeAction->setShortcut(QKeySequence::Delete);
    revokeAction->setShortcutContext(Qt::WidgetShortcut);
    connect(revokeAction, &QAction::triggered, this, &ClientTokensDialog::revokeSelected);
    m_list->addAction(revokeAction);
    layout->addWidget(m_list, 1);

    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("clientTokenName"));
    m_name->setPlaceholderText(tr("Name of the client, e.g. ci-runner"));
    m_name->setToolTip(tr("Letters, digits, '.', '_' and '-', up to 64, starting with a letter or digit"));
    m_name->setMaxLength(64);
    connect(m_name, &QLineEdit::textChanged, this, &ClientTokensDialog::updateButtons);
    m_issueButton = new QPushButton(tr("&Issue"));
    m_issueButton->setObjectName(QStringLiteral("issueClientTokenButton"));
    // Return issues (a name typed, then Return), rather than closing the dialog.
    m_issueButton->setDefault(true);
    connect(m_issueButton, &QPushButton::clicked, this, &ClientTokensDialog::issue);
    m_revokeButton = new QPushButton(tr("&Revoke…"));
    m_revokeButton->setObjectName(QStringLiteral("revokeClientTokenButton"));
    m_revokeButton->setAutoDefault(false);
    m_revokeButton->setToolTip(tr("Revoke the selected token (Delete): its client's next request is refused"));
    connect(m_revokeButton, &QPushButton::clicked, this, &ClientTokensDialog::revokeSelected);
    auto* row = new QHBoxLayout;
    row->addWidget(m_name, 1);
    row->addWidget(m_issueButton);
    row->addWidget(m_revokeButton);
    layout->addLayout(row);

    // The token just issued: its only showing.
    m_issued = new QWidget;
    m_issued->setObjectName(QStringLiteral("issuedClientToken"));
    auto* issuedLayout = new QVBoxLayout(m_issued);
    issuedLayout->setContentsMargins(0, 6, 0, 0);
    m_issuedTitle = note(QString());
    QFont bold = m_issuedTitle->font();
    bold.setBold(true);
    m_issuedTitle->setFont(bold);
    issuedLayout->addWidget(m_issuedTitle);
    m_issuedToken = new SnippetWidget;
    m_issuedToken->setObjectName(QStringLiteral("issuedClientTokenSnippet"));
    issuedLayout->addWidget(m_issuedToken);
    auto* warning = note(tr("Copy it now: it will not be shown again. Switchboard keeps only a digest of it; a lost "
                            "token is revoked and a new one issued."));
    warning->setObjectName(QStringLiteral("issuedClientTokenWarning"));
    warning->setStyleSheet(StatusNote::problemStyleSheet());
    issuedLayout->addWidget(warning);
    issuedLayout->addWidget(note(tr("The client sends it with every request as the header "
                                    "\"Authorization: Bearer <token>\".")));
    m_issued->hide();
    layout->addWidget(m_issued);

    m_status = new StatusNote(QStringLiteral("clientTokensStatus"));
    layout->addWidget(m_status);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_backend, &OperatorInterface::clientTokensListed, this, &ClientTokensDialog::setTokens);
    connect(m_backend, &OperatorInterface::clientTokenIssued, this, &ClientTokensDialog::showIssued);
    connect(m_backend, &OperatorInterface::clientTokenRevoked, this, &ClientTokensDialog::onRevoked);
    connect(m_backend, &OperatorInterface::commandFailed, this, &ClientTokensDialog::onCommandFailed);
    updateButtons();
    resize(640, 460);
}

QString ClientTokensDialog::shownToken() const
{
    return m_issued->isHidden() ? QString() : m_issuedToken->copyText();
}

QMessageBox* ClientTokensDialog::revokeConfirmation() const
{
    return m_confirm;
}

void ClientTokensDialog::issue()
{
    const QString name = m_name->text().trimmed();
    if (name.isEmpty())
        return;
    m_status->showPending(tr("Issuing a token for %1…").arg(name));
    m_backend->issueClientToken(name);
}

void ClientTokensDialog::revokeSelected()
{
    const QTreeWidgetItem* item = m_list->currentItem();
    if (!item || m_confirm)
        return;
    const QString name = item->text(NameColumn);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Revoke client token"),
        tr("Revoke the token of %1? Its client's next request is refused; to connect again it needs a new token.")
            .arg(name),
        QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("revokeClientTokenConfirmation"));
    QPushButton* revoke = box->addButton(tr("Revoke"), QMessageBox::DestructiveRole);
    revoke->setObjectName(QStringLiteral("confirmRevokeButton"));
    // Cancel by default: Return after Delete must not revoke by accident.
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, revoke, name] {
        if (box->clickedButton() != revoke)
            return;
        m_status->showPending(tr("Revoking the token of %1…").arg(name));
        m_backend->revokeClientToken(name);
    });
    m_confirm = box;
    box->open();
}

void ClientTokensDialog::showEvent(QShowEvent* event)
{
    QDialog::showEvent(event);
    m_backend->listClientTokens();
}

void ClientTokensDialog::hideEvent(QHideEvent* event)
{
    forgetIssued();
    QDialog::hideEvent(event);
}

void ClientTokensDialog::changeEvent(QEvent* event)
{
    QDialog::changeEvent(event);
    // Coming back from a terminal where `switchboard client-token` ran: show what it changed.
    if (event->type() == QEvent::ActivationChange && isActiveWindow())
        m_backend->listClientTokens();
}

void ClientTokensDialog::setTokens(const ClientTokenInfoList& tokens, const QString& problem)
{
    const QTreeWidgetItem* current = m_list->currentItem();
    const QString selected = current ? current->text(NameColumn) : QString();
    m_list->clear();
    QLocale locale;
    for (const ClientTokenInfo& token : tokens) {
        const QDateTime created = QDateTime::fromMSecsSinceEpoch(token.createdAtMs);
        auto* item = new QTreeWidgetItem(m_list, {token.name, locale.toString(created, QLocale::ShortFormat)});
        item->setToolTip(CreatedColumn, created.toUTC().toString(Qt::ISODate));
        if (token.name == selected)
            m_list->setCurrentItem(item);
    }
    m_fileProblem->setText(problem);
    m_fileProblem->setVisible(!problem.isEmpty());
    updateButtons();
}

void ClientTokensDialog::showIssued(const QString& name, const QByteArray& token)
{
    m_issuedName = name;
    m_issuedTitle->setText(tr("The token of %1:").arg(name));
    const QString text = QString::fromLatin1(token);
    m_issuedToken->setTexts(text, text);
    m_issued->show();
    m_status->showNote(tr("Issued a token for %1.").arg(name));
    if (m_name->text().trimmed() == name)
        m_name->clear();
    // Its only showing: closed meanwhile, the dialog comes back rather than lose it.
    if (!isVisible())
        show();
    raise();
    m_issuedToken->copyButton()->setFocus();
}

void ClientTokensDialog::onRevoked(const QString& name)
{
    if (name == m_issuedName)
        forgetIssued();
    m_status->showNote(tr("Revoked the token of %1: its client's next request is refused.").arg(name));
}

void ClientTokensDialog::onCommandFailed(const QString& command, const QString& message)
{
    if (command == QLatin1String("issueClientToken"))
        m_status->showProblem(tr("Could not issue the token: %1").arg(message));
    else if (command == QLatin1String("revokeClientToken"))
        m_status->showProblem(tr("Could not revoke the token: %1").arg(message));
}

void ClientTokensDialog::forgetIssued()
{
    m_issuedName.clear();
    m_issuedToken->setTexts(QString(), QString());
    m_issuedTitle->clear();
    m_issued->hide();
}

void ClientTokensDialog::updateButtons()
{
    m_issueButton->setEnabled(!m_name->text().trimmed().isEmpty());
    m_revokeButton->setEnabled(m_list->currentItem() != nullptr);
}
