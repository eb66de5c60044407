#include "approvalwidget.h"

#include "callinspector.h"
#include "interactionmodel.h"
#include "jsonhighlighter.h"

#include <QApplication>
#include <QEvent>
#include <QFrame>
#include <QKeyEvent>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <optional>

using nlohmann::json;

namespace {

// The annotations a client declared for the tool, in words (they are hints, not guarantees).
QString hintsText(const json& annotations)
{
    if (!annotations.is_object())
        return {};
    const auto flag = [&annotations](const char* key) {
        const auto it = annotations.find(key);
        return it != annotations.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
    };
    QStringList hints;
    if (flag("readOnlyHint").value_or(false))
        hints << ApprovalWidget::tr("read-only");
    if (flag("destructiveHint").value_or(false))
        hints << ApprovalWidget::tr("may delete or overwrite data");
    if (flag("idempotentHint").value_or(false))
        hints << ApprovalWidget::tr("idempotent");
    if (flag("openWorldHint").value_or(false))
        hints << ApprovalWidget::tr("reaches outside this machine");
    return hints.join(QStringLiteral(" · "));
}

} // namespace

ApprovalWidget::ApprovalWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
{
    QVBoxLayout* body = bodyLayout();

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    int row = 0;
    QLabel* rule = valueLabel(specString("rule"), QStringLiteral("ruleLabel"));
    rule->setWordWrap(true);
    grid->addWidget(captionLabel(tr("Asks because")), row, 0);
    grid->addWidget(rule, row++, 1);
    const QString description = specString("description");
    if (!description.isEmpty()) {
        QLabel* label = valueLabel(description, QStringLiteral("descriptionLabel"));
        label->setWordWrap(true);
        grid->addWidget(captionLabel(tr("Does")), row, 0);
        grid->addWidget(label, row++, 1);
    }
    const QString hints = hintsText(renderSpec().value("annotations", json()));
    if (!hints.isEmpty()) {
        grid->addWidget(captionLabel(tr("Hints")), row, 0);
        grid->addWidget(valueLabel(hints, QStringLiteral("hintsLabel")), row++, 1);
    }
    grid->setColumnStretch(1, 1);
    body->addLayout(grid);

    body->addWidget(captionLabel(tr("Arguments")));
    m_arguments = new QPlainTextEdit;
    m_arguments->setObjectName(QStringLiteral("argumentsText"));
    m_arguments->setReadOnly(true);
    m_arguments->setTabChangesFocus(true); // Tab moves on to the answers, never stays in the text
    m_arguments->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_arguments->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_arguments->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_arguments->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_arguments->setPlaceholderText(tr("No arguments."));
    m_arguments->setMinimumHeight(QFontMetrics(m_arguments->font()).lineSpacing() * 4);
    if (interaction.arguments.size() <= CallInspector::MaxHighlightedChars)
        m_highlighter = new JsonHighlighter(m_arguments->document());
    const QString arguments = CallInspector::prettyJson(interaction.arguments);
    m_arguments->setPlainText(arguments == QStringLiteral("{}") ? QString() : arguments);
    body->addWidget(m_arguments, 1);

    m_reasonEdit = new QLineEdit;
    m_reasonEdit->setObjectName(QStringLiteral("reasonEdit"));
    m_reasonEdit->setPlaceholderText(tr("Reason for denying (optional; the client sees it)"));
    m_reasonEdit->setClearButtonEnabled(true);
    auto* reasonLabel = new QLabel(tr("&Reason"));
    reasonLabel->setForegroundRole(QPalette::PlaceholderText);
    reasonLabel->setBuddy(m_reasonEdit);
    auto* reasonRow = new QWidget;
    auto* reasonLayout = new QHBoxLayout(reasonRow);
    reasonLayout->setContentsMargins(0, 0, 0, 0);
    reasonLayout->addWidget(reasonLabel);
    reasonLayout->addWidget(m_reasonEdit, 1);
    addAboveAnswers(reasonRow); // with Deny, in view whatever the arguments' length

    // The same letters wherever the meaning is the same: A allows this call, D refuses it.
    auto* allowOnce = addAnswerButton(tr("&Allow once"), QStringLiteral("allowOnceButton"), ButtonPlace::Leading);
    allowOnce->setToolTip(tr("Run this call; ask again next time (Return)"));
    m_allowSessionButton
        = addAnswerButton(tr("Allow for this &session"), QStringLiteral("allowSessionButton"), ButtonPlace::Leading);
    m_allowSessionButton->setToolTip(
        tr("Run this call and every call of %1 from this session without asking").arg(interaction.tool));
    m_alwaysAllowButton
        = addAnswerButton(tr("Al&ways allow…"), QStringLiteral("alwaysAllowButton"), ButtonPlace::Leading);
    m_alwaysAllowButton->setToolTip(tr("Run %1 without asking again, kept across restarts until revoked in the "
                                       "Permissions view: choose for which client and which arguments")
                                        .arg(interaction.tool));
    // The narrowest scope first, so Return in the menu picks it; a popup, never a nested event loop,
    // so the question can still be resolved elsewhere while the menu is open.
    m_scopeMenu = new QMenu(this);
    m_scopeMenu->setObjectName(QStringLiteral("alwaysAllowScopeMenu"));
    m_scopeMenu->setToolTipsVisible(true);
    const auto addScope = [this](const QString& text, const QString& name, bool everyClient, bool anyArguments) {
        QAction* action = m_scopeMenu->addAction(text);
        action->setObjectName(name);
        connect(action, &QAction::triggered, this,
            [this, everyClient, anyArguments] { alwaysAllow(everyClient, anyArguments); });
    };
    const QString client
        = interaction.clientName.isEmpty() ? tr("this client") : withoutMnemonic(interaction.clientName);
    addScope(tr("&Only %1, with these arguments").arg(client), QStringLiteral("scopeClientArguments"), false, false);
    addScope(tr("Only %1, with any &arguments").arg(client), QStringLiteral("scopeClientAny"), false, true);
    addScope(tr("&Every client, with these arguments"), QStringLiteral("scopeEveryArguments"), true, false);
    addScope(tr("Every &client, with any arguments…"), QStringLiteral("scopeEveryAny"), true, true);
    // The second step of a wider grant, above the answers and hidden until one is chosen.
    m_confirmRow = new QFrame;
    m_confirmRow->setObjectName(QStringLiteral("grantConfirmation"));
    static_cast<QFrame*>(m_confirmRow)->setFrameShape(QFrame::StyledPanel);
    auto* confirmLayout = new QHBoxLayout(m_confirmRow);
    m_confirmText = new QLabel;
    m_confirmText->setObjectName(QStringLiteral("grantConfirmationText"));
    m_confirmText->setTextFormat(Qt::RichText);
    m_confirmText->setWordWrap(true);
    confirmLayout->addWidget(m_confirmText, 1);
    m_grantButton = new QPushButton(tr("&Grant"));
    m_grantButton->setObjectName(QStringLiteral("confirmGrantButton"));
    m_grantButton->setAutoDefault(true);
    guardKeys(m_grantButton);
    m_cancelGrantButton = new QPushButton(tr("Ca&ncel"));
    m_cancelGrantButton->setObjectName(QStringLiteral("cancelGrantButton"));
    m_cancelGrantButton->setAutoDefault(true);
    confirmLayout->addWidget(m_grantButton, 0, Qt::AlignTop);
    confirmLayout->addWidget(m_cancelGrantButton, 0, Qt::AlignTop);
    m_confirmRow->hide();
    addAboveAnswers(m_confirmRow);
    connect(m_grantButton, &QPushButton::clicked, this, [this] {
        if (!m_confirmRow->isVisible() || isSending())
            return;
        sendAnswer(m_pendingGrant); // first: it keeps the focus on the question
        m_confirmRow->hide();
    });
    connect(m_cancelGrantButton, &QPushButton::clicked, this, &ApprovalWidget::cancelConfirmation);

    auto* deny = addAnswerButton(tr("&Deny"), QStringLiteral("denyButton"), ButtonPlace::Trailing);
    deny->setToolTip(tr("Refuse this call; the client gets a tool error with the reason, if any"));
    // Return allows this one call, as the prompts of Claude Code and VS Code do: the narrowest
    // grant, never a standing one. Typing a reason and pressing Return is a deny: the reason is only
    // ever sent with one.
    setDefaultButton(allowOnce);
    setReturnButton(m_reasonEdit, deny);

    connect(allowOnce, &QPushButton::clicked, this, [this] { decide(InteractionAnswer::Decision::AllowOnce); });
    connect(m_allowSessionButton, &QPushButton::clicked, this, [this] {
        askToConfirm(InteractionAnswer::decide(InteractionAnswer::Decision::AllowForSession),
            tr("Allow every call of %1 from this session of %2 without asking, until the session ends?")
                .arg(interaction().tool.toHtmlEscaped(), InteractionModel::clientLabel(interaction()).toHtmlEscaped()),
            m_allowSessionButton);
    });
    connect(m_alwaysAllowButton, &QPushButton::clicked, this, &ApprovalWidget::showScopeMenu);
    connect(deny, &QPushButton::clicked, this, [this] { decide(InteractionAnswer::Decision::Deny); });
    interactionUpdated();
    updateHighlighterColours();
}

