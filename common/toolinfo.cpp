#include "toolinfo.h"

#include "boundedjson.h"
#include "statejsonreader.h"

using nlohmann::json;

namespace {

json parsedOr(const QByteArray& text, json fallback)
{
    if (text.isEmpty())
        return fallback;
    BoundedJson::Result<json> parsed = BoundedJson::parse(text, BoundedJson::Limits::record());
    return parsed.ok ? std::move(parsed.value) : fallback;
}

} // namespace

std::optional<bool> ToolInfo::hint(const char* key) const
{
    const json value = parsedOr(annotations, json::object());
    const auto it = value.is_object() ? value.find(key) : value.end();
    if (it == value.end() || !it->is_boolean())
        return std::nullopt;
    return it->get<bool>();
}

json ToolInfo::toJson() const
{
    // Schemas and annotations as JSON values, not text: what tools/list shows.
    return json{{"name", name.toStdString()}, {"title", title.toStdString()}, {"route", route.toString().toStdString()},
        {"description", description.toStdString()}, {"inputSchema", parsedOr(inputSchema, json::object())},
        {"outputSchema", parsedOr(outputSchema, nullptr)}, {"annotations", parsedOr(annotations, json::object())}};
}

std::optional<ToolInfo> ToolInfo::fromJson(const json& value, QString* problem)
{
    ToolInfo info;
    QString route;
    StateJsonReader reader(value, QStringLiteral("tool"), problem);
    reader.keys({"name", "title", "route", "description", "inputSchema", "outputSchema", "annotations"})
        .string("name", &info.name)
        .string("title", &info.title)
        .string("route", &route)
        .string("description", &info.description);
    if (!reader.ok())
        return std::nullopt;
    const json& input = value.at("inputSchema");
    const json& output = value.at("outputSchema");
    const json& annotations = value.at("annotations");
    if (!input.is_object() || !(output.is_object() || output.is_null()) || !annotations.is_object()) {
        if (problem)
            *problem = QStringLiteral("tool \"%1\": the schemas and annotations must be objects").arg(info.name);
        return std::nullopt;
    }
    info.route = ToolRoute::fromString(route);
    info.inputSchema = QByteArray::fromStdString(input.dump());
    if (output.is_object())
        info.outputSchema = QByteArray::fromStdString(output.dump());
    info.annotations = QByteArray::fromStdString(annotations.dump());
    return info;
}
