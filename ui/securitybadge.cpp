#include "securitybadge.h"

#include "securityeventmodel.h"

#include <QLocale>
#include <QStyle>
#include <algorithm>

SecurityBadge::SecurityBadge(SecurityEventModel* events, QWidget* parent)
    : QToolButton(parent)
    , m_events(events)
    , m_total(events->total())
    , m_seenTotal(events->total())
{
    setObjectName(QStringLiteral("securityBadge"));
    setAutoRaise(true);
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    connect(m_events, &SecurityEventModel::totalChanged, this, &SecurityBadge::onTotalChanged);
    connect(this, &QToolButton::clicked, this, [this] {
        Q_EMIT showRequested();
        markSeen();
    });
    refresh();
}

void SecurityBadge::markSeen()
{
    m_seenTotal = m_total;
    refresh();
}

void SecurityBadge::onTotalChanged(qint64 total)
{
    m_total = total;
    m_seenTotal = std::min(m_seenTotal, total); // cleared
    refresh();
}

void SecurityBadge::refresh()
{
    const qint64 count = unseen();
    setVisible(count > 0);
    if (count <= 0)
        return;
    setText(count == 1 ? tr("1 security event") : tr("%1 security events").arg(QLocale().toString(count)));
    const SecurityEvent latest = m_events->eventAt(0);
    setToolTip(tr("Requests the server refused at its door since you last looked; the latest: %1 from %2. "
                  "Click to see them in Health ▸ Security events.")
                   .arg(SecurityEventModel::kindLabel(latest.kind), latest.remoteAddress));
}
