#pragma once

// ToolRegistry: the tools the backend offers, each with its spec, its route and its handler.
// Listing order is by name, so tools/list pages are stable while the registry does not change.

#include "toolroute.h"
#include "tools/executionpolicy.h"
#include "tools/toolcallcontext.h"
#include "tools/toolspec.h"

#include <QObject>
#include <QStringList>

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
    ToolRoute route = ToolRoute::builtin();
    ExecutionPolicy execution;
    // ExecutionKind::BackendThread: runs on the backend thread, must not block, and finishes the
    // call through the context (now or later).
    std::function<void(const std::shared_ptr<ToolCallContext>&)> handler;
    // ExecutionKind::Blocking: runs on a worker of the ToolExecutor and returns the result; checks
    // context.isCancelled() (or waits with waitForCancellation) and gives up when it is set. An
    // exception becomes a tool error.
    std::function<ToolResult(ToolCallContext& context)> blockingHandler;
    // Set for tools a person answers at the console (backend/interaction); such calls pause
    // instead of running the handler.
    std::shared_ptr<const ClientTool> clientTool;
    // The inputSchema compiled once, by ToolRegistry::add; ToolRouter compiles it per call when
    // a tool was never registered.
    std::shared_ptr<const SchemaValidator> argumentValidator;
    // The tool source that offers it; set by ToolRegistry.
    QString source;
    // Set for a tool that exists but may not be called (a write tool of a read-only adapter): it is
    // not listed, and every call fails with this message before its arguments are checked, before
    // any question and before any traffic.
    QString refusal;
    // Called on the backend thread when a call was refused with `refusal`, so the tool's source can
    // count it (an adapter's "rejected" figure).
    std::function<void()> refused;
    // For a tool whose answers have a shape of their own (an outputSchema, such as the git tools'
    // {"status", "message", …}): the failure a tool error without structured content becomes, so
    // that a call Switchboard ended without the tool (arguments its schema refused, a deadline, a
    // denial) answers in that shape too. Runs on the backend thread; keeps the failure's outcome.
    std::function<ToolResult(const ToolResult& failure)> shapeFailure;
};

class ToolRegistry : public QObject
{
    Q_OBJECT
public:
    using ToolPtr = std::shared_ptr<const RegisteredTool>;
    using ToolMap = std::map<std::string, ToolPtr>;

    explicit ToolRegistry(QObject* parent = nullptr);

    // A tool source (the builtins, the client tools, git, each adapter, the command tools) replaces
    // its whole set of tools in one step, which emits toolsChanged once (one
    // notifications/tools/list_changed for clients). Tools that cannot be offered are left out and
    // described in `problems`: an empty name, a name longer than ToolSpec::MaxNameBytes, a tool
    // without the handler its ExecutionKind needs, a name another source already offers, and an
    // inputSchema SchemaValidator cannot check in full (a keyword of a later draft, a $ref to
    // another document, …), which would let arguments through that its schema forbids. Returns
    // the number of tools the source now offers. An empty set removes the source.
    int replaceSource(const QString& source, std::vector<RegisteredTool> tools, QStringList* problems = nullptr);
    // Adds or replaces one tool in the source named after its route ("builtin", "adapter:github").
    bool add(RegisteredTool tool, QString* error = nullptr);
    bool remove(const QString& name);

    ToolPtr find(const std::string& name) const;
    std::vector<ToolPtr> tools() const;
    // Every tool by name, in listing order.
    const ToolMap& byName() const { return m_tools; }
    std::size_t size() const { return m_tools.size(); }
    QStringList sources() const;

    // Why a namespaced name (`owner.tool`) names no tool, when its owner can tell (an adapter that is
    // disabled, not connected yet, or whose breaker the operator opened before it ever listed its
    // tools), and the status a call to it ends with: breaker_open when the owner's circuit breaker
    // refuses, upstream_error otherwise. An empty reason when the owner cannot tell.
    struct Unavailability
    {
        QString reason;
        CallStatus status = CallStatus::UpstreamError;
    };
    using UnavailableExplainer = std::function<Unavailability(const QString& owner)>;
    void setUnavailableExplainer(UnavailableExplainer explainer) { m_explainer = std::move(explainer); }
    Unavailability unavailability(const QString& owner) const
    {
        return m_explainer ? m_explainer(owner) : Unavailability();
    }
    // Whether `owner` owns namespaced tools (`owner.tool`: an adapter, a sink): it offers some now,
    // or the owner check knows it (a configured adapter that offers none at the moment).
    using OwnerCheck = std::function<bool(const QString& owner)>;
    void setOwnerCheck(OwnerCheck check) { m_ownerCheck = std::move(check); }
    bool isOwner(const std::string& owner) const;
    std::vector<ToolPtr> toolsOf(const QString& source) const;

Q_SIGNALS:
    void toolsChanged();

private:
    bool prepare(RegisteredTool& tool, const QString& source, QString* error) const;

    ToolMap m_tools;
    std::map<QString, std::vector<std::string>> m_sourceTools; // source → its tools' names
    UnavailableExplainer m_explainer;
    OwnerCheck m_ownerCheck;
};
