#pragma once

// BreakerTimelineModel: the newest transitions of one adapter's circuit breaker, newest first: when,
// from which phase to which, why, and the call whose outcome caused it (none for the operator, the
// recovery timer or a reload). The adapter's status brings the whole list each time; it replaces the
// rows with a reset, and only when it changed.

#include "backendstates.h"

#include <QAbstractTableModel>

class BreakerTimelineModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        TimeColumn,
        TransitionColumn, // "closed → open"
        ReasonColumn,
        CallColumn, // "#42", or empty when no call caused it
        NumColumns,
    };

    explicit BreakerTimelineModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_transitions.size()); }
    QString adapter() const { return m_adapter; }
    // The transition a row shows (row 0 is the newest).
    const BreakerTransitionRecord& transitionAt(int row) const;

    static QString transitionLabel(const BreakerTransitionRecord& transition);

public Q_SLOTS:
    // The adapter's transitions, oldest first, as AdapterStatus holds them.
    void setTransitions(const QString& adapter, const BreakerTransitionList& transitions);
    void clear();

private:
    QString m_adapter;
    BreakerTransitionList m_transitions; // oldest first, as they arrive
};
