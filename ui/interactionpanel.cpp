#include "interactionpanel.h"

#include "approvalwidget.h"
#include "choicewidget.h"
#include "confirmwidget.h"
#include "connectwidget.h"
#include "desktopnotifier.h"
#include "formwidget.h"
#include "interactionmodel.h"
#include "modelroles.h"

#include <QApplication>
#include <QDesktopServices>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace {

// The keys of a question's desktop notification buttons, and the tag of the notification that
// stands for several questions that came at once.
constexpr auto AllowOnceAction = "allow_once";
constexpr auto DenyAction = "deny";
QString manyQuestionsTag()
{
    return QStringLiteral("questions");
}

// The window's icon with the count in a badge, as mail and chat programs show unread messages.
QIcon badgedIcon(const QIcon& base, int count)
{
    constexpr int Size = 64;
    QPixmap pixmap = base.isNull() ? QPixmap(Size, Size) : base.pixmap(Size, Size);
    if (base.isNull())
        pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF badge(Size * 0.4, Size * 0.4, Size * 0.6, Size * 0.6);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0xc0, 0x1c, 0x28));
    painter.drawEllipse(badge);
    QFont font = painter.font();
    font.setBold(true);
    font.setPixelSize(count > 99 ? Size / 5 : Size / 3);
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(badge, Qt::AlignCenter, count > 99 ? QStringLiteral("99+") : QString::number(count));
    return QIcon(pixmap);
}

} // namespace

InteractionPanel::InteractionPanel(QWidget* parent)
    : QDockWidget(parent)
    , m_model(new InteractionModel(this))
    , m_list(new QTableView)
    , m_stack(new QStackedWidget)
    , m_openUrl([](const QUrl& url) { return QDesktopServices::openUrl(url); })
{
    setObjectName(QStringLiteral("interactionPanel"));
    // Answering is the panel's whole job; closing it by accident would hide questions.
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);

    m_list->setObjectName(QStringLiteral("interactionList"));
    m_list->setModel(m_model);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setShowGrid(false);
    m_list->setAlternatingRowColors(true);
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideRight);
    // Tab leaves the list for the question below instead of walking its cells.
    m_list->setTabKeyNavigation(false);
    m_list->verticalHeader()->setVisible(false);
    m_list->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_list->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    QHeaderView* columns = m_list->horizontalHeader();
    columns->setHighlightSections(false);
    columns->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // The details (a provider, the first arguments) take the room left; the tool and the client
    // start at a width that shows most names, elided beyond it (and can be widened).
    columns->setSectionResizeMode(QHeaderView::Interactive);
    for (int column : {InteractionModel::KindColumn, InteractionModel::TimeLeftColumn, InteractionModel::AgeColumn})
        columns->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    columns->setSectionResizeMode(InteractionModel::DetailsColumn, QHeaderView::Stretch);
    columns->resizeSection(InteractionModel::ToolColumn, fontMetrics().averageCharWidth() * 14);
    columns->resizeSection(InteractionModel::ClientColumn, fontMetrics().averageCharWidth() * 12);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The session is in the widget's header; whether a call waits shows in the order, the time left
    // (none for a parked or dropped call, whose row is grey) and the header. The list stays narrow.
    m_list->setColumnHidden(InteractionModel::SessionColumn, true);
    m_list->setColumnHidden(InteractionModel::StateColumn, true);
    // Two rows at least: the height goes to the selected question's arguments and answers.
    m_list->setMinimumHeight(m_list->verticalHeader()->defaultSectionSize() * 2 + columns->sizeHint().height());

    auto* placeholder = new QLabel(tr("No questions are waiting.\n\nWhen a client calls a tool whose permission is "
                                      "\"ask\", or a client tool such as request_connection, its question appears "
                                      "here."));
    placeholder->setObjectName(QStringLiteral("interactionPlaceholder"));
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setWordWrap(true);
    placeholder->setForegroundRole(QPalette::PlaceholderText);
    placeholder->setMargin(12);
    m_placeholder = placeholder;
    m_stack->addWidget(m_placeholder);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->setObjectName(QStringLiteral("interactionSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_list);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({m_list->verticalHeader()->defaultSectionSize() * 5, 600});

    auto* contents = new QWidget;
    auto* layout = new QVBoxLayout(contents);
    layout->setContentsMargins(6, 0, 0, 0);
    layout->addWidget(splitter);
    setWidget(contents);
    setDesktopNotifier(new DesktopNotifier(this));
    updateLeastWidth();

    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &InteractionPanel::onCurrentRowChanged);
    // Return on a row goes to its question.
    connect(m_list, &QAbstractItemView::activated, this, [this] {
        if (InteractionWidget* widget = currentWidget(); widget && widget->initialFocusWidget())
            widget->initialFocusWidget()->setFocus(Qt::OtherFocusReason);
    });
    connect(m_model, &InteractionModel::countChanged, this, [this](int count) {
        updateTitle();
        Q_EMIT countChanged(count);
    });
    updateTitle();
}

