#include "store/interactionstate.h"

InteractionState::~InteractionState() = default;
