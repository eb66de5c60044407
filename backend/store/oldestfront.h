#pragma once

// The one eviction rule of the answer stores (ClientOutputStore, ApprovalStore): answers are kept
// FIFO per key, so the oldest answer of all is at the front of one of the queues.

#include <iterator>

// The queue (in a map of non-empty queues) whose front is the oldest by `age` (smaller is older);
// end() when the map is empty.
template<typename Queues, typename Age>
typename Queues::iterator queueWithOldestFront(Queues& queues, Age age)
{
    auto oldest = queues.end();
    for (auto it = queues.begin(); it != queues.end(); ++it) {
        if (oldest == queues.end() || age(it->second.front()) < age(oldest->second.front()))
            oldest = it;
    }
    return oldest;
}
