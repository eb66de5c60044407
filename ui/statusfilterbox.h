#pragma once

// StatusFilterBox: a button whose menu offers every CallStatus (with its icon and meaning), "All
// statuses" and, where several can be chosen, "Failures" (every status isFailureStatus counts). The
// live call log chooses several at once; the history browser, whose search takes one status, one.

#include "toolcall.h"

#include <QToolButton>

#include <optional>

class QAction;
class QActionGroup;

class StatusFilterBox : public QToolButton
{
    Q_OBJECT
public:
    enum class Selection { Single, Multiple };
    explicit StatusFilterBox(Selection selection = Selection::Multiple, QWidget* parent = nullptr);

    // The chosen statuses in reading order; empty for "All statuses".
    QList<CallStatus> statuses() const;
    void setStatuses(const QList<CallStatus>& statuses);
    // The one chosen status, or nothing for "All statuses" (or several).
    std::optional<CallStatus> status() const;
    void setStatus(std::optional<CallStatus> status);

    static QList<CallStatus> failureStatuses();

    QAction* allAction() const { return m_all; }
    QAction* failuresAction() const { return m_failures; }
    QAction* statusAction(CallStatus status) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    void statusesChanged(const QList<CallStatus>& statuses);

private:
    void onStatusToggled();
    void chooseAll();
    void chooseFailures();
    void update(bool notify);

    Selection m_selection;
    QAction* m_all;
    QAction* m_failures = nullptr;
    QList<QAction*> m_statusActions; // in allCallStatuses() order
    QActionGroup* m_group = nullptr; // Single: one status or all
    QList<CallStatus> m_chosen;
    QAction* m_pressed = nullptr; // the status the mouse went down on in the open menu
    bool m_updating = false;
};
