#include "breakertimelinemodel.h"

#include "adapterhealthmodel.h"
#include "modelroles.h"

#include <QDateTime>

namespace {

AdapterHealth phaseHealth(BreakerPhase phase)
{
    switch (phase) {
    case BreakerPhase::Closed:
        return AdapterHealth::Healthy;
    case BreakerPhase::Open:
        return AdapterHealth::Failing;
    case BreakerPhase::HalfOpen:
        return AdapterHealth::Pending;
    }
    return AdapterHealth::Unknown;
}

} // namespace

BreakerTimelineModel::BreakerTimelineModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

int BreakerTimelineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_transitions.size());
}

int BreakerTimelineModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

const BreakerTransitionRecord& BreakerTimelineModel::transitionAt(int row) const
{
    return m_transitions.at(m_transitions.size() - 1 - row);
}

QString BreakerTimelineModel::transitionLabel(const BreakerTransitionRecord& transition)
{
    return breakerPhaseName(transition.from) + QStringLiteral(" → ") + breakerPhaseName(transition.to);
}

QVariant BreakerTimelineModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const BreakerTransitionRecord& transition = transitionAt(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case TimeColumn:
            return AdapterHealthModel::formatTime(transition.atMs);
        case TransitionColumn:
            return transitionLabel(transition);
        case ReasonColumn:
            return transition.reason;
        case CallColumn:
            return transition.callId > 0 ? QStringLiteral("#%1").arg(transition.callId) : QString();
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case TimeColumn:
            return QDateTime::fromMSecsSinceEpoch(transition.atMs).toString(Qt::ISODateWithMs);
        case ReasonColumn:
            return transition.reason;
        case CallColumn:
            return transition.callId > 0 ? tr("The call whose outcome caused it (double-click to show it)")
                                         : tr("No call caused it: the operator, the recovery timer or a reload");
        }
        break;
    case SortRole:
        return index.column() == TimeColumn ? QVariant(transition.atMs) : data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(transitionLabel(transition) + QLatin1Char(' ') + transition.reason).toLower();
    case CallIdRole:
        return transition.callId;
    case AdapterNameRole:
        return transition.adapter;
    case HealthRole:
        if (index.column() == TransitionColumn)
            return int(phaseHealth(transition.to));
        break;
    }
    return {};
}

QVariant BreakerTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case TransitionColumn:
        return tr("Transition");
    case ReasonColumn:
        return tr("Reason");
    case CallColumn:
        return tr("Call");
    }
    return {};
}

void BreakerTimelineModel::setTransitions(const QString& adapter, const BreakerTransitionList& transitions)
{
    if (adapter == m_adapter && transitions == m_transitions)
        return;
    beginResetModel();
    m_adapter = adapter;
    m_transitions = transitions;
    endResetModel();
}

void BreakerTimelineModel::clear()
{
    setTransitions(QString(), {});
}
