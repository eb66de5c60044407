#pragma once

// StatusNote: the line under a dock's buttons that answers what the person just did. A note
// ("Added …") fades after a while, a pending note ("Reloading …") stays until the answer replaces
// it, and a problem shows in red and stays until the next action.

#include <QLabel>

class QTimer;

class StatusNote : public QLabel
{
    Q_OBJECT
public:
    static constexpr int NoteShownMs = 8000;

    explicit StatusNote(const QString& objectName, QWidget* parent = nullptr);

    // The style sheet problems are shown in, for other labels of the same dock.
    static QString problemStyleSheet();

    void showNote(const QString& text);
    void showPending(const QString& text);
    void showProblem(const QString& text);
    void clearNote();

private:
    void present(const QString& text, bool problem, bool fades);

    QTimer* m_fadeTimer = nullptr;
};
