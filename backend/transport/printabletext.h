#pragma once

// PrintableText: a client-supplied string (a tool name, a client name, an error message) made safe
// for one line of a terminal or a log: control characters, line and paragraph separators, and the
// bidirectional overrides that reorder what a terminal shows are written as escapes (\n, \t,
// \x1b, \u{202e}), and a backslash as \\, so no client can forge a line or hide text.

#include <QByteArray>
#include <QString>

namespace PrintableText {

// UTF-8, with every character that could break or disguise the line escaped.
QByteArray escaped(QStringView text);

} // namespace PrintableText
