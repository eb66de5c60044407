// Planted for check_layers_refuses: an include down the layers, which the check lets through.
#include "store/records.h"
