#pragma once

// ApprovalStore: the person's approval decisions. Standing grants ("always allow", kept across
// restarts), "allow for this session" grants (per session and client, gone with the session), and
// one-shot decisions for calls that were no longer waiting when the person answered (parked,
// dropped, or from before a restart), taken by the next identical call of the same client (the
// key says whose: see InteractionBroker::keyFor). Separate from ClientOutputStore: a decision is
// never a client tool's output and the other way round. One-shot decisions are bounded: beyond
// MaxDecisions the oldest gives way (its call, if it ever comes back, is asked again).
//
// A standing grant has a scope: one client (by its clientInfo.name) or every client, and the exact
// arguments it was given for (canonical compact JSON, redacted as the question showed them) or any.
// Each records who granted it and when, and has an id to revoke it by. Files written before grants
// had scopes hold "alwaysAllow": [tool, …]; each reads as a grant for every client and any
// arguments with an id derived from the tool, so every process reading that file agrees on it.
//
// Grants are bounded too, by count and by bytes, but never by dropping one the person gave: a grant
// beyond MaxGrants (or MaxSessionGrants), or one whose arguments are over MaxGrantArgumentBytes, or
// one that would take the standing grants' arguments over MaxGrantBytes, is refused with a reason
// (grant() returns false) and the question stays open to be answered another way. A file holding more (written by
// hand, or merged from several processes) keeps its newest grants within the bounds.

#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <map>
#include <optional>

class ApprovalStore
{
public:
    struct Decision
    {
        bool allow = false;
        QString reason; // with a deny
        QString interactionId;
        QString decidedBy; // the console user who answered; empty in older files
        qint64 decidedAtMs = 0; // 0 in older files
        qint64 sequence = 0; // the order decisions were stored in; kept in memory only
    };
    struct Grant
    {
        QString id;
        QString tool;
        QString clientName; // empty: every client
        QByteArray arguments; // canonical compact JSON; empty: any arguments
        QString grantedBy;
        qint64 grantedAtMs = 0;
        QString sessionId; // session grants only (never persisted)

        nlohmann::json toJson() const; // {"id","tool","client","arguments","grantedBy","grantedAtMs"}
        static bool fromJson(const nlohmann::json& value, const QString& where, Grant* grant, QString* problem);
        // The grant an "alwaysAllow" entry of an older file stands for.
        static Grant legacy(const QString& tool);
        bool matches(
            const QString& tool, const QString& clientName, const std::function<QByteArray()>& arguments) const;
    };
    static constexpr int MaxDecisions = 1'000;
    static constexpr int MaxGrants = 1'000;
    static constexpr int MaxSessionGrants = 1'000;
    static constexpr qsizetype MaxGrantArgumentBytes = 64 * 1024;
    static constexpr qsizetype MaxGrantBytes = 4 * 1024 * 1024;

    // A new grant id ("g-…", random).
    static QString newGrantId();

    // Adds or replaces (by id) a standing grant, or a session grant when grant.sessionId is set (no
    // other session's or client's call uses that one). False, leaving the store as it was and
    // `problem` saying why and what to do instead, when the store has no room for it.
    bool grant(const Grant& grant, QString* problem);
    // Removes a standing or session grant; false when there is none with that id.
    bool revoke(const QString& id);
    // The grant that lets this call run without asking: a session grant of its session first, then a
    // standing one; the narrowest among equals. `arguments` gives the call's canonical arguments,
    // asked only when a grant is limited to exact arguments (an empty answer matches none).
    std::optional<Grant> find(const QString& tool, const QString& sessionId, const QString& clientName,
        const std::function<QByteArray()>& arguments) const;
    // By id.
    QList<Grant> grants() const;
    QList<Grant> sessionGrants() const;
    // Returns whether the session had grants.
    bool forgetSession(const QString& sessionId);

    // Returns how many older decisions gave way to keep the store within MaxDecisions.
    int pushDecision(const QString& key, Decision decision);
    std::optional<Decision> takeDecision(const QString& key);
    int decisionCount() const { return m_decisionCount; }

    // Persisted: standing grants and one-shot decisions, {"grants": [...by id], "decisions": [...]}.
    // Session grants end with the process because sessions do.
    nlohmann::json toJson() const;
    // Replaces the persisted contents (session grants stay), or leaves them empty and says why when
    // `value` is not what toJson() writes (or an older file's "alwaysAllow").
    bool fromJson(const nlohmann::json& value, QString* problem);
    // The standing grants of an approvals record, whichever shape it has; false, saying why, when
    // one does not read.
    static bool readGrants(const nlohmann::json& approvals, QList<Grant>* grants, QString* problem);
    void clear();

private:
    bool canGrant(const Grant& grant, QString* problem) const;

    std::map<QString, Grant> m_grants; // by id
    std::map<QString, Grant> m_sessionGrants; // by id
    std::map<QString, std::deque<Decision>> m_decisions;
    int m_decisionCount = 0;
    qint64 m_nextSequence = 0;
};
