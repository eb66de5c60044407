#pragma once

// SessionListModel: the client sessions open on the MCP server, one row per session, oldest first.
// The whole list (sessionsListed) replaces the rows; each later state changes its row, adds one for a
// new session, or removes the row of one that ended.

#include "sessionstates.h"

#include <QAbstractTableModel>

class SessionListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        ClientColumn,
        VersionColumn,
        StartedColumn,
        LastActivityColumn,
        CallsColumn,
        ProtocolColumn,
        SessionColumn, // the start of the session id; the whole id in the tooltip
        NumColumns,
    };

    explicit SessionListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    SessionState session(int row) const { return m_sessions.value(row); }
    int rowOf(const QString& sessionId) const;

    void setSessions(const SessionStateList& sessions);
    void applySessionStates(const SessionStateList& states);

private:
    SessionStateList m_sessions;
};
