#include "tools/toolregistry.h"

#include "toolcall.h"
#include "tools/schemavalidator.h"

#include <algorithm>
#include <set>

ToolRegistry::ToolRegistry(QObject* parent)
    : QObject(parent)
{}

bool ToolRegistry::prepare(RegisteredTool& tool, const QString& source, QString* error) const
{
    if (tool.spec.name.isEmpty()) {
        *error = QStringLiteral("a tool needs a name");
        return false;
    }
    if (const qsizetype bytes = tool.spec.name.toUtf8().size(); bytes > ToolSpec::MaxNameBytes) {
        *error = QStringLiteral("tool name \"%1\" is %2 bytes long; tool names are at most %3 bytes")
                     .arg(ToolCall::boundedText(tool.spec.name, 64))
                     .arg(bytes)
                     .arg(ToolSpec::MaxNameBytes);
        return false;
    }
    const bool blocking = tool.execution.kind == ExecutionKind::Blocking;
    if (blocking ? !tool.blockingHandler : !tool.handler) {
        *error = QStringLiteral("tool \"%1\" declares %2 execution but has no %3")
                     .arg(tool.spec.name, blocking ? QStringLiteral("blocking") : QStringLiteral("backend-thread"),
                         blocking ? QStringLiteral("blocking handler") : QStringLiteral("handler"));
        return false;
    }
    // Clients require an object schema; a tool registered without one still advertises a usable one.
    if (!tool.spec.inputSchema.is_object())
        tool.spec.inputSchema = nlohmann::json::object();
    if (!tool.spec.inputSchema.contains("type"))
        tool.spec.inputSchema["type"] = "object";
    auto validator = std::make_shared<const SchemaValidator>(tool.spec.inputSchema);
    if (!validator->isUsable()) {
        *error = QStringLiteral("tool \"%1\": inputSchema cannot be checked: %2")
                     .arg(tool.spec.name, validator->schemaError());
        return false;
    }
    tool.argumentValidator = std::move(validator);
    tool.source = source;
    return true;
}

int ToolRegistry::replaceSource(const QString& source, std::vector<RegisteredTool> tools, QStringList* problems)
{
    std::vector<ToolPtr> accepted;
    std::set<std::string> names;
    for (RegisteredTool& tool : tools) {
        QString error;
        if (!prepare(tool, source, &error)) {
            if (problems)
                *problems << error;
            continue;
        }
        std::string name = tool.spec.name.toStdString();
        const auto existing = m_tools.find(name);
        if (existing != m_tools.end() && existing->second->source != source) {
            if (problems)
                *problems << QStringLiteral("tool \"%1\" is already offered by %2")
                                 .arg(tool.spec.name, existing->second->source);
            continue;
        }
        if (!names.insert(name).second) {
            if (problems)
                *problems << QStringLiteral("tool \"%1\" appears twice").arg(tool.spec.name);
            continue;
        }
        accepted.push_back(std::make_shared<const RegisteredTool>(std::move(tool)));
    }

    const auto old = m_sourceTools.find(source);
    if (old != m_sourceTools.end()) {
        for (const std::string& name : old->second)
            m_tools.erase(name);
        m_sourceTools.erase(old);
    }
    if (!accepted.empty()) {
        std::vector<std::string>& owned = m_sourceTools[source];
        for (ToolPtr& tool : accepted) {
            std::string name = tool->spec.name.toStdString();
            owned.push_back(name);
            m_tools[std::move(name)] = std::move(tool);
        }
    }
    Q_EMIT toolsChanged();
    return int(accepted.size());
}

bool ToolRegistry::add(RegisteredTool tool, QString* error)
{
    const QString source = tool.route.toString();
    QString problem;
    if (!prepare(tool, source, &problem)) {
        if (error)
            *error = problem;
        return false;
    }
    std::string name = tool.spec.name.toStdString();
    if (const auto existing = m_tools.find(name); existing != m_tools.end() && existing->second->source != source) {
        if (error)
            *error
                = QStringLiteral("tool \"%1\" is already offered by %2").arg(tool.spec.name, existing->second->source);
        return false;
    }
    std::vector<std::string>& owned = m_sourceTools[source];
    if (std::find(owned.begin(), owned.end(), name) == owned.end())
        owned.push_back(name);
    m_tools[std::move(name)] = std::make_shared<const RegisteredTool>(std::move(tool));
    Q_EMIT toolsChanged();
    return true;
}

bool ToolRegistry::remove(const QString& name)
{
    const std::string key = name.toStdString();
    const auto it = m_tools.find(key);
    if (it == m_tools.end())
        return false;
    const auto owner = m_sourceTools.find(it->second->source);
    if (owner != m_sourceTools.end()) {
        std::erase(owner->second, key);
        if (owner->second.empty())
            m_sourceTools.erase(owner);
    }
    m_tools.erase(it);
    Q_EMIT toolsChanged();
    return true;
}

ToolRegistry::ToolPtr ToolRegistry::find(const std::string& name) const
{
    const auto it = m_tools.find(name);
    return it == m_tools.end() ? nullptr : it->second;
}

bool ToolRegistry::isOwner(const std::string& owner) const
{
    if (owner.empty())
        return false;
    const std::string prefix = owner + '.';
    const auto first = m_tools.lower_bound(prefix);
    if (first != m_tools.end() && first->first.rfind(prefix, 0) == 0)
        return true;
    return m_ownerCheck && m_ownerCheck(QString::fromStdString(owner));
}

std::vector<ToolRegistry::ToolPtr> ToolRegistry::tools() const
{
    std::vector<ToolPtr> result;
    result.reserve(m_tools.size());
    for (const auto& [name, tool] : m_tools)
        result.push_back(tool);
    return result;
}

QStringList ToolRegistry::sources() const
{
    QStringList result;
    for (const auto& [source, names] : m_sourceTools)
        result << source;
    return result;
}

std::vector<ToolRegistry::ToolPtr> ToolRegistry::toolsOf(const QString& source) const
{
    std::vector<ToolPtr> result;
    if (const auto it = m_sourceTools.find(source); it != m_sourceTools.end()) {
        for (const std::string& name : it->second)
            result.push_back(find(name));
    }
    return result;
}
