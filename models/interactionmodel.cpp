#include "interactionmodel.h"

#include "modelroles.h"

#include <QColor>
#include <QDateTime>

#include <algorithm>

namespace {

constexpr int AgeRefreshMs = 1000;

} // namespace

InteractionModel::InteractionModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_clock([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_ageTimer.setInterval(AgeRefreshMs);
    connect(&m_ageTimer, &QTimer::timeout, this, &InteractionModel::refreshAges);
}

int InteractionModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_interactions.size());
}

int InteractionModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

void InteractionModel::setClock(std::function<qint64()> clock)
{
    m_clock = std::move(clock);
    refreshAges();
}

QString InteractionModel::kindLabel(const PendingInteraction& interaction)
{
    if (interaction.kind == InteractionKind::Approval)
        return tr("Approval");
    switch (interaction.render) {
    case RenderHint::Connect:
        return tr("Connect");
    case RenderHint::Confirm:
        return tr("Confirm");
    case RenderHint::Choice:
        return tr("Choice");
    case RenderHint::Form:
        return tr("Form");
    case RenderHint::Approval:
        break;
    }
    return tr("Approval");
}

QString InteractionModel::toolLabel(const PendingInteraction& interaction)
{
    return interaction.toolTitle.isEmpty() ? interaction.tool : interaction.toolTitle;
}

QString InteractionModel::clientLabel(const PendingInteraction& interaction)
{
    if (interaction.clientName.isEmpty())
        return tr("(unnamed client)");
    return interaction.clientVersion.isEmpty() ? interaction.clientName
                                               : interaction.clientName + QLatin1Char(' ') + interaction.clientVersion;
}

QString InteractionModel::shortSession(const QString& sessionId)
{
    // Enough to tell sessions apart at a glance; the whole id is in the tooltip.
    constexpr qsizetype Shown = 8;
    return sessionId.size() <= Shown ? sessionId : sessionId.left(Shown) + QChar(0x2026);
}

QString InteractionModel::waitingLabel(const PendingInteraction& interaction)
{
    if (interaction.waiting)
        return tr("waiting (hold)");
    if (interaction.mode == PauseMode::Park)
        return tr("parked");
    return tr("no call waiting");
}

QString InteractionModel::waitingDescription(const PendingInteraction& interaction)
{
    if (interaction.waiting)
        return tr("The client's call is open and waits for this answer.");
    if (interaction.mode == PauseMode::Park)
        return tr("The call was parked (closed without a result); the answer will go to the client's retry of the "
                  "same call.");
    return tr("No call is waiting (its connection was dropped); the answer will go to the retry.");
}

QString InteractionModel::formatAge(qint64 ageMs)
{
    const qint64 seconds = qMax<qint64>(0, ageMs / 1000);
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min").arg(seconds / 60);
    if (seconds < 86'400)
        return tr("%1 h").arg(seconds / 3600);
    return tr("%1 d").arg(seconds / 86'400);
}

QVariant InteractionModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PendingInteraction& interaction = m_interactions.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KindColumn:
            return kindLabel(interaction);
        case ToolColumn:
            return toolLabel(interaction);
        case ClientColumn:
            return clientLabel(interaction);
        case SessionColumn:
            return shortSession(interaction.sessionId);
        case StateColumn:
            return waitingLabel(interaction);
        case AgeColumn:
            return formatAge(m_clock() - interaction.createdAtMs);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case ToolColumn:
            return interaction.tool;
        case SessionColumn:
            return interaction.sessionId;
        case StateColumn:
            return waitingDescription(interaction);
        case AgeColumn:
            return QDateTime::fromMSecsSinceEpoch(interaction.createdAtMs).toString(Qt::ISODate);
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == StateColumn) {
            // The colours of the call log's statuses: a held call is paused; otherwise nothing waits.
            return interaction.waiting ? QColor(0xb3, 0x6b, 0x00) : QColor(0x77, 0x77, 0x77);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == AgeColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        return index.column() == AgeColumn ? QVariant(interaction.createdAtMs) : data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(kindLabel(interaction) + QLatin1Char(' ') + interaction.tool + QLatin1Char(' ')
            + interaction.toolTitle + QLatin1Char(' ') + clientLabel(interaction) + QLatin1Char(' ')
            + interaction.sessionId)
            .toLower();
    case CallIdRole:
        return interaction.callId;
    case InteractionIdRole:
        return interaction.id;
    case InteractionRole:
        return QVariant::fromValue(interaction);
    }
    return {};
}

