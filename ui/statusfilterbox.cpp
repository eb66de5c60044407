#include "statusfilterbox.h"

#include "statuscolours.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QMouseEvent>

StatusFilterBox::StatusFilterBox(Selection selection, QWidget* parent)
    : QToolButton(parent)
    , m_selection(selection)
{
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("statusFilterMenu"));
    m_all = menu->addAction(tr("All statuses"));
    m_all->setObjectName(QStringLiteral("allStatusesAction"));
    m_all->setCheckable(true);
    m_all->setChecked(true);
    connect(m_all, &QAction::triggered, this, &StatusFilterBox::chooseAll);
    if (selection == Selection::Multiple) {
        m_failures = menu->addAction(tr("Failures"));
        m_failures->setObjectName(QStringLiteral("failureStatusesAction"));
        m_failures->setCheckable(true);
        QStringList names;
        for (CallStatus status : failureStatuses())
            names << callStatusLabel(status);
        m_failures->setToolTip(tr("Every status that counts as a failure: %1").arg(names.join(QStringLiteral(", "))));
        connect(m_failures, &QAction::triggered, this, &StatusFilterBox::chooseFailures);
    } else {
        m_group = new QActionGroup(this);
        m_group->addAction(m_all);
    }
    menu->addSeparator();
    const StatusColours& colours = StatusColours::forApplication();
    for (const CallStatus status : allCallStatuses()) {
        QAction* action = menu->addAction(colours.icon(status), callStatusLabel(status));
        action->setObjectName(QStringLiteral("status_") + callStatusName(status));
        action->setCheckable(true);
        action->setData(int(status));
        action->setToolTip(callStatusDescription(status));
        if (m_group)
            m_group->addAction(action);
        connect(action, &QAction::toggled, this, &StatusFilterBox::onStatusToggled);
        m_statusActions << action;
    }
    menu->setToolTipsVisible(true);
    // Several statuses are picked in one visit: a click toggles one and the menu stays open.
    if (selection == Selection::Multiple)
        menu->installEventFilter(this);
    setMenu(menu);
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setToolTip(selection == Selection::Multiple ? tr("Show only calls with the chosen statuses")
                                                : tr("Show only calls with this status"));
    update(false);
}

QList<CallStatus> StatusFilterBox::failureStatuses()
{
    QList<CallStatus> failures;
    for (CallStatus status : allCallStatuses()) {
        if (isFailureStatus(status))
            failures << status;
    }
    return failures;
}

QAction* StatusFilterBox::statusAction(CallStatus status) const
{
    for (QAction* action : m_statusActions) {
        if (action->data().toInt() == int(status))
            return action;
    }
    return nullptr;
}

QList<CallStatus> StatusFilterBox::statuses() const
{
    return m_chosen;
}

void StatusFilterBox::setStatuses(const QList<CallStatus>& statuses)
{
    m_updating = true;
    for (QAction* action : std::as_const(m_statusActions))
        action->setChecked(statuses.contains(CallStatus(action->data().toInt())));
    if (m_group && statuses.isEmpty())
        m_all->setChecked(true);
    m_updating = false;
    update(true);
}

std::optional<CallStatus> StatusFilterBox::status() const
{
    if (m_chosen.size() != 1)
        return std::nullopt;
    return m_chosen.first();
}

void StatusFilterBox::setStatus(std::optional<CallStatus> status)
{
    setStatuses(status ? QList<CallStatus>{*status} : QList<CallStatus>());
}

bool StatusFilterBox::eventFilter(QObject* watched, QEvent* event)
{
    // Only a press and release on the same status toggles it: the release that ends the click
    // which opened the menu must not.
    if (watched == menu() && event->type() == QEvent::MouseButtonPress) {
        m_pressed = menu()->actionAt(static_cast<QMouseEvent*>(event)->position().toPoint());
    } else if (watched == menu() && event->type() == QEvent::MouseButtonRelease) {
        QAction* action = menu()->actionAt(static_cast<QMouseEvent*>(event)->position().toPoint());
        const bool toggles = action && action == m_pressed && m_statusActions.contains(action);
        m_pressed = nullptr;
        if (toggles) {
            action->toggle();
            return true;
        }
    }
    return QToolButton::eventFilter(watched, event);
}

void StatusFilterBox::onStatusToggled()
{
    if (!m_updating)
        update(true);
}

void StatusFilterBox::chooseAll()
{
    setStatuses({});
}

void StatusFilterBox::chooseFailures()
{
    setStatuses(failureStatuses());
}

void StatusFilterBox::update(bool notify)
{
    QList<CallStatus> chosen;
    for (QAction* action : std::as_const(m_statusActions)) {
        if (action->isChecked())
            chosen << CallStatus(action->data().toInt());
    }
    // A single choice's group keeps exactly one action checked itself; checking "All" here while
    // it moves from one status to another would undo the move.
    if (!m_group)
        m_all->setChecked(chosen.isEmpty());
    if (m_failures)
        m_failures->setChecked(!chosen.isEmpty() && chosen == failureStatuses());
    if (chosen.isEmpty()) {
        setText(m_all->text());
        setIcon(QIcon());
    } else if (chosen.size() == 1) {
        setText(callStatusLabel(chosen.first()));
        setIcon(StatusColours::forApplication().icon(chosen.first()));
    } else {
        setText(m_failures && m_failures->isChecked() ? m_failures->text()
                                                      : tr("%n statuses", nullptr, int(chosen.size())));
        setIcon(QIcon());
    }
    if (chosen == m_chosen)
        return;
    m_chosen = chosen;
    if (notify)
        Q_EMIT statusesChanged(m_chosen);
}
