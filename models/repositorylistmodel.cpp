#include "repositorylistmodel.h"

#include "boundedjson.h"
#include "callcolumns.h"
#include "modelroles.h"
#include "statuscolours.h"

#include <QColor>
#include <QDateTime>

#include <algorithm>

namespace {

// The call log's error red, so an unreadable repository reads like a failed call.
const QColor ErrorColour(0xc0, 0x1c, 0x28);

QString firstLine(const QString& text)
{
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    return end < 0 ? text : text.left(end);
}

// Paths as tools receive them may end in '/' or start with "./"; rows hold canonical paths.
QString normalisedPath(QString path)
{
    while (path.size() > 1 && path.endsWith(QLatin1Char('/')))
        path.chop(1);
    while (path.startsWith(QLatin1String("./")))
        path.remove(0, 2);
    return path;
}

bool isAbsolute(const QString& path)
{
    return path.startsWith(QLatin1Char('/'));
}

} // namespace

RepositoryListModel::RepositoryListModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int RepositoryListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_states.size());
}

int RepositoryListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QString RepositoryListModel::repositoryName(const QString& path)
{
    const QString trimmed = normalisedPath(path);
    const qsizetype slash = trimmed.lastIndexOf(QLatin1Char('/'));
    const QString name = slash < 0 ? trimmed : trimmed.mid(slash + 1);
    return name.isEmpty() ? trimmed : name;
}

QString RepositoryListModel::branchLabel(const RepositoryState& state)
{
    if (!state.branch.isEmpty())
        return state.branch;
    if (!state.headCommit.isEmpty())
        return tr("detached at %1").arg(state.headCommit.left(7));
    return state.error.isEmpty() ? tr("no commits yet") : QString();
}

QString RepositoryListModel::upstreamLabel(const RepositoryState& state)
{
    if (state.upstream.isEmpty())
        return {};
    QString label = state.upstream;
    if (state.ahead > 0)
        label += QStringLiteral(" ↑%1").arg(state.ahead);
    if (state.behind > 0)
        label += QStringLiteral(" ↓%1").arg(state.behind);
    return label;
}

QString RepositoryListModel::upstreamDescription(const RepositoryState& state)
{
    if (state.upstream.isEmpty())
        return tr("The branch has no upstream branch");
    if (state.ahead == 0 && state.behind == 0)
        return tr("Up to date with %1").arg(state.upstream);
    QStringList parts;
    if (state.ahead > 0)
        parts << (state.ahead == 1 ? tr("1 commit ahead of") : tr("%1 commits ahead of").arg(state.ahead));
    if (state.behind > 0)
        parts << (state.behind == 1 ? tr("1 commit behind") : tr("%1 commits behind").arg(state.behind));
    return parts.join(tr(" and ")) + QLatin1Char(' ') + state.upstream;
}

QString RepositoryListModel::changesLabel(const RepositoryState& state)
{
    QStringList parts;
    if (state.staged > 0)
        parts << tr("%1 staged").arg(state.staged);
    if (state.unstaged > 0)
        parts << tr("%1 unstaged").arg(state.unstaged);
    if (state.untracked > 0)
        parts << tr("%1 untracked").arg(state.untracked);
    return parts.isEmpty() ? tr("clean") : parts.join(QStringLiteral(" · "));
}

QString RepositoryListModel::refreshedLabel(qint64 refreshedAtMs)
{
    return CallColumns::formatTimeOrDate(refreshedAtMs);
}

QVariant RepositoryListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RepositoryState& state = m_states.at(index.row());
    const bool failed = !state.error.isEmpty();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return repositoryName(state.path);
        case BranchColumn:
            return branchLabel(state);
        case UpstreamColumn:
            return upstreamLabel(state);
        case ChangesColumn:
            return failed ? tr("unreadable: %1").arg(firstLine(state.error)) : changesLabel(state);
        case RefreshedColumn:
            return refreshedLabel(state.refreshedAtMs);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case NameColumn:
            return failed ? QString(state.path + QLatin1Char('\n') + state.error) : state.path;
        case BranchColumn:
            return state.headCommit.isEmpty()
                ? QString()
                : QString(state.headCommit.left(7) + QLatin1Char(' ') + state.headSummary);
        case UpstreamColumn:
            return upstreamDescription(state);
        case ChangesColumn:
            return failed
                ? state.error
                : tr("%1 staged, %2 unstaged, %3 untracked").arg(state.staged).arg(state.unstaged).arg(state.untracked);
        case RefreshedColumn:
            return state.refreshedAtMs <= 0
                ? tr("Not read yet")
                : tr("Read at %1").arg(QDateTime::fromMSecsSinceEpoch(state.refreshedAtMs).toString(Qt::ISODateWithMs));
        }
        break;
    case Qt::ForegroundRole:
        if (failed && (index.column() == NameColumn || index.column() == ChangesColumn))
            return StatusColours::readableOnApplication(ErrorColour);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == RefreshedColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        switch (index.column()) {
        case NameColumn:
            return state.path;
        case ChangesColumn:
            return failed ? -1 : state.staged + state.unstaged + state.untracked;
        case RefreshedColumn:
            return state.refreshedAtMs;
        }
        return data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(state.path + QLatin1Char(' ') + state.branch + QLatin1Char(' ') + state.upstream).toLower();
    case RepositoryPathRole:
        return state.path;
    case RepositoryRole:
        return QVariant::fromValue(state);
    }
    return {};
}

