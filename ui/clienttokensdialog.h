#pragma once

// ClientTokensDialog (File ▸ Client tokens…): the named client tokens, each the identity of one
// client, with when it was issued; issuing one (the token is shown once, with a Copy button: the
// backend keeps only a digest of it) and revoking one (after a confirmation). Everything goes
// through the OperatorInterface, never blocking the window. The list is asked for again whenever the
// dialog is shown or activated, so tokens issued or revoked from the command line meanwhile show.

#include "clienttokeninfo.h"

#include <QDialog>
#include <QPointer>

class OperatorInterface;
class QLabel;
class QLineEdit;
class QMessageBox;
class QPushButton;
class QTreeWidget;
class SnippetWidget;
class StatusNote;

class ClientTokensDialog : public QDialog
{
    Q_OBJECT
public:
    enum Columns { NameColumn, CreatedColumn, NumColumns };

    explicit ClientTokensDialog(OperatorInterface* backend, QWidget* parent = nullptr);

    QTreeWidget* tokenList() const { return m_list; }
    QLineEdit* nameEdit() const { return m_name; }
    QPushButton* issueButton() const { return m_issueButton; }
    QPushButton* revokeButton() const { return m_revokeButton; }
    // The token just issued, while it is shown; empty before, and once the dialog was closed.
    QString shownToken() const;
    // The confirmation Revoke… opened, while it is open.
    QMessageBox* revokeConfirmation() const;

public Q_SLOTS:
    // Asks the backend for a token named as the name field says.
    void issue();
    // Asks to confirm, then to revoke the selected token.
    void revokeSelected();

protected:
    void showEvent(QShowEvent* event) override;
    // Forgets the token shown: once the dialog is closed it cannot be seen again.
    void hideEvent(QHideEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void setTokens(const ClientTokenInfoList& tokens, const QString& problem);
    void showIssued(const QString& name, const QByteArray& token);
    void onRevoked(const QString& name);
    void onCommandFailed(const QString& command, const QString& message);
    void forgetIssued();
    void updateButtons();

    OperatorInterface* m_backend;
    QLabel* m_fileProblem = nullptr;
    QTreeWidget* m_list = nullptr;
    QLineEdit* m_name = nullptr;
    QPushButton* m_issueButton = nullptr;
    QPushButton* m_revokeButton = nullptr;
    QWidget* m_issued = nullptr;
    QLabel* m_issuedTitle = nullptr;
    SnippetWidget* m_issuedToken = nullptr;
    StatusNote* m_status = nullptr;
    QPointer<QMessageBox> m_confirm;
    QString m_issuedName; // whose token is shown
};
