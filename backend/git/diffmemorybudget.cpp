#include "git/diffmemorybudget.h"

#include <algorithm>
#include <chrono>

DiffMemoryBudget& DiffMemoryBudget::instance()
{
    // Room for two of the largest files compared at once, or many small ones.
    static DiffMemoryBudget budget(2 * estimate(MaxComparedFileBytes, MaxComparedFileBytes));
    return budget;
}

DiffMemoryBudget::DiffMemoryBudget(qint64 bytes)
    : m_total(bytes)
{}

DiffMemoryBudget::Reservation DiffMemoryBudget::reserve(qint64 bytes, const std::function<bool()>& cancelled)
{
    bytes = std::clamp<qint64>(bytes, 0, m_total);
    std::unique_lock lock(m_mutex);
    while (m_reserved + bytes > m_total) {
        if (cancelled && cancelled())
            return {};
        m_freed.wait_for(lock, std::chrono::milliseconds(100));
    }
    m_reserved += bytes;
    return Reservation(this, bytes);
}

qint64 DiffMemoryBudget::reserved() const
{
    const std::lock_guard lock(m_mutex);
    return m_reserved;
}

void DiffMemoryBudget::release(qint64 bytes)
{
    {
        const std::lock_guard lock(m_mutex);
        m_reserved -= bytes;
    }
    m_freed.notify_all();
}

DiffMemoryBudget::Reservation::Reservation(DiffMemoryBudget* budget, qint64 bytes)
    : m_budget(budget)
    , m_bytes(bytes)
{}

DiffMemoryBudget::Reservation::Reservation(Reservation&& other) noexcept
    : m_budget(std::exchange(other.m_budget, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0))
{}

DiffMemoryBudget::Reservation& DiffMemoryBudget::Reservation::operator=(Reservation&& other) noexcept
{
    if (this != &other) {
        if (m_budget)
            m_budget->release(m_bytes);
        m_budget = std::exchange(other.m_budget, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

DiffMemoryBudget::Reservation::~Reservation()
{
    if (m_budget)
        m_budget->release(m_bytes);
}
