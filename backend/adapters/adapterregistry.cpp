#include "adapters/adapterregistry.h"

#include <algorithm>
#include <utility>

#include "adapters/upstreamadapter.h"
#include "store/workspacestatewatcher.h"
#include "tools/toolregistry.h"

AdapterRegistry::AdapterRegistry(
    ToolRegistry* tools, InteractionBroker* broker, CircuitBreaker::Clock clock, QObject* parent)
    : QObject(parent)
    , m_tools(tools)
    , m_broker(broker)
    , m_clock(std::move(clock))
{}

AdapterRegistry::~AdapterRegistry()
{
    shutDown();
}

void AdapterRegistry::apply(const std::vector<AdapterConfig>& configs)
{
    std::map<QString, const AdapterConfig*> wanted;
    for (const AdapterConfig& config : configs)
        wanted[config.name] = &config;

    // Gone: their tools leave now; their calls in flight finish before they go.
    std::vector<QString> gone;
    for (const auto& [name, adapter] : m_adapters) {
        if (!wanted.count(name))
            gone.push_back(name);
    }
    for (const QString& name : gone) {
        auto adapter = std::move(m_adapters.at(name));
        m_adapters.erase(name);
        if (m_tools)
            m_tools->replaceSource(sourceName(name), {});
        retire(std::move(adapter));
    }

    for (const auto& [name, config] : wanted) {
        const auto existing = m_adapters.find(name);
        if (existing != m_adapters.end()) {
            existing->second->reconfigure(*config);
            continue;
        }
        auto adapter = std::make_shared<UpstreamAdapter>(*config, m_broker, m_clock);
        UpstreamAdapter* raw = adapter.get();
        // A copy: clang 14 cannot capture a structured binding.
        connect(raw, &UpstreamAdapter::toolsChanged, this, [this, adapterName = name] { offerTools(adapterName); });
        connect(raw, &UpstreamAdapter::statusChanged, this, &AdapterRegistry::statusChanged);
        // Queued: an adapter that became ready offers its tools after telling its status.
        connect(raw, &UpstreamAdapter::statusChanged, this, &AdapterRegistry::runSettledWaiters, Qt::QueuedConnection);
        connect(raw, &UpstreamAdapter::breakerChanged, this, &AdapterRegistry::breakerChanged);
        connect(raw, &UpstreamAdapter::breakerTransition, this, &AdapterRegistry::breakerTransition);
        m_adapters.emplace(name, std::move(adapter));
        // Before anything is published or connected: a disabled adapter is never contacted.
        if (const auto kept = m_overrides.find(name); kept != m_overrides.end())
            raw->restoreOverrides(
                kept->second.disabled, kept->second.forcedOpen, kept->second.changedAtMs, kept->second.forcedBy);
        if (m_transitionSource)
            raw->restoreTransitions(m_transitionSource(name));
        raw->start();
    }
}

void AdapterRegistry::whenSettled(std::function<void()> then)
{
    if (!anyConnecting()) {
        then();
        return;
    }
    m_settledWaiters.push_back(std::move(then));
}

bool AdapterRegistry::anyConnecting() const
{
    return std::any_of(m_adapters.cbegin(), m_adapters.cend(),
        [](const auto& entry) { return entry.second->status().connection == AdapterConnection::Connecting; });
}

void AdapterRegistry::runSettledWaiters()
{
    if (m_settledWaiters.empty() || anyConnecting())
        return;
    // Taken first: a waiter may ask again, or change the adapters.
    std::vector<std::function<void()>> waiters;
    waiters.swap(m_settledWaiters);
    for (const auto& then : waiters)
        then();
}

void AdapterRegistry::offerTools(const QString& adapter)
{
    const auto it = m_adapters.find(adapter);
    if (it == m_adapters.end() || !m_tools)
        return;
    QStringList problems;
    m_tools->replaceSource(sourceName(adapter), it->second->tools(), &problems);
    for (const QString& problem : problems)
        qWarning("switchboard: adapter %s: %s", qPrintable(adapter), qPrintable(problem));
}

