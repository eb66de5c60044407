#pragma once

// ClientTool: a tool whose answer comes from the person at the console. Holds how its widget
// renders (connect, confirm, choice, form), what the widget needs from a call's arguments, which
// answers are well-formed, and the answer a client gets when no one answered in time.
//
// request_connection is built in: provider, kind (oauth, api_key or either), optional scopes, and
// a reason; its widget is the connect dialog. Operators declare more in the configuration.

#include "renderhint.h"
#include "tools/toolregistry.h"

#include <QHash>
#include <QStringList>

#include <optional>

#include <nlohmann/json.hpp>

struct ClientToolConfig;
struct ToolResult;

class ClientTool
{
public:
    RenderHint render = RenderHint::Confirm;
    QString prompt; // shown above the widget; may be empty
    QStringList choices; // choice: fixed options; empty means the call's "options" argument
    nlohmann::ordered_json responseSchema; // form: what the person fills in; ordered: fields show in schema order
    QStringList oauthProviders; // connect: providers the console can run OAuth for
    QHash<QString, QString> providerTitles; // connect: a provider's configured title, by its name
    // answeredBy: client: a 2026-07-28 client that declares elicitation asks its own user
    // (input_required); any other client's call is a console question as usual. For a connect
    // question (request_connection), only an OAuth sign-in is so asked, in URL mode, of a client
    // that declares elicitation.url; an API key is always asked at the console.
    bool answeredByClient = false;

    // What the widget needs, from the call's arguments (JSON for PendingInteraction::renderSpec).
    nlohmann::ordered_json renderSpec(const nlohmann::json& arguments) const;
    // A problem with the arguments that the inputSchema cannot express (e.g. an OAuth provider the
    // console does not know); empty when there is none. Checked before any pause.
    QString checkArguments(const nlohmann::json& arguments) const;
    // A problem with an answer the person gave; empty when it is well-formed.
    QString checkOutput(const nlohmann::json& output) const;
    // The result a waiting client gets when no one answered within `seconds`.
    ToolResult timeoutResult(const QString& toolName, int seconds) const;

    // The question as an elicitation/create request's params for the client's own user (form mode:
    // message and a flat requestedSchema), or nullopt when this tool's question cannot be asked so
    // (a connect question: a secret never goes through a form; a form whose schema is not the flat,
    // primitive kind elicitation allows).
    std::optional<nlohmann::json> elicitation(const nlohmann::json& arguments) const;
    // The answer an ElicitResult ({action, content}) gives, as checkOutput() accepts it; nullopt with
    // `problem` when it is not one.
    std::optional<nlohmann::json> outputFromElicitation(
        const nlohmann::json& elicitResult, const nlohmann::json& arguments, QString* problem) const;

    // The result that carries an answer to the client: the output as text and structured content.
    static ToolResult resultFor(const nlohmann::json& output);

    // The built-in request_connection tool; `providerTitles` are what the person reads for a provider
    // (oauthProviders' title), by its name.
    static RegisteredTool requestConnection(
        const QStringList& oauthProviders, const QHash<QString, QString>& providerTitles = {});
    // A tool declared in the configuration; false with a reason when the declaration is unusable.
    static bool fromConfig(const ClientToolConfig& config, RegisteredTool* tool, QString* error);
};