void ApprovalWidget::interactionUpdated()
{
    // A one-shot runner's session ends with its process: there is no later call to allow.
    m_allowSessionButton->setVisible(!interaction().fromRunner);
}

void ApprovalWidget::decide(InteractionAnswer::Decision decision)
{
    sendAnswer(InteractionAnswer::decide(
        decision, decision == InteractionAnswer::Decision::Deny ? m_reasonEdit->text().trimmed() : QString()));
}

void ApprovalWidget::showScopeMenu()
{
    if (isSending())
        return;
    m_scopeMenu->popup(m_alwaysAllowButton->mapToGlobal(QPoint(0, m_alwaysAllowButton->height())));
    m_scopeMenu->setActiveAction(m_scopeMenu->actions().constFirst());
}

void ApprovalWidget::alwaysAllow(bool everyClient, bool anyArguments)
{
    if (isSending())
        return;
    const QString tool = interaction().tool;
    const QString client = interaction().clientName.isEmpty() ? tr("this client") : interaction().clientName;
    QString text;
    if (everyClient && anyArguments)
        text = tr("Always allow %1 for <b>every client</b>, with <b>any arguments</b>? Any client of this "
                  "Switchboard can then run it without asking, now and after restarts, until the grant is revoked "
                  "in the Permissions view.")
                   .arg(tool.toHtmlEscaped());
    else if (everyClient)
        text = tr("Always allow %1 for <b>every client</b>, with these arguments, until revoked in the Permissions "
                  "view?")
                   .arg(tool.toHtmlEscaped());
    else if (anyArguments)
        text = tr("Always allow %1 for %2, with <b>any arguments</b>, until revoked in the Permissions view?")
                   .arg(tool.toHtmlEscaped(), client.toHtmlEscaped());
    else
        text = tr("Always allow %1 for %2, with these arguments, until revoked in the Permissions view?")
                   .arg(tool.toHtmlEscaped(), client.toHtmlEscaped());
    askToConfirm(InteractionAnswer::alwaysAllow(everyClient, anyArguments), text, m_alwaysAllowButton);
}

