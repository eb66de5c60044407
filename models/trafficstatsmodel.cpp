#include "trafficstatsmodel.h"

#include "callcolumns.h"
#include "modelroles.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

QString formatMs(qint64 us)
{
    if (us < 0)
        return {};
    return QLocale().toString(double(us) / 1000.0, 'f', us < 10'000 ? 2 : 1);
}

} // namespace

QString TrafficStatsModel::otherName()
{
    return QStringLiteral("(other)");
}

bool TrafficStatsModel::isError(const ToolCall& call)
{
    return call.isFinished() && isFailureStatus(call.status);
}

TrafficStatsModel::TrafficStatsModel(QObject* parent)
    : QAbstractTableModel(parent)
    , m_clock([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_nowSecond = m_clock() / 1000 - 1;
}

void TrafficStatsModel::setClock(std::function<qint64()> clock)
{
    m_clock = std::move(clock);
    beginResetModel();
    m_nowSecond = m_clock() / 1000 - 1;
    prune();
    endResetModel();
}

void TrafficStatsModel::setWindowSeconds(int seconds)
{
    beginResetModel();
    m_windowSeconds = std::max(1, seconds);
    prune();
    endResetModel();
}

QStringList TrafficStatsModel::toolNames() const
{
    return m_toolsFolded ? m_tools + QStringList{otherName()} : m_tools;
}

QStringList TrafficStatsModel::clientNames() const
{
    return m_clientsFolded ? m_clients + QStringList{otherName()} : m_clients;
}

int TrafficStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_windowSeconds;
}

int TrafficStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TrafficStatsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::TextAlignmentRole)
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == TimeColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const qint64 second = m_nowSecond - m_windowSeconds + 1 + index.row();
    if (index.column() == TimeColumn) {
        if (role == SortRole)
            return second * 1000;
        return CallColumns::formatLocalTime(second * 1000, QStringLiteral("HH:mm:ss"));
    }
    const auto bucket = m_buckets.constFind(second);
    const Series* series = bucket == m_buckets.constEnd() ? nullptr : seriesOf(*bucket, m_scope);
    const qint64 calls = series ? series->calls : 0;
    const qint64 errors = series ? series->errors : 0;
    switch (index.column()) {
    case CallsColumn:
        return role == SortRole ? QVariant(double(calls)) : QVariant(calls);
    case ErrorsColumn:
        return role == SortRole ? QVariant(double(errors)) : QVariant(errors);
    case ErrorRateColumn: {
        const double rate = calls ? 100.0 * double(errors) / double(calls) : 0.0;
        return role == SortRole ? QVariant(rate) : QVariant(QLocale().toString(rate, 'f', 1) + QLatin1Char('%'));
    }
    case P50Column:
    case P99Column: {
        const qint64 us = series ? percentile(series->samplesUs, index.column() == P50Column ? 50 : 99) : -1;
        return role == SortRole ? QVariant(us < 0 ? -1.0 : double(us) / 1000.0) : QVariant(formatMs(us));
    }
    case WaitedColumn: {
        const qint64 us = series ? series->maxWaitedUs : -1;
        return role == SortRole ? QVariant(us < 0 ? -1.0 : double(us) / 1000.0) : QVariant(formatMs(us));
    }
    default:
        return {};
    }
}

QVariant TrafficStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case TimeColumn:
        return tr("Second");
    case CallsColumn:
        return tr("Calls");
    case ErrorsColumn:
        return tr("Errors");
    case ErrorRateColumn:
        return tr("Error rate");
    case P50Column:
        return tr("p50 (ms)");
    case P99Column:
        return tr("p99 (ms)");
    case WaitedColumn:
        return tr("Longest wait for a person (ms)");
    default:
        return {};
    }
}

