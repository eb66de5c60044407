#include "renderhint.h"

#include "enumnames.h"

namespace {

constexpr EnumNames<RenderHint, 5> hintNames{{
    {RenderHint::Approval, "approval"},
    {RenderHint::Connect, "connect"},
    {RenderHint::Confirm, "confirm"},
    {RenderHint::Choice, "choice"},
    {RenderHint::Form, "form"},
}};

constexpr EnumNames<InteractionOutcome, 4> outcomeNames{{
    {InteractionOutcome::Answered, "answered"},
    {InteractionOutcome::Stored, "stored"},
    {InteractionOutcome::Cancelled, "cancelled"},
    {InteractionOutcome::Timeout, "timeout"},
}};

} // namespace

QString renderHintName(RenderHint hint)
{
    return enumName(hintNames, hint);
}

std::optional<RenderHint> renderHintFromName(const QString& name)
{
    return enumFromName(hintNames, name);
}

QString interactionOutcomeName(InteractionOutcome outcome)
{
    return enumName(outcomeNames, outcome);
}
