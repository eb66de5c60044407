#include "store/statedirectory.h"

#include <QDir>
#include <QFile>

namespace StateDirectory {

bool prepare(const QString& path, QString* error)
{
    if (!QDir().mkpath(path)) {
        *error = QStringLiteral("cannot create the state directory %1").arg(path);
        return false;
    }
    constexpr auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;
    QFile directory(path);
    if (!directory.setPermissions(ownerOnly)) {
        *error = QStringLiteral("cannot make the state directory %1 owner-only (0700): %2")
                     .arg(path, directory.errorString());
        return false;
    }
    return true;
}

} // namespace StateDirectory
