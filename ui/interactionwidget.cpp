#include "interactionwidget.h"

#include "boundedjson.h"
#include "interactionmodel.h"

#include <QApplication>
#include <QDateTime>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QStyle>
#include <QTimer>
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
    m_renderSpec = BoundedJson::parse(interaction.renderSpec, BoundedJson::Limits::record()).value;
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
    m_showCallButton->setAutoDefault(true); // Return on it shows the call, never answers
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
    m_backendCaption = captionLabel(tr("Backend"));
    m_backendLabel = valueLabel(QString(), QStringLiteral("backendLabel"));
    m_backendCaption->hide();
    m_backendLabel->hide();
    grid->addWidget(m_backendCaption, 0, 0);
    grid->addWidget(m_backendLabel, 0, 1);
    grid->addWidget(captionLabel(tr("Asked by")), 1, 0);
    grid->addWidget(m_clientLabel, 1, 1);
    grid->addWidget(captionLabel(tr("Session")), 2, 0);
    grid->addWidget(m_sessionLabel, 2, 1);
    grid->addWidget(captionLabel(tr("Call")), 3, 0);
    grid->addWidget(m_waitingLabel, 3, 1);
    grid->addWidget(m_earlierCallsLabel, 4, 1);
    grid->setColumnStretch(1, 1);

    auto* rule = new QFrame;
    rule->setFrameShape(QFrame::HLine);
    rule->setFrameShadow(QFrame::Sunken);

    m_body = new QWidget;
    m_bodyLayout = new QVBoxLayout(m_body);
    m_bodyLayout->setContentsMargins(0, 0, 0, 0);

    // One row for every kind of question, right under what it answers.
    m_buttonRow = new QWidget;
    m_buttonRow->setObjectName(QStringLiteral("answerButtons"));
    m_buttonRows = new QVBoxLayout(m_buttonRow);
    m_buttonRows->setContentsMargins(0, 0, 0, 0);
    // The row's width never holds the question wider than its dock (which would cut the answers
    // off at its edge): what does not fit goes on to a next row (arrangeAnswers).
    m_buttonRow->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    // Between the answers and the refusals: how long the waiting call still waits.
    m_timeLeftLabel = new QLabel;
    m_timeLeftLabel->setObjectName(QStringLiteral("timeLeftLabel"));
    m_timeLeftLabel->setToolTip(tr("When the waiting call gives up (interaction.maxWaitSeconds)"));
    m_answerWidgets.append({m_timeLeftLabel, ButtonPlace::Trailing});
    m_clock = new QTimer(this);
    m_clock->setInterval(1000);
    connect(m_clock, &QTimer::timeout, this, &InteractionWidget::updateTimeLeft);

    m_sendingLabel = new QLabel(tr("Sending the answer…"));
    m_sendingLabel->setObjectName(QStringLiteral("sendingLabel"));
    m_sendingLabel->setForegroundRole(QPalette::PlaceholderText);
    m_sendingLabel->hide();
    m_errorLabel = valueLabel(QString(), QStringLiteral("errorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(errorColour.name()));
    m_errorLabel->hide();

    // What is asked scrolls when the dock is short; the answers below it never do, so they are in
    // view whatever the size of the question.
    // The header as a block, shown whole or not at all: where the card is too short for it, one
    // compact line (the kind and the tool) takes its place, or nothing (fitHeader).
    m_header = new QWidget;
    m_header->setObjectName(QStringLiteral("questionHeader"));
    auto* headerLayout = new QVBoxLayout(m_header);
    headerLayout->setContentsMargins(0, 0, 0, 0);
    headerLayout->addLayout(titleRow);
    headerLayout->addLayout(grid);
    headerLayout->addWidget(rule);
    m_compactHeader = new QWidget;
    m_compactHeader->setObjectName(QStringLiteral("compactHeader"));
    m_compactKindLabel = new QLabel;
    m_compactKindLabel->setObjectName(QStringLiteral("compactKindLabel"));
    m_compactToolLabel = new QLabel;
    m_compactToolLabel->setObjectName(QStringLiteral("compactToolLabel"));
    m_compactToolLabel->setTextFormat(Qt::PlainText);
    QFont compactFont = m_compactToolLabel->font();
    compactFont.setBold(true);
    m_compactToolLabel->setFont(compactFont);
    // Elided to the width (fitHeader), never holding the card wider.
    m_compactToolLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* compactLayout = new QHBoxLayout(m_compactHeader);
    compactLayout->setContentsMargins(0, 0, 0, 0);
    compactLayout->addWidget(m_compactKindLabel);
    compactLayout->addWidget(m_compactToolLabel, 1);
    m_compactHeader->hide();

    auto* content = new QWidget;
    m_contentLayout = new QVBoxLayout(content);
    m_contentLayout->setContentsMargins(0, 0, 0, 0);
    m_contentLayout->addWidget(m_compactHeader);
    m_contentLayout->addWidget(m_header);
    m_contentLayout->addWidget(m_body, 1);
    m_contentLayout->addStretch(0);
    m_scroll = new QScrollArea;
    m_scroll->setObjectName(QStringLiteral("questionArea"));
    m_scroll->setWidget(content);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setFocusPolicy(Qt::NoFocus); // not a Tab stop of its own
    // Never sideways: in a short card a horizontal scroll bar took the height of the one line shown.
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Where height is short, what is asked above the answers keeps it: this part gives way first,
    // down to nothing (it scrolls; the list row above names the tool and the client).
    m_scroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    m_scroll->setMinimumHeight(1); // below QScrollArea's own minimum: what is above the answers keeps the height
    content->installEventFilter(this); // its layout changes: fitQuestionArea()

    auto* layout = new QVBoxLayout(this);
    layout->setSpacing(4); // tight: at 1366x768 with a large font every pixel goes to the arguments
    layout->addWidget(m_scroll, 1);
    m_aboveAnswers = new QVBoxLayout;
    m_aboveAnswers->setContentsMargins(0, 0, 0, 0);
    m_aboveAnswers->setSpacing(3);
    layout->addLayout(m_aboveAnswers);
    layout->addWidget(m_buttonRow);
    layout->addWidget(m_sendingLabel);
    layout->addWidget(m_errorLabel);
    layout->addStretch(0);
    m_layout = layout;

    updateHeader();
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        if (!now || !isAncestorOf(now))
            return;
        scrollIntoView(now);
        // Again once the layouts it may have set off (a field shown, a row wrapped) are done: a
        // queued call runs after the layout requests already posted.
        QMetaObject::invokeMethod(
            this,
            [this, field = QPointer<QWidget>(now)] {
                if (field && field->hasFocus())
                    scrollIntoView(field);
            },
            Qt::QueuedConnection);
    });
}

