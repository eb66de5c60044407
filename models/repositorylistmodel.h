#pragma once

// RepositoryListModel: the repositories the repository view shows, one row per path, sorted by path
// so rows stay put while states arrive. Fed by the operator interface: each state from
// repositoryStatesChanged replaces its row's whole value (dataChanged for a known path, an insert
// for a new one), and repositoryRemoved takes the row away. It also finds the repository a git call
// worked on, for the call log's link to the repository view.

#include "backendstates.h"
#include "toolcall.h"

#include <QAbstractTableModel>

class RepositoryListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        NameColumn, // the last path component; the whole path in the tooltip
        BranchColumn,
        UpstreamColumn, // with ahead and behind: "origin/main ↑1 ↓2"
        ChangesColumn, // staged, unstaged and untracked counts, or why the repository is unreadable
        RefreshedColumn,
        NumColumns,
    };

    explicit RepositoryListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_states.size()); }
    const RepositoryState& stateAt(int row) const { return m_states.at(row); }
    // The row of the repository at this path, or an invalid index when it is not shown.
    QModelIndex indexOfRepository(const QString& path, int column = 0) const;
    // The repository a git call worked on: the one whose callIds hold the call; else the one its
    // arguments name (see argumentPaths): the same path, the repository an absolute path lies in,
    // or, for a relative path, a repository whose path ends in it. Invalid when none matches.
    QModelIndex indexForCall(const ToolCall& call) const;

    // What a person reads for a repository (shared with the repository view's header).
    static QString repositoryName(const QString& path);
    static QString branchLabel(const RepositoryState& state);
    // "origin/main ↑1 ↓2"; empty without an upstream.
    static QString upstreamLabel(const RepositoryState& state);
    static QString upstreamDescription(const RepositoryState& state);
    // "2 staged · 1 unstaged · 3 untracked", or "clean".
    static QString changesLabel(const RepositoryState& state);
    static QString refreshedLabel(qint64 refreshedAtMs);
    // The repository paths a git call's arguments name (repo_path, then local_path), as given.
    static QStringList argumentPaths(const ToolCall& call);

public Q_SLOTS:
    // Each state replaces the row with its path, or becomes a new row.
    void applyStates(const RepositoryStateList& states);
    void removeRepository(const QString& path);
    void clear();

Q_SIGNALS:
    void countChanged(int count);

private:
    // The row that holds `path`, or where it would be inserted.
    int lowerBound(const QString& path) const;
    int rowOf(const QString& path) const;

    QList<RepositoryState> m_states; // sorted by path
};
