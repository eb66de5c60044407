#pragma once

// Limits the HTTP layer enforces on every connection.

#include <QtGlobal>

struct HttpLimits
{
    qint64 maxBodyBytes = 4 * 1024 * 1024; // larger bodies get 413
    int maxHeaderBytes = 64 * 1024; // a larger request head gets 431
    int requestStallMs = 30'000; // a request that stops arriving mid-way is dropped
    int idleKeepAliveMs = 300'000; // an idle keep-alive connection is closed
};