void ApprovalWidget::askToConfirm(const InteractionAnswer& answer, const QString& text, QPushButton* from)
{
    if (isSending())
        return;
    m_pendingGrant = answer;
    m_confirmFrom = from;
    m_confirmText->setText(text);
    m_confirmRow->show();
    // Grant is new on screen: keys wait again, and Return goes to Cancel, which has the focus.
    delayKeys();
    m_cancelGrantButton->setFocus(Qt::OtherFocusReason);
}

void ApprovalWidget::cancelConfirmation()
{
    const bool focusWasThere = m_confirmRow->isAncestorOf(QApplication::focusWidget());
    m_confirmRow->hide();
    if (focusWasThere && m_confirmFrom)
        m_confirmFrom->setFocus(Qt::OtherFocusReason); // back where the person was
}

void ApprovalWidget::keyPressEvent(QKeyEvent* event)
{
    // Escape steps back from the second step of a grant before it leaves the question.
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier && m_confirmRow->isVisible()) {
        cancelConfirmation();
        event->accept();
        return;
    }
    InteractionWidget::keyPressEvent(event);
}

void ApprovalWidget::changeEvent(QEvent* event)
{
    InteractionWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateHighlighterColours();
}

void ApprovalWidget::updateHighlighterColours()
{
    if (m_highlighter)
        m_highlighter->setDarkBackground(m_arguments->palette().color(QPalette::Base).lightness() < 128);
}
