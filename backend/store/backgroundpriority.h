#pragma once

// Thread priority for data that must not be lost. Threads inherit their creator's scheduling
// policy, so a thread that writes history or state says itself that it runs at normal priority:
// at idle priority (SCHED_IDLE) it would starve for as long as its core is busy, and with it the
// calls it should keep.

namespace BackgroundPriority {

// Moves the calling thread to normal priority (Linux: SCHED_OTHER, for this thread only). Does
// nothing where that is not available.
void applyNormalToCurrentThread();

} // namespace BackgroundPriority
