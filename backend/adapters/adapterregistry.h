#pragma once

// AdapterRegistry: the upstream adapters of the configuration's `mcp_endpoints`. Offers each one's
// tools in the ToolRegistry (source "adapter:NAME", so notifications/tools/list_changed goes out when
// adapters come, go or change their tools), applies a reloaded configuration without dropping calls
// in flight (an adapter that went finishes its calls first), carries out the operator's commands,
// and publishes every adapter's status, breaker state and transitions.
//
// The operator's overrides (disabled, breaker forced open) are shared by every process on the state
// directory through an AdapterOverridesFile: each adapter starts with them (a disabled one is never
// contacted), the operator's commands write them, and a registry that follows the file applies what
// other processes changed.
//
// Lives on the backend thread.

#include "adapters/adapterconfig.h"
#include "adapters/adapteroverridesfile.h"
#include "adapters/circuitbreaker.h"
#include "backendstates.h"
#include "tools/toolregistry.h"

#include <QObject>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <vector>

class InteractionBroker;
class UpstreamAdapter;
class WorkspaceStateWatcher;

class AdapterRegistry : public QObject
{
    Q_OBJECT
public:
    AdapterRegistry(ToolRegistry* tools, InteractionBroker* broker,
        CircuitBreaker::Clock clock = CircuitBreaker::Clock::system(), QObject* parent = nullptr);
    ~AdapterRegistry() override;

    // Makes the adapters those of `configs`: new ones start, changed ones are reconfigured, gone
    // ones stop offering tools and are deleted once their calls in flight have finished.
    void apply(const std::vector<AdapterConfig>& configs);

    // Where a new adapter's earlier transitions come from (history); none when unset.
    using TransitionSource = std::function<QList<BreakerTransitionRecord>(const QString& adapter)>;
    void setTransitionSource(TransitionSource source) { m_transitionSource = std::move(source); }

    // Before the first apply(): keeps the operator's overrides in the file at `path` and reads them
    // now (an unreadable file is set aside: overridesNotice). With `follow`, a change another process
    // makes to the file is applied here a moment later (the console); without, the file is read only
    // now (a one-shot runner). Without a file the overrides live in memory only.
    void useOverridesFile(const QString& path, bool follow,
        std::chrono::milliseconds lockTimeout = AdapterOverridesFile::DefaultLockTimeout);
    // Reads the file again and applies what changed in it since it was last read or written here.
    void reloadOverrides();
    AdapterOverridesFile::Overrides overrides() const { return m_overrides; }

    QStringList names() const;
    bool contains(const QString& adapter) const { return m_adapters.count(adapter) > 0; }
    // The operator's commands; false with a message for an unknown adapter, or for a change made here
    // that could not be saved for the other processes (it acts here all the same).
    bool resetBreaker(const QString& adapter, QString* error);
    // `by` names the operator who forces it open: shown with the breaker's state and its transition.
    bool forceOpenBreaker(const QString& adapter, QString* error, const QString& by = {});
    bool setEnabled(const QString& adapter, bool enabled, QString* error);

    // Why `adapter.tool` found no tool, when `owner` is an adapter that can say; empty otherwise.
    QString unavailableReason(const QString& owner) const;
    // The reason with the status a call to the adapter ends with (ToolRegistry's explainer).
    ToolRegistry::Unavailability unavailability(const QString& owner) const;

    // Ends every session; calls in flight end as cancelled.
    void shutDown();

    // Runs `then` once no adapter is still connecting for the first time (each has listed its tools
    // or failed to, which the adapter's timeout bounds): at once when none is. A one-shot runner's
    // call waits for it, so that `adapter.tool` is routed with the adapter's tools known.
    void whenSettled(std::function<void()> then);

    static QString sourceName(const QString& adapter) { return QStringLiteral("adapter:") + adapter; }

Q_SIGNALS:
    void statusChanged(const AdapterStatus& status);
    void breakerChanged(const BreakerState& state);
    void breakerTransition(const BreakerTransitionRecord& transition);
    // Something about the overrides file the operator should read (it was set aside, cannot be read).
    void overridesNotice(const QString& message);

private:
    void offerTools(const QString& adapter);
    UpstreamAdapter* find(const QString& adapter, QString* error) const;
    void retire(std::shared_ptr<UpstreamAdapter> adapter);
    bool anyConnecting() const;
    void runSettledWaiters();
    // Saves the operator's `change` to `adapter`, already made here, and applies what other processes
    // changed meanwhile; false with `error` when it could not be saved.
    bool keepOverride(const QString& adapter, AdapterOverridesFile::Change change, const QString& done, QString* error,
        const QString& by = {});
    // Applies the entries of `now` that differ from m_overrides to the adapters, then keeps `now`.
    void applyOverrides(const AdapterOverridesFile::Overrides& now);

    ToolRegistry* m_tools;
    InteractionBroker* m_broker;
    const CircuitBreaker::Clock m_clock;
    std::map<QString, std::shared_ptr<UpstreamAdapter>> m_adapters;
    // Removed by a reload, still finishing calls.
    std::vector<std::shared_ptr<UpstreamAdapter>> m_retired;
    TransitionSource m_transitionSource;
    std::vector<std::function<void()>> m_settledWaiters;
    std::unique_ptr<AdapterOverridesFile> m_overridesFile;
    WorkspaceStateWatcher* m_overridesWatcher = nullptr;
    // The file's overrides as last read or written here: new adapters start with them, and a change
    // found in the file is what differs from them (so a change that acts here but could not be saved
    // is not undone by the next read).
    AdapterOverridesFile::Overrides m_overrides;
};
