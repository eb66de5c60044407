#pragma once

// ThemeIcon: an action's icon from the platform's icon theme by its freedesktop name
// ("media-playback-pause"), or the console's own rendering of it from the resources when the theme
// has none (a bare X session, Windows, macOS).

#include <QIcon>

namespace ThemeIcon {

// `name` must be one of the fallbacks in resources/icons/actions (hasFallback says which).
QIcon icon(const QString& name);
bool hasFallback(const QString& name);

} // namespace ThemeIcon
