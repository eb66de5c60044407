#include "adapters/adapteroverridesfile.h"

#include "adapters/adapterconfig.h"
#include "boundedjson.h"
#include "store/statefilelock.h"
#include "store/workspacestatefile.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>

using nlohmann::json;

namespace {

constexpr char EnabledKey[] = "enabled";
constexpr char ForcedOpenKey[] = "forcedOpen";
constexpr char ChangedAtKey[] = "changedAtMs";
constexpr char ForcedByKey[] = "forcedBy";

// An optional boolean field of an entry: absent is `fallback`; anything but a boolean is refused.
bool readFlag(const json& entry, const char* key, bool fallback, bool* value)
{
    const auto it = entry.find(key);
    if (it == entry.end()) {
        *value = fallback;
        return true;
    }
    if (!it->is_boolean())
        return false;
    *value = it->get<bool>();
    return true;
}

} // namespace

AdapterOverridesFile::AdapterOverridesFile(QString path, std::chrono::milliseconds lockTimeout)
    : m_path(std::move(path))
    , m_lockTimeout(lockTimeout)
{}

QByteArray AdapterOverridesFile::toBytes(const Overrides& overrides)
{
    json adapters = json::object();
    for (const auto& [name, entry] : overrides) {
        if (entry.isEmpty())
            continue; // no override: no entry
        json& written = adapters[name.toStdString()]
            = json{{EnabledKey, !entry.disabled}, {ForcedOpenKey, entry.forcedOpen}, {ChangedAtKey, entry.changedAtMs}};
        if (entry.forcedOpen && !entry.forcedBy.isEmpty())
            written[ForcedByKey] = entry.forcedBy.toStdString();
    }
    // Indented: the operator may read it (or, carefully, edit it) by hand.
    const json root{{"version", Version}, {"adapters", std::move(adapters)}};
    return QByteArray::fromStdString(root.dump(2)) + '\n';
}

bool AdapterOverridesFile::parse(const QByteArray& contents, Overrides* overrides, QString* error)
{
    overrides->clear();
    const BoundedJson::Result<json> file = BoundedJson::parse(contents, BoundedJson::Limits::record());
    if (!file.ok) {
        *error = QStringLiteral("it is not JSON (%1)").arg(QString::fromStdString(file.error));
        return false;
    }
    const json& root = file.value;
    if (!root.is_object()) {
        *error = QStringLiteral("it is not a JSON object");
        return false;
    }
    const auto version = root.find("version");
    if (version == root.end() || !version->is_number_integer() || version->get<qint64>() != Version) {
        *error = QStringLiteral("its version is not %1").arg(Version);
        return false;
    }
    const auto adapters = root.find("adapters");
    if (adapters == root.end() || !adapters->is_object()) {
        *error = QStringLiteral("\"adapters\" is not an object");
        return false;
    }
    Overrides parsed;
    for (auto it = adapters->begin(); it != adapters->end(); ++it) {
        const QString name = QString::fromStdString(it.key());
        if (!AdapterConfig::isValidName(name)) {
            *error = QStringLiteral("\"%1\" cannot name an adapter").arg(name.left(80));
            return false;
        }
        const json& value = it.value();
        bool enabled = true;
        Override entry;
        if (!value.is_object() || !readFlag(value, EnabledKey, true, &enabled)
            || !readFlag(value, ForcedOpenKey, false, &entry.forcedOpen)) {
            *error = QStringLiteral("the entry of adapter %1 is not an object with boolean \"%2\" and \"%3\"")
                         .arg(name, QLatin1String(EnabledKey), QLatin1String(ForcedOpenKey));
            return false;
        }
        entry.disabled = !enabled;
        if (const auto changed = value.find(ChangedAtKey); changed != value.end() && changed->is_number_integer())
            entry.changedAtMs = changed->get<qint64>();
        if (const auto by = value.find(ForcedByKey); entry.forcedOpen && by != value.end() && by->is_string())
            entry.forcedBy = QString::fromStdString(by->get<std::string>()).left(200);
        if (!entry.isEmpty())
            parsed.emplace(name, entry);
    }
    *overrides = std::move(parsed);
    return true;
}

