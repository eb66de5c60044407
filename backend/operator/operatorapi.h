#pragma once

// OperatorApi: the operator API (docs/operator-api.md) on the MCP listener, under /operator/v1/:
// JSON queries and commands, and an event stream that starts with the whole state and then follows
// it (OperatorFeed). Opens only to operator tokens, each with a role; every answer it gives is
// recorded as "operator:<name>". Event streams are bounded in number; one whose reader falls behind
// is cut (its next connection starts with the state again). Lives on the server thread: what it
// does to the backend goes through Hooks, each run there.

#include "auth/operatortokens.h"
#include "backendstates.h"
#include "historyquery.h"
#include "pendinginteraction.h"
#include "permissionentry.h"
#include "sessionstates.h"
#include "toolinfo.h"
#include "transport/operatorendpoint.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>

class OperatorFeed;
class QTcpSocket;

class OperatorApi : public QObject, public OperatorEndpoint
{
    Q_OBJECT
public:
    struct Settings
    {
        int maxStreams = 64;
        // A stream with more than this unsent is cut: its reader does not keep up.
        qint64 maxUnsentStreamBytes = 8 * 1024 * 1024;
        int keepAliveMs = 15'000;
    };

    // What the API asks of the backend, each called on the server thread. A command that fails says
    // why in `error`.
    struct Hooks
    {
        std::function<PendingInteractionList()> questions;
        std::function<PermissionEntryList()> grants;
        std::function<SessionStateList()> sessions;
        std::function<bool(const QString& id, const InteractionAnswer& answer, const QString& by, QString* error,
            InteractionOutcome* outcome)>
            answer;
        // A connect question answered with an API key: `done` once the secret is saved and the
        // question answered (or not, with the reason).
        std::function<void(const QString& id, const QString& provider, const QString& account, const QByteArray& apiKey,
            const QString& by, std::function<void(bool ok, const QString& error)> done)>
            connect;
        std::function<bool(const QString& adapter)> adapterExists;
        // verb: reset, force-open, enable, disable.
        std::function<bool(const QString& verb, const QString& adapter, const QString& by, QString* error)>
            adapterCommand;
        std::function<bool(const QString& grantId)> revokeGrant;
        std::function<bool(const QString& sessionId)> endSession;
        // `done` on the server thread; `ok` false when there is no history to read.
        std::function<void(
            const HistoryQuery& query, std::function<void(bool ok, const ToolCallList& calls, bool hasMore)> done)>
            history;
        // How many stored calls match; -1 when there is no history to read.
        std::function<void(const HistoryQuery& query, std::function<void(qint64 count)> done)> countHistory;
        std::function<void(std::function<void(bool ok, const QString& message)> done)> reloadConfiguration;
        std::function<ToolInfoList()> tools;
        // A tool called by the operator (as the console's own calls are): `started` with the call's
        // id once it runs (it then shows on the event stream like any call), or why it could not start.
        std::function<void(const QString& tool, const QByteArray& arguments, qint64 replayOf, const QString& by,
            std::function<void(qint64 callId, const QString& error)> started)>
            callTool;
        // The repository view: add (refused saying why), remove, refresh, and one file's diff.
        std::function<bool(const QString& path, QString* error)> addRepository;
        std::function<void(const QString& path)> removeRepository;
        std::function<bool(const QString& path, QString* error)> refreshRepository;
        std::function<void(const QString& path, const QString& file, std::function<void(const FileDiff& diff)> done)>
            loadFileDiff;
    };

    OperatorApi(Settings settings, OperatorTokens tokens, Hooks hooks, OperatorFeed* feed, QObject* parent = nullptr);
    ~OperatorApi() override;

    bool isAuthorized(QByteArrayView authorization) const override;
    void handle(const QHttpServerRequest& request, QTcpSocket* socket, QHttpServerResponder responder) override;

    int streamCount() const { return int(m_streams.size()); }
    // Ends every event stream (shutdown).
    void closeStreams();

private:
    class Reply;
    struct Stream;
    struct Request;

    void route(const Request& request, std::shared_ptr<Reply> reply);
    void searchHistory(const HistoryQuery& query, bool one, std::shared_ptr<Reply> reply);
    void answerQuestion(const Request& request, const QString& id, std::shared_ptr<Reply> reply);
    void openStream(const Request& request, QTcpSocket* socket, std::shared_ptr<Reply> reply);
    void broadcast(quint64 sequence, const QByteArray& event, const QByteArray& data);
    void removeStream(quint64 id);
    nlohmann::json status() const;

    Settings m_settings;
    OperatorTokens m_tokens;
    Hooks m_hooks;
    OperatorFeed* m_feed;
    std::map<quint64, std::unique_ptr<Stream>> m_streams;
    quint64 m_nextStreamId = 1;
    QTimer m_keepAlive;
};
