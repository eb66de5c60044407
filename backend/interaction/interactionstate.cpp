#include "interaction/interactionstate.h"

InteractionState::~InteractionState() = default;