int InteractionPanel::count() const
{
    return m_model->count();
}

int InteractionPanel::waitingCount() const
{
    int waiting = 0;
    for (int row = 0; row < m_model->count(); ++row)
        waiting += m_model->interactionAt(row).waiting ? 1 : 0;
    return waiting;
}

InteractionWidget* InteractionPanel::widgetFor(const QString& interactionId) const
{
    return m_widgets.value(interactionId);
}

QString InteractionPanel::currentInteractionId() const
{
    const QModelIndex current = m_list->currentIndex();
    return current.isValid() ? current.data(InteractionIdRole).toString() : QString();
}

InteractionWidget* InteractionPanel::currentWidget() const
{
    return widgetFor(currentInteractionId());
}

void InteractionPanel::setSecretStorage(const QString& description)
{
    m_secretStorage = description;
    for (InteractionWidget* widget : std::as_const(m_widgets)) {
        if (auto* connect = qobject_cast<ConnectWidget*>(widget))
            connect->setSecretStorage(description);
    }
}

void InteractionPanel::setUrlOpener(std::function<bool(const QUrl&)> opener)
{
    m_openUrl = std::move(opener);
}

QString InteractionPanel::countText(int count)
{
    return count == 1 ? tr("1 question") : tr("%1 questions").arg(count);
}

void InteractionPanel::updateTitle()
{
    const int pending = count();
    setWindowTitle(pending == 0 ? tr("Questions") : tr("Questions (%1)").arg(pending));
    updateTray();
}

QSystemTrayIcon* InteractionPanel::ensureTray()
{
    if (!m_tray && QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(this);
        // Clicking the icon or the notification is the person asking for the window: raising it then
        // is theirs to ask, unlike a question arriving.
        const auto goThere = [this] {
            raiseWindow();
            goToQuestions();
        };
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, goThere);
        connect(m_tray, &QSystemTrayIcon::activated, this, goThere);
    }
    return m_tray;
}

void InteractionPanel::updateTray()
{
    const int pending = count();
    // Only while questions wait: the console has no other business in the tray.
    if (pending == 0) {
        if (m_tray)
            m_tray->hide();
        return;
    }
    if (!ensureTray())
        return;
    m_tray->setIcon(badgedIcon(window()->windowIcon(), pending));
    m_tray->setToolTip(tr("Switchboard — %1").arg(countText(pending)));
    m_tray->show();
}

InteractionWidget* InteractionPanel::createWidget(const PendingInteraction& interaction)
{
    InteractionWidget* widget = nullptr;
    if (interaction.kind == InteractionKind::Approval) {
        widget = new ApprovalWidget(interaction);
    } else if (interaction.render == RenderHint::Connect) {
        auto* connectWidget = new ConnectWidget(interaction);
        connectWidget->setSecretStorage(m_secretStorage);
        connect(connectWidget, &ConnectWidget::apiKeyEntered, this, &InteractionPanel::apiKeyEntered);
        connect(connectWidget, &ConnectWidget::oauthRequested, this, &InteractionPanel::oauthRequested);
        connect(connectWidget, &ConnectWidget::oauthCancelled, this, &InteractionPanel::oauthCancelled);
        widget = connectWidget;
    } else if (interaction.render == RenderHint::Confirm) {
        widget = new ConfirmWidget(interaction);
    } else if (interaction.render == RenderHint::Choice) {
        widget = new ChoiceWidget(interaction);
    } else if (interaction.render == RenderHint::Form) {
        widget = new FormWidget(interaction);
    } else {
        // A render this console does not know (a newer configuration): the header still says who
        // asks, and the client's timeout or a cancel ends the call.
        widget = new InteractionWidget(interaction);
    }
    widget->setObjectName(QStringLiteral("interaction_") + interaction.id);
    connect(widget, &InteractionWidget::answered, this, &InteractionPanel::answerRequested);
    connect(widget, &InteractionWidget::showCallRequested, this, &InteractionPanel::showCallRequested);
    return widget;
}

