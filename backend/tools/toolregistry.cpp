#include "tools/toolregistry.h"

#include "tools/schemavalidator.h"
#include "tools/toolcall.h"

ToolRegistry::ToolRegistry(QObject* parent)
    : QObject(parent)
{}

bool ToolRegistry::add(RegisteredTool tool, QString* error)
{
    if (tool.spec.name.isEmpty() || !tool.handler) {
        if (error)
            *error = QStringLiteral("a tool needs a name and a handler");
        return false;
    }
    if (const qsizetype bytes = tool.spec.name.toUtf8().size(); bytes > ToolSpec::MaxNameBytes) {
        if (error)
            *error = QStringLiteral("tool name \"%1\" is %2 bytes long; tool names are at most %3 bytes")
                         .arg(ToolCall::boundedText(tool.spec.name, 64))
                         .arg(bytes)
                         .arg(ToolSpec::MaxNameBytes);
        return false;
    }
    // Clients require an object schema; a tool registered without one still advertises a usable one.
    if (!tool.spec.inputSchema.is_object())
        tool.spec.inputSchema = nlohmann::json::object();
    if (!tool.spec.inputSchema.contains("type"))
        tool.spec.inputSchema["type"] = "object";
    auto validator = std::make_shared<const SchemaValidator>(tool.spec.inputSchema);
    if (!validator->isUsable()) {
        if (error)
            *error = QStringLiteral("tool \"%1\": inputSchema cannot be checked: %2")
                         .arg(tool.spec.name, validator->schemaError());
        return false;
    }
    tool.argumentValidator = std::move(validator);
    const auto key = tool.spec.name.toStdString();
    m_tools[key] = std::make_shared<const RegisteredTool>(std::move(tool));
    Q_EMIT toolsChanged();
    return true;
}

bool ToolRegistry::remove(const QString& name)
{
    if (m_tools.erase(name.toStdString()) == 0)
        return false;
    Q_EMIT toolsChanged();
    return true;
}

ToolRegistry::ToolPtr ToolRegistry::find(const std::string& name) const
{
    const auto it = m_tools.find(name);
    return it == m_tools.end() ? nullptr : it->second;
}

std::vector<ToolRegistry::ToolPtr> ToolRegistry::tools() const
{
    std::vector<ToolPtr> result;
    result.reserve(m_tools.size());
    for (const auto& [name, tool] : m_tools)
        result.push_back(tool);
    return result;
}