QVariant InteractionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn:
        return tr("Question");
    case ToolColumn:
        return tr("Tool");
    case ClientColumn:
        return tr("Client");
    case SessionColumn:
        return tr("Session");
    case StateColumn:
        return tr("Call");
    case AgeColumn:
        return tr("Age");
    }
    return {};
}

int InteractionModel::rowOf(const QString& id) const
{
    // A handful of rows at most: a person answers them one by one.
    for (int row = 0; row < m_interactions.size(); ++row) {
        if (m_interactions.at(row).id == id)
            return row;
    }
    return -1;
}

QModelIndex InteractionModel::indexOfInteraction(const QString& id, int column) const
{
    const int row = rowOf(id);
    return row < 0 ? QModelIndex() : index(row, column);
}

void InteractionModel::upsert(const PendingInteraction& interaction)
{
    const int row = rowOf(interaction.id);
    if (row >= 0) {
        m_interactions[row] = interaction;
        Q_EMIT dataChanged(index(row, 0), index(row, NumColumns - 1));
        return;
    }
    const int last = int(m_interactions.size());
    beginInsertRows({}, last, last);
    m_interactions.append(interaction);
    endInsertRows();
    updateAgeTimer();
    Q_EMIT countChanged(count());
}

void InteractionModel::remove(const QString& interactionId)
{
    const int row = rowOf(interactionId);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_interactions.removeAt(row);
    endRemoveRows();
    updateAgeTimer();
    Q_EMIT countChanged(count());
}

void InteractionModel::setInteractions(const PendingInteractionList& interactions)
{
    const int before = count();
    // Row by row rather than a reset, so a selected question stays selected.
    for (int row = int(m_interactions.size()) - 1; row >= 0; --row) {
        const QString& id = m_interactions.at(row).id;
        const bool listed = std::any_of(interactions.cbegin(), interactions.cend(),
            [&id](const PendingInteraction& interaction) { return interaction.id == id; });
        if (!listed) {
            beginRemoveRows({}, row, row);
            m_interactions.removeAt(row);
            endRemoveRows();
        }
    }
    for (const PendingInteraction& interaction : interactions) {
        const int row = rowOf(interaction.id);
        if (row >= 0) {
            m_interactions[row] = interaction;
            Q_EMIT dataChanged(index(row, 0), index(row, NumColumns - 1));
            continue;
        }
        const int last = int(m_interactions.size());
        beginInsertRows({}, last, last);
        m_interactions.append(interaction);
        endInsertRows();
    }
    updateAgeTimer();
    if (count() != before)
        Q_EMIT countChanged(count());
}

void InteractionModel::clear()
{
    if (m_interactions.isEmpty())
        return;
    beginResetModel();
    m_interactions.clear();
    endResetModel();
    updateAgeTimer();
    Q_EMIT countChanged(0);
}

void InteractionModel::refreshAges()
{
    if (!m_interactions.isEmpty())
        Q_EMIT dataChanged(index(0, AgeColumn), index(int(m_interactions.size()) - 1, AgeColumn), {Qt::DisplayRole});
}

void InteractionModel::updateAgeTimer()
{
    if (m_interactions.isEmpty())
        m_ageTimer.stop();
    else if (!m_ageTimer.isActive())
        m_ageTimer.start();
}
