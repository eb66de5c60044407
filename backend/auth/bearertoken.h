#pragma once

// BearerToken: reading the token out of an Authorization header, and comparing tokens without
// telling by the time taken how much of a guess matched. What the MCP listener (client tokens) and
// the operator API (operator tokens) share.

#include <QByteArrayView>

#include <cstring>

namespace BearerToken {

// The token of an Authorization header's value ("Bearer <token>", the scheme in any case); empty
// when the value is no bearer credential.
inline QByteArrayView of(QByteArrayView authorization)
{
    if (authorization.size() < 7 || qstrnicmp(authorization.data(), 7, "bearer ", 7) != 0)
        return {};
    return authorization.sliced(7).trimmed();
}

// Equal, in a time that depends on the lengths only.
inline bool same(QByteArrayView presented, QByteArrayView expected)
{
    unsigned difference = unsigned(presented.size() ^ expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i)
        difference |= unsigned(char(expected[i] ^ (i < presented.size() ? presented[i] : 0)));
    return difference == 0;
}

} // namespace BearerToken
