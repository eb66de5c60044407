#include "adapterhealthmodel.h"

#include "callcolumns.h"
#include "modelroles.h"

#include <QColor>
#include <QDateTime>
#include <QLocale>
#include <QPalette>

#include <algorithm>

namespace {

QString firstLine(const QString& text)
{
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    return end < 0 ? text : text.left(end);
}

// Sorting the state column puts the adapters that need a look together: failing ones last in
// ascending order, first in descending.
int severity(AdapterHealth health)
{
    switch (health) {
    case AdapterHealth::Healthy:
        return 0;
    case AdapterHealth::Unknown:
        return 1;
    case AdapterHealth::Off:
        return 2;
    case AdapterHealth::Pending:
        return 3;
    case AdapterHealth::Operator:
        return 4;
    case AdapterHealth::Failing:
        return 5;
    }
    return 1;
}

QString lastError(const AdapterHealthEntry& entry)
{
    if (entry.status && !entry.status->lastError.isEmpty())
        return entry.status->lastError;
    return entry.breaker ? entry.breaker->lastError : QString();
}

QString isoTime(qint64 epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(Qt::ISODate);
}

} // namespace

AdapterHealthModel::AdapterHealthModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_clock([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_countdown.setInterval(CountdownRefreshMs);
    connect(&m_countdown, &QTimer::timeout, this, &AdapterHealthModel::refreshCountdowns);
}

int AdapterHealthModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int AdapterHealthModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

void AdapterHealthModel::setClock(std::function<qint64()> clock)
{
    m_clock = std::move(clock);
    if (!m_entries.isEmpty())
        Q_EMIT dataChanged(index(0, StateColumn), index(count() - 1, StateColumn));
    updateCountdown();
}

bool AdapterHealthModel::isDisabled(const AdapterHealthEntry& entry)
{
    return entry.status && entry.status->connection == AdapterConnection::Disabled;
}

bool AdapterHealthModel::isDisabledByOperator(const AdapterHealthEntry& entry)
{
    return isDisabled(entry) && entry.status->disabledByOperator;
}

AdapterHealth AdapterHealthModel::health(const AdapterHealthEntry& entry)
{
    if (isDisabled(entry))
        return AdapterHealth::Off;
    if (entry.breaker) {
        if (entry.breaker->forcedOpen)
            return AdapterHealth::Operator;
        if (entry.breaker->phase == BreakerPhase::Open)
            return AdapterHealth::Failing;
        if (entry.breaker->phase == BreakerPhase::HalfOpen)
            return AdapterHealth::Pending;
    }
    if (entry.status) {
        switch (entry.status->connection) {
        case AdapterConnection::Disabled:
            return AdapterHealth::Off;
        case AdapterConnection::Connecting:
            return AdapterHealth::Pending;
        case AdapterConnection::Failing:
            return AdapterHealth::Failing;
        case AdapterConnection::Ready:
            return AdapterHealth::Healthy;
        }
    }
    return entry.breaker ? AdapterHealth::Healthy : AdapterHealth::Unknown;
}

QString AdapterHealthModel::formatCountdown(qint64 ms)
{
    const qint64 seconds = qMax<qint64>(0, (ms + 999) / 1000);
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return tr("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString AdapterHealthModel::formatTime(qint64 epochMs)
{
    return CallColumns::formatTimeOrDate(epochMs);
}

QString AdapterHealthModel::stateLabel(const AdapterHealthEntry& entry, qint64 nowMs)
{
    if (isDisabled(entry))
        return entry.status->disabledByOperator ? tr("disabled by operator") : tr("disabled");
    if (entry.breaker) {
        const BreakerState& breaker = *entry.breaker;
        if (breaker.forcedOpen)
            return breaker.forcedBy.isEmpty() ? tr("forced open") : tr("forced open by %1").arg(breaker.forcedBy);
        if (breaker.phase == BreakerPhase::Open) {
            if (breaker.retryAtMs <= 0)
                return tr("open");
            if (breaker.retryAtMs <= nowMs)
                return tr("open — retry due");
            return tr("open — retry in %1").arg(formatCountdown(breaker.retryAtMs - nowMs));
        }
        if (breaker.phase == BreakerPhase::HalfOpen)
            return tr("half-open");
    }
    if (entry.status) {
        switch (entry.status->connection) {
        case AdapterConnection::Disabled:
            return tr("disabled");
        case AdapterConnection::Connecting:
            return tr("connecting");
        case AdapterConnection::Failing:
            return tr("failing");
        case AdapterConnection::Ready:
            return entry.breaker ? tr("closed") : tr("ready");
        }
    }
    return entry.breaker ? tr("closed") : tr("unknown");
}

QString AdapterHealthModel::stateDescription(const AdapterHealthEntry& entry, qint64 nowMs)
{
    QStringList lines;
    if (isDisabled(entry)) {
        lines << (entry.status->disabledByOperator
                ? tr("Disabled by the operator: it offers no tools and refuses its calls until enabled again.")
                : tr("Disabled in the configuration file (enabled: false)."));
    }
    if (entry.breaker) {
        const BreakerState& breaker = *entry.breaker;
        const QString since
            = breaker.changedAtMs > 0 ? tr(" since %1").arg(formatTime(breaker.changedAtMs)) : QString();
        if (breaker.forcedOpen) {
            lines << tr("Breaker forced open by %1%2: calls fail at once until it is reset.")
                         .arg(breaker.forcedBy.isEmpty() ? tr("the operator")
                                                         : tr("the operator %1").arg(breaker.forcedBy),
                             since);
        } else if (breaker.phase == BreakerPhase::Open) {
            lines << tr("Breaker open%1: calls fail at once.").arg(since);
            if (breaker.retryAtMs > nowMs)
                lines << tr("Trial calls go through at %1 (in %2).")
                             .arg(formatTime(breaker.retryAtMs), formatCountdown(breaker.retryAtMs - nowMs));
            else if (breaker.retryAtMs > 0)
                lines << tr("The next call is let through as a trial.");
        } else if (breaker.phase == BreakerPhase::HalfOpen) {
            lines << tr("Breaker half-open%1: a few trial calls decide whether it closes or opens again.").arg(since);
        } else {
            lines << tr("Breaker closed%1: calls go through.").arg(since);
        }
    }
    if (entry.status) {
        switch (entry.status->connection) {
        case AdapterConnection::Connecting:
            lines << tr("Connecting to %1.").arg(entry.status->endpoint);
            break;
        case AdapterConnection::Failing:
            lines << tr("The last connection attempt failed.");
            break;
        case AdapterConnection::Ready:
            lines << tr("Connected to %1.").arg(entry.status->endpoint);
            break;
        case AdapterConnection::Disabled:
            break;
        }
    }
    const QString error = lastError(entry);
    if (!error.isEmpty() && health(entry) == AdapterHealth::Failing)
        lines << tr("Last error: %1").arg(error);
    return lines.join(QLatin1Char('\n'));
}

QColor AdapterHealthModel::healthColour(AdapterHealth health, const QPalette& palette)
{
    // Shades picked for at least 4.5:1 against a white base and against a near-black one; the hues
    // match the call log's (ok green, error red, paused amber).
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (health) {
    case AdapterHealth::Unknown:
        return {};
    case AdapterHealth::Healthy:
        return dark ? QColor(0x3f, 0xb9, 0x50) : QColor(0x1a, 0x7f, 0x37);
    case AdapterHealth::Pending:
        return dark ? QColor(0xd2, 0x99, 0x22) : QColor(0x9a, 0x5b, 0x00);
    case AdapterHealth::Failing:
        return dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xc0, 0x1c, 0x28);
    case AdapterHealth::Operator:
        return dark ? QColor(0xbc, 0x8c, 0xff) : QColor(0x82, 0x50, 0xdf);
    case AdapterHealth::Off:
        return dark ? QColor(0x8b, 0x94, 0x9e) : QColor(0x6e, 0x77, 0x81);
    }
    return {};
}

QVariant AdapterHealthModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AdapterHealthEntry& entry = m_entries.at(index.row());
    const std::optional<BreakerState>& breaker = entry.breaker;
    const std::optional<AdapterStatus>& status = entry.status;
    const QLocale locale;
    const auto count = [&](qint64 value) { return status ? locale.toString(value) : QString(); };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AdapterColumn: {
            const QString name = status && status->readOnly ? tr("%1 (read-only)").arg(entry.name) : entry.name;
            const QString backend = status ? status->backend : breaker ? breaker->backend : QString();
            return m_backendsShown && !backend.isEmpty() ? name + QStringLiteral(" · ") + backend : name;
        }
        case StateColumn:
            return stateLabel(entry, m_clock());
        case FailuresColumn:
            if (!breaker)
                return {};
            return breaker->failureThreshold > 0
                ? QStringLiteral("%1 / %2").arg(breaker->consecutiveFailures).arg(breaker->failureThreshold)
                : QString::number(breaker->consecutiveFailures);
        case CallsColumn:
            return count(status ? status->calls : 0);
        case RejectedColumn:
            return count(status ? status->rejectedCalls : 0);
        case AuthFailuresColumn:
            return count(status ? status->authenticationFailures : 0);
        case LatencyColumn:
            if (!status)
                return {};
            if (status->latencyP50Us <= 0 && status->latencyP99Us <= 0)
                return QStringLiteral("—");
            return QString(CallColumns::formatDuration(status->latencyP50Us) + QStringLiteral(" / ")
                + CallColumns::formatDuration(status->latencyP99Us));
        case LastSuccessColumn:
            if (!status)
                return {};
            return status->lastSuccessAtMs > 0 ? formatTime(status->lastSuccessAtMs) : tr("never");
        case LastErrorColumn: {
            const QString error = firstLine(lastError(entry));
            if (error.isEmpty() || !status || status->lastErrorAtMs <= 0)
                return error;
            return QString(formatTime(status->lastErrorAtMs) + QStringLiteral("  ") + error);
        }
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case AdapterColumn: {
            QStringList lines{entry.name};
            if (status) {
                if (!status->endpoint.isEmpty())
                    lines << status->endpoint;
                lines << (status->toolCount == 1 ? tr("1 tool") : tr("%1 tools").arg(status->toolCount));
                if (status->readOnly)
                    lines << tr("Read-only: calls to tools that change anything are refused.");
            }
            return lines.join(QLatin1Char('\n'));
        }
        case StateColumn:
            return stateDescription(entry, m_clock());
        case FailuresColumn: {
            QStringList lines;
            if (breaker) {
                lines << (breaker->failureThreshold > 0
                        ? tr("%1 consecutive failures; the breaker opens at %2.")
                              .arg(breaker->consecutiveFailures)
                              .arg(breaker->failureThreshold)
                        : tr("%1 consecutive failures.").arg(breaker->consecutiveFailures));
            }
            if (status)
                lines << tr("%L1 failures in all (connection errors, timeouts, 5xx and malformed responses).")
                             .arg(status->failures);
            return lines.join(QLatin1Char('\n'));
        }
        case CallsColumn:
            return tr("Calls admitted and sent upstream");
        case RejectedColumn:
            return tr("Calls refused without reaching the upstream server: by the open breaker, a read-only or a "
                      "disabled adapter");
        case AuthFailuresColumn:
            return tr("Calls the upstream server refused for their credentials (401, 403): its token may have "
                      "expired");
        case LatencyColumn:
            return tr("Median (p50) and 99th percentile (p99) time of the newest calls");
        case LastSuccessColumn:
            return status && status->lastSuccessAtMs > 0
                ? tr("Last successful call at %1").arg(isoTime(status->lastSuccessAtMs))
                : tr("No successful call yet");
        case LastErrorColumn: {
            const QString error = lastError(entry);
            if (error.isEmpty())
                return tr("No error yet");
            return status && status->lastErrorAtMs > 0
                ? QString(tr("At %1:").arg(isoTime(status->lastErrorAtMs)) + QLatin1Char('\n') + error)
                : error;
        }
        }
        break;
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case FailuresColumn:
        case CallsColumn:
        case RejectedColumn:
        case AuthFailuresColumn:
        case LatencyColumn:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case AdapterColumn:
            return entry.name;
        case StateColumn:
            return severity(health(entry));
        case FailuresColumn:
            return breaker ? breaker->consecutiveFailures : -1;
        case CallsColumn:
            return status ? status->calls : -1;
        case RejectedColumn:
            return status ? status->rejectedCalls : -1;
        case AuthFailuresColumn:
            return status ? status->authenticationFailures : -1;
        case LatencyColumn:
            return status ? status->latencyP50Us : -1;
        case LastSuccessColumn:
            return status ? status->lastSuccessAtMs : -1;
        case LastErrorColumn:
            return status ? status->lastErrorAtMs : -1;
        }
        break;
    case FilterRole:
        return QString(entry.name + QLatin1Char(' ') + (status ? status->endpoint : QString()) + QLatin1Char(' ')
            + stateLabel(entry, m_clock()))
            .toLower();
    case AdapterNameRole:
        return entry.name;
    case HealthRole:
        if (index.column() == StateColumn)
            return int(health(entry));
        break;
    }
    return {};
}

