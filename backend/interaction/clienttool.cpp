#include "interaction/clienttool.h"

#include "clientanswer.h"

#include "interaction/clienttoolconfig.h"
#include "tools/schemavalidator.h"
#include "tools/toolresult.h"

#include <algorithm>

using nlohmann::json;

namespace {

QString stringArgument(const json& arguments, const char* key)
{
    const auto it = arguments.find(key);
    return it != arguments.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

RegisteredTool clientToolEntry(ToolSpec spec, std::shared_ptr<const ClientTool> clientTool)
{
    RegisteredTool tool;
    tool.spec = std::move(spec);
    tool.route = ToolRoute::client();
    tool.clientTool = std::move(clientTool);
    // The session pauses client tools before they would run; reaching this handler means a call
    // bypassed that gate, which must not turn into a silent success.
    tool.handler = [name = tool.spec.name](const std::shared_ptr<ToolCallContext>& context) {
        context->finish(ToolResult::error(
            QStringLiteral("Tool \"%1\" is answered by a person at the Switchboard console and cannot run here.")
                .arg(name)));
    };
    return tool;
}

} // namespace

nlohmann::ordered_json ClientTool::renderSpec(const json& arguments) const
{
    nlohmann::ordered_json spec{{"render", renderHintName(render).toStdString()}};
    if (!prompt.isEmpty())
        spec["prompt"] = prompt.toStdString();
    if (render == RenderHint::Connect) {
        const QString provider = stringArgument(arguments, "provider");
        const QString kind = stringArgument(arguments, "kind");
        spec["provider"] = provider.toStdString();
        spec["kind"] = kind.isEmpty() ? "either" : kind.toStdString();
        spec["scopes"] = arguments.value("scopes", json::array());
        spec["reason"] = stringArgument(arguments, "reason").toStdString();
        spec["oauthAvailable"] = oauthProviders.contains(provider);
        if (const QString title = providerTitles.value(provider); !title.isEmpty())
            spec["providerTitle"] = title.toStdString();
    } else if (render == RenderHint::Choice) {
        json options = json::array();
        if (!choices.isEmpty()) {
            for (const QString& choice : choices)
                options.push_back(choice.toStdString());
        } else if (const auto it = arguments.find("options"); it != arguments.end() && it->is_array()) {
            for (const json& option : *it) {
                if (option.is_string())
                    options.push_back(option);
            }
        }
        spec["choices"] = std::move(options);
    } else if (render == RenderHint::Form) {
        spec["schema"] = responseSchema;
    }
    // The question in the call's own words, when it gives one.
    for (const char* key : {"question", "message", "reason", "prompt"}) {
        const QString text = stringArgument(arguments, key);
        if (!text.isEmpty() && render != RenderHint::Connect) {
            spec["question"] = text.toStdString();
            break;
        }
    }
    return spec;
}

namespace {

// Whether a form's schema is what elicitation may ask: an object of primitive properties (string,
// number, integer, boolean, or an array of enum strings), nothing nested.
bool isFlatPrimitiveSchema(const json& schema)
{
    if (!schema.is_object() || schema.value("type", std::string()) != "object")
        return false;
    const auto properties = schema.find("properties");
    if (properties == schema.end() || !properties->is_object())
        return false;
    for (const auto& [name, property] : properties->items()) {
        if (!property.is_object())
            return false;
        const std::string type = property.value("type", std::string());
        if (type == "string" || type == "number" || type == "integer" || type == "boolean")
            continue;
        if (type == "array") {
            const auto items = property.find("items");
            if (items != property.end() && items->is_object() && (items->contains("enum") || items->contains("anyOf")))
                continue;
        }
        return false;
    }
    return true;
}

} // namespace

std::optional<json> ClientTool::elicitation(const json& arguments) const
{
    const nlohmann::ordered_json spec = renderSpec(arguments);
    std::string message = prompt.toStdString();
    if (const auto question = spec.find("question"); question != spec.end() && question->is_string())
        message = message.empty() ? question->get<std::string>() : message + "\n\n" + question->get<std::string>();
    json schema;
    switch (render) {
    case RenderHint::Confirm:
        schema = json{{"type", "object"}, {"properties", {{"confirmed", {{"type", "boolean"}, {"title", "Confirm"}}}}},
            {"required", {"confirmed"}}};
        break;
    case RenderHint::Choice: {
        const json options = json(spec.value("choices", nlohmann::ordered_json::array()));
        if (!options.is_array() || options.empty())
            return std::nullopt;
        schema = json{{"type", "object"}, {"properties", {{"choice", {{"type", "string"}, {"enum", options}}}}},
            {"required", {"choice"}}};
        break;
    }
    case RenderHint::Form:
        schema = json(responseSchema);
        if (!isFlatPrimitiveSchema(schema))
            return std::nullopt;
        break;
    case RenderHint::Connect: // an API key is a secret: never through a form
    case RenderHint::Approval:
        return std::nullopt;
    }
    if (message.empty())
        message = "Switchboard asks for your answer";
    return json{{"mode", "form"}, {"message", message}, {"requestedSchema", std::move(schema)}};
}

std::optional<json> ClientTool::outputFromElicitation(
    const json& elicitResult, const json& arguments, QString* problem) const
{
    if (!elicitResult.is_object() || !elicitResult.contains("action") || !elicitResult.at("action").is_string()) {
        *problem = QStringLiteral("an elicitation answer needs \"action\": accept, decline or cancel");
        return std::nullopt;
    }
    const std::string action = elicitResult.at("action").get<std::string>();
    if (action == "decline" || action == "cancel") {
        // As the console's own "decline" reads for each kind of question.
        if (render == RenderHint::Confirm)
            return json{{"confirmed", false}};
        return json{{"reason", "declined"}};
    }
    if (action != "accept") {
        *problem = QStringLiteral("an elicitation answer's action must be accept, decline or cancel");
        return std::nullopt;
    }
    const json content = elicitResult.value("content", json::object());
    json output;
    switch (render) {
    case RenderHint::Confirm:
        output = json{{"confirmed", content.value("confirmed", false)}};
        break;
    case RenderHint::Choice: {
        output = json{{"choice", content.value("choice", json(nullptr))}};
        // One of the options asked, as the console's widget allows no other.
        const json options = json(renderSpec(arguments).value("choices", nlohmann::ordered_json::array()));
        if (std::find(options.begin(), options.end(), output.at("choice")) == options.end()) {
            *problem = QStringLiteral("the choice is not one of the options asked");
            return std::nullopt;
        }
        break;
    }
    case RenderHint::Form:
        output = json{{"values", content}};
        break;
    case RenderHint::Connect:
    case RenderHint::Approval:
        *problem = QStringLiteral("this question is not answered by the client");
        return std::nullopt;
    }
    if (const QString invalid = checkOutput(output); !invalid.isEmpty()) {
        *problem = invalid;
        return std::nullopt;
    }
    return output;
}

QString ClientTool::checkArguments(const json& arguments) const
{
    if (render == RenderHint::Connect) {
        const QString kind = stringArgument(arguments, "kind");
        const QString provider = stringArgument(arguments, "provider");
        if (kind == QStringLiteral("oauth") && !oauthProviders.contains(provider)) {
            return oauthProviders.isEmpty()
                ? QStringLiteral("No OAuth provider is configured in Switchboard, so \"%1\" cannot be connected "
                                 "with kind \"oauth\". Ask with kind \"api_key\" or \"either\" instead.")
                      .arg(provider)
                : QStringLiteral("No OAuth provider named \"%1\" is configured in Switchboard (configured: %2). "
                                 "Use one of those, or ask with kind \"api_key\" or \"either\".")
                      .arg(provider, oauthProviders.join(QStringLiteral(", ")));
        }
    } else if (render == RenderHint::Choice && choices.isEmpty()) {
        const auto it = arguments.find("options");
        if (it == arguments.end() || !it->is_array() || it->empty())
            return QStringLiteral("This tool needs \"options\": a non-empty list of strings to choose from.");
    }
    return {};
}

QString ClientTool::checkOutput(const json& output) const
{
    if (!output.is_object())
        return QStringLiteral("an answer must be a JSON object");
    if (render == RenderHint::Connect) {
        const auto connectedIt = output.find("connected");
        if (connectedIt == output.end() || !connectedIt->is_boolean())
            return QStringLiteral("a connect answer needs \"connected\": true or false");
        if (connectedIt->get<bool>())
            return output.contains("provider") ? QString() : QStringLiteral("a connection needs its provider");
        const QString reason = stringArgument(output, "reason");
        if (reason != QStringLiteral("declined") && reason != QStringLiteral("cancelled")
            && reason != QStringLiteral("timeout"))
            return QStringLiteral("a refused connection's reason is declined, cancelled or timeout");
        return {};
    }
    if (render == RenderHint::Confirm) {
        const auto it = output.find("confirmed");
        return it != output.end() && it->is_boolean() ? QString()
                                                      : QStringLiteral("a confirm answer needs \"confirmed\"");
    }
    if (stringArgument(output, "reason") == QStringLiteral("declined"))
        return {};
    if (render == RenderHint::Choice) {
        const auto it = output.find("choice");
        return it != output.end() && it->is_string() ? QString() : QStringLiteral("a choice answer needs \"choice\"");
    }
    if (render == RenderHint::Form) {
        const auto values = output.find("values");
        if (values == output.end())
            return QStringLiteral("a form answer needs \"values\"");
        const QStringList problems = SchemaValidator::validate(*values, json(responseSchema));
        return problems.isEmpty() ? QString() : problems.join(QStringLiteral("; "));
    }
    return {};
}

ToolResult ClientTool::timeoutResult(const QString& toolName, int seconds) const
{
    ToolResult result = ToolResult::error(
        QStringLiteral("No one answered %1 at the Switchboard console within %2 seconds. Tell the user it is waiting "
                       "for them there, or try again later.")
            .arg(toolName)
            .arg(seconds),
        CallStatus::TimedOut);
    if (render == RenderHint::Connect)
        result.structuredContent = ClientAnswer::notConnected(QStringLiteral("timeout"));
    return result;
}

ToolResult ClientTool::resultFor(const json& output)
{
    ToolResult result;
    result.content.push_back(json{{"type", "text"}, {"text", output.dump()}});
    if (output.is_object()) {
        result.structuredContent = output;
        // A person's "no" is a valid answer the client gets as a result, so not an error; but the
        // call log must not show it as a plain ok either. A connect refused for lack of an answer
        // in time is a timeout.
        const auto confirmed = output.find("confirmed");
        const auto connected = output.find("connected");
        const QString reason = stringArgument(output, "reason");
        if (reason == QStringLiteral("timeout"))
            result.outcome = CallStatus::TimedOut;
        else if ((confirmed != output.end() && *confirmed == false)
            || (connected != output.end() && *connected == false) || reason == QStringLiteral("declined"))
            result.outcome = CallStatus::Declined;
    }
    return result;
}

RegisteredTool ClientTool::requestConnection(
    const QStringList& oauthProviders, const QHash<QString, QString>& providerTitles)
{
    auto clientTool = std::make_shared<ClientTool>();
    clientTool->render = RenderHint::Connect;
    clientTool->oauthProviders = oauthProviders;
    clientTool->providerTitles = providerTitles;
    ToolSpec spec;
    spec.name = QStringLiteral("request_connection");
    spec.title = QStringLiteral("Request a connection");
    spec.description = QStringLiteral(
        "Asks the person at the Switchboard console to connect an account (OAuth sign-in or an API key) for a "
        "provider. Waits until they answer. The result says whether it is connected and which account; it never "
        "contains the secret, which Switchboard keeps in the desktop keychain.");
    spec.inputSchema = json{{"type", "object"},
        {"properties",
            {{"provider", {{"type", "string"}, {"description", "The service to connect, e.g. github"}}},
                {"kind",
                    {{"type", "string"}, {"enum", {"oauth", "api_key", "either"}},
                        {"description", "How to connect: OAuth sign-in, an API key, or whichever the person prefers"}}},
                {"scopes",
                    {{"type", "array"}, {"items", {{"type", "string"}}},
                        {"description", "OAuth scopes to ask for (optional)"}}},
                {"reason",
                    {{"type", "string"}, {"description", "Why the connection is needed, shown to the person"}}}}},
        {"required", {"provider", "kind", "reason"}}, {"additionalProperties", false}};
    spec.outputSchema = json{{"type", "object"},
        {"properties",
            {{"connected", {{"type", "boolean"}}}, {"provider", {{"type", "string"}}},
                {"account", {{"type", "string"}}},
                {"reason", {{"type", "string"}, {"enum", {"declined", "cancelled", "timeout", "error"}}}},
                {"message", {{"type", "string"}}}}},
        {"required", {"connected"}}};
    spec.annotations = json{{"title", "Request a connection"}, {"readOnlyHint", false}, {"destructiveHint", false},
        {"idempotentHint", false}, {"openWorldHint", true}};
    return clientToolEntry(std::move(spec), std::move(clientTool));
}

bool ClientTool::fromConfig(const ClientToolConfig& config, RegisteredTool* tool, QString* error)
{
    ToolSpec spec;
    if (!ToolSpec::fromJson(config.spec, &spec, error))
        return false;
    if (!config.responseSchema.is_null()) {
        // What the person fills in is checked like arguments are, so the schema must be checkable.
        const SchemaValidator responseValidator{json(config.responseSchema)};
        if (!responseValidator.isUsable()) {
            *error = QStringLiteral("tool \"%1\": responseSchema cannot be checked: %2")
                         .arg(spec.name, responseValidator.schemaError());
            return false;
        }
    }
    const std::optional<RenderHint> render = renderHintFromName(config.render);
    if (!render || *render == RenderHint::Approval) {
        *error = QStringLiteral("tool \"%1\": render must be connect, confirm, choice or form").arg(spec.name);
        return false;
    }
    auto clientTool = std::make_shared<ClientTool>();
    clientTool->render = *render;
    clientTool->prompt = config.prompt;
    clientTool->choices = config.choices;
    clientTool->responseSchema = config.responseSchema;
    clientTool->answeredByClient = config.answeredBy == QStringLiteral("client");
    if (spec.description.isEmpty())
        spec.description = QStringLiteral("Asks the person at the Switchboard console and waits for their answer.");
    *tool = clientToolEntry(std::move(spec), std::move(clientTool));
    return true;
}
