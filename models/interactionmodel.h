#pragma once

// InteractionModel: the questions waiting for the person at the console (approvals and client
// tools), as a queue to triage: questions a call is waiting on first, the one that gives up soonest
// on top, then the others (parked, or whose call went away) oldest first. Fed by the backend's
// interaction events: pending and changed insert or update a row by id (moving it when its place
// changes), resolved removes it, and a listing (the answer to listInteractions, e.g. questions
// restored after a restart) makes the rows match it. Rows tell look-alike questions apart by their
// first arguments (and a connect question by its provider); the time left and the age tick once a
// second.

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
        DetailsColumn, // the provider of a connect question, the first arguments
        ClientColumn,
        SessionColumn,
        StateColumn, // whether a call waits for the answer
        TimeLeftColumn, // until the waiting call gives up (interaction.maxWaitSeconds)
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
    // A window holding several backends: the Client column names the backend that asks too.
    void setBackendsShown(bool shown);
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
    // What tells this question from others of the same tool: a connect question's provider, then
    // the first arguments as `name: value`, in the client's order, cut to about `maxChars`.
    static QString detailsLabel(const PendingInteraction& interaction, int maxChars = 120);
    // The time until a waiting call gives up, as "4:05" (or "1:02:05"); empty when no call waits
    // or its deadline is not known.
    static QString timeLeftLabel(const PendingInteraction& interaction, qint64 nowMs);
    // Whether `a` comes before `b` in the queue: waiting before not waiting, the earlier deadline
    // first, then the older question.
    static bool queuedBefore(const PendingInteraction& a, const PendingInteraction& b);

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
    // The row a question belongs at, among the others (itself left out when it is at `exceptRow`).
    int rowFor(const PendingInteraction& interaction, int exceptRow = -1) const;
    void insertRow(const PendingInteraction& interaction);
    void updateRow(int row, const PendingInteraction& interaction);
    void refreshAges();
    void updateAgeTimer();

    QList<PendingInteraction> m_interactions;
    bool m_backendsShown = false;
    std::function<qint64()> m_clock;
    QTimer m_ageTimer; // ticks while there are rows, so the time left and the age stay current
};
