#include "store/sqlitehistory.h"

#include "store/statedirectory.h"
#include "store/writerlock.h"

#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>

namespace {

const char* const columns = "id, session, client_name, client_version, tool, route, request, response, error, "
                            "started_at, duration_us, status, details, decision, replay_of, timeline, waited_us";

// The same columns with request and response cut to `previewBytes` in SQLite, followed by their
// whole lengths, so the bodies past the preview are never read. Details are JSON, which a cut would
// break: they come whole when they fit the preview and not at all otherwise.
// Both end with the whole sizes of a call whose bodies history keeps only the start of
// (HistoryWriter::keptPart): request_bytes and response_bytes, null for a whole call.
QString columnsFor(qsizetype previewBytes)
{
    if (previewBytes <= 0)
        return QLatin1String(columns) + QStringLiteral(", request_bytes, response_bytes");
    // waited_us last, as it was added last (readCall reads it by position).
    return QStringLiteral(
        "id, session, client_name, client_version, tool, route, substr(request, 1, %1), "
        "substr(response, 1, %1), error, started_at, duration_us, status, "
        "CASE WHEN length(details) <= %1 THEN details ELSE NULL END, decision, replay_of, "
        "CASE WHEN length(timeline) <= %1 THEN timeline ELSE NULL END, length(request), "
        "length(response), length(details), length(timeline), request_bytes, response_bytes, waited_us")
        .arg(previewBytes);
}

// What a row holds, for history's bound in bytes: its bodies and texts, and a little for the rest.
qint64 rowBytes(const ToolCall& call)
{
    return 256 + call.request.size() + call.response.size() + call.details.size() + call.decision.size()
        + call.timeline.size()
        + 2
        * (call.sessionId.size() + call.clientName.size() + call.clientVersion.size() + call.tool.size()
            + call.error.size());
}

ToolCall readCall(const QSqlQuery& q, qsizetype previewBytes)
{
    ToolCall call;
    call.id = q.value(0).toLongLong();
    call.sessionId = q.value(1).toString();
    call.clientName = q.value(2).toString();
    call.clientVersion = q.value(3).toString();
    call.tool = q.value(4).toString();
    call.route = ToolRoute::fromString(q.value(5).toString());
    call.request = q.value(6).toByteArray();
    call.response = q.value(7).toByteArray();
    call.error = q.value(8).toString();
    call.startedAtMs = q.value(9).toLongLong();
    call.durationUs = q.value(10).toLongLong();
    if (!callStatusFromName(q.value(11).toString(), &call.status))
        call.status = CallStatus::Error;
    // Versions before "parked" recorded a call that stopped waiting as paused, with its duration:
    // such a row is over and reads back as what it was.
    if (call.status == CallStatus::Paused && call.durationUs >= 0)
        call.status = CallStatus::Parked;
    call.details = q.value(12).toByteArray();
    call.decision = q.value(13).toByteArray();
    call.replayOf = q.value(14).toLongLong();
    call.timeline = q.value(15).toByteArray();
    call.waitedUs = q.value(previewBytes > 0 ? 22 : 16).toLongLong(); // null (0) in rows before it
    const int stored = previewBytes > 0 ? 20 : 17; // request_bytes, response_bytes
    const bool keptInPart = !q.value(stored).isNull();
    if (previewBytes > 0) {
        const qint64 requestBytes = keptInPart ? q.value(stored).toLongLong() : q.value(16).toLongLong();
        const qint64 responseBytes = keptInPart ? q.value(stored + 1).toLongLong() : q.value(17).toLongLong();
        const qint64 detailsBytes = q.value(18).toLongLong();
        const qint64 timelineBytes = q.value(19).toLongLong();
        if (keptInPart || requestBytes > call.request.size() || responseBytes > call.response.size()
            || detailsBytes > call.details.size() || timelineBytes > call.timeline.size()) {
            call.wholeRequestBytes = requestBytes;
            call.wholeResponseBytes = responseBytes;
        }
    } else if (keptInPart) {
        call.wholeRequestBytes = q.value(stored).toLongLong();
        call.wholeResponseBytes = q.value(stored + 1).toLongLong();
    }
    return call;
}

// `text` as a LIKE pattern that matches it whole (ESCAPE '\\'): LIKE without wildcards is equality
// with ASCII letters compared without case, as CallSearch::sameName.
QString escapeLikeExact(QString text)
{
    text.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    text.replace(QLatin1Char('%'), QStringLiteral("\\%"));
    text.replace(QLatin1Char('_'), QStringLiteral("\\_"));
    return text;
}

QString escapeLike(const QString& text)
{
    return QLatin1Char('%') + escapeLikeExact(text) + QLatin1Char('%');
}

// The SQL for "the status read back (readCall) is one of `statuses`": rows that older versions wrote
// as paused with a duration read back as parked.
QString statusCondition(const QList<CallStatus>& statuses, QVariantList* bindings)
{
    QStringList names;
    QStringList alternatives;
    for (CallStatus status : statuses) {
        if (status == CallStatus::Paused) {
            alternatives << QStringLiteral("(status = 'paused' AND duration_us < 0)");
        } else {
            if (status == CallStatus::Parked)
                alternatives << QStringLiteral("(status = 'paused' AND duration_us >= 0)");
            names << QStringLiteral("?");
            *bindings << callStatusName(status);
        }
    }
    if (!names.isEmpty())
        alternatives.prepend(QStringLiteral("status IN (") + names.join(QLatin1Char(',')) + QLatin1Char(')'));
    return QLatin1Char('(') + alternatives.join(QStringLiteral(" OR ")) + QLatin1Char(')');
}

} // namespace

