#include "store/historywriter.h"

#include "protocol/jsonrpc.h"
#include "store/backgroundpriority.h"
#include "store/sqlitehistory.h"

#include <future>
#include <vector>

#ifdef Q_OS_LINUX
#include <pthread.h>
#endif

HistoryWriter::HistoryWriter(QString databasePath, qint64 maxCalls, HistoryWriterLimits limits, QObject* parent)
    : HistoryWriter(
        [path = std::move(databasePath)] { return std::make_unique<SqliteHistory>(path); }, maxCalls, limits, parent)
{}

HistoryWriter::HistoryWriter(
    HistoryDatabaseFactory factory, qint64 maxCalls, HistoryWriterLimits limits, QObject* parent)
    : QObject(parent)
    , m_factory(std::move(factory))
    , m_maxCalls(maxCalls)
    , m_limits(limits)
{
    qRegisterMetaType<ToolCallList>();
}

HistoryWriter::~HistoryWriter()
{
    stop();
}

bool HistoryWriter::start(QString* error)
{
    if (m_thread.joinable())
        return true;
    std::promise<bool> opened;
    std::future<bool> result = opened.get_future();
    m_thread = std::thread([this, error, &opened] {
        // Whatever the thread that started it runs at (the headless log runs at idle priority),
        // history is written at normal priority: a starved writer loses calls.
        BackgroundPriority::applyNormalToCurrentThread();
#ifdef Q_OS_LINUX
        pthread_setname_np(pthread_self(), "history-writer"); // as top and perf show it
#endif
        const std::unique_ptr<HistoryDatabase> database = m_factory();
        database->setMaxCalls(m_maxCalls);
        if (m_maxBytes > 0)
            database->setMaxBytes(m_maxBytes);
        const bool ok = database->open(HistoryDatabase::Role::Writer, error);
        if (ok)
            m_callsLeftOut = database->callsLeftOut();
        if (ok) {
            std::lock_guard lock(m_mutex);
            m_running = true;
        }
        opened.set_value(ok);
        if (ok)
            run(*database);
    });
    if (!result.get()) {
        m_thread.join();
        return false;
    }
    return true;
}

void HistoryWriter::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

qint64 HistoryWriter::sizeOf(const ToolCall& call)
{
    return 256 + call.request.size() + call.response.size() + call.details.size() + call.decision.size()
        + call.timeline.size()
        + 2
        * (call.sessionId.size() + call.clientName.size() + call.clientVersion.size() + call.tool.size()
            + call.route.owner.size() + call.error.size());
}

namespace {

QByteArray keptDetails(const QByteArray& details, qsizetype maxBytes)
{
    using nlohmann::json;
    const auto dumped = [](const json& value) {
        return QByteArray::fromStdString(value.dump(-1, ' ', false, json::error_handler_t::replace));
    };
    // The members stay (a command's exit status, its pid), long strings (its stdout, stderr, the
    // input in its envelope) keep their start. Walked without recursion.
    JsonRpc::ParseResult parsed = JsonRpc::parse(details);
    if (parsed.ok && parsed.value.is_object()) {
        const qsizetype perString = maxBytes / 8;
        std::vector<json*> pending{&parsed.value};
        while (!pending.empty()) {
            json* value = pending.back();
            pending.pop_back();
            if (value->is_string()) {
                std::string& text = value->get_ref<std::string&>();
                if (qsizetype(text.size()) > perString) {
                    const QByteArray start = ToolCall::utf8Start(QByteArray::fromStdString(text), perString);
                    text = start.toStdString()
                        + QStringLiteral("… [history keeps the first %1 of %2 bytes]")
                              .arg(start.size())
                              .arg(text.size())
                              .toStdString();
                }
            } else if (value->is_structured()) {
                for (json& item : *value)
                    pending.push_back(&item);
            }
        }
        QByteArray kept = dumped(parsed.value);
        if (kept.size() <= maxBytes)
            return kept;
    }
    // Too many members for that: what they were, and the start of their text. Escaping may make a
    // byte six, so the start is an eighth of the bound.
    return dumped(json{{"cut",
                           QStringLiteral("History keeps at most %1 bytes of a call's details; these were %2 bytes.")
                               .arg(maxBytes)
                               .arg(details.size())
                               .toStdString()},
        {"start", QString::fromUtf8(ToolCall::utf8Start(details, maxBytes / 8)).toStdString()}});
}

} // namespace

