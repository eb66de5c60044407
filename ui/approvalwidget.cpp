#include "approvalwidget.h"

#include "boundedjson.h"
#include "callinspector.h"
#include "fixedfont.h"
#include "interactionmodel.h"
#include "jsonhighlighter.h"

#include <QApplication>
#include <QDir>
#include <QEvent>
#include <QFontMetrics>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
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

// The hints that call for care, as a banner: short words on one line (what they mean in its
// tooltip), so the banner costs the arguments no height.
QPair<QString, QString> warningText(const json& annotations)
{
    if (!annotations.is_object())
        return {};
    const auto flag = [&annotations](const char* key) {
        const auto it = annotations.find(key);
        return it != annotations.end() && it->is_boolean() && it->get<bool>();
    };
    QStringList words;
    QStringList meanings;
    if (flag("destructiveHint")) {
        words << ApprovalWidget::tr("Destructive");
        meanings << ApprovalWidget::tr("The tool declares that it may delete or overwrite data (destructiveHint).");
    }
    if (flag("openWorldHint")) {
        words << ApprovalWidget::tr("Open world");
        meanings << ApprovalWidget::tr("The tool declares that it reaches outside this machine (openWorldHint).");
    }
    if (words.isEmpty())
        return {};
    return {QStringLiteral("⚠ ") + words.join(QStringLiteral(" · ")), meanings.join(QLatin1Char('\n'))};
}

bool looksLikePath(const QString& key, const QString& value)
{
    static const QStringList pathWords{QStringLiteral("path"), QStringLiteral("file"), QStringLiteral("dir"),
        QStringLiteral("folder"), QStringLiteral("root"), QStringLiteral("cwd"), QStringLiteral("repo")};
    const QString lower = key.toLower();
    const bool named = std::any_of(
        pathWords.cbegin(), pathWords.cend(), [&lower](const QString& word) { return lower.contains(word); });
    return named || value.startsWith(QLatin1Char('/')) || value.startsWith(QStringLiteral("~/"))
        || value.startsWith(QStringLiteral("../")) || value == QStringLiteral("..");
}

bool insideRoot(const QString& path, const QString& root)
{
    const QString cleanRoot = QDir::cleanPath(root);
    return path == cleanRoot
        || path.startsWith(cleanRoot.endsWith(QLatin1Char('/')) ? cleanRoot : QString(cleanRoot + QLatin1Char('/')));
}

void collectPaths(const json& value, const QString& name, const QStringList& roots, QStringList* flagged)
{
    if (flagged->size() >= 8)
        return;
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            collectPaths(*it,
                name.isEmpty() ? QString::fromStdString(it.key())
                               : QString(name + QLatin1Char('.') + QString::fromStdString(it.key())),
                roots, flagged);
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            collectPaths(value.at(i), QStringLiteral("%1[%2]").arg(name).arg(i), roots, flagged);
    } else if (value.is_string()) {
        const QString text = QString::fromStdString(value.get<std::string>());
        if (!looksLikePath(name, text))
            return;
        const QString shown = text.size() > 80 ? QString(text.left(80) + QStringLiteral("…")) : text;
        if (text.split(QRegularExpression(QStringLiteral("[/\\\\]"))).contains(QStringLiteral(".."))) {
            flagged->append(ApprovalWidget::tr("%1 contains \"..\" (%2)").arg(name, shown));
        } else if (QDir::isAbsolutePath(text) && !roots.isEmpty()) {
            const QString clean = QDir::cleanPath(text);
            if (std::none_of(
                    roots.cbegin(), roots.cend(), [&clean](const QString& root) { return insideRoot(clean, root); }))
                flagged->append(ApprovalWidget::tr("%1 is outside the roots (%2)").arg(name, shown));
        }
    }
}

} // namespace

QStringList ApprovalWidget::flaggedPaths(const json& arguments, const QStringList& roots)
{
    QStringList flagged;
    collectPaths(arguments, QString(), roots, &flagged);
    return flagged;
}

