#pragma once

// ApprovalWidget: asks whether a tool whose permission is "ask" may run: the arguments as coloured
// JSON first (above the answers, never scrolled away, with paths that leave the configured roots or
// contain ".." flagged), a banner when the tool declares itself destructive or open-world, the
// tool, who asked, the rule that made it ask, its description folded to a line, and allow once / allow for this session
// / always allow / deny with an optional reason the client sees. A one-shot runner's question offers no "allow for this
// session": that session ends with the runner's process. "Always allow" opens a choice of scope (this client or every
// client, these arguments or any), narrowest first. Every grant wider than "allow once" takes a deliberate second step:
// a confirmation above the answers says what it grants, with Cancel focused and Grant reached only by its mnemonic
// (Alt+G), Tab or a click, and Grant ignores keys for a moment after it appears.

#include "interactionwidget.h"

class JsonHighlighter;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QPushButton;

class ApprovalWidget : public InteractionWidget
{
    Q_OBJECT
public:
    explicit ApprovalWidget(const PendingInteraction& interaction, QWidget* parent = nullptr);

    // The arguments always show at least this many lines, however short the dock.
    static constexpr int MinArgumentLines = 4;
    // The tool's description shows folded to this many characters of its first line (More opens it).
    static constexpr int FoldedDescriptionChars = 140;
    // String arguments that look like paths (named like one, or absolute) and contain a ".." part
    // or lie outside `roots` (none checked when empty), each as "name: why (value)"; at most 8.
    static QStringList flaggedPaths(const nlohmann::json& arguments, const QStringList& roots);

protected:
    void changeEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void interactionUpdated() override;

private:
    void decide(InteractionAnswer::Decision decision);
    void showScopeMenu();
    void alwaysAllow(bool everyClient, bool anyArguments);
    // Shows the second step for a grant wider than "allow once": `answer` is sent only by Grant.
    void askToConfirm(const InteractionAnswer& answer, const QString& text, QPushButton* from);
    void cancelConfirmation();
    void updateHighlighterColours();

    QPlainTextEdit* m_arguments = nullptr;
    JsonHighlighter* m_highlighter = nullptr;
    QLineEdit* m_reasonEdit = nullptr;
    QPushButton* m_allowSessionButton = nullptr;
    QPushButton* m_alwaysAllowButton = nullptr;
    QMenu* m_scopeMenu = nullptr;
    QWidget* m_confirmRow = nullptr;
    QLabel* m_confirmText = nullptr;
    QPushButton* m_grantButton = nullptr;
    QPushButton* m_cancelGrantButton = nullptr;
    QPushButton* m_confirmFrom = nullptr; // the button that asked, where the focus goes back on Cancel
    InteractionAnswer m_pendingGrant;
};