void InteractionPanel::setBackendsShown(bool shown)
{
    m_backendsShown = shown;
    m_model->setBackendsShown(shown);
    for (InteractionWidget* widget : std::as_const(m_widgets))
        widget->setBackendShown(shown);
}

void InteractionPanel::setBackendAnswerable(const QString& backend, bool answerable)
{
    if (answerable)
        m_unanswerableBackends.remove(backend);
    else
        m_unanswerableBackends.insert(backend);
    for (InteractionWidget* widget : std::as_const(m_widgets)) {
        if (widget->interaction().backend == backend)
            widget->setEnabled(answerable);
    }
}

bool InteractionPanel::upsert(const PendingInteraction& interaction)
{
    m_model->upsert(interaction);
    if (InteractionWidget* widget = m_widgets.value(interaction.id)) {
        widget->setInteraction(interaction);
        return false;
    }
    // Long forms and JSON scroll inside the widget, above its answers (which stay in view).
    InteractionWidget* widget = createWidget(interaction);
    widget->setBackendShown(m_backendsShown);
    widget->setEnabled(!m_unanswerableBackends.contains(interaction.backend));
    QWidget* page = widget;
    m_widgets.insert(interaction.id, widget);
    m_pages.insert(interaction.id, page);
    m_stack->addWidget(page);
    return true;
}

void InteractionPanel::addInteraction(const PendingInteraction& interaction)
{
    const bool wasEmpty = count() == 0;
    if (upsert(interaction))
        notify(1, interaction);
    followQueue(wasEmpty);
}

void InteractionPanel::updateInteraction(const PendingInteraction& interaction)
{
    upsert(interaction);
    followQueue(false);
}

void InteractionPanel::setInteractions(const PendingInteractionList& interactions)
{
    const QStringList known = m_widgets.keys();
    for (const QString& id : known) {
        const bool listed = std::any_of(interactions.cbegin(), interactions.cend(),
            [&id](const PendingInteraction& interaction) { return interaction.id == id; });
        if (!listed)
            removeInteraction(id);
    }
    const bool wasEmpty = count() == 0;
    int added = 0;
    for (const PendingInteraction& interaction : interactions) {
        if (upsert(interaction))
            ++added;
    }
    if (added > 0)
        notify(added, interactions.last());
    followQueue(wasEmpty);
}

void InteractionPanel::resolveInteraction(const QString& interactionId, InteractionOutcome outcome)
{
    const QModelIndex index = m_model->indexOfInteraction(interactionId);
    if (!index.isValid())
        return;
    const PendingInteraction interaction = m_model->interactionAt(index.row());
    // The person was answering it (or had just answered it): the focus goes on to the next question.
    const InteractionWidget* leaving = widgetFor(interactionId);
    const bool answering = leaving && leaving->focusIsWithin();
    // Out of the leaving widget first: hidden with the focus, it would hand the focus to whatever
    // question the view makes current, which then looks like one being answered.
    if (answering)
        m_list->setFocus(Qt::OtherFocusReason);
    removeInteraction(interactionId);
    // The view makes the row after the one that left current; the queue's order says which is next.
    followQueue(false);
    if (answering) {
        // On to the next live question; a parked one (no call waits) is there to read, not to be
        // answered by the next keystroke, so the focus waits in the list (as when nothing is left).
        if (currentWidget() && currentWidget()->interaction().waiting)
            focusCurrentQuestion();
        else
            m_list->setFocus(Qt::OtherFocusReason);
    }
    Q_EMIT interactionResolved(interaction, outcome);
}

void InteractionPanel::removeInteraction(const QString& interactionId)
{
    // Answered here, elsewhere or not at all: its notification's buttons would answer nothing now.
    if (m_notifier) {
        m_notifier->close(interactionId);
        if (count() <= 1)
            m_notifier->close(manyQuestionsTag());
    }
    m_model->remove(interactionId);
    m_widgets.remove(interactionId);
    if (QWidget* page = m_pages.take(interactionId)) {
        m_stack->removeWidget(page);
        page->deleteLater();
    }
    if (!m_list->currentIndex().isValid())
        m_stack->setCurrentWidget(m_placeholder);
}

