#include "tools/toolrouter.h"

#include "toolcall.h"
#include "tools/schemavalidator.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace {

// Edit distance between two names, for "did you mean" suggestions.
int editDistance(const std::string& a, const std::string& b)
{
    std::vector<int> previous(b.size() + 1);
    std::vector<int> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = int(j);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = int(i);
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

// "mcp__<server>__<tool>" is how Claude Code and others name a server's tools, <server> being the
// client's own name for the server. Each way to split the rest at a "__" (a name may hold "__"
// itself), first split first; none when the name is no such alias.
std::vector<std::pair<std::string, std::string>> clientAliasSplits(const std::string& name)
{
    static const std::string prefix = "mcp__";
    std::vector<std::pair<std::string, std::string>> splits;
    if (name.rfind(prefix, 0) != 0)
        return splits;
    for (auto separator = name.find("__", prefix.size() + 1); separator != std::string::npos;
         separator = name.find("__", separator + 1)) {
        if (separator + 2 < name.size())
            splits.emplace_back(name.substr(prefix.size(), separator - prefix.size()), name.substr(separator + 2));
    }
    return splits;
}

} // namespace

ToolRouter::ToolRouter(const ToolRegistry* registry)
    : m_registry(registry)
{}

ToolRouter::Resolution ToolRouter::resolve(const std::string& requestedName) const
{
    Resolution resolution;
    // No tool has a longer name, so there is nothing to find, and the closest-match search would
    // cost the tools' count times the name's length on the server thread.
    if (requestedName.size() > std::size_t(ToolSpec::MaxNameBytes)) {
        resolution.nameTooLong = true;
        return resolution;
    }
    resolution.tool = m_registry->find(requestedName);
    if (resolution.tool)
        return resolution;
    // An alias whose server part names an adapter (or sink) here is that owner's tool, or an
    // explicit error: never a builtin of the same name (mcp__everything__echo is not `echo`). Any
    // other server part is the client's name for Switchboard itself, and the rest is the tool.
    std::string aliased;
    for (const auto& [server, tool] : clientAliasSplits(requestedName)) {
        if (m_registry->isOwner(server)) {
            aliased = server + '.' + tool;
            break;
        }
    }
    if (aliased.empty()) {
        if (const auto splits = clientAliasSplits(requestedName); !splits.empty())
            aliased = splits.front().second;
    }
    if (!aliased.empty()) {
        resolution.tool = m_registry->find(aliased);
        if (resolution.tool)
            return resolution;
    }

    const std::string& probe = aliased.empty() ? requestedName : aliased;
    // A namespaced name whose owner exists is compared with that owner's tools first.
    const auto dot = probe.find('.');
    const std::string ownerPrefix = dot == std::string::npos ? std::string() : probe.substr(0, dot + 1);
    std::vector<std::pair<int, QString>> scored;
    qint64 cellsLeft = MaxSuggestionCells;
    auto consider = [&](const std::string& name, const ToolRegistry::ToolPtr& tool) {
        if (!tool->refusal.isEmpty()) // never suggest a tool that may not be called
            return;
        const bool contains
            = !probe.empty() && (name.find(probe) != std::string::npos || probe.find(name) != std::string::npos);
        if (contains) {
            scored.emplace_back(0, tool->spec.name);
            return;
        }
        const int threshold = std::max<int>(2, int(std::max(probe.size(), name.size()) / 3));
        const qint64 lengthGap = qint64(probe.size()) - qint64(name.size());
        if (std::abs(lengthGap) > threshold) // the distance is at least the difference in length
            return;
        const qint64 cells = qint64(probe.size() + 1) * qint64(name.size() + 1);
        if (cells > cellsLeft)
            return;
        cellsLeft -= cells;
        const int distance = editDistance(probe, name);
        if (distance <= threshold)
            scored.emplace_back(distance, tool->spec.name);
    };
    const ToolRegistry::ToolMap& tools = m_registry->byName();
    if (!ownerPrefix.empty()) {
        for (auto it = tools.lower_bound(ownerPrefix); it != tools.end() && it->first.rfind(ownerPrefix, 0) == 0; ++it)
            consider(it->first, it->second);
    }
    for (const auto& [name, tool] : tools) {
        if (ownerPrefix.empty() || name.rfind(ownerPrefix, 0) != 0)
            consider(name, tool);
    }
    if (!ownerPrefix.empty()) {
        const ToolRegistry::Unavailability unavailable
            = m_registry->unavailability(QString::fromStdString(ownerPrefix.substr(0, ownerPrefix.size() - 1)));
        resolution.unavailableReason = unavailable.reason;
        resolution.unavailableStatus = unavailable.status;
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i)
        resolution.closestMatches << scored[i].second;
    return resolution;
}

QString ToolRouter::unknownToolMessage(const QString& requestedName, const QStringList& closestMatches)
{
    if (const qsizetype bytes = requestedName.toUtf8().size(); bytes > ToolSpec::MaxNameBytes) {
        return QStringLiteral("Unknown tool \"%1\": the name is %2 bytes long and tool names are at most %3 bytes. "
                              "Call tools/list to see the available tools.")
            .arg(ToolCall::boundedText(requestedName, 64))
            .arg(bytes)
            .arg(ToolSpec::MaxNameBytes);
    }
    QString message = QStringLiteral("Unknown tool \"%1\".").arg(requestedName);
    if (!closestMatches.isEmpty())
        message += QStringLiteral(" Closest matches: %1.").arg(closestMatches.join(QStringLiteral(", ")));
    else
        message += QStringLiteral(" Call tools/list to see the available tools.");
    return message;
}

QString ToolRouter::unknownToolMessage(const QString& requestedName, const Resolution& resolution)
{
    if (!resolution.nameTooLong && !resolution.unavailableReason.isEmpty())
        return QStringLiteral("Tool \"%1\" is not available: %2.")
            .arg(requestedName, ToolCall::boundedText(resolution.unavailableReason, MaxMessageChars));
    return unknownToolMessage(requestedName, resolution.closestMatches);
}

QString ToolRouter::argumentError(const RegisteredTool& tool, const nlohmann::json& arguments)
{
    const QStringList problems = tool.argumentValidator ? tool.argumentValidator->check(arguments)
                                                        : SchemaValidator::validate(arguments, tool.spec.inputSchema);
    if (problems.isEmpty())
        return {};
    return QStringLiteral("Invalid arguments for tool \"%1\": %2. Fix the arguments to match the tool's inputSchema "
                          "and call it again.")
        .arg(tool.spec.name, ToolCall::boundedText(problems.join(QStringLiteral("; ")), MaxMessageChars));
}
