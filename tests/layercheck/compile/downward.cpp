// Built by layers_allow_downward_include against the store layer alone: its own headers and those
// of the layers below it (protocol) are reachable.
#include "protocol/jsonrpc.h"
#include "store/historystore.h"