void InteractionPanel::showAnswerFailed(const QString& interactionId, const QString& error)
{
    if (InteractionWidget* widget = widgetFor(interactionId))
        widget->showAnswerFailed(error);
}

void InteractionPanel::showConnectFailed(const QString& interactionId, const QString& message)
{
    if (auto* widget = qobject_cast<ConnectWidget*>(widgetFor(interactionId)))
        widget->showConnectFailed(message);
}

void InteractionPanel::showAuthorizationUrl(const QString& interactionId, const QUrl& url)
{
    auto* widget = qobject_cast<ConnectWidget*>(widgetFor(interactionId));
    if (!widget)
        return;
    // Said in the widget when it fails (no browser, no desktop session): the address is there to copy.
    const bool opened = m_openUrl && m_openUrl(url);
    widget->showAuthorizationUrl(url, opened);
}

void InteractionPanel::selectInteraction(const QString& interactionId)
{
    const QModelIndex index = m_model->indexOfInteraction(interactionId);
    if (!index.isValid())
        return;
    m_list->setCurrentIndex(index);
    m_list->scrollTo(index);
}

void InteractionPanel::followQueue(bool wasEmpty)
{
    if (m_model->count() == 0)
        return;
    const QWidget* focus = window()->focusWidget();
    InteractionWidget* current = currentWidget();
    // The person is answering the selected question: it stays, whatever arrives meanwhile.
    if (current && current->focusIsWithin())
        return;
    const QModelIndex top = m_model->index(0, 0);
    if (m_list->currentIndex().row() != 0) {
        m_list->setCurrentIndex(top);
        m_list->scrollTo(top);
    }
    // The focus is taken only where the person was already waiting for questions: in this dock
    // with none left to answer (the list after the last answer, or the dock itself). Anywhere else
    // (the call log, a table, a field, the list while picking a question) it stays; the count in
    // the title, the dock, the tray and a notification say that a question came.
    const bool waitingHere = focus && (focus == this || isAncestorOf(focus)) && !(focus == m_list && !wasEmpty)
        && !(current && current->isAncestorOf(focus));
    if (waitingHere)
        focusCurrentQuestion();
}

void InteractionPanel::goToQuestions()
{
    show();
    raise();
    if (m_model->count() == 0) {
        m_list->setFocus(Qt::ShortcutFocusReason);
        return;
    }
    // Where the person goes: the question being answered, or else the most urgent one.
    InteractionWidget* current = currentWidget();
    if (!(current && current->focusIsWithin()) && m_list->currentIndex().row() != 0)
        m_list->setCurrentIndex(m_model->index(0, 0));
    focusCurrentQuestion();
}

void InteractionPanel::focusCurrentQuestion()
{
    InteractionWidget* widget = currentWidget();
    if (QWidget* target = widget ? widget->initialFocusWidget() : nullptr)
        target->setFocus(Qt::OtherFocusReason);
    else
        m_list->setFocus(Qt::OtherFocusReason);
}

void InteractionPanel::updateLeastWidth()
{
    // Wide enough for the list's columns to read, in the font's characters (below the fixed 380
    // pixels it was at the platform's font, and at 14 pt), and never narrower than the selected
    // question's widest answer (InteractionWidget::minimumSizeHint), so at a large font or with a
    // long title every answer button stays whole. The dock's own minimum, as the fixed width was:
    // the list's and the placeholder's would hold it wider at a large font.
    int least = fontMetrics().averageCharWidth() * LeastWidthChars;
    if (const InteractionWidget* question = currentWidget()) {
        const QMargins margins = widget()->layout()->contentsMargins();
        const int frame = 2 * style()->pixelMetric(QStyle::PM_DockWidgetFrameWidth, nullptr, this);
        least = qMax(least, question->minimumSizeHint().width() + margins.left() + margins.right() + frame);
    }
    setMinimumWidth(least);
}

void InteractionPanel::changeEvent(QEvent* event)
{
    QDockWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateLeastWidth();
}

void InteractionPanel::keyPressEvent(QKeyEvent* event)
{
    // Escape in a question answers nothing: it goes back to the list, to pick another question.
    const QWidget* focus = QApplication::focusWidget();
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier && focus
        && m_stack->isAncestorOf(focus)) {
        m_list->setFocus(Qt::ShortcutFocusReason);
        event->accept();
        return;
    }
    QDockWidget::keyPressEvent(event);
}

