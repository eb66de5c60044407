#pragma once

// CommitListModel: a repository's newest commits (short id, summary, author, when). Receives the
// whole list at once with each state of the repository and resets, like hotspot's models; holds at
// most RepositoryState::MaxCommits.

#include "backendstates.h"

#include <QAbstractTableModel>

#include <functional>

class CommitListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        IdColumn, // the short id; the full one in the tooltip and CommitIdRole
        SummaryColumn,
        AuthorColumn, // the name; the address in the tooltip
        TimeColumn, // local date and time; how long ago in the tooltip
        NumColumns,
    };

    static constexpr int ShortIdLength = 7; // as git shows them

    explicit CommitListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_commits.size()); }
    const CommitSummary& commitAt(int row) const { return m_commits.at(row); }

    // The clock ages are measured against (milliseconds since the Unix epoch); tests set a fixed one.
    void setClock(std::function<qint64()> clock);

    // "Name" of "Name <email>".
    static QString authorName(const QString& author);
    // "just now", "5 minutes ago", "3 days ago".
    static QString formatAge(qint64 ageMs);

public Q_SLOTS:
    // Replaces every row; keeps the first RepositoryState::MaxCommits (the newest).
    void setCommits(const QList<CommitSummary>& commits);
    void clear();

private:
    QList<CommitSummary> m_commits;
    std::function<qint64()> m_clock;
};
