#pragma once

// ApprovalStore: the person's approval decisions. "Always allow" rules (per tool, kept across
// restarts), "allow for this session" grants (per session and client, gone with the session), and
// one-shot decisions for calls that were no longer waiting when the person answered (parked,
// dropped, or from before a restart), taken by the next identical call of the same client (the
// key says whose: see InteractionBroker::keyFor). Separate from ClientOutputStore: a decision is
// never a client tool's output and the other way round. One-shot decisions are bounded: beyond
// MaxDecisions the oldest gives way (its call, if it ever comes back, is asked again).

#include <QSet>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <deque>
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
        qint64 sequence = 0; // the order decisions were stored in; kept in memory only
    };
    static constexpr int MaxDecisions = 1'000;

    void alwaysAllow(const QString& tool) { m_alwaysAllowed.insert(tool); }
    bool revokeAlways(const QString& tool) { return m_alwaysAllowed.remove(tool); }
    bool isAlwaysAllowed(const QString& tool) const { return m_alwaysAllowed.contains(tool); }
    QStringList alwaysAllowed() const;

    // A grant belongs to the session and the client that was asked; no other client's call uses it.
    void allowForSession(const QString& sessionId, const QString& clientName, const QString& tool);
    bool isAllowedForSession(const QString& sessionId, const QString& clientName, const QString& tool) const;
    void forgetSession(const QString& sessionId) { m_sessionGrants.erase(sessionId); }

    // Returns how many older decisions gave way to keep the store within MaxDecisions.
    int pushDecision(const QString& key, Decision decision);
    std::optional<Decision> takeDecision(const QString& key);
    int decisionCount() const { return m_decisionCount; }

    // Persisted: always-allow rules and one-shot decisions. Session grants end with the process
    // because sessions do.
    nlohmann::json toJson() const;
    // Replaces the contents, or leaves the store empty and says why when `value` is not exactly
    // what toJson() writes.
    bool fromJson(const nlohmann::json& value, QString* problem);
    void clear();

private:
    QSet<QString> m_alwaysAllowed;
    std::map<QString, QSet<QString>> m_sessionGrants; // by session id: client name and tool
    std::map<QString, std::deque<Decision>> m_decisions;
    int m_decisionCount = 0;
    qint64 m_nextSequence = 0;
};
