#include "operatorinterface.h"

OperatorInterface::OperatorInterface(QObject* parent)
    : QObject(parent)
{
    // Everything these signals carry crosses threads in queued connections.
    qRegisterMetaType<ToolCall>();
    qRegisterMetaType<ToolCallList>();
    qRegisterMetaType<PendingInteraction>();
    qRegisterMetaType<PendingInteractionList>();
    qRegisterMetaType<InteractionAnswer>();
    qRegisterMetaType<InteractionOutcome>();
    qRegisterMetaType<QuestionUpdateList>();
    qRegisterMetaType<HistoryQuery>();
    qRegisterMetaType<BreakerStateList>();
    qRegisterMetaType<AdapterStatusList>();
    qRegisterMetaType<RepositoryStateList>();
    qRegisterMetaType<TransferProgressList>();
    qRegisterMetaType<FileDiff>();
    qRegisterMetaType<SessionStateList>();
    qRegisterMetaType<SecurityEventList>();
    qRegisterMetaType<PermissionEntryList>();
    qRegisterMetaType<ToolInfoList>();
    qRegisterMetaType<ClientTokenInfoList>();
}

OperatorInterface::~OperatorInterface() = default;

QString OperatorInterface::backendProblem(const QString& name) const
{
    Q_UNUSED(name);
    return isBackendConnected() ? QString() : QStringLiteral("not connected");
}

void OperatorInterface::attachBackend(const QUrl& url, const QByteArray& token, const QString& caFile)
{
    Q_UNUSED(token);
    Q_UNUSED(caFile);
    Q_EMIT commandFailed(QStringLiteral("attachBackend"),
        QStringLiteral("This window holds one backend and cannot attach %1 beside it.").arg(url.toDisplayString()));
}

void OperatorInterface::detachBackend(const QString& name)
{
    Q_EMIT commandFailed(
        QStringLiteral("detachBackend"), QStringLiteral("This window holds no backend \"%1\" to detach.").arg(name));
}

void OperatorInterface::resetBreaker(const QString& adapter)
{
    Q_EMIT commandFailed(QStringLiteral("resetBreaker"),
        QStringLiteral("This backend has no upstream adapters, so there is no breaker \"%1\" to reset.").arg(adapter));
}

void OperatorInterface::forceOpenBreaker(const QString& adapter)
{
    Q_EMIT commandFailed(QStringLiteral("forceOpenBreaker"),
        QStringLiteral("This backend has no upstream adapters, so there is no breaker \"%1\" to open.").arg(adapter));
}

void OperatorInterface::setAdapterEnabled(const QString& adapter, bool enabled)
{
    Q_EMIT commandFailed(QStringLiteral("setAdapterEnabled"),
        QStringLiteral("This backend has no upstream adapters, so there is no adapter \"%1\" to %2.")
            .arg(adapter, enabled ? QStringLiteral("enable") : QStringLiteral("disable")));
}

void OperatorInterface::reloadConfiguration()
{
    Q_EMIT commandFailed(QStringLiteral("reloadConfiguration"),
        QStringLiteral("This backend was started without a configuration file, so there is nothing to reload."));
}

void OperatorInterface::refreshRepository(const QString& path)
{
    Q_EMIT commandFailed(QStringLiteral("refreshRepository"),
        QStringLiteral("This backend has no git tools, so the repository %1 cannot be refreshed.").arg(path));
}

void OperatorInterface::addRepository(const QString& path)
{
    Q_EMIT commandFailed(QStringLiteral("addRepository"),
        QStringLiteral("This backend has no git tools, so the repository %1 cannot be shown.").arg(path));
}

void OperatorInterface::removeRepository(const QString& path)
{
    Q_EMIT commandFailed(QStringLiteral("removeRepository"),
        QStringLiteral("This backend has no git tools, so there is no repository %1 to remove.").arg(path));
}

void OperatorInterface::loadFileDiff(const QString& repositoryPath, const QString& file)
{
    Q_EMIT commandFailed(QStringLiteral("loadFileDiff"),
        QStringLiteral("This backend has no git tools, so the diff of %1 in %2 cannot be shown.")
            .arg(file, repositoryPath));
}

void OperatorInterface::listGrants()
{
    Q_EMIT grantsListed({});
}

void OperatorInterface::revokeGrant(const QString& grantId)
{
    Q_EMIT commandFailed(QStringLiteral("revokeGrant"),
        QStringLiteral("This backend keeps no grants, so there is no grant %1 to revoke.").arg(grantId));
}

void OperatorInterface::listSessions()
{
    Q_EMIT sessionsListed({});
}

void OperatorInterface::endSession(const QString& sessionId)
{
    Q_EMIT commandFailed(QStringLiteral("endSession"),
        QStringLiteral("This backend serves no clients over HTTP, so there is no session %1 to end.").arg(sessionId));
}

quint64 OperatorInterface::callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf)
{
    Q_UNUSED(arguments)
    Q_UNUSED(replayOf)
    Q_EMIT commandFailed(QStringLiteral("callTool"),
        QStringLiteral("This backend cannot call tools from the console, so \"%1\" was not called.").arg(tool));
    return 0;
}

void OperatorInterface::listTools()
{
    Q_EMIT toolsListed({});
}

QString OperatorInterface::consoleClientName()
{
    return QStringLiteral("Switchboard console");
}

void OperatorInterface::listClientTokens()
{
    Q_EMIT clientTokensListed({}, QString());
}

void OperatorInterface::issueClientToken(const QString& name)
{
    Q_EMIT commandFailed(QStringLiteral("issueClientToken"),
        QStringLiteral("This backend keeps no client tokens, so none was issued for %1.").arg(name));
}

void OperatorInterface::revokeClientToken(const QString& name)
{
    Q_EMIT commandFailed(QStringLiteral("revokeClientToken"),
        QStringLiteral("This backend keeps no client tokens, so there is no token %1 to revoke.").arg(name));
}
