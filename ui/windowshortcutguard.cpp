#include "windowshortcutguard.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

namespace {

// The keys a text field keeps whatever the window binds: what a person expects to edit text with.
bool isEditingKey(const QKeyEvent& event)
{
    for (const QKeySequence::StandardKey key : {QKeySequence::Copy, QKeySequence::Cut, QKeySequence::Paste,
             QKeySequence::Undo, QKeySequence::Redo, QKeySequence::SelectAll, QKeySequence::Delete,
             QKeySequence::Backspace, QKeySequence::DeleteStartOfWord, QKeySequence::DeleteEndOfWord,
             QKeySequence::MoveToNextWord, QKeySequence::MoveToPreviousWord, QKeySequence::SelectNextWord,
             QKeySequence::SelectPreviousWord, QKeySequence::MoveToStartOfDocument, QKeySequence::MoveToEndOfDocument,
             QKeySequence::SelectStartOfDocument, QKeySequence::SelectEndOfDocument}) {
        if (event.matches(key))
            return true;
    }
    return false;
}

} // namespace

WindowShortcutGuard::WindowShortcutGuard(QWidget* window)
    : QObject(window)
    , m_window(window)
{
    qApp->installEventFilter(this);
}

bool WindowShortcutGuard::isWindowShortcut(const QKeyEvent& event) const
{
    const Qt::KeyboardModifiers modifiers = event.modifiers() & (Qt::ControlModifier | Qt::AltModifier);
    if (modifiers == Qt::NoModifier || isEditingKey(event))
        return false;
    const QKeySequence pressed(event.keyCombination());
    const QList<QAction*> actions = m_window->actions();
    for (const QAction* action : actions) {
        if (!action->isEnabled() || action->shortcutContext() != Qt::WindowShortcut)
            continue;
        if (action->shortcuts().contains(pressed))
            return true;
    }
    return false;
}

bool WindowShortcutGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::ShortcutOverride || !watched->isWidgetType())
        return false;
    const auto* widget = static_cast<QWidget*>(watched);
    if (widget->window() != m_window || !isWindowShortcut(*static_cast<QKeyEvent*>(event)))
        return false;
    // Not overridden: the shortcut map goes on to the window's action.
    event->ignore();
    return true;
}
