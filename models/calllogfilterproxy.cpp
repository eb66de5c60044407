#include "calllogfilterproxy.h"

#include "modelroles.h"

CallLogFilterProxy::CallLogFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
}

void CallLogFilterProxy::setFilterText(const QString& text)
{
    if (text == m_text)
        return;
    m_text = text;
    m_words = text.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    invalidateFilter();
}

void CallLogFilterProxy::setStatusFilter(std::optional<CallStatus> status)
{
    setStatusesFilter(status ? QList<CallStatus>{*status} : QList<CallStatus>());
}

void CallLogFilterProxy::setStatusesFilter(const QList<CallStatus>& statuses)
{
    quint32 mask = 0;
    for (CallStatus status : statuses)
        mask |= 1u << unsigned(status);
    if (mask == m_statusMask)
        return;
    m_statusMask = mask;
    invalidateFilter();
}

std::optional<CallStatus> CallLogFilterProxy::statusFilter() const
{
    const QList<CallStatus> statuses = statusesFilter();
    if (statuses.size() != 1)
        return std::nullopt;
    return statuses.first();
}

QList<CallStatus> CallLogFilterProxy::statusesFilter() const
{
    QList<CallStatus> statuses;
    for (CallStatus status : allCallStatuses()) {
        if (m_statusMask & (1u << unsigned(status)))
            statuses.append(status);
    }
    return statuses;
}

bool CallLogFilterProxy::isFiltering() const
{
    return m_statusMask != 0 || !m_words.isEmpty() || !m_adapter.isEmpty();
}

void CallLogFilterProxy::setCallIdFilter(const QSet<qint64>& callIds)
{
    if (callIds == m_callIds)
        return;
    m_callIds = callIds;
    invalidateFilter();
}

void CallLogFilterProxy::setAdapterFilter(const QString& adapter)
{
    if (adapter == m_adapter)
        return;
    m_adapter = adapter;
    invalidateFilter();
}

bool CallLogFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_statusMask != 0 && !(m_statusMask & (1u << unsigned(index.data(StatusRole).toInt()))))
        return false;
    if (!m_callIds.isEmpty() && !m_callIds.contains(index.data(CallIdRole).toLongLong()))
        return false;
    if (!m_adapter.isEmpty()) {
        // The route, not the text filter: "adapter:git" must not match an adapter named "github".
        const ToolRoute route = index.data(CallRole).value<ToolCall>().route;
        if (route.kind != RouteKind::Adapter || route.owner != m_adapter)
            return false;
    }
    if (m_words.isEmpty())
        return true;
    const QString haystack = index.data(FilterRole).toString();
    for (const QString& word : m_words) {
        if (!haystack.contains(word))
            return false;
    }
    return true;
}