QVariant RepositoryListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Repository");
    case BranchColumn:
        return tr("Branch");
    case UpstreamColumn:
        return tr("Upstream");
    case ChangesColumn:
        return tr("Changes");
    case RefreshedColumn:
        return tr("Refreshed");
    }
    return {};
}

int RepositoryListModel::lowerBound(const QString& path) const
{
    const auto it = std::lower_bound(m_states.cbegin(), m_states.cend(), path,
        [](const RepositoryState& state, const QString& key) { return state.path < key; });
    return int(it - m_states.cbegin());
}

int RepositoryListModel::rowOf(const QString& path) const
{
    const int row = lowerBound(path);
    return row < m_states.size() && m_states.at(row).path == path ? row : -1;
}

QModelIndex RepositoryListModel::indexOfRepository(const QString& path, int column) const
{
    const int row = rowOf(path);
    return row < 0 ? QModelIndex() : index(row, column);
}

QStringList RepositoryListModel::argumentPaths(const ToolCall& call)
{
    // The live log keeps a preview of a large request; a cut one does not parse and names nothing.
    const nlohmann::json arguments = BoundedJson::parse(call.argumentsJson(), BoundedJson::Limits::record()).value;
    QStringList paths;
    for (const char* name : {"repo_path", "local_path"}) {
        const auto it = arguments.is_object() ? arguments.find(name) : arguments.end();
        if (it != arguments.end() && it->is_string() && !it->get_ref<const std::string&>().empty())
            paths << QString::fromStdString(it->get<std::string>());
    }
    return paths;
}

QModelIndex RepositoryListModel::indexForCall(const ToolCall& call) const
{
    // The backend knows which calls touched a repository; the arguments are only a guess for calls
    // it has not published yet (still running, or the state is on its way).
    for (int row = 0; row < m_states.size(); ++row) {
        if (m_states.at(row).callIds.contains(call.id))
            return index(row, 0);
    }
    for (const QString& given : argumentPaths(call)) {
        const QString path = normalisedPath(given);
        if (path.isEmpty() || path == QLatin1String("."))
            continue;
        if (const int row = rowOf(path); row >= 0)
            return index(row, 0);
        int best = -1;
        for (int row = 0; row < m_states.size(); ++row) {
            const QString& candidate = m_states.at(row).path;
            // Absolute: the repository the path lies in (the deepest, for nested ones). Relative: the
            // tools resolve it against a root the console does not know, so any repository whose
            // path ends in it, component by component.
            const bool matches = isAbsolute(path) ? path.startsWith(candidate + QLatin1Char('/'))
                                                  : candidate.endsWith(QLatin1Char('/') + path);
            if (matches && (best < 0 || candidate.size() > m_states.at(best).path.size()))
                best = row;
        }
        if (best >= 0)
            return index(best, 0);
    }
    return {};
}

void RepositoryListModel::applyStates(const RepositoryStateList& states)
{
    const int before = count();
    for (const RepositoryState& state : states) {
        const int row = lowerBound(state.path);
        if (row < m_states.size() && m_states.at(row).path == state.path) {
            m_states[row] = state;
            Q_EMIT dataChanged(index(row, 0), index(row, NumColumns - 1));
        } else {
            beginInsertRows({}, row, row);
            m_states.insert(row, state);
            endInsertRows();
        }
    }
    if (count() != before)
        Q_EMIT countChanged(count());
}

void RepositoryListModel::removeRepository(const QString& path)
{
    const int row = rowOf(path);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_states.removeAt(row);
    endRemoveRows();
    Q_EMIT countChanged(count());
}

void RepositoryListModel::clear()
{
    if (m_states.isEmpty())
        return;
    beginResetModel();
    m_states.clear();
    endResetModel();
    Q_EMIT countChanged(0);
}