void InteractionPanel::onCurrentRowChanged()
{
    const QString id = currentInteractionId();
    QWidget* page = m_pages.value(id);
    m_stack->setCurrentWidget(page ? page : m_placeholder);
    // The question keeps its minimum height (its arguments and answers), taken from the list
    // above it first, and asked of the window's layout through the dock.
    m_stack->setMinimumHeight(page ? page->minimumSizeHint().height() : 0);
    updateLeastWidth();
    if (auto* splitter = findChild<QSplitter*>(QStringLiteral("interactionSplitter")); splitter && page) {
        const int total = splitter->height() - splitter->handleWidth();
        const int list = splitter->sizes().value(0);
        if (list + m_stack->minimumHeight() > total)
            splitter->setSizes(
                {qMax(m_list->minimumHeight(), total - m_stack->minimumHeight()), m_stack->minimumHeight()});
    }
    // The row the view picks when the selected question leaves is only its current index; select
    // it too, so the list shows what the widget below answers.
    const QModelIndex current = m_list->currentIndex();
    if (current.isValid() && !m_list->selectionModel()->isRowSelected(current.row(), {}))
        m_list->selectionModel()->select(current, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void InteractionPanel::setDesktopNotifier(DesktopNotifier* notifier)
{
    if (m_notifier == notifier)
        return;
    delete m_notifier;
    m_notifier = notifier;
    if (!m_notifier)
        return;
    m_notifier->setParent(this);
    connect(m_notifier, &DesktopNotifier::actionInvoked, this, &InteractionPanel::onNotificationAction);
}

void InteractionPanel::onNotificationAction(const QString& tag, const QString& key)
{
    // A notification outlives nothing: one whose question has left answers no one.
    if (tag != manyQuestionsTag() && !m_widgets.contains(tag))
        return;
    if (key == QLatin1String(AllowOnceAction)) {
        Q_EMIT answerRequested(tag, InteractionAnswer::decide(InteractionAnswer::Decision::AllowOnce));
    } else if (key == QLatin1String(DenyAction)) {
        Q_EMIT answerRequested(tag,
            InteractionAnswer::decide(InteractionAnswer::Decision::Deny, tr("Denied from a desktop notification")));
    } else {
        // The notification itself: the person asks for the window, with this question in front.
        if (tag != manyQuestionsTag())
            selectInteraction(tag);
        raiseWindow();
        focusCurrentQuestion();
    }
}

void InteractionPanel::notify(int newCount, const PendingInteraction& latest)
{
    QWidget* top = window();
    if (top->isActiveWindow())
        return;
    const QString title = newCount == 1 ? tr("Switchboard: a question is waiting")
                                        : tr("Switchboard: %1 questions are waiting").arg(newCount);
    const QString message = newCount == 1
        ? tr("%1 from %2").arg(InteractionModel::toolLabel(latest), InteractionModel::clientLabel(latest))
        : tr("%1 questions in all").arg(count());
    if (m_notifier && m_notifier->supportsActions()) {
        // The desktop's notifications have buttons: an approval can be answered from there. Only
        // "allow once" and "deny": wider grants ask for a scope, which the window shows.
        if (newCount == 1) {
            QList<DesktopNotifier::Action> actions{{QStringLiteral("default"), tr("Show")}};
            if (latest.kind == InteractionKind::Approval) {
                actions
                    += {{QLatin1String(AllowOnceAction), tr("Allow once")}, {QLatin1String(DenyAction), tr("Deny")}};
            }
            m_notifier->show(latest.id, title, message, actions);
        } else {
            m_notifier->show(manyQuestionsTag(), title, message, {{QStringLiteral("default"), tr("Show")}});
        }
        updateTray();
    } else if (ensureTray()) {
        // QSystemTrayIcon's messages carry no buttons, so the answers stay in the window; clicking
        // the message brings it forward.
        updateTray();
        m_tray->showMessage(title, message, QSystemTrayIcon::Information, 10'000);
    }
    // The taskbar entry asks for attention too (and is all there is without a tray).
    QApplication::alert(top);
    Q_EMIT notificationShown(title, message);
}

void InteractionPanel::raiseWindow()
{
    QWidget* top = window();
    show();
    raise();
    if (top->isMinimized())
        top->showNormal();
    top->raise();
    top->activateWindow();
}