ToolCall HistoryWriter::keptPart(const ToolCall& call)
{
    const qsizetype max = MaxStoredBodyBytes;
    if (call.request.size() <= max && call.response.size() <= max && call.details.size() <= max)
        return call;
    ToolCall kept = call;
    // As a preview read from history says it: both whole sizes, whichever was cut.
    kept.wholeRequestBytes = call.hasBodyPreviews() ? call.wholeRequestBytes : call.request.size();
    kept.wholeResponseBytes = call.hasBodyPreviews() ? call.wholeResponseBytes : call.response.size();
    kept.request = ToolCall::utf8Start(call.request, max);
    kept.response = ToolCall::utf8Start(call.response, max);
    if (call.details.size() > max)
        kept.details = keptDetails(call.details, max);
    return kept;
}

void HistoryWriter::record(const ToolCall& whole)
{
    const ToolCall call = keptPart(whole);
    const qint64 bytes = sizeOf(call);
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_queueIndex.constFind(call.id);
        if (it != m_queueIndex.constEnd()) {
            ToolCall& queued = m_queue[*it];
            m_pendingBytes += bytes - sizeOf(queued);
            queued = call;
        } else {
            wake = m_queue.isEmpty();
            m_queueIndex.insert(call.id, m_queue.size());
            m_queue.append(call);
            ++m_pendingCalls;
            m_pendingBytes += bytes;
            // Enough for a full transaction: no need to wait for the batch window.
            wake = wake || m_queue.size() == m_limits.maxCallsPerTransaction;
        }
        if (m_pendingCalls > m_limits.maxQueuedCalls || m_pendingBytes > m_limits.maxQueuedBytes)
            m_hasRoom.store(false, std::memory_order_relaxed);
    }
    if (wake)
        m_wake.notify_one();
}

qsizetype HistoryWriter::queuedCalls() const
{
    std::lock_guard lock(m_mutex);
    return m_pendingCalls;
}

bool HistoryWriter::post(std::function<void(HistoryDatabase&)> task)
{
    {
        std::lock_guard lock(m_mutex);
        // A task given after the thread ended would never run (and whoever waits for it, never wake).
        if (!m_running)
            return false;
        m_tasks.push_back(std::move(task));
    }
    m_wake.notify_one();
    return true;
}

void HistoryWriter::recordTransition(const BreakerTransitionRecord& transition)
{
    bool first = false;
    {
        std::lock_guard lock(m_mutex);
        if (!m_running)
            return;
        if (m_transitions.size() >= MaxQueuedTransitions) {
            m_transitions.removeFirst();
            ++m_transitionsDropped;
        }
        m_transitions.append(transition);
        first = m_transitions.size() == 1;
    }
    if (!first)
        return; // the task already posted takes this one too
    post([this](HistoryDatabase& store) {
        BreakerTransitionList taken;
        qint64 dropped = 0;
        {
            std::lock_guard lock(m_mutex);
            taken = std::exchange(m_transitions, {});
            dropped = std::exchange(m_transitionsDropped, 0);
        }
        if (dropped > 0)
            qWarning("switchboard: %lld breaker transitions were not kept in history: they came faster than the "
                     "disk took them",
                static_cast<long long>(dropped));
        QString error;
        if (!store.writeTransitions(taken, &error))
            qWarning("switchboard: %d breaker transitions were not kept in history: %s", int(taken.size()),
                qPrintable(error));
    });
}

bool HistoryWriter::runOnWriterThread(const std::function<void(HistoryDatabase&)>& work)
{
    std::promise<void> done;
    std::future<void> finished = done.get_future();
    if (!post([&work, &done](HistoryDatabase& store) {
            work(store);
            done.set_value();
        }))
        return false;
    finished.wait();
    return true;
}

