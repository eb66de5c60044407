#pragma once

// SnippetWidget: a read-only piece of text to paste somewhere else, with a Copy button. What it
// shows and what it copies are separate, so a secret can be masked on screen and still copied whole.

#include <QWidget>

class CopyButton;
class QLabel;

class SnippetWidget : public QWidget
{
    Q_OBJECT
public:
    explicit SnippetWidget(QWidget* parent = nullptr);

    void setTexts(const QString& displayText, const QString& copyText);
    QString displayText() const;
    QString copyText() const;
    QLabel* textLabel() const { return m_text; }
    CopyButton* copyButton() const { return m_copyButton; }

private:
    QLabel* m_text;
    CopyButton* m_copyButton;
};