void InteractionWidget::scrollIntoView(QWidget* widget)
{
    // Inner areas first (a form's own), then the question's, each with the widget's whole rectangle
    // where the inner ones put it. Not QScrollArea::ensureWidgetVisible: for a line edit it shows
    // only the text cursor's rectangle, which leaves the field cut off at the viewport's edge.
    constexpr int Margin = 4;
    for (QWidget* parent = widget->parentWidget(); parent && parent != this; parent = parent->parentWidget()) {
        auto* area = qobject_cast<QScrollArea*>(parent);
        if (!area || !area->widget() || !area->widget()->isAncestorOf(widget))
            continue;
        const QRect rect(widget->mapTo(area->widget(), QPoint(0, 0)), widget->size());
        area->ensureVisible(
            rect.center().x(), rect.center().y(), rect.width() / 2 + Margin, rect.height() / 2 + Margin);
    }
}

void InteractionWidget::updateTimeLeft()
{
    const QString left = InteractionModel::timeLeftLabel(m_interaction, QDateTime::currentMSecsSinceEpoch());
    if (m_timeLeftLabel->isHidden() != left.isEmpty()) {
        m_timeLeftLabel->setVisible(!left.isEmpty());
        m_answerRowSizes.clear();
        if (m_layout)
            arrangeAnswers();
    }
    if (left.isEmpty()) {
        m_clock->stop();
        return;
    }
    m_timeLeftLabel->setText(tr("Gives up in %1").arg(left));
    // Red in the last minute, as in the list.
    const bool soon = m_interaction.deadlineMs - QDateTime::currentMSecsSinceEpoch() < 60'000;
    m_timeLeftLabel->setStyleSheet(
        soon ? QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(errorColour.name()) : QString());
    if (!m_clock->isActive())
        m_clock->start();
}

