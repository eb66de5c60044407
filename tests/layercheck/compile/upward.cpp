// Built by layers_refuse_upward_include against the store layer alone: the transport is a layer
// above it, whose headers it cannot reach, so this does not compile.
#include "store/historystore.h"
#include "transport/mcpsession.h"
