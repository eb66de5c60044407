#pragma once

// AdapterOverridesFile: the operator's overrides of upstream adapters (disabled, breaker forced open
// until reset), kept as one small owner-only JSON file in the state directory, so that a restart
// keeps them and every process on that directory (the console, one-shot runners) obeys them:
//
//   {"version": 1, "adapters": {"github": {"enabled": false, "forcedOpen": true, "changedAtMs": 1718000000000,
//                                          "forcedBy": "alice"}}}
//
// An adapter without an entry has no override. A change touches only its adapter's entry: under the
// file's lock (StateFileLock, bounded wait) the file is read again, that entry changed and the
// result written atomically (WorkspaceStateFile::write), so processes changing different adapters at
// once lose nothing. Reading takes no lock: the file is always replaced whole. A file that cannot be
// read or parsed (or is larger than MaxFileBytes) is set aside for the operator
// (WorkspaceStateFile::setAside) and counts as no overrides. Entries of adapters the configuration
// no longer names are kept: the adapter may come back.
//
// Blocking file work (a bounded lock wait, an fsync); usable from any thread, no state of its own
// beyond the path.

#include <QByteArray>
#include <QString>

#include <chrono>
#include <map>

class AdapterOverridesFile
{
public:
    static constexpr int Version = 1;
    // Thousands of entries fit; a larger file is not one Switchboard wrote.
    static constexpr qint64 MaxFileBytes = 1024 * 1024;
    // Holders keep the lock for one small write; the wait is short because the console's commands
    // write from its server thread.
    static constexpr std::chrono::milliseconds DefaultLockTimeout{2'000};

    struct Override
    {
        bool disabled = false; // "enabled": false
        bool forcedOpen = false;
        qint64 changedAtMs = 0; // ms since the Unix epoch; shown, never compared
        QString forcedBy; // the operator who forced the breaker open; shown, never compared

        bool isEmpty() const { return !disabled && !forcedOpen; }
        // The same overrides, whenever they were made.
        bool sameAs(const Override& other) const
        {
            return disabled == other.disabled && forcedOpen == other.forcedOpen;
        }
    };
    using Overrides = std::map<QString, Override>;

    enum class Change { Disable, Enable, ForceOpen, Reset };

    enum class ReadStatus {
        Read,
        Missing, // no file: no overrides
        SetAside, // unreadable, moved aside (the message names where): no overrides
        Failed, // unreadable and not moved aside (the message says why): nothing is known
    };

    explicit AdapterOverridesFile(QString path, std::chrono::milliseconds lockTimeout = DefaultLockTimeout);

    QString path() const { return m_path; }

    // The overrides on disk. An unreadable file is set aside under the lock (unless another process
    // replaced it meanwhile, which is then read); `message` says what happened to it.
    ReadStatus read(Overrides* overrides, QString* message) const;

    // Under the lock: reads the file again, makes `change` to `adapter`'s entry (stamped `nowMs` when
    // it changes) and writes the file when its contents differ. `after` gets every entry as written,
    // other processes' included; `notice` is set when an unreadable file was set aside to write. A
    // name no adapter can have (AdapterConfig::isValidName) is refused.
    // `by` names the operator who made it (kept with a forced open breaker).
    bool change(const QString& adapter, Change change, qint64 nowMs, Overrides* after, QString* error,
        QString* notice = nullptr, const QString& by = {}) const;

    // The file's form, and back. parse() refuses anything but a version 1 object whose entries are
    // objects named as adapters are (AdapterConfig::isValidName) with boolean fields; unknown fields
    // are ignored.
    static QByteArray toBytes(const Overrides& overrides);
    static bool parse(const QByteArray& contents, Overrides* overrides, QString* error);

private:
    // Under the lock: the file's overrides and bytes; an unreadable file is set aside (`message`).
    ReadStatus readLocked(Overrides* overrides, QByteArray* contents, QString* message) const;

    const QString m_path;
    const std::chrono::milliseconds m_lockTimeout;
};
