#pragma once

// SwitchboardConfig: the operator's configuration file (YAML). Every key is optional; a missing
// file means the defaults. Unknown keys are reported (they are usually typos), never silently
// ignored.
//
//   server:
//     port: 8765
//     bind: 127.0.0.1
//     allowedOrigins: [https://inspector.example]
//     allowedHosts: [switchboard.local]
//     maxBodyBytes: 4194304
//     toolsPageSize: 100
//     maxSessions: 256
//   console:
//     callLogRows: 10000
//   history:
//     maxCalls: 500000

#include <QString>
#include <QStringList>

struct SwitchboardConfig
{
    quint16 port = 8765;
    QString bindAddress = QStringLiteral("127.0.0.1");
    QStringList allowedOrigins;
    QStringList allowedHosts;
    qint64 maxBodyBytes = 4 * 1024 * 1024;
    int toolsPageSize = 100;
    int maxSessions = 256;
    int callLogRows = 10'000;
    qint64 historyMaxCalls = 500'000;

    QStringList warnings; // unknown keys and the like, for the operator

    // Reads `path`. A file that does not exist yields the defaults; a file that cannot be read or
    // parsed, or holds a value of the wrong type, is an error naming the file, line and key.
    static bool load(const QString& path, SwitchboardConfig* config, QString* error);
};
