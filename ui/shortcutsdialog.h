#pragma once

// ShortcutsDialog: Help ▸ Keyboard shortcuts. Every shortcut the window offers, by menu (the
// actions' own text and keys, so the list cannot drift from what the keys do), then those that
// work inside a view (the log, the inspector, …). Closed by Escape or Ctrl+W.

#include <QDialog>
#include <QList>
#include <QPair>

class QAction;
class QTableWidget;

class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    // `sections`: a heading and its actions; actions without a shortcut are left out.
    ShortcutsDialog(const QList<QPair<QString, QList<QAction*>>>& sections, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }

private:
    QTableWidget* m_table;
};
