#include "store/workspacestatechanges.h"

WorkspaceStateChanges::Target WorkspaceStateChanges::targetOf(const Change& change)
{
    using Kind = WorkspaceStateRecords::Kind;
    const bool item = change.kind == Kind::Output || change.kind == Kind::Decision;
    return Target{change.kind, change.key, item ? change.record : QByteArray()};
}

void WorkspaceStateChanges::add(quint64 sequence, const Change& change)
{
    const Target target = targetOf(change);
    const auto [it, inserted] = m_byTarget.try_emplace(target);
    if (!inserted)
        m_bySequence.erase(it->second);
    it->second = {sequence, m_added++};
    m_bySequence.emplace(it->second, change);
}

void WorkspaceStateChanges::confirm(quint64 sequence)
{
    while (!m_bySequence.empty() && m_bySequence.begin()->first.first <= sequence) {
        m_byTarget.erase(targetOf(m_bySequence.begin()->second));
        m_bySequence.erase(m_bySequence.begin());
    }
}

void WorkspaceStateChanges::applyTo(WorkspaceStateRecords* records) const
{
    for (const auto& [order, change] : m_bySequence)
        records->apply(change);
}