bool HistoryWriter::reserveCallIds(qint64 count, qint64* first, QString* error)
{
    bool ok = false;
    if (!runOnWriterThread([&](HistoryDatabase& database) { ok = database.reserveCallIds(count, first, error); }))
        *error = QStringLiteral("history is not open");
    return ok;
}

void HistoryWriter::reserveCallIdsLater(
    qint64 count, std::function<void(bool ok, qint64 first, const QString& error)> done)
{
    post([count, done = std::move(done)](HistoryDatabase& database) {
        qint64 first = 0;
        QString error;
        const bool ok = database.reserveCallIds(count, &first, &error);
        done(ok, first, error);
    });
}

void HistoryWriter::run(HistoryDatabase& store)
{
    const auto window = std::chrono::milliseconds(m_limits.batchWindowMs);
    std::unique_lock lock(m_mutex);
    for (;;) {
        const auto due
            = [this] { return m_stopping || !m_tasks.empty() || m_queue.size() >= m_limits.maxCallsPerTransaction; };
        if (!m_failing) {
            m_wake.wait(lock, [&] { return due() || !m_queue.isEmpty(); });
            // Let a batch gather, but never longer than the window: a kill loses at most that.
            m_wake.wait_for(lock, window, due);
        } else {
            // Take new calls into memory as they come, so the server never waits on a failed
            // disk; write again when the retry is due.
            m_wake.wait_until(lock, m_nextRetry, [&] { return due() || !m_queue.isEmpty(); });
        }
        if (!m_tasks.empty()) {
            const auto tasks = std::exchange(m_tasks, {});
            lock.unlock();
            for (const auto& task : tasks)
                task(store);
            lock.lock();
            continue;
        }
        const bool stopping = m_stopping;
        ToolCallList taken;
        taken.swap(m_queue);
        m_queueIndex.clear();
        lock.unlock();

        if (m_failing) {
            qint64 bytes = 0;
            for (const ToolCall& call : std::as_const(taken))
                bytes += sizeOf(call);
            const qsizetype count = taken.size();
            retain(std::move(taken));
            release(count, bytes);
            if (stopping || Clock::now() >= m_nextRetry)
                retryRetained(store);
        } else {
            writeTaken(store, std::move(taken));
        }
        if (const qint64 pruned = store.callsPruned(); pruned != m_prunedSeen) {
            m_prunedSeen = pruned;
            Q_EMIT callsPruned(pruned);
        }

        if (stopping) {
            if (m_failing) {
                // The disk never came back: what is still in memory is lost with the process.
                const qint64 lost = m_retained.size();
                m_retained.clear();
                m_retainedIndex.clear();
                addLeftOut(lost);
                QString error;
                if (store.write({}, m_leftOutUnsaved, &error))
                    m_leftOutUnsaved = 0;
                if (lost > 0)
                    Q_EMIT writeFailed(QStringLiteral("%1 calls could not be written to history before Switchboard "
                                                      "stopped and are not in it")
                                           .arg(lost));
            }
            lock.lock();
            if (m_queue.isEmpty() && m_tasks.empty()) {
                m_running = false;
                return;
            }
            continue;
        }
        lock.lock();
    }
}

void HistoryWriter::writeTaken(HistoryDatabase& store, ToolCallList taken)
{
    if (!m_leftOutRunning.isEmpty()) {
        // Calls whose start was left out while the disk failed and whose end is written now are
        // in history after all.
        qint64 keptAfterAll = 0;
        for (const ToolCall& call : std::as_const(taken)) {
            if (call.isFinished() && m_leftOutRunning.remove(call.id))
                ++keptAfterAll;
        }
        addLeftOut(-keptAfterAll);
    }
    const qsizetype chunkSize = m_limits.maxCallsPerTransaction;
    for (qsizetype start = 0; start < taken.size(); start += chunkSize) {
        const ToolCallList chunk = taken.mid(start, chunkSize);
        qint64 bytes = 0;
        for (const ToolCall& call : chunk)
            bytes += sizeOf(call);
        QString error;
        if (store.write(chunk, m_leftOutUnsaved, &error)) {
            m_leftOutUnsaved = 0;
            release(chunk.size(), bytes);
            continue;
        }
        m_failing = true;
        m_nextRetry = Clock::now() + std::chrono::milliseconds(m_limits.retryIntervalMs);
        Q_EMIT writeFailed(QStringLiteral("%1 (unwritten calls are kept in memory and written again every %2 s; "
                                          "beyond %3 calls, calls are left out of history and counted)")
                               .arg(error)
                               .arg(m_limits.retryIntervalMs / 1000.0)
                               .arg(m_limits.maxRetainedCalls));
        ToolCallList rest = taken.mid(start);
        qint64 restBytes = 0;
        for (const ToolCall& call : std::as_const(rest))
            restBytes += sizeOf(call);
        const qsizetype restCount = rest.size();
        retain(std::move(rest));
        release(restCount, restBytes);
        return;
    }
}

