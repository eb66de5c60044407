#pragma once

// FakeOperator: a test double of the OperatorInterface. It records every command the window sends
// and lets a test play the backend's part by emitting its events, with no server, thread or socket.

#include "operatorinterface.h"

#include <QList>

// No Q_OBJECT: it adds no signals or slots of its own, and the interface's are inherited.
class FakeOperator : public OperatorInterface
{
public:
    struct Answer
    {
        QString interactionId;
        InteractionAnswer answer;
    };
    struct ToolCallRequest
    {
        QString tool;
        QByteArray arguments;
        qint64 replayOf = 0;
        quint64 requestId = 0;
    };
    struct ApiKey
    {
        QString interactionId;
        QString provider;
        QString account;
        QByteArray key;
    };

    QUrl serverUrl() const override { return QUrl(QStringLiteral("http://127.0.0.1:8765/mcp")); }
    bool requiresToken() const override { return !tokenValue.isEmpty(); }
    QByteArray token() const override { return tokenValue; }
    QString secretStorage() const override { return QStringLiteral("the test's keychain"); }

    quint64 loadRecentCalls(int limit, qsizetype bodyPreviewBytes = 0) override
    {
        recentLoads << qMakePair(limit, bodyPreviewBytes);
        return ++lastRequestId;
    }
    quint64 queryHistory(const HistoryQuery& query) override
    {
        queries << query;
        return ++lastRequestId;
    }
    quint64 countHistory(const HistoryQuery& query) override
    {
        counts << qMakePair(++lastRequestId, query);
        return lastRequestId;
    }
    void listInteractions() override { ++interactionLists; }
    void answerInteraction(const QString& interactionId, const InteractionAnswer& answer) override
    {
        answers << Answer{interactionId, answer};
    }
    void connectWithApiKey(const QString& interactionId, const QString& provider, const QString& account,
        const QByteArray& apiKey) override
    {
        apiKeys << ApiKey{interactionId, provider, account, apiKey};
    }
    void startOAuth(const QString& interactionId, const QString&, const QStringList&) override
    {
        oauthStarts << interactionId;
    }
    void cancelOAuth(const QString& interactionId) override { oauthCancels << interactionId; }
    void resetBreaker(const QString& adapter) override { breakerResets << adapter; }
    void forceOpenBreaker(const QString& adapter) override { breakerForceOpens << adapter; }
    void setAdapterEnabled(const QString& adapter, bool enabled) override
    {
        adapterEnables << qMakePair(adapter, enabled);
    }
    void reloadConfiguration() override { ++configurationReloads; }
    void listSessions() override { ++sessionLists; }
    void endSession(const QString& sessionId) override { sessionEnds << sessionId; }
    void refreshRepository(const QString& path) override { repositoryRefreshes << path; }
    void addRepository(const QString& path) override { repositoryAdds << path; }
    void removeRepository(const QString& path) override { repositoryRemovals << path; }
    void loadFileDiff(const QString& repositoryPath, const QString& file) override
    {
        diffLoads << qMakePair(repositoryPath, file);
    }
    quint64 callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf = 0) override
    {
        toolCalls << ToolCallRequest{tool, arguments, replayOf, ++lastRequestId};
        return lastRequestId;
    }
    void listTools() override { ++toolLists; }
    void listClientTokens() override { ++clientTokenLists; }
    void issueClientToken(const QString& name) override { clientTokenIssues << name; }
    void revokeClientToken(const QString& name) override { clientTokenRevokes << name; }

    QByteArray tokenValue = QByteArrayLiteral("sb_fake-token");
    quint64 lastRequestId = 0;
    QList<QPair<int, qsizetype>> recentLoads;
    QList<HistoryQuery> queries;
    QList<QPair<quint64, HistoryQuery>> counts; // each count asked, with its request id
    int interactionLists = 0;
    QList<Answer> answers;
    QList<ApiKey> apiKeys;
    QStringList oauthStarts;
    QStringList oauthCancels;
    QStringList repositoryRefreshes;
    QStringList repositoryAdds;
    QStringList repositoryRemovals;
    QList<QPair<QString, QString>> diffLoads; // repository, file
    QStringList breakerResets;
    QStringList breakerForceOpens;
    QList<QPair<QString, bool>> adapterEnables; // adapter, enabled
    int configurationReloads = 0;
    int sessionLists = 0;
    QStringList sessionEnds;
    QList<ToolCallRequest> toolCalls;
    int toolLists = 0;
    int clientTokenLists = 0;
    QStringList clientTokenIssues;
    QStringList clientTokenRevokes;
};
