#pragma once

// CallLogFilterProxy: the call log's text filter, status filter, call-id filter and adapter filter,
// keyed on FilterRole, StatusRole, CallIdRole and CallRole, so it works over any model that shows
// calls.

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
    QString adapterFilter() const { return m_adapter; }

public Q_SLOTS:
    // Every whitespace-separated word must appear (case-insensitively) in the call's tool, client,
    // route, status, session or error.
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
    QStringList m_words;
    quint32 m_statusMask = 0; // bit int(status) set for each status shown; 0 for all
    QSet<qint64> m_callIds;
    QString m_adapter;
};
