#pragma once

// TrafficStatsModel: the health dashboard's traffic figures. Finished calls (from the batches the
// window receives) are counted in one-second buckets by the second they finished in: calls, errors,
// and a bounded sample of latencies from which p50 and p99 are read (nearest rank). Each bucket keeps
// the figures overall, per tool and per client; the first MaxNamedSeries tools and clients get series
// of their own and the rest are folded into OtherName, so a client inventing tool names cannot grow
// it. Buckets older than the window are dropped, and the oldest go early when the samples would pass
// MaxSampleBytes.
//
// Rows are the seconds of the window, oldest first, ending at the last whole second before the
// clock's (advance() moves it; the second under way is counted but not shown, or it would read as a
// drop in traffic every time); the columns are the figures of the selected scope (overall, one tool or one client).
// SortRole gives each figure as a number for charts: the second's start in ms since the epoch, counts,
// the error rate in percent, latencies in milliseconds (-1: no call that second).
//
// A call's latency is the time it ran: time it waited for a person (an approval, a question) is
// left out, or one answer after 20 s would make every real latency of the chart read as zero. The
// longest wait of each second is a figure of its own.

#include "toolcall.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QMap>
#include <QRandomGenerator>
#include <QSet>
#include <QStringList>

#include <deque>
#include <functional>

class TrafficStatsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        TimeColumn,
        CallsColumn, // calls finished in that second
        ErrorsColumn,
        ErrorRateColumn, // percent of that second's calls
        P50Column, // ms
        P99Column, // ms
        WaitedColumn, // ms: the longest wait for a person among that second's calls (-1: none waited)
        NumColumns,
    };

    enum class ScopeKind {
        Overall,
        Tool,
        Client,
    };
    struct Scope
    {
        ScopeKind kind = ScopeKind::Overall;
        QString name; // the tool's or client's name (OtherName for the folded ones)
        friend bool operator==(const Scope&, const Scope&) = default;
    };

    // A scope's figures over several seconds.
    struct Figures
    {
        qint64 calls = 0;
        qint64 errors = 0;
        double callsPerSecond = 0;
        double errorRate = 0; // 0..1; 0 without calls
        qint64 p50Us = -1; // -1: no call
        qint64 p99Us = -1;
    };

    static constexpr int DefaultWindowSeconds = 600;
    static constexpr int MaxNamedSeries = 12; // tools, and clients, with a series of their own
    static constexpr int OverallSamplesPerSecond = 256;
    static constexpr int SeriesSamplesPerSecond = 32;
    static constexpr qint64 MaxSampleBytes = 8 * 1024 * 1024;
    // How many finished calls are remembered so that a call published finished twice counts once.
    static constexpr int RememberedCalls = 20'000;
    static QString otherName();

    // A finished call that failed (isFailureStatus): not ok, cancelled (the client's or the operator's
    // choice), declined (a person's valid answer) or parked (it waits for a person).
    static bool isError(const ToolCall& call);

    explicit TrafficStatsModel(QObject* parent = nullptr);

    // Milliseconds since the epoch; the system clock by default. Tests set their own.
    void setClock(std::function<qint64()> clock);
    void setWindowSeconds(int seconds);
    int windowSeconds() const { return m_windowSeconds; }

    // The second the window ends at: the last whole one when advance() last ran.
    qint64 nowSecond() const { return m_nowSecond; }
    Scope scope() const { return m_scope; }
    // The tools and clients with figures of their own, in the order they first appeared, and
    // OtherName last once anything was folded into it.
    QStringList toolNames() const;
    QStringList clientNames() const;
    // Over the window's newest `lastSeconds` seconds.
    Figures figures(const Scope& scope, int lastSeconds) const;
    // What the latency samples take now.
    qint64 sampleBytes() const { return m_sampleBytes; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Counts the calls of a batch that finished (each once); the rest are ignored.
    void addCalls(const ToolCallList& calls);
    void setScope(const Scope& scope);
    // Moves the window to the clock's last whole second, dropping what fell out of it.
    void advance();
    void clear();

Q_SIGNALS:
    // A tool or client got a series of its own (or OtherName appeared).
    void seriesNamesChanged();

private:
    struct Series
    {
        qint64 calls = 0;
        qint64 errors = 0;
        qint64 seen = 0; // latencies offered to the sample
        qint64 maxWaitedUs = -1; // the longest wait for a person; -1 when no call waited
        QList<quint32> samplesUs; // a uniform sample of them (reservoir), at most the series' cap
    };
    struct Bucket
    {
        Series overall;
        QHash<QString, Series> tools;
        QHash<QString, Series> clients;
    };

    QString toolSeries(const QString& tool);
    QString clientSeries(const QString& client);
    void addSample(Series& series, quint32 latencyUs, int cap);
    const Series* seriesOf(const Bucket& bucket, const Scope& scope) const;
    void dropBucket(QMap<qint64, Bucket>::iterator it);
    void prune();
    bool remember(qint64 callId);
    static qint64 percentile(QList<quint32> samples, int percent);

    std::function<qint64()> m_clock;
    int m_windowSeconds = DefaultWindowSeconds;
    qint64 m_nowSecond = 0;
    Scope m_scope;
    QMap<qint64, Bucket> m_buckets; // by second since the epoch
    QStringList m_tools;
    QStringList m_clients;
    bool m_toolsFolded = false;
    bool m_clientsFolded = false;
    qint64 m_sampleBytes = 0;
    QSet<qint64> m_counted;
    std::deque<qint64> m_countedOrder;
    QRandomGenerator m_random{20'261'126}; // fixed seed: the same calls give the same figures
};
