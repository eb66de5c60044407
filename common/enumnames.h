#pragma once

// The text form of an enum, from one table of (value, name) pairs: the name of a value, and the
// value of a name. For the enums whose names go into files, configuration and logs.

#include <QLatin1String>
#include <QString>

#include <array>
#include <optional>
#include <utility>

template<typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, const char*>, N>;

// The name of `value`; the first entry's name for a value the table lacks.
template<typename Enum, std::size_t N>
QString enumName(const EnumNames<Enum, N>& names, Enum value)
{
    for (const auto& [v, name] : names) {
        if (v == value)
            return QString::fromLatin1(name);
    }
    return QString::fromLatin1(names.front().second);
}

template<typename Enum, std::size_t N>
std::optional<Enum> enumFromName(const EnumNames<Enum, N>& names, const QString& text)
{
    for (const auto& [v, name] : names) {
        if (text == QLatin1String(name))
            return v;
    }
    return std::nullopt;
}
