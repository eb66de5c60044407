#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeySequence>
#include <QRegularExpression>
#include <QScreen>
#include <QShortcut>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

ShortcutsDialog::ShortcutsDialog(const QList<QPair<QString, QList<QAction*>>>& sections, QWidget* parent)
    : QDialog(parent)
    , m_table(new QTableWidget(0, 2, this))
{
    setWindowTitle(tr("Keyboard shortcuts"));
    setObjectName(QStringLiteral("shortcutsDialog"));
    m_table->setObjectName(QStringLiteral("shortcutsTable"));
    m_table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    for (const auto& [heading, actions] : sections) {
        QList<QAction*> withKeys;
        for (QAction* action : actions) {
            if (!action->shortcuts().isEmpty())
                withKeys << action;
        }
        if (withKeys.isEmpty())
            continue;
        const int headingRow = m_table->rowCount();
        m_table->insertRow(headingRow);
        auto* title = new QTableWidgetItem(heading);
        QFont bold = title->font();
        bold.setBold(true);
        title->setFont(bold);
        title->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(headingRow, 0, title);
        m_table->setSpan(headingRow, 0, 1, 2);
        for (QAction* action : std::as_const(withKeys)) {
            const int row = m_table->rowCount();
            m_table->insertRow(row);
            QString text = action->text();
            text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
            m_table->setItem(row, 0, new QTableWidgetItem(text));
            QStringList keys;
            const QList<QKeySequence> shortcuts = action->shortcuts();
            for (const QKeySequence& shortcut : shortcuts)
                keys << shortcut.toString(QKeySequence::NativeText);
            m_table->setItem(row, 1, new QTableWidgetItem(keys.join(tr(" or "))));
        }
    }
    m_table->resizeColumnsToContents();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* closeShortcut = new QShortcut(QKeySequence::Close, this); // Ctrl+W; Escape closes any dialog
    connect(closeShortcut, &QShortcut::activated, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    const int width = m_table->horizontalHeader()->length() + m_table->frameWidth() * 2 + 40;
    QSize size(std::max(width, fontMetrics().averageCharWidth() * 60), fontMetrics().height() * 30);
    if (const QScreen* screen = parent ? parent->screen() : this->screen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
}
