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
    const CallSearch typed = CallSearch::fromText(text);
    if (typed.words == m_search.words && typed.tools == m_search.tools && typed.clients == m_search.clients)
        return;
    m_search.words = typed.words;
    m_search.tools = typed.tools;
    m_search.clients = typed.clients;
    invalidateFilter();
}

void CallLogFilterProxy::setStatusFilter(std::optional<CallStatus> status)
{
    setStatusesFilter(status ? QList<CallStatus>{*status} : QList<CallStatus>());
}

void CallLogFilterProxy::setStatusesFilter(const QList<CallStatus>& statuses)
{
    // In the order a person reads them, each once: the same choice is the same search.
    QList<CallStatus> ordered;
    for (CallStatus status : allCallStatuses()) {
        if (statuses.contains(status))
            ordered.append(status);
    }
    if (ordered == m_search.statuses)
        return;
    m_search.statuses = ordered;
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
    return m_search.statuses;
}

bool CallLogFilterProxy::isFiltering() const
{
    return !m_search.isEmpty();
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
    if (adapter == m_search.adapter)
        return;
    m_search.adapter = adapter;
    invalidateFilter();
}

bool CallLogFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!m_callIds.isEmpty() && !m_callIds.contains(index.data(CallIdRole).toLongLong()))
        return false;
    return m_search.isEmpty() || m_search.matches(index.data(CallRole).value<ToolCall>());
}
