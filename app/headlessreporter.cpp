#include "headlessreporter.h"

#include "printabletext.h"

#include <QDateTime>

#include <cstdio>

HeadlessReporter::HeadlessReporter(QObject* parent)
    : QObject(parent)
{
    // The main thread stays at normal priority although it mostly writes this log: it also ends
    // the process on SIGTERM (writing history), which must not starve on a busy core.
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
        + PrintableText::escaped(call.tool) + " via " + PrintableText::escaped(call.route);
    if (call.durationUs >= 0)
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
    const qint64 utcOffsetMs = qint64(QDateTime::currentDateTime().offsetFromUtc()) * 1000;
    QByteArray text;
    for (const ToolCall& call : calls) {
        // A paused call with a duration has stopped waiting (parked, or its connection dropped).
        if (call.isFinished() || (call.status == CallStatus::Paused && call.durationUs >= 0))
            text += formatLine(call, utcOffsetMs);
    }
    std::fwrite(text.constData(), 1, std::size_t(text.size()), stdout);
    std::fflush(stdout);
}

QByteArray HeadlessReporter::formatQuestion(const PendingInteraction& interaction, const char* state)
{
    const QByteArray what = interaction.kind == InteractionKind::Approval ? QByteArray("approval of ") : QByteArray();
    return "question " + PrintableText::escaped(interaction.id) + ' ' + state + ": " + what
        + PrintableText::escaped(interaction.tool) + " for " + PrintableText::escaped(interaction.clientName)
        + " (call #" + QByteArray::number(interaction.callId) + ", " + pauseModeName(interaction.mode).toUtf8()
        + "); answer it in the Switchboard window\n";
}

void HeadlessReporter::reportPending(const PendingInteraction& interaction)
{
    const QByteArray line = formatQuestion(interaction, "pending");
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout);
    std::fflush(stdout);
}

void HeadlessReporter::reportRestored(const PendingInteractionList& interactions)
{
    QByteArray text;
    for (const PendingInteraction& interaction : interactions)
        text += formatQuestion(interaction, "pending from before the restart");
    std::fwrite(text.constData(), 1, std::size_t(text.size()), stdout);
    std::fflush(stdout);
}

void HeadlessReporter::reportResolved(const QString& interactionId, const QString& outcome)
{
    const QByteArray line
        = "question " + PrintableText::escaped(interactionId) + ' ' + PrintableText::escaped(outcome) + '\n';
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout);
    std::fflush(stdout);
}
