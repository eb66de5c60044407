#include "store/backgroundpriority.h"

#include <QtGlobal>

#ifdef Q_OS_LINUX
#include <pthread.h>
#include <sched.h>
#endif

namespace BackgroundPriority {

void applyNormalToCurrentThread()
{
#ifdef Q_OS_LINUX
    sched_param parameters = {};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &parameters);
#endif
}

} // namespace BackgroundPriority