AdapterOverridesFile::ReadStatus AdapterOverridesFile::readLocked(
    Overrides* overrides, QByteArray* contents, QString* message) const
{
    overrides->clear();
    QString problem;
    switch (WorkspaceStateFile::read(m_path, MaxFileBytes, contents, &problem)) {
    case WorkspaceStateFile::ReadStatus::Missing:
        return ReadStatus::Missing;
    case WorkspaceStateFile::ReadStatus::Read:
        if (parse(*contents, overrides, &problem))
            return ReadStatus::Read;
        problem = QStringLiteral("%1 cannot be used: %2").arg(m_path, problem);
        break;
    case WorkspaceStateFile::ReadStatus::Unreadable:
        break;
    }
    // Kept for the operator, never overwritten; what it said is lost to Switchboard, so everyone on
    // this state directory goes on without overrides rather than guessing.
    QString moveError;
    const QString aside = WorkspaceStateFile::setAside(m_path, &moveError);
    if (aside.isEmpty()) {
        *message = QStringLiteral("the adapter overrides cannot be read (%1) and cannot be moved aside (%2)")
                       .arg(problem, moveError);
        return ReadStatus::Failed;
    }
    *message = QStringLiteral("the adapter overrides could not be read (%1); the file was kept as %2 and no adapter "
                              "is disabled or forced open by the operator now")
                   .arg(problem, aside);
    return ReadStatus::SetAside;
}

AdapterOverridesFile::ReadStatus AdapterOverridesFile::read(Overrides* overrides, QString* message) const
{
    overrides->clear();
    QByteArray contents;
    QString problem;
    const WorkspaceStateFile::ReadStatus status = WorkspaceStateFile::read(m_path, MaxFileBytes, &contents, &problem);
    if (status == WorkspaceStateFile::ReadStatus::Missing)
        return ReadStatus::Missing;
    if (status == WorkspaceStateFile::ReadStatus::Read && parse(contents, overrides, &problem))
        return ReadStatus::Read;
    // Set aside under the lock, and only after reading it again there: a writer may have replaced it
    // meanwhile, and another reader may be setting it aside too.
    QString lockError;
    const std::optional<StateFileLock> lock = StateFileLock::acquire(
        StateFileLock::lockPathFor(m_path), m_lockTimeout, &lockError, QStringLiteral("the adapter overrides"));
    if (!lock) {
        *message = QStringLiteral("the adapter overrides %1 cannot be read (%2), and were not set aside: %3")
                       .arg(m_path, problem, lockError);
        return ReadStatus::Failed;
    }
    return readLocked(overrides, &contents, message);
}

bool AdapterOverridesFile::change(const QString& adapter, Change change, qint64 nowMs, Overrides* after, QString* error,
    QString* notice, const QString& by) const
{
    // A name parse() refuses would make every process set the file aside.
    if (!AdapterConfig::isValidName(adapter)) {
        *error = QStringLiteral("cannot write %1: \"%2\" cannot name an adapter").arg(m_path, adapter.left(80));
        return false;
    }
    // Between reading the file and renaming the result over it no other process may write, or the
    // entry it changed meanwhile would be lost.
    QString lockError;
    const std::optional<StateFileLock> lock = StateFileLock::acquire(
        StateFileLock::lockPathFor(m_path), m_lockTimeout, &lockError, QStringLiteral("the adapter overrides"));
    if (!lock) {
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, lockError);
        return false;
    }
    Overrides overrides;
    QByteArray before;
    QString message;
    const ReadStatus status = readLocked(&overrides, &before, &message);
    switch (status) {
    case ReadStatus::Failed:
        *error = QStringLiteral("cannot write %1: %2").arg(m_path, message);
        return false;
    case ReadStatus::SetAside:
        if (notice)
            *notice = message;
        break;
    case ReadStatus::Read:
    case ReadStatus::Missing:
        break;
    }
    Override entry = overrides.count(adapter) ? overrides.at(adapter) : Override();
    const Override previous = entry;
    switch (change) {
    case Change::Disable:
        entry.disabled = true;
        break;
    case Change::Enable:
        entry.disabled = false;
        break;
    case Change::ForceOpen:
        if (!entry.forcedOpen)
            entry.forcedBy = by;
        entry.forcedOpen = true;
        break;
    case Change::Reset:
        entry.forcedOpen = false;
        entry.forcedBy.clear();
        break;
    }
    if (!entry.sameAs(previous))
        entry.changedAtMs = nowMs;
    if (entry.isEmpty())
        overrides.erase(adapter);
    else
        overrides[adapter] = entry;
    // Unchanged (the same command twice, a reset of a breaker that was not forced open): no write; nor
    // a file of no entries where there is none.
    const QByteArray contents = toBytes(overrides);
    const bool needsWrite = status == ReadStatus::Read ? contents != before : !overrides.empty();
    if (needsWrite && !WorkspaceStateFile::write(m_path, contents, error))
        return false;
    *after = std::move(overrides);
    return true;
}
