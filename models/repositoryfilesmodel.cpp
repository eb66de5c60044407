#include "repositoryfilesmodel.h"

#include "modelroles.h"
#include "statuscolours.h"

#include <QColor>

#include <algorithm>

namespace {

// git status's colours: green for what is staged, red for what is not (and for untracked paths).
const QColor StagedColour(0x1a, 0x7f, 0x37);
const QColor UnstagedColour(0xc0, 0x1c, 0x28);

} // namespace

RepositoryFilesModel::RepositoryFilesModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int RepositoryFilesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_files.size());
}

int RepositoryFilesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QString RepositoryFilesModel::statusWord(QChar letter)
{
    switch (letter.unicode()) {
    case 'M':
        return tr("modified");
    case 'A':
        return tr("added");
    case 'D':
        return tr("deleted");
    case 'R':
        return tr("renamed");
    case 'C':
        return tr("copied");
    case 'T':
        return tr("type changed");
    case 'U':
        return tr("unmerged");
    case '?':
        return tr("untracked");
    case '!':
        return tr("ignored");
    case ' ':
        return {};
    }
    // A letter a later backend may send: still shown, as itself.
    return QString(letter);
}

QString RepositoryFilesModel::changeDescription(const RepositoryFile& file)
{
    if (file.isUntracked())
        return tr("untracked");
    QStringList parts;
    if (file.isStaged())
        parts << tr("staged: %1").arg(statusWord(file.indexStatus));
    if (file.isUnstaged())
        parts << tr("unstaged: %1").arg(statusWord(file.workTreeStatus));
    return parts.join(QStringLiteral("; "));
}

QVariant RepositoryFilesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RepositoryFile& file = m_files.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case StagedColumn:
            return file.isStaged() ? QString(file.indexStatus) : QString();
        case UnstagedColumn:
            if (file.isUntracked())
                return QStringLiteral("?");
            return file.isUnstaged() ? QString(file.workTreeStatus) : QString();
        case PathColumn:
            return file.path;
        case ChangeColumn:
            return changeDescription(file);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case StagedColumn:
            return file.isStaged() ? tr("Staged: %1").arg(statusWord(file.indexStatus)) : tr("Nothing staged");
        case UnstagedColumn:
            if (file.isUntracked())
                return tr("Untracked: git does not know this path yet");
            return file.isUnstaged() ? tr("Not staged: %1").arg(statusWord(file.workTreeStatus))
                                     : tr("No unstaged changes");
        case PathColumn:
            return file.path;
        case ChangeColumn:
            return changeDescription(file);
        }
        break;
    case Qt::ForegroundRole:
        // In the hue where the palette lets it read (AA), nearer the plain text where it does not (dark).
        if (index.column() == StagedColumn)
            return StatusColours::readableOnApplication(StagedColour);
        if (index.column() == UnstagedColumn)
            return StatusColours::readableOnApplication(UnstagedColour);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == StagedColumn || index.column() == UnstagedColumn)
            return QVariant(Qt::AlignCenter);
        break;
    case SortRole:
        return index.column() == PathColumn ? QVariant(file.path) : data(index, Qt::DisplayRole);
    case FilterRole:
        return file.path.toLower();
    case FilePathRole:
        return file.path;
    }
    return {};
}

QVariant RepositoryFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StagedColumn:
            return tr("What is staged (HEAD against the index), as git status --short shows it");
        case UnstagedColumn:
            return tr("What is not staged (the index against the working tree); ? for untracked paths");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StagedColumn:
        return tr("Staged");
    case UnstagedColumn:
        return tr("Unstaged");
    case PathColumn:
        return tr("Path");
    case ChangeColumn:
        return tr("Change");
    }
    return {};
}

QModelIndex RepositoryFilesModel::indexOfFile(const QString& path, int column) const
{
    // A few hundred rows at most, looked up when the selection is restored: a scan is enough, and
    // it does not depend on the backend's sort order.
    const auto it
        = std::find_if(m_files.cbegin(), m_files.cend(), [&](const RepositoryFile& file) { return file.path == path; });
    return it == m_files.cend() ? QModelIndex() : index(int(it - m_files.cbegin()), column);
}

void RepositoryFilesModel::setFiles(const QList<RepositoryFile>& files, bool truncated)
{
    beginResetModel();
    // A remote backend may send more than a state holds; the view stays bounded either way.
    m_files = files.mid(0, RepositoryState::MaxFiles);
    m_truncated = truncated || files.size() > RepositoryState::MaxFiles;
    endResetModel();
}

void RepositoryFilesModel::clear()
{
    setFiles({}, false);
}
