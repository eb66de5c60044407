#pragma once

// ToolRegistry: the tools the backend offers, each with its spec, its route and its handler.
// Listing order is by name, so tools/list pages are stable while the registry does not change.

#include "tools/toolcallcontext.h"
#include "tools/toolspec.h"

#include <QObject>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

class ClientTool;
class SchemaValidator;

struct RegisteredTool
{
    ToolSpec spec;
    QString route; // "builtin" for the tools in this folder; later subsystems name their own
    std::function<void(const std::shared_ptr<ToolCallContext>&)> handler;
    // Set for tools a person answers at the console (backend/interaction); such calls pause
    // instead of running the handler.
    std::shared_ptr<const ClientTool> clientTool;
    // The inputSchema compiled once, by ToolRegistry::add; ToolRouter compiles it per call when
    // a tool was never registered.
    std::shared_ptr<const SchemaValidator> argumentValidator;
};

class ToolRegistry : public QObject
{
    Q_OBJECT
public:
    using ToolPtr = std::shared_ptr<const RegisteredTool>;

    explicit ToolRegistry(QObject* parent = nullptr);

    // Adds or replaces a tool. Fails for an empty name, a name longer than ToolSpec::MaxNameBytes,
    // a tool without a handler, and an inputSchema SchemaValidator cannot check in full (a
    // keyword of a later draft, a $ref to another document, …): such a tool would let arguments
    // through that its schema forbids, so it is refused with the reason rather than half-checked.
    bool add(RegisteredTool tool, QString* error = nullptr);
    bool remove(const QString& name);

    ToolPtr find(const std::string& name) const;
    std::vector<ToolPtr> tools() const;
    std::size_t size() const { return m_tools.size(); }

Q_SIGNALS:
    void toolsChanged();

private:
    std::map<std::string, ToolPtr> m_tools;
};
