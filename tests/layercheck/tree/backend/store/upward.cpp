// Planted for check_layers_refuses: the store climbing into the transport.
#include "store/records.h"
#include "transport/server.h"
