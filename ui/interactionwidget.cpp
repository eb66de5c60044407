#include "interactionwidget.h"

#include "interactionmodel.h"

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

using nlohmann::json;

namespace {

// The call log's colours: amber for a call that waits on a person, blue for client tools.
const QColor approvalColour(0xb3, 0x6b, 0x00);
const QColor clientToolColour(0x1f, 0x6f, 0xd1);
const QColor errorColour(0xc0, 0x1c, 0x28);

} // namespace

InteractionWidget::InteractionWidget(const PendingInteraction& interaction, QWidget* parent)
    : QWidget(parent)
    , m_interaction(interaction)
{
    m_renderSpec = json::parse(interaction.renderSpec.constBegin(), interaction.renderSpec.constEnd(), nullptr, false);
    if (!m_renderSpec.is_object())
        m_renderSpec = json::object();

    m_kindLabel = new QLabel;
    m_kindLabel->setObjectName(QStringLiteral("kindLabel"));
    m_toolLabel = valueLabel(QString(), QStringLiteral("toolLabel"));
    QFont toolFont = m_toolLabel->font();
    toolFont.setPointSizeF(toolFont.pointSizeF() * 1.2);
    toolFont.setBold(true);
    m_toolLabel->setFont(toolFont);
    m_toolLabel->setWordWrap(true);
    m_toolNameLabel = valueLabel(QString(), QStringLiteral("toolNameLabel"));
    m_toolNameLabel->setForegroundRole(QPalette::PlaceholderText);
    m_showCallButton = new QPushButton(tr("Show call"));
    m_showCallButton->setObjectName(QStringLiteral("showCallButton"));
    m_showCallButton->setToolTip(tr("Select the call that asks in the call log"));
    connect(m_showCallButton, &QPushButton::clicked, this, [this] { Q_EMIT showCallRequested(m_interaction.callId); });

    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_kindLabel, 0, Qt::AlignTop);
    titleRow->addSpacing(4);
    auto* titles = new QVBoxLayout;
    titles->setSpacing(0);
    titles->addWidget(m_toolLabel);
    titles->addWidget(m_toolNameLabel);
    titleRow->addLayout(titles, 1);
    titleRow->addWidget(m_showCallButton, 0, Qt::AlignTop);

    m_clientLabel = valueLabel(QString(), QStringLiteral("clientLabel"));
    m_sessionLabel = valueLabel(QString(), QStringLiteral("sessionLabel"));
    m_waitingLabel = valueLabel(QString(), QStringLiteral("waitingLabel"));
    m_waitingLabel->setWordWrap(true);
    m_earlierCallsLabel = new QLabel;
    m_earlierCallsLabel->setObjectName(QStringLiteral("earlierCallsLabel"));
    m_earlierCallsLabel->setTextFormat(Qt::RichText);
    m_earlierCallsLabel->setWordWrap(true);
    connect(m_earlierCallsLabel, &QLabel::linkActivated, this, [this](const QString& link) {
        bool ok = false;
        const qint64 callId = link.mid(int(qstrlen("call:"))).toLongLong(&ok);
        if (ok)
            Q_EMIT showCallRequested(callId);
    });

    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    grid->addWidget(captionLabel(tr("Asked by")), 0, 0);
    grid->addWidget(m_clientLabel, 0, 1);
    grid->addWidget(captionLabel(tr("Session")), 1, 0);
    grid->addWidget(m_sessionLabel, 1, 1);
    grid->addWidget(captionLabel(tr("Call")), 2, 0);
    grid->addWidget(m_waitingLabel, 2, 1);
    grid->addWidget(m_earlierCallsLabel, 3, 1);
    grid->setColumnStretch(1, 1);

    auto* rule = new QFrame;
    rule->setFrameShape(QFrame::HLine);
    rule->setFrameShadow(QFrame::Sunken);

    m_body = new QWidget;
    m_bodyLayout = new QVBoxLayout(m_body);
    m_bodyLayout->setContentsMargins(0, 0, 0, 0);

    m_sendingLabel = new QLabel(tr("Sending the answer…"));
    m_sendingLabel->setObjectName(QStringLiteral("sendingLabel"));
    m_sendingLabel->setForegroundRole(QPalette::PlaceholderText);
    m_sendingLabel->hide();
    m_errorLabel = valueLabel(QString(), QStringLiteral("errorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(errorColour.name()));
    m_errorLabel->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(titleRow);
    layout->addLayout(grid);
    layout->addWidget(rule);
    layout->addWidget(m_body, 1);
    layout->addWidget(m_sendingLabel);
    layout->addWidget(m_errorLabel);
    layout->addStretch(0);
    m_layout = layout;

    updateHeader();
}

void InteractionWidget::setBodyExpands(bool expands)
{
    // Short widgets keep their buttons and messages right under the question; widgets with a list
    // or a form give it the height.
    m_layout->setStretchFactor(m_body, expands ? 1 : 0);
    m_layout->setStretch(m_layout->count() - 1, expands ? 0 : 1);
}

void InteractionWidget::setInteraction(const PendingInteraction& interaction)
{
    if (interaction.id != m_interaction.id)
        return;
    m_interaction = interaction;
    updateHeader();
}

void InteractionWidget::updateHeader()
{
    const PendingInteraction& interaction = m_interaction;
    const QColor kindColour = interaction.kind == InteractionKind::Approval ? approvalColour : clientToolColour;
    m_kindLabel->setText(InteractionModel::kindLabel(interaction));
    // The inspector's outlined badge: the colour marks the kind, the text keeps it readable.
    m_kindLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; border: 1px solid %1; border-radius: 4px; "
                                              "padding: 1px 6px; font-weight: bold; }")
                                   .arg(kindColour.name()));
    m_toolLabel->setText(InteractionModel::toolLabel(interaction));
    const bool titled = !interaction.toolTitle.isEmpty() && interaction.toolTitle != interaction.tool;
    m_toolNameLabel->setText(titled ? interaction.tool : QString());
    m_toolNameLabel->setVisible(titled);
    m_toolLabel->setToolTip(tr("Tool %1, route %2").arg(interaction.tool, interaction.route.toString()));

    m_clientLabel->setText(InteractionModel::clientLabel(interaction));
    m_sessionLabel->setText(InteractionModel::shortSession(interaction.sessionId));
    m_sessionLabel->setToolTip(interaction.sessionId);
    m_waitingLabel->setText(InteractionModel::waitingLabel(interaction) + QStringLiteral(" — ")
        + InteractionModel::waitingDescription(interaction));
    m_waitingLabel->setStyleSheet(
        interaction.waiting ? QStringLiteral("QLabel { color: %1; }").arg(approvalColour.name()) : QString());

    m_showCallButton->setText(tr("Show call #%1").arg(interaction.callId));
    m_showCallButton->setEnabled(interaction.callId > 0);
    // Earlier calls of the same question (parked, or dropped and retried) link to their own rows.
    QStringList links;
    for (qint64 callId : interaction.earlierCallIds)
        links.append(QStringLiteral("<a href=\"call:%1\">#%1</a>").arg(callId));
    m_earlierCallsLabel->setText(
        links.isEmpty() ? QString() : tr("Earlier calls: %1").arg(links.join(QStringLiteral(", "))));
    m_earlierCallsLabel->setVisible(!links.isEmpty());
}

