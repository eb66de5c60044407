#pragma once

// WindowShortcutGuard: keeps a window's own shortcuts (its actions' Ctrl and Alt keys) from being
// swallowed by the field that has the focus. A line or text edit claims many Ctrl keys for editing
// (on X11, Ctrl+E moves to the end of the line), so Ctrl+E (Export) typed in the call log's filter
// did nothing. For a key one of the window's actions has, the field's claim is refused, except for
// the editing keys everyone expects a field to keep (copy, cut, paste, undo, redo, select all, …).

#include <QObject>

class QKeyEvent;
class QWidget;

class WindowShortcutGuard : public QObject
{
    Q_OBJECT
public:
    // Watches the application's events for the widgets of `window` (a child of it, deleted with it).
    explicit WindowShortcutGuard(QWidget* window);

    // Whether `event` (a ShortcutOverride) is a key one of the window's enabled actions has and that
    // is not an editing key a field keeps.
    bool isWindowShortcut(const QKeyEvent& event) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_window;
};