void TrafficStatsModel::addCalls(const ToolCallList& calls)
{
    const qint64 oldest = m_nowSecond - m_windowSeconds + 1;
    qint64 firstChanged = std::numeric_limits<qint64>::max();
    qint64 lastChanged = std::numeric_limits<qint64>::min();
    const qsizetype namesBefore = m_tools.size() + m_clients.size() + int(m_toolsFolded) + int(m_clientsFolded);
    for (const ToolCall& call : calls) {
        if (!call.isFinished() || call.durationUs < 0)
            continue;
        const qint64 finishedMs = call.startedAtMs + call.durationUs / 1000;
        const qint64 second = finishedMs / 1000;
        if (second < oldest || !remember(call.id))
            continue;
        const bool error = isError(call);
        const quint32 latencyUs = quint32(std::min<qint64>(call.ranUs(), std::numeric_limits<quint32>::max()));
        Bucket& bucket = m_buckets[second];
        const auto count = [&](Series& series, int cap) {
            ++series.calls;
            series.errors += error ? 1 : 0;
            if (call.waitedUs > 0)
                series.maxWaitedUs = std::max(series.maxWaitedUs, call.waitedUs);
            addSample(series, latencyUs, cap);
        };
        count(bucket.overall, OverallSamplesPerSecond);
        count(bucket.tools[toolSeries(call.tool)], SeriesSamplesPerSecond);
        count(bucket.clients[clientSeries(call.clientName)], SeriesSamplesPerSecond);
        firstChanged = std::min(firstChanged, second);
        lastChanged = std::max(lastChanged, second);
    }
    const qint64 bucketsBefore = m_buckets.size();
    prune();
    if (m_tools.size() + m_clients.size() + int(m_toolsFolded) + int(m_clientsFolded) != namesBefore)
        Q_EMIT seriesNamesChanged();
    if (firstChanged > lastChanged)
        return;
    if (m_buckets.size() != bucketsBefore) {
        // The byte bound dropped old seconds: every row may have changed.
        firstChanged = oldest;
        lastChanged = m_nowSecond;
    }
    const int firstRow = int(std::clamp<qint64>(firstChanged - oldest, 0, m_windowSeconds - 1));
    const int lastRow = int(std::clamp<qint64>(lastChanged - oldest, 0, m_windowSeconds - 1));
    if (lastChanged >= oldest && firstChanged <= m_nowSecond)
        Q_EMIT dataChanged(index(firstRow, 0), index(lastRow, NumColumns - 1));
}

void TrafficStatsModel::setScope(const Scope& scope)
{
    if (scope == m_scope)
        return;
    m_scope = scope;
    Q_EMIT dataChanged(index(0, 0), index(m_windowSeconds - 1, NumColumns - 1));
}

void TrafficStatsModel::advance()
{
    const qint64 now = m_clock() / 1000 - 1;
    if (now == m_nowSecond)
        return;
    m_nowSecond = now;
    prune();
    // Every row is a different second now: the rows stay, their contents move.
    Q_EMIT dataChanged(index(0, 0), index(m_windowSeconds - 1, NumColumns - 1));
}

void TrafficStatsModel::clear()
{
    beginResetModel();
    m_buckets.clear();
    m_tools.clear();
    m_clients.clear();
    m_toolsFolded = m_clientsFolded = false;
    m_sampleBytes = 0;
    m_counted.clear();
    m_countedOrder.clear();
    m_scope = {};
    endResetModel();
    Q_EMIT seriesNamesChanged();
}

TrafficStatsModel::Figures TrafficStatsModel::figures(const Scope& scope, int lastSeconds) const
{
    Figures figures;
    lastSeconds = std::max(1, lastSeconds);
    QList<quint32> samples;
    for (auto it = m_buckets.lowerBound(m_nowSecond - lastSeconds + 1);
         it != m_buckets.constEnd() && it.key() <= m_nowSecond; ++it) {
        const Series* series = seriesOf(*it, scope);
        if (!series)
            continue;
        figures.calls += series->calls;
        figures.errors += series->errors;
        samples += series->samplesUs;
    }
    figures.callsPerSecond = double(figures.calls) / double(lastSeconds);
    figures.errorRate = figures.calls ? double(figures.errors) / double(figures.calls) : 0.0;
    figures.p50Us = percentile(samples, 50);
    figures.p99Us = percentile(samples, 99);
    return figures;
}