void InteractionWidget::setBodyExpands(bool expands)
{
    // Short widgets keep their buttons and messages right under the question; widgets with a list
    // or a form give it the height.
    m_contentLayout->setStretchFactor(m_body, expands ? 1 : 0);
    m_contentLayout->setStretch(m_contentLayout->count() - 1, expands ? 0 : 1);
    m_layout->setStretchFactor(m_scroll, expands ? 1 : 0);
    m_bodyExpands = expands;
    fitQuestionArea();
    m_layout->setStretch(m_layout->count() - 1, expands ? 0 : 1);
}

void InteractionWidget::setInteraction(const PendingInteraction& interaction)
{
    if (interaction.id != m_interaction.id)
        return;
    m_interaction = interaction;
    updateHeader();
    interactionUpdated();
    m_answerRowSizes.clear(); // which answers show may have changed
    arrangeAnswers();
}

void InteractionWidget::setBackendShown(bool shown)
{
    if (shown == m_backendShown)
        return;
    m_backendShown = shown;
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
    m_compactKindLabel->setText(m_kindLabel->text());
    m_compactKindLabel->setStyleSheet(m_kindLabel->styleSheet());
    m_toolLabel->setText(InteractionModel::toolLabel(interaction));
    m_compactToolLabel->setToolTip(
        InteractionModel::toolLabel(interaction) + QStringLiteral(" — ") + InteractionModel::clientLabel(interaction));
    const bool titled = !interaction.toolTitle.isEmpty() && interaction.toolTitle != interaction.tool;
    m_toolNameLabel->setText(titled ? interaction.tool : QString());
    m_toolNameLabel->setVisible(titled);
    m_toolLabel->setToolTip(tr("Tool %1, route %2").arg(interaction.tool, interaction.route.toString()));

    m_clientLabel->setText(InteractionModel::clientLabel(interaction));
    m_backendLabel->setText(interaction.backend);
    const bool named = m_backendShown && !interaction.backend.isEmpty();
    m_backendCaption->setVisible(named);
    m_backendLabel->setVisible(named);
    m_sessionLabel->setText(interaction.stateless ? tr("none (MCP 2026-07-28, stateless)")
            : interaction.fromRunner              ? tr("%1 (one-shot runner; ends with its process)")
                                           .arg(InteractionModel::shortSession(interaction.sessionId))
                                     : InteractionModel::shortSession(interaction.sessionId));
    m_sessionLabel->setToolTip(interaction.sessionId);
    m_waitingLabel->setText(InteractionModel::waitingLabel(interaction) + QStringLiteral(" — ")
        + InteractionModel::waitingDescription(interaction));
    m_waitingLabel->setStyleSheet(
        interaction.waiting ? QStringLiteral("QLabel { color: %1; }").arg(approvalColour.name()) : QString());

    updateTimeLeft();
    m_showCallButton->setText(tr("S&how call #%1").arg(interaction.callId));
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
    for (int i = 0; i < m_aboveAnswers->count(); ++i) {
        if (QWidget* widget = m_aboveAnswers->itemAt(i)->widget())
            widget->setEnabled(!sending);
    }
    m_buttonRow->setEnabled(!sending);
    m_sendingLabel->setVisible(sending);
}

