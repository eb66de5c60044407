#pragma once

// CallLogFilterProxy: the call log's text filter, status filter and adapter filter (one CallSearch,
// the same that "Search history too" sends to history, so a filter shows in the log exactly the calls
// history finds for it), and its call-id filter; keyed on CallIdRole and CallRole, so it works over
// any model that shows calls.

#include "callsearch.h"
#include "toolcall.h"

#include <QSet>
#include <QSortFilterProxyModel>

#include <optional>

class CallLogFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit CallLogFilterProxy(QObject* parent = nullptr);

    QString filterText() const { return m_text; }
    // The one status shown, or nothing when every status or several are.
    std::optional<CallStatus> statusFilter() const;
    // The statuses shown; empty when every status is.
    QList<CallStatus> statusesFilter() const;
    // Any filter but the call-id one is set: the rows shown are a selection of the calls.
    bool isFiltering() const;
    const QSet<qint64>& callIdFilter() const { return m_callIds; }
    QString adapterFilter() const { return m_search.adapter; }
    // Text, statuses and adapter as one search (what a history search asks for).
    const CallSearch& search() const { return m_search; }

public Q_SLOTS:
    // Every whitespace-separated word must appear in one of the call's fields (CallSearch says which
    // and how).
    void setFilterText(const QString& text);
    void setStatusFilter(std::optional<CallStatus> status);
    // Calls with any of these statuses; empty shows every status.
    void setStatusesFilter(const QList<CallStatus>& statuses);
    // Only these calls (e.g. those that touched one repository); an empty set shows every call.
    void setCallIdFilter(const QSet<qint64>& callIds);
    // Only the calls routed to this upstream adapter (route adapter:NAME); empty shows every call.
    void setAdapterFilter(const QString& adapter);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    CallSearch m_search;
    QSet<qint64> m_callIds;
};
