#include "headlessreporter.h"

#include "transport/printabletext.h"

#include <QDateTime>
#include <QDeadlineTimer>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace {

// A write of at most PIPE_BUF bytes to a pipe that poll() reports writable does not block, so the
// writer can always give up at its deadline.
constexpr qsizetype WriteChunkBytes = PIPE_BUF;
constexpr int PollIntervalMs = 100;

qint64 nowMs()
{
    return QDeadlineTimer::current().deadline();
}

} // namespace

HeadlessReporter::HeadlessReporter(int fd, qint64 maxBufferedBytes, QObject* parent)
    : QObject(parent)
    , m_fd(fd)
    , m_maxBufferedBytes(maxBufferedBytes)
{
    m_writer = std::thread([this] { writeLoop(); });
}

HeadlessReporter::~HeadlessReporter()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_drainDeadlineMs = nowMs() + DrainMs;
    }
    m_wake.notify_all();
    m_writer.join();
}

qint64 HeadlessReporter::linesLeftOut() const
{
    const std::lock_guard lock(m_mutex);
    return m_totalLeftOut;
}

qint64 HeadlessReporter::bufferedBytes() const
{
    const std::lock_guard lock(m_mutex);
    return m_queuedBytes + m_writing;
}

void HeadlessReporter::append(Entry entry)
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_broken || m_stopping)
            return;
        // The line saying how many were left out counts against the bound too.
        const QByteArray leftOutNote = m_pendingLeftOut == 0 ? QByteArray()
                                                             : "switchboard: " + QByteArray::number(m_pendingLeftOut)
                + " lines were left out here: the output did not keep up\n";
        if (m_queuedBytes + m_writing + leftOutNote.size() + entry.bytes > m_maxBufferedBytes) {
            ++m_pendingLeftOut;
            ++m_totalLeftOut;
            return;
        }
        if (!leftOutNote.isEmpty()) {
            m_queuedBytes += leftOutNote.size();
            m_queue.push_back({leftOutNote, {}, false, leftOutNote.size()});
        }
        m_pendingLeftOut = 0;
        m_queuedBytes += entry.bytes;
        m_queue.push_back(std::move(entry));
    }
    m_wake.notify_one();
}

void HeadlessReporter::writeLoop()
{
    // A reader that went away must end the output, not the process: SIGPIPE is raised in the
    // thread that writes, so this thread turns it into EPIPE.
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);

    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return !m_queue.empty() || m_stopping; });
        if (m_queue.empty())
            return; // stopping, everything written
        std::deque<Entry> entries;
        entries.swap(m_queue);
        m_writing = m_queuedBytes;
        m_queuedBytes = 0;
        lock.unlock();
        // Formatting happens here, not on the thread that reported the calls.
        const qint64 utcOffsetMs = qint64(QDateTime::currentDateTime().offsetFromUtc()) * 1000;
        QByteArray bytes;
        for (const Entry& entry : entries)
            bytes += entry.isCall ? formatLine(entry.call, utcOffsetMs) : entry.text;
        entries.clear();
        const bool written = writeAll(bytes);
        bytes.clear();
        lock.lock();
        m_writing = 0;
        if (!written) {
            m_broken = true;
            m_queue.clear();
            m_queuedBytes = 0;
            return;
        }
    }
}

bool HeadlessReporter::writeAll(const QByteArray& bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        {
            const std::lock_guard lock(m_mutex);
            if (m_stopping && nowMs() >= m_drainDeadlineMs)
                return false;
        }
        pollfd ready{m_fd, POLLOUT, 0};
        const int polled = ::poll(&ready, 1, PollIntervalMs);
        if (polled < 0 && errno != EINTR)
            return false;
        if (polled <= 0)
            continue;
        if ((ready.revents & (POLLERR | POLLNVAL)) != 0)
            return false;
        const ssize_t wrote
            = ::write(m_fd, bytes.constData() + done, std::size_t(qMin(WriteChunkBytes, bytes.size() - done)));
        if (wrote < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return false; // EPIPE and the like: the output is gone
        }
        done += wrote;
    }
    return true;
}