ApprovalWidget::ApprovalWidget(const PendingInteraction& interaction, QWidget* parent)
    : InteractionWidget(interaction, parent)
{
    QVBoxLayout* body = bodyLayout();
    const json& annotations = renderSpec().value("annotations", json());

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    int row = 0;
    QLabel* rule = valueLabel(specString("rule"), QStringLiteral("ruleLabel"));
    rule->setWordWrap(true);
    grid->addWidget(captionLabel(tr("Asks because")), row, 0);
    grid->addWidget(rule, row++, 1);
    const QString description = specString("description").trimmed();
    if (!description.isEmpty()) {
        // Folded to its first line: the arguments, not the tool's manual, are what is asked about.
        QLabel* label = valueLabel(QString(), QStringLiteral("descriptionLabel"));
        label->setWordWrap(true);
        label->setToolTip(description);
        const QString firstLine = description.section(QLatin1Char('\n'), 0, 0);
        const QString folded = firstLine.size() > FoldedDescriptionChars
            ? QString(firstLine.left(FoldedDescriptionChars).trimmed() + QStringLiteral("…"))
            : QString(firstLine + (firstLine.size() < description.size() ? QStringLiteral(" …") : QString()));
        label->setText(folded);
        auto* toggle = new QToolButton;
        toggle->setObjectName(QStringLiteral("descriptionToggle"));
        toggle->setText(tr("More"));
        toggle->setCheckable(true);
        toggle->setAutoRaise(true);
        toggle->setVisible(folded != description);
        connect(toggle, &QToolButton::toggled, label, [label, toggle, description, folded](bool open) {
            label->setText(open ? description : folded);
            toggle->setText(open ? tr("Less") : tr("More"));
        });
        auto* descriptionRow = new QHBoxLayout;
        descriptionRow->addWidget(label, 1);
        descriptionRow->addWidget(toggle, 0, Qt::AlignTop);
        grid->addWidget(captionLabel(tr("Does")), row, 0);
        grid->addLayout(descriptionRow, row++, 1);
    }
    const QString hints = hintsText(annotations);
    if (!hints.isEmpty()) {
        grid->addWidget(captionLabel(tr("Hints")), row, 0);
        QLabel* hintsLabel = valueLabel(hints, QStringLiteral("hintsLabel"));
        hintsLabel->setWordWrap(true); // unwrapped, a narrow card's header scrolled sideways
        grid->addWidget(hintsLabel, row++, 1);
    }
    grid->setColumnStretch(1, 1);
    body->addLayout(grid);

    // What the tool may do, when it says it may harm or reach out, as a banner above the arguments.
    const auto [warning, meaning] = warningText(annotations);
    if (!warning.isEmpty()) {
        auto* banner = new QLabel(warning);
        banner->setToolTip(meaning);
        banner->setObjectName(QStringLiteral("hintsBanner"));
        banner->setTextFormat(Qt::PlainText);
        banner->setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #8a1c12; border: 1px solid #c01c28; "
                                             "border-radius: 4px; padding: 2px 6px; font-weight: bold; }"));
        addAboveAnswers(banner); // never scrolled away, with the arguments
    }

    // The arguments are what is asked: out of the scrolling part, right above the answers, taking
    // the spare height and never less than a few lines, so they show whatever the dock's height.
    auto* argumentsBox = new QWidget;
    argumentsBox->setObjectName(QStringLiteral("argumentsBox"));
    auto* argumentsLayout = new QVBoxLayout(argumentsBox);
    argumentsLayout->setContentsMargins(0, 0, 0, 0);
    argumentsLayout->setSpacing(2);
    m_arguments = new QPlainTextEdit;
    m_arguments->setObjectName(QStringLiteral("argumentsText"));
    m_arguments->setReadOnly(true);
    m_arguments->setTabChangesFocus(true); // Tab moves on to the answers, never stays in the text
    m_arguments->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_arguments->setFont(fixedFont());
    m_arguments->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_arguments->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_arguments->setPlaceholderText(tr("No arguments."));
    // No caption line above it (the height is the arguments'): what it is, for tooltips and screen readers.
    m_arguments->setToolTip(tr("The arguments of the call, as the client sent them"));
    m_arguments->setAccessibleName(tr("Arguments"));
    const int lines = QFontMetrics(m_arguments->font()).lineSpacing();
    m_arguments->setMinimumHeight(lines * MinArgumentLines + 2 * m_arguments->frameWidth() + 8);
    if (interaction.arguments.size() <= CallInspector::MaxHighlightedChars)
        m_highlighter = new JsonHighlighter(m_arguments->document());
    const QString arguments = CallInspector::prettyJson(interaction.arguments);
    m_arguments->setPlainText(arguments == QStringLiteral("{}") ? QString() : arguments);
    argumentsLayout->addWidget(m_arguments, 1);

    // Paths that climb out (`..`) or lie outside the directories the tools may use.
    QStringList roots;
    if (const auto it = renderSpec().find("roots"); it != renderSpec().end() && it->is_array()) {
        for (const json& root : *it) {
            if (root.is_string())
                roots.append(QString::fromStdString(root.get<std::string>()));
        }
    }
    const QStringList flagged
        = flaggedPaths(BoundedJson::parse(interaction.arguments, BoundedJson::Limits::record()).value, roots);
    if (!flagged.isEmpty()) {
        // One short line by the arguments: which ones to check; why and their values in the tooltip.
        QStringList names;
        for (const QString& flag : flagged)
            names.append(flag.section(QLatin1Char(' '), 0, 0));
        auto* paths = new QLabel(tr("⚠ Check the paths: %1").arg(names.join(QStringLiteral(", "))));
        paths->setToolTip(flagged.join(QLatin1Char('\n')));
        paths->setObjectName(QStringLiteral("pathWarning"));
        paths->setWordWrap(true); // one line, unless the dock is very narrow
        paths->setTextFormat(Qt::PlainText);
        paths->setTextInteractionFlags(Qt::TextSelectableByMouse);
        paths->setStyleSheet(QStringLiteral("QLabel { background: #fff4e0; color: #6b3f00; border: 1px solid #b36b00; "
                                            "border-radius: 4px; padding: 1px 6px; }"));
        argumentsLayout->addWidget(paths);
    }
    addAboveAnswers(argumentsBox, 1);

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
                .arg(this->interaction().tool.toHtmlEscaped(),
                    InteractionModel::clientLabel(this->interaction()).toHtmlEscaped()),
            m_allowSessionButton);
    });
    connect(m_alwaysAllowButton, &QPushButton::clicked, this, &ApprovalWidget::showScopeMenu);
    connect(deny, &QPushButton::clicked, this, [this] { decide(InteractionAnswer::Decision::Deny); });
    interactionUpdated();
    updateHighlighterColours();
}

void ApprovalWidget::interactionUpdated()
{
    // A one-shot runner's session ends with its process, and a stateless request has none: there is
    // no later call of the session to allow.
    m_allowSessionButton->setVisible(!interaction().fromRunner && !interaction().stateless);
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
