#pragma once

// CopyButton: a push button that puts a fixed text on the clipboard and says "Copied" for a moment,
// so the person sees that it worked without a dialog or a status message covering something else.

#include <QPushButton>
#include <QTimer>

class CopyButton : public QPushButton
{
    Q_OBJECT
public:
    explicit CopyButton(const QString& label, QWidget* parent = nullptr);

    QString copyText() const { return m_copyText; }
    void setCopyText(const QString& text) { m_copyText = text; }

Q_SIGNALS:
    void copied();

private:
    void copy();

    QString m_label;
    QString m_copyText;
    QTimer m_restoreTimer;
};