QByteArray HeadlessReporter::formatLine(const ToolCall& call, qint64 utcOffsetMs)
{
    // Local time of day from the epoch time and one offset per batch: QDateTime's time-zone
    // conversion per line costs more than the rest of the line.
    constexpr qint64 dayMs = 24 * 60 * 60 * 1000;
    const qint64 ms = ((call.startedAtMs + utcOffsetMs) % dayMs + dayMs) % dayMs;
    char time[16];
    std::snprintf(time, sizeof time, "%02d:%02d:%02d.%03d", int(ms / 3'600'000), int(ms / 60'000 % 60),
        int(ms / 1000 % 60), int(ms % 1000));
    QByteArray line;
    line.reserve(128);
    line += time;
    // Names and messages come from clients: escaped, so none can end the line early or forge one.
    line += " #" + QByteArray::number(call.id) + ' ' + callStatusName(call.status).toLatin1() + ' '
        + PrintableText::escaped(call.tool) + " via " + PrintableText::escaped(call.route.toString());
    if (call.durationUs >= 0 && call.waitedUs > 0) // the person's time apart from the tool's
        line += " waited " + QByteArray::number(double(call.waitedUs) / 1000.0, 'f', 2) + " ms, ran "
            + QByteArray::number(double(call.ranUs()) / 1000.0, 'f', 2) + " ms";
    else if (call.durationUs >= 0)
        line += " in " + QByteArray::number(double(call.durationUs) / 1000.0, 'f', 2) + " ms";
    line += " from " + PrintableText::escaped(call.clientName);
    if (!call.clientVersion.isEmpty())
        line += ' ' + PrintableText::escaped(call.clientVersion);
    if (!call.error.isEmpty())
        line += ": " + PrintableText::escaped(call.error);
    line += '\n';
    return line;
}

void HeadlessReporter::report(const ToolCallList& calls)
{
    for (const ToolCall& call : calls) {
        if (!call.isFinished())
            continue;
        Entry entry;
        entry.isCall = true;
        entry.call = call;
        entry.call.request = QByteArray(); // the line needs neither body
        entry.call.response = QByteArray();
        // An upper bound of the line's length: escaping writes at most 10 bytes per character.
        entry.bytes = 96
            + 10
                * (call.tool.size() + call.route.owner.size() + 8 + call.clientName.size() + call.clientVersion.size()
                    + call.error.size());
        append(std::move(entry));
    }
}

QByteArray HeadlessReporter::formatQuestion(const PendingInteraction& interaction, const char* state)
{
    const QByteArray what = interaction.kind == InteractionKind::Approval ? QByteArray("approval of ") : QByteArray();
    return "question " + PrintableText::escaped(interaction.id) + ' ' + state + ": " + what
        + PrintableText::escaped(interaction.tool) + " for " + PrintableText::escaped(interaction.clientName)
        + " (call #" + QByteArray::number(interaction.callId) + ", " + pauseModeName(interaction.mode).toUtf8()
        + "); answer it with `switchboard answer " + PrintableText::escaped(interaction.id)
        + " …` or the operator API\n";
}

void HeadlessReporter::reportPending(const PendingInteraction& interaction)
{
    appendText(formatQuestion(interaction, "pending"));
}

void HeadlessReporter::reportRestored(const PendingInteractionList& interactions)
{
    for (const PendingInteraction& interaction : interactions)
        appendText(formatQuestion(interaction, "pending from before the restart"));
}

void HeadlessReporter::reportResolved(const QString& interactionId, InteractionOutcome outcome)
{
    appendText("question " + PrintableText::escaped(interactionId) + ' '
        + PrintableText::escaped(interactionOutcomeName(outcome)) + '\n');
}
