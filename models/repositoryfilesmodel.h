#pragma once

// RepositoryFilesModel: the changed paths of one repository, as `git status` sees them: what is
// staged, what is not, and what git does not track, in porcelain letters and in words. Receives
// the whole list at once (the repository's newest state) and resets, like hotspot's models; the
// list is bounded by RepositoryState::MaxFiles, and anything beyond counts as truncated.

#include "backendstates.h"

#include <QAbstractTableModel>

class RepositoryFilesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        StagedColumn, // the index letter (M, A, D, R, T, U), empty when nothing is staged
        UnstagedColumn, // the working tree letter (M, D, T, U), or ? for an untracked path
        PathColumn,
        ChangeColumn, // the letters in words: "staged: added; unstaged: modified"
        NumColumns,
    };

    explicit RepositoryFilesModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_files.size()); }
    const RepositoryFile& fileAt(int row) const { return m_files.at(row); }
    // The row of the file at this path, or an invalid index when it is not listed.
    QModelIndex indexOfFile(const QString& path, int column = 0) const;
    // More changed paths than the rows hold: the repository said so, or the list was cut here.
    bool isTruncated() const { return m_truncated; }

    // A porcelain letter in words ("modified", "added", …); empty for a space.
    static QString statusWord(QChar letter);
    static QString changeDescription(const RepositoryFile& file);

public Q_SLOTS:
    // Replaces every row; keeps at most RepositoryState::MaxFiles.
    void setFiles(const QList<RepositoryFile>& files, bool truncated);
    void clear();

private:
    QList<RepositoryFile> m_files;
    bool m_truncated = false;
};
