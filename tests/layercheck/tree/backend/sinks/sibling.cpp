// Planted for check_layers_refuses: a feature reaching into another through a relative path, which
// the compiler would find next to the file.
#include "../git/repository.h"
