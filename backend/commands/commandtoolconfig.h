#pragma once

// CommandToolConfig: one tool backed by an executable, as the configuration's `command_tools` list
// declares it. Every call starts the command afresh (see CommandTool), writes the envelope
// {"tool", "input", "metadata"} to its stdin and reads one JSON value from its stdout.
//
//   command_tools:
//     - name: word_count               # letters, digits, '_' and '-' (a '.' would make it owner.tool)
//       description: Counts the words of a text.
//       command: /usr/local/bin/wc-tool   # absolute, or a bare name looked up in PATH
//       args: [--json]
//       env: {LANG: C.UTF-8, API_KEY: "${WC_API_KEY}"}   # ${VAR} from Switchboard's environment
//       cwd: /srv/tools                # absolute; default: the configuration file's directory
//       timeout: 60                    # seconds, default 60
//       max_concurrent: 4              # calls of this tool running at once, default 4
//       inputSchema: {type: object, properties: {text: {type: string}}, required: [text]}
//       annotations: {readOnlyHint: true}

#include "tools/toolspec.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <chrono>

struct CommandToolConfig
{
    static constexpr int DefaultTimeoutSeconds = 60;
    static constexpr int DefaultMaxConcurrent = 4;

    ToolSpec spec; // name, description, inputSchema, annotations
    QString command; // absolute path, or a bare name looked up in PATH when a call starts
    QStringList args;
    QList<QPair<QString, QString>> env; // ${VAR} expanded; added to the minimal environment
    QString workingDirectory; // absolute
    std::chrono::milliseconds timeout{DefaultTimeoutSeconds * 1000};
    int maxConcurrent = DefaultMaxConcurrent;

    // Whether `name` can name a command tool: 1 to 64 of [A-Za-z0-9_-].
    static bool isValidName(const QString& name);
};