void HistoryWriter::retain(ToolCallList calls)
{
    qint64 leftOut = 0;
    for (ToolCall& call : calls) {
        const qint64 bytes = sizeOf(call);
        const auto it = m_retainedIndex.constFind(call.id);
        if (it != m_retainedIndex.constEnd()) {
            ToolCall& kept = m_retained[*it];
            m_retainedBytes += bytes - sizeOf(kept);
            kept = std::move(call);
            continue;
        }
        const bool unfinished = !call.isFinished();
        if (m_retained.size() >= m_limits.maxRetainedCalls || m_retainedBytes + bytes > m_limits.maxRetainedBytes) {
            // Left out. A call counts once, however many of its records are left out.
            if (m_leftOutRunning.contains(call.id)) {
                if (!unfinished)
                    m_leftOutRunning.remove(call.id);
            } else {
                ++leftOut;
                if (unfinished)
                    m_leftOutRunning.insert(call.id);
            }
            continue;
        }
        if (!unfinished && m_leftOutRunning.remove(call.id))
            --leftOut; // its start was left out, but its whole record is kept after all
        m_retainedIndex.insert(call.id, m_retained.size());
        m_retainedBytes += bytes;
        m_retained.append(std::move(call));
    }
    addLeftOut(leftOut);
}

void HistoryWriter::retryRetained(HistoryDatabase& store)
{
    const qsizetype chunkSize = m_limits.maxCallsPerTransaction;
    qsizetype written = 0;
    QString error;
    bool ok = true;
    while (written < m_retained.size() || m_leftOutUnsaved > 0) {
        const ToolCallList chunk = m_retained.mid(written, chunkSize);
        if (!store.write(chunk, m_leftOutUnsaved, &error)) {
            ok = false;
            break;
        }
        m_leftOutUnsaved = 0;
        written += chunk.size();
    }
    if (written > 0) {
        m_retained.remove(0, written);
        m_retainedIndex.clear();
        m_retainedBytes = 0;
        for (qsizetype i = 0; i < m_retained.size(); ++i) {
            m_retainedIndex.insert(m_retained.at(i).id, i);
            m_retainedBytes += sizeOf(m_retained.at(i));
        }
    }
    if (!ok) {
        m_nextRetry = Clock::now() + std::chrono::milliseconds(m_limits.retryIntervalMs);
        return;
    }
    m_failing = false;
    Q_EMIT writeRecovered();
}

void HistoryWriter::release(qsizetype calls, qint64 bytes)
{
    bool room = false;
    {
        std::lock_guard lock(m_mutex);
        m_pendingCalls -= calls;
        m_pendingBytes -= bytes;
        if (!m_hasRoom.load(std::memory_order_relaxed) && m_pendingCalls <= m_limits.maxQueuedCalls / 2
            && m_pendingBytes <= m_limits.maxQueuedBytes / 2) {
            m_hasRoom.store(true, std::memory_order_relaxed);
            room = true;
        }
    }
    if (room)
        Q_EMIT roomAvailable();
}

void HistoryWriter::addLeftOut(qint64 calls)
{
    if (calls == 0)
        return;
    m_leftOutUnsaved += calls;
    Q_EMIT callsLeftOutChanged(m_callsLeftOut.fetch_add(calls) + calls);
}
