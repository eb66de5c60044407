#pragma once

// The debug.* tools: test tools for the executor and for trying a client's handling of long,
// progressing, stuck and failing calls. Offered only with --debug-tools (and by the tests):
//   debug.block          blocks a worker for `seconds`, stopping early when cancelled
//   debug.progress       reports `steps` progress notifications, `interval_ms` apart, on a worker
//   debug.ignore_cancel  blocks a worker for `seconds` and ignores cancellation (the deadline ends it)
//   debug.throw          throws an exception with `message` on a worker

#include "tools/toolregistry.h"

#include <vector>

std::vector<RegisteredTool> debugTools();
