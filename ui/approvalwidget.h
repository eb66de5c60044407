#pragma once

// ApprovalWidget: asks whether a tool whose permission is "ask" may run: the tool, who asked, the
// rule that made it ask, the arguments as coloured JSON, and allow once / allow for this session /
// always allow / deny with an optional reason the client sees. A one-shot runner's question offers no
// "allow for this session": that session ends with the runner's process. "Always allow" opens a
// choice of scope (this client or every client, these arguments or any), narrowest first; the
// widest asks to be confirmed before it is sent.

#include "interactionwidget.h"

class JsonHighlighter;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QPushButton;

class ApprovalWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit ApprovalWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

protected:
    void changeEvent(QEvent* event) override;
    void interactionUpdated() override;

private:
    void decide(InteractionAnswer::Decision decision);
    void showScopeMenu();
    void alwaysAllow(bool everyClient, bool anyArguments);
    void updateHighlighterColours();

    QPlainTextEdit* m_arguments = nullptr;
    JsonHighlighter* m_highlighter = nullptr;
    QLineEdit* m_reasonEdit = nullptr;
    QPushButton* m_allowSessionButton = nullptr;
    QPushButton* m_alwaysAllowButton = nullptr;
    QMenu* m_scopeMenu = nullptr;
};
