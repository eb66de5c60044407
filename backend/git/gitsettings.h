#pragma once

// GitSettings: the configuration's `git:` section, as the git tools use it.
//
//   git:
//     roots: [/srv/work]          # where repositories may be; also ASSISTOS_FS_ROOT, WORKSPACE_ROOT
//                                 # and PLOINKY_WORKSPACE_ROOT from the environment
//     schemes: [https, ssh, git]  # remote URL schemes clone, push and pull may use
//     allowLocalRemotes: false    # file:// URLs and absolute local paths as remotes
//     timeoutSeconds: 300         # clone, push and pull end with an error after this long
//     credentials: {github.com: github}   # remote host → the request_connection provider whose
//                                          # stored connection pushes and pulls use

#include <QMap>
#include <QString>
#include <QStringList>

struct GitSettings
{
    QStringList roots; // as configured; the environment's are added by GitPathPolicy's user
    QStringList schemes{QStringLiteral("https"), QStringLiteral("ssh"), QStringLiteral("git")};
    bool allowLocalRemotes = false;
    int timeoutSeconds = 300;
    QMap<QString, QString> credentialProviders; // host (lower case) → provider
};
