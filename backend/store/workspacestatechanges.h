#pragma once

// WorkspaceStateChanges: the changes a process made to the workspace state that are not yet known
// to be in the file, each under the sequence number it was made with. One per record: a change says
// how its record ends up, so a later change to the same record replaces the earlier one, and the log
// is bounded by the records changed, not by how often (a question put a thousand times is one).
// Confirming a sequence number forgets the changes made up to it; later ones stay.

#include "store/workspacestaterecords.h"

#include <QList>

#include <map>
#include <tuple>

class WorkspaceStateChanges
{
public:
    using Change = WorkspaceStateRecords::Change;

    void add(quint64 sequence, const Change& change);
    // The changes made up to `sequence` are in the file.
    void confirm(quint64 sequence);
    // In the order they were made: new questions keep the order they were raised in.
    void applyTo(WorkspaceStateRecords* records) const;

    bool isEmpty() const { return m_bySequence.empty(); }
    qsizetype size() const { return qsizetype(m_bySequence.size()); }
    quint64 lastSequence() const { return m_bySequence.empty() ? 0 : m_bySequence.rbegin()->first.first; }

private:
    // Questions, grants and tasks are one record per key; stored answers and decisions one per item.
    using Target = std::tuple<WorkspaceStateRecords::Kind, QString, QByteArray>;
    static Target targetOf(const Change& change);

    std::map<Target, std::pair<quint64, quint64>> m_byTarget; // the key of its change in m_bySequence
    // By (sequence, order within the sequence): one submission may carry several changes.
    std::map<std::pair<quint64, quint64>, Change> m_bySequence;
    quint64 m_added = 0;
};