void InteractionWidget::sendAnswer(const InteractionAnswer& answer)
{
    clearError();
    // The focus stays with the question while its buttons are disabled (it would otherwise jump to
    // whatever comes next in the window), so the panel can hand it to the next question.
    parkFocus();
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
    if (window()->focusWidget() == this)
        moveFocusWithin(initialFocusWidget());
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

QPushButton* InteractionWidget::addAnswerButton(const QString& text, const QString& objectName, ButtonPlace place)
{
    auto* button = new QPushButton(text);
    button->setObjectName(objectName);
    addAnswerWidget(button, place);
    guardKeys(button);
    return button;
}

void InteractionWidget::addAnswerWidget(QWidget* widget, ButtonPlace place)
{
    // Outside a dialog a button only takes Return itself when it is auto-default: then Return on
    // the focused button clicks that button, never the default one.
    if (auto* button = qobject_cast<QPushButton*>(widget))
        button->setAutoDefault(true);
    widget->setParent(m_buttonRow);
    if (place == ButtonPlace::Leading)
        m_answerWidgets.insert(m_leadingCount++, {widget, place});
    else
        m_answerWidgets.append({widget, place});
    m_answerRowSizes.clear(); // arranged again
    arrangeAnswers();
}

void InteractionWidget::addAboveAnswers(QWidget* widget, int stretch)
{
    m_aboveAnswers->addWidget(widget, stretch);
    if (stretch > 0) {
        // What is asked is here, by the answers: the question area above may go where it has no room.
        m_questionAreaOptional = true;
        // It takes the spare height; the question area above keeps only what it shows, and
        // scrolls when even that does not fit.
        setBodyExpands(false);
        m_layout->setStretchFactor(m_aboveAnswers, stretch);
        m_layout->setStretch(m_layout->count() - 1, 0);
    }
}

void InteractionWidget::setDefaultButton(QPushButton* button)
{
    if (m_defaultButton)
        m_defaultButton->setDefault(false);
    m_defaultButton = button;
    if (button)
        button->setDefault(true);
}

void InteractionWidget::setReturnButton(QWidget* field, QPushButton* button)
{
    m_returnButtons.append({field, button});
    // The field and the inputs inside it (a group box's line edits); call when they exist.
    field->installEventFilter(this);
    const QList<QWidget*> inputs = field->findChildren<QWidget*>();
    for (QWidget* input : inputs)
        input->installEventFilter(this);
}

QWidget* InteractionWidget::initialFocusWidget() const
{
    if (m_defaultButton && m_defaultButton->isVisibleTo(this) && m_defaultButton->isEnabled())
        return m_defaultButton;
    for (const auto& [widget, place] : m_answerWidgets) {
        if (qobject_cast<QPushButton*>(widget) && widget->isVisibleTo(this) && widget->isEnabled())
            return widget;
    }
    return nullptr;
}

QSize InteractionWidget::minimumSizeHint() const
{
    QSize least = QWidget::minimumSizeHint();
    int widest = 0;
    for (const auto& item : m_answerWidgets) {
        if (item.first->isVisibleTo(this)) // not isHidden(): before the card first shows, all its children are
            widest = qMax(widest, item.first->sizeHint().width());
    }
    const QMargins margins = m_layout->contentsMargins();
    least.setWidth(qMax(least.width(), widest + margins.left() + margins.right()));
    return least;
}

int InteractionWidget::leastHeightAt(int width)
{
    resize(width, qMax(1, height()));
    arrangeAnswers();
    // Measured now: the layouts would learn of the new rows only from events posted for later.
    m_buttonRows->invalidate();
    m_buttonRows->activate();
    m_layout->invalidate();
    m_layout->activate();
    const QMargins margins = m_layout->contentsMargins();
    const int spacing = qMax(0, m_layout->spacing());
    const int area = m_scroll->isVisibleTo(this) ? m_scroll->minimumHeight() + spacing : 0;
    // The question area above at its least, whatever it shows at the card's present height (fitHeader):
    // where what is asked is by the answers, its least pixel and the spacing (which the layout keeps
    // until the card has its height), else its header as one compact line.
    const int least = m_questionAreaOptional
        ? 1 + spacing
        : heightAt(m_compactHeader, qMax(0, width - margins.left() - margins.right())) + 2 * m_scroll->frameWidth()
            + spacing;
    return minimumSizeHint().height() - area + least;
}

bool InteractionWidget::focusIsWithin() const
{
    // The window's focus widget, whether or not the window is active: focus given to a question in
    // a window in the background is where typing goes once the person comes back.
    const QWidget* focus = window()->focusWidget();
    return focus && (focus == this || isAncestorOf(focus));
}

void InteractionWidget::parkFocus()
{
    if (focusIsWithin())
        setFocus(Qt::OtherFocusReason);
}

void InteractionWidget::moveFocusWithin(QWidget* widget)
{
    if (widget && focusIsWithin())
        widget->setFocus(Qt::OtherFocusReason);
}

namespace {

bool isPlainReturn(const QKeyEvent* event)
{
    const bool isReturn = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    return isReturn && (event->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier;
}

} // namespace

bool InteractionWidget::clickIfAvailable(QPushButton* button)
{
    // Only keys come here (Return in a field or on the question): ignored while they are delayed.
    if (m_sending || !acceptsKeys() || !button || !button->isVisible() || !button->isEnabled())
        return false;
    button->click();
    return true;
}

void InteractionWidget::guardKeys(QPushButton* button)
{
    m_guardedButtons.append(button);
    button->installEventFilter(this);
}

void InteractionWidget::delayKeys()
{
    m_keysFrom = QDeadlineTimer(KeyDelayMs);
}

void InteractionWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_answerRowSizes.clear(); // the buttons shown may have changed while it was hidden
    arrangeAnswers();
    // The question appeared (it came up, or it was selected): a key already on its way was meant
    // for whatever was there before.
    delayKeys();
}

void InteractionWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Back from another window: keys typed there a moment ago must not land on an answer.
    if (event->type() == QEvent::ActivationChange && isActiveWindow())
        delayKeys();
}

void InteractionWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    arrangeAnswers();
    fitQuestionArea();
    fitHeader();
}

void InteractionWidget::arrangeAnswers()
{
    // Side by side while they fit the width (answers left, refusals right); else on as many rows
    // as they need, in the same order, so every answer stays whole and in view.
    const QMargins margins = m_layout->contentsMargins();
    const int available = qMax(1, width() - margins.left() - margins.right());
    const int spacing = qMax(0, style()->pixelMetric(QStyle::PM_LayoutHorizontalSpacing));
    QList<QList<QPair<QWidget*, ButtonPlace>>> rows{{}};
    int rowWidth = 0;
    for (const auto& item : std::as_const(m_answerWidgets)) {
        // A hidden one rides along in the current row: it takes no room until it shows.
        // Would it show with the card (before the card first shows, isHidden() says so of every child)?
        const int wanted = item.first->isVisibleTo(this) ? item.first->sizeHint().width() : 0;
        if (wanted > 0 && rowWidth > 0 && rowWidth + spacing + wanted > available) {
            rows.append(QList<QPair<QWidget*, ButtonPlace>>());
            rowWidth = 0;
        }
        rows.last().append(item);
        if (wanted > 0)
            rowWidth += (rowWidth > 0 ? spacing : 0) + wanted;
    }
    QList<int> sizes;
    for (const auto& row : std::as_const(rows))
        sizes.append(int(row.size()));
    if (sizes == m_answerRowSizes)
        return;
    m_answerRowSizes = sizes;
    updateGeometry(); // the widest answer may have changed (minimumSizeHint)
    while (QLayoutItem* item = m_buttonRows->takeAt(0))
        delete item; // a row's layout; its widgets stay, children of the button row
    for (const auto& row : std::as_const(rows)) {
        auto* line = new QHBoxLayout;
        bool stretched = false;
        for (const auto& [widget, place] : row) {
            if (place == ButtonPlace::Trailing && !stretched) {
                line->addStretch(1);
                stretched = true;
            }
            line->addWidget(widget);
        }
        if (!stretched)
            line->addStretch(1);
        m_buttonRows->addLayout(line);
    }
}

void InteractionWidget::fitQuestionArea()
{
    // A short question's area is as tall as what it shows at this width, so its answers follow
    // right below (QScrollArea's own size hint is kept from before the question was complete).
    if (m_bodyExpands) {
        m_scroll->setMaximumHeight(QWIDGETSIZE_MAX);
        return;
    }
    const QWidget* content = m_scroll->widget();
    const QMargins margins = m_layout->contentsMargins();
    const int width = qMax(0, this->width() - margins.left() - margins.right());
    const int height = content->hasHeightForWidth() ? content->heightForWidth(width) : content->sizeHint().height();
    m_scroll->setMaximumHeight(qMax(height, content->minimumSizeHint().height()) + 2 * m_scroll->frameWidth());
}

