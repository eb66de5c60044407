#pragma once

// SecurityEventModel: the requests the server refused at its door (token, Origin, Host), newest
// first, keeping the newest MaxEvents; total() counts every one seen.

#include "sessionstates.h"

#include <QAbstractTableModel>

class SecurityEventModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        TimeColumn,
        KindColumn,
        RemoteColumn,
        DetailColumn,
        NumColumns,
    };

    static constexpr int MaxEvents = 500;

    static QString kindLabel(SecurityEventKind kind);

    explicit SecurityEventModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    SecurityEvent eventAt(int row) const { return m_events.value(row); }
    qint64 total() const { return m_total; }

    // Events oldest first, as the backend sends them.
    void addEvents(const SecurityEventList& events);
    void clear();

Q_SIGNALS:
    void totalChanged(qint64 total);

private:
    SecurityEventList m_events; // newest first
    qint64 m_total = 0;
};
