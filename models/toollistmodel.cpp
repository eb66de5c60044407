#include "toollistmodel.h"

#include "modelroles.h"

namespace {

struct Hint
{
    const char* key;
    const char* label; // as a chip when true
    const char* meaning;
};

// MCP's tool annotations, in the order the specification lists them.
constexpr Hint Hints[] = {
    {"readOnlyHint", QT_TRANSLATE_NOOP("ToolListModel", "read-only"),
        QT_TRANSLATE_NOOP("ToolListModel", "does not change its environment")},
    {"destructiveHint", QT_TRANSLATE_NOOP("ToolListModel", "destructive"),
        QT_TRANSLATE_NOOP("ToolListModel", "may destroy or overwrite data")},
    {"idempotentHint", QT_TRANSLATE_NOOP("ToolListModel", "idempotent"),
        QT_TRANSLATE_NOOP("ToolListModel", "calling it again with the same arguments changes nothing more")},
    {"openWorldHint", QT_TRANSLATE_NOOP("ToolListModel", "open world"),
        QT_TRANSLATE_NOOP("ToolListModel", "reaches outside entities (the web, other services)")},
};

QString firstLine(const QString& text)
{
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    return (end < 0 ? text : text.left(end)).trimmed();
}

} // namespace

ToolListModel::ToolListModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int ToolListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_tools.size());
}

int ToolListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QStringList ToolListModel::hintLabels(const ToolInfo& tool)
{
    QStringList labels;
    for (const Hint& hint : Hints) {
        if (tool.hint(hint.key).value_or(false))
            labels.append(tr(hint.label));
    }
    return labels;
}

QString ToolListModel::hintsDescription(const ToolInfo& tool)
{
    QStringList lines;
    for (const Hint& hint : Hints) {
        const std::optional<bool> value = tool.hint(hint.key);
        const QString state = !value ? tr("not said") : *value ? tr("yes") : tr("no");
        lines.append(tr("%1 (%2): %3").arg(QString::fromLatin1(hint.key), tr(hint.meaning), state));
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant ToolListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ToolInfo& tool = m_tools.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return tool.name;
        case RouteColumn:
            return tool.route.toString();
        case HintsColumn:
            return hintLabels(tool).join(QStringLiteral(" · "));
        case DescriptionColumn:
            return firstLine(tool.description);
        }
        return {};
    case Qt::ToolTipRole:
        switch (index.column()) {
        case NameColumn:
            return tool.title.isEmpty() ? tool.name : tr("%1 (%2)").arg(tool.title, tool.name);
        case HintsColumn:
            return hintsDescription(tool);
        case DescriptionColumn:
            return tool.description;
        }
        return {};
    case SortRole:
        return index.column() == RouteColumn ? tool.route.toString() : data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(tool.name + QLatin1Char(' ') + tool.title + QLatin1Char(' ') + tool.route.toString()
            + QLatin1Char(' ') + tool.description)
            .toLower();
    }
    return {};
}

QVariant ToolListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Tool");
    case RouteColumn:
        return tr("Route");
    case HintsColumn:
        return tr("Hints");
    case DescriptionColumn:
        return tr("Description");
    }
    return {};
}

int ToolListModel::rowOf(const QString& name) const
{
    for (int row = 0; row < m_tools.size(); ++row) {
        if (m_tools.at(row).name == name)
            return row;
    }
    return -1;
}

void ToolListModel::setTools(const ToolInfoList& tools)
{
    beginResetModel();
    m_tools = tools;
    endResetModel();
}
