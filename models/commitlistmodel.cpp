#include "commitlistmodel.h"

#include "callcolumns.h"
#include "modelroles.h"

#include <QDateTime>

CommitListModel::CommitListModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_clock([] { return QDateTime::currentMSecsSinceEpoch(); })
{}

int CommitListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_commits.size());
}

int CommitListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

void CommitListModel::setClock(std::function<qint64()> clock)
{
    m_clock = std::move(clock);
}

QString CommitListModel::authorName(const QString& author)
{
    const qsizetype address = author.indexOf(QLatin1String(" <"));
    return address < 0 ? author : author.left(address);
}

QString CommitListModel::formatAge(qint64 ageMs)
{
    const qint64 minutes = qMax<qint64>(0, ageMs / 60'000);
    const auto unit = [](qint64 n, const QString& one, const QString& many) { return n == 1 ? one : many.arg(n); };
    if (minutes < 1)
        return tr("just now");
    if (minutes < 60)
        return unit(minutes, tr("1 minute ago"), tr("%1 minutes ago"));
    const qint64 hours = minutes / 60;
    if (hours < 24)
        return unit(hours, tr("1 hour ago"), tr("%1 hours ago"));
    const qint64 days = hours / 24;
    if (days < 60)
        return unit(days, tr("1 day ago"), tr("%1 days ago"));
    const qint64 months = days / 30;
    if (months < 24)
        return unit(months, tr("1 month ago"), tr("%1 months ago"));
    return tr("%1 years ago").arg(days / 365);
}

QVariant CommitListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CommitSummary& commit = m_commits.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IdColumn:
            return commit.id.left(ShortIdLength);
        case SummaryColumn:
            return commit.summary;
        case AuthorColumn:
            return authorName(commit.author);
        case TimeColumn:
            // Absolute, so the list never goes stale while it is open; the tooltip says how long ago.
            return CallColumns::formatLocalTime(commit.timeMs, QStringLiteral("yyyy-MM-dd HH:mm"));
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case IdColumn:
            return commit.id;
        case SummaryColumn:
            return commit.summary;
        case AuthorColumn:
            return commit.author;
        case TimeColumn:
            return QString(formatAge(m_clock() - commit.timeMs) + QLatin1String(" (")
                + QDateTime::fromMSecsSinceEpoch(commit.timeMs).toString(Qt::ISODate) + QLatin1Char(')'));
        }
        break;
    case SortRole:
        return index.column() == TimeColumn ? QVariant(commit.timeMs) : data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(commit.id + QLatin1Char(' ') + commit.summary + QLatin1Char(' ') + commit.author).toLower();
    case CommitIdRole:
        return commit.id;
    }
    return {};
}

QVariant CommitListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Commit");
    case SummaryColumn:
        return tr("Summary");
    case AuthorColumn:
        return tr("Author");
    case TimeColumn:
        return tr("Date");
    }
    return {};
}

void CommitListModel::setCommits(const QList<CommitSummary>& commits)
{
    beginResetModel();
    m_commits = commits.mid(0, RepositoryState::MaxCommits);
    endResetModel();
}

void CommitListModel::clear()
{
    setCommits({});
}
