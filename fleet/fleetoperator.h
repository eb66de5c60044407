#pragma once

// FleetOperator: several backends in one window. It holds OperatorInterfaces (the Backend of this
// process, RemoteOperators of Switchboards elsewhere), each under a name, and shows them to the
// window as one: their signals merged, every row, question and state named with its backend, and
// each command sent to the backend the call, question, session, grant or adapter belongs to.
//
// A window on one backend sees that backend's call ids unchanged. While it holds several, each call
// gets a window id when the fleet first sees it: a call that starts, in the order calls arrive
// (from LiveBase up), so that the log, which keeps its rows in id order, shows the backends' calls
// interleaved as they came; a call first seen in history, below LiveBase (downwards), so that it is
// older than every live row, as the log expects. The window reloads its log when the backends change
// (the ids do). Question ids of backends after the first carry their slot ("ia-…@2"). History fans
// out to every backend and comes back merged, newest first; a page remembers where each backend
// stopped, so that the next page asks each for what it has older than that.

#include "operatorinterface.h"

#include <QHash>
#include <QPointer>
#include <QSet>

#include <memory>
#include <optional>
#include <vector>

class FleetOperator : public OperatorInterface
{
    Q_OBJECT
public:
    // The name the backend of this process goes by beside attached ones.
    static QString localName();
    // Window ids of calls seen starting are LiveBase and above; those first seen in history are below.
    static constexpr qint64 LiveBase = 1'000'000'000;

    explicit FleetOperator(QObject* parent = nullptr);
    ~FleetOperator() override;

    // Adds `backend` under `name` (false, adding nothing, when a held backend has that name). An
    // `owned` one is deleted when detached or with the fleet; a `detachable` one can be detached
    // from the window (File ▸ Detach).
    bool addBackend(OperatorInterface* backend, const QString& name, bool owned, bool detachable);
    bool removeBackend(const QString& name);
    OperatorInterface* backend(const QString& name) const;
    int backendCount() const { return int(m_members.size()); }
    // The window's id of a backend's call (0 when the window has not been shown it), and back (no name
    // when no held backend has it).
    qint64 windowCallId(const QString& name, qint64 callId) const;
    std::pair<QString, qint64> backendCallId(qint64 windowCallId) const;

    QUrl serverUrl() const override;
    bool requiresToken() const override;
    QByteArray token() const override;
    QString secretStorage() const override;
    QString backendName() const override;
    bool isBackendConnected() const override;
    QStringList backendNames() const override;
    QString backendProblem(const QString& name) const override;
    bool canAttachBackends() const override { return true; }
    void attachBackend(const QUrl& url, const QByteArray& token, const QString& caFile) override;
    void detachBackend(const QString& name) override;

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
    struct Member
    {
        int slot = 0;
        QString name;
        QPointer<OperatorInterface> backend;
        bool owned = false;
        bool detachable = false;
        QString problem; // why it is not live; empty when it is
        QList<QMetaObject::Connection> connections;
        // What the window shows of it, kept to merge with the others' when one of them lists anew.
        QList<PendingInteraction> interactions; // window form
        QHash<QString, SessionState> sessions;
        int sessionCount = 0;
        PermissionEntryList grants;
        ToolInfoList tools;
        QSet<QString> adapters;
        QSet<QString> repositories;
        qint64 oldestCallId = 0; // its own id of the oldest call it sent the window; 0: none yet
    };
    // One history search, load or count spread over the backends.
    struct FleetRequest
    {
        bool count = false;
        int limit = 0;
        QHash<int, qint64> cursors; // per slot: the beforeId it was asked with
        QSet<int> waiting; // slots that have not answered yet
        QList<std::pair<int, ToolCall>> calls; // each backend's own, by slot: numbered once merged
        bool hasMore = false;
        qint64 total = -1;
    };
    enum class Ask { Recent, Search, Count };

    Member* member(const QString& name) const;
    Member* memberAt(int slot) const;
    Member* primary() const;
    Member* owner(const QString& interactionId, QString* localId) const;
    bool isNamed() const { return m_members.size() > 1; }
    QString named(const Member& from, const QString& message) const;
    void connectMember(Member& joined);
    // The window's id of a backend's call, given one when it has none (`live`: a call that starts now).
    qint64 windowId(int slot, qint64 callId, bool live);
    std::optional<std::pair<int, qint64>> backendId(qint64 windowCallId) const;
    void forgetWindowIds();
    void pruneWindowIds();
    // Numbers again, in their backend's order, the calls of `calls` first numbered by their questions
    // when older ones of the batch had none; the old window ids → the new.
    QHash<qint64, qint64> renumberProvisional(const Member& from, const ToolCallList& calls);
    void renumber();
    ToolCall toWindow(const Member& from, ToolCall call, bool live);
    PendingInteraction toWindow(const Member& from, PendingInteraction interaction);
    QString windowInteractionId(const Member& from, const QString& id) const;
    quint64 fanOut(Ask ask, const HistoryQuery& query, int limit, qsizetype bodyPreviewBytes);
    void childHistoryLoaded(int slot, quint64 childRequest, const ToolCallList& calls, bool hasMore);
    void childHistoryCounted(int slot, quint64 childRequest, qint64 count);
    void finishIfAnswered(quint64 requestId);
    void forgetChildRequests(int slot);
    void emitInteractions();
    void emitSessions();
    PermissionEntryList allGrants() const;
    void emitConnection(const Member& changed, bool connected, const QString& message);
    // The members holding an adapter (or repository) of that name; the first backend when none does,
    // so that its own refusal says what is wrong.
    QList<Member*> holders(const QSet<QString> Member::*set, const QString& key) const;

    std::vector<std::unique_ptr<Member>> m_members;
    Member m_detached; // what a handler of a backend detached meanwhile works on
    int m_nextSlot = 0;
    quint64 m_nextRequestId = 1;
    QHash<quint64, FleetRequest> m_requests;
    // (slot, the backend's request id) → the window's request id.
    QHash<QPair<int, quint64>, quint64> m_childRequests;
    QHash<QPair<int, quint64>, quint64> m_childCalls; // callTool requests likewise
    // Window ids while several backends are held (see the class comment).
    QHash<QPair<int, qint64>, qint64> m_windowIds;
    QHash<qint64, QPair<int, qint64>> m_backendIds;
    QSet<QPair<int, qint64>> m_provisional; // numbered by a question, not yet seen as a call
    qint64 m_nextLiveId = LiveBase;
    qint64 m_nextOlderId = LiveBase - 1;
    // A page's last window call id → where each backend stopped, for the next page.
    QHash<qint64, QHash<int, qint64>> m_pageEnds;
};
