#include "permissionsview.h"

#include "modelroles.h"
#include "operatorinterface.h"
#include "permissionsmodel.h"
#include "statusnote.h"
#include "tablelook.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

PermissionsView::PermissionsView(OperatorInterface* backend, QWidget* parent)
    : QWidget(parent)
    , m_backend(backend)
    , m_model(new PermissionsModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
{
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(SortRole);

    auto* intro = new QLabel(tr("What lets calls run without asking. Rules in italics come from the configuration "
                                "file and change only there; grants given at a console can be revoked here."));
    intro->setObjectName(QStringLiteral("permissionsIntro"));
    intro->setWordWrap(true);
    intro->setForegroundRole(QPalette::PlaceholderText);

    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("permissionsTable"));
    applyTableLook(m_table, Qt::ElideRight, QHeaderView::Interactive);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the backend's order: rules, then grants
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Widths in characters of the table's font, so that a larger font keeps the columns readable.
    const int character = m_table->fontMetrics().averageCharWidth();
    m_table->setColumnWidth(PermissionsModel::SubjectColumn, 24 * character);
    m_table->setColumnWidth(PermissionsModel::PermissionColumn, 24 * character);
    m_table->setColumnWidth(PermissionsModel::SourceColumn, 14 * character);
    m_table->setColumnWidth(PermissionsModel::ClientColumn, 19 * character);
    m_table->setColumnWidth(PermissionsModel::ArgumentsColumn, 26 * character);
    m_table->setColumnWidth(PermissionsModel::GrantedByColumn, 13 * character);
    m_table->setColumnWidth(PermissionsModel::GrantedAtColumn, 17 * character);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PermissionsView::updateButtons);

    // Delete on the table revokes the selected grant, as the button does.
    auto* revokeAction = new QAction(tr("Revoke grant"), m_table);
    revokeAction->setObjectName(QStringLiteral("revokeGrantAction"));
    revokeAction->setShortcut(QKeySequence::Delete);
    revokeAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(revokeAction, &QAction::triggered, this, &PermissionsView::revokeCurrent);
    m_table->addAction(revokeAction);

    // K: the questions dock answers with A, S, W, D, R and H, and the menus take F, E, V, C and P.
    m_revokeButton = new QPushButton(tr("Revo&ke"));
    m_revokeButton->setObjectName(QStringLiteral("revokeGrantButton"));
    m_revokeButton->setToolTip(tr("Revoke the selected grant (Delete): the next call it let through asks again"));
    connect(m_revokeButton, &QPushButton::clicked, this, &PermissionsView::revokeCurrent);
    m_status = new StatusNote(QStringLiteral("permissionsStatus"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_revokeButton);
    buttons->addWidget(m_status);
    buttons->addStretch(1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    connect(m_backend, &OperatorInterface::grantsListed, this, &PermissionsView::setEntries);
    connect(m_backend, &OperatorInterface::grantsChanged, this, &PermissionsView::setEntries);
    connect(m_backend, &OperatorInterface::commandFailed, this, &PermissionsView::onCommandFailed);
    updateButtons();
    m_backend->listGrants();
}

void PermissionsView::setEntries(const PermissionEntryList& entries)
{
    // A reset loses the selection: the same grant (or the same row, when it is gone) is selected
    // again, so Delete after Delete walks down the list.
    const QString selected = currentGrantId();
    const int selectedRow = m_table->currentIndex().row();
    m_model->setEntries(entries);
    int row = -1;
    if (const int source = m_model->rowOf(selected); source >= 0)
        row = m_sorted->mapFromSource(m_model->index(source, 0)).row();
    else if (selectedRow >= 0 && m_sorted->rowCount() > 0)
        row = std::min(selectedRow, m_sorted->rowCount() - 1);
    if (row >= 0)
        m_table->setCurrentIndex(m_sorted->index(row, 0));
    updateButtons();
}

QString PermissionsView::currentGrantId() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? current.siblingAtColumn(0).data(GrantIdRole).toString() : QString();
}

void PermissionsView::updateButtons()
{
    m_revokeButton->setEnabled(!currentGrantId().isEmpty());
}

void PermissionsView::revokeCurrent()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const PermissionEntry entry = m_model->entry(m_sorted->mapToSource(current).row());
    if (!entry.isRevocable()) {
        m_status->showProblem(tr("%1 is a rule of the configuration (%2): change it in the configuration file.")
                                  .arg(entry.subject, entry.origin));
        return;
    }
    m_backend->revokeGrant(entry.id);
    m_status->showNote(
        tr("Revoked: %1 asks again%2.")
            .arg(entry.subject, entry.everyClient() ? QString() : tr(" when %1 calls it").arg(entry.clientName)));
}

void PermissionsView::onCommandFailed(const QString& command, const QString& message)
{
    if (command == QLatin1String("revokeGrant"))
        m_status->showProblem(tr("Could not revoke the grant: %1").arg(message));
}
