#include "interactionmodel.h"

#include "boundedjson.h"
#include "modelroles.h"

#include <QColor>
#include <QDateTime>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace {

constexpr int AgeRefreshMs = 1000;
constexpr qint64 LastMinuteMs = 60'000;
// A value in the details column: enough to tell two calls apart, never a whole document.
constexpr qsizetype MaxValueChars = 40;

QString cut(const QString& text, qsizetype maxChars)
{
    return text.size() <= maxChars ? text : text.left(maxChars - 1) + QChar(0x2026);
}

QString valueText(const nlohmann::ordered_json& value)
{
    if (value.is_string())
        return cut(QString::fromStdString(value.get<std::string>()).simplified(), MaxValueChars);
    const QString compact = QString::fromStdString(value.dump());
    if (compact.size() <= MaxValueChars)
        return compact;
    if (value.is_array())
        return InteractionModel::tr("[%1 items]").arg(value.size());
    if (value.is_object())
        return InteractionModel::tr("{%1 fields}").arg(value.size());
    return cut(compact, MaxValueChars);
}

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

QString InteractionModel::detailsLabel(const PendingInteraction& interaction, int maxChars)
{
    // Parsed in the client's key order: the first arguments are the ones it put first.
    const auto arguments = BoundedJson::parseOrdered(interaction.arguments, BoundedJson::Limits::record()).value;
    QStringList parts;
    qsizetype length = 0;
    if (interaction.render == RenderHint::Connect) {
        const auto spec = BoundedJson::parse(interaction.renderSpec, BoundedJson::Limits::record()).value;
        const auto text = [&spec](const char* key) {
            const auto it = spec.is_object() ? spec.find(key) : spec.end();
            return spec.is_object() && it != spec.end() && it->is_string()
                ? QString::fromStdString(it->get<std::string>())
                : QString();
        };
        const QString provider = text("providerTitle").isEmpty() ? text("provider") : text("providerTitle");
        if (!provider.isEmpty()) {
            parts.append(provider);
            length += provider.size();
        }
    }
    if (arguments.is_object()) {
        for (const auto& [name, value] : arguments.items()) {
            if (length >= maxChars)
                break;
            if (interaction.render == RenderHint::Connect && name == "provider")
                continue; // named already, by its title
            const QString part = QString::fromStdString(name) + QStringLiteral(": ") + valueText(value);
            parts.append(part);
            length += part.size() + 2;
        }
    }
    return cut(parts.join(QStringLiteral(", ")), maxChars);
}