void AdapterRegistry::retire(std::shared_ptr<UpstreamAdapter> adapter)
{
    // Its calls in flight finish (each bounded by its timeout); its session ends after the last,
    // and then it goes.
    UpstreamAdapter* raw = adapter.get();
    disconnect(raw, nullptr, this, nullptr);
    connect(raw, &UpstreamAdapter::retired, this, [this, raw] {
        // Not erased inside the adapter's own signal: later, from the event loop.
        QMetaObject::invokeMethod(
            this,
            [this, raw] { std::erase_if(m_retired, [raw](const auto& retired) { return retired.get() == raw; }); },
            Qt::QueuedConnection);
    });
    m_retired.push_back(std::move(adapter));
    raw->retire();
}

QStringList AdapterRegistry::names() const
{
    QStringList names;
    for (const auto& [name, adapter] : m_adapters)
        names << name;
    return names;
}

UpstreamAdapter* AdapterRegistry::find(const QString& adapter, QString* error) const
{
    const auto it = m_adapters.find(adapter);
    if (it != m_adapters.end())
        return it->second.get();
    if (error) {
        *error = names().isEmpty()
            ? QStringLiteral("There is no adapter \"%1\": the configuration declares none (mcp_endpoints).")
                  .arg(adapter)
            : QStringLiteral("There is no adapter \"%1\"; the configured ones are %2.")
                  .arg(adapter, names().join(QStringLiteral(", ")));
    }
    return nullptr;
}

