#include "tools/toolspec.h"

#include "toolcall.h"

#include <QRegularExpression>

using nlohmann::json;

namespace {

const json* findEither(const json& object, const char* camel, const char* snake)
{
    if (const auto it = object.find(camel); it != object.end())
        return &*it;
    if (const auto it = object.find(snake); it != object.end())
        return &*it;
    return nullptr;
}

QString stringMember(const json& object, const char* key)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return {};
    return QString::fromStdString(it->get<std::string>());
}

} // namespace

bool ToolSpec::isValidOwnerName(const QString& name)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    return pattern.match(name).hasMatch();
}

bool ToolSpec::isReadOnly() const
{
    const auto it = annotations.find("readOnlyHint");
    return it != annotations.end() && it->is_boolean() && it->get<bool>();
}

json ToolSpec::toJson() const
{
    json tool{{"name", name.toStdString()}, {"description", description.toStdString()}, {"inputSchema", inputSchema}};
    if (!title.isEmpty())
        tool["title"] = title.toStdString();
    if (outputSchema.is_object())
        tool["outputSchema"] = outputSchema;
    if (annotations.is_object() && !annotations.empty())
        tool["annotations"] = annotations;
    return tool;
}

bool ToolSpec::fromJson(const json& value, ToolSpec* spec, QString* error)
{
    if (!value.is_object()) {
        *error = QStringLiteral("a tool spec must be a mapping");
        return false;
    }
    ToolSpec result;
    result.name = stringMember(value, "name");
    if (result.name.isEmpty()) {
        *error = QStringLiteral("a tool spec needs a non-empty \"name\"");
        return false;
    }
    if (const qsizetype bytes = result.name.toUtf8().size(); bytes > MaxNameBytes) {
        *error = QStringLiteral("tool name \"%1\" is %2 bytes long; tool names are at most %3 bytes")
                     .arg(ToolCall::boundedText(result.name, 64))
                     .arg(bytes)
                     .arg(MaxNameBytes);
        return false;
    }
    result.title = stringMember(value, "title");
    result.description = stringMember(value, "description");

    if (const json* input = findEither(value, "inputSchema", "input_schema")) {
        if (!input->is_object()) {
            *error = QStringLiteral("tool \"%1\": inputSchema must be a JSON Schema object").arg(result.name);
            return false;
        }
        result.inputSchema = *input;
    }
    if (result.inputSchema.empty() || !result.inputSchema.contains("type"))
        result.inputSchema["type"] = "object";
    if (result.inputSchema["type"] != "object") {
        *error = QStringLiteral("tool \"%1\": inputSchema must have \"type\": \"object\"").arg(result.name);
        return false;
    }

    if (const json* output = findEither(value, "outputSchema", "output_schema")) {
        if (!output->is_object()) {
            *error = QStringLiteral("tool \"%1\": outputSchema must be a JSON Schema object").arg(result.name);
            return false;
        }
        result.outputSchema = *output;
    }
    if (const auto it = value.find("annotations"); it != value.end()) {
        if (!it->is_object()) {
            *error = QStringLiteral("tool \"%1\": annotations must be a mapping").arg(result.name);
            return false;
        }
        result.annotations = *it;
    }
    *spec = std::move(result);
    return true;
}
