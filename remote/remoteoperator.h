#pragma once

// RemoteOperator: the OperatorInterface of a Switchboard elsewhere, over its operator API
// (docs/operator-api.md): the window attached to a headless backend. It follows the backend's event
// stream (the whole state, then its changes) and turns it into the interface's signals; commands
// and queries are HTTP requests whose answers come back as the same signals an in-process backend
// gives. When the stream is lost it says so (backendConnectionChanged), and reconnects with a
// growing pause; the stream's first event after a reconnect is the whole state again, so nothing
// missed meanwhile stays missed.
//
// Not over the API: OAuth sign-ins (the redirect comes back to the backend's machine) and client
// tokens (kept in a file on that machine); each says so (connectFailed, commandFailed).

#include "operatorinterface.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QMap>
#include <QNetworkAccessManager>
#include <QPointer>
#include <QSet>
#include <QSslCertificate>
#include <QTimer>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <functional>

class QNetworkReply;
class QNetworkRequest;

class RemoteOperator : public OperatorInterface
{
    Q_OBJECT
public:
    struct Settings
    {
        QUrl url; // as the person gave it: the base, the /mcp URL or the /operator/v1 URL
        QByteArray token; // the operator token
        int requestTimeoutMs = 30'000;
        int firstRetryMs = 500; // after a lost stream; doubled up to maxRetryMs
        int maxRetryMs = 10'000;
        // Silence (not even the keep-alive the server sends every 15 s) this long means the stream is dead.
        int silenceMs = 45'000;
        // An event larger than this ends the stream (reconnected): the server's are far smaller.
        qint64 maxEventBytes = 64 * 1024 * 1024;
        // Trusted beside the system's: the certificate of a server with one of its own (server.tls).
        QList<QSslCertificate> caCertificates;
    };

    explicit RemoteOperator(Settings settings, QObject* parent = nullptr);
    ~RemoteOperator() override;

    // The server's base URL from what a person may paste (OperatorUrl::base); invalid, saying why in
    // `error`, when it cannot be one.
    static QUrl baseUrl(const QString& given, QString* error = nullptr);

    // The certificates of SWITCHBOARD_CA_FILE (PEM), to trust beside the system's; empty when it is
    // unset, and empty with `error` when it names no certificate.
    static QList<QSslCertificate> certificatesFromEnvironment(QString* error);
    // `request` trusts `certificates` beside the system's.
    static void trust(QNetworkRequest& request, const QList<QSslCertificate>& certificates);

    // Opens the event stream; the state follows as signals, then backendConnectionChanged(true).
    void start();
    // Closes the stream and stops reconnecting.
    void stop();

    QUrl serverUrl() const override { return m_mcpUrl; }
    // Until the backend says (its state's server.requiresToken), a token is taken to be needed.
    bool requiresToken() const override { return m_requiresToken; }
    // The MCP clients' token stays on the backend's machine: the window cannot show it.
    QByteArray token() const override { return {}; }
    QString secretStorage() const override { return m_secretStorage; }
    QString backendName() const override;
    bool isBackendConnected() const override { return m_connected; }

    quint64 loadRecentCalls(int limit, qsizetype bodyPreviewBytes = 0) override;
    quint64 queryHistory(const HistoryQuery& query) override;
    quint64 countHistory(const HistoryQuery& query) override;
    void listInteractions() override;
    void answerInteraction(const QString& interactionId, const InteractionAnswer& answer) override;
    void connectWithApiKey(const QString& interactionId, const QString& provider, const QString& account,
        const QByteArray& apiKey) override;
    void startOAuth(const QString& interactionId, const QString& provider, const QStringList& scopes) override;
    void cancelOAuth(const QString& interactionId) override;
    void resetBreaker(const QString& adapter) override;
    void forceOpenBreaker(const QString& adapter) override;
    void setAdapterEnabled(const QString& adapter, bool enabled) override;
    void reloadConfiguration() override;
    void refreshRepository(const QString& path) override;
    void addRepository(const QString& path) override;
    void removeRepository(const QString& path) override;
    void loadFileDiff(const QString& repositoryPath, const QString& file) override;
    void listGrants() override;
    void revokeGrant(const QString& grantId) override;
    void listSessions() override;
    void endSession(const QString& sessionId) override;
    quint64 callTool(const QString& tool, const QByteArray& arguments, qint64 replayOf = 0) override;
    void listTools() override;
    void listClientTokens() override;
    void issueClientToken(const QString& name) override;
    void revokeClientToken(const QString& name) override;

private:
    // What a request came back with: the HTTP status (0 when none came) and the body as JSON (null
    // when it was not), or why it failed.
    struct Answer
    {
        int status = 0;
        nlohmann::json body;
        QString error; // set unless 2xx: the server's message, or the transport's
        bool ok() const { return error.isEmpty(); }
    };
    using Done = std::function<void(const Answer&)>;
    void send(const QByteArray& method, const QString& path, const QByteArray& body, Done done);
    void answer(const QString& interactionId, const nlohmann::json& body);
    void adapterCommand(const QString& command, const QString& adapter, const QString& verb);
    void notOverTheApi(const QString& command, const QString& what);

    void openStream();
    void streamLost(const QString& why);
    void readStream();
    void dispatch(const QByteArray& event, const QByteArray& data);
    void applyState(const nlohmann::json& state);
    // A notice event (or one kept in the state, when `replayed`) as the interface signal it names.
    void applyNotice(const nlohmann::json& notice, bool replayed);
    void countSessions(const SessionStateList& sessions, bool whole);
    // callsUpdated, keeping the calls it says are still running or paused.
    void emitCalls(const ToolCallList& calls);
    // After a reconnect: the calls the window still shows running or paused that the state did not
    // update are asked of history; when the backend restarted meanwhile, one history has as running
    // (or not at all) ended with it and is shown so, never as live.
    void settleUnfinished(bool restarted);

    Settings m_settings;
    QString m_urlProblem; // why m_settings.url is no server's URL
    QUrl m_base;
    QNetworkAccessManager m_network;
    QPointer<QNetworkReply> m_stream;
    QByteArray m_buffer; // the stream's bytes not yet dispatched
    QTimer m_retry;
    QTimer m_silence;
    int m_retryMs;
    bool m_connected = false;
    bool m_stopped = true;
    quint64 m_lastSequence = 0;
    quint64 m_nextRequestId = 1;
    QUrl m_mcpUrl;
    QString m_secretStorage;
    bool m_requiresToken = true;
    QSet<QString> m_openSessions; // for sessionsChanged, as the in-process backend counts them
    // The newest state told of every call not yet finished (bounded: the oldest are forgotten).
    QMap<qint64, ToolCall> m_unfinished;
    static constexpr int MaxUnfinished = 2'000;
    QString m_serverInstance; // pid and start time of the backend last attached to
};