void AdapterRegistry::useOverridesFile(const QString& path, bool follow, std::chrono::milliseconds lockTimeout)
{
    m_overridesFile = std::make_unique<AdapterOverridesFile>(path, lockTimeout);
    delete m_overridesWatcher;
    m_overridesWatcher = nullptr;
    if (follow) {
        // Watching before the first read, so that a change made between the two is not missed.
        m_overridesWatcher = new WorkspaceStateWatcher(path, 100, 2'000, this);
        connect(m_overridesWatcher, &WorkspaceStateWatcher::changed, this, &AdapterRegistry::reloadOverrides);
    }
    reloadOverrides();
}

void AdapterRegistry::reloadOverrides()
{
    if (!m_overridesFile)
        return;
    AdapterOverridesFile::Overrides now;
    QString message;
    const AdapterOverridesFile::ReadStatus status = m_overridesFile->read(&now, &message);
    if (!message.isEmpty())
        Q_EMIT overridesNotice(message);
    if (status == AdapterOverridesFile::ReadStatus::Failed)
        return; // nothing is known: what is in force stays, until the file can be read
    applyOverrides(now);
}

void AdapterRegistry::applyOverrides(const AdapterOverridesFile::Overrides& now)
{
    const AdapterOverridesFile::Overrides before = std::exchange(m_overrides, now);
    // Names first, each adapter looked up again: its signals reach the tool registry and clients.
    QStringList changed;
    for (const auto& [name, entry] : now) {
        const auto was = before.find(name);
        if (was == before.end() || !was->second.sameAs(entry))
            changed << name;
    }
    for (const auto& [name, entry] : before) {
        if (!now.count(name))
            changed << name;
    }
    for (const QString& name : std::as_const(changed)) {
        const auto it = m_adapters.find(name);
        if (it == m_adapters.end())
            continue; // not configured here: kept in the file, and does nothing
        const std::shared_ptr<UpstreamAdapter> adapter = it->second;
        const auto was = before.find(name);
        const auto is = now.find(name);
        const AdapterOverridesFile::Override previous
            = was == before.end() ? AdapterOverridesFile::Override() : was->second;
        const AdapterOverridesFile::Override current = is == now.end() ? AdapterOverridesFile::Override() : is->second;
        if (previous.disabled != current.disabled)
            adapter->setEnabledByOperator(!current.disabled);
        // Only a change of the file's entry acts: a breaker open here after failures of its own stays
        // open when another process merely enables the adapter.
        if (previous.forcedOpen != current.forcedOpen) {
            const bool forced = adapter->breakerState().forcedOpen;
            if (current.forcedOpen && !forced)
                adapter->forceOpenBreaker(current.forcedBy.isEmpty()
                        ? QStringLiteral("opened by the operator (in another Switchboard process)")
                        : QStringLiteral("opened by the operator %1 (in another Switchboard process)")
                              .arg(current.forcedBy),
                    current.forcedBy);
            else if (!current.forcedOpen && forced)
                adapter->resetBreaker(QStringLiteral("reset by the operator (in another Switchboard process)"));
        }
    }
}

bool AdapterRegistry::keepOverride(
    const QString& adapter, AdapterOverridesFile::Change change, const QString& done, QString* error, const QString& by)
{
    if (!m_overridesFile)
        return true;
    AdapterOverridesFile::Overrides after;
    QString problem;
    QString notice;
    if (!m_overridesFile->change(adapter, change, m_clock.wallMs(), &after, &problem, &notice, by)) {
        // m_overrides keeps the file's last known entry, so the next read does not undo the change here.
        if (error) {
            *error = QStringLiteral("%1 in this Switchboard, but it could not be saved for other Switchboard processes "
                                    "and the next start: %2")
                         .arg(done, problem);
        }
        return false;
    }
    if (!notice.isEmpty())
        Q_EMIT overridesNotice(notice);
    // This adapter's entry is in force here already; the rest of `after` is what others changed.
    if (const auto it = after.find(adapter); it != after.end())
        m_overrides[adapter] = it->second;
    else
        m_overrides.erase(adapter);
    applyOverrides(after);
    return true;
}

bool AdapterRegistry::resetBreaker(const QString& adapter, QString* error)
{
    UpstreamAdapter* found = find(adapter, error);
    if (!found)
        return false;
    found->resetBreaker();
    return keepOverride(adapter, AdapterOverridesFile::Change::Reset,
        QStringLiteral("The circuit breaker of adapter %1 is reset").arg(adapter), error);
}

bool AdapterRegistry::forceOpenBreaker(const QString& adapter, QString* error, const QString& by)
{
    UpstreamAdapter* found = find(adapter, error);
    if (!found)
        return false;
    found->forceOpenBreaker(
        by.isEmpty() ? QStringLiteral("opened by the operator") : QStringLiteral("opened by the operator %1").arg(by),
        by);
    return keepOverride(adapter, AdapterOverridesFile::Change::ForceOpen,
        QStringLiteral("The circuit breaker of adapter %1 is forced open").arg(adapter), error, by);
}

bool AdapterRegistry::setEnabled(const QString& adapter, bool enabled, QString* error)
{
    UpstreamAdapter* found = find(adapter, error);
    if (!found)
        return false;
    found->setEnabledByOperator(enabled);
    return keepOverride(adapter, enabled ? AdapterOverridesFile::Change::Enable : AdapterOverridesFile::Change::Disable,
        QStringLiteral("Adapter %1 is %2")
            .arg(adapter, enabled ? QStringLiteral("enabled") : QStringLiteral("disabled")),
        error);
}

QString AdapterRegistry::unavailableReason(const QString& owner) const
{
    return unavailability(owner).reason;
}

ToolRegistry::Unavailability AdapterRegistry::unavailability(const QString& owner) const
{
    const auto it = m_adapters.find(owner);
    if (it == m_adapters.end())
        return {};
    return {it->second->unavailableReason(), it->second->unavailableStatus()};
}

void AdapterRegistry::shutDown()
{
    for (const auto& [name, adapter] : m_adapters)
        adapter->shutDown();
    for (const auto& adapter : m_retired)
        adapter->shutDown();
}
