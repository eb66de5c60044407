#pragma once

// AdapterHealthModel: the upstream adapters as their operator watches them, one row per adapter,
// joined by name from the two states the backend publishes (BreakerState and AdapterStatus). Each
// batch holds only the adapters that changed: every state replaces that part of its row (dataChanged),
// and an unknown name becomes a new row (beginInsertRows), in name order so rows stay put.
//
// Rows are never removed: the backend has no "adapter removed" event, and an adapter a reload took out
// of the configuration still has calls in the log worth finding. It keeps its last state (usually
// connection Disabled and no tools) until the next start.
//
// An open breaker's state reads "open — retry in 12 s"; while any breaker waits to retry, the model
// refreshes that text once a second, and not at all otherwise.

#include "backendstates.h"

#include <QAbstractTableModel>
#include <QTimer>

#include <functional>
#include <optional>

class QPalette;

// How an adapter is doing, for its colour (HealthRole): the view picks a shade that reads on the
// palette in use, light or dark.
enum class AdapterHealth {
    Unknown, // no state yet
    Healthy, // closed and ready
    Pending, // connecting, or half-open: trial calls decide
    Failing, // open, or its connection fails
    Operator, // forced open by the operator
    Off, // disabled
};

struct AdapterHealthEntry
{
    QString name;
    std::optional<BreakerState> breaker;
    std::optional<AdapterStatus> status;
};

class AdapterHealthModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // A window holding several backends: each row names its backend (the fleet sets it on every state).
    void setBackendsShown(bool shown);
    enum Columns {
        AdapterColumn, // the name; endpoint, tools and read-only in the tooltip
        StateColumn, // "closed", "open — retry in 12 s", "half-open", "forced open", "disabled", …
        FailuresColumn, // consecutive failures / the breaker's threshold
        CallsColumn,
        RejectedColumn,
        AuthFailuresColumn,
        LatencyColumn, // "p50 / p99"
        LastSuccessColumn,
        LastErrorColumn,
        NumColumns,
    };

    static constexpr int CountdownRefreshMs = 1000;

    explicit AdapterHealthModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int count() const { return int(m_entries.size()); }
    const AdapterHealthEntry& entryAt(int row) const { return m_entries.at(row); }
    // The adapter's row, or an invalid index when it is not shown.
    QModelIndex indexOfAdapter(const QString& name, int column = 0) const;
    // Whether the retry countdown is being refreshed (some breaker is open and waits to retry).
    bool isCountdownRunning() const { return m_countdown.isActive(); }

    // The clock countdowns are measured against (ms since the Unix epoch); tests set a fixed one.
    void setClock(std::function<qint64()> clock);

    // What a person reads (shared with the view's buttons and the timeline).
    static AdapterHealth health(const AdapterHealthEntry& entry);
    static QString stateLabel(const AdapterHealthEntry& entry, qint64 nowMs);
    static QString stateDescription(const AdapterHealthEntry& entry, qint64 nowMs);
    // "12 s", "2 min 05 s", "1 h 03 min".
    static QString formatCountdown(qint64 ms);
    // Today's times need only the time of day; older ones say the day as well.
    static QString formatTime(qint64 epochMs);
    // A shade of the health's colour that reads on the palette's base (light or dark); invalid for
    // Unknown, which keeps the palette's own text colour.
    static QColor healthColour(AdapterHealth health, const QPalette& palette);
    // Disabled by the operator (Enable undoes it) rather than by the configuration file.
    static bool isDisabled(const AdapterHealthEntry& entry);
    static bool isDisabledByOperator(const AdapterHealthEntry& entry);

public Q_SLOTS:
    // Each state replaces its adapter's breaker part, or becomes a new row.
    void applyBreakerStates(const BreakerStateList& states);
    // Each status replaces its adapter's status part, or becomes a new row.
    void applyAdapterStatuses(const AdapterStatusList& statuses);
    void clear();
    // Rewrites the open breakers' countdowns (the timer calls it once a second).
    void refreshCountdowns();

Q_SIGNALS:
    void countChanged(int count);

private:
    bool m_backendsShown = false;
    // The row that holds `name`, or where it would be inserted.
    int lowerBound(const QString& name) const;
    // The row of `name`, inserting an empty one when it is new.
    int rowFor(const QString& name);
    // Puts each state into its adapter's `part` (new rows for new adapters), signalling what changed.
    template<typename State>
    void applyStates(const QList<State>& states, std::optional<State> AdapterHealthEntry::*part);
    void updateCountdown();
    bool waitsToRetry(const AdapterHealthEntry& entry) const;

    QList<AdapterHealthEntry> m_entries; // sorted by name
    std::function<qint64()> m_clock;
    QTimer m_countdown;
};