QVariant AdapterHealthModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case AdapterColumn:
            return tr("Adapter");
        case StateColumn:
            return tr("State");
        case FailuresColumn:
            return tr("Failures");
        case CallsColumn:
            return tr("Calls");
        case RejectedColumn:
            return tr("Rejected");
        case AuthFailuresColumn:
            return tr("Auth failures");
        case LatencyColumn:
            return tr("p50 / p99");
        case LastSuccessColumn:
            return tr("Last success");
        case LastErrorColumn:
            return tr("Last error");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case FailuresColumn:
            return tr("Consecutive failures / the number that opens the breaker");
        case AuthFailuresColumn:
            return tr("Authentication failures (401, 403)");
        case LatencyColumn:
            return tr("Latency of the newest calls: median / 99th percentile");
        }
    } else if (role == Qt::TextAlignmentRole) {
        switch (section) {
        case FailuresColumn:
        case CallsColumn:
        case RejectedColumn:
        case AuthFailuresColumn:
        case LatencyColumn:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

int AdapterHealthModel::lowerBound(const QString& name) const
{
    const auto it = std::lower_bound(m_entries.cbegin(), m_entries.cend(), name,
        [](const AdapterHealthEntry& entry, const QString& key) { return entry.name < key; });
    return int(it - m_entries.cbegin());
}

QModelIndex AdapterHealthModel::indexOfAdapter(const QString& name, int column) const
{
    const int row = lowerBound(name);
    return row < m_entries.size() && m_entries.at(row).name == name ? index(row, column) : QModelIndex();
}

int AdapterHealthModel::rowFor(const QString& name)
{
    const int row = lowerBound(name);
    if (row < m_entries.size() && m_entries.at(row).name == name)
        return row;
    beginInsertRows({}, row, row);
    m_entries.insert(row, AdapterHealthEntry{name, std::nullopt, std::nullopt});
    endInsertRows();
    return row;
}

template<typename State>
void AdapterHealthModel::applyStates(const QList<State>& states, std::optional<State> AdapterHealthEntry::*part)
{
    const int before = count();
    for (const State& state : states) {
        const QString name = state.key();
        if (name.isEmpty())
            continue;
        const int row = rowFor(name);
        if (m_entries.at(row).*part == state)
            continue;
        m_entries[row].*part = state;
        Q_EMIT dataChanged(index(row, 0), index(row, NumColumns - 1));
    }
    updateCountdown();
    if (count() != before)
        Q_EMIT countChanged(count());
}

void AdapterHealthModel::applyBreakerStates(const BreakerStateList& states)
{
    applyStates(states, &AdapterHealthEntry::breaker);
}

void AdapterHealthModel::applyAdapterStatuses(const AdapterStatusList& statuses)
{
    applyStates(statuses, &AdapterHealthEntry::status);
}

void AdapterHealthModel::clear()
{
    m_countdown.stop();
    if (m_entries.isEmpty())
        return;
    beginResetModel();
    m_entries.clear();
    endResetModel();
    Q_EMIT countChanged(0);
}

bool AdapterHealthModel::waitsToRetry(const AdapterHealthEntry& entry) const
{
    return entry.breaker && entry.breaker->phase == BreakerPhase::Open && !entry.breaker->forcedOpen
        && entry.breaker->retryAtMs > 0 && !isDisabled(entry);
}

void AdapterHealthModel::refreshCountdowns()
{
    // Each open breaker's row, including one whose retry just became due: its last tick reads
    // "retry due", after which nothing changes until the backend says so.
    for (int row = 0; row < m_entries.size(); ++row) {
        if (waitsToRetry(m_entries.at(row)))
            Q_EMIT dataChanged(index(row, StateColumn), index(row, StateColumn));
    }
    updateCountdown();
}

void AdapterHealthModel::updateCountdown()
{
    const qint64 now = m_clock();
    const bool counting = std::any_of(m_entries.cbegin(), m_entries.cend(),
        [&](const AdapterHealthEntry& entry) { return waitsToRetry(entry) && entry.breaker->retryAtMs > now; });
    if (!counting)
        m_countdown.stop();
    else if (!m_countdown.isActive())
        m_countdown.start();
}

void AdapterHealthModel::setBackendsShown(bool shown)
{
    if (shown == m_backendsShown)
        return;
    m_backendsShown = shown;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, AdapterColumn), index(rowCount() - 1, AdapterColumn), {Qt::DisplayRole});
}
