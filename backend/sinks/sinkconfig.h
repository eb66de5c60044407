#pragma once

// SinkConfig: one sink as the configuration's `sinks` list declares it. Its operations are offered
// as tools named `name.op` (notes.write, audit.append, alerts.post); which keys apply depends on the
// type.
//
//   sinks:
//     - name: notes                  # letters, digits, '_' and '-' (no '.': it separates the op)
//       type: file                   # write and append files below its roots
//       roots: [/srv/notes]          # or `root: /srv/notes`; absolute; relative paths use the first
//       max_bytes: 10485760          # content per call, default 10 MiB
//     - name: audit
//       type: jsonl                  # append one JSON record per line
//       path: /var/log/switchboard/audit.jsonl
//       add_timestamp: true          # add "ts" (UTC, ISO 8601), default false
//       max_bytes: 1048576           # per record, default 1 MiB
//       max_file_bytes: 104857600    # rotate to <path>.1 beyond this size; default 0 (never)
//     - name: alerts
//       type: webhook                # POST the payload as JSON
//       url: https://hooks.example/alerts
//       headers: {Authorization: "Bearer ${ALERTS_TOKEN}"}   # ${VAR} from the environment
//       timeout: 10                  # seconds, default 10
//       max_bytes: 1048576           # payload, default 1 MiB
//
// Every type also takes `description`: a sentence added to its tools' descriptions, telling a model
// what the sink is for.

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <chrono>

struct SinkConfig
{
    enum class Type { File, Jsonl, Webhook };

    static constexpr qint64 DefaultFileMaxBytes = qint64(10) * 1024 * 1024;
    static constexpr qint64 DefaultRecordMaxBytes = qint64(1) * 1024 * 1024;
    static constexpr qint64 DefaultPayloadMaxBytes = qint64(1) * 1024 * 1024;
    static constexpr int DefaultTimeoutSeconds = 10;

    QString name;
    Type type = Type::File;
    QString description;
    qint64 maxBytes = DefaultFileMaxBytes; // content (file), record (jsonl) or payload (webhook)

    // file
    QStringList roots; // absolute, as configured
    // jsonl
    QString path; // absolute
    bool addTimestamp = false;
    qint64 maxFileBytes = 0; // 0: never rotated
    // webhook
    QUrl url;
    QList<QPair<QByteArray, QByteArray>> headers; // ${VAR} already expanded; never shown
    std::chrono::milliseconds timeout{DefaultTimeoutSeconds * 1000};

    // Whether `name` can name a sink: 1 to 64 of [A-Za-z0-9_-] (a '.' would split its tools' names).
    static bool isValidName(const QString& name);
    // "file", "jsonl", "webhook".
    static QString typeName(Type type);
    // The default max_bytes of a type.
    static qint64 defaultMaxBytes(Type type);
};