int InteractionWidget::heightAt(const QWidget* widget, int width)
{
    const int height = widget->hasHeightForWidth() ? widget->heightForWidth(width) : widget->sizeHint().height();
    return qMax(height, widget->minimumSizeHint().height());
}

void InteractionWidget::fitHeader()
{
    // The question area's least height decides how the header shows: whole, where the card has the
    // room for all of it above what never scrolls; else as one compact line; else (where what is
    // asked is above the answers, and the list's row names the tool) not at all. A header cut by
    // the area, a sliver of it, reads as broken. Decided from the card's height and what the rest
    // needs, never from the area's height now, which follows the decision.
    const QMargins margins = m_layout->contentsMargins();
    const int width = qMax(0, this->width() - margins.left() - margins.right());
    const int frames = 2 * m_scroll->frameWidth();
    const int spacing = qMax(0, m_layout->spacing());
    const int rest
        = m_layout->minimumSize().height() - (m_scroll->isHidden() ? 0 : m_scroll->minimumHeight() + spacing);
    const int room = height() - rest - spacing; // for the question area
    const int whole = heightAt(m_header, width) + frames;
    const int compact = heightAt(m_compactHeader, width) + frames;
    // Narrower than the whole header's row (a short window's dock at its least width), it would
    // scroll sideways, its scroll bar over the little of it that shows: compact instead.
    const bool narrow = width < m_header->minimumSizeHint().width();
    HeaderShape shape = HeaderShape::Whole;
    if (room < whole || narrow)
        shape = room >= compact || !m_questionAreaOptional ? HeaderShape::Compact : HeaderShape::None;
    if (shape == HeaderShape::Compact) {
        const int textWidth = qMax(0, width - m_compactKindLabel->sizeHint().width() - spacing * 2);
        // In a window of several backends the compact line names the one that asks too.
        const QString tool = m_backendShown && !m_interaction.backend.isEmpty()
            ? InteractionModel::toolLabel(m_interaction) + QStringLiteral(" — ") + m_interaction.backend
            : InteractionModel::toolLabel(m_interaction);
        m_compactToolLabel->setText(m_compactToolLabel->fontMetrics().elidedText(tool, Qt::ElideRight, textWidth));
    }
    // The area's least height holds what it shows of the header whole (it may change with the width).
    m_scroll->setMinimumHeight(shape == HeaderShape::Whole ? whole : shape == HeaderShape::Compact ? compact : 1);
    if (shape == m_headerShape)
        return;
    m_headerShape = shape;
    m_header->setVisible(shape == HeaderShape::Whole);
    m_compactHeader->setVisible(shape == HeaderShape::Compact);
    m_scroll->setVisible(shape != HeaderShape::None);
}

bool InteractionWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::LayoutRequest && watched == m_scroll->widget()) {
        fitQuestionArea();
        fitHeader();
    }
    // A key that would click an answer button (Return, Enter, Space on the focused button, or its
    // mnemonic) is dropped while keys are delayed; the mouse still works.
    if (!acceptsKeys() && m_guardedButtons.contains(qobject_cast<QPushButton*>(watched))) {
        if (event->type() == QEvent::Shortcut)
            return true;
        if (event->type() == QEvent::KeyPress) {
            const int key = static_cast<QKeyEvent*>(event)->key();
            if (key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Space || key == Qt::Key_Select)
                return true;
        }
    }
    // Return in a field with a button of its own (setReturnButton) answers with that button, and
    // never reaches the default one.
    if (event->type() == QEvent::KeyPress && isPlainReturn(static_cast<QKeyEvent*>(event))) {
        for (const auto& [field, button] : std::as_const(m_returnButtons)) {
            if (field == watched || field->isAncestorOf(qobject_cast<QWidget*>(watched))) {
                clickIfAvailable(button);
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void InteractionWidget::keyPressEvent(QKeyEvent* event)
{
    // What reaches here came from no button (they are auto-default and take their own Return) and
    // no field with a button of its own: it is the default button's. Escape is left to the panel.
    if (isPlainReturn(event) && clickIfAvailable(m_defaultButton)) {
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

QString InteractionWidget::withoutMnemonic(const QString& text)
{
    QString escaped = text;
    return escaped.replace(QLatin1Char('&'), QStringLiteral("&&"));
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
