#include "backgroundpriority.h"

#include <QtGlobal>

#ifdef Q_OS_LINUX
#include <pthread.h>
#include <sched.h>
#endif

namespace BackgroundPriority {

void applyToCurrentThread()
{
#ifdef Q_OS_LINUX
    // A nice value is not enough: a woken normal thread preempts a lower-nice thread only after the
    // scheduler's wake-up granularity (milliseconds), which shows up directly as response latency.
    // SCHED_IDLE threads are preempted at once. (QThread::IdlePriority does the same, but only for
    // QThreads that Qt started, not for the main thread.)
    sched_param parameters = {};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &parameters);
#endif
}

} // namespace BackgroundPriority
