// Built by layers_refuse_sibling_include against the sinks layer: git is another feature, whose
// headers sinks cannot reach, so this does not compile.
#include "git/gittools.h"
#include "sinks/sinkregistry.h"
