#pragma once

// SecurityBadge: the status bar's count of security events (requests the server refused at its
// door: a wrong token, a foreign Origin or Host) that arrived since the person last looked at them.
// Hidden while there are none; clicking it asks to show them (showRequested), after which the count
// starts again from zero.

#include <QToolButton>

class SecurityEventModel;

class SecurityBadge : public QToolButton
{
    Q_OBJECT
public:
    explicit SecurityBadge(SecurityEventModel* events, QWidget* parent = nullptr);

    qint64 unseen() const { return m_total - m_seenTotal; }

public Q_SLOTS:
    // The person has seen the events there are now (the Security events tab was shown).
    void markSeen();

Q_SIGNALS:
    // Clicked: the window shows the security events.
    void showRequested();

private:
    void onTotalChanged(qint64 total);
    void refresh();

    SecurityEventModel* m_events;
    qint64 m_total = 0;
    qint64 m_seenTotal = 0;
};
