#pragma once

// Bookkeeping threads (history writes, the headless log) run at idle scheduling priority, so that
// on a busy machine they never delay a response: the scheduler runs them when the backend thread
// does not need the CPU, and preempts them the moment it does.

namespace BackgroundPriority {

// Moves the calling thread to idle priority (Linux: SCHED_IDLE, for this thread only). Does nothing
// where that is not available.
void applyToCurrentThread();

} // namespace BackgroundPriority
