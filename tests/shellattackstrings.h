#pragma once

// Strings a shell would expand, split, run or end a quote on, for the tests of CurlCommand's quoting.

#include <QStringList>

inline QStringList attackStrings()
{
    return {QStringLiteral("plain"), QStringLiteral("it's"), QStringLiteral("'"), QStringLiteral("''\\''"),
        QStringLiteral("$HOME ${PATH} $(id) `id`"), QStringLiteral("\"double\" \\\"escaped\\\""),
        QStringLiteral("line one\nline two\n"), QStringLiteral("tab\there; rm -rf /tmp/nothing & echo pwned |"),
        QStringLiteral("!! !$ ~ * ? [a] {b,c} # comment"), QStringLiteral("\r\n\\n\\\\"), QStringLiteral("ünïcödé ✓ 𝄞"),
        QString()};
}
