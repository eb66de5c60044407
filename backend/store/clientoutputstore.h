#pragma once

// ClientOutputStore: the person's answers to client tools whose call was no longer waiting (parked,
// dropped, or from before a restart), kept for the next identical call of the same client. FIFO per
// key (a hash of the client, the tool and its canonical arguments: InteractionBroker::keyFor): two
// identical calls get their own answers, in the order they were given. An output is whatever the person answered, even
// when it reads like an approval ("allow",
// {"approved": true}); approval decisions live in ApprovalStore, never here.
// Bounded by count and by bytes: beyond MaxEntries answers or MaxBytes of output, the oldest
// answer (by answeredAtMs) gives way; its call, if it ever comes back, is asked again.

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <deque>
#include <map>
#include <optional>

class ClientOutputStore
{
public:
    struct Entry
    {
        QByteArray output; // JSON, exactly as the client will receive it
        QString interactionId;
        qint64 answeredAtMs = 0;
    };

    static constexpr int MaxEntries = 1'000;
    static constexpr qint64 MaxBytes = 16 * 1024 * 1024;

    // Returns how many older answers gave way to keep the store within its bounds.
    int push(const QString& key, Entry entry);
    // The oldest answer for `key`, left in place.
    std::optional<Entry> peek(const QString& key) const;
    // The oldest answer for `key`, removed.
    std::optional<Entry> take(const QString& key);

    int count(const QString& key) const;
    int size() const { return m_count; }
    qint64 bytes() const { return m_bytes; }
    bool isEmpty() const { return m_entries.empty(); }
    // Every stored answer, oldest first within each key, for display.
    std::map<QString, std::deque<Entry>> entries() const { return m_entries; }
    bool remove(const QString& key);

    nlohmann::json toJson() const;
    // Replaces the contents, or leaves the store empty and says why when `value` is not exactly
    // what toJson() writes.
    bool fromJson(const nlohmann::json& value, QString* problem);

private:
    static qint64 bytesOf(const QString& key, const Entry& entry);
    void dropOldest();
    void clear();

    std::map<QString, std::deque<Entry>> m_entries;
    int m_count = 0;
    qint64 m_bytes = 0;
};
