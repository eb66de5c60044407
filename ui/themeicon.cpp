#include "themeicon.h"

#include <QFile>

namespace ThemeIcon {

namespace {

QString fallbackPath(const QString& name, int size)
{
    return QStringLiteral(":/icons/actions/%1-%2.png").arg(name).arg(size);
}

} // namespace

bool hasFallback(const QString& name)
{
    return QFile::exists(fallbackPath(name, 16));
}

QIcon icon(const QString& name)
{
    // Renderings at the sizes menus, toolbars and high-DPI screens ask for; QIcon scales between them.
    QIcon fallback;
    for (int size : {16, 24, 32})
        fallback.addFile(fallbackPath(name, size), QSize(size, size));
    return QIcon::fromTheme(name, fallback);
}

} // namespace ThemeIcon
