#include "permissionentry.h"

#include <QCoreApplication>

QString permissionSourceLabel(PermissionEntry::Source source)
{
    switch (source) {
    case PermissionEntry::Source::Configuration:
        return QCoreApplication::translate("PermissionEntry", "Configuration");
    case PermissionEntry::Source::Always:
        return QCoreApplication::translate("PermissionEntry", "Always");
    case PermissionEntry::Source::Session:
        return QCoreApplication::translate("PermissionEntry", "This session");
    }
    return {};
}
