#pragma once

// DiffMemoryBudget: the memory that text diffs of files may take at once, across every git_diff
// and git_show running in the process. Comparing one file line by line holds both its versions
// and libgit2's records of their lines, about four times both versions together (a 57 MB file
// took 424 MB), so a few large files diffed at once by different calls could take gigabytes for
// answers cut at 1 MiB. Each file's diff reserves its estimate first and waits while others hold
// the budget; a file too large for it alone is not compared line by line at all.
//
// Thread-safe; one per process (instance()).

#include <QtGlobal>

#include <condition_variable>
#include <functional>
#include <mutex>

class DiffMemoryBudget
{
public:
    // Neither version of a file larger than this is compared line by line.
    static constexpr qint64 MaxComparedFileBytes = 8 * 1024 * 1024;
    // What comparing two versions of `oldBytes` and `newBytes` may take.
    static qint64 estimate(qint64 oldBytes, qint64 newBytes) { return 4 * (oldBytes + newBytes) + 1024 * 1024; }

    static DiffMemoryBudget& instance();

    explicit DiffMemoryBudget(qint64 bytes);

    // What is reserved, until released (the destructor releases it).
    class Reservation
    {
    public:
        Reservation() = default;
        Reservation(Reservation&& other) noexcept;
        Reservation& operator=(Reservation&& other) noexcept;
        ~Reservation();
        bool isValid() const { return m_budget != nullptr; }

    private:
        friend class DiffMemoryBudget;
        Reservation(DiffMemoryBudget* budget, qint64 bytes);
        DiffMemoryBudget* m_budget = nullptr;
        qint64 m_bytes = 0;
    };

    // Waits until `bytes` (at most the whole budget) are free; an invalid reservation when
    // `cancelled` says stop first (asked every 100 ms while waiting).
    Reservation reserve(qint64 bytes, const std::function<bool()>& cancelled);

    qint64 total() const { return m_total; }
    qint64 reserved() const;

private:
    void release(qint64 bytes);

    const qint64 m_total;
    mutable std::mutex m_mutex;
    std::condition_variable m_freed;
    qint64 m_reserved = 0;
};
