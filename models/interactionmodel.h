#pragma once

// InteractionModel: the questions waiting for the person at the console (approvals and client
// tools), oldest first, like a queue. Fed by the backend's interaction events: pending and changed
// insert or update a row by id, resolved removes it, and a listing (the answer to
// listInteractions, e.g. questions restored after a restart) makes the rows match it.

#include "pendinginteraction.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <functional>

class InteractionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        KindColumn, // approval, connect, confirm, choice, form
        ToolColumn,
        ClientColumn,
        SessionColumn,
        StateColumn, // whether a call waits for the answer
        AgeColumn,
        NumColumns,
    };

    explicit InteractionModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_interactions.size()); }
    const PendingInteraction& interactionAt(int row) const { return m_interactions.at(row); }
    // The row of the question with this id, or an invalid index when it is not pending.
    QModelIndex indexOfInteraction(const QString& id, int column = 0) const;

    // The clock the age column is measured against (milliseconds since the Unix epoch); tests set a
    // fixed one so ages do not depend on how fast the machine runs.
    void setClock(std::function<qint64()> clock);

    // What a person reads for each part of a question (shared with the widgets' headers).
    static QString kindLabel(const PendingInteraction& interaction);
    static QString toolLabel(const PendingInteraction& interaction);
    static QString clientLabel(const PendingInteraction& interaction);
    static QString shortSession(const QString& sessionId);
    static QString waitingLabel(const PendingInteraction& interaction);
    // One sentence on where the answer goes: the waiting call, or the client's next identical call.
    static QString waitingDescription(const PendingInteraction& interaction);
    static QString formatAge(qint64 ageMs);

public Q_SLOTS:
    // A new question, or a known one that changed (a retried call re-attached, waiting toggled).
    void upsert(const PendingInteraction& interaction);
    // The question was answered, stored for the retry, cancelled or timed out.
    void remove(const QString& interactionId);
    // Every pending question: rows not listed go, listed ones are updated or added.
    void setInteractions(const PendingInteractionList& interactions);
    void clear();

Q_SIGNALS:
    void countChanged(int count);

private:
    int rowOf(const QString& id) const;
    void refreshAges();
    void updateAgeTimer();

    QList<PendingInteraction> m_interactions;
    std::function<qint64()> m_clock;
    QTimer m_ageTimer; // ticks while there are rows, so the age column stays current
};