HistoryDatabase::~HistoryDatabase() = default;

SqliteHistory::SqliteHistory(QString databasePath)
    : m_path(std::move(databasePath))
    , m_connectionName(QStringLiteral("history-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{}

SqliteHistory::~SqliteHistory()
{
    m_insert.reset();
    if (m_db.isOpen())
        m_db.close();
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

bool SqliteHistory::makeOwnerOnly(const QString& path, QString* error)
{
    constexpr auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    QFile database(path);
    if (!database.exists() && !database.open(QIODevice::WriteOnly | QIODevice::NewOnly, ownerOnly)
        && !database.exists()) {
        *error = QStringLiteral("cannot create history %1: %2").arg(path, database.errorString());
        return false;
    }
    database.close();
    // SQLite makes its -wal and -shm files with the database's mode itself (fchmod on the file it
    // opened, so no one can come between). Files an older version left more open are tightened
    // here, by name and never by opening them (closing a descriptor of a file would drop this
    // process's SQLite locks on it); but another process's last connection removes both at any
    // moment, and one that is gone needs nothing: its next one is made with the database's mode.
    for (const QString& name : QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")}) {
        const QByteArray encoded = QFile::encodeName(name);
        const bool mayVanish = name != path;
        struct stat file = {};
        if (::stat(encoded.constData(), &file) == 0) {
            if ((file.st_mode & 07777) == 0600 || ::chmod(encoded.constData(), 0600) == 0)
                continue;
        }
        if (errno == ENOENT && mayVanish)
            continue;
        *error
            = QStringLiteral("cannot make %1 owner-only: %2").arg(name, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

bool SqliteHistory::open(Role role, QString* error)
{
    if (role == Role::Writer) {
        const QString directory = QFileInfo(m_path).absolutePath();
        if (!QFileInfo::exists(directory) && !StateDirectory::prepare(directory, error))
            return false;
        if (!makeOwnerOnly(m_path, error))
            return false;
        // Held while this writer lives: other writers of this history see its running calls run.
        m_writerLock = WriterLock::claim(writersDirectory(), error);
        if (!m_writerLock)
            return false;
    }
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    m_db.setDatabaseName(m_path);
    // A search and a write can meet while SQLite checkpoints the WAL; wait rather than fail.
    m_db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!m_db.open()) {
        *error = QStringLiteral("cannot open history %1: %2").arg(m_path, m_db.lastError().text());
        return false;
    }
    QSqlQuery q(m_db);
    // Outside any transaction (journal_mode cannot change inside one).
    const QStringList settings = {
        QStringLiteral("PRAGMA journal_mode=WAL"),
        // With WAL, NORMAL loses no committed transaction when the process is killed (the kernel
        // keeps what was written); only a power cut can take back the newest commits.
        QStringLiteral("PRAGMA synchronous=NORMAL"),
    };
    for (const QString& setting : settings) {
        if (!q.exec(setting)) {
            *error = QStringLiteral("cannot prepare history %1: %2").arg(m_path, q.lastError().text());
            return false;
        }
    }
    if (role == Role::Writer && !prepareSchema(error))
        return false;
    if (q.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'calls_left_out'")) && q.next())
        m_callsLeftOut = q.value(0).toLongLong();
    q.finish();
    if (role == Role::Writer) {
        if (!markInterruptedCalls(error))
            return false;
        m_insert.emplace(m_db);
        if (!m_insert->prepare(
                QStringLiteral("INSERT OR REPLACE INTO calls (%1, writer, request_bytes, response_bytes, "
                               "bytes) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
                    .arg(QLatin1String(columns)))) {
            *error = QStringLiteral("cannot prepare history %1: %2").arg(m_path, m_insert->lastError().text());
            return false;
        }
    }
    return true;
}

bool SqliteHistory::rolledBack(const QString& doing, const QSqlQuery& failed, QString* error)
{
    *error = QStringLiteral("cannot %1 %2: %3").arg(doing, m_path, failed.lastError().text());
    QSqlQuery(m_db).exec(QStringLiteral("ROLLBACK"));
    return false;
}

bool SqliteHistory::prepareSchema(QString* error)
{
    QSqlQuery q(m_db);
    const auto fail
        = [&](const QSqlQuery& failed) { return rolledBack(QStringLiteral("prepare history"), failed, error); };
    // One writer at a time (BEGIN IMMEDIATE takes SQLite's write lock, the busy timeout waits for
    // it): writers starting together on a new history would otherwise each add the columns they
    // found missing, and all but the first fail on a column that exists.
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE")))
        return fail(q);
    QStringList existingColumns;
    if (q.exec(QStringLiteral("PRAGMA table_info(calls)"))) {
        while (q.next())
            existingColumns += q.value(1).toString();
    }
    q.finish();
    const QStringList statements = {
        QStringLiteral("CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY, session TEXT, client_name TEXT, "
                       "client_version TEXT, tool TEXT, route TEXT, request BLOB, response BLOB, error TEXT, "
                       "started_at INTEGER, duration_us INTEGER, status TEXT)"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS calls_status ON calls(status)"),
        // A history written before calls carried these gains the columns (empty for its calls).
        QStringLiteral("ALTER TABLE calls ADD COLUMN details BLOB"),
        QStringLiteral("ALTER TABLE calls ADD COLUMN decision BLOB"),
        QStringLiteral("ALTER TABLE calls ADD COLUMN replay_of INTEGER"),
        QStringLiteral("ALTER TABLE calls ADD COLUMN timeline BLOB"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER)"),
        QStringLiteral("CREATE TABLE IF NOT EXISTS breaker_transitions (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                       "adapter TEXT, from_phase TEXT, to_phase TEXT, reason TEXT, at_ms INTEGER, call_id INTEGER)"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS breaker_transitions_adapter ON breaker_transitions(adapter)"),
        // Which writer wrote a row (WriterLock's id), so that only calls whose writer is gone are
        // marked interrupted; null in rows of versions before it.
        QStringLiteral("ALTER TABLE calls ADD COLUMN writer INTEGER"),
        // The whole sizes of a request and response history keeps only the start of (null when
        // whole), and what each row holds in bytes (rowBytes), with an index of its own so that
        // history's size is summed without reading the rows.
        QStringLiteral("ALTER TABLE calls ADD COLUMN request_bytes INTEGER"),
        QStringLiteral("ALTER TABLE calls ADD COLUMN response_bytes INTEGER"),
        QStringLiteral("ALTER TABLE calls ADD COLUMN bytes INTEGER"),
        QStringLiteral("CREATE INDEX IF NOT EXISTS calls_bytes ON calls(id, bytes)"),
        // Of duration_us, the time the call waited for a person (null in rows before it).
        QStringLiteral("ALTER TABLE calls ADD COLUMN waited_us INTEGER"),
    };
    const QLatin1String addColumn("ALTER TABLE calls ADD COLUMN ");
    for (const QString& statement : statements) {
        if (statement.startsWith(addColumn)
            && existingColumns.contains(statement.mid(addColumn.size()).section(QLatin1Char(' '), 0, 0)))
            continue;
        if (!q.exec(statement))
            return fail(q);
    }
    if (!existingColumns.isEmpty() && !existingColumns.contains(QStringLiteral("bytes"))) {
        // Rows of a version before the count (once): counted as rowBytes counts, and the history
        // pruned to the bound it may have grown past.
        if (!q.exec(QStringLiteral(
                "UPDATE calls SET bytes = 256 + COALESCE(length(request), 0) + COALESCE(length(response), 0) + "
                "COALESCE(length(details), 0) + COALESCE(length(decision), 0) + COALESCE(length(timeline), 0) + 2 * "
                "(COALESCE(length(session), 0) + COALESCE(length(client_name), 0) + "
                "COALESCE(length(client_version), 0) + COALESCE(length(tool), 0) + COALESCE(length(error), 0))")))
            return fail(q);
        pruneBytes();
    }
    if (!q.exec(QStringLiteral("COMMIT")))
        return fail(q);
    return true;
}

QString SqliteHistory::writersDirectory() const
{
    return m_path + QStringLiteral("-writers");
}

bool SqliteHistory::markInterruptedCalls(QString* error)
{
    // Calls a killed process left running did not finish: they say so rather than show as running.
    // Only those whose writer is gone: other processes sharing this history (runners, a second
    // console) are running theirs now.
    QSqlQuery q(m_db);
    if (!q.exec(QStringLiteral("SELECT DISTINCT writer FROM calls WHERE status = 'running'"))) {
        *error = QStringLiteral("cannot prepare history %1: %2").arg(m_path, q.lastError().text());
        return false;
    }
    QStringList gone;
    while (q.next()) {
        if (q.value(0).isNull())
            gone << QStringLiteral("writer IS NULL"); // written by a version before writer ids
        else if (const qint64 writer = q.value(0).toLongLong(); !WriterLock::isHeld(writersDirectory(), writer))
            gone << QStringLiteral("writer = %1").arg(writer);
    }
    q.finish();
    if (!gone.isEmpty()
        && !q.exec(QStringLiteral("UPDATE calls SET status = 'error', error = 'interrupted: Switchboard stopped before "
                                  "the call finished' WHERE status = 'running' AND (%1)")
                       .arg(gone.join(QStringLiteral(" OR "))))) {
        *error = QStringLiteral("cannot prepare history %1: %2").arg(m_path, q.lastError().text());
        return false;
    }
    WriterLock::sweep(writersDirectory()); // the files of writers that ended without calls running
    return true;
}

bool SqliteHistory::writeTransitions(const BreakerTransitionList& transitions, QString* error)
{
    if (transitions.isEmpty())
        return true;
    if (!m_db.isOpen() || !m_db.transaction()) {
        *error = QStringLiteral("cannot write breaker transitions: %1").arg(m_db.lastError().text());
        return false;
    }
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO breaker_transitions (adapter, from_phase, to_phase, reason, at_ms, call_id) "
                             "VALUES (?,?,?,?,?,?)"));
    for (const BreakerTransitionRecord& transition : transitions) {
        q.bindValue(0, transition.adapter);
        q.bindValue(1, breakerPhaseName(transition.from));
        q.bindValue(2, breakerPhaseName(transition.to));
        q.bindValue(3, transition.reason);
        q.bindValue(4, transition.atMs);
        q.bindValue(5, transition.callId);
        if (!q.exec()) {
            *error = QStringLiteral("cannot write breaker transitions: %1").arg(q.lastError().text());
            m_db.rollback();
            return false;
        }
    }
    QSqlQuery prune(m_db);
    if (!prune.exec(QStringLiteral("DELETE FROM breaker_transitions WHERE id <= (SELECT MAX(id) FROM "
                                   "breaker_transitions) - %1")
                        .arg(MaxTransitions))
        || !m_db.commit()) {
        *error = QStringLiteral("cannot write breaker transitions: %1").arg(m_db.lastError().text());
        m_db.rollback();
        return false;
    }
    return true;
}

BreakerTransitionList SqliteHistory::loadTransitions(const QString& adapter, int limit)
{
    BreakerTransitionList transitions;
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT adapter, from_phase, to_phase, reason, at_ms, call_id FROM breaker_transitions "
                             "%1 ORDER BY id DESC LIMIT ?")
                  .arg(adapter.isEmpty() ? QString() : QStringLiteral("WHERE adapter = ?")));
    if (!adapter.isEmpty())
        q.addBindValue(adapter);
    q.addBindValue(std::max(0, limit));
    if (!q.exec())
        return transitions;
    const auto phase = [](const QString& name) { return breakerPhaseFromName(name).value_or(BreakerPhase::Closed); };
    while (q.next()) {
        transitions.prepend(BreakerTransitionRecord{q.value(0).toString(), phase(q.value(1).toString()),
            phase(q.value(2).toString()), q.value(3).toString(), q.value(4).toLongLong(), q.value(5).toLongLong()});
    }
    return transitions;
}

bool SqliteHistory::limitDatabasePages(qint64 pages)
{
    QSqlQuery q(m_db);
    return q.exec(QStringLiteral("PRAGMA max_page_count = %1").arg(pages > 0 ? pages : qint64(1073741823)));
}

bool SqliteHistory::write(const ToolCallList& calls, qint64 leftOut, QString* error)
{
    if (calls.isEmpty() && leftOut == 0)
        return true;
    if (!m_db.isOpen() || !m_insert) {
        *error = QStringLiteral("history database is not open for writing");
        return false;
    }
    if (!m_db.transaction()) {
        *error = QStringLiteral("cannot write call history: %1").arg(m_db.lastError().text());
        return false;
    }
    QSqlQuery& q = *m_insert;
    qint64 uncountedCalls = 0;
    qint64 uncountedBytes = 0;
    for (const ToolCall& call : calls) {
        q.bindValue(0, call.id);
        q.bindValue(1, call.sessionId);
        q.bindValue(2, call.clientName);
        q.bindValue(3, call.clientVersion);
        q.bindValue(4, call.tool);
        q.bindValue(5, call.route.toString());
        q.bindValue(6, call.request);
        q.bindValue(7, call.response);
        q.bindValue(8, call.error);
        q.bindValue(9, call.startedAtMs);
        q.bindValue(10, call.durationUs);
        q.bindValue(11, callStatusName(call.status));
        q.bindValue(12, call.details.isEmpty() ? QVariant() : QVariant(call.details));
        q.bindValue(13, call.decision.isEmpty() ? QVariant() : QVariant(call.decision));
        q.bindValue(14, call.replayOf == 0 ? QVariant() : QVariant(call.replayOf));
        q.bindValue(15, call.timeline.isEmpty() ? QVariant() : QVariant(call.timeline));
        q.bindValue(16, call.waitedUs);
        q.bindValue(17, m_writerLock->id());
        q.bindValue(18, call.hasBodyPreviews() ? QVariant(call.wholeRequestBytes) : QVariant());
        q.bindValue(19, call.hasBodyPreviews() ? QVariant(call.wholeResponseBytes) : QVariant());
        const qint64 bytes = rowBytes(call);
        q.bindValue(20, bytes);
        if (!q.exec()) {
            *error = QStringLiteral("cannot write call history: %1").arg(q.lastError().text());
            m_db.rollback();
            return false;
        }
        ++uncountedCalls;
        uncountedBytes += bytes;
        // Within the transaction, so that a burst of large calls never grows the file far past the
        // bound: the pages of the calls that go are used again at once.
        if (uncountedBytes >= m_maxBytes / 32) {
            countWritten(uncountedCalls, uncountedBytes);
            uncountedCalls = 0;
            uncountedBytes = 0;
        }
    }
    countWritten(uncountedCalls, uncountedBytes);
    if (leftOut != 0) {
        QSqlQuery count(m_db);
        count.prepare(QStringLiteral("INSERT INTO meta (key, value) VALUES ('calls_left_out', ?) "
                                     "ON CONFLICT(key) DO UPDATE SET value = value + excluded.value"));
        count.bindValue(0, leftOut);
        if (!count.exec()) {
            *error = QStringLiteral("cannot write call history: %1").arg(count.lastError().text());
            m_db.rollback();
            return false;
        }
    }
    if (!m_db.commit()) {
        *error = QStringLiteral("cannot write call history: %1").arg(m_db.lastError().text());
        m_db.rollback();
        return false;
    }
    m_callsLeftOut += leftOut;
    return true;
}

void SqliteHistory::countWritten(qint64 calls, qint64 bytes)
{
    if (calls == 0 && bytes == 0)
        return;
    // Shared by every process that writes this history (a runner writes one call and ends), so the
    // bounds hold whoever writes.
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO meta (key, value) VALUES ('written_calls', ?), ('written_bytes', ?) "
                             "ON CONFLICT(key) DO UPDATE SET value = value + excluded.value"));
    q.bindValue(0, calls);
    q.bindValue(1, bytes);
    if (!q.exec())
        return;
    qint64 writtenCalls = 0;
    qint64 writtenBytes = 0;
    if (!q.exec(QStringLiteral("SELECT key, value FROM meta WHERE key IN ('written_calls', 'written_bytes')")))
        return;
    while (q.next())
        (q.value(0).toString() == QLatin1String("written_calls") ? writtenCalls : writtenBytes)
            = q.value(1).toLongLong();
    q.finish();
    if (writtenCalls >= 10'000) {
        prune();
        q.exec(QStringLiteral("UPDATE meta SET value = 0 WHERE key = 'written_calls'"));
    }
    if (writtenBytes >= m_maxBytes / 32) {
        pruneBytes();
        q.exec(QStringLiteral("UPDATE meta SET value = 0 WHERE key = 'written_bytes'"));
    }
}

void SqliteHistory::prune()
{
    // Ids have gaps (each writer reserves blocks), so the newest m_maxCalls are counted, not
    // computed from the largest id.
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM calls WHERE id < (SELECT id FROM calls ORDER BY id DESC LIMIT 1 OFFSET ?)"));
    q.bindValue(0, m_maxCalls - 1);
    if (q.exec())
        m_callsPruned += std::max(0, q.numRowsAffected());
}

void SqliteHistory::pruneBytes()
{
    // Read from the index of (id, bytes) alone, never from the rows and their bodies.
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT SUM(bytes) FROM calls")) || !q.next())
        return;
    const qint64 total = q.value(0).toLongLong();
    q.finish();
    // Looked at every thirty-second of the bound written, and the row that crossed it may add up
    // to about 1 MiB (HistoryWriter::keptPart), a sixteenth of the smallest bound (16 MiB): until
    // the next look the total grows by at most three thirty-seconds. So past thirteen sixteenths
    // the oldest calls go, down to three quarters, and the bound itself is never passed. (Before,
    // a look at fifteen sixteenths and more pruned nothing, and the next sixteenth went past it.)
    if (total <= m_maxBytes / 16 * 13)
        return;
    const qint64 excess = total - m_maxBytes / 4 * 3;
    if (!q.exec(QStringLiteral("SELECT id, bytes FROM calls ORDER BY id")))
        return;
    qint64 freed = 0;
    qint64 lastGone = 0;
    while (freed < excess && q.next()) {
        lastGone = q.value(0).toLongLong();
        freed += q.value(1).toLongLong();
    }
    q.finish();
    QSqlQuery prune(m_db);
    prune.prepare(QStringLiteral("DELETE FROM calls WHERE id <= ?"));
    prune.bindValue(0, lastGone);
    if (prune.exec())
        m_callsPruned += std::max(0, prune.numRowsAffected());
}

ToolCallList SqliteHistory::runSelect(const QString& sql, const QVariantList& bindings, qsizetype previewBytes)
{
    ToolCallList calls;
    if (!m_db.isOpen())
        return calls;
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(sql);
    for (int i = 0; i < bindings.size(); ++i)
        q.bindValue(i, bindings.at(i));
    if (!q.exec())
        return calls;
    while (q.next())
        calls.append(readCall(q, previewBytes));
    return calls;
}

HistoryDatabase::Page SqliteHistory::loadRecent(int limit, qsizetype bodyPreviewBytes)
{
    Page page;
    page.calls
        = runSelect(QStringLiteral("SELECT %1 FROM calls ORDER BY id DESC LIMIT ?").arg(columnsFor(bodyPreviewBytes)),
            {limit + 1}, bodyPreviewBytes);
    page.hasMore = page.calls.size() > limit;
    if (page.hasMore)
        page.calls.removeLast();
    std::reverse(page.calls.begin(), page.calls.end());
    return page;
}

QString SqliteHistory::whereFor(const HistoryQuery& query, QVariantList* bindings)
{
    QStringList where;
    if (query.beforeId > 0) {
        where << QStringLiteral("id < ?");
        *bindings << query.beforeId;
    }
    if (query.callId > 0) {
        where << QStringLiteral("id = ?");
        *bindings << query.callId;
    }
    const CallSearch& search = query.search;
    if (!search.statuses.isEmpty())
        where << statusCondition(search.statuses, bindings);
    if (!search.adapter.isEmpty()) {
        where << QStringLiteral("route = ?");
        *bindings << ToolRoute{RouteKind::Adapter, search.adapter}.toString();
    }
    // The whole tool or client name (tool:NAME, client:NAME).
    for (const QString& tool : search.tools) {
        where << QStringLiteral("tool LIKE ? ESCAPE '\\'");
        *bindings << escapeLikeExact(tool);
    }
    for (const QString& client : search.clients) {
        where << QStringLiteral("client_name LIKE ? ESCAPE '\\'");
        *bindings << escapeLikeExact(client);
    }
    // CallSearch::matches, field for field: each word in any of the call's fields, or in its
    // status's name or label (which are not stored, so the statuses whose words match are listed).
    for (const QString& word : search.words) {
        QStringList fields;
        for (const char* field : {"tool", "client_name", "client_version", "route", "session", "error"}) {
            fields << QLatin1String(field) + QStringLiteral(" LIKE ? ESCAPE '\\'");
            *bindings << escapeLike(word);
        }
        fields << QStringLiteral("CAST(request AS TEXT) LIKE ? ESCAPE '\\'");
        *bindings << escapeLike(word);
        const QList<CallStatus> statuses = CallSearch::statusesMatching(word);
        if (!statuses.isEmpty())
            fields << statusCondition(statuses, bindings);
        where << QLatin1Char('(') + fields.join(QStringLiteral(" OR ")) + QLatin1Char(')');
    }
    return where.isEmpty() ? QString() : QStringLiteral("WHERE ") + where.join(QStringLiteral(" AND "));
}

HistoryDatabase::Page SqliteHistory::query(const HistoryQuery& query)
{
    QVariantList bindings;
    const QString where = whereFor(query, &bindings);
    const int limit = qBound(1, query.limit, 5000);
    bindings << limit + 1;
    const QString sql = QStringLiteral("SELECT %1 FROM calls %2 ORDER BY id DESC LIMIT ?")
                            .arg(columnsFor(query.bodyPreviewBytes), where);
    Page page;
    page.calls = runSelect(sql, bindings, query.bodyPreviewBytes);
    page.hasMore = page.calls.size() > limit;
    if (page.hasMore)
        page.calls.removeLast();
    return page;
}

qint64 SqliteHistory::count(const HistoryQuery& query)
{
    if (!m_db.isOpen())
        return -1;
    QVariantList bindings;
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT COUNT(*) FROM calls ") + whereFor(query, &bindings));
    for (int i = 0; i < bindings.size(); ++i)
        q.bindValue(i, bindings.at(i));
    if (!q.exec() || !q.next())
        return -1;
    return q.value(0).toLongLong();
}

bool SqliteHistory::reserveCallIds(qint64 count, qint64* first, QString* error)
{
    if (!m_db.isOpen()) {
        *error = QStringLiteral("history database is not open");
        return false;
    }
    // BEGIN IMMEDIATE takes the write lock before reading, so two processes reserving at once are
    // serialised by SQLite (the busy timeout waits) instead of both reading the same next id. The
    // next id never falls below the largest id written, whoever wrote it.
    QSqlQuery q(m_db);
    const auto fail
        = [&](const QSqlQuery& failed) { return rolledBack(QStringLiteral("reserve call ids in"), failed, error); };
    if (!q.exec(QStringLiteral("BEGIN IMMEDIATE")))
        return fail(q);
    if (!q.exec(QStringLiteral("INSERT INTO meta (key, value) SELECT 'next_call_id', COALESCE(MAX(id), 0) + 1 FROM "
                               "calls WHERE true ON CONFLICT(key) DO UPDATE SET value = MAX(value, excluded.value)")))
        return fail(q);
    if (!q.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'next_call_id'")) || !q.next())
        return fail(q);
    const qint64 next = q.value(0).toLongLong();
    q.finish();
    QSqlQuery update(m_db);
    update.prepare(QStringLiteral("UPDATE meta SET value = value + ? WHERE key = 'next_call_id'"));
    update.bindValue(0, count);
    if (!update.exec())
        return fail(update);
    if (!q.exec(QStringLiteral("COMMIT")))
        return fail(q);
    *first = next;
    return true;
}
