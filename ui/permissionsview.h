#pragma once

// PermissionsView: what lets tool calls run without asking, or stops them: the configuration's
// rules (shown in italics, changed only in the configuration file, so not revocable here), the
// "always allow" grants people gave with their scope, who granted them and when, and the grants for
// a session. The selected grant is revoked with the button or Delete; the next call it would have
// let through asks again. Fed by the OperatorInterface (grantsListed, grantsChanged); revoking is a
// command sent without waiting, a refusal shows in the status line. A plain widget: the window puts
// it in a dock.

#include "permissionentry.h"

#include <QWidget>

class OperatorInterface;
class PermissionsModel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class StatusNote;

class PermissionsView : public QWidget
{
    Q_OBJECT
public:
    explicit PermissionsView(OperatorInterface* backend, QWidget* parent = nullptr);

    PermissionsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QPushButton* revokeButton() const { return m_revokeButton; }
    StatusNote* statusLabel() const { return m_status; }

public Q_SLOTS:
    // Revokes the grant selected in the table (nothing for a configuration rule).
    void revokeCurrent();

private:
    void setEntries(const PermissionEntryList& entries);
    void updateButtons();
    void onCommandFailed(const QString& command, const QString& message);
    QString currentGrantId() const;

    OperatorInterface* m_backend;
    PermissionsModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table = nullptr;
    QPushButton* m_revokeButton = nullptr;
    StatusNote* m_status = nullptr;
};
