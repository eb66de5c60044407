#pragma once

// DecisionText: ToolCall::decision in words for a person ("Always allowed by alice at 10:02:03 for
// claude-code, these arguments only"): who decided about the call, when, what and with which scope,
// or which standing grant let it run without asking.

#include <QByteArray>
#include <QString>

namespace DecisionText {

// Empty for an empty decision; the compact JSON itself for one it cannot read.
QString describe(const QByteArray& decision);

} // namespace DecisionText