QString InteractionWidget::specString(const char* key) const
{
    const auto it = m_renderSpec.find(key);
    return it != m_renderSpec.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

QString InteractionWidget::errorText() const
{
    return m_errorLabel->isHidden() ? QString() : m_errorLabel->text();
}

void InteractionWidget::setSending(bool sending)
{
    m_sending = sending;
    m_body->setEnabled(!sending);
    m_sendingLabel->setVisible(sending);
}

void InteractionWidget::sendAnswer(const InteractionAnswer& answer)
{
    clearError();
    // Until the backend resolves the question (and the panel removes this widget) or refuses the
    // answer, a second click would only be refused.
    setSending(true);
    Q_EMIT answered(m_interaction.id, answer);
}

void InteractionWidget::respond(const json& output)
{
    sendAnswer(InteractionAnswer::respond(output));
}

void InteractionWidget::showAnswerFailed(const QString& error)
{
    setSending(false);
    showError(tr("The answer was not accepted: %1").arg(error));
}

void InteractionWidget::showError(const QString& message)
{
    m_errorLabel->setText(message);
    m_errorLabel->show();
}

void InteractionWidget::clearError()
{
    m_errorLabel->clear();
    m_errorLabel->hide();
}

void InteractionWidget::addQuestionLabels()
{
    // The operator's prompt (from the configuration) first, then the call's own words.
    const QString prompt = specString("prompt");
    const QString question = specString("question");
    if (!prompt.isEmpty()) {
        QLabel* label = valueLabel(prompt, QStringLiteral("promptLabel"));
        label->setWordWrap(true);
        QFont font = label->font();
        font.setBold(true);
        label->setFont(font);
        m_bodyLayout->addWidget(label);
    }
    if (!question.isEmpty() && question != prompt) {
        QLabel* label = valueLabel(question, QStringLiteral("questionLabel"));
        label->setWordWrap(true);
        m_bodyLayout->addWidget(label);
    }
}

QHBoxLayout* InteractionWidget::addButtonRow(const QList<QPushButton*>& leading, const QList<QPushButton*>& trailing)
{
    auto* row = new QHBoxLayout;
    for (QPushButton* button : leading)
        row->addWidget(button);
    row->addStretch(1);
    for (QPushButton* button : trailing)
        row->addWidget(button);
    for (QPushButton* button : leading + trailing)
        button->setAutoDefault(false); // Return in a field must not answer by accident
    m_bodyLayout->addLayout(row);
    return row;
}

QLabel* InteractionWidget::captionLabel(const QString& text)
{
    auto* label = new QLabel(text);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

QLabel* InteractionWidget::valueLabel(const QString& text, const QString& objectName)
{
    auto* label = new QLabel(text);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return label;
}
