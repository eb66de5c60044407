#include "renderhint.h"

#include <array>
#include <utility>

namespace {

constexpr std::array<std::pair<RenderHint, const char*>, 5> hintNames{{
    {RenderHint::Approval, "approval"},
    {RenderHint::Connect, "connect"},
    {RenderHint::Confirm, "confirm"},
    {RenderHint::Choice, "choice"},
    {RenderHint::Form, "form"},
}};

} // namespace

QString renderHintName(RenderHint hint)
{
    for (const auto& [h, name] : hintNames) {
        if (h == hint)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("approval");
}

std::optional<RenderHint> renderHintFromName(const QString& name)
{
    for (const auto& [hint, text] : hintNames) {
        if (name == QLatin1String(text))
            return hint;
    }
    return std::nullopt;
}

QString interactionOutcomeName(InteractionOutcome outcome)
{
    switch (outcome) {
    case InteractionOutcome::Answered:
        return QStringLiteral("answered");
    case InteractionOutcome::Stored:
        return QStringLiteral("stored");
    case InteractionOutcome::Cancelled:
        return QStringLiteral("cancelled");
    case InteractionOutcome::Timeout:
        return QStringLiteral("timeout");
    }
    return QStringLiteral("answered");
}
