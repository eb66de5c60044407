#pragma once

// ClientToolConfig: a client tool the operator declares in the configuration's `clientTools` list: a
// tool whose answer comes from a person at the console. The core reads it (SwitchboardConfig) and
// hands it to ClientTool::fromConfig as a value.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

struct ClientToolConfig
{
    nlohmann::json spec; // name, title, description, inputSchema (as ToolSpec::fromJson reads it)
    QString render; // connect, confirm, choice or form
    QString prompt; // optional text shown above the widget
    QStringList choices; // choice: fixed options (otherwise the call's "options" argument)
    nlohmann::ordered_json responseSchema; // form: the JSON schema of what the person fills in, in its own order
    // Who answers: the person at the console, or the client's own user (a 2026-07-28 client that
    // declares elicitation gets input_required; any other client gets the console question).
    QString answeredBy = QStringLiteral("console");
};