QString TrafficStatsModel::toolSeries(const QString& tool)
{
    if (m_tools.contains(tool))
        return tool;
    if (m_tools.size() < MaxNamedSeries && tool != otherName()) {
        m_tools.append(tool);
        return tool;
    }
    m_toolsFolded = true;
    return otherName();
}

QString TrafficStatsModel::clientSeries(const QString& client)
{
    if (m_clients.contains(client))
        return client;
    if (m_clients.size() < MaxNamedSeries && client != otherName()) {
        m_clients.append(client);
        return client;
    }
    m_clientsFolded = true;
    return otherName();
}

void TrafficStatsModel::addSample(Series& series, quint32 latencyUs, int cap)
{
    ++series.seen;
    if (series.samplesUs.size() < cap) {
        series.samplesUs.append(latencyUs);
        m_sampleBytes += qint64(sizeof(quint32));
        return;
    }
    // Reservoir sampling: every latency of the second had the same chance to be kept.
    const qint64 slot = qint64(m_random.bounded(quint64(series.seen)));
    if (slot < cap)
        series.samplesUs[slot] = latencyUs;
}

const TrafficStatsModel::Series* TrafficStatsModel::seriesOf(const Bucket& bucket, const Scope& scope) const
{
    switch (scope.kind) {
    case ScopeKind::Overall:
        return &bucket.overall;
    case ScopeKind::Tool: {
        const auto it = bucket.tools.constFind(scope.name);
        return it == bucket.tools.constEnd() ? nullptr : &*it;
    }
    case ScopeKind::Client: {
        const auto it = bucket.clients.constFind(scope.name);
        return it == bucket.clients.constEnd() ? nullptr : &*it;
    }
    }
    return nullptr;
}

void TrafficStatsModel::dropBucket(QMap<qint64, Bucket>::iterator it)
{
    qint64 samples = it->overall.samplesUs.size();
    for (const Series& series : std::as_const(it->tools))
        samples += series.samplesUs.size();
    for (const Series& series : std::as_const(it->clients))
        samples += series.samplesUs.size();
    m_sampleBytes -= samples * qint64(sizeof(quint32));
    m_buckets.erase(it);
}

void TrafficStatsModel::prune()
{
    const qint64 oldest = m_nowSecond - m_windowSeconds + 1;
    while (!m_buckets.isEmpty() && m_buckets.firstKey() < oldest)
        dropBucket(m_buckets.begin());
    // Seconds ahead of the clock (a call's clock ran fast) count too: the window never holds more
    // than twice its seconds, nor more samples than the byte bound.
    while (m_buckets.size() > 2 * qsizetype(m_windowSeconds))
        dropBucket(m_buckets.begin());
    while (m_sampleBytes > MaxSampleBytes && !m_buckets.isEmpty())
        dropBucket(m_buckets.begin());
}

bool TrafficStatsModel::remember(qint64 callId)
{
    if (m_counted.contains(callId))
        return false;
    m_counted.insert(callId);
    m_countedOrder.push_back(callId);
    if (m_countedOrder.size() > size_t(RememberedCalls)) {
        m_counted.remove(m_countedOrder.front());
        m_countedOrder.pop_front();
    }
    return true;
}

qint64 TrafficStatsModel::percentile(QList<quint32> samples, int percent)
{
    if (samples.isEmpty())
        return -1;
    // Nearest rank: the smallest sample with at least `percent` of them at or below it.
    const qsizetype rank = std::max<qsizetype>(1, qsizetype(std::ceil(percent / 100.0 * double(samples.size()))));
    std::nth_element(samples.begin(), samples.begin() + (rank - 1), samples.end());
    return samples.at(rank - 1);
}
