#include "adapters/adapterregistry.h"

#include <algorithm>

#include "adapters/upstreamadapter.h"
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
    adapter->shutDown();
    if (adapter->callsInFlight() == 0)
        return; // nothing holds it: it goes now
    UpstreamAdapter* raw = adapter.get();
    disconnect(raw, nullptr, this, nullptr);
    connect(raw, &UpstreamAdapter::idle, this, [this, raw] {
        // Not erased inside the adapter's own signal: later, from the event loop.
        QMetaObject::invokeMethod(
            this,
            [this, raw] { std::erase_if(m_retired, [raw](const auto& retired) { return retired.get() == raw; }); },
            Qt::QueuedConnection);
    });
    m_retired.push_back(std::move(adapter));
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

bool AdapterRegistry::resetBreaker(const QString& adapter, QString* error)
{
    UpstreamAdapter* found = find(adapter, error);
    if (found)
        found->resetBreaker();
    return found;
}

bool AdapterRegistry::forceOpenBreaker(const QString& adapter, QString* error)
{
    UpstreamAdapter* found = find(adapter, error);
    if (found)
        found->forceOpenBreaker();
    return found;
}

bool AdapterRegistry::setEnabled(const QString& adapter, bool enabled, QString* error)
{
    UpstreamAdapter* found = find(adapter, error);
    if (found)
        found->setEnabledByOperator(enabled);
    return found;
}

QString AdapterRegistry::unavailableReason(const QString& owner) const
{
    const auto it = m_adapters.find(owner);
    return it == m_adapters.end() ? QString() : it->second->unavailableReason();
}

void AdapterRegistry::shutDown()
{
    for (const auto& [name, adapter] : m_adapters)
        adapter->shutDown();
    for (const auto& adapter : m_retired)
        adapter->shutDown();
}