QString InteractionModel::timeLeftLabel(const PendingInteraction& interaction, qint64 nowMs)
{
    if (!interaction.waiting || interaction.deadlineMs <= 0)
        return {};
    // Rounded up: "0:01" until the very last moment, never "0:00" while the call still waits.
    const qint64 seconds = (qMax<qint64>(0, interaction.deadlineMs - nowMs) + 999) / 1000;
    if (seconds < 3600)
        return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2:%3")
        .arg(seconds / 3600)
        .arg(seconds / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

bool InteractionModel::queuedBefore(const PendingInteraction& a, const PendingInteraction& b)
{
    // A call that waits can still be answered in time; a parked or dropped one only waits for a
    // retry. Among the waiting, the one that gives up first comes first.
    if (a.waiting != b.waiting)
        return a.waiting;
    if (a.waiting) {
        constexpr qint64 Unknown = std::numeric_limits<qint64>::max();
        const qint64 deadlineA = a.deadlineMs > 0 ? a.deadlineMs : Unknown;
        const qint64 deadlineB = b.deadlineMs > 0 ? b.deadlineMs : Unknown;
        if (deadlineA != deadlineB)
            return deadlineA < deadlineB;
    }
    if (a.createdAtMs != b.createdAtMs)
        return a.createdAtMs < b.createdAtMs;
    return a.id < b.id; // a total order: an unchanged question never trades places with its equal
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
        case DetailsColumn:
            return detailsLabel(interaction);
        case ClientColumn:
            return m_backendsShown && !interaction.backend.isEmpty()
                ? clientLabel(interaction) + QStringLiteral(" · ") + interaction.backend
                : clientLabel(interaction);
        case SessionColumn:
            return shortSession(interaction.sessionId);
        case StateColumn:
            return waitingLabel(interaction);
        case TimeLeftColumn:
            return timeLeftLabel(interaction, m_clock());
        case AgeColumn:
            return formatAge(m_clock() - interaction.createdAtMs);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case ToolColumn:
            return interaction.tool;
        case DetailsColumn:
            return detailsLabel(interaction, 1000);
        case TimeLeftColumn:
            if (interaction.waiting && interaction.deadlineMs > 0)
                return tr("The call gives up at %1 (interaction.maxWaitSeconds) unless you answer")
                    .arg(QDateTime::fromMSecsSinceEpoch(interaction.deadlineMs).toString(Qt::ISODate));
            return waitingDescription(interaction);
        case SessionColumn:
            return interaction.sessionId;
        case StateColumn:
            return waitingDescription(interaction);
        case AgeColumn:
            return QDateTime::fromMSecsSinceEpoch(interaction.createdAtMs).toString(Qt::ISODate);
        }
        break;
    case Qt::ForegroundRole:
        // A question no call waits on is for a retry: greyed, so the rows that can still be
        // answered in time stand out.
        if (index.column() != StateColumn && !interaction.waiting)
            return QColor(0x77, 0x77, 0x77);
        if (index.column() == StateColumn) {
            // The colours of the call log's statuses: a held call is paused; otherwise nothing waits.
            return interaction.waiting ? QColor(0xb3, 0x6b, 0x00) : QColor(0x77, 0x77, 0x77);
        }
        if (index.column() == TimeLeftColumn && interaction.waiting && interaction.deadlineMs > 0
            && interaction.deadlineMs - m_clock() < LastMinuteMs)
            return QColor(0xc0, 0x1c, 0x28); // the call log's error red: answer now or it times out
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == AgeColumn || index.column() == TimeLeftColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case SortRole:
        if (index.column() == TimeLeftColumn)
            return interaction.waiting && interaction.deadlineMs > 0 ? interaction.deadlineMs
                                                                     : std::numeric_limits<qint64>::max();
        return index.column() == AgeColumn ? QVariant(interaction.createdAtMs) : data(index, Qt::DisplayRole);
    case FilterRole:
        return QString(kindLabel(interaction) + QLatin1Char(' ') + interaction.tool + QLatin1Char(' ')
            + interaction.toolTitle + QLatin1Char(' ') + detailsLabel(interaction) + QLatin1Char(' ')
            + clientLabel(interaction) + QLatin1Char(' ') + interaction.sessionId)
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
    case DetailsColumn:
        return tr("Details");
    case ClientColumn:
        return tr("Client");
    case SessionColumn:
        return tr("Session");
    case StateColumn:
        return tr("Call");
    case TimeLeftColumn:
        return tr("Left");
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

int InteractionModel::rowFor(const PendingInteraction& interaction, int exceptRow) const
{
    // The rows are in queue order: the new place is after every row that does not come after it.
    int row = 0;
    for (int other = 0; other < m_interactions.size(); ++other) {
        if (other != exceptRow && queuedBefore(m_interactions.at(other), interaction))
            ++row;
    }
    return row;
}

void InteractionModel::insertRow(const PendingInteraction& interaction)
{
    const int row = rowFor(interaction);
    beginInsertRows({}, row, row);
    m_interactions.insert(row, interaction);
    endInsertRows();
}

void InteractionModel::updateRow(int row, const PendingInteraction& interaction)
{
    // Moved, not removed and inserted again: the view keeps it selected and current.
    const int to = rowFor(interaction, row);
    if (to != row) {
        beginMoveRows({}, row, row, {}, to > row ? to + 1 : to);
        m_interactions.move(row, to);
        endMoveRows();
    }
    m_interactions[to] = interaction;
    Q_EMIT dataChanged(index(to, 0), index(to, NumColumns - 1));
}

void InteractionModel::upsert(const PendingInteraction& interaction)
{
    const int row = rowOf(interaction.id);
    if (row >= 0) {
        updateRow(row, interaction);
        return;
    }
    insertRow(interaction);
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
        if (row >= 0)
            updateRow(row, interaction);
        else
            insertRow(interaction);
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
    // The two columns that follow the clock, side by side; the order never depends on the clock.
    static_assert(AgeColumn == TimeLeftColumn + 1);
    if (!m_interactions.isEmpty())
        Q_EMIT dataChanged(index(0, TimeLeftColumn), index(int(m_interactions.size()) - 1, AgeColumn),
            {Qt::DisplayRole, Qt::ForegroundRole, Qt::ToolTipRole});
}

void InteractionModel::updateAgeTimer()
{
    if (m_interactions.isEmpty())
        m_ageTimer.stop();
    else if (!m_ageTimer.isActive())
        m_ageTimer.start();
}

void InteractionModel::setBackendsShown(bool shown)
{
    if (shown == m_backendsShown)
        return;
    m_backendsShown = shown;
    if (!m_interactions.isEmpty())
        Q_EMIT dataChanged(index(0, ClientColumn), index(rowCount() - 1, ClientColumn), {Qt::DisplayRole});
}
